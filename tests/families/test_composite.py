"""CompositeFamily: column groups whose statistics sit side by side and whose densities add."""

import jax
import numpy as np
import pytest

from bayesgen._precision import precision
from bayesgen.families.bernoulli import BernoulliFamily
from bayesgen.families.composite import CompositeFamily
from bayesgen.families.exponential import ExponentialFamily
from bayesgen.families.gaussian import GaussianFamily
from bayesgen.families.poisson import PoissonFamily


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.column_stack(
        [
            rng.normal(2.0 * y, 1.0),
            rng.normal(-y, 2.0),
            rng.poisson(1 + 2 * y),
            rng.random(n) < 0.3 + 0.4 * y,
            rng.exponential(1.0 + y),
        ]
    ).astype(float)
    return X, np.eye(2)[y]


@pytest.fixture(autouse=True)
def _float64():
    """Callers run a family inside the precision of their data (here float64)."""
    with precision(np.float64):
        yield


GROUPS = {
    "gaussian": (GaussianFamily("diag"), [0, 1]),
    "poisson": (PoissonFamily(alpha=0.5), [2]),
    "bernoulli": (BernoulliFamily(alpha=0.5), [3]),
    "exponential": (ExponentialFamily(alpha=0.5), [4]),
}


def _fit(family, X, R, kind="mean"):
    stats = family.suff_stats(X, R, np.float64)
    prior = family.prior(stats)
    return stats, prior, family.point_estimate(prior, stats, kind)


def test_log_likelihood_is_the_sum_of_each_group_on_its_own_columns():
    """log p(x | k) = sum_g log p_g(x_g | k), each p_g fitted alone on its columns."""
    X, R = _data()
    composite = CompositeFamily(GROUPS)
    _, _, params = _fit(composite, X, R)
    expected = 0.0
    for family, columns in GROUPS.values():
        _, _, own = _fit(family, X[:, columns], R)
        expected = expected + np.asarray(family.log_likelihood(own, X[:, columns]))
    np.testing.assert_allclose(composite.log_likelihood(params, X), expected, rtol=1e-12)


