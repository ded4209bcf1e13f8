"""Each adapter family, traced by LEAPP and exported to ONNX, reproduces the original library on fresh inputs.

One graph per family: trace a few varied calls, compile with validation, then run the exported model
through leapp.InferenceManager on inputs it has never seen and compare with the original library.
"""
from __future__ import annotations

import functools
import operator

import cv2 as opencv
import numpy as np
import pytest
import scipy.special
import torch
from scipy.spatial.transform import Rotation as SciPyRotation

from leapp_codemod.adapters import (
    ADAPTERS,
    Rotation,
    cv2,
    frozen_min_max_scaler,
    frozen_standard_scaler,
    mismatch,
    special,
)

leapp = pytest.importorskip("leapp")
annotate = leapp.annotate
pytestmark = pytest.mark.e2e

N_TRACE, N_FRESH = 3, 4
# float64 outputs keep float64 precision through ONNX; float32 ones are compared at float32 round-off.
FLOAT64_TOL = (1e-12, 1e-12)


def export_and_compare(tmp_path, graph, samples, adapted, original, rtol, atol):
    """Trace `adapted` on the first N_TRACE samples, export, and compare the exported model with
    `original` on the remaining ones. Returns the validation dict. 0-d results are reshaped to (1,)
    by the callers: NumPy returns scalars for them, and LEAPP node outputs must be arrays."""
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=N_TRACE + 1)
    try:
        for sample in samples[:N_TRACE]:
            traced = annotate.input_tensors(graph, dict(sample))
            traced = traced if isinstance(traced, tuple) else (traced,)
            outputs = adapted(**dict(zip(sample, traced)))
            annotate.output_tensors(graph, outputs, export_with="onnx")
    finally:
        leapp.stop()
    validation = leapp.compile_graph(validate=True, strict=False, visualize=False)
    assert validation == {graph: True}, validation
    manager = leapp.InferenceManager(str(tmp_path / graph / f"{graph}.yaml"))
    for sample in samples[N_TRACE:]:
        got = manager.run_policy({f"{graph}/{k}": torch.from_numpy(np.array(v)) for k, v in sample.items()})
        expected = original(**sample)
        assert set(expected) == {k.split("/", 1)[1] for k in got}
        for name, value in expected.items():
            value = np.asarray(value)
            tol = (0, 0) if value.dtype.kind in "iub" else FLOAT64_TOL if value.dtype == np.float64 else (rtol, atol)
            problem = mismatch(got[f"{graph}/{name}"].numpy(), value, *tol, exact_kind=False)
            assert problem is None, f"{name}: {problem}"
    return validation


XP, FP = np.array([-2.0, -0.5, 0.0, 1.0, 3.0]), np.array([0.0, 1.0, -1.0, 2.0, 0.5])


def numpy_outputs(f, a, v, w):
    """NumPy calls LEAPP cannot trace or export; `f("linalg.norm")` is the function under test."""
    with_nan = np.where(a > 1.0, np.float32(np.nan), np.where(a < -1.0, -np.inf, a))
    return {
        "norm": f("linalg.norm")(v, axis=-1), "norm_all": f("linalg.norm")(a).reshape(1),
        "norm_inf": f("linalg.norm")(a, ord=np.inf, axis=1), "interp": f("interp")(a, XP, FP),
        "interp64": f("interp")(v, XP, FP), "deg2rad": f("deg2rad")(a), "deg2rad64": f("deg2rad")(v),
        "rad2deg": f("rad2deg")(a), "cross": f("cross")(v, w), "outer": f("outer")(v[0], w[1]),
        "diff": f("diff")(a, axis=0, prepend=0.0), "tile": f("tile")(v, (2, 1)),
        "repeat": f("repeat")(a, [1, 0, 2, 1], axis=1), "take": f("take")(a, [3, -1], axis=1),
        "pad_edge": f("pad")(a, ((1, 0), (2, 1)), mode="edge"), "pad_const": f("pad")(a, 1, constant_values=7.0),
        "pad_reflect": f("pad")(a, (0, 2), mode="reflect"), "median": f("median")(a, axis=1),
        "pct": f("percentile")(a, [10.0, 75.0], axis=0), "quantile": f("quantile")(a, 0.3).reshape(1),
        "average": f("average")(a, axis=1, weights=np.array([0.5, 1.0, 2.0, 0.25])),
        "nan_to_num": f("nan_to_num")(with_nan), "hypot": f("hypot")(v, w), "logaddexp": f("logaddexp")(v, w),
        "round": f("round")(a, 2), "max_all": f("max")(a).reshape(1), "stack": f("column_stack")([v[:, 0], w]),
        "at2d": f("atleast_2d")(v[0]), "bcast": f("broadcast_to")(v[0], (2, 3)), "copy": f("copy")(a),
        "contig": f("ascontiguousarray")(a.T), "recip": f("reciprocal")(a * a + 1.0),
        "fpow": f("float_power")(np.abs(v) + 1.0, w), "fabs": f("fabs")(a), "arctan2": f("arctan2")(v, w),
        "arctan2_32": f("arctan2")(a, a + 1.0), "arcsin": f("arcsin")(np.tanh(v)),
        "arccos": f("arccos")(np.tanh(w)), "arctan": f("arctan")(v), "tan": f("tan")(w),
    }


