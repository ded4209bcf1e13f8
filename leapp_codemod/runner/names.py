"""Checks on the names an integration module gives the runner, before any path is built from them.

GRAPH becomes directories under --out (LEAPP allows `sub/graph`), NODE a LEAPP node name (no `/`),
ENTRY a `module:qualname` (or an inline `FILE:START-END`, read only), INPUTS and STATE names LEAPP ports (identifiers). A module edited into
`GRAPH = "../../home"` must never make `run` write or delete outside --out.
"""
from __future__ import annotations

import keyword
import re

from leapp_codemod.analysis.inline.range import parse_inline_entry
from leapp_codemod.knowledge.leapp import EXPORTERS

_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _identifier(name) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def problems(values: dict) -> list[str]:
    """Why each given name is unusable (empty when all are fine). Keys: GRAPH, NODE, ENTRY,
    EXPORT_WITH, INPUTS, STATE; missing keys are not checked."""
    out = []
    if "GRAPH" in values:
        graph = values["GRAPH"]
        parts = graph.split("/") if isinstance(graph, str) else []
        if not parts or any(not _SEGMENT.fullmatch(p) or set(p) == {"."} for p in parts):
            out.append(f"GRAPH {graph!r} must be a relative name made of letters, digits, '_', '.', '-' "
                       "(directories separated by '/', no '..')")
    if "NODE" in values:
        node = values["NODE"]
        if not isinstance(node, str) or not _SEGMENT.fullmatch(node) or set(node) == {"."}:
            out.append(f"NODE {node!r} must be made of letters, digits, '_', '.', '-' (no '/')")
    if "ENTRY" in values:
        entry = values["ENTRY"]
        module, sep, qualname = entry.partition(":") if isinstance(entry, str) else ("", "", "")
        inline = isinstance(entry, str) and parse_inline_entry(entry) is not None
        if not inline and (not sep or not _DOTTED.fullmatch(module) or not _DOTTED.fullmatch(qualname)):
            out.append(f"ENTRY {entry!r} must be MODULE:QUALNAME (dotted Python names) or FILE:START-END")
    if "EXPORT_WITH" in values and values["EXPORT_WITH"] not in EXPORTERS:
        out.append(f"EXPORT_WITH {values['EXPORT_WITH']!r} must be one of {', '.join(EXPORTERS)}")
    if "INPUTS" in values:
        inputs = values["INPUTS"]
        if not isinstance(inputs, (tuple, list)) or not all(_identifier(n) for n in inputs):
            out.append(f"INPUTS {inputs!r} must be a tuple of parameter names")
    if "STATE" in values:
        state = values["STATE"]
        if not isinstance(state, dict) or not all(_identifier(n) for n in state):
            out.append("STATE names must be Python identifiers (they become LEAPP state ports)")
    return out
