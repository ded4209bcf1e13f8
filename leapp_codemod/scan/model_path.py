"""Which statements of the pipeline lie on the model's path, across the functions the entry reaches.

The export is what turns the observation into the model's input, the model, and what turns its output into the
action. A statement is on that path when it binds or fills a value that reaches a model call's arguments or what
the pipeline hands on (the entry's results, a send of what the model computed, the returns a caller keeps), when it
runs a model, or when it is a send of what the model computed; a branch, loop, `with` or `try` is on it when its
block holds such a statement. Everything else the step runs is the host's: a stand-up interpolation published
through its own channel, a gate that returns before the model runs (`if goal is None: return`), a success check
whose answer only decides whether to run at all, a mode manager's bookkeeping.

The slice is flow-insensitive and by name (`self.x` by the class family's `x`, `holder.x` by `x`, deeper fields by
their holder's attribute and theirs), so it keeps too much rather than too little; calls it cannot follow carry
their receiver and arguments into their result, and functions it sees no call of are kept whole. A print or a log
of pipeline values is reported where it is and puts nothing else on the path. When no model call is found in the
reached code, nothing is decided (every finding is kept).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.entry.loops import model_call
from leapp_codemod.analysis.entry.signs import calls_nn_module, unfollowed_policy_call
from leapp_codemod.analysis.infer.devices import device_handle
from leapp_codemod.source.astwalk import statement_heads
from leapp_codemod.analysis.infer.unused_positions import PINNED_KEY
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.runtime_bind import RESOLUTIONS_KEY
from leapp_codemod.knowledge.actuation import named_as_send
from leapp_codemod.knowledge.io import LOG_FUNCTION_PREFIXES, LOGGING_METHODS, SEND_METHOD_NAMES, STEP_STOPPERS
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS
from leapp_codemod.scan.path_keys import (
    NESTED,
    KeySet,
    Scope,
    reads_meet,
    reads_of,
    writes_meet,
    writes_of,
)

ALL = -1   # every position of a returned value
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")


@dataclass
class _Call:
    node: ast.Call
    targets: list[FunctionInfo]
    args: dict[str, set]          # callee parameter -> keys read by the argument bound to it (per target, merged)
    arg_nodes: dict[tuple[str, str], ast.expr] = field(default_factory=dict)   # (callee, parameter) -> argument
    result_positions: dict[int, set] = field(default_factory=dict)   # position -> keys it binds (ALL: whole)
    scope: Scope | None = None
    # an unresolved method of an object that is neither a module nor the data (`robot.movej(q)`,
    # `status = client.send(cmd)`): keys its arguments read, a send whatever is done with its result
    handed: set = field(default_factory=set)


@dataclass
class _State:
    needed: KeySet = field(default_factory=lambda: KeySet())   # keys whose value reaches a model or a kept result
    sent: KeySet = field(default_factory=lambda: KeySet())     # keys whose value reaches a send of its output
    computed: KeySet = field(default_factory=lambda: KeySet())  # keys computed from a model's result
    derived: KeySet = field(default_factory=lambda: KeySet())   # keys computed from what feeds a model
    kept: dict[str, set[int]] = field(default_factory=dict)   # fid -> positions of its return callers keep
    forward_returns: set[str] = field(default_factory=set)    # functions returning what a model computed
    own_path: set[str] = field(default_factory=set)   # functions on the path whatever their callers hand them
    relevant: dict[str, set[int]] = field(default_factory=dict)   # fid -> id() of its units on the path
    reports: dict[str, set[int]] = field(default_factory=dict)    # fid -> id() of its logs of input-derived values

    def size(self) -> tuple:
        return (len(self.needed), len(self.sent), len(self.computed), len(self.derived), sum(map(len, self.kept.values())),
                len(self.forward_returns), len(self.own_path), sum(map(len, self.relevant.values())))


@dataclass
class _Unit:
    """One statement (or the head of a compound one) as the slice sees it."""

    node: ast.stmt
    first: int
    last: int
    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    calls: list[_Call] = field(default_factory=list)
    model: bool = False
    returns: list[tuple[int, set]] | None = None   # a return: (position or ALL, keys) per returned element
    sink: bool = False      # a call statement whose result nobody binds: a send, a log, a method with effects
    log: bool = False       # a print or a logger's call: reports what it reads, decides nothing
    block: list[_Unit] = field(default_factory=list)


class _Slicer:
    def __init__(self, analysis, functions: list[FunctionInfo]):
        self.analysis = analysis
        self.functions = {fn.id: fn for fn in functions}
        self.units: dict[str, list[_Unit]] = {}
        self.flat: dict[str, list[_Unit]] = {}
        self.pinned = analysis.project.memo.get(PINNED_KEY, {})
        for fn in functions:
            ctx = analysis.context(fn)
            names = set(fn.params) | {n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            names -= {name for n in fn.nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
            scope = Scope(frozenset(names), ctx.self_name, _family(analysis.project, ctx.cls))
            self.units[fn.id] = [u for s in fn.node.body for u in self._units(ctx, fn, scope, s)]
            self.flat[fn.id] = list(self._flatten(self.units[fn.id]))
        self._argument_fills()
        called = {t.id for units in self.flat.values() for u in units for c in u.calls for t in c.targets}
        # run through a path the slice does not see (`map(self.f, xs)`, a thread's target, a callback): whatever
        # they do counts
        self.unseen = set(self.functions) - called

    # building units -------------------------------------------------------------------------------------
    def _units(self, ctx, fn: FunctionInfo, scope: Scope, stmt: ast.stmt) -> list[_Unit]:
        if isinstance(stmt, NESTED):
            return []
        fid = fn.id
        end = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
        blocks = [s for name in _BLOCK_FIELDS for s in getattr(stmt, name, []) or []]
        if isinstance(stmt, ast.ExceptHandler) or blocks:
            heads = self._head(stmt)
            first = min((h.lineno for h in heads), default=stmt.lineno)
            last = max((h.end_lineno or h.lineno for h in heads), default=stmt.lineno)
            unit = _Unit(stmt, first, last)
            for head in heads:
                unit.reads |= reads_of(fid, scope, head)
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                unit.writes |= writes_of(fid, scope, stmt.target)
            for item in getattr(stmt, "items", ()):
                if item.optional_vars is not None:
                    unit.writes |= writes_of(fid, scope, item.optional_vars)
            if isinstance(stmt, ast.ExceptHandler) and stmt.name:
                unit.writes.add((fid, stmt.name))
            self._add_calls(ctx, fn, scope, unit, heads, stmt)
            for child in blocks:
                unit.block += self._units(ctx, fn, scope, child)
            return [unit]
        unit = _Unit(stmt, stmt.lineno, end)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = stmt.value
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            unit.reads = reads_of(fid, scope, value)
            for target in targets:
                unit.writes |= writes_of(fid, scope, target)
                if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                    unit.reads |= reads_of(fid, scope, target)   # `buf[i] = v` reads i; `self.x.y = v` reads x
            if isinstance(stmt, ast.AugAssign):
                unit.reads |= unit.writes
        elif isinstance(stmt, ast.Return):
            unit.reads = reads_of(fid, scope, stmt.value)
            value = stmt.value
            if value is None or (isinstance(value, ast.Constant) and value.value is None):
                unit.returns = []
            elif isinstance(value, ast.Tuple):
                unit.returns = [(i, reads_of(fid, scope, e)) for i, e in enumerate(value.elts)]
            else:
                unit.returns = [(ALL, unit.reads)]
        elif isinstance(stmt, ast.Expr):
            unit.reads = reads_of(fid, scope, stmt.value)
            call = stmt.value
            if isinstance(call, ast.Call):
                unit.sink = True
                unit.log = _is_log(call)
                func = call.func
                if isinstance(func, ast.Name) and func.id == "setattr" and call.args:
                    unit.writes |= writes_of(fid, scope, call.args[0])   # `setattr(self.frame, name, w)`
                if isinstance(func, ast.Attribute) and (func.attr in CONTAINER_MUTATORS or (
                        func.attr.endswith("_") and not func.attr.endswith("__"))):
                    unit.writes |= writes_of(fid, scope, func.value)   # `self.hist.append(x)`, `buf.copy_(x)`
                elif isinstance(func, ast.Attribute) and func.attr.lower() not in SEND_METHOD_NAMES \
                        and not named_as_send(func.attr) and device_handle(ctx, func.value) \
                        and not ctx.resolve_call(call):   # not a send: it changes nothing a later call reads
                    for changed in (func.value, *call.args):   # `udp.Recv()` refreshes the device, `udp.GetRecv(st)`
                        unit.writes |= writes_of(fid, scope, changed)   # fills `st`: the reads after them see it
        else:
            unit.reads = reads_of(fid, scope, stmt)
        self._add_calls(ctx, fn, scope, unit, [stmt], stmt)
        return [unit]

    @staticmethod
    def _head(stmt: ast.stmt) -> list[ast.AST]:
        if isinstance(stmt, ast.ExceptHandler):
            return [stmt.type] if stmt.type is not None else []
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            return []     # its handlers are units of their own
        if hasattr(ast, "Match") and isinstance(stmt, ast.Match):
            return [stmt.subject]
        return statement_heads(stmt)

    def _add_calls(self, ctx, fn: FunctionInfo, scope: Scope, unit: _Unit, roots: list[ast.AST],
                   stmt: ast.stmt) -> None:
        bound = self._bound_positions(fn.id, scope, stmt)
        for root in roots:
            for node in _own_nodes(root):
                if not isinstance(node, ast.Call):
                    continue
                targets = [t for t in ctx.resolve_call(node) if t.id in self.functions]
                if self._is_model(ctx, node, targets):
                    unit.model = True
                args: dict[str, set] = {}
                arg_nodes: dict[tuple[str, str], ast.expr] = {}
                for target in targets:
                    params = target.positional_params[1:] if _is_method(target) else target.positional_params
                    for name, arg in zip(params, node.args):
                        args.setdefault(name, set()).update(reads_of(fn.id, scope, arg))
                        arg_nodes[(target.id, name)] = arg
                    for kw in node.keywords:
                        names = [kw.arg] if kw.arg else list(target.params)
                        for name in names:
                            args.setdefault(name, set()).update(reads_of(fn.id, scope, kw.value))
                    if any(isinstance(a, ast.Starred) for a in node.args):
                        for name in target.params:
                            args.setdefault(name, set()).update(reads_of(fn.id, scope, node))
                positions = bound if node is getattr(stmt, "value", None) else {ALL: unit.writes}
                call = _Call(node, targets, args, arg_nodes, positions, scope)
                if not targets and _object_method(node, ctx.module):
                    call.handed = set().union(*(reads_of(fn.id, scope, a) for a in (
                        *node.args, *(k.value for k in node.keywords))))
                unit.calls.append(call)

    @staticmethod
    def _bound_positions(fid: str, scope: Scope, stmt: ast.stmt) -> dict[int, set]:
        """`a, b = f()`: position -> what it binds; a whole binding is ALL."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List)) \
                and not any(isinstance(e, ast.Starred) for e in stmt.targets[0].elts):
            return {i: writes_of(fid, scope, e) for i, e in enumerate(stmt.targets[0].elts)}
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            return {ALL: set().union(*(writes_of(fid, scope, t) for t in targets))}
        return {ALL: set()}

    def _is_model(self, ctx, node: ast.Call, targets: list[FunctionInfo]) -> bool:
        project = self.analysis.project
        if calls_nn_module(ctx, node) or ctx._model_call(node):
            return True
        if any(t.class_name and _is_module_class(project, t) for t in targets):
            return True
        return not targets and (model_call(node, set()) is not None or unfollowed_policy_call(node, ctx.self_name, ctx.project, ctx.cls))

    def _argument_fills(self) -> None:
        """`blend(memo["goal"], out)` where `blend` writes into its first parameter fills `memo`."""
        filled = self.filled = {fid: {k[1] for u in units for k in u.writes if k[0] == fid}
                                for fid, units in self.flat.items()}
        for fid, units in self.flat.items():
            for unit in units:
                for call in unit.calls:
                    for (target, param), arg in call.arg_nodes.items():
                        if param in filled.get(target, ()) and call.scope is not None:
                            unit.writes |= writes_of(fid, call.scope, arg)

    def _flatten(self, units: list[_Unit]):
        for unit in units:
            yield unit
            yield from self._flatten(unit.block)

    # the fixpoint ---------------------------------------------------------------------------------------
    def solve(self, entry: FunctionInfo) -> dict[str, set[int]] | None:
        if not any(u.model for units in self.flat.values() for u in units):
            return None
        state = _State(kept={entry.id: {ALL}})
        self.unseen.discard(entry.id)
        state.needed |= {(entry.id, name) for name in entry.carried}   # a range's state: the next pass reads it
        while True:
            before = state.size()
            for fid, units in self.flat.items():
                for unit in units:
                    self._forward(fid, unit, state)
                for unit in units:
                    self._backward(fid, unit, state)
            for fid, units in self.units.items():
                for unit in units:
                    self._blocks(fid, unit, state)
            if state.size() == before:
                return {fid: state.relevant.get(fid, set()) | state.reports.get(fid, set())
                        for fid in {*state.relevant, *state.reports}}

    @staticmethod
    def _forward(fid: str, unit: _Unit, state: _State) -> None:
        derived = state.derived
        if any(k in state.needed for k in unit.reads) or reads_meet(unit.reads, derived):
            derived |= unit.writes
            for call in unit.calls:
                for target in call.targets:
                    for param, keys in call.args.items():
                        if any(k in state.needed for k in keys) or reads_meet(keys, derived):
                            derived.add((target.id, param))
        computed = state.computed
        if unit.model or reads_meet(unit.reads, computed) or any(t.id in state.forward_returns
                                                      for c in unit.calls for t in c.targets):
            computed |= unit.writes
            if unit.returns:
                state.forward_returns.add(fid)
        for call in unit.calls:
            for target in call.targets:
                for param, keys in call.args.items():
                    if reads_meet(keys, computed):
                        computed.add((target.id, param))

    def _backward(self, fid: str, unit: _Unit, state: _State) -> None:
        needed, sent, computed = state.needed, state.sent, state.computed
        if unit.log and not unit.model and not any(c.targets for c in unit.calls):
            # a log of pipeline values is reported where it is; its block and inputs stay the host's
            if reads_meet(unit.reads, computed) or any(k in needed for k in unit.reads) \
                    or reads_meet(unit.reads, state.derived):
                state.reports.setdefault(fid, set()).add(id(unit))
            return
        carries_model_output = reads_meet(unit.reads, computed)
        to_needed = unit.model or writes_meet(unit.writes, needed)
        kept_outside = carries_model_output and any(k[0] in ("s", "p", "a", "g") for k in unit.writes)
        hands_output = any(reads_meet(c.handed, computed) for c in unit.calls)   # `ret = arm.movej(q)`
        to_sent = kept_outside or hands_output or writes_meet(unit.writes, sent) or (unit.sink and (
            carries_model_output or any(k in needed for k in unit.reads)))   # a send or a print of pipeline data
        by_return = False   # needed only for the returned positions its callers keep (not the others' reads)
        if unit.returns and fid in state.kept:
            positions = state.kept[fid]
            chosen = [keys for pos, keys in unit.returns if ALL in positions or pos in positions or pos == ALL]
            for keys in chosen:
                needed |= keys
            by_return = bool(chosen) and not to_needed
            to_needed = to_needed or bool(chosen)
        by_callee = False
        for call in unit.calls:
            for (target_id, param), arg in call.arg_nodes.items():   # a callee fills an argument that is needed
                if param in self.filled.get(target_id, ()) and call.scope is not None \
                        and writes_meet(writes_of(fid, call.scope, arg), needed):
                    needed.add((target_id, param))
            for target in call.targets:
                for param, keys in call.args.items():
                    if (target.id, param) in needed:
                        needed |= keys
                        by_callee = True
                    elif (target.id, param) in sent and carries_model_output:
                        sent |= keys
                        by_callee = True
                by_callee = by_callee or target.id in state.own_path
        if fid in self.unseen and fid not in state.kept:
            to_needed = True
        if not (to_needed or to_sent or by_callee):
            if unit.sink and (reads_meet(unit.reads, state.derived)   # a send of values computed from the input
                              or _stops_the_step(unit.node.value)):      # `breakpoint()`, `input("go?")`
                state.reports.setdefault(fid, set()).add(id(unit))
            return
        state.relevant.setdefault(fid, set()).add(id(unit))
        if unit.model or (not _literal_store(unit.node) and writes_meet({k for k in unit.writes if k[0] in ("a", "p", "s", "g")}, needed)) \
                or any(t.id in state.own_path for c in unit.calls for t in c.targets):
            state.own_path.add(fid)   # on the path by itself, not only through what its callers hand it
        if (to_needed and not by_return) or by_callee:
            needed |= unit.reads
        if to_sent:
            sent |= unit.reads
        for call in unit.calls:
            positions = {pos for pos, keys in call.result_positions.items()
                         if pos == ALL or writes_meet(keys, needed) or writes_meet(keys, sent)}
            for target in call.targets:
                pinned = self.pinned.get(target.id)
                wanted = positions if pinned is None else (
                    {p for p in positions if p in pinned} | (set(pinned) if ALL in positions else set()))
                state.kept.setdefault(target.id, set()).update(wanted)

    def _blocks(self, fid: str, unit: _Unit, state: _State) -> bool:
        """A compound statement is on the path when its block holds a statement that is; its head decides."""
        inner = [self._blocks(fid, u, state) for u in unit.block]
        mine = state.relevant.setdefault(fid, set())
        if id(unit) in mine:
            return True
        if any(inner) or (_exits(unit.node) and any(k in state.needed for k in unit.reads)):
            mine.add(id(unit))   # a block on the path, or a gate on the model's own input (`if x.max() > k: return`)
            state.needed |= unit.reads
            return True
        return False

    def unit_at(self, fid: str, line: int) -> _Unit | None:
        best = None
        for unit in self.flat.get(fid, ()):
            if unit.first <= line <= unit.last and (best is None or unit.last - unit.first < best.last - best.first):
                best = unit
        return best