def test_merged_halves_give_the_statistics_of_the_whole():
    """merge(stats(A), stats(B)) == stats(A u B), group by group."""
    X, R = _data()
    composite = CompositeFamily(GROUPS)
    whole = composite.suff_stats(X, R, np.float64)
    merged = composite.merge(
        composite.suff_stats(X[:50], R[:50], np.float64),
        composite.suff_stats(X[50:], R[50:], np.float64),
    )
    for a, b in zip(jax.tree.leaves(whole), jax.tree.leaves(merged), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


def test_log_prior_and_predictive_add_up_over_groups():
    """The log prior and the posterior predictive are the groups' sums."""
    X, R = _data()
    composite = CompositeFamily({k: GROUPS[k] for k in ("poisson", "bernoulli", "exponential")})
    stats, prior, params = _fit(composite, X, R)
    posterior = composite.posterior(prior, stats)
    expected_prior, expected_predictive = 0.0, 0.0
    for name, (family, columns) in composite.groups.items():
        expected_prior += family.log_prior(prior[name], params[name], kind="mean")
        expected_predictive = expected_predictive + np.asarray(
            family.predictive_log_likelihood(posterior[name], X[:, columns])
        )
    assert composite.log_prior(prior, params, kind="mean") == pytest.approx(expected_prior)
    np.testing.assert_allclose(
        composite.predictive_log_likelihood(posterior, X), expected_predictive, rtol=1e-12
    )


def test_draws_come_from_each_group_with_its_own_key():
    """sample_params draws each group from one split of the key."""
    X, R = _data()
    composite = CompositeFamily({k: GROUPS[k] for k in ("poisson", "exponential")})
    stats, prior, _ = _fit(composite, X, R)
    posterior = composite.posterior(prior, stats)
    key = jax.random.PRNGKey(3)
    draws = composite.sample_params(key, posterior, 5)
    for group_key, (name, (family, _)) in zip(
        jax.random.split(key, 2), composite.groups.items(), strict=True
    ):
        expected = family.sample_params(group_key, posterior[name], 5)
        np.testing.assert_array_equal(np.asarray(draws[name]), np.asarray(expected))


def test_conditional_fills_only_missing_entries_group_by_group():
    """Each group fills its own NaN entries as its family would; observed entries stay."""
    X, R = _data()
    composite = CompositeFamily(GROUPS)
    _, _, params = _fit(composite, X, R)
    holes = X.copy()
    holes[::7, 0] = np.nan
    holes[::5, 2] = np.nan
    holes[::3, 4] = np.nan
    weights = np.full((len(X), 2), 0.5)
    filled = composite.conditional(params, holes, weights, "mean", np.random.default_rng(0))
    assert not np.isnan(filled).any()
    observed = ~np.isnan(holes)
    np.testing.assert_array_equal(filled[observed], holes[observed])
    for name, (family, columns) in GROUPS.items():
        rng = np.random.default_rng(0)
        own = np.asarray(family.conditional(params[name], holes[:, columns], weights, "mean", rng))
        missing = np.isnan(holes[:, columns])
        np.testing.assert_allclose(filled[:, columns][missing], own[missing])


def test_a_group_estimate_replaces_the_kind_it_is_given():
    """``estimates={"gaussian": "mle"}``: that group's parameters are its own family's
    maximum-likelihood estimate whatever kind the composite is asked for; the others
    follow the kind, and the log prior takes each group's own kind."""
    X, R = _data()
    family = CompositeFamily(GROUPS, estimates={"gaussian": "mle"})
    stats, prior, params = _fit(family, X, R, kind="mean")
    for name, (group, columns) in GROUPS.items():
        own_stats = group.suff_stats(X[:, columns], R, np.float64)
        kind = "mle" if name == "gaussian" else "mean"
        own = group.point_estimate(group.prior(own_stats), own_stats, kind)
        for found, expected in zip(
            jax.tree.leaves(params[name]), jax.tree.leaves(own), strict=True
        ):
            np.testing.assert_allclose(found, expected, rtol=1e-12)
    kinds = {name: "mle" if name == "gaussian" else "mean" for name in GROUPS}
    total = sum(
        float(group.log_prior(prior[name], params[name], kind=kinds[name]))
        for name, (group, _) in GROUPS.items()
    )
    np.testing.assert_allclose(family.log_prior(prior, params, kind="mean"), total, rtol=1e-12)
    widened, _ = family.learn({name: X[:, columns] for name, (_, columns) in GROUPS.items()})
    assert widened.estimates == {"gaussian": "mle"}


def test_statistics_with_missing_entries_run_em_only_for_the_group_that_needs_it():
    """`gaussian_em.stats_with_missing`: the Gaussian group with NaN gets `gaussian_em.run`'s
    statistics and its (ridge, prior); the Poisson group skips its NaN in its own
    statistics and holds nothing."""
    from bayesgen.inference import gaussian_em

    X, R = _data()
    X[::4, 0] = np.nan
    X[1::5, 2] = np.nan
    groups = {name: GROUPS[name] for name in ("gaussian", "poisson")}
    family = CompositeFamily(groups)
    values = {name: X[:, columns] for name, (_, columns) in groups.items()}
    asked = []

    def settings(name):
        asked.append(name)
        return "map", 1e-8, 200

    stats, frozen = gaussian_em.stats_with_missing(family, values, R, np.float64, settings)
    assert asked == ["gaussian"] and frozen["poisson"] is None
    gaussian = groups["gaussian"][0]
    expected = gaussian_em.run(
        gaussian,
        values["gaussian"],
        R,
        np.float64,
        m_step=gaussian_em.family_m_step(gaussian, "map"),
        kind="map",
        tol=1e-8,
        max_iter=200,
    )
    for found, wanted in zip(
        jax.tree.leaves(stats["gaussian"]), jax.tree.leaves(expected.stats), strict=True
    ):
        np.testing.assert_array_equal(found, wanted)
    np.testing.assert_array_equal(frozen["gaussian"][0], expected.frozen[0])
    own = groups["poisson"][0].suff_stats(values["poisson"], R, np.float64)
    for found, wanted in zip(jax.tree.leaves(stats["poisson"]), jax.tree.leaves(own), strict=True):
        np.testing.assert_array_equal(found, wanted)


def test_story_part_is_every_groups_part_joined():
    """A composite's story part is registered once for every composite, whatever its
    groups (its ``name`` varies with them): each group's part under its story prior, its
    sites scoped ``"<group>/"``; drawn features come back as the family reads them."""
    from numpyro import handlers

    from bayesgen import stories
    from bayesgen.families import class_prior

    X, R = _data()
    composite = CompositeFamily(GROUPS)
    assert composite.name == "composite(gaussian+poisson+bernoulli+exponential)"
    assert composite.story_name == "composite"
    _, prior, _ = _fit(composite, X, R)
    part = stories.part(composite.story_name)(composite, prior, 2)
    expected_sites = set()
    for name, (family, columns) in GROUPS.items():
        own = stories.part(family.story_name)(
            family, jax.tree.map(np.asarray, family.story_prior(prior[name], len(columns))), 2
        )
        with handlers.seed(rng_seed=0):
            own_trace = handlers.trace(own.parameters).get_trace()
        expected_sites |= {
            f"{name}/{site}" for site, value in own_trace.items() if value["type"] == "sample"
        }
    with handlers.seed(rng_seed=0):
        trace = handlers.trace(stories.classifier_story).get_trace(
            None,
            None,
            class_prior=class_prior.Dirichlet(np.ones(2)),
            part=part,
            n_samples=50,
        )
    parameter_sites = {
        name for name, site in trace.items() if site["type"] == "sample" and "/" in name
    }
    assert expected_sites == parameter_sites - {f"{name}/X" for name in GROUPS}
    draws = {name: np.asarray(site["value"]) for name, site in trace.items()}
    columns = composite.features_from_draws(draws)
    assert len(columns) == X.shape[1]
    assert all(len(column) == 50 for column in columns)
