"""HistogramFamily: point masses and bins per class, checked against direct computations."""

import jax
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density
from scipy import stats

import bayesgen
from bayesgen import FamilyClassifier, LatentClassNB, MixedNB
from bayesgen.families.histogram import HistogramFamily, learn_cells


def _data(n=2000, seed=0):
    """A zero-inflated positive column, counts, and a column of five levels."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    spend = np.where(rng.random(n) < 0.3 + 0.3 * y, 0.0, rng.gamma(2.0 + y, 1.5))
    visits = rng.poisson(2.0 + 3.0 * y)
    plan = rng.choice([0.0, 0.25, 0.5, 0.95, 1.0], n)
    return np.column_stack([spend, visits, plan]), y


def _cells_by_hand(column, atoms, edges, whole):
    """Each value's cell by a plain loop: atom, bin, else outside; -1 when missing."""
    n_atoms, n_bins = len(atoms), max(len(edges) - 1, 0)
    codes = []
    for x in column:
        if np.isnan(x):
            codes.append(-1)
        elif x in set(atoms):
            codes.append(list(atoms).index(x))
        elif n_bins and edges[0] <= x <= edges[-1] and (not whole or x == round(x)):
            b = max(i for i in range(n_bins) if edges[i] <= x)
            codes.append(n_atoms + b)
        else:
            codes.append(n_atoms + n_bins)
    return np.asarray(codes)


def test_cells_are_the_repeated_values_and_equal_count_bins_of_the_rest():
    X, _ = _data()
    atoms, edges, whole = learn_cells(X[:, 0], None, 0.01)
    assert atoms.tolist() == [0.0] and not whole  # the gamma part never repeats
    rest = X[X[:, 0] > 0, 0]
    assert edges[0] == rest.min() and edges[-1] == rest.max()
    assert len(edges) - 1 == int(np.ceil(np.sqrt(rest.size)))  # default: about sqrt(n)
    counts = np.histogram(rest, edges)[0]
    assert counts.max() - counts.min() <= 1 + rest.size // 100  # equal counts, ties aside
    atoms, edges, whole = learn_cells(X[:, 2], None, 0.01)
    assert atoms.tolist() == [0.0, 0.25, 0.5, 0.95, 1.0] and edges.size == 0
    atoms, edges, whole = learn_cells(X[:, 1], 4, 0.01)
    assert whole and np.all(edges % 1 == 0.5)  # whole numbers: bins between half units
    shares = np.unique(X[:, 1], return_counts=True)
    assert atoms.tolist() == shares[0][shares[1] >= 20].tolist()


@pytest.mark.parametrize("bins", [None, 2, 3, 10])
def test_every_bin_has_a_positive_size_however_few_values_are_left(bins):
    """Two to four values outside the atoms, or more bins than values: no bin of width 0
    (its density would be infinite), and every value still has a finite density."""
    rng = np.random.default_rng(13)
    for column in (np.r_[np.zeros(10), 0.3, 0.7, np.zeros(10), 0.4, 0.9], rng.normal(size=10)):
        atoms, edges, _ = learn_cells(column, bins, 0.01)
        assert np.all(np.diff(edges) > 0)
        y = np.arange(column.size) % 2
        model = FamilyClassifier(family=HistogramFamily(bins=bins), estimate="mean")
        model.fit(column[:, None], y)
        assert np.all(np.isfinite(model.score_samples(column[:, None])))


def test_cell_codes_match_a_plain_loop_with_missing_and_unseen_values():
    X, y = _data(n=500, seed=1)
    family, _ = HistogramFamily(bins=5).learn(X)
    probe = np.array([[0.0, 3.0, 0.5], [np.nan, 2.5, 0.3], [1e6, -4.0, np.nan], [0.01, 1e3, 1.0]])
    rows = np.vstack([X[:50], probe])
    codes = family.cell_codes(rows)
    for j in range(3):
        expected = _cells_by_hand(rows[:, j], family.atoms[j], family.edges[j], family.whole[j])
        np.testing.assert_array_equal(codes[:, j], expected)


