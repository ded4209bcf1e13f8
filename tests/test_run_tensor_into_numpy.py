"""A tracing failure where a traced torch tensor reached a NumPy function names the innermost line in
the application or in the integration module's replacements."""
from __future__ import annotations

import importlib.util

from leapp_codemod.runner.dropped import tensor_into_numpy


def _raise_from(path):
    spec = importlib.util.spec_from_file_location("clockmod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        mod.clock(3)
    except NotImplementedError as exc:
        return exc
    raise AssertionError("no error")


def test_the_line_where_a_tensor_met_numpy_is_named(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "clock.py").write_text(
        "def clock(step):\n"
        "    phase = step * 0.1\n"
        "    return fail(phase)\n\n\n"
        "def fail(phase):\n"
        "    raise NotImplementedError(\"argument of type: <class 'numpy.ndarray'>\")\n")
    exc = _raise_from(app / "clock.py")
    said = tensor_into_numpy(exc, str(app), str(tmp_path))
    assert said.startswith("a traced torch tensor reached NumPy code at app/clock.py:7 (`raise NotImplementedError(")
    assert tensor_into_numpy(exc, str(tmp_path / "elsewhere"), str(tmp_path)).startswith(
        "a traced torch tensor reached NumPy code in the application")
    assert tensor_into_numpy(exc, "", str(tmp_path), str(app / "clock.py")).startswith(
        "a traced torch tensor reached NumPy code at app/clock.py:7")
    assert tensor_into_numpy(NotImplementedError("something else"), str(app), str(tmp_path)) == ""