def test_numpy_family_exports(tmp_path):
    rng = np.random.default_rng(0)
    samples = [{"a": rng.uniform(-3, 3, (3, 4)).astype(np.float32), "v": rng.normal(size=(2, 3)),
                "w": rng.normal(size=(2, 3))} for _ in range(N_TRACE + N_FRESH)]
    adapted = functools.partial(numpy_outputs, lambda name: ADAPTERS[f"numpy.{name}"].function)
    original = functools.partial(numpy_outputs, lambda name: operator.attrgetter(name)(np))
    export_and_compare(tmp_path, "numpy_extra", samples, adapted, original, rtol=1e-5, atol=1e-5)


def test_special_family_exports(tmp_path):
    rng = np.random.default_rng(1)

    def compute(expit, logit, softmax):
        return lambda x, p: {"expit": expit(x), "logit": logit(p), "softmax": softmax(x, axis=-1),
                             "softmax_all": softmax(x)}

    samples = [{"x": rng.normal(0, 4, (2, 5)).astype(np.float32), "p": rng.uniform(0.01, 0.99, 6)}
               for _ in range(N_TRACE + N_FRESH)]
    export_and_compare(tmp_path, "special", samples, compute(special.expit, special.logit, special.softmax),
                       compute(scipy.special.expit, scipy.special.logit, scipy.special.softmax),
                       rtol=1e-5, atol=1e-6)


# The rotation family in five graphs, each exported on its own, so xdist can spread them: one graph of all
# twelve outputs (about 7,000 nodes) was one test of 31 CPU-s, which could leave a worker alone at the end of a
# parallel run; the five cost 34 CPU-s in all, the longest 13. Each case names its outputs' inputs.
ROTATION_CASES = {
    "matrix_rotvec_magnitude": ("q",),
    "euler": ("q",),
    "apply_compose": ("q", "q2", "v"),
    "from_euler": ("e",),
    "from_rotvec_matrix": ("rv", "m"),
}


def rotation_outputs(case, rotation):
    def matrix_rotvec_magnitude(q):
        r = rotation.from_quat(q)
        return {"matrix": r.as_matrix(), "rotvec": r.as_rotvec(), "magnitude": r.magnitude()}

    def euler(q):
        r = rotation.from_quat(q)
        return {"euler": r.as_euler("xyz"), "euler_zxz": r.as_euler("ZXZ", degrees=True)}

    def apply_compose(q, q2, v):
        r, r2 = rotation.from_quat(q), rotation.from_quat(q2)
        return {"applied": r.apply(v), "applied_inv": r.apply(v, inverse=True),
                "composed": (r * r2.inv()).as_quat(canonical=True)}

    def from_euler(e):
        return {"from_euler": rotation.from_euler("zYx".lower(), e).as_quat(),
                "from_euler_i": rotation.from_euler("XYZ", e, degrees=True).as_matrix()}

    def from_rotvec_matrix(rv, m):
        return {"from_rotvec": rotation.from_rotvec(rv).as_quat(), "from_matrix": rotation.from_matrix(m).as_quat()}

    return locals()[case]


@pytest.mark.parametrize("case", list(ROTATION_CASES))
def test_rotation_family_exports(tmp_path, case):
    rng = np.random.default_rng(2)

    def sample():
        drawn = {"q": rng.normal(size=(3, 4)), "q2": rng.normal(size=(3, 4)), "v": rng.normal(size=(3, 3)),
                 "e": rng.uniform(-1.4, 1.4, (3, 3)), "rv": rng.normal(size=(3, 3)),
                 "m": SciPyRotation.from_quat(rng.normal(size=(3, 4))).as_matrix()}
        return {name: drawn[name] for name in ROTATION_CASES[case]}

    export_and_compare(tmp_path, f"rotation_{case}", [sample() for _ in range(N_TRACE + N_FRESH)],
                       rotation_outputs(case, Rotation), rotation_outputs(case, SciPyRotation), rtol=1e-9, atol=1e-9)