def test_log_likelihood_is_the_cell_probability_over_its_size():
    """p(x | k) = theta_kc / |c|: the width of a bin, its whole numbers less its atoms in a
    column of counts, 1 for an atom; a missing entry adds nothing."""
    X, y = _data(n=800, seed=2)
    X[::7, 0] = np.nan
    model = FamilyClassifier(family=HistogramFamily(bins=6), estimate="mean").fit(X, y)
    family = model.joint_.family if hasattr(model.joint_, "family") else model.family_
    theta = np.asarray(model.joint_.params)
    blocks = family.blocks(theta)
    expected = np.zeros((X.shape[0], 2))
    for j in range(3):
        atoms, edges, whole = family.atoms[j], family.edges[j], family.whole[j]
        codes = _cells_by_hand(X[:, j], atoms, edges, whole)
        for i, c in enumerate(codes):
            if c < 0:
                continue
            size = 1.0
            if len(atoms) <= c < len(atoms) + len(edges) - 1:
                lo, hi = edges[c - len(atoms)], edges[c - len(atoms) + 1]
                size = hi - lo
                if whole:
                    size = len(
                        [
                            v
                            for v in range(int(np.ceil(lo)), int(np.floor(hi)) + 1)
                            if v not in set(atoms)
                        ]
                    )
            expected[i] += np.log(blocks[j][:, c]) - np.log(size)
    got = model.predict_joint_log_proba(X) - np.log(model.class_prior_)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # Every estimate but the MLE adds smoothing / cells to each cell's count: here 4 / 6
    # (five levels and the outside cell); "map" by its prior of one more pseudo-count.
    counts = np.bincount(
        _cells_by_hand(X[y == 1, 2], family.atoms[2], family.edges[2], False), minlength=6
    )
    smoothed = (counts + 4.0 / 6.0) / (counts.sum() + 4.0)
    np.testing.assert_allclose(blocks[2][1], smoothed, rtol=1e-12)
    # "map" makes the same estimate, under the same prior: one posterior whatever the kind.
    mode = FamilyClassifier(family=HistogramFamily(bins=6), estimate="map").fit(X, y)
    np.testing.assert_allclose(mode.joint_.params, model.joint_.params, rtol=1e-12)
    np.testing.assert_array_equal(mode.joint_.feature_prior, model.joint_.feature_prior)
    np.testing.assert_allclose(
        mode.predict_proba(X, method="predictive"),
        model.predict_proba(X, method="predictive"),
        rtol=1e-12,
    )
    exact = FamilyClassifier(family=HistogramFamily(bins=6), estimate="mle").fit(X, y)
    observed = exact.family_.blocks(np.asarray(exact.joint_.params))[2][1]
    np.testing.assert_allclose(observed, counts / counts.sum(), rtol=1e-12)


def test_the_density_integrates_to_one_over_the_cells():
    """Summing p(x | k) over the atoms and integrating it over the bins (whole numbers:
    summing over them) gives 1 less the outside cell's probability."""
    X, y = _data(n=600, seed=3)
    model = FamilyClassifier(family=HistogramFamily(bins=5), estimate="mean").fit(X, y)
    family = model.family_
    outside = [block[:, -1] for block in family.blocks(np.asarray(model.joint_.params))]
    for j in range(3):
        atoms, edges, whole = family.atoms[j], family.edges[j], family.whole[j]
        total = np.zeros(2)
        grid = np.array(atoms, dtype=float)
        if len(edges):
            if whole:
                whole_numbers = np.arange(np.ceil(edges[0]), np.floor(edges[-1]) + 1)
                grid = np.r_[grid, np.setdiff1d(whole_numbers, atoms)]
            else:
                fine = np.linspace(edges[0], edges[-1], 200001)
                rows = np.full((fine.size, 3), np.nan)
                rows[:, j] = fine
                density = np.exp(family.log_likelihood(model.joint_.params, rows))
                total += np.trapezoid(density, fine, axis=0)
        rows = np.full((grid.size, 3), np.nan)
        rows[:, j] = grid
        total += np.exp(family.log_likelihood(model.joint_.params, rows)).sum(axis=0)
        np.testing.assert_allclose(total + outside[j], 1.0, atol=2e-4)


