"""One body of math for NumPy and JAX: the array namespace a computation runs in.

The families' formulas are written once against a namespace ``xp``: NumPy when every
input is a NumPy array (or a Python scalar), ``jax.numpy`` otherwise (a ``jax.Array``, or
values traced by ``jit``, NUTS or a story). A plain fit or prediction on NumPy data then
runs in NumPy and compiles nothing (JAX compiles every eager operation per shape, which
costs a second on a first call and grows with every new row count), while the same lines
serve JAX inside the stories and the jitted kernels. JAX is imported only when a JAX
array is actually met.

``numpy_or_jit`` is ``jax.jit`` for the functions that were jitted: called with NumPy
inputs it runs the Python body on NumPy, otherwise the jitted function (built on first
use). NumPy keeps the input's precision (float32 stays float32, NEP 50), as JAX does
inside `bayesgen._precision.precision`.
"""

from __future__ import annotations

import functools
import numbers
import sys

import numpy as np

from bayesgen._precision import apply_pending

_PLAIN = (np.ndarray, np.generic, numbers.Number, str, bytes)


def is_numpy(*trees) -> bool:
    """Whether every leaf of ``trees`` (tuples, NamedTuples, lists, dicts) is NumPy data.

    NumPy arrays and scalars, Python numbers, strings and ``None`` count as NumPy; anything
    else (a ``jax.Array``, a tracer) does not.
    """
    # A loop over a stack, not recursive generators: this runs on every dispatch (a few
    # times per fit and prediction): 2.6 us instead of 3.4 us on two Gaussian statistics.
    stack = list(trees)
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, _PLAIN):
            continue
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            return False
    return True


def namespace(*trees):
    """``numpy`` when every leaf of ``trees`` is NumPy data (`is_numpy`), else ``jax.numpy``."""
    return np if is_numpy(*trees) else jax_numpy()


def is_jax_array(value) -> bool:
    """Whether ``value`` is a ``jax.Array`` (never true before JAX is imported)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.Array)


def is_tracer(value) -> bool:
    """Whether ``value`` is a JAX tracer (inside ``jit``, a story, NUTS); NumPy data never is."""
    if is_numpy(value):
        return False
    import jax

    return isinstance(value, jax.core.Tracer)


def tree_map(function, tree, *rest):
    """``jax.tree.map(function, tree, *rest)``, in plain Python when every leaf is NumPy data.

    Trees are tuples, NamedTuples, lists and dicts (keys in sorted order, as JAX orders
    them), ``None`` an empty subtree; with any other leaf (a ``jax.Array``, a tracer) JAX maps.
    """
    if not is_numpy(tree, *rest):
        import jax

        return jax.tree.map(function, tree, *rest)
    return _map(function, tree, rest)


def _map(function, tree, rest):
    if tree is None:
        return None
    if isinstance(tree, tuple | list):
        items = [_map(function, item, [other[i] for other in rest]) for i, item in enumerate(tree)]
        if hasattr(tree, "_fields"):
            return type(tree)(*items)
        return type(tree)(items)
    if isinstance(tree, dict):
        return {
            key: _map(function, tree[key], [other[key] for other in rest]) for key in sorted(tree)
        }
    return function(tree, *rest)


def tree_leaves(tree) -> list:
    """``jax.tree.leaves(tree)``: the leaves in JAX's order, without JAX for NumPy trees."""
    if not is_numpy(tree):
        import jax

        return jax.tree.leaves(tree)
    if isinstance(tree, dict):
        tree = [tree[key] for key in sorted(tree)]
    if isinstance(tree, tuple | list):
        return [leaf for item in tree for leaf in tree_leaves(item)]
    return [] if tree is None else [tree]


def as_numpy(tree, dtype=None):
    """``tree`` with NumPy arrays for leaves, in ``dtype`` when given."""
    if dtype is None:
        return tree_map(np.asarray, tree)
    return tree_map(lambda leaf: np.asarray(leaf, dtype=dtype), tree)


def as_jax(tree, dtype):
    """``tree`` with JAX arrays in ``dtype`` for leaves (on JAX's default device)."""
    jnp = jax_numpy()
    return tree_map(lambda leaf: jnp.asarray(leaf, dtype=dtype), tree)


def jax_numpy():
    """``jax.numpy``, imported on first use."""
    import jax.numpy as jnp

    apply_pending()
    return jnp


def segment_sum(xp, data, segment_ids, num_segments: int):
    """Sums of the rows of ``data`` (first axis) sharing a segment id, ``(num_segments, ...)``."""
    if xp is np:
        totals = np.zeros((num_segments, *np.shape(data)[1:]), dtype=np.result_type(data))
        np.add.at(totals, np.asarray(segment_ids), data)
        return totals
    import jax

    return jax.ops.segment_sum(data, segment_ids, num_segments=num_segments)


def numpy_or_jit(function=None, *, static_argnames=()):
    """``jax.jit(function, static_argnames=...)``, bypassed for NumPy inputs.

    With NumPy inputs (`is_numpy` over every argument) the undecorated body runs on NumPy;
    otherwise the jitted function, built on first use, so that defining it imports no JAX.
    """
    if function is None:
        return functools.partial(numpy_or_jit, static_argnames=static_argnames)
    static = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    jitted = []

    @functools.wraps(function)
    def dispatch(*args, **kwargs):
        dynamic = {name: value for name, value in kwargs.items() if name not in static}
        if is_numpy(args, dynamic):
            return function(*args, **kwargs)
        if not jitted:
            import jax

            jitted.append(jax.jit(function, static_argnames=static))
        apply_pending()
        return jitted[0](*args, **kwargs)

    dispatch.plain = function
    return dispatch
