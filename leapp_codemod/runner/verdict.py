"""The verdict of `run`: report.json assembled from the module, the child's result and the
attempts. Imports neither torch nor leapp nor the application."""
from __future__ import annotations

import json
import re
from pathlib import Path

from leapp_codemod.io_util import prepare_out_dir, write_atomic
from leapp_codemod.knowledge.io import WRAPPER_READ_TEXT
from leapp_codemod.knowledge.leapp import FORMAT_OF, MODEL_NOT_LOADED
from leapp_codemod.rules import scalar_list_join
from leapp_codemod.runner import branch_arms
from leapp_codemod.runner.draws import carried_draws
from leapp_codemod.runner.dropped import leapp_cause
from leapp_codemod.runner.dropped_reads import name_reads
from leapp_codemod.runner.dtype_mix import lead_with_dtype_mix
from leapp_codemod.runner.errors import cut, failing_op, model_invalid
from leapp_codemod.runner.linecover import first_run, ran
from leapp_codemod.runner.module_info import ModuleInfo
from leapp_codemod.runner.module_info import category as _category
from leapp_codemod.runner.module_info import loc as _loc
from leapp_codemod.runner.parent import ChildResult, RunOptions
from leapp_codemod.runner.partial import draw_gates, host_explains, mark_partial, proposed_split
from leapp_codemod.runner.stub_verdict import other_findings, stub_error, stub_report  # noqa: F401 - used by cli_run, tests
from leapp_codemod.source.guards import guard_at


def confirm_findings(findings: tuple[str, ...], signals: list[dict], executed: dict | None = None) -> list[dict]:
    """Scan findings that a LEAPP runtime signal confirms, matched by line first, then by category;
    a finding on a line that did not execute during the recorded calls is never confirmed."""
    confirmed = []
    for f in findings:
        if ran(executed, f) is False:
            continue
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


_SILENT = ("scalar-extraction", "tensor-branch", "inplace-state", "random-in-pipeline", "unmapped-numpy",
           "foreign-library", "numpy-astype", "io-in-pipeline", "shape-specialization")


