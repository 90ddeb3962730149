"""Model files of earlier layouts: the state they saved, translated into the fitted value.

Before the fitted value ``joint_`` existed, an estimator saved its statistics, prior,
parameters and class probabilities as separate attributes, and some private flags that
have public names now. `upgraded` is the one translator from those layouts to today's
state: each estimator class whose earlier layout differed has a translation here
(`LAYOUTS`), applied from the most derived class to `GenerativeClassifier`, so an
estimator class knows nothing of old files. A saved state of today's layout passes
through unchanged. The parameters are taken as saved wherever the file kept them (nothing
is estimated again), so a model read from an old file predicts as the model that wrote it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bayesgen import joint, registry, training_range
from bayesgen.estimators.base import GenerativeClassifier
from bayesgen.estimators.column_groups import ColumnGroups
from bayesgen.estimators.gaussian import GaussianDA
from bayesgen.estimators.kernel_density import KernelDensityDA
from bayesgen.estimators.latent_class_nb import LatentClassNB
from bayesgen.estimators.mixture import MixtureDA
from bayesgen.families import gaussian
from bayesgen.families import kernel_density as kde
from bayesgen.families.component_mixture import (
    MixtureFamilyParams,
    MixtureFamilyPrior,
    MixtureFamilyStats,
)
from bayesgen.families.gaussian import GaussianParams
from bayesgen.families.kernel_density_family import KernelChoice


def upgraded(estimator: GenerativeClassifier, state: dict) -> dict:
    """``state``, saved by ``estimator``'s class in any earlier layout, as today's.

    Raises
    ------
    ArithmeticError, AttributeError, LookupError, TypeError, ValueError
        When the saved state is not one an earlier layout wrote (the reader reports it
        as a file that cannot be read).
    """
    state = dict(state)
    for cls in type(estimator).__mro__:
        translate = LAYOUTS.get(cls)
        if translate is not None:
            state = translate(estimator, state)
    return state


def saved_value(state: dict, feature_prior, params) -> joint.FittedJoint:
    """The value behind a file that saved the statistics, the class probabilities and the
    parameters as separate attributes, taken as saved; the class entries leave ``state``."""
    value = joint.FittedJoint(
        classes=state["classes_"],
        class_stats=state.pop("_class_stats"),
        class_probabilities=np.asarray(state.pop("class_prior_")),
        feature_stats=state.pop("_stats"),
        feature_prior=feature_prior,
        params=params,
        learned={},
    )
    state.pop("class_count_", None)  # read off the value now
    return value


def _any_classifier(estimator, state: dict) -> dict:
    """Statistics, class probabilities and learned columns as saved, the parameters
    re-estimated from the statistics, as the fit that wrote them did; the record of the
    training columns (ranges, missing cells, grids), kept as attributes beside the value,
    is the value's ``record``. ``_fresh_fit`` told the statistics hooks whether a fit
    started afresh and is dropped; ``_fitted_semi_supervised`` is now
    ``fitted_with_unlabeled_``."""
    state.pop("_fresh_fit", None)
    if "_fitted_semi_supervised" in state:
        state["fitted_with_unlabeled_"] = bool(state.pop("_fitted_semi_supervised"))
    record = training_range.recorded(state)  # before the value: its names are views now
    state = _with_value(estimator, state)
    if record is not None and "joint_" in state:
        state["joint_"] = state["joint_"]._replace(record=record)
    return state


def _with_value(estimator, state: dict) -> dict:
    """``state`` with its value: as saved, or made from the statistics it saved."""
    if "joint_" in state or "_stats" not in state:
        return state
    family = estimator._base_family()
    value = joint.from_stats(
        family,
        state["classes_"],
        state["_class_stats"],
        state["_stats"],
        joint.FitSettings(estimator.estimate),  # the saved class probabilities replace its rule
        learned={name: state[f"{name}_"] for name in family.learned() if f"{name}_" in state},
    )
    value = value._replace(class_probabilities=np.asarray(state["class_prior_"]))
    kept = {
        key: item
        for key, item in state.items()
        if key not in ("_class_stats", "_stats") and not hasattr(type(estimator), key)
    }
    return {**kept, "joint_": value}


def _gaussian(estimator, state: dict) -> dict:
    """Its private flags: ``_fitted_with_missing`` is ``fitted_with_missing_`` (read off the
    value now: a fit with missing entries keeps the ridge and prior its EM held as the
    value's ``frozen``) and ``_moments`` is ``fourth_moments_``; ``_frozen_prior`` and
    ``_new_moments`` only carried state between the steps of a fit and are dropped. The
    rows behind a gappy fit's posterior (``_missing_fit_rows`` and ``_missing_fit_weights``
    beside the value) are the value's ``rows``."""
    for name in ("_frozen_prior", "_new_moments"):
        state.pop(name, None)
    if "_fitted_with_missing" in state:
        state["fitted_with_missing_"] = bool(state.pop("_fitted_with_missing"))
    if "_moments" in state:
        state["fourth_moments_"] = state.pop("_moments")
    if "joint_" not in state and "_stats" in state:
        params = gaussian.GaussianParams(state.pop("means_"), state.pop("covariances_"))
        state["joint_"] = saved_value(state, state.pop("prior_"), params)
        state.pop("suff_stats_", None)  # read off the value now
    with_missing = state.pop("fitted_with_missing_", False)
    if with_missing and "joint_" in state and state["joint_"].frozen is None:
        value = state["joint_"]
        state["joint_"] = value._replace(frozen=(np.asarray(state["ridge_"]), value.feature_prior))
    kept = state.pop("_missing_fit_rows", None), state.pop("_missing_fit_weights", None)
    if kept[0] is not None and "joint_" in state:
        state["joint_"] = state["joint_"]._replace(rows=joint.KeptRows(*kept))
    return state


