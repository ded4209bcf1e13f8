"""NumPy adapters against NumPy itself on random inputs, plus the registry's coverage of LEAPP's gaps."""
from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from leapp_codemod.adapters import ADAPTERS, mismatch
from leapp_codemod.adapters import numpy_extra as nx
from leapp_codemod.analysis.model.leapp_support import load_support

pytestmark = pytest.mark.slow  # `make test-fast` leaves this module out

# float64: round-off of a different evaluation order; float32: the same in float32 ulps.
TOL = {"float64": (1e-12, 1e-12), "float32": (2e-5, 1e-6)}
SMALL = hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)
FLOAT_DTYPES = st.sampled_from([np.float32, np.float64])
DTYPES = st.sampled_from([np.float32, np.float64, np.int32, np.int64])


def arrays(dtype, shape=SMALL, low=-100, high=100):
    if np.dtype(dtype).kind == "f":
        elements = st.floats(low, high, width=np.dtype(dtype).itemsize * 8)
    else:
        elements = st.integers(low, high)
    return hnp.arrays(dtype, shape, elements=elements)


def check(got, expected, atol_scale=1.0):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            check(g, e, atol_scale)
        return
    dtype = np.asarray(expected).dtype
    rtol, atol = TOL.get(dtype.name, (0, 0))
    problem = mismatch(got, expected, rtol, atol * atol_scale)
    assert problem is None, problem


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays), st.sampled_from(["deg2rad", "radians", "rad2deg", "degrees", "fabs"]))
def test_unary_ufuncs(x, name):
    check(ADAPTERS[f"numpy.{name}"].function(x), getattr(np, name)(x), atol_scale=100)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: arrays(d, low=-1, high=1)), st.sampled_from(["arctan", "arcsin", "arccos", "tan"]))
def test_inverse_trigonometry(x, name):
    if x.dtype.kind == "f":
        x = x * np.asarray(0.999, x.dtype) + np.asarray(1e-3, x.dtype) * np.sign(x)  # include values near +-1
    check(ADAPTERS[f"numpy.{name}"].function(x), getattr(np, name)(x), atol_scale=4)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4).flatmap(
    lambda s: st.tuples(arrays(d, s.input_shapes[0], -50, 50), arrays(d, s.input_shapes[1], -50, 50)))))
def test_arctan2(pair):
    check(nx.arctan2(*pair), np.arctan2(*pair), atol_scale=4)


def test_arctan2_special_points():
    y = np.array([0.0, 0.0, 1.0, -1.0, 0.0, 1e-300, 1e300, -3.0, 0.0, -0.0, -0.0, -0.0])
    x = np.array([0.0, -1.0, 0.0, 0.0, 2.0, -1.0, 1e-300, -1e-9, -0.0, -0.0, 0.0, -1.0])
    check(nx.arctan2(y, x), np.arctan2(y, x))


@settings(max_examples=200, deadline=None)
@given(FLOAT_DTYPES.flatmap(lambda d: arrays(d, low=0.5, high=100)))
def test_reciprocal(x):
    check(nx.reciprocal(x), np.reciprocal(x))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4).flatmap(
    lambda s: st.tuples(arrays(d, s.input_shapes[0], -50, 50), arrays(d, s.input_shapes[1], -50, 50)))),
    st.sampled_from(["logaddexp", "hypot", "float_power"]))
def test_binary_ufuncs(pair, name):
    a, b = pair
    if name == "float_power":
        a = np.abs(a) / 10 + 0.1
        b = b / 25
    check(ADAPTERS[f"numpy.{name}"].function(a, b), getattr(np, name)(a, b), atol_scale=10)


def test_logaddexp_and_hypot_edge_values():
    a = np.array([np.inf, -np.inf, 1e300, 0.0, np.inf])
    b = np.array([np.inf, -np.inf, 1e300, 0.0, -np.inf])
    check(nx.logaddexp(a, b), np.logaddexp(a, b))
    check(nx.hypot(a, b), np.hypot(a, b))


