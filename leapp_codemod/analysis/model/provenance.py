"""Where a `self` attribute's value comes from: provenance over the callback code of a class.

A step without data parameters (a timer callback, a `step(self)` poll, a thread body) reads its inputs from
attributes of self that other code of the class fills. Such an attribute is pipeline data only when some write
to it derives from data:

* a parameter of a callback (the message a subscriber hands in), or a helper's parameter some call of the
  callback code passes data to;
* a read from an object on self that the class does not compute itself (`self.port.readline()`,
  `self.arm.get_state()`, a model loaded from a file, a project object whose method reads such an object);
* another data attribute, or a local bound from any of these.

A write of a constant, a setting (`self.cfg.gain`, a node parameter), a clock reading or the attribute's own
arithmetic (`self.ticks += 1`) carries no data. A changing write under a branch that data decides
(`if msg.button: self.speed += 0.1`) does: the message picks what the attribute holds.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.knowledge.io import CLOCK_FACTORIES, MIDDLEWARE_FACTORIES
from leapp_codemod.knowledge.vocab import PARAMETER_READERS, WRITING_METHODS

# Methods of a node base class that hand the host's settings, handles, clock or logger, never an input.
HOST_METHODS = PARAMETER_READERS | MIDDLEWARE_FACTORIES | CLOCK_FACTORIES | frozenset({"get_logger", "get_name",
                                                                                      "get_namespace"})
# Methods that look a setting up or copy a value without reading anything outside the program.
LOOKUP_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__getitem__", "setdefault", "index", "count"})


@dataclass(frozen=True)
class Sources:
    """What counts as a read from outside the class's own computation, asked of `self.<attr>`."""

    reads: Callable[[str, str], bool]          # (attr, method): does `self.<attr>.<method>(...)` read an input?
    device: Callable[[str], bool]              # does a field of `self.<attr>` change by itself (a device object)?
    clock: Callable[[ast.Call], bool]          # is the call a clock reading?
    constant_like: Callable[[ast.expr], bool]  # a constant, a named constant or a toggled flag


@dataclass
class _Method:
    info: FunctionInfo
    self_name: str | None
    bound: dict[str, str]      # parameter -> attribute of self it is bound to by the calls (`self._fill(self.arm)`)
    data_params: set[str]