def test_draws_stay_in_the_support_and_follow_the_cell_probabilities():
    X, y = _data(n=3000, seed=4)
    model = FamilyClassifier(family=HistogramFamily(bins=8), estimate="mean").fit(X, y)
    family = model.family_
    drawn, labels = model.sample(40000, random_state=0)
    assert np.all(drawn.min(axis=0) >= X.min(axis=0)) and np.all(drawn.max(axis=0) <= X.max(axis=0))
    np.testing.assert_array_equal(drawn[:, 1], np.round(drawn[:, 1]))  # counts stay whole
    assert set(np.unique(drawn[:, 2])) <= set(np.unique(X[:, 2]))  # levels come back exactly
    codes = family.cell_codes(drawn)
    assert np.all(codes < np.asarray(family.sizes) - 1)  # the outside cell is never drawn
    seen = family._seen_probabilities(model.joint_.params)
    for k in (0, 1):
        of_class = codes[labels == model.classes_[k]]
        for j in range(3):
            observed = np.bincount(of_class[:, j], minlength=seen[j].shape[1])
            expected = seen[j][k] * of_class.shape[0]
            assert stats.chisquare(observed, expected).pvalue > 1e-3
    # Within a bin of the continuous column a value is uniform between its edges.
    first = len(family.atoms[0])
    in_bin = drawn[codes[:, 0] == first, 0]
    lo, hi = family.edges[0][0], family.edges[0][1]
    assert stats.kstest(in_bin, stats.uniform(lo, hi - lo).cdf).pvalue > 1e-3


def test_a_count_bin_draws_its_whole_numbers_uniformly_stepping_over_atoms():
    rng = np.random.default_rng(5)
    values = np.r_[np.zeros(300), np.full(200, 5.0), rng.integers(1, 12, 60)]
    family, _ = HistogramFamily(bins=1, atom_share=0.2).learn(values[:, None])
    assert family.atoms[0].tolist() == [0.0, 5.0]
    lo, hi = family.edges[0]
    allowed = [v for v in range(int(np.ceil(lo)), int(np.floor(hi)) + 1) if v != 5]
    codes = np.full((60000, 1), 2)
    drawn = family.values_in_cells(codes, rng.random((60000, 1)))[:, 0]
    got = np.unique(drawn, return_counts=True)
    assert got[0].tolist() == allowed
    assert stats.chisquare(got[1]).pvalue > 1e-3
    np.testing.assert_allclose(family.log_cell_sizes()[0], [0, 0, np.log(len(allowed)), 0])


def test_impute_mean_is_the_class_mixture_of_cell_means_and_sample_stays_in_support():
    X, y = _data(n=1500, seed=6)
    model = FamilyClassifier(family=HistogramFamily(bins=6), estimate="mean").fit(X, y)
    family = model.family_
    gappy = X[:40].copy()
    gappy[:, 0] = np.nan
    weights = model.predict_proba(gappy)
    seen = family._seen_probabilities(model.joint_.params)[0]
    edges, atoms = family.edges[0], family.atoms[0]
    means = np.r_[atoms, (edges[:-1] + edges[1:]) / 2]
    np.testing.assert_allclose(model.impute(gappy)[:, 0], weights @ (seen @ means), rtol=1e-12)
    sampled = model.impute(gappy, method="sample", random_state=0)
    np.testing.assert_array_equal(sampled[:, 1:], X[:40, 1:])
    assert np.all(
        (sampled[:, 0] == 0) | ((sampled[:, 0] >= edges[0]) & (sampled[:, 0] <= edges[-1]))
    )
    counts = X[:40].copy()
    counts[:, 1] = np.nan
    assert np.all(model.impute(counts)[:, 1] % 1 == 0)  # a count's mean is rounded to one


@pytest.mark.parametrize("kind", ["mean", "map"])
def test_the_story_log_density_is_the_closed_form_joint_plus_the_log_prior(kind):
    X, y = _data(n=200, seed=7)
    X[::5, 0] = np.nan
    model = FamilyClassifier(family=HistogramFamily(bins=4), estimate=kind).fit(X, y)
    family = model.family_
    blocks = family.blocks(np.asarray(model.joint_.params))
    params = {"class_prior": model.class_prior_}
    params.update({f"category_probs_{j}": block for j, block in enumerate(blocks)})
    with jax.enable_x64(True):
        density, _ = log_density(model.story, (X, y), {}, params)
    joint = model.predict_joint_log_proba(X)[np.arange(len(y)), y].sum()
    log_prior = stats.dirichlet.logpdf(model.class_prior_, np.ones(2))
    for block in blocks:  # Dirichlet(smoothing / cells) on every class's cells
        for k in range(2):
            log_prior += stats.dirichlet.logpdf(
                block[k], np.full(block.shape[1], 4.0 / block.shape[1])
            )
    np.testing.assert_allclose(float(density), log_prior + joint, rtol=1e-10)


