"""What `generate` needs from an inline entry (`FILE:START-END`): the range's inputs, constants,
outputs and carried state, read from the driver's source (see `analysis.inline_range`)."""
from __future__ import annotations

import re
from pathlib import Path

from leapp_codemod.analysis.inline.boundary_plan import plan_boundary
from leapp_codemod.boundary import fresh_port
from leapp_codemod.analysis.inline.range import (
    InlineEntry,
    InlineRange,
    RangeError,
    read_range,
)
from leapp_codemod.generate.source_info import EntrySource, OutputLeaf, Param

# Names the generated `step` function uses itself: a range value named like one would shadow it.
_STEP_NAMES = frozenset({"entry", "state_refs", "annotate", "result", "NODE", "EXPORT_WITH", "read_state",
                         "named_outputs", "exportable", "write_state"})
STATE_OWNER = "leapp_codemod.runner.inline:InlineState"   # the run-time holder of carried values
DRIVER_MAIN = "__main__"    # where the running driver's own bindings live (FunctionPatch module)


class InlineSpecError(Exception):
    """The range cannot be exported as it is (one line naming the file)."""


def read_inline(inline: InlineEntry) -> InlineRange:
    path = Path(inline.file)
    if not path.is_file():
        raise InlineSpecError(f"{inline.file}: no such file (--entry {inline.text})")
    try:
        _, rng = read_range(inline.file, path.read_text(encoding="utf-8"), inline.start, inline.end)
    except (RangeError, UnicodeDecodeError) as exc:
        raise InlineSpecError(str(exc)) from None
    return rng


def inline_entry_source(inline: InlineEntry, module: str) -> tuple[EntrySource, InlineRange]:
    """The range as the entry `run` calls: after the boundary is placed (`plan_boundary`: computations
    on a step counter run on the host, attribute reads of an input object are inputs)."""
    plan = plan_boundary(read_inline(inline))
    rng = plan.rng
    where = f"{inline.file}:{inline.start}-{inline.end}"
    clash = sorted(_STEP_NAMES & {*rng.inputs, *rng.constants, *rng.outputs, *rng.state})
    if clash:
        raise InlineSpecError(f"{where}: the range uses {', '.join(clash)}, a name the integration's step "
                              "function needs; rename it in a copy of the range or choose another range")
    if not rng.inputs:
        raise InlineSpecError(f"{where}: the range reads no value that changes between iterations "
                              "(nothing to export as an input); start the range where the observation is read")
    if not rng.outputs:
        raise InlineSpecError(f"{where}: no value the range assigns is used after it (nothing to export as an "
                              "output); end the range with the assignment of the action")
    leaves, used = [], set(rng.inputs) | set(rng.state)
    for i, name in enumerate(rng.outputs):
        label = fresh_port(name, used)
        used.add(label)
        leaves.append(OutputLeaf(label, f"result[{i}]"))
    expr = "{" + ", ".join(f'"{leaf.name}": {leaf.access}' for leaf in leaves) + "}"
    params = tuple(Param(n, False) for n in rng.inputs) + tuple(Param(n, True) for n in rng.constants)
    entry = EntrySource(module=module, qualname=rng.label, path=Path(inline.file), line=inline.start,
                        is_method=False, params=params, outputs=tuple(leaves), outputs_expr=expr,
                        note="; ".join(plan.notes))
    return entry, rng


def carried_names(rng: InlineRange, entry: EntrySource) -> list[tuple[str, str]]:
    """(state name, variable) of the values the range carries across iterations: the variable's name unless
    a port of the export holds it or the graph may name one of its own values so (`boundary.fresh_port`)."""
    used = {p.name for p in entry.params} | {leaf.name for leaf in entry.outputs}
    names = []
    for variable in rng.state:
        name = fresh_port(variable, used, "_state")
        used.add(name)
        names.append((name, variable))
    return names


def inline_graph_name(inline: InlineEntry) -> str:
    return re.sub(r"[^0-9a-zA-Z_]", "_", Path(inline.file).stem) + "_pipeline"
