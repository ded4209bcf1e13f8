"""`run` in the user's process: read the integration module statically, run the child with a
timeout, assemble the report. Imports neither torch nor leapp nor the application."""
from __future__ import annotations

import ast
import json
import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.facts import FORMAT_OF
from leapp_codemod.knowledge.categories import SILENT_CATEGORIES
from leapp_codemod.io_util import open_stream, prepare_out_dir, write_atomic
from leapp_codemod.runner import names, procgroup


class UsageError(Exception):
    """Exit 2: the command line or the integration module is not usable."""


@dataclass(frozen=True)
class Stub:
    function: str
    line: int
    patches: tuple[str, ...]
    hazards: tuple[str, ...]
    blocked: str = ""       # why `generate` wrote no traceable twin ("file:line: reason"), from its comment


@dataclass(frozen=True)
class ModuleInfo:
    path: Path
    entry: str
    app_root: Path
    driver: Path | None
    graph: str
    export_with: str
    stubs: tuple[Stub, ...]
    findings: tuple[str, ...]          # "path:line category: message" listed in the module
    host_runtime: tuple[str, ...]
    left_out: tuple[str, ...] = ()     # I/O and shape-specialized code listed by `generate`


@dataclass(frozen=True)
class RunOptions:
    file: Path
    out: Path
    traces: int = 5
    checks: int = 3
    require_format: str | None = None
    timeout: float = 600.0
    inputs: Path | None = None      # replay this recording instead of running the driver
    record: Path | None = None      # save the calls to this recording instead of exporting
    allow_pickle: bool = False      # --allow-pickle: a recording's pickled instance may be loaded
    cleanup: tuple[str, ...] = ()   # the caller's temporary paths, removed by the watchdog if the tool is killed


def _literal(tree: ast.Module, name: str, path: Path, required: bool = True):
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id == name:
                try:
                    return ast.literal_eval(node.value)
                except ValueError:
                    raise UsageError(f"{path}:{node.lineno}: {name} must be a literal") from None
    if required:
        raise UsageError(f"{path}: not an integration module (no {name}); create one with `leapp-codemod generate`")
    return None


def _is_stub(fn: ast.FunctionDef) -> bool:
    """Still the generated stub: nothing but (a docstring and) `raise NotImplementedError(STUB)`."""
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(
        fn.body[0].value, ast.Constant) else fn.body
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or not isinstance(body[0].exc, ast.Call):
        return False
    call = body[0].exc
    return (isinstance(call.func, ast.Name) and call.func.id == "NotImplementedError" and len(call.args) == 1
            and isinstance(call.args[0], ast.Name) and call.args[0].id == "STUB")


def _patches(tree: ast.Module) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(module, name, replacement function, hazards) of every Patch(...) in PATCHES."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Patch":
            args = node.args
            if len(args) < 3 or not isinstance(args[2], ast.Name):
                continue
            try:
                module, name = ast.literal_eval(args[0]), ast.literal_eval(args[1])
                hazards = next((ast.literal_eval(k.value) for k in node.keywords if k.arg == "hazards"), ())
            except ValueError:
                continue
            out.append((module, name, args[2].id, tuple(hazards)))
    return out