def test_story_draws_are_values_in_the_support():
    X, y = _data(n=300, seed=8)
    model = FamilyClassifier(family=HistogramFamily(bins=4), estimate="mean").fit(X, y)
    drawn, _ = model.sample(500, method="story", random_state=0)
    assert np.all(drawn.min(axis=0) >= X.min(axis=0)) and np.all(drawn.max(axis=0) <= X.max(axis=0))
    np.testing.assert_array_equal(drawn[:, 1], np.round(drawn[:, 1]))


def test_posterior_draws_are_the_dirichlet_of_the_cell_counts():
    X, y = _data(n=300, seed=9)
    model = FamilyClassifier(family=HistogramFamily(bins=3), estimate="mean").fit(X, y)
    family = model.family_
    draws = model.posterior(20000, random_state=0).posterior
    concentration = family.blocks(
        np.asarray(family.posterior(model.joint_.feature_prior, model.joint_.feature_stats))
    )
    for j, alpha in enumerate(concentration):
        drawn = draws[f"category_probs_{j}"].values.reshape(-1, 2, alpha.shape[1])
        expected = alpha / alpha.sum(axis=1, keepdims=True)
        spread = np.sqrt(expected * (1 - expected) / (alpha.sum(axis=1, keepdims=True) + 1))
        assert np.all(np.abs(drawn.mean(axis=0) - expected) < 5 * spread / np.sqrt(20000))


def test_as_mixed_nb_columns_and_mixture_leaves_with_no_edit(tmp_path):
    """Named in features=, it is a MixedNB group (the model is the sum of its groups), a
    LatentClassNB leaf per component, and is saved and loaded."""
    X, y = _data(n=1200, seed=10)
    frame = pd.DataFrame(X, columns=["spend", "visits", "plan"])
    frame["region"] = np.where(y == 1, "north", "south")
    frame.loc[::9, "spend"] = np.nan
    features = {"spend": "histogram", "visits": "histogram"}
    # MixedNB's alpha counts per category; the histogram's smoothing is its own.
    settings = {"histogram": {"bins": 5}}
    model = MixedNB(features=features, alpha=3.0, family_params=settings).fit(frame, y)
    assert model.feature_families_["spend"] == "histogram"
    alone = FamilyClassifier(family=HistogramFamily(bins=5), estimate="mean").fit(
        frame[["spend", "visits"]], y
    )
    share = model.estimators_["histogram"]
    np.testing.assert_allclose(
        share.predict_joint_log_proba(frame[["spend", "visits"]]),
        alone.predict_joint_log_proba(frame[["spend", "visits"]]),
        rtol=1e-12,
    )
    synthetic, _ = model.sample(3000, random_state=0)
    assert synthetic["spend"].min() >= 0 and (synthetic["spend"] == 0).mean() > 0.3
    assert (synthetic["visits"] % 1 == 0).all()
    model.save(tmp_path / "mixed.bgm")
    np.testing.assert_array_equal(
        bayesgen.load(tmp_path / "mixed.bgm").predict_proba(frame), model.predict_proba(frame)
    )
    latent = LatentClassNB(n_components=3, features=features, max_iter=500, random_state=0)
    latent.fit(frame, y)
    assert {c: latent.feature_families_[c] for c in features} == features
    history = latent.log_likelihood_history_
    assert np.all(np.diff(history) >= -1e-8 * np.abs(history[1:]))  # EM never goes down
    drawn, _ = latent.sample(2000, random_state=0)
    assert drawn["spend"].min() >= 0 and drawn["spend"].max() <= frame["spend"].max()