def build_report(info: ModuleInfo, opts: RunOptions, child: ChildResult, wall: float) -> dict:
    data = child.data
    report: dict = {"entry": info.entry, "integration": str(info.path), "out": str(opts.out),
                    "requested_format": _format_of(opts.require_format or info.export_with),
                    "graph_yaml": None, "models": [], "attempts": data.get("attempts", []),
                    "validation": {}, "findings_confirmed": [], "hazard_signals": [],
                    "host_runtime": list(info.host_runtime), "patch_parity": data.get("patch_parity", []),
                    "twin_check": data.get("twin_check", []),
                    "driver_args": list(opts.driver_args or info.driver_args),
                    "timings": dict(data.get("timings", {}), total=round(wall, 2))}
    if data.get("held_inputs"):     # inputs read from fields of objects the entry holds (leapp_codemod.held)
        report["held_inputs"] = data["held_inputs"]
    if data.get("held_not_inputs"):     # held fields left out of the inputs: state, or constant on every call
        report["held_not_inputs"] = data["held_not_inputs"]
    if child.timed_out:
        report.update(status="failed", failed_stage="timeout",
                      error=f"timed out after {opts.timeout:g} s (see {opts.out / 'run.log'})")
        return report
    if "error" in data or not data:
        msg = data.get("error") or _child_crash(child)
        report.update(status="failed", error=msg, failed_stage=data.get("error_stage", "runner"))
        holder = holder_findings(info, msg) if data.get("error_stage") == "state" else []
        if holder:
            report["explained_by"] = holder
        shapes = [f for f in info.left_out if _category(f) == "shape-specialization"]
        if data.get("error_stage") == "host-read":     # a read no input can carry: it stays in the host
            site = msg.split(": ")[0]
            read = [f for f in (*info.host_runtime, *info.left_out) if f.split(" ")[0] == site]
            report.update(status="partial", host_runtime=list(dict.fromkeys((*info.host_runtime, *read))),
                          error=f"partial pipeline: {msg}")
            report["proposed_split"] = proposed_split(info.entry, report["host_runtime"])
        elif shapes and "had other input shapes" in msg:
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
    executed = data.get("executed")
    report["findings_confirmed"] = confirm_findings(info.findings, signals, executed)
    report["calls"] = data.get("calls")
    report.update(_left_out_sections(info, data.get("calls") or {}))
    if data.get("replayed"):
        meta = data["replayed"]
        report["inputs"] = {"recording": str(opts.inputs), "format_version": meta.get("version"),
                            "recorded_with": meta.get("versions"), "driver_started": False}
    report["state"] = data.get("state")
    for key in ("state_observed", "state_notes", "host_set_inputs", "host_branches", "snapshot", "constants",
                "outputs_left_out", "pass_through"):
        if data.get(key):
            report[key] = data[key]
    for row in report.get("state_observed", []):
        if row.get("explained_by") == "no static finding":
            attr = re.split(r"[.\[]", row["owner_path"])[-1].strip("'\"]")
            row["explained_by"] = next((f for f in info.findings if _category(f) == "inplace-state"
                                        and re.search(rf"\b{re.escape(attr)}\b", f)), "no static finding")
    chosen = next((a for a in data["attempts"] if a["outcome"] == "validated"), None)
    last = chosen or deciding_attempt(data["attempts"]) or None
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
        _validated(report, info, chosen, executed, _host_reads(report, data, chosen))
    elif chosen and not bad_parity:
        # validated although host-side lines were listed: validated without them when none of them ran,
        # or when the random draws and I/O reads among them became inputs the host feeds
        reads = _host_reads(report, data, chosen)
        carried = carried_draws(data.get("noise_inputs") or {}) | reads
        if data.get("noise_inputs"):
            used = _graph_inputs(Path(data["published"]) / f"{data['graph']}.yaml")
            noise = data["noise_inputs"]
            report["noise_inputs"] = {p: s for p, s in noise.items() if used is None or p in used}
            unused = sorted(s for p, s in noise.items() if used is not None and p not in used)
            if unused:        # a draw that does not reach the outputs: no input of the export, nothing to feed
                report["noise_not_reaching_outputs"] = unused
            gates = draw_gates(report["noise_inputs"].values())
            if gates:
                report["noise_gates"] = gates
        ran_host = [h for h in info.host_runtime if ran(executed, h) is not False and h.split(" ")[0] not in carried]
        if ran_host:
            mark_partial(report, info.entry, ran_host)
        else:
            _validated(report, info, chosen, executed, reads)
            left = [h for h in info.host_runtime if h.split(" ")[0] not in carried]
            if left:
                report["host_runtime_not_executed"] = left
    else:
        _failed(report, info, data, bad_parity, executed)
    return report


# An I/O call that reads: its value feeds the step, so the export holds for what was read during the run.
_READ_NAME = re.compile(r"(load|read|recv|receive|fromfile|genfromtxt|imread|input|get|subscribe|poll)")


def is_io_read(finding: str) -> bool:
    """An io-in-pipeline finding whose call reads (a file, device, socket or the clock)."""
    if "reads the clock" in finding or WRAPPER_READ_TEXT in finding:
        return True   # the clock, or a project wrapper that reads a message or a device
    m = re.search(r"performs I/O inside the pipeline \((.*?)\);", finding)
    words = re.findall(r"[A-Za-z_]\w*", m.group(1)) if m else []
    if not words or words[-1] == "logging":
        return False
    if words[-1] == "open":
        return not re.search(r"open\([^)]*['\"][wax]", finding)
    return bool(_READ_NAME.match(words[-1]))