def test_sklearn_family_exports(tmp_path):
    preprocessing = pytest.importorskip("sklearn.preprocessing")
    rng = np.random.default_rng(3)
    train = rng.normal(2, 3, (20, 4))
    standard = preprocessing.StandardScaler().fit(train)
    min_max = preprocessing.MinMaxScaler(feature_range=(-1, 1), clip=True).fit(train)
    frozen_standard, frozen_min_max = frozen_standard_scaler(standard), frozen_min_max_scaler(min_max)
    samples = [{"x": rng.normal(2, 4, (2, 4)).astype(np.float32), "y": rng.normal(2, 4, (3, 4))}
               for _ in range(N_TRACE + N_FRESH)]
    export_and_compare(tmp_path, "scalers", samples,
                       lambda x, y: {"standard": frozen_standard(x), "min_max": frozen_min_max(y)},
                       lambda x, y: {"standard": standard.transform(x), "min_max": min_max.transform(y)},
                       rtol=1e-6, atol=1e-6)


def test_cv2_family_exports(tmp_path):
    rng = np.random.default_rng(4)

    def compute(resize, cvt):
        def outputs(frame, depth):
            return {"rgb_small": cvt(resize(frame, (4, 3), interpolation=opencv.INTER_AREA), opencv.COLOR_BGR2RGB),
                    "gray": cvt(frame, opencv.COLOR_BGR2GRAY), "linear": resize(frame, (5, 7)),
                    "nearest": resize(frame, (11, 5), interpolation=opencv.INTER_NEAREST),
                    "half": resize(frame, (4, 3)), "depth_linear": resize(depth, (9, 4)),
                    "depth_gray3": cvt(resize(depth, (3, 2), interpolation=opencv.INTER_AREA), opencv.COLOR_GRAY2BGR)}
        return outputs

    samples = [{"frame": rng.integers(0, 256, (6, 8, 3), dtype=np.uint8),
                "depth": rng.uniform(0, 5, (6, 9)).astype(np.float32)} for _ in range(N_TRACE + N_FRESH)]
    export_and_compare(tmp_path, "vision", samples, compute(cv2.resize, cv2.cvt_color),
                       compute(opencv.resize, opencv.cvtColor), rtol=1e-5, atol=1e-5)


def policy_step(obs, scan, frame):
    """Application-style code calling the original libraries through their modules."""
    heading = np.interp(obs[:, 0], [-1.0, 0.0, 2.0], [0.0, 0.5, 3.0])
    speed = np.linalg.norm(obs, axis=-1)
    gate = scipy.special.expit(scan * 2.0)
    small = opencv.resize(frame, (4, 3), interpolation=opencv.INTER_AREA)
    return {"command": np.stack([heading, speed], axis=-1), "gate": gate, "small": small}


def test_adapters_as_function_patches_trace_unmodified_code(tmp_path):
    patches = [leapp.FunctionPatch(np, "interp", ADAPTERS["numpy.interp"].function),
               leapp.FunctionPatch(np.linalg, "norm", ADAPTERS["numpy.linalg.norm"].function),
               leapp.FunctionPatch(scipy.special, "expit", ADAPTERS["scipy.special.expit"].function),
               leapp.FunctionPatch(opencv, "resize", ADAPTERS["cv2.resize"].function)]
    rng = np.random.default_rng(5)
    samples = [{"obs": rng.normal(size=(2, 3)), "scan": rng.normal(size=5).astype(np.float32),
                "frame": rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)} for _ in range(N_TRACE + N_FRESH)]
    graph = "patched"
    leapp.start(graph, save_path=str(tmp_path), max_cached_io=N_TRACE + 1, patching=patches)
    try:
        for sample in samples[:N_TRACE]:
            obs, scan, frame = annotate.input_tensors(graph, dict(sample))
            annotate.output_tensors(graph, policy_step(obs, scan, frame), export_with="onnx")
    finally:
        leapp.stop()
    assert np.linalg.norm is ADAPTERS["numpy.linalg.norm"].function.__globals__["_NORM"]  # restored
    assert leapp.compile_graph(validate=True, strict=False, visualize=False) == {graph: True}
    manager = leapp.InferenceManager(str(tmp_path / graph / f"{graph}.yaml"))
    assert set(manager.inputs) == {f"{graph}/{k}" for k in ("obs", "scan", "frame")}  # nothing was frozen
    for sample in samples[N_TRACE:]:
        got = manager.run_policy({f"{graph}/{k}": torch.from_numpy(v) for k, v in sample.items()})
        for name, value in policy_step(**sample).items():
            tol = FLOAT64_TOL if value.dtype == np.float64 else (1e-6, 1e-7)
            problem = mismatch(got[f"{graph}/{name}"].numpy(), value, *tol, exact_kind=False)
            assert problem is None, f"{name}: {problem}"
