"""`generate`: rendering, golden modules, determinism, safe re-runs, adapters and rewrites."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import pytest

import inprocess
from leapp_codemod.scan import scan_project
from leapp_codemod.generate import GenerateError, Options, generate, render_module
from leapp_codemod.generate.source_info import output_structure
from leapp_codemod.model import Finding, PatchTarget, ScanResult, StateAttr

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
GOLDEN = FIXTURES / "run_golden"


def _finding(path, line, category, function, message="hazard"):
    return Finding(path, line, 1, line, 10, "T000", category, "error", message, "fix it", function)


def _patch_scan() -> ScanResult:
    return ScanResult(
        findings=[Finding("reachapp/shaping.py", 3, 12, 3, 31, "T000", "scalar-extraction", "error",
                          "`delta.norm().item()` leaves the graph", "fix it", "reachapp.shaping:speed_scale")],
        patch_targets=[PatchTarget("reachapp.policy", "scale_for", "reachapp.shaping:speed_scale")])


def _recurrent_scan() -> ScanResult:
    return ScanResult(
        findings=[_finding("memapp/model.py", 16, "inplace-state", "memapp.model:Memory.forward"),
                  _finding("memapp/policy.py", 22, "inplace-state", "memapp.policy:RecurrentPolicy.act")],
        state=[StateAttr("memapp.model:Memory", "h", "reassigned", "memapp/model.py", 16, True),
               StateAttr("memapp.policy:RecurrentPolicy", "prev_action", "inplace", "memapp/policy.py", 22)])


CASES = {
    "patch": ("run_patch", "reachapp", "reachapp.policy:ReachPolicy.act", _patch_scan),
    "recurrent": ("run_recurrent", "memapp", "memapp.policy:RecurrentPolicy.act", _recurrent_scan),
    "mlp_numpy": ("run_mlp_numpy", "mlpapp", "mlpapp.pipeline:step", ScanResult),
}


def _render(name: str, monkeypatch) -> str:
    fixture, app, entry, scan = CASES[name]
    monkeypatch.chdir(FIXTURES / fixture)
    text, _ = render_module(scan(), Options(app=Path(app), entry=entry, output=Path("integration.py"),
                                            driver=Path("main.py")))
    return text


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_module_matches_golden_and_compiles(name, monkeypatch):
    text = _render(name, monkeypatch)
    golden = GOLDEN / f"{name}.py"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()
    compile(text, f"{name}.py", "exec")


@pytest.mark.parametrize("name", sorted(CASES))
def test_rendering_is_deterministic(name, monkeypatch):
    assert _render(name, monkeypatch).encode() == _render(name, monkeypatch).encode()


def test_module_declares_boundaries_state_patch_and_driver(monkeypatch):
    text = _render("recurrent", monkeypatch)
    assert 'INPUTS = ("obs",)' in text
    assert '"memory_h": ("memapp.model:Memory", "h")' in text
    assert '"prev_action": ("memapp.policy:RecurrentPolicy", "prev_action")' in text
    assert 'DRIVER = "main.py"' in text and 'EXPORT_WITH = "onnx"' in text
    patch = _render("patch", monkeypatch)
    assert '"reachapp.policy", "scale_for", speed_scale_traceable, "reachapp.shaping:speed_scale",' in " ".join(
        patch.split())
    assert "def speed_scale_traceable(delta, radius):" in patch          # a traceable twin, not a stub
    assert "    return twin_min(1.0, dist / radius)" in patch
    assert "raise NotImplementedError(STUB)" not in patch
    assert "# Scan findings this module does not resolve: none." in patch


def test_rerun_overwrites_only_unedited_files(tmp_path):
    work = tmp_path / "proj"
    shutil.copytree(FIXTURES / "run_mlp_numpy", work)
    out = tmp_path / "integration.py"
    opts = Options(app=work / "mlpapp", entry="mlpapp.pipeline:step", output=out, driver=work / "main.py")
    generate(opts, scan=ScanResult())
    first = out.read_bytes()
    generate(opts, scan=ScanResult())                       # unedited: regenerated in place
    assert out.read_bytes() == first
    out.write_text(out.read_text() + "\n# my note\n")
    with pytest.raises(GenerateError, match="edited"):
        generate(opts, scan=ScanResult())
    assert out.read_text().endswith("# my note\n")
    generate(opts, force=True, scan=ScanResult())
    assert out.read_bytes() == first
    foreign = tmp_path / "mine.py"
    foreign.write_text("print('hand written')\n")
    with pytest.raises(GenerateError, match="not generated"):
        generate(Options(app=work / "mlpapp", entry="mlpapp.pipeline:step", output=foreign), scan=ScanResult())


def test_refuses_to_write_inside_the_application(tmp_path):
    work = tmp_path / "proj"
    shutil.copytree(FIXTURES / "run_mlp_numpy", work)
    with pytest.raises(GenerateError, match="inside the application"):
        generate(Options(app=work / "mlpapp", entry="mlpapp.pipeline:step", output=work / "mlpapp" / "x.py"),
                 scan=ScanResult())
    assert not (work / "mlpapp" / "x.py").exists()


def test_unknown_entry_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(FIXTURES / "run_mlp_numpy")
    with pytest.raises(GenerateError, match="no function nope"):
        render_module(ScanResult(), Options(app=Path("mlpapp"), entry="mlpapp.pipeline:nope",
                                            output=tmp_path / "i.py"))


@pytest.mark.parametrize("entry", ["mlpapp.pipeline:nope", "mlpapp.pipeline:Nope.act", "mlpapp.missing:step"])
def test_generate_with_an_entry_that_does_not_exist_prints_one_line_and_exits_2(tmp_path, entry):
    work = tmp_path / "proj"
    shutil.copytree(FIXTURES / "run_mlp_numpy", work)
    proc = inprocess.cli(["generate", "mlpapp", "--entry", entry, "-o", str(tmp_path / "i.py")], work)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and entry in proc.stderr
    assert not (tmp_path / "i.py").exists()


def test_generate_command_imports_neither_torch_leapp_nor_the_app(tmp_path):
    work = tmp_path / "proj"
    shutil.copytree(FIXTURES / "run_patch", work)
    code = textwrap.dedent("""
        import sys
        from pathlib import Path
        from leapp_codemod.cli_run import generate
        try:
            generate.main(["reachapp", "--entry", "reachapp.policy:ReachPolicy.act", "--driver", "main.py",
                           "-o", "../integration.py"], standalone_mode=False)
        finally:
            print(sorted(m for m in ("torch", "leapp", "reachapp") if m in sys.modules))
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    text = (tmp_path / "integration.py").read_text()
    assert "speed_scale_traceable" in text
    assert not list(work.rglob("__pycache__"))