def _host_reads(report: dict, data: dict, chosen: dict) -> set[str]:
    """The `path:line` of the I/O reads carried out as graph inputs the host feeds (host_read_inputs,
    put in the report); a read whose input the graph does not use is listed as not reaching the outputs
    (traced as an input that the trace never used, it only reports: droppable, not a domain limit)."""
    reads = data.get("host_read_inputs") or {}
    if not reads:
        return set()
    used = _graph_inputs(Path(data["published"]) / f"{data['graph']}.yaml") if chosen else None
    report["host_read_inputs"] = {p: s for p, s in reads.items() if used is None or p in used}
    if data.get("host_reads_not_carried"):
        report["host_reads_not_carried"] = data["host_reads_not_carried"]
    unused = sorted(s for p, s in reads.items() if used is not None and p not in used)
    if unused:
        report["host_reads_not_reaching_outputs"] = unused
    carried = carried_draws(reads)     # the `open(...)` whose file object a carried read takes goes with it
    return carried | {o for o, r in (data.get("host_read_opens") or {}).items() if r in carried}


def _graph_inputs(yaml_path: Path) -> set[str] | None:
    import yaml

    try:
        doc = yaml.safe_load(yaml_path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None
    return {t["name"] for m in (doc.get("models") or {}).values() for t in m.get("inputs") or []}


def _source_of(info: ModuleInfo, path: str) -> str:
    """The file a finding names (relative to the working directory, the application or its parent)."""
    for base in (Path.cwd(), info.app_root, info.app_root.parent, info.path.parent):
        if (base / path).is_file():
            return str(base / path)
    return ""


def _finding_guard(info: ModuleInfo, finding: str) -> str:
    loc = _loc(finding)
    source = _source_of(info, loc[0]) if loc else ""
    return guard_at(source, loc[1]) if source else ""


# Reads that return text (a file's contents): nothing of what they return becomes a graph input.
_TEXT_READS = frozenset({"open", "read_text", "read_bytes", "read", "readline", "readlines"})


def uncarried_text_read(findings, executed: dict | None, carried: set) -> str:
    """One line naming the first read of a file's text inside the step (`float(open(p).read())`) that
    ran during the recorded calls and that no carried read takes (see draws.opened_for), or ''."""
    for f in findings:
        m = re.search(r"performs I/O inside the pipeline \((.*?)\);", f)
        words = re.findall(r"[A-Za-z_]\w*", m.group(1)) if m else []
        site = f.split(" ")[0]
        if (_category(f) == "io-in-pipeline" and words and words[-1] in _TEXT_READS and is_io_read(f)
                and site not in carried and ran(executed, f)):
            return (f"{site}: the step reads a file's text (`{words[-1]}()`) and computes with what it read: "
                    "text cannot become a graph input the host feeds, and the export would keep the value read "
                    "while traced as a constant; read it with np.loadtxt or json.load (carried as an input) "
                    "or in the host and pass the value as an argument")
    return ""


def domain_limits(info: ModuleInfo, chosen: dict, executed: dict | None,
                  carried: set = frozenset()) -> tuple[list[str], list[str]]:
    """What the checks cannot vouch for beyond the inputs they covered: a tensor branch LEAPP signalled
    in the application, or an unresolved tensor-branch or I/O-read finding on a line that ran; and, apart,
    the tensor branches at checks whose other side only raises (an argument check, an `assert`): every
    input that passes such a check takes the traced side, so they restrict nothing. An I/O read carried out
    as a graph input the host feeds (`carried`) is an input, not a limit."""
    limits, guards = [], []
    for s in chosen.get("signals", []):
        if s.get("signal") == "tensor-branch" and s.get("location") and not s.get("adapter"):
            inside = f" inside {s['library']}, called" if s.get("library") else ""
            at = s.get("library") or s["location"]
            if s.get("guard"):
                guards.append(f"{at} `{s['guard']}`{' (called at ' + s['location'] + ')' if s.get('library') else ''}"
                              f" {_GUARD_NOTE}")
            else:
                limits.append(f"{s['location']} tensor-branch{inside} (LEAPP: {s['message']})")
    seen = {_loc(x) for x in limits} | {_loc(s["location"] + " ") for s in chosen.get("signals", [])
                                         if s.get("guard") and s.get("location")}
    for f in (*info.unresolved, *info.left_out):
        cat = _category(f)
        branch = cat == "tensor-branch"
        read = cat == "io-in-pipeline" and is_io_read(f) and f.split(" ")[0] not in carried
        if (branch or read) and ran(executed, f) is not False and _loc(f) not in seen:
            guard = _finding_guard(info, f) if branch else ""
            if guard:
                guards.append(f"{f.split(' ')[0]} `{guard}` {_GUARD_NOTE}")
            else:
                limits.append(f)
            seen.add(_loc(f))
    return limits, list(dict.fromkeys(guards))   # one note per check, however many signals it raised


_GUARD_NOTE = ("is a check whose other side only raises: inputs that pass it take the traced side, so it "
               "restricts nothing (inputs that fail it raise in the application, not in the export)")


def _domain_checked(validation: dict, calls: dict) -> str:
    more = validation.get("across_run") or {}
    parts = [f"{len(validation.get('calls', []))} fresh calls after the {len(calls.get('traced') or [])} traced ones"]
    later = (more.get("later_calls") or {}).get("calls") or []
    if later:
        parts.append(f"{len(later)} calls sampled every {more.get('sampled_every', 1)} call(s) up to call "
                     f"{later[-1]['call']} of the driver's run")
    if more.get("perturbed"):
        parts.append(f"{more['perturbed']['steps']} inputs varied within their observed ranges")
    if more.get("outside_domain"):
        parts.append(f"not on call(s) {', '.join(map(str, more['outside_domain'][:6]))}, where a host-set value "
                     "read by Python control flow held its other value")
    return ", ".join(parts)


def _validated(report: dict, info: ModuleInfo, chosen: dict, executed: dict | None,
               carried: set = frozenset()) -> None:
    """`validated`, or `restricted` (validated on a restricted domain) while a tensor branch or an I/O
    read remains that the checks could only cover on the inputs they saw."""
    limits, guards = domain_limits(info, chosen, executed, carried)
    limits += list((report.get("host_branches") or {}).values())   # a host flag kept out of the graph
    limits += [f"input {name} held constant (CONSTANT_INPUTS): the export keeps its traced value and the checks "
               "never varied it" for name in info.constant_inputs]
    if guards:
        report["checks_traced"] = guards
    if not limits:
        report["status"] = "validated"
        return
    report["status"] = "restricted"
    checked = _domain_checked(chosen.get("validation") or {}, report.get("calls") or {})
    report["restricted_domain"] = {
        "because": limits, "domain_checked": checked,
        "note": "the model agrees with the application on every check, but a branch taken on tensor data (or a "
                "value read from a file or device) was traced as it was on the traced calls: outside the checked "
                "domain the model may take the other side. Patch the branch (torch.where) or guard the domain."}
    head = limits[0].split(" (LEAPP:")[0] if " (LEAPP:" in limits[0] else " ".join(limits[0].split(" ")[:2])
    report["error"] = f"validated on a restricted domain: {head.removesuffix(', called')} (checked only on {checked})"


_STAGE_ORDER = ("missing dependency", "tracing", "lowering", "validation")


def deciding_attempt(attempts: list[dict]) -> dict:
    """The failed attempt a verdict names: the first one that reached the furthest stage (a later
    exporter failing at the same stage only repeats it in its own words)."""
    if not attempts:
        return {}
    rank = {stage: i for i, stage in enumerate(_STAGE_ORDER)}
    furthest = max(rank.get(a.get("failed_stage") or "", -1) for a in attempts)
    return next(a for a in attempts if rank.get(a.get("failed_stage") or "", -1) == furthest)


def _failed(report: dict, info: ModuleInfo, data: dict, bad_parity: list, executed: dict | None) -> None:
    """No exporter validated: `partial` when host-side lines that executed explain a validation
    failure (values compared and different: not a model its runtime could not load, nor a float32/float64
    mix), else `failed` with the deciding attempt's stage and its first error in full."""
    last = deciding_attempt(data["attempts"])
    stage = last.get("failed_stage")
    host = [h for h in (info.host_runtime or info.left_out) if ran(executed, h) is not False]
    compared = not last.get("dtype_mix_lines") and not any(m in (last.get("reason") or "") for m in MODEL_NOT_LOADED)
    if stage == "validation" and host and not bad_parity and not last.get("spurious_state") and compared \
            and host_explains(last.get("lost_computation") or "", host):
        report["failed_stage"] = stage
        mark_partial(report, info.entry, host)
        return
    report["status"] = "failed"
    report["host_runtime"] = [h for h in info.host_runtime if ran(executed, h) is not False]
    if bad_parity:
        p = bad_parity[0]
        detail = f": {p['error']}" if p.get("error") else ""
        report["error"] = (f"FunctionPatch {p['patch']} ({p['replacement']}) differs from the original (max abs "
                           f"error {p['max_abs_error']:.3g}){detail}; hazards: {', '.join(p['hazards']) or '-'}")
    elif last and model_invalid(last.get("reason")):
        report["invalid_model"] = last.get("reason")
        report["error"] = (f"{last.get('backend')} failed at {stage}: the model it wrote is invalid, so nothing of "
                           f"it ran: {last.get('reason')}")
    elif last:
        report["error"] = f"{last.get('backend')} failed at {stage}: {last.get('reason')}"
        if stage == "lowering" and last.get("graph_error") and last.get("exporter_specific") is False:
            report["error"] = (f"{last.get('backend')} failed at lowering: the traced graph itself fails when torch "
                               f"runs it: {last['graph_error']} (the exporter said: {cut(last.get('reason') or '', 240)})")
        if stage == "tracing" and len(data["attempts"]) == 1 and not last.get("exporter_specific"):
            report["not_retried"] = ("the trace itself failed; every exporter exports the same trace, so no "
                                     "other exporter was tried")
        elif stage == "lowering" and len(data["attempts"]) == 1 and last.get("exporter_specific") is False:
            report["not_retried"] = (f"the traced graph itself fails when torch runs it, outside any exporter "
                                     f"({last.get('graph_error')}); every exporter lowers that graph, so no other "
                                     "exporter was tried")
    else:
        report["error"] = "no exporter was tried"
    lead_with_dtype_mix(report, data["attempts"])      # the cause, whichever attempt found it, leads
    report["explained_by"] = explaining(info, executed, data.get("executed_order"), report.get("state_observed", []))
    if stage:
        report["failed_stage"] = stage
    if last.get("spurious_state"):
        report["spurious_state"] = {
            "outputs": last["spurious_state"],
            "note": "only these state outputs failed LEAPP's validation; the model's outputs agree with the "
                    "application on the fresh calls and the rollout from reset, so no computation was lost: "
                    "the state is spurious (written before it is read, or never read) and should not be exported"}
        report["error"] = f"{last.get('backend')} failed at validation on spurious state: {last.get('reason')}"
    if last.get("lost_computation"):
        report["lost_computation"] = {
            "reason": last["lost_computation"],
            "not_retried": "every exporter exports the same trace, so none can recover the lost computation",
            "explained_by": report["explained_by"] or ["no static finding"],
            "state_observed": [row["owner_path"] for row in report.get("state_observed", [])]}
        report["error"] = f"computation was lost while tracing: {last['lost_computation']}"
        if report["explained_by"] and (stage == "tracing" or " signal: " in last["lost_computation"]
                                       and " signal at " not in last["lost_computation"]):
            # no LEAPP signal names a line (a trace error, or the frozen-constant signal): the scan's first
            report["error"] += f"; first line that can explain it: {report['explained_by'][0].split(': ', 1)[0]}"
    _name_list_join(report, info, last, executed)
    cause = leapp_cause(last)
    op = failing_op(last.get("graph_error") or "") if stage == "lowering" else ""
    if cause and report.get("invalid_model"):
        report["leapp_also_logged"] = cause       # the invalid model is the failure, whatever the trace lost
        report["error"] += f"; LEAPP also logged: {cause}"
    elif cause and not last.get("dropped_inputs") and op and not re.search(rf"\b{re.escape(op)}\b", cause):
        report["leapp_also_logged"] = cause       # about another op than the one the graph fails on
        report["error"] += f"; LEAPP also logged (about another op than the failing {op}): {cause}"
    elif cause and not last.get("dropped_inputs"):
        report["leapp_cause"] = cause
        report["error"] += f"; cause, as LEAPP logged it: {cause}"
    if any(s.get("guard") for s in last.get("signals") or ()):   # checks whose other side only raises:
        report["checks_traced"] = domain_limits(info, last, executed)[1]    # no computation lost there
    if stage == "validation":      # an ignored input leads, then a branch that took another arm
        name_reads(report, last, info.findings, executed)
        branch_arms.lead_with_flip(report, (*info.unresolved, *info.left_out, *info.findings), data, last)



_HOLDER = re.compile(r"^state: \S*?\.(\w+)(?:\[| \()")


def holder_findings(info: ModuleInfo, msg: str) -> list[str]:
    """The scan's findings on the attribute a state refusal names (`state: self.ensembler.chunks (...`):
    the lines that append to, pop from or rebuild the container whose length changes."""
    m = _HOLDER.match(msg)
    if not m:
        return []
    return [f for f in dict.fromkeys((*info.unresolved, *info.left_out, *info.host_runtime))
            if re.search(rf"\bself\.{m.group(1)}\b", f)]


def explaining(info: ModuleInfo, executed: dict | None, order: list[str] | None, state_rows: list[dict]) -> list[str]:
    """The findings that explain a failed attempt or lost computation: those the module leaves unresolved
    (a patch's hazards are resolved; an in-place write the run carried as state is too), on lines that
    executed during the recorded calls, of a kind that loses computation on its way to the outputs (an I/O
    call that only reports does not); ordered by where the data flows through a call (the line that ran
    first is the first cause), then as the module lists them."""
    carried = {row.get("explained_by") for row in state_rows}
    attrs = {re.split(r"[.\[]", row.get("owner_path", ""))[-1].strip("'\"]") for row in state_rows}
    found = []
    for f in dict.fromkeys((*info.unresolved, *info.left_out, *info.host_runtime)):
        cat = _category(f)
        if cat not in _SILENT or f in carried or ran(executed, f) is False:
            continue
        if cat == "inplace-state" and set(re.findall(r"`self\.(\w+)`", f)) & attrs:
            continue                 # the run carried the attribute it writes as state
        if cat == "io-in-pipeline" and not is_io_read(f):
            continue
        found.append(f)
    rank = {f: first_run(order, f) for f in found}
    return sorted(found, key=lambda f: (rank[f] is None, rank[f] or 0))


def _name_list_join(report: dict, info: ModuleInfo, last: dict, executed: dict | None) -> None:
    """An export that every exporter rejects because a NumPy join holds a Python list of traced values
    (`torch.cat` of `[a, [s], b]`): the error names the join's line (from the scan's finding) first."""
    if last.get("failed_stage") != "lowering" or not scalar_list_join.LOWERING_ERROR.search(last.get("reason") or ""):
        return
    joins = [f for f in info.findings if scalar_list_join.PHRASE in f and ran(executed, f) is not False]
    where = (f"at {', '.join(f.split(' ', 1)[0] for f in joins)}" if joins else
             "(no scan finding names the line: look for `np.concatenate([..., [value], ...])`)")
    report["error"] = (f"{last.get('backend')} failed at lowering: a NumPy join holds a Python list of traced values "
                       f"{where}; the exporters take arrays only there (make the values one array first, e.g. "
                       f"`np.reshape(value, (1,))`): {last.get('reason')}")
    report["explained_by"] = joins + [f for f in report.get("explained_by", []) if f not in joins]


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


def write_report(report: dict, out: Path) -> Path:
    out = prepare_out_dir(out)
    target = out / "report.json"
    write_atomic(target, json.dumps(report, indent=2, default=str) + "\n", folder=out)
    return target
