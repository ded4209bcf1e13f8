"""The text summary of a `run` report (what the terminal shows)."""
from __future__ import annotations

from leapp_codemod.runner.errors import cut


def summary_lines(report: dict) -> list[str]:
    lines = []
    status = report["status"]
    if status in ("validated", "restricted"):
        worst = _worst(report.get("validation", {}))
        sub = " (substitute format)" if report.get("substitute") else ""
        head = "validated" if status == "validated" else "validated on a restricted domain"
        lines.append(f"{head}: {report['entry']} exported with {report.get('backend')}{sub}; {worst}")
        restricted = report.get("restricted_domain") or {}
        for because in restricted.get("because", []):
            lines.append(f"  restricted by: {because}")
        if restricted:
            lines.append(f"  domain checked: {restricted['domain_checked']}")
        for check in report.get("checks_traced", []):
            lines.append(f"  note: {check}")
        for a in report.get("attempts", []):
            if a.get("outcome") == "validated" and a.get("starting_state_note"):
                lines.append(f"  starting state: {a['starting_state_note']}")
        lines.append(f"  graph: {report['graph_yaml']}")
        for m in report["models"]:
            lines.append(f"  model: {m}")
        for port, site in (report.get("noise_inputs") or {}).items():
            lines.append(f"  noise input {port}: the draw at {site}, fed by the host (its own generator)")
        for site in report.get("noise_not_reaching_outputs") or []:
            lines.append(f"  draw at {site}: does not reach the outputs, so it is no input of the export")
        for port, site in (report.get("host_read_inputs") or {}).items():
            lines.append(f"  host read input {port}: the read at {site}, fed by the host (read on every call)")
        for field, site in (report.get("pass_through") or {}).items():
            lines.append(f"  pass-through {field}: changes between calls; read only at {site}, where the step copies "
                         "it into what it returns or sends (kept out of the graph: the host carries it over)")
    else:
        lines.append(f"{status}: {report.get('error', '')}")
        for s in report.get("stubs", []):
            lines.append(f"  {s['at']}: stub {s['function']} (patches {', '.join(s['patches'])}) is not written; "
                         f"hazard(s): {'; '.join(s['hazards']) or 'see the module header'}")
            if s.get("blocked"):
                lines.append(f"    no twin: {s['blocked']}")
        for h in report.get("host_runtime", []):
            lines.append(f"  host runtime: {h}")
        for check in report.get("checks_traced", []):
            lines.append(f"  note: {check}")
    for loc, text in (report.get("noise_gates") or {}).items():
        lines.append(f"  noise setting: {loc}: {text}")
    for a in report.get("attempts", []):
        line = f"{a['backend']} failed at {a.get('failed_stage')}: {a.get('reason')}"
        if a.get("outcome") != "validated" and line != report.get("error"):
            lines.append(f"  attempt {line}")
    if report.get("not_retried"):
        lines.append(f"  not retried: {report['not_retried']}")
    for c in report.get("findings_confirmed", []) if status != "validated" else []:
        ev = c["evidence"][0]
        lines.append(f"  confirmed: {c['finding']} ({ev['signal']}{' at ' + ev['at'] if ev['at'] else ''})")
    for s in report.get("hazard_signals", []):
        if s.get("location") and not any(s.get("location") == e.get("at") for c in report.get("findings_confirmed", [])
                                         for e in c["evidence"]):
            origin = f"inside {s['adapter']}, called at {s['location']}" if s.get("adapter") else f"at {s['location']}"
            lines.append(f"  LEAPP {s['signal']} {origin}: {cut(s['message'], 160)}")
    checked = [r for r in report.get("twin_check", []) if r.get("samples")]
    if checked and all(r.get("ok") for r in report.get("twin_check", [])):
        by_value = [r for r in checked if r.get("traced") is None and r.get("note")]
        lines.append(f"  pre-trace check: {len(checked)} replacement(s) agree with the originals on "
                     f"{sum(r['samples'] for r in checked)} recorded and perturbed inputs"
                     + (f" ({len(by_value)} by value only: {by_value[0]['note']})" if by_value else ""))
    for p in report.get("patch_parity", []):
        state = "ok" if p.get("ok") else "MISMATCH"
        lines.append(f"  patch {p['patch']}: parity {state} on {p['calls']} calls "
                     f"(max abs error {p['max_abs_error']:.3g}){' ' + p['error'] if p.get('error') else ''}")
    if status != "validated":
        lines.extend(f"  state: {note}" for note in report.get("state_notes", []) if "changes length" in note)
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
    more = validation.get("across_run") or {}
    later = (more.get("later_calls") or {}).get("calls") or []
    if later:
        extra += f"; {len(later)} calls sampled across the run ok"
    if more.get("perturbed"):
        extra += f"; {more['perturbed']['steps']} varied inputs ok"
    return f"{n} fresh calls, worst output {name!r} max abs error {row['max_abs_error']:.3g}{extra}"
