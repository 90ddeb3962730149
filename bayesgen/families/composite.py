r"""Independent column groups, each with its own family: `CompositeFamily`.

Naive Bayes over mixed columns factorises over groups of columns,
$p(x \mid k) = \prod_g p_g(x_{(g)} \mid k)$, so every quantity of the composite is
its groups' quantities side by side: statistics, priors, posteriors and parameters are
dicts keyed by group name, log-likelihoods and log priors add up, and imputation lets
each group fill its own columns.

``X`` is either one array whose columns the groups share out, or a dict of each group's
own columns (groups of different kinds: numbers and categories). The story's sites of a
group are its family's, under the name scope ``"<group>/"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from bayesgen._lazy import lazy_module
from bayesgen.families import class_prior, in_place, numpy_draws
from bayesgen.families.protocol import FeatureFamily

jax = lazy_module("jax")


class CompositeFamily(FeatureFamily):
    """Groups of columns, each following its own `FeatureFamily`.

    Not registered (it has no class-level ``name``): it is built from registered
    families, one per column group.

    Parameters
    ----------
    groups : mapping of str to (FeatureFamily, sequence of int)
        For each group name, its family and the positions of its columns in ``X``.
    estimates : mapping of str to str, optional
        A group's own point estimate (``"mle"``, ``"map"``, ``"mean"``), used instead of
        the ``kind`` the methods are given (a table whose Gaussian columns are fitted by
        maximum likelihood and its counts by their posterior mean).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesgen.families.composite import CompositeFamily
    >>> from bayesgen.families.gaussian import GaussianFamily
    >>> from bayesgen.families.poisson import PoissonFamily
    >>> family = CompositeFamily(
    ...     {"gaussian": (GaussianFamily("diag"), [0]), "poisson": (PoissonFamily(), [1])}
    ... )
    >>> X = np.array([[0.5, 1.0], [1.5, 0.0], [3.0, 4.0], [2.5, 5.0]], dtype=np.float32)
    >>> R = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], dtype=np.float32)
    >>> stats = family.suff_stats(X, R, np.float32)
    >>> params = family.point_estimate(family.prior(stats), stats, "mean")
    >>> family.log_likelihood(params, X).shape
    (4, 2)
    """

    #: Its story part's name: every group's part, joined (`bayesgen.stories.composite`).
    story_name = "composite"

    def __init__(
        self,
        groups: Mapping[str, tuple[FeatureFamily, Sequence[int]]],
        estimates: Mapping[str, str] | None = None,
    ):
        self.groups = {name: (family, list(columns)) for name, (family, columns) in groups.items()}
        self.estimates = dict(estimates or {})
        self.name = "composite(" + "+".join(self.groups) + ")"

    def _with_groups(self, groups) -> CompositeFamily:
        return CompositeFamily(groups, self.estimates)

    def check_estimate(self, kind: str) -> None:
        """Each group's check of its own estimate (or of ``kind``)."""
        for name, (family, _) in self.groups.items():
            family.check_estimate(self._kind(kind, name))

    @property
    def has_exact_posterior(self) -> bool:
        """Whether every group's family has an exact conjugate posterior."""
        return all(family.has_exact_posterior for family, _ in self.groups.values())

    def exact_posterior_refusal(self, value) -> str | None:
        """The first group whose family has no closed-form posterior, or whose columns were
        fitted by EM over missing entries (the group's ``frozen``)."""
        frozen = value.frozen or {}
        for name, (family, _) in self.groups.items():
            if not family.has_exact_posterior:
                return f"'s {name} family has no closed-form posterior."
            if frozen.get(name) is not None:
                return (
                    f"'s {name} family was fitted on rows with missing values (by EM), so "
                    "its posterior has no closed form; use posterior(method='nuts', X=X, "
                    "y=y) with the training rows, and pass that InferenceData to "
                    "predict_proba_draws."
                )
        return None

    @property
    def merges_exactly(self) -> bool:
        """Whether every group's family merges exactly."""
        return all(family.merges_exactly for family, _ in self.groups.values())

    @property
    def slices_classes(self) -> bool:
        """Whether every group's family gives the parameters of some of its classes."""
        return all(family.slices_classes for family, _ in self.groups.values())

    def classes_of(self, params: dict, index) -> dict:
        """Each group's parameters of the classes ``index``, by group name."""
        return {
            name: family.classes_of(params[name], index)
            for name, (family, _) in self.groups.items()
        }

    @property
    def missing_needs_em(self) -> bool:
        """Whether some group's family cannot skip missing entries."""
        return any(family.missing_needs_em for family, _ in self.groups.values())

    def columns(self, X, name: str):
        """The columns of ``X`` that group ``name`` models (``X[name]`` for a dict)."""
        if isinstance(X, Mapping):
            return X[name]
        return np.asarray(X)[:, self.groups[name][1]]

    def _each(self, method: str, *per_group, **options) -> dict:
        return {
            name: getattr(family, method)(*(value[name] for value in per_group), **options)
            for name, (family, _) in self.groups.items()
        }

    def _kind(self, kind, name: str) -> str:
        if name in self.estimates:
            return self.estimates[name]
        return kind[name] if isinstance(kind, Mapping) else kind

    # ----------------------------------------------------------- statistics
    def suff_stats(self, X, responsibilities, dtype) -> dict:
        """Each group's statistics of its own columns, by group name."""
        return {
            name: family.suff_stats(self.columns(X, name), responsibilities, dtype)
            for name, (family, _) in self.groups.items()
        }

    def merge(self, a: dict, b: dict) -> dict:
        """Each group's statistics merged."""
        return self._each("merge", a, b)

    # ------------------------------------------------------ prior, posterior
    def prior(self, stats: dict) -> dict:
        """Each group's prior, by group name."""
        return self._each("prior", stats)

    def posterior(self, prior: dict, stats: dict) -> dict:
        """Each group's conjugate posterior, by group name."""
        return self._each("posterior", prior, stats)

    def point_estimate(self, prior: dict, stats: dict, kind) -> dict:
        """Each group's parameters, by group name (``kind``: one, or one per group)."""
        return {
            name: family.point_estimate(prior[name], stats[name], self._kind(kind, name))
            for name, (family, _) in self.groups.items()
        }

    def log_prior(self, prior: dict, params: dict, kind="map") -> float:
        """The sum of the groups' log priors (the groups' parameters are independent)."""
        return sum(
            float(family.log_prior(prior[name], params[name], kind=self._kind(kind, name)))
            for name, (family, _) in self.groups.items()
        )

    # ------------------------------------------------------------ densities
    def log_likelihood(self, params: dict, X, *, row_terms: bool = True):
        """The sum over groups of each group's log-likelihood of its own columns."""
        total = 0
        for i, (name, (family, _)) in enumerate(self.groups.items()):
            part = family.log_likelihood(params[name], self.columns(X, name), row_terms=row_terms)
            # The sum of the first two is this call's own array: the others add into it.
            part = np.asarray(part)
            total = total + part if i < 2 else in_place.add_in_place(total, part)
        return total

    def predictive_log_likelihood(self, posterior: dict, X):
        """The sum over groups of each group's posterior predictive log density."""
        return sum(
            np.asarray(family.predictive_log_likelihood(posterior[name], self.columns(X, name)))
            for name, (family, _) in self.groups.items()
        )

    # ---------------------------------------------------------------- draws
    def sample_params(self, key, posterior: dict, num_samples: int) -> dict:
        """Each group's draws, from its own key (one split of ``key`` per group).

        ``key`` is a JAX key, or a NumPy generator (spawned into one per group).
        """
        if numpy_draws.is_generator(key):
            keys = key.spawn(len(self.groups))
        else:
            keys = jax.random.split(key, len(self.groups))
        return {
            name: family.sample_params(group_key, posterior[name], num_samples)
            for group_key, (name, (family, _)) in zip(keys, self.groups.items(), strict=True)
        }

    def draw_features(self, params: dict, classes, rng, **options) -> dict:
        """Every group's draws, under ``"<group>/"``, in group order from one generator."""
        return {
            f"{name}/{site}": value
            for name, (family, _) in self.groups.items()
            for site, value in family.draw_features(params[name], classes, rng, **options).items()
        }

    def conditional(self, params: dict, X, class_weights, method: str, rng):
        """``X`` with each group's NaN entries filled by that group's family, in group order.

        For a dict ``X``, a dict of each group's filled (encoded) columns. ``"sample"``
        draws each row's class once, from ``class_weights``, and every group fills the row
        under that class: the groups are independent given the class, not given the
        weights.
        """
        if method == "sample":
            classes = class_prior.draw_classes(np.asarray(class_weights), rng)
            class_weights = np.eye(np.shape(class_weights)[1])[classes]
        if isinstance(X, Mapping):
            return {
                name: family.conditional(params[name], X[name], class_weights, method, rng)
                for name, (family, _) in self.groups.items()
            }
        filled = np.array(X, dtype=float)
        for name, (family, columns) in self.groups.items():
            group = filled[:, columns]
            imputed = np.asarray(
                family.conditional(params[name], group, class_weights, method, rng)
            )
            filled[:, columns] = np.where(np.isnan(group), imputed, group)
        return filled

    # ------------------------------------------------- columns of a table (MixedNB)
    def check_columns(self, X, *, owner: str = "X", columns=None) -> dict:
        """Each group's `check_columns`; ``owner``'s errors name the group's family."""
        names = None if columns is None else list(columns)
        return {
            name: family.check_columns(
                self.columns(X, name),
                owner=f"{owner}'s {name} family",
                columns=None if names is None else [names[i] for i in positions],
            )
            for name, (family, positions) in self.groups.items()
        }

    def learn(self, X: dict, stats=None):
        """Each group's `learn`: the composite of the widened families, and ``stats``."""
        groups, relaid = {}, {}
        for name, (family, positions) in self.groups.items():
            widened, relaid[name] = family.learn(X[name], None if stats is None else stats[name])
            groups[name] = (widened, positions)
        return self._with_groups(groups), None if stats is None else relaid

    def learned(self) -> dict:
        """Each group's `learned`, by group name."""
        return {name: family.learned() for name, (family, _) in self.groups.items()}

    def with_learned(self, **learned) -> CompositeFamily:
        """The composite with each group's learned state (a `learned` result) put back."""
        return self._with_groups(
            {
                name: (family.with_learned(**learned.get(name, {})), positions)
                for name, (family, positions) in self.groups.items()
            }
        )

    def encode(self, X: dict) -> dict:
        """Each group's `encode`."""
        return {name: family.encode(X[name]) for name, (family, _) in self.groups.items()}

    def fixed_rows(self, X) -> dict:
        """Each group's `fixed_rows` of its own columns, by group name."""
        return {
            name: family.fixed_rows(self.columns(X, name))
            for name, (family, _) in self.groups.items()
        }

    def decode(self, values: dict) -> dict:
        """Each group's `decode`."""
        return {name: family.decode(values[name]) for name, (family, _) in self.groups.items()}

    def sites(self, params: dict) -> dict:
        """Every group's sites, under ``"<group>/"``."""
        return self._scoped("sites", params)

    def sampling_sites(self, params: dict) -> dict:
        """Every group's `sampling_sites`, under ``"<group>/"``."""
        return self._scoped("sampling_sites", params)

    def _scoped(self, method: str, params: dict) -> dict:
        return {
            f"{name}/{site}": value
            for name, (family, _) in self.groups.items()
            for site, value in getattr(family, method)(params[name]).items()
        }

    def _own(self, sites: dict, name: str) -> dict:
        prefix = f"{name}/"
        return {k[len(prefix) :]: v for k, v in sites.items() if k.startswith(prefix)}

    def params_from_sites(self, sites: dict) -> dict:
        """Each group's parameters from its scoped sites."""
        return {
            name: family.params_from_sites(self._own(sites, name))
            for name, (family, _) in self.groups.items()
        }

    def features_from_draws(self, draws: dict) -> list:
        """The columns of a story run's draws, one array per column position."""
        columns = {}
        for name, (family, positions) in self.groups.items():
            values = np.asarray(family.features_from_draws(self._own(draws, name)))
            columns.update(zip(positions, values.T, strict=True))
        return [columns[position] for position in sorted(columns)]

    def parameter_dims(self, features: list) -> tuple[dict, dict]:
        """Each group's dims and coords, scoped ``"<group>/"`` (sites and coordinate names)."""
        dims, coords = {}, {}
        for name, (family, positions) in self.groups.items():
            own_dims, own_coords = family.parameter_dims([features[i] for i in positions])
            rename = {dim: f"{name}/{dim}" for dim in own_coords}
            for site, site_dims in own_dims.items():
                dims[f"{name}/{site}"] = tuple(rename.get(d, d) for d in site_dims)
            coords.update({rename[dim]: labels for dim, labels in own_coords.items()})
        return dims, coords

    def estimate(self, stats: dict, kind, frozen=None) -> tuple[dict, dict]:
        """Each group's ``(prior, parameters)``, as two dicts by group name."""
        priors, params = {}, {}
        for name, (family, _) in self.groups.items():
            held = None if frozen is None else frozen.get(name)
            priors[name], params[name] = family.estimate(stats[name], self._kind(kind, name), held)
        return priors, params