def _mixture(estimator, state: dict) -> dict:
    """The components' statistics, prior, ridge and parameters, laid out per class and
    component (a tied covariance once per class)."""
    if "joint_" in state or "weights_" not in state:
        return state
    weights = np.asarray(state.pop("weights_"))
    K, M = weights.shape
    means = np.asarray(state.pop("means_")).reshape(K * M, -1)
    covariances = np.asarray(state.pop("covariances_"))
    if estimator.covariance_type == "tied":
        covariances = np.repeat(covariances, M, axis=0)
    else:
        covariances = covariances.reshape(K * M, *covariances.shape[2:])
    prior, ridge = state.pop("prior_"), np.asarray(state.pop("ridge_"))
    leaves = state.pop("_stats")
    counts = np.asarray(leaves.counts).reshape(K, M)
    concentration = np.full(M, estimator.weight_concentration_prior, counts.dtype)
    state["joint_"] = joint.FittedJoint(
        classes=state["classes_"],
        class_stats=state.pop("_class_stats"),
        class_probabilities=np.asarray(state.pop("class_prior_")),
        feature_stats=MixtureFamilyStats(counts, leaves),
        feature_prior=MixtureFamilyPrior(concentration, prior),
        params=MixtureFamilyParams(weights, gaussian.GaussianParams(means, covariances)),
        learned={},
        frozen=(ridge, prior),
    )
    for name in ("_active", "suff_stats_", "class_count_"):
        state.pop(name, None)
    return state


def _kernel_density(estimator, state: dict) -> dict:
    """The rows and the kernels, kept as saved (a self-trained fit's were fixed before its
    loop, so they are not estimated again)."""
    if "joint_" not in state and "_stats" in state:
        choice = KernelChoice(
            state.pop("bandwidth_"), state.pop("ridge_"), state["kernel_covariances_"]
        )
        params = kde.KernelParams(
            state.pop("training_X_"),
            state.pop("training_weights_"),
            state.pop("kernel_covariances_"),
        )
        state["joint_"] = saved_value(state, choice, params)
    return state