def test_templates_ship_as_package_data():
    template = resources.files("leapp_codemod.templates").joinpath("integration.py.j2")
    assert template.is_file() and "boundary.output_tensors" in template.read_text()


@pytest.mark.parametrize(("source", "expected"), [
    ("return x", '{"x": result}'),
    ("return a, b", '{"a": result[0], "b": result[1]}'),
    ("return torque.numpy().copy()", '{"torque": result}'),
    ("return torch.cat([a, b], dim=-1)", '{"output": result}'),
    ("return {'act': a, 'info': {'v': v}}", '{"act": result["act"], "info": {"v": result["info"]["v"]}}'),
    ("return a, (b, c)", '{"a": result[0], "b": result[1][0], "c": result[1][1]}'),
    ("return obs * 2", '{"output": result}'),
    ("return smoother(obs)", '{"output": result}'),                 # a call names what computes, not what it holds
    ("return self.project_to_limit(obs), g", '{"output0": result[0], "g": result[1]}'),
    ("return {'cmd': smoother(obs)}", '{"cmd": result["cmd"]}'),
])
def test_output_names_follow_the_return_structure(source, expected):
    fn = ast.parse(f"def f(obs):\n    {source}\n").body[0]
    _, expr, _ = output_structure(fn, {"obs"})
    assert expr == expected


@pytest.mark.parametrize(("signature", "expected"), [
    ("def f(obs) -> JointTargets:", '{"joint_targets": result}'),
    ("def f(obs) -> 'app.types.WheelCommand':", '{"wheel_command": result}'),
    ("def f(obs) -> torch.Tensor:", '{"output": result}'),
    ("def f(obs) -> np.ndarray:", '{"output": result}'),
])
def test_a_single_call_result_is_named_after_the_return_annotation(signature, expected):
    fn = ast.parse(f"{signature}\n    return smoother(obs)\n").body[0]
    assert output_structure(fn, {"obs"})[1] == expected


