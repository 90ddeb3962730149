"""``bayesgen info``: what a model file holds, in words."""

from __future__ import annotations

import click
import numpy as np

import bayesgen
from bayesgen.cli.model_files import feature_names, metadata_of, open_model

_COVARIANCE_WORDS = {
    "full": "full covariance per class",
    "tied": "one covariance shared by the classes",
    "diag": "diagonal covariance per class",
    "spherical": "spherical covariance per class",
}


def feature_families(model) -> list[str]:
    """The distribution of each feature given the class, one short phrase per feature."""
    inner = getattr(model, "best_estimator_", model)  # RDACV holds the chosen GaussianDA
    n_features = inner.n_features_in_
    if hasattr(inner, "feature_families_"):
        return [str(family) for family in inner.feature_families_.values()]
    if isinstance(inner, bayesgen.GaussianDA):
        phrase = f"gaussian, {_COVARIANCE_WORDS[inner.covariance_type]}"
    elif isinstance(inner, bayesgen.MixtureDA):
        phrase = (
            f"gaussian mixture, {inner.n_components} components, "
            f"{_COVARIANCE_WORDS[inner.covariance_type]}"
        )
    elif isinstance(inner, bayesgen.KernelDensityDA):
        phrase = "kernel density (gaussian kernels)"
    elif isinstance(inner, bayesgen.CategoricalNB):
        return [f"categorical, {len(categories)} categories" for categories in inner.categories_]
    else:
        phrase = type(inner).__name__.removesuffix("NB").lower()
    return [phrase] * n_features


def describe(model, info: dict) -> list[str]:
    """The lines ``bayesgen info`` prints for ``model`` and its file's header ``info``."""
    metadata = metadata_of(info)
    inner = getattr(model, "best_estimator_", model)
    counts = np.asarray(inner.class_count_, dtype=float)
    lines = [
        f"model: {type(model).__name__}"
        + (f" ('{metadata['model']}')" if "model" in metadata else ""),
        f"file format: {info.get('format')} version {info.get('format_version')}, "
        f"written by bayesgen {info.get('bayesgen_version')}",
    ]
    if "data" in metadata:
        lines.append(
            f"trained on: {metadata['data']}, {metadata['n_rows']} rows "
            f"({metadata['n_unlabelled']} unlabelled), "
            + (
                f"target column '{metadata['target']}'"
                if metadata.get("target") is not None
                else "no target column (the table is one class)"
            )
        )
    lines.append(f"training size: {counts.sum():g} (weighted rows per class summed)")
    lines.append("classes (training count, class prior):")
    for label, count, prior in zip(inner.classes_, counts, inner.class_prior_, strict=True):
        lines.append(f"  {label}: {count:g}, {prior:.4f}")
    names = feature_names(model, info) or [f"x{j}" for j in range(inner.n_features_in_)]
    lines.append(f"features ({len(names)}), family given the class:")
    for name, family in zip(names, feature_families(model), strict=True):
        lines.append(f"  {name}: {family}")
    defaults = type(model)().get_params()
    changed = {
        name: value
        for name, value in model.get_params(deep=False).items()
        if not _same(value, defaults.get(name))
    }
    lines.append(
        "parameters: "
        + (", ".join(f"{name}={value!r}" for name, value in changed.items()) or "the defaults")
    )
    return lines


def _same(a, b) -> bool:
    try:
        return bool(np.all(a == b)) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


@click.command()
@click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))
def info(model_path):
    """Summarise the model in MODEL: classes, priors, family per feature, training size."""
    model, header = open_model(model_path)
    click.echo("\n".join(describe(model, header)))