def test_partial_fit_keeps_the_first_fit_s_cells():
    X, y = _data(n=1000, seed=11)
    model = FamilyClassifier(family=HistogramFamily(bins=5), estimate="mean")
    model.partial_fit(X[:500], y[:500], classes=[0, 1])
    cells = model.family_.learned()
    model.partial_fit(X[500:] * 1.5, y[500:])
    assert all(
        np.array_equal(a, b) for a, b in zip(cells["edges"], model.family_.edges, strict=True)
    )
    whole = FamilyClassifier(family=HistogramFamily(bins=5), estimate="mean")
    whole.partial_fit(X[:500], y[:500], classes=[0, 1])
    np.testing.assert_allclose(
        np.asarray(model.joint_.feature_stats.category_counts),
        np.asarray(whole.joint_.feature_stats.category_counts)
        + np.asarray(
            whole.family_.suff_stats(X[500:] * 1.5, np.eye(2)[y[500:]], np.float64).category_counts
        ),
    )


def test_mixed_nb_never_chooses_it_unasked():
    """Its atoms are probabilities and its bins densities, so it offers no evidence: a
    column gets it only by name, whatever its settings."""
    rng = np.random.default_rng(14)
    frame = pd.DataFrame(
        {
            "text": rng.choice(list("abcdefgh"), 300),
            "count": rng.integers(0, 30, 300).astype(float),
            "spend": np.where(rng.random(300) < 0.4, 0.0, rng.gamma(2.0, 1.0, 300)),
        }
    )
    y = rng.integers(0, 2, 300)
    for settings in (None, {"histogram": {"smoothing": 5.0}}, {"histogram": {"smoothing": 0.1}}):
        model = MixedNB(family_params=settings).fit(frame, y)
        assert "histogram" not in model.feature_families_.values()
        assert all("histogram" not in e for e in model.family_log_evidence_.values())


def test_cell_labels_are_unique_and_read_as_values():
    rng = np.random.default_rng(15)
    X = np.c_[rng.choice([1234567.0, 1234568.0, 1234569.0], 400), 1e6 + 1e-3 * rng.normal(size=400)]
    y = rng.integers(0, 2, 400)
    model = FamilyClassifier(family=HistogramFamily(bins=4), estimate="mean").fit(X, y)
    dims, coords = model.family_.parameter_dims(["a", "b"])
    assert coords["cell_0"] == ["1234567.0", "1234568.0", "1234569.0", "<outside>"]
    assert len(set(coords["cell_1"])) == len(coords["cell_1"]) == 4 + 1  # four bins, outside
    counts = np.r_[np.zeros(50), np.arange(1, 41)]
    whole = FamilyClassifier(family=HistogramFamily(bins=2), estimate="mean")
    whole.fit(counts[:, None], np.arange(90) % 2)
    assert whole.family_.parameter_dims(["c"])[1]["cell_0"] == [
        "0.0",
        "[1, 20]",
        "[21, 40]",
        "<outside>",
    ]


def test_a_column_never_observed_is_refused_by_name():
    X, y = _data(n=100, seed=16)
    X[:, 1] = np.nan
    with pytest.raises(ValueError, match="cannot model its column 1: it has no observed value"):
        FamilyClassifier(family=HistogramFamily()).fit(X, y)


def test_bad_values_and_settings_are_refused_by_name():
    X, y = _data(n=100, seed=12)
    X[4, 1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        FamilyClassifier(family=HistogramFamily()).fit(X, y)
    X[4, 1] = 1.0
    for setting, message in (
        ({"bins": 0}, "bins must be an integer >= 1"),
        ({"bins": 2.5}, "bins must be an integer >= 1"),
        ({"atom_share": 0.0}, r"atom_share must be in \(0, 1\]"),
        ({"smoothing": -1.0}, "smoothing must be > 0"),
    ):
        with pytest.raises(ValueError, match=message):
            FamilyClassifier(family=HistogramFamily(**setting)).fit(X, y)
    with pytest.raises(
        ValueError,
        match=r"\['alpha'\].*its parameters: \['atom_share', 'bins', 'estimate', 'smoothing'\]",
    ):
        MixedNB(family_params={"histogram": {"alpha": 1.0}}).fit(pd.DataFrame(X), y)
    frame = pd.DataFrame({"spend": ["a"] * 50 + ["b"] * 50})
    with pytest.raises(ValueError, match="spend"):
        MixedNB(features={"spend": "histogram"}).fit(frame, y)
