r"""Class-conditional means drawn as images, for image-like data (one pixel per feature)."""

from __future__ import annotations

import numbers

import matplotlib.pyplot as plt
import numpy as np

from bayesgen.families.protocol import NoClosedForm
from bayesgen.plot._common import check_fitted


def class_means(model) -> np.ndarray:
    r"""What each class's image shows, shape (n_classes, n_features).

    - Gaussian models (``means_`` of shape (K, d)): the class means $\mu_k$;
    - ``MixtureDA``: the mixture means $\sum_m w_{km}\,\mu_{km}$;
    - ``KernelDensityDA``: the weighted means of the training rows of each class;
    - ``BernoulliNB``: the feature probabilities $\theta_{kj} = E[x_j \mid k]$;
    - ``MultinomialNB``: each pixel's share $\theta_{kj}$ of the class's intensity
      (proportional to $E[x_j \mid k]$; the figure of seed 004);
    - ``PoissonNB``: the rates $\lambda_{kj} = E[x_j \mid k]$;
    - any other family: its ``mean`` (`bayesgen.families.protocol.FeatureFamily`),
      such as ``ExponentialNB``'s mean waiting times $1 / \lambda_{kj}$.
    """
    model = getattr(model, "best_estimator_", model)  # RDACV
    means = getattr(model, "means_", None)
    if means is not None and np.ndim(means) == 2:
        return np.asarray(means)
    if means is not None and hasattr(model, "weights_"):
        return np.einsum("km,kmd->kd", model.weights_, means)
    if hasattr(model, "training_X_"):
        weights = np.asarray(model.training_weights_)
        return (weights.T @ model.training_X_) / weights.sum(axis=0)[:, None]
    if hasattr(model, "joint_"):  # a view of its fitted joint: the family's mean
        try:
            return np.asarray(model.family_.mean(model.joint_.params))
        except NoClosedForm:
            pass
    raise ValueError(
        f"model must have one mean value per feature and class to draw as an image (a "
        f"Gaussian, mixture, kernel-density, Bernoulli, multinomial or Poisson model); a "
        f"{type(model).__name__} has none."
    )


def _check_image_shape(image_shape, n_features: int) -> tuple[int, int]:
    valid = (
        isinstance(image_shape, tuple | list)
        and len(image_shape) == 2
        and all(
            isinstance(side, numbers.Integral) and not isinstance(side, bool) and side > 0
            for side in image_shape
        )
    )
    if not valid:
        raise ValueError(
            f"image_shape must be a pair (height, width) of positive integers; got {image_shape!r}."
        )
    height, width = (int(side) for side in image_shape)
    if height * width != n_features:
        raise ValueError(
            f"image_shape {image_shape!r} holds {height * width} pixels, but the model has "
            f"{n_features} features."
        )
    return height, width


def class_images(
    model, image_shape, *, axes=None, cmap="gray", ncols=None, share_scale: bool = True
):
    """One image per class: the class-conditional mean of every pixel.

    Each feature is one pixel of a ``height × width`` image (row-major, as
    ``sklearn.datasets.load_digits`` stores its 8×8 images). See `class_means`
    for what is drawn for each kind of model: for ``MultinomialNB`` the fitted pixel
    probabilities, each class a blurred average digit.

    Parameters
    ----------
    model : fitted classifier
    image_shape : (int, int)
        ``(height, width)``; their product must be the model's number of features.
    axes : array-like of matplotlib Axes, optional
        At least one Axes per class; a new figure when None.
    cmap : str or Colormap, default="gray"
        ``"gray_r"`` draws high values dark, as in the seed's digits figure.
    ncols : int, optional
        Columns of the new figure (default ``min(n_classes, 5)``); ignored with ``axes``.
    share_scale : bool, default=True
        One colour scale for every class, so that brightness compares across images;
        False scales each image to its own range.

    Returns
    -------
    ndarray of matplotlib Axes, shape (n_classes,)
        Axes ``k`` shows class ``classes_[k]``; its image (``.images[0]``) holds the
        reshaped mean.

    Raises
    ------
    ValueError
        For an unfitted ``model``, a model without per-feature class means, an
        ``image_shape`` that is not a pair of positive integers whose product is the
        number of features, or too few ``axes``.
    """
    check_fitted(model)
    height, width = _check_image_shape(image_shape, model.n_features_in_)
    means = class_means(model)
    n_classes = means.shape[0]
    if axes is None:
        ncols = min(n_classes, 5) if ncols is None else int(ncols)
        nrows = -(-n_classes // ncols)
        _, grid = plt.subplots(nrows, ncols, figsize=(1.6 * ncols, 1.8 * nrows), squeeze=False)
        flat = grid.ravel()
        for surplus in flat[n_classes:]:
            surplus.set_axis_off()
    else:
        flat = np.asarray(axes, dtype=object).ravel()
        if flat.size < n_classes:
            raise ValueError(
                f"axes must hold at least one Axes per class ({n_classes}); got {flat.size}."
            )
    scale = {"vmin": means.min(), "vmax": means.max()} if share_scale else {}
    for k, label in enumerate(model.classes_):
        ax = flat[k]
        ax.imshow(means[k].reshape(height, width), cmap=cmap, interpolation="nearest", **scale)
        ax.set_title(str(label))
        ax.set_xticks([])
        ax.set_yticks([])
    return flat[:n_classes]