def _column_groups(estimator, state: dict) -> dict:
    """Two layouts: each group's statistics, parameters, the prior EM over missing entries
    held (``_frozen``) and learned categories as separate attributes; and before it one
    fitted estimator per group (``estimators_``: GaussianNB, BernoulliNB, MultinomialNB,
    PoissonNB, ExponentialNB or CategoricalNB), whose fitted attributes become each
    group's parameters, EM's fixed prior and learned categories, exactly as those
    estimators predicted with them. (Files before ``family_params`` lack that parameter,
    whose default then stands.)"""
    state.pop("_group_data", None)
    if "_groups" in state:  # in the order the file's groups drew their rows
        state["column_groups_"] = state.pop("_groups")
    estimators = state.pop("estimators_", None)
    if estimators is not None:
        state["_params"] = {g: _group_parameters(e) for g, e in estimators.items()}
        state["_frozen"] = {
            g: (e.ridge_, e.prior_) if getattr(e, "fitted_with_missing_", False) else None
            for g, e in estimators.items()
        }
        state["_learned"] = {
            g: {name: getattr(e, f"{name}_") for name in registry.family(g)().learned()}
            for g, e in estimators.items()
        }
    if "_params" in state and "joint_" not in state:
        latent = isinstance(estimator, LatentClassNB)
        weights = state.pop("weights_") if latent else None
        value = _groups_value(estimator, state)
        state["joint_"] = _latent_classes(estimator, value, weights) if latent else value
    return state


def _groups_value(estimator, state: dict) -> joint.FittedJoint:
    """The column groups' value as saved; each group's prior is the one EM held, else
    resolved from its statistics."""
    frozen, learned = state.pop("_frozen"), state.pop("_learned", {})
    composite = estimator._composite_for(state["column_groups_"]).with_learned(**learned)
    priors = {
        family: group_family.prior(state["_stats"][family])
        if frozen.get(family) is None
        else frozen[family][1]
        for family, (group_family, _) in composite.groups.items()
    }
    value = saved_value(state, priors, state.pop("_params"))
    return value._replace(learned=learned, frozen=frozen)


def _latent_classes(estimator, value: joint.FittedJoint, weights) -> joint.FittedJoint:
    """A latent-class model saved as MixedNB's groups over the pairs (class, component)
    and ``weights_``, as the mixture's value. The component counts were not kept; they
    are the weights times the class counts (used by no prediction)."""
    weights = np.asarray(weights)
    counts = np.asarray(value.class_stats.counts)[:, None] * weights
    concentration = np.full(estimator.n_components, estimator.weight_concentration_prior)
    return value._replace(
        feature_stats=MixtureFamilyStats(counts, value.feature_stats),
        feature_prior=MixtureFamilyPrior(concentration.astype(counts.dtype), value.feature_prior),
        params=MixtureFamilyParams(weights, value.params),
    )


def _group_parameters(estimator):
    """A group's parameters from its estimator of the earlier layout, as it predicted with
    them: ``means_``/``covariances_``, ``rates_``, or ``exp(feature_log_prob_)``."""
    if hasattr(estimator, "means_"):
        return GaussianParams(estimator.means_, estimator.covariances_)
    if hasattr(estimator, "rates_"):
        return estimator.rates_
    log_theta = estimator.feature_log_prob_
    if isinstance(log_theta, list):  # CategoricalNB: one block per feature
        log_theta = np.concatenate(log_theta, axis=1)
    return np.exp(log_theta)


#: The translation of each class whose earlier layout differed, applied most derived first.
LAYOUTS: dict[type, Callable[[GenerativeClassifier, dict], dict]] = {
    GaussianDA: _gaussian,
    MixtureDA: _mixture,
    KernelDensityDA: _kernel_density,
    ColumnGroups: _column_groups,
    GenerativeClassifier: _any_classifier,
}
