"""Cadence counters: `self.t += 1` whose every read picks *when* or *which*, never *what*: a test (`if self.t %
self.k == 0:` replan), an index into a carried plan (`self.plan[self.t % self.k]`), its own update or reset.
The hazard is the plan the step carries between calls (reported on that state); the counter's uses are not
pipeline data of their own. A counter that feeds a value (`sin(self.t * dt)` into the observation) is not one,
nor one that paces no state (a warm-up countdown choosing the output: its test is the finding)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.walk import is_self_attr

_PASS_THROUGH = (ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Tuple, ast.Slice)


def cadence_counter(ctx, attr: str) -> bool:
    """Is `self.<attr>` of ctx's class a Python counter (see `holds_counter`) whose every read in the
    pipeline is a test, an index, or its own update?"""
    if ctx.cls is None or not ctx.holds_counter(attr):
        return False
    key = ("cadence", ctx.cls.id, attr)
    found = ctx.project.memo.get(key)
    if found is None:
        found = ctx.project.memo[key] = _only_cadence_reads(ctx, attr)
    return found


def _only_cadence_reads(ctx, attr: str) -> bool:
    reads = [r for klass in ctx.project.mro(ctx.cls) for r in ctx.facts.attr_reads.get(klass.id, {}).get(attr, ())]
    if not reads or _counts_data(ctx, attr):
        return False
    paces = False
    for fid in {fid for fid, _ in reads}:
        module, _, qualname = fid.partition(":")
        fn = ctx.project.modules[module].functions.get(qualname) if module in ctx.project.modules else None
        if fn is None or not fn.positional_params:
            return False
        self_name = fn.positional_params[0]
        parents = parent_map(fn)
        for node in fn.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr == attr \
                    and is_self_attr(node, self_name):
                use = _cadence_use(node, parents, attr, self_name)
                if use is None:
                    return False
                paces = paces or use
    return paces


def _counts_data(ctx, attr: str) -> bool:
    """Is a write of the counter under a test of anything but attributes of self (`if fear > 0.5: self.n += 1`):
    then it counts events in the data, and it is data itself."""
    for klass in ctx.project.mro(ctx.cls):
        for fn in klass.methods.values():
            self_name = fn.positional_params[0] if fn.positional_params else None
            parents = parent_map(fn)
            for node in fn.nodes:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                    if isinstance(node, ast.AugAssign) else []
                if not any(is_self_attr(t, self_name) and t.attr == attr for t in targets):
                    continue
                child, parent = node, parents.get(id(node))
                while parent is not None:
                    if isinstance(parent, (ast.If, ast.While)) and child is not parent.test and any(
                            isinstance(n, ast.Call) or isinstance(n, ast.Name) and n.id != self_name
                            for n in ast.walk(parent.test)):
                        return True
                    child, parent = parent, parents.get(id(parent))
    return False


def _cadence_use(node: ast.Attribute, parents: dict, attr: str, self_name: str) -> bool | None:
    """The read sits (through arithmetic, comparisons, `and`/`not`) in an `if`/`while` test, the index of a
    subscript read, or the value of a write to the counter itself (the slot a ring buffer writes is state); True when it paces other state (the test's block
    writes another attribute of self, the index picks a row of one), None for any other read."""
    child, parent = node, parents.get(id(node))
    while isinstance(parent, _PASS_THROUGH):
        child, parent = parent, parents.get(id(parent))
    if isinstance(parent, (ast.If, ast.While)) and child is parent.test:
        return any(is_self_attr(t, self_name) and t.attr != attr for stmt in parent.body for n in ast.walk(stmt)
                   if isinstance(n, (ast.Assign, ast.AugAssign))
                   for target in (n.targets if isinstance(n, ast.Assign) else [n.target]) for t in ast.walk(target))
    if isinstance(parent, ast.Subscript) and child is parent.slice:   # a row of the carried plan, read
        return is_self_attr(parent.value, self_name) if isinstance(parent.ctx, ast.Load) else None   # a ring's slot
    if isinstance(parent, (ast.Assign, ast.AugAssign)) and child is parent.value:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return False if all(is_self_attr(t, self_name) and t.attr == attr for t in targets) else None
    return None


def cadence_test(test: ast.expr, ctx) -> bool:
    """A test whose only pipeline data is cadence counters (`self.t % self.k == 0`): no call, no data name."""
    attrs = [n for n in ast.walk(test) if is_self_attr(n, ctx.self_name)]
    if not any(cadence_counter(ctx, a.attr) for a in attrs):
        return False
    if any(isinstance(n, ast.Call) for n in ast.walk(test)):
        return False
    if any(isinstance(n, ast.Name) and n.id != ctx.self_name and ctx.is_data(n) for n in ast.walk(test)):
        return False
    return all(cadence_counter(ctx, a.attr) or not ctx.is_data(a) for a in attrs)


def cadence_guard(ctx, node: ast.AST) -> tuple[ast.If, list[str], list[int]] | None:
    """The enclosing `if` whose test is a cadence test (`if self.t % self.k == 0: self.plan = model(obs)`), the
    counters it reads and the lines of this function that read or write them; None outside such a block."""
    parents = parent_map(ctx.fn)
    parent = parents.get(id(node))
    while parent is not None and not (isinstance(parent, ast.If) and cadence_test(parent.test, ctx)):
        parent = parents.get(id(parent))
    if parent is None:
        return None
    counters = sorted({n.attr for n in ast.walk(parent.test) if is_self_attr(n, ctx.self_name)
                       and cadence_counter(ctx, n.attr)})
    lines = sorted({n.lineno for n in ctx.fn.nodes if is_self_attr(n, ctx.self_name) and n.attr in counters})
    return parent, counters, lines
