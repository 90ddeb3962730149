r"""The Parzen-window (kernel density) classifier as a NumPyro story.

A class density is a Gaussian kernel mixture over the training rows,

$$
p(x \mid k) = \sum_i \tilde w_{ik}\, \mathcal N(x;\, x_i, H_k), \qquad
\tilde w_{ik} = w_{ik} \Big/ \sum_j w_{jk},
$$

so a row of class $k$ is drawn by picking a kernel centre $c \sim
\mathrm{Categorical}(\tilde w_{\cdot k})$ (site ``"kernel_center"``) and then
$x \sim \mathcal N(x_c, H_k)$. The training rows, their class weights and the kernel
covariances are not random: they enter as ``deterministic`` sites (``"training_X"``,
``"training_weights"``, ``"kernel_covariances"``), which ``handlers.substitute`` can
replace. An observed row is scored by the mixture itself, the factor ``"X"``, with the
kernel centre summed out exactly and missing entries (NaN) integrated out.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax import Array

from bayesgen import registry
from bayesgen.families.class_prior import Dirichlet
from bayesgen.families.gaussian import observed_block
from bayesgen.families.kernel_density import KernelParams
from bayesgen.stories.common import StoryPart, classifier_story


def mixture_log_density(params: KernelParams, labels: Array, X: Array) -> Array:
    r"""$\log \sum_i \tilde w_{i y}\, \mathcal N(x_o;\, x_{i,o}, H_{y,oo})$ per row.

    Missing entries (NaN) are integrated out: each row's kernel covariance is masked to
    $H_{oo} \oplus I$ (`bayesgen.families.gaussian.observed_block`) with the
    deviations from every centre set to 0 on the row's missing coordinates. This is the
    story's plain definition (memory n_rows × n_train × n_features); the estimator scores
    rows with a chunked, jitted version of the same sum.

    Parameters
    ----------
    params : KernelParams
    labels : array of shape (n_rows,)
        Class index of each row.
    X : array of shape (n_rows, n_features)

    Returns
    -------
    array of shape (n_rows,)
    """
    centres, weights, covariances = params
    present = ~jnp.isnan(X)
    filled = jnp.where(present, X, 0.0)
    lower = observed_block.masked_cholesky(covariances[labels], present)  # (n_rows, d, d)
    deviations = jnp.where(present[:, None, :], filled[:, None, :] - centres[None, :, :], 0.0)
    squared = observed_block.whitened_squares(lower, jnp.swapaxes(deviations, -1, -2))
    n_features = X.shape[-1]
    log_kernels = (
        -0.5 * squared
        - observed_block.half_log_det(lower)[:, None]
        - 0.5 * n_features * math.log(2 * math.pi)
        + observed_block.missing_log_norm(present)[:, None]
    )  # (n_rows, n_train)
    log_weights = jnp.log(_normalised(weights).T[labels])  # (n_rows, n_train); -inf for 0
    return jax.nn.logsumexp(log_kernels + log_weights, axis=-1)


def _normalised(weights: Array) -> Array:
    totals = jnp.sum(weights, axis=0)
    return weights / jnp.where(totals > 0, totals, 1.0)


def kernel_density_part(
    training_X: Array, training_weights: Array, kernel_covariances: Array
) -> StoryPart:
    """The kernel density family's share of a story.

    Parameters
    ----------
    training_X : array of shape (n_train, n_features)
    training_weights : array of shape (n_train, n_classes)
    kernel_covariances : array of shape (n_classes, n_features, n_features)

    Returns
    -------
    StoryPart
        Deterministic sites ``"training_X"``, ``"training_weights"`` and
        ``"kernel_covariances"``; per row ``"kernel_center"`` and ``"X"`` when drawing, the
        factor ``"X"`` (the mixture density of the observed entries) when ``X`` is observed.
    """

    def parameters():
        return KernelParams(
            numpyro.deterministic("training_X", jnp.asarray(training_X)),
            numpyro.deterministic("training_weights", jnp.asarray(training_weights)),
            numpyro.deterministic("kernel_covariances", jnp.asarray(kernel_covariances)),
        )

    def features(params, labels, X):
        if X is not None:
            numpyro.factor("X", mixture_log_density(params, labels, X))
            return
        probabilities = _normalised(params.training_weights).T[labels]
        centre = numpyro.sample("kernel_center", dist.Categorical(probs=probabilities))
        lower = jnp.linalg.cholesky(params.kernel_covariances)
        numpyro.sample(
            "X", dist.MultivariateNormal(params.training_X[centre], scale_tril=lower[labels])
        )

    return StoryPart(parameters, features)


@registry.register_story_part("kernel_density")
def _kernel_density_family_part(family, kernels: KernelParams, n_classes: int) -> StoryPart:
    """The registered part of `KernelDensityFamily`: its story holds the fitted centres and
    kernels fixed (its `story_prior` is the fitted parameters)."""
    return kernel_density_part(*kernels)


def kernel_density_story(
    X: Array | None = None,
    y: Array | None = None,
    *,
    class_prior: Dirichlet,
    training_X: Array,
    training_weights: Array,
    kernel_covariances: Array,
    fixed_class_prior: Array | None = None,
    n_samples: int | None = None,
) -> None:
    r"""The Parzen-window classifier as a generative story.

    $$
    \pi \sim \mathrm{Dirichlet}(\alpha), \quad
    y_r \sim \mathrm{Categorical}(\pi), \quad
    c_r \mid y_r \sim \mathrm{Categorical}(\tilde w_{\cdot y_r}), \quad
    x_r \mid y_r, c_r \sim \mathcal N(x_{c_r}, H_{y_r}).
    $$

    Parameters
    ----------
    X : array of shape (n_samples, n_features), optional
        Observed features (NaN = missing); ``None`` draws them.
    y : array of shape (n_samples,), optional
        Observed class indices ``0..K-1``; ``None`` draws them.
    class_prior : Dirichlet
        Prior over the class probabilities (site ``"class_prior"``).
    training_X, training_weights, kernel_covariances : arrays
        See [`kernel_density_part`][bayesgen.stories.kernel_density_part].
    fixed_class_prior : array of shape (n_classes,), optional
        Known class probabilities; then ``"class_prior"`` is not a random site.
    n_samples : int, optional
        Number of rows to draw when neither ``X`` nor ``y`` is given.
    """
    classifier_story(
        X,
        y,
        class_prior=class_prior,
        part=kernel_density_part(training_X, training_weights, kernel_covariances),
        fixed_class_prior=fixed_class_prior,
        n_samples=n_samples,
    )
