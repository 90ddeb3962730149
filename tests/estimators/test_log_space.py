"""Normalising joint log-probabilities over classes: log space and probabilities agree."""

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from bayesgen.inference.log_space import log_evidence, normalise, probabilities


@pytest.mark.parametrize("layout", ["C", "F"])
def test_probabilities_equal_the_exponentiated_log_posterior(layout):
    rng = np.random.default_rng(0)
    joint = rng.normal(scale=300.0, size=(500, 4))  # far outside exp's range: must not overflow
    joint[3] = [-np.inf, 2.0, -np.inf, -1.0]  # impossible classes
    joint[7] = -np.inf  # a row impossible under every class
    joint = np.asarray(joint, order=layout)
    log_prior = np.log([0.1, 0.2, 0.3, 0.4])
    log_posterior = normalise(joint.copy(), log_prior)
    with np.errstate(divide="raise", over="raise", invalid="raise"):  # impossible row too
        result, n_impossible = probabilities(joint.copy(), log_prior)
    assert n_impossible == 1
    np.testing.assert_allclose(result, np.exp(log_posterior), rtol=1e-13, atol=1e-300)
    finite = np.arange(500) != 7
    np.testing.assert_allclose(result[finite], softmax(joint[finite], axis=1), rtol=1e-13)
    np.testing.assert_allclose(result[7], [0.1, 0.2, 0.3, 0.4], rtol=1e-15)
    np.testing.assert_allclose(result.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(
        log_evidence(joint)[finite, 0], logsumexp(joint[finite], axis=1), rtol=1e-14
    )


def test_probabilities_overwrite_the_joint():
    joint = np.log(np.array([[1.0, 3.0], [2.0, 2.0]]))
    result, n_impossible = probabilities(joint, np.log([0.5, 0.5]))
    assert result is joint and n_impossible == 0
    np.testing.assert_allclose(result, [[0.25, 0.75], [0.5, 0.5]], rtol=1e-15)


def test_scores_laid_out_class_by_class_are_normalised_in_blocks_alike(monkeypatch):
    """Blocks of rows (side by side in threads) give the whole array's probabilities bit
    for bit, impossible rows in any block counted once, under the caller's errstate."""
    from bayesgen.inference import log_space

    rng = np.random.default_rng(1)
    joint = rng.normal(scale=300.0, size=(203, 4))
    joint[[3, 40, 202]] = -np.inf  # impossible rows in three blocks
    joint[17] = [-np.inf, 2.0, -np.inf, -1.0]
    log_prior = np.log([0.1, 0.2, 0.3, 0.4])
    whole, n_whole = probabilities(np.asfortranarray(joint), log_prior)
    monkeypatch.setattr(log_space, "PROBABILITY_BLOCK_ROWS", 16)
    blocks = []
    real = log_space.run_pieces
    monkeypatch.setattr(
        log_space, "run_pieces", lambda f, pieces: blocks.append(list(pieces)) or real(f, pieces)
    )
    by_class = np.asfortranarray(joint)
    with np.errstate(divide="raise", over="raise", invalid="raise"):
        result, n_impossible = probabilities(by_class, log_prior)
    assert blocks == [list(range(0, 203, 16))]
    assert result is by_class and n_impossible == n_whole == 3
    np.testing.assert_array_equal(result, whole)
    probabilities(np.ascontiguousarray(joint), log_prior)  # row by row: one block
    assert len(blocks) == 1
