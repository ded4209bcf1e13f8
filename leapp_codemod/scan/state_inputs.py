"""Where recurrent state enters the step. A state finding sits on the write (what `update_state` must capture
after the call: the state output); the first read in the call that sees the value the previous call left is
the state input (what `state_tensors` declares before the call). The finding carries that read as a related
location, so a user sees both ends of the state in one finding (no second finding on the read: the public
corpus marks such a read clean, the hazard being the write-back)."""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.model.walk import is_self_attr
from leapp_codemod.model import Finding

# Rules whose findings are writes of state a later call reads.
STATE_WRITE_RULES = frozenset({"LCM701", "LCM702"})


def with_state_input(finding: Finding, node: ast.AST, ctx, analysis) -> Finding:
    """The finding with the state's first carried read attached (`related`), when the order of the call is
    known and the read is elsewhere than the write itself."""
    order = analysis.facts.access
    write = ctx.state_write(node) if order is not None else None
    if write is None:
        return finding
    attr = write[0]
    keys = [(ctx.fn.id, attr)] if attr in ctx.fn.carried else \
        [(klass.id, attr) for klass in analysis.project.mro(ctx.cls)] if ctx.cls is not None and attr.isidentifier() \
        else []
    reads = [order.first_read[k] for k in keys if k in order.first_read]
    if not reads:
        return finding
    _, fid, line = min(reads)
    fn = analysis.reachable.get(fid)
    if fn is None or (fn.path == finding.path and finding.line <= line <= finding.end_line):
        return finding
    column = _column(fn, attr, line, carried=attr in ctx.fn.carried)
    module = analysis.project.modules[fn.module]
    note = (f"state input: the step first reads `{_shown(attr, fn, carried=attr in ctx.fn.carried)}` here, the "
            "value the previous call left (declare it with `state_tensors` before the call; this write is what "
            "`update_state` takes after it)")
    return replace(finding, related=((fn.path, line, module.column(line, column), note),))


def _column(fn, attr: str, line: int, carried: bool) -> int:
    self_name = fn.positional_params[0] if fn.positional_params else None
    for node in fn.nodes:
        if getattr(node, "lineno", None) != line:
            continue
        if carried and isinstance(node, ast.Name) and node.id == attr:
            return node.col_offset
        if not carried and isinstance(node, ast.Attribute) and node.attr == attr and is_self_attr(node, self_name):
            return node.col_offset
    return 0


def _shown(attr: str, fn, carried: bool) -> str:
    if carried:
        return attr
    return f"{fn.positional_params[0] if fn.positional_params else 'self'}.{attr}"