def test_output_name_never_reuses_an_input_name():
    fn = ast.parse("def f(x):\n    return x\n").body[0]
    assert output_structure(fn, {"x"})[1] == '{"x_out": result}'


@pytest.mark.parametrize(("function", "adapter"), [
    ("numpy:deg2rad", "numpy.deg2rad"), ("numpy.linalg:norm", "numpy.linalg.norm"),
    ("scipy.special._ufuncs:expit", "scipy.special.expit"), ("numpy.lib._function_base_impl:diff", "numpy.diff"),
    ("scipy.ndimage._filters:gaussian_filter1d", "scipy.ndimage.gaussian_filter1d"), ("numpy:fft", None),
])
def test_library_functions_map_to_the_one_adapter_registry(function, adapter):
    from leapp_codemod.generate.adapters import torch_adapter

    assert torch_adapter(function) == adapter


def test_library_calls_use_registered_torch_adapters(tmp_path, monkeypatch):
    import leapp_codemod.generate.adapters as adapters

    pkg = tmp_path / "camapp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "vision.py").write_text("import cv2 as cv\n\n\ndef prep(frame):\n"
                                   "    return cv.resize(frame, (4, 4), interpolation=cv.INTER_AREA)\n")
    (pkg / "policy.py").write_text("from .vision import prep\n\n\ndef step(frame):\n    return prep(frame)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(adapters, "torch_adapter_names", lambda: frozenset({"cv2.resize"}))
    scan = scan_project(["camapp"], entry="camapp.policy:step")
    assert [(c.module, c.name, c.target) for c in scan.library_calls] == [("cv2", "resize", "cv2.resize")]
    text, spec = render_module(scan, Options(app=Path("camapp"), entry="camapp.policy:step",
                                             output=tmp_path / "integration.py"))
    assert [(p.module, p.name, p.original) for p in spec.patches] == [("cv2", "resize", "cv2:resize")]
    assert 'return ADAPTERS["cv2.resize"].function(*args, **kwargs)' in text
    assert not spec.replacements[0].is_stub
    monkeypatch.setattr(adapters, "torch_adapter_names", lambda: frozenset())
    monkeypatch.setattr(adapters, "registry", lambda: {})
    _, spec = render_module(scan, Options(app=Path("camapp"), entry="camapp.policy:step",
                                          output=tmp_path / "integration.py"))
    assert [(p.module, p.name) for p in spec.patches] == [("camapp.policy", "prep")]   # whole helper, a stub
    assert spec.replacements[0].is_stub


@pytest.mark.parametrize(("layout", "app", "cwd"), [
    ("hyphen", "act-plus-plus", "."),       # a repository folder whose name is not a module name
    ("dot", ".", "act-plus-plus"),          # generate run from inside the application folder
    ("src", "src", "."),                    # src layout
])
def test_generated_module_imports_from_the_project_and_from_elsewhere(tmp_path, layout, app, cwd):
    project_dir = tmp_path / "proj"
    code_dir = project_dir / ("src/walker" if layout == "src" else "act-plus-plus")
    code_dir.mkdir(parents=True)
    if layout == "src":
        (code_dir / "__init__.py").write_text("")
    (code_dir / "gait.py").write_text("def act(obs):\n    return obs * 2.0\n")
    entry = "walker.gait:act" if layout == "src" else "gait:act"
    out = project_dir / "integration.py"
    proc = inprocess.cli(["generate", app, "--entry", entry, "-o", str(out)], project_dir / cwd)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "act-plus-plus" not in text.split("APP_ROOT")[0]     # never imported by a directory name
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask         # the usual mode of a new file
    for where in (project_dir, tmp_path):
        check = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(project_dir)!r}); "
                                "import integration; print(integration.ENTRY)"], cwd=where, capture_output=True,
                               text=True, timeout=120, check=False)
        assert check.returncode == 0 and check.stdout.strip() == entry, check.stderr