@settings(max_examples=200, deadline=None)
@given(FLOAT_DTYPES.flatmap(lambda d: arrays(d, low=-1000, high=1000)), st.integers(-2, 3))
def test_round_with_decimals(x, decimals):
    check(nx.round_(x, decimals), np.round(x, decimals))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays).flatmap(lambda a: st.tuples(
    st.just(a), st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)), st.booleans())))
def test_max_min(case):
    a, axis, keepdims = case
    check(nx.amax(a, axis=axis, keepdims=keepdims), np.max(a, axis=axis, keepdims=keepdims))
    check(nx.amin(a, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims))


NORM_CASES = st.sampled_from([(None, None), (None, -1), (2, -1), (1, -1), (np.inf, -1), (-np.inf, 0), (3, -1),
                              (0.5, 0), (None, (0, 1)), ("fro", (0, 1)), (1, (0, 1)), (-1, (1, 0)),
                              (np.inf, (0, 1)), (-np.inf, (0, 1))])


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: arrays(d, hnp.array_shapes(min_dims=2, max_dims=3, max_side=4))), NORM_CASES,
       st.booleans())
def test_linalg_norm(x, case, keepdims):
    ord_, axis = case
    if ord_ == 0.5:
        x = np.abs(x)
    expected = np.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    check(nx.norm(x, ord=ord_, axis=axis, keepdims=keepdims), expected, atol_scale=10)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: arrays(d, low=-20, high=20)),
       st.lists(st.floats(-15, 15), min_size=1, max_size=6, unique=True).map(sorted),
       st.data())
def test_interp(x, xp, data):
    xp = np.array(xp)
    assume(xp.size == 1 or np.all(np.diff(xp) > 1e-6))
    fp = data.draw(arrays(np.float64, xp.shape, -10, 10))
    left = data.draw(st.one_of(st.none(), st.floats(-5, 5)))
    probe = np.concatenate([x.ravel().astype(np.float64), xp])  # hit the knots exactly too
    check(nx.interp(probe, xp, fp, left=left), np.interp(probe, xp, fp, left=left))
    check(nx.interp(x, xp, fp), np.interp(x, xp, fp))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3).flatmap(
    lambda s: st.tuples(arrays(d, s.input_shapes[0] + (3,)), arrays(d, s.input_shapes[1] + (3,))))))
def test_cross(pair):
    check(nx.cross(*pair), np.cross(*pair), atol_scale=1e4)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays), DTYPES.flatmap(arrays))
def test_outer(a, b):
    check(nx.outer(a, b), np.outer(a, b), atol_scale=1e4)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays).flatmap(lambda a: st.tuples(
    st.just(a), st.integers(0, 3), st.integers(-a.ndim, a.ndim - 1), st.one_of(st.none(), st.integers(-3, 3)))))
def test_diff(case):
    a, n, axis, prepend = case
    extra = {} if prepend is None else {"prepend": prepend, "append": a.take([0], axis=axis)}
    check(nx.diff(a, n=n, axis=axis, **extra), np.diff(a, n=n, axis=axis, **extra), atol_scale=1e3)


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays), st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=1, max_size=4)))
def test_tile(a, reps):
    check(nx.tile(a, reps), np.tile(a, reps))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays).flatmap(lambda a: st.tuples(st.just(a), st.one_of(st.none(), st.integers(
    -a.ndim, a.ndim - 1)))), st.data())
def test_repeat(case, data):
    a, axis = case
    length = a.size if axis is None else a.shape[axis]
    repeats = data.draw(st.one_of(st.integers(0, 3), st.lists(st.integers(0, 3), min_size=length, max_size=length)))
    check(nx.repeat(a, repeats, axis=axis), np.repeat(a, repeats, axis=axis))


PAD_WIDTHS = st.one_of(st.integers(0, 3), st.tuples(st.integers(0, 3), st.integers(0, 3)))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays), st.sampled_from(nx.PAD_MODES), st.data())
def test_pad(a, mode, data):
    widths = data.draw(st.one_of(PAD_WIDTHS, st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)),
                                                      min_size=a.ndim, max_size=a.ndim)))
    kwargs = {"constant_values": data.draw(st.integers(-5, 5))} if mode == "constant" else {}
    check(nx.pad(a, widths, mode=mode, **kwargs), np.pad(a, widths, mode=mode, **kwargs))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays).flatmap(lambda a: st.tuples(st.just(a), st.one_of(st.none(), st.integers(
    -a.ndim, a.ndim - 1)))), st.data())