def _listed_findings(text: str) -> tuple[str, ...]:
    """The unresolved findings listed in the module's header comment (wrapped lines joined)."""
    found: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("# Scan findings this module does not resolve"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("#       ") and found:
            found[-1] += " " + line[8:].strip()
        elif line.startswith("#   "):
            found.append(line[4:].strip())
        else:
            inside = False
    return tuple(re.sub(r" \(write \w+\)$", "", f) for f in found)


def _merge_findings(listed: tuple[str, ...], hazards: tuple[str, ...]) -> tuple[str, ...]:
    """Listed findings plus patch hazards at locations the list does not already name."""
    seen = {_loc(f) for f in listed}
    extra = [h for h in dict.fromkeys(hazards) if _loc(h) not in seen]
    return tuple(dict.fromkeys(listed)) + tuple(extra)


_BLOCKED = "# No traceable twin was generated: "


def _blocked_reason(lines: list[str]) -> str:
    """The reason comment `generate` writes into a stub it could not turn into a twin."""
    found: list[str] = []
    for line in (ln.strip() for ln in lines):
        if line.startswith(_BLOCKED):
            found.append(line[len(_BLOCKED):])
        elif found and line.startswith("# ") and not line.startswith("# Original ("):
            found.append(line[2:])
        elif found:
            break
    return " ".join(found)


def module_inputs(path: Path) -> tuple[str, ...]:
    """The INPUTS literal of an integration module (read_module has already checked the file)."""
    return tuple(_literal(ast.parse(path.read_text(encoding="utf-8")), "INPUTS", path))


def read_module(path: Path) -> ModuleInfo:
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise UsageError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    base = path.resolve().parent
    entry = _literal(tree, "ENTRY", path)
    driver = _literal(tree, "DRIVER", path, required=False)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    patches = _patches(tree)
    stubs = []
    for name, fn in sorted(functions.items(), key=lambda kv: kv[1].lineno):
        used = [p for p in patches if p[2] == name]
        if used and _is_stub(fn):
            stubs.append(Stub(name, fn.lineno, tuple(f"{m}.{n}" for m, n, _, _ in used),
                              tuple(dict.fromkeys(h for *_, hz in used for h in hz)),
                              _blocked_reason(text.splitlines()[fn.lineno - 1:fn.end_lineno])))
    hazards = tuple(h for *_, hz in patches for h in hz)
    checked = {name: _literal(tree, name, path, required=name in ("ENTRY", "GRAPH", "EXPORT_WITH"))
               for name in ("ENTRY", "GRAPH", "NODE", "EXPORT_WITH", "INPUTS", "STATE")}
    bad = names.problems({k: v for k, v in checked.items() if v is not None})
    if bad:
        raise UsageError(f"{path}: {bad[0]}")
    return ModuleInfo(
        path=path, entry=entry, app_root=(base / _literal(tree, "APP_ROOT", path)).resolve(),
        driver=(base / driver).resolve() if driver else None, graph=_literal(tree, "GRAPH", path),
        export_with=_literal(tree, "EXPORT_WITH", path), stubs=tuple(stubs),
        findings=_merge_findings(_listed_findings(text), hazards),
        host_runtime=tuple(_literal(tree, "HOST_RUNTIME", path, required=False) or ()),
        left_out=tuple(_literal(tree, "LEFT_OUT", path, required=False) or ()),
    )


@dataclass
class ChildResult:
    data: dict = field(default_factory=dict)
    timed_out: bool = False
    returncode: int | None = None
    log: str = ""


def run_child(info: ModuleInfo, opts: RunOptions, progress) -> ChildResult:
    """Run the runner's child under `procgroup` (no process outlives `run`; output capped); every file
    written in --out goes through `io_util` (the folder is checked first, see `prepare_out_dir`)."""
    out = prepare_out_dir(opts.out).resolve()
    tag = secrets.token_hex(4)
    result_path = str(out / f".result-{tag}.json")
    config_path = out / f".run-config-{tag}.json"
    read_fd, write_fd = os.pipe()
    config = {
        "file": str(info.path.resolve()), "integration_dir": str(info.path.resolve().parent),
        "import_root": str(info.app_root), "driver": str(info.driver), "cwd": os.getcwd(),
        "out": str(out), "traces": opts.traces, "checks": opts.checks,
        "require_format": opts.require_format, "result": result_path, "progress_fd": write_fd,
        "inputs": str(opts.inputs.resolve()) if opts.inputs else None,
        "record": str(opts.record.resolve()) if opts.record else None,
        "allow_pickle": opts.allow_pickle, "parent": os.getpid(),
    }
    cleanup = [result_path, str(config_path)]
    if opts.inputs:
        from leapp_codemod.runner.replay import driver_script
        config["driver"] = str(driver_script(out, opts.inputs, opts.allow_pickle))
        cleanup.append(config["driver"])
    write_atomic(config_path, json.dumps(config), folder=out)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
    res = ChildResult()
    with open_stream(out / "run.log", folder=out) as log:       # readable while the driver runs
        outcome = procgroup.run_supervised(
            [sys.executable, "-m", "leapp_codemod.runner.child", str(config_path)], env=env, timeout=opts.timeout,
            log=log, cleanup=tuple(cleanup), pass_fds=(write_fd,), progress_fd=read_fd,
            on_line=progress, read_result=result_path, if_killed=opts.cleanup)
    res.timed_out, res.returncode, res.log = outcome.timed_out, outcome.returncode, outcome.output.text()
    res.data = outcome.result or {}
    return res


Interrupted = procgroup.Interrupted


# ------------------------------------------------------------------------------------- report
def _loc(finding: str) -> tuple[str, int] | None:
    m = re.match(r"(\S+):(\d+)(?: |$)", finding)
    return (m.group(1), int(m.group(2))) if m else None


def _category(finding: str) -> str:
    m = re.match(r"\S+:\d+ ([a-z-]+)(?::|$)", finding)
    return m.group(1) if m else ""


def confirm_findings(findings: tuple[str, ...], signals: list[dict]) -> list[dict]:
    """Scan findings that a LEAPP runtime signal confirms, matched by line first, then by category."""
    confirmed = []
    for f in findings:
        loc, cat = _loc(f), _category(f)
        evidence = []
        for s in signals:
            s_loc = _loc(s["location"] + " ") if s.get("location") else None
            if cat not in s["categories"] or s.get("adapter"):   # an adapter's record says nothing of the app line
                continue
            at_line = bool(loc and s_loc and s_loc[0] == loc[0] and abs(s_loc[1] - loc[1]) <= 1)
            if at_line or not s_loc:
                evidence.append({"signal": s["signal"], "message": s["message"], "at": s.get("location", ""),
                                 "match": "line" if at_line else "category"})
        if evidence:
            confirmed.append({"finding": f, "evidence": evidence[:3]})
    return confirmed


_SILENT = SILENT_CATEGORIES  # categories LEAPP can export without an error (knowledge/categories.py)


def build_report(info: ModuleInfo, opts: RunOptions, child: ChildResult, wall: float) -> dict:
    data = child.data
    report: dict = {"entry": info.entry, "integration": str(info.path), "out": str(opts.out),
                    "requested_format": _format_of(opts.require_format or info.export_with),
                    "graph_yaml": None, "models": [], "attempts": data.get("attempts", []),
                    "validation": {}, "findings_confirmed": [], "hazard_signals": [],
                    "host_runtime": list(info.host_runtime), "patch_parity": data.get("patch_parity", []),
                    "twin_check": data.get("twin_check", []),
                    "timings": dict(data.get("timings", {}), total=round(wall, 2))}
    bad = "partial" if info.host_runtime else "failed"
    if child.timed_out:
        report.update(status=bad, error=f"timed out after {opts.timeout:g} s (see {opts.out / 'run.log'})")
        return report
    if "error" in data or not data:
        msg = data.get("error") or _child_crash(child)
        report.update(status=bad, error=msg, failed_stage=data.get("error_stage", "runner"))
        shapes = [f for f in info.left_out if _category(f) == "shape-specialization"]
        if shapes and "had other input shapes" in msg:
            report.update(status="partial", host_runtime=list(info.host_runtime) + shapes,
                          error=f"partial pipeline: the input shapes change between calls, so the shape-specialized "
                                f"code must stay in the host runtime ({msg})")
            report["proposed_split"] = proposed_split(info.entry, report["host_runtime"])
        return report
    signals = []
    for att in data["attempts"]:
        for s in att.get("signals", []):
            if s not in signals:
                signals.append(s)
    report["hazard_signals"] = signals
    report["findings_confirmed"] = confirm_findings(info.findings, signals)
    report["calls"] = data.get("calls")
    report.update(_left_out_sections(info, data.get("calls") or {}))
    if data.get("replayed"):
        meta = data["replayed"]
        report["inputs"] = {"recording": str(opts.inputs), "format_version": meta.get("version"),
                            "recorded_with": meta.get("versions"), "driver_started": False}
    report["state"] = data.get("state")
    for key in ("state_observed", "state_notes", "snapshot", "constants", "outputs_left_out"):
        if data.get(key):
            report[key] = data[key]
    for row in report.get("state_observed", []):
        if row.get("explained_by") == "no static finding":
            attr = re.split(r"[.\[]", row["owner_path"])[-1].strip("'\"]")
            row["explained_by"] = next((f for f in info.findings if _category(f) == "inplace-state"
                                        and re.search(rf"\b{re.escape(attr)}\b", f)), "no static finding")
    chosen = next((a for a in data["attempts"] if a["outcome"] == "validated"), None)
    last = chosen or (data["attempts"][-1] if data["attempts"] else None)
    if last:
        report["validation"] = last.get("validation", {})
    bad_parity = [p for p in report["patch_parity"] if not p.get("ok")]
    if chosen:
        pub = Path(data["published"])
        report["graph_yaml"] = _display(pub / f"{data['graph']}.yaml")
        report["models"] = sorted(_display(p) for p in pub.iterdir() if p.suffix in (".onnx", ".pt", ".pt2"))
        report["backend"] = chosen["backend"]
        report["format"] = chosen["format"]
        report["substitute"] = chosen["format"] != report["requested_format"]
    from leapp_codemod.runner.semantics_report import summarize
    semantics = summarize(info.path, Path(report["graph_yaml"]) if report["graph_yaml"] else None)
    if semantics is not None:
        report["semantics"] = semantics
    from leapp_codemod.runner.split_report import summarize as split_summary
    split = split_summary(info.path, Path(report["graph_yaml"]) if report["graph_yaml"] else None)
    if split is not None:
        report["split"] = split
    if split and split["problems"] and chosen:
        report["status"] = "failed"
        report["error"] = f"the exported graph is not the declared split: {split['problems'][0]}"
    elif chosen and not bad_parity and not info.host_runtime:
        report["status"] = "validated"
    elif info.host_runtime or (not chosen and info.left_out):
        # I/O or shape-specialized code that could be left out of a validated export did not let it
        # validate: it feeds the outputs, so it stays in the host runtime.
        report["host_runtime"] = list(info.host_runtime) + ([] if info.host_runtime else list(info.left_out))
        report["status"] = "partial"
        report["error"] = (f"partial pipeline: {len(report['host_runtime'])} part(s) must stay in the host runtime "
                           "(see host_runtime)")
        report["proposed_split"] = proposed_split(info.entry, report["host_runtime"])
    else:
        report["status"] = "failed"
        if bad_parity:
            p = bad_parity[0]
            report["error"] = (f"FunctionPatch {p['patch']} ({p['replacement']}) differs from the original "
                               f"(max abs error {p['max_abs_error']:.3g}); hazards: {', '.join(p['hazards']) or '-'}")
        else:
            a = data["attempts"][-1] if data["attempts"] else {}
            report["error"] = f"no exporter validated; last: {a.get('backend')} at {a.get('failed_stage')}: " \
                              f"{a.get('reason')}"
        report["explained_by"] = [f for f in info.findings if _category(f) in _SILENT]
        last = data["attempts"][-1] if data["attempts"] else {}
        if last.get("failed_stage"):
            report["failed_stage"] = last["failed_stage"]
        if last.get("lost_computation"):
            report["lost_computation"] = {
                "reason": last["lost_computation"],
                "not_retried": "every exporter exports the same trace, so none can recover the lost computation",
                "explained_by": report["explained_by"] or ["no static finding"],
                "state_observed": [row["owner_path"] for row in report.get("state_observed", [])]}
            report["error"] = f"computation was lost while tracing: {last['lost_computation']}"
    return report


def proposed_split(entry: str, host: list[str]) -> dict:
    """Where to cut a partial pipeline: the listed lines run in the host, before the exported model,
    and what they compute enters the model as inputs."""
    lines = list(dict.fromkeys(f.split(" ")[0] for f in host))
    return {"host": lines,
            "exported": f"the rest of {entry}, as one LEAPP node",
            "boundary": "each value the host lines compute (a random draw, a value read from a file or device, "
                        "the fixed-size result of shape-dependent preprocessing) becomes an input of the exported "
                        "node, computed by the host before each call; the I/O that only reports (logging, print) "
                        "stays in the host after the call",
            "lines": {loc: next(f for f in host if f.startswith(loc + " ")) for loc in lines}}


def _left_out_sections(info: ModuleInfo, calls: dict) -> dict:
    """What the export leaves out (I/O), drops (shape guards) or bakes in (shape arithmetic)."""
    io = [f for f in info.left_out if _category(f) == "io-in-pipeline"]
    shapes = [f for f in info.left_out if _category(f) == "shape-specialization"]
    out: dict = {}
    if io:
        out["side_effects_left_out"] = io
    if shapes:
        out["shape_specialized"] = [
            {"finding": f, "note": "shape guard: dropped from the export (it held on every traced call)"
             if re.search(r"\bbranches on the shape\b", f) else
             "baked in at the traced shapes: validated on those shapes only"} for f in shapes]
        out["shape_domain"] = {"input_layout": calls.get("input_layout", ""),
                               "note": "the exported model is validated for these input shapes only"}
    return out


def _display(path: Path) -> str:
    """Relative to the working directory when inside it (as the user named --out), else absolute."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _format_of(backend: str) -> str:
    return FORMAT_OF.get(backend, backend)


def child_crash_message(child: ChildResult) -> str:
    return _child_crash(child)


def _child_crash(child: ChildResult) -> str:
    tail = [ln for ln in child.log.strip().splitlines() if ln.strip()]
    last = tail[-1] if tail else "no output"
    return f"the runner process stopped (exit {child.returncode}): {last[:300]}"


def stub_report(info: ModuleInfo, opts: RunOptions) -> dict:
    return {"status": "failed", "entry": info.entry, "integration": str(info.path), "graph_yaml": None,
            "models": [], "attempts": [], "validation": {}, "findings_confirmed": [], "timings": {},
            "error": f"{len(info.stubs)} FunctionPatch replacement(s) in {info.path} are unwritten stubs",
            "stubs": [{"function": s.function, "at": f"{info.path}:{s.line}", "patches": list(s.patches),
                       "hazards": list(s.hazards), "blocked": s.blocked} for s in info.stubs]}


def write_report(report: dict, out: Path) -> Path:
    out = prepare_out_dir(out)
    target = out / "report.json"
    write_atomic(target, json.dumps(report, indent=2, default=str) + "\n", folder=out)
    return target


def summary_lines(report: dict) -> list[str]:
    lines = []
    status = report["status"]
    if status == "validated":
        worst = _worst(report.get("validation", {}))
        sub = " (substitute format)" if report.get("substitute") else ""
        lines.append(f"validated: {report['entry']} exported with {report.get('backend')}{sub}; "
                     f"{worst}")
        lines.append(f"  graph: {report['graph_yaml']}")
        for m in report["models"]:
            lines.append(f"  model: {m}")
    else:
        lines.append(f"{status}: {report.get('error', '')}")
        for s in report.get("stubs", []):
            lines.append(f"  {s['at']}: stub {s['function']} (patches {', '.join(s['patches'])}) is not written; "
                         f"hazard(s): {'; '.join(s['hazards']) or 'see the module header'}")
            if s.get("blocked"):
                lines.append(f"    no twin: {s['blocked']}")
        for h in report.get("host_runtime", []):
            lines.append(f"  host runtime: {h}")
    for a in report.get("attempts", []):
        if a.get("outcome") != "validated":
            lines.append(f"  attempt {a['backend']}: failed at {a.get('failed_stage')}: {a.get('reason')}")
    for c in report.get("findings_confirmed", []) if status != "validated" else []:
        ev = c["evidence"][0]
        lines.append(f"  confirmed: {c['finding']} ({ev['signal']}{' at ' + ev['at'] if ev['at'] else ''})")
    for s in report.get("hazard_signals", []):
        if s.get("location") and not any(s.get("location") == e.get("at") for c in report.get("findings_confirmed", [])
                                         for e in c["evidence"]):
            origin = f"inside {s['adapter']}, called at {s['location']}" if s.get("adapter") else f"at {s['location']}"
            lines.append(f"  LEAPP {s['signal']} {origin}: {s['message'][:120]}")
    checked = [r for r in report.get("twin_check", []) if r.get("samples")]
    if checked and all(r.get("ok") for r in report.get("twin_check", [])):
        lines.append(f"  pre-trace check: {len(checked)} replacement(s) agree with the originals on "
                     f"{sum(r['samples'] for r in checked)} recorded and perturbed inputs")
    for p in report.get("patch_parity", []):
        state = "ok" if p.get("ok") else "MISMATCH"
        lines.append(f"  patch {p['patch']}: parity {state} on {p['calls']} calls "
                     f"(max abs error {p['max_abs_error']:.3g}){' ' + p['error'] if p.get('error') else ''}")
    if status == "failed" and report.get("explained_by"):
        lines.append("  scan findings that can explain it:")
        lines.extend(f"    {f}" for f in report["explained_by"][:10])
    return lines


def _worst(validation: dict) -> str:
    outs = validation.get("outputs", {})
    if not outs:
        return "no outputs compared"
    name, row = max(outs.items(), key=lambda kv: kv[1]["max_abs_error"])
    n = len(validation.get("calls", []))
    extra = ""
    roll = validation.get("rollout_from_reset")
    if roll:
        extra = f"; {roll.get('steps', 0)}-step rollout from reset ok"
    return f"{n} fresh calls, worst output {name!r} max abs error {row['max_abs_error']:.3g}{extra}"
