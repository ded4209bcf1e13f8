"""A partial pipeline: host-side lines (random draws, I/O reads, shape-specialized code) that executed during the
recorded calls explain why the export did not validate; they stay in the host runtime and the report proposes
where to cut."""
from __future__ import annotations

import re

from leapp_codemod.runner.draws import RANDOM_CATEGORY, gate


def draw_gates(sites) -> dict:
    """`path:line` -> the setting whose value removes the random draw there (see draws.gate)."""
    out = {}
    for site in sites:
        loc = site.split(" ")[0]
        path, _, line = loc.rpartition(":")
        if line.isdigit():
            text = gate(path, int(line))
            if text:
                out[loc] = text
    return out


def mark_partial(report: dict, entry: str, host: list[str]) -> None:
    """I/O, random draws or shape-specialized code that executed during the recorded calls kept the
    export from validating: it feeds the outputs, so it stays in the host runtime."""
    report["host_runtime"] = host
    gates = draw_gates(h for h in host if f" {RANDOM_CATEGORY}" in h)
    if gates:
        report["noise_gates"] = gates
    report["status"] = "partial"
    report["error"] = (f"partial pipeline: {len(host)} part(s) that executed during the recorded calls must stay "
                       "in the host runtime (see host_runtime)")
    report["proposed_split"] = proposed_split(entry, host)


_LOST_AT = re.compile(r" signal at (\S+:\d+):")


def host_explains(lost: str, host: list[str]) -> bool:
    """Whether host-side lines can explain the attempt given what the trace lost: yes when it lost nothing, or
    LEAPP's signal is on one of them; a computation lost elsewhere (a frozen `.item()` branch) stays lost
    whatever the host runs, so the export fails (and the progress line that said so stands)."""
    if not lost:
        return True
    where = _LOST_AT.search(lost)
    return bool(where) and where.group(1) in {h.split(" ")[0] for h in host}


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