def test_take(case, data):
    a, axis = case
    length = a.size if axis is None else a.shape[axis]
    indices = data.draw(st.one_of(st.integers(-length, length - 1),
                                  hnp.arrays(np.int64, hnp.array_shapes(max_dims=2, max_side=3),
                                             elements=st.integers(-length, length - 1))))
    check(nx.take(a, indices, axis=axis), np.take(a, indices, axis=axis))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: arrays(d, hnp.array_shapes(min_dims=0, max_dims=4, max_side=3))))
def test_atleast_copy_and_contiguous(a):
    for name in ("atleast_1d", "atleast_2d", "atleast_3d", "copy", "ascontiguousarray"):
        check(ADAPTERS[f"numpy.{name}"].function(a), getattr(np, name)(a))
    check(nx.atleast_2d(a, a[..., None]), np.atleast_2d(a, a[..., None]))
    check(nx.ascontiguousarray(a, dtype=np.float32), np.ascontiguousarray(a, dtype=np.float32))


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(arrays), st.lists(st.integers(1, 3), min_size=0, max_size=2))
def test_broadcast_to(a, extra):
    shape = tuple(extra) + tuple(a.shape)
    check(nx.broadcast_to(a, shape), np.broadcast_to(a, shape).copy())


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(DTYPES, st.booleans(), st.integers(1, 3)), min_size=1, max_size=4),
       st.data())
def test_column_stack(rows, specs, data):
    parts = [data.draw(arrays(d, (rows,) if one_d else (rows, cols))) for d, one_d, cols in specs]
    check(nx.column_stack(parts), np.column_stack(parts))


STAT_ARRAYS = DTYPES.flatmap(arrays).flatmap(lambda a: st.tuples(st.just(a), st.one_of(
    st.none(), st.integers(-a.ndim, a.ndim - 1), st.permutations(range(a.ndim)).map(
        lambda p: tuple(p[:max(1, len(p) - 1)]))), st.booleans()))


@settings(max_examples=200, deadline=None)
@given(STAT_ARRAYS)
def test_median(case):
    a, axis, keepdims = case
    check(nx.median(a, axis=axis, keepdims=keepdims), np.median(a, axis=axis, keepdims=keepdims), atol_scale=100)


@settings(max_examples=200, deadline=None)
@given(STAT_ARRAYS, st.one_of(st.floats(0, 100), st.lists(st.floats(0, 100), min_size=1, max_size=3)))
def test_percentile_and_quantile(case, q):
    a, axis, keepdims = case
    check(nx.percentile(a, q, axis=axis, keepdims=keepdims), np.percentile(a, q, axis=axis, keepdims=keepdims),
          atol_scale=1e3)
    q01 = np.asarray(q) / 100
    check(nx.quantile(a, q01, axis=axis, keepdims=keepdims), np.quantile(a, q01, axis=axis, keepdims=keepdims),
          atol_scale=1e3)


@settings(max_examples=200, deadline=None)
@given(STAT_ARRAYS, st.booleans(), st.data())
def test_average(case, weighted, data):
    a, axis, keepdims = case
    weights = None
    if weighted:
        weights = data.draw(arrays(np.float64, a.shape, 0.5, 3))
    check(nx.average(a, axis=axis, weights=weights, keepdims=keepdims),
          np.average(a, axis=axis, weights=weights, keepdims=keepdims), atol_scale=100)


@settings(max_examples=200, deadline=None)
@given(FLOAT_DTYPES.flatmap(lambda d: hnp.arrays(d, SMALL, elements=st.sampled_from([np.nan, np.inf, -np.inf, 1.5,
                                                                                     -2.0]))),
       st.one_of(st.none(), st.floats(-10, 10)))