def _own_nodes(root: ast.AST):
    """The nodes of a statement or expression, not those of nested functions, classes or nested blocks."""
    todo = [root]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, *NESTED, ast.ExceptHandler)):
                continue
            todo.append(child)


def _stops_the_step(call: ast.Call) -> bool:
    """A builtin that waits for a person on every call (`breakpoint()`, `input(...)`): the export never waits."""
    return isinstance(call.func, ast.Name) and call.func.id in STEP_STOPPERS


def _is_log(call: ast.Call) -> bool:
    """`print(...)`, `logger.info(...)`, `self.get_logger().warn(...)`, `rospy.loginfo(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in ("print", "pprint")
    return isinstance(func, ast.Attribute) and (func.attr in LOGGING_METHODS
                                                or ast.unparse(func).startswith(LOG_FUNCTION_PREFIXES))


def _object_method(call: ast.Call, module) -> bool:
    """`robot.movej(q)`, `self.client.send(cmd)`: a method of an object, not a module's function (`np.clip`)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    base = func.value
    while isinstance(base, (ast.Attribute, ast.Subscript, ast.Call)):
        base = base.func if isinstance(base, ast.Call) else base.value
    return not (isinstance(base, ast.Name) and base.id in module.imports)


def _exits(stmt: ast.stmt) -> bool:
    """A branch whose block leaves the step (`return`, `raise`, `break`, `continue`)."""
    return isinstance(stmt, (ast.If, ast.While)) and any(
        isinstance(s, (ast.Return, ast.Raise, ast.Break, ast.Continue)) for s in (*stmt.body, *stmt.orelse))


