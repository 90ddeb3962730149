"""Progress bars: off by default, on inside show_progress on a terminal, never under CI."""

import io

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayesgen
from bayesgen import progress


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


@pytest.fixture
def not_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)


def _iris_half_unlabelled():
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[::2] = -1
    return X, y


@pytest.mark.parametrize(
    "model",
    [bayesgen.QDA(), bayesgen.LDA(shrinkage=0.2)],  # the jitted loop and the generic one
    ids=["jitted-em", "generic-em"],
)
def test_em_iterations_are_shown_on_a_terminal(model, not_ci):
    X, y = _iris_half_unlabelled()
    terminal = Terminal()
    with bayesgen.show_progress(file=terminal):
        fitted = model.fit(X, y)
    drawn = terminal.getvalue()
    assert "EM over unlabelled rows" in drawn
    # The bar reached the number of iterations EM ran.
    assert f"{fitted.n_iter_}/{model.max_iter}" in drawn


def test_fit_is_the_same_with_and_without_the_bar(not_ci):
    X, y = _iris_half_unlabelled()
    silent = bayesgen.QDA().fit(X, y)
    with bayesgen.show_progress(file=Terminal()):
        shown = bayesgen.QDA().fit(X, y)
    np.testing.assert_array_equal(silent.covariances_, shown.covariances_)
    np.testing.assert_array_equal(silent.log_likelihood_history_, shown.log_likelihood_history_)


def test_nothing_is_drawn_by_default_off_a_terminal_or_under_ci(monkeypatch, not_ci):
    X, y = _iris_half_unlabelled()
    assert not progress.reporting()
    with bayesgen.show_progress(file=io.StringIO()):  # not a terminal
        assert not progress.reporting()
    terminal = Terminal()
    with bayesgen.show_progress(enabled=False, file=terminal):
        bayesgen.QDA().fit(X, y)
    assert terminal.getvalue() == ""
    monkeypatch.setenv("CI", "true")
    with bayesgen.show_progress(file=terminal):
        assert not progress.reporting()
        bayesgen.QDA().fit(X, y)
    assert terminal.getvalue() == ""


def test_progress_argument_follows_the_setting(not_ci):
    assert progress.progress_shown(True) is True
    assert progress.progress_shown(False) is False
    assert progress.progress_shown(None) is False
    with bayesgen.show_progress(file=Terminal()):
        assert progress.progress_shown(None) is True
        assert progress.progress_shown(False) is False