def test_nan_to_num(x, posinf):
    check(nx.nan_to_num(x, nan=3.0, posinf=posinf), np.nan_to_num(x, nan=3.0, posinf=posinf))
    check(nx.nan_to_num(x), np.nan_to_num(x))


def test_numpy_in_numpy_out_and_torch_in_torch_out():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert isinstance(nx.norm(x, axis=1), np.ndarray) and nx.norm(x, axis=1).dtype == np.float32
    assert isinstance(nx.norm(x), np.float32)  # NumPy returns a scalar for a full reduction
    out = nx.deg2rad(torch.from_numpy(x))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    assert np.interp(x, [0, 5], [0, 1]).dtype == nx.interp(x, [0, 5], [0, 1]).dtype == np.float64


@pytest.mark.parametrize("call, adapter, argument", [
    (lambda: nx.norm(np.ones((2, 2)), ord=2), "numpy.linalg.norm", "ord"),
    (lambda: nx.norm(np.ones(3), ord=-2), "numpy.linalg.norm", "ord"),
    (lambda: nx.interp(np.ones(2), [1, 0], [0, 1]), "numpy.interp", "xp"),
    (lambda: nx.interp(np.ones(2), [0, 1], [0, 1], period=2), "numpy.interp", "period"),
    (lambda: nx.pad(np.ones(2), 1, mode="mean"), "numpy.pad", "mode"),
    (lambda: nx.pad(np.ones(2), 1, constant_values=(1, 2)), "numpy.pad", "constant_values"),
    (lambda: nx.cross(np.ones(2), np.ones(2)), "numpy.cross", "shapes"),
    (lambda: nx.take(np.ones(3), [5]), "numpy.take", "indices"),
    (lambda: nx.repeat(np.ones(3), torch.ones(3, dtype=torch.int64)), "numpy.repeat", "repeats"),
    (lambda: nx.percentile(np.ones(3), 50, method="nearest"), "numpy.percentile", "method"),
    (lambda: nx.reciprocal(np.ones(3, dtype=np.int64)), "numpy.reciprocal", "x"),
    (lambda: nx.deg2rad(np.ones(3), out=np.ones(3)), "numpy.deg2rad", "out"),
    (lambda: nx.amax(np.ones(3), initial=0), "numpy.max", "initial"),
    (lambda: nx.diff(np.ones(3, dtype=bool)), "numpy.diff", "a"),
])
def test_out_of_domain_inputs_are_refused_with_the_adapter_name(call, adapter, argument):
    with pytest.raises(ValueError, match=rf"adapter {re.escape(adapter)}: unsupported {argument}"):
        call()


def test_registry_covers_only_functions_leapp_cannot_trace_or_export():
    mapped = load_support().numpy_functions
    export_failures = {"numpy.hypot", "numpy.round", "numpy.around", "numpy.max", "numpy.min", "numpy.amax",
                       "numpy.amin", "numpy.arctan2", "numpy.atan2", "numpy.arctan", "numpy.atan", "numpy.arcsin",
                       "numpy.asin", "numpy.arccos", "numpy.acos", "numpy.tan",
                       "numpy.clip"}          # with list bounds: LEAPP hands the lists to torch.clamp
    numpy_keys = {k for k in ADAPTERS if k.startswith("numpy.")}
    assert numpy_keys - export_failures, "no unmapped NumPy adapters"
    assert not (numpy_keys - export_failures) & mapped
    assert export_failures <= numpy_keys


def test_module_docstring_lists_every_numpy_adapter():
    listed = set(re.findall(r"numpy\.[\w.]+\w", nx.__doc__))
    assert listed == {k for k in ADAPTERS if k.startswith("numpy.")}


def test_arctan2_of_subnormal_pairs_keeps_their_ratio():
    y = np.array([5e-324, -1e-320, 3e-310], dtype=np.float64)
    x = np.array([5e-324, 2e-320, -3e-310], dtype=np.float64)
    assert mismatch(ADAPTERS["numpy.arctan2"].function(y, x), np.arctan2(y, x), 1e-12, 1e-15) is None