def _literal_store(stmt: ast.stmt) -> bool:
    """`self.mode = "stand"`, `self.first = False`: a store of a constant switches a mode; the function that does
    it is not on the model's path for that alone (its callers are not dragged onto it)."""
    value = getattr(stmt, "value", None)
    return isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(value, ast.Constant)


def _is_method(fn: FunctionInfo) -> bool:
    if not fn.class_name:
        return False
    decorators = {d.id for d in fn.node.decorator_list if isinstance(d, ast.Name)}
    return "staticmethod" not in decorators


def _family(project, cls) -> str | None:
    if cls is None:
        return None
    project_classes = [c for c in project.mro(cls) if hasattr(c, "id")]
    return project_classes[-1].id if project_classes else cls.id


def _is_module_class(project, fn: FunctionInfo) -> bool:
    cls = project.class_of(f"{fn.module}.{fn.class_name}") if fn.class_name else None
    return cls is not None and project.is_nn_module(cls)


@dataclass
class ModelPath:
    """What `scan` keeps: a finding on a statement of a reached function that is off the model's path is the
    host's, not the export's."""

    slicer: _Slicer | None
    relevant: dict[str, set[int]] | None

    def on_path(self, fid: str, line: int) -> bool:
        if self.slicer is None or self.relevant is None or fid not in self.slicer.flat:
            return True
        unit = self.slicer.unit_at(fid, line)
        return unit is None or id(unit) in self.relevant.get(fid, set())


def model_path(analysis, entry: FunctionInfo | None) -> ModelPath:
    if entry is None:
        return ModelPath(None, None)
    functions = [fn for fn in analysis.reachable.values() if isinstance(fn, FunctionInfo)]
    memo = analysis.project.memo
    recorded = dict(memo.get(RESOLUTIONS_KEY, {}))
    slicer = _Slicer(analysis, functions)
    memo[RESOLUTIONS_KEY] = recorded   # asking again where calls go is no new resolution to report
    return ModelPath(slicer, slicer.solve(entry))