def _self_name(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _self_attr(expr: ast.expr | None, self_name: str | None) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
        return expr.attr
    return None


class Provenance:
    """The data attributes of one class, computed to a fixpoint over its callback code (`closure`: method name
    -> parameters bound to attributes; `messages`: the methods whose free parameters are messages)."""

    def __init__(self, cls: ClassInfo, closure: dict[str, dict[str, str]], messages: set[str], sources: Sources,
                 write_root: Callable[[ast.expr, str | None, dict[str, str]], str | None]):
        self.cls = cls
        self.sources = sources
        self.write_root = write_root
        self.methods: dict[str, _Method] = {}
        for name, bound in closure.items():
            info = cls.methods[name]
            params = [a.arg for a in (*info.node.args.posonlyargs, *info.node.args.args)[1:]]
            free = set(params) - set(bound) if name in messages else set()
            self.methods[name] = _Method(info, _self_name(info.node), bound, free)
        self.data: set[str] = set()
        self._returns: dict[str, bool] = {}

    def attributes(self) -> set[str]:
        changed = True
        while changed:
            changed = False
            self._returns.clear()
            for method in self.methods.values():
                before = (len(self.data), sum(len(m.data_params) for m in self.methods.values()))
                self._visit(method)
                if (len(self.data), sum(len(m.data_params) for m in self.methods.values())) != before:
                    changed = True
        return self.data

    # ------------------------------------------------------------------ one method
    def _visit(self, m: _Method) -> None:
        tainted = self._locals(m)
        for stmt, tests in _statements(m.info.node.body, ()):
            under_data = any(self._derives(t, m, tainted) for t in tests)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
                carries = self._derives(stmt.value, m, tainted) or under_data and not (
                    isinstance(stmt, ast.Assign | ast.AnnAssign) and self.sources.constant_like(stmt.value)
                    or isinstance(stmt.value, ast.Call) and self.sources.clock(stmt.value))
                if carries:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    for target in targets:
                        for elt in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                            root = self.write_root(elt, m.self_name, m.bound)
                            if root:
                                self.data.add(root)
        for node in m.info.nodes:
            if not isinstance(node, ast.Call):
                continue
            callee = _self_attr(node.func, m.self_name)
            if callee in self.methods:   # a helper of the callback code: what it is handed
                self._bind_params(self.methods[callee], node, m, tainted)
            elif isinstance(node.func, ast.Attribute):
                receiver = _self_attr(node.func.value, m.self_name)
                if receiver and receiver not in self.cls.methods and any(
                        self._derives(a, m, tainted) for a in (*node.args, *(k.value for k in node.keywords))):
                    self.data.add(receiver)   # `self.remote.set(msg.keys)`: its state comes from the data

    def _bind_params(self, callee: _Method, call: ast.Call, caller: _Method, tainted: set[str]) -> None:
        params = [a.arg for a in (*callee.info.node.args.posonlyargs, *callee.info.node.args.args)[1:]]
        for param, arg in zip(params, call.args):
            if isinstance(arg, ast.Starred):
                break
            if param not in callee.bound and self._derives(arg, caller, tainted):
                callee.data_params.add(param)
        for keyword in call.keywords:
            if keyword.arg in params and keyword.arg not in callee.bound and self._derives(keyword.value, caller, tainted):
                callee.data_params.add(keyword.arg)

    def _locals(self, m: _Method) -> set[str]:
        """Local names bound (anywhere in the method, flow-insensitively) from data."""
        tainted = set(m.data_params) | {p for p, attr in m.bound.items() if attr in self.data}
        size = -1
        while size != len(tainted):
            size = len(tainted)
            for node in m.info.nodes:
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                    targets, value = (node.targets if isinstance(node, ast.Assign) else [node.target]), node.value
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                    targets, value = [node.target], node.iter
                elif isinstance(node, ast.NamedExpr):
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                    targets, value = [node.optional_vars], node.context_expr
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.attr in WRITING_METHODS:
                    targets, value = [node.func.value], ast.Tuple([*node.args, *(k.value for k in node.keywords)],
                                                                  ast.Load())   # `picked.append(msg.position[i])`
                else:
                    continue
                names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} - tainted
                if names and self._derives(value, m, tainted):
                    tainted |= names
        return tainted

    # ------------------------------------------------------------------ one expression
    def _derives(self, expr: ast.expr, m: _Method, tainted: set[str]) -> bool:
        pending: list[ast.AST] = [expr]
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Name):
                if node.id in tainted:
                    return True
                continue
            if isinstance(node, (ast.Lambda, ast.FunctionDef)):
                continue
            attr = _self_attr(node, m.self_name) if isinstance(node, ast.Attribute) else None
            if attr is not None:
                if attr in self.data:
                    return True
                continue
            if isinstance(node, ast.Attribute):
                holder = _self_attr(node.value, m.self_name)
                if holder is not None and holder not in self.cls.methods and self.sources.device(holder):
                    return True   # `self.joystick.axis_x`: a field the device refreshes
            if isinstance(node, ast.Call):
                if self.sources.clock(node):
                    continue      # the host's time, not a value of the data
                if self._call_reads(node, m):
                    return True
            pending.extend(ast.iter_child_nodes(node))
        return False

    def _call_reads(self, call: ast.Call, m: _Method) -> bool:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return False
        own = _self_attr(func, m.self_name)
        if own is not None:    # a method the class does not define (a library base's, `self.read_sensor()`) may read
            return self._returns_data(own) if own in self.cls.methods else own not in HOST_METHODS
        holder = _self_attr(func.value, m.self_name)
        return holder is not None and holder not in self.cls.methods and holder not in self.data \
            and self.sources.reads(holder, func.attr)

    def _returns_data(self, name: str) -> bool:
        """Does `self.<name>(...)` give data whatever it is passed (it reads an input, or a data attribute)?"""
        known = self._returns.get(name)
        if known is not None:
            return known
        self._returns[name] = False    # a recursive method is not proven by itself
        info = self.cls.methods[name]
        m = self.methods.get(name) or _Method(info, _self_name(info.node), {}, set())
        probe = _Method(info, m.self_name, m.bound, set())
        tainted = self._locals(probe)
        verdict = any(isinstance(n, ast.Return) and n.value is not None and self._derives(n.value, probe, tainted)
                      for n in info.nodes)
        self._returns[name] = verdict
        return verdict


def _statements(body: list[ast.stmt], tests: tuple[ast.expr, ...]):
    """Every statement of a body with the tests of the `if`/`while` statements around it (not into nested
    functions)."""
    for stmt in body:
        yield stmt, tests
        if isinstance(stmt, (ast.If, ast.While)):
            yield from _statements(stmt.body, (*tests, stmt.test))
            yield from _statements(stmt.orelse, (*tests, stmt.test))
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            yield from _statements(stmt.body, tests)
            yield from _statements(getattr(stmt, "orelse", []), tests)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from _statements(part, tests)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                yield from _statements(case.body, (*tests, stmt.subject))
