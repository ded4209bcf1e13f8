"""Numbers computed from traced NumPy arrays stay in the trace: arithmetic on a 0-d result (a
reduction, an adapter's norm) with Python numbers used to come back from LEAPP as an untraced NumPy
scalar, frozen into the export (real LEAPP, torch and onnxruntime on CPU)."""
from __future__ import annotations

import numpy as np
import pytest
from test_run import assert_validated, generate, project, run_json, tree_hash


def _traced_kinds(tmp_path):
    import leapp
    from leapp import annotate

    from leapp_codemod.adapters import ADAPTERS
    from leapp_codemod.runner.trace_shims import during_trace

    norm = ADAPTERS["numpy.linalg.norm"].function
    leapp.start("numbers", save_path=str(tmp_path))
    try:
        with during_trace():
            x = annotate.input_tensors("n", {"a": np.array([0.1, 9.7, 0.3])})
            n = norm(x)
            kinds = {"norm plus a float": n + 1e-6, "float times a sum": 0.75 * np.sum(x * x),
                     "float32 sum times a float": x.astype(np.float32).sum() * 0.5, "comparison": n > 1.0}
            annotate.output_tensors("n", {"y": x / (n + 1e-6)})
    finally:
        leapp.stop()
    return kinds


def test_arithmetic_on_traced_numbers_stays_traced_with_numpys_dtype(tmp_path):
    from leapp_codemod.adapters._core import is_traced

    kinds = _traced_kinds(tmp_path)
    for what in ("norm plus a float", "float times a sum", "float32 sum times a float"):
        assert is_traced(kinds[what]) and np.ndim(kinds[what]) == 0, what
    assert kinds["float32 sum times a float"].dtype == np.float32      # NumPy's weak Python-float promotion
    assert kinds["float times a sum"].dtype == np.float64
    assert not is_traced(kinds["comparison"])                           # comparisons are left as LEAPP does them
    from leapp.leapp_graph.datatypes.numpy.traced_np_array import TracedNpArray
    assert not hasattr(TracedNpArray.__dict__["__array_ufunc__"], "__leapp_codemod_number_shim__")  # restored


@pytest.mark.e2e
def test_a_gain_computed_from_a_reduction_is_exported_as_computation(tmp_path):
    work = project(tmp_path, "run_number_math")
    before = tree_hash(work / "gainapp")
    generate(work, "gainapp", "gainapp.stabilizer:EnergyScaledPolicy.act")
    proc, report = run_json(work)
    assert_validated(proc, report, work)
    assert tree_hash(work / "gainapp") == before


def _speed_gain(v):
    return 1.0 / (1.0 + 0.5 * np.sum(v * v))


def test_a_replacement_is_checked_alone_under_the_same_work_arounds_as_the_pipeline(tmp_path):
    """A helper returning a number computed from its array argument: traced alone it keeps the argument,
    as it does inside the pipeline's trace, instead of being refused as a constant of the export."""
    from leapp_codemod.runner.twintrace import trace_alone

    problem = trace_alone(_speed_gain, _speed_gain, (np.array([0.3, -0.2, 0.5]),), {}, tmp_path)
    assert problem is None, problem
