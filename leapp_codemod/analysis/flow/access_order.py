"""In what order one call of the entry reads and writes the attributes of `self`.

An attribute is recurrent state only when some read can see the value a *previous* call left:
no write that always runs comes before it in the same call. A buffer the step fills before reading
it (`self.obs[:3] = ...; self.policy(self.obs)`), a distribution object built by one method and
sampled by the next, are rewritten every call: temporaries, not state.

The entry's call tree is walked once in execution order (callees inlined where they are called,
each function the first time it is reached). A write "always runs" unless it sits under a condition
on pipeline data or a value that changes between calls (a counter, state), in a loop over such a
value, in an exception handler or `match` case, or in one of several possible callees. Conditions
on configuration (`isinstance(self.dist, ...)`, `if self.cfg.use_imu:`, flags) take the same branch
on every call, so a write under them either runs every call or never: neither makes state.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.infer.lattice import AccessOrder
from leapp_codemod.analysis.model.class_state import CONSTRUCTION_METHODS
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.walk import (
    constant_flag_block, is_self_attr, leaves_function, live_statements, training_only_block,
)
from leapp_codemod.knowledge.vocab import NAMESPACE_CALLS, OVERWRITING_METHODS

MAX_DEPTH = 40
_SKIP = "-"   # a callee the walk's receiver never runs
MAX_STATEMENTS = 200_000


@dataclass
class _Walk:
    contexts: object                     # callable: FunctionInfo -> FunctionContext with its env computed
    order: AccessOrder = field(default_factory=AccessOrder)
    written: dict[str, set[str]] = field(default_factory=dict)   # attr -> classes with an always-running write
    # attr -> classes written earlier in the varying block being walked: they cover the reads after them in it
    local: dict[str, set[str]] = field(default_factory=dict)
    written_names: set[str] = field(default_factory=set)         # loop-carried names with one
    family: dict[str, set[str]] = field(default_factory=dict)    # class id -> ids of its MRO
    statements: int = 0
    walked: set[tuple[str, frozenset, frozenset]] = field(default_factory=set)
    none_params: frozenset = frozenset()     # parameters of the function being walked that are None here
    given_params: frozenset = frozenset()    # ... and that this call sets to a value that is not None
    returns: list[list] = field(default_factory=list)   # per function being walked: writes at each early return
    summaries: dict[tuple, dict[str, set[str]]] = field(default_factory=dict)   # walked call -> what it writes
    receiver: str | None = None   # the class of the object the walked method runs on, when one call named it

    def function(self, fn: FunctionInfo, guarded: bool, depth: int, none: frozenset = frozenset(),
                 given: frozenset = frozenset(), receiver: str | None = None) -> None:
        """Walk `fn` the first time it is reached, and again when a call decides its `if param is None:`
        blocks differently (`publish(cmd)` and `publish()` read different attributes) or runs it on another
        object (`receiver`: the class whose method the walk entered, which the method's `self.m()` calls
        dispatch on)."""
        key = (fn.id, none, given, receiver)
        if key in self.walked or depth > MAX_DEPTH:
            for attr, classes in self.summaries.get(key, {}).items():   # its writes happen on every call
                self.written.setdefault(attr, set()).update(classes)
            return
        self.walked.add(key)
        before = self._writes()[0]
        self.order.visited.add(fn.id)
        ctx = self.contexts(fn)
        if ctx.cls is not None and ctx.cls.id not in self.family:
            self.family[ctx.cls.id] = {k.id for k in ctx.project.mro(ctx.cls)}
        outer = (self.none_params, self.given_params, self.receiver)
        self.none_params, self.given_params, self.receiver = none, given, receiver
        self.returns.append([])
        try:
            self.block(fn.node.body, ctx, guarded, depth)
        finally:
            self.none_params, self.given_params, self.receiver = outer
            early = self.returns.pop()
        # after the call: what every way out of it wrote. A return under a condition on configuration is
        # taken on every call or on none: when the end of the function is reachable, that is the way out.
        varying = [writes for writes, guarded_exit in early if guarded_exit]
        paths = [*varying, self._writes()] if _falls_through(fn.node.body) else [w for w, _ in early]
        if early and paths:   # (on whichever class it ran)
            self.written = {a: set.union(*(p[0][a] for p in paths)) for a in paths[0][0]
                            if all(p[0].get(a) for p in paths)}
            self.written_names = set.intersection(*(p[1] for p in paths))
        self.summaries[key] = {a: c - before.get(a, set()) for a, c in self.written.items() if c - before.get(a, set())}

    def _writes(self) -> tuple[dict[str, set[str]], set[str]]:
        return {a: set(c) for a, c in self.written.items()}, set(self.written_names)

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list[ast.stmt], ctx: FunctionContext, guarded: bool, depth: int) -> None:
        for stmt in live_statements(stmts, ctx.fn, ctx.facts.param_constants.get(ctx.fn.id)):
            self.statements += 1
            if self.statements > MAX_STATEMENTS:
                return   # the order is incomplete: `access_order` gives no answer
            self.stmt(stmt, ctx, guarded, depth)

    def branch(self, stmts: list[ast.stmt], ctx: FunctionContext, guarded: bool, depth: int) -> None:
        """A branch that ends by returning or raising: its writes cover the reads inside it, not the code after
        the `if` in the same function, which runs only when the branch does not (`if not self.enabled:
        self.send(zero); return`). What it wrote counts again after the function returns, if every way out of
        the function wrote it."""
        if not (leaves_function(stmts) and self.returns):
            self.block(stmts, ctx, guarded, depth)
            return
        before, local = self._writes(), self._local()
        self.block(stmts, ctx, guarded, depth)
        if isinstance(stmts[-1], ast.Return):
            self.returns[-1].append((self._writes(), guarded))
        (self.written, self.written_names), self.local = before, local

    def _local(self) -> dict[str, set[str]]:
        return {a: set(c) for a, c in self.local.items()}

    def scoped(self, walk) -> None:
        """Walk a block that runs on some calls only (`walk()`): its writes cover the reads after them inside
        it (`if fresh: self.plan = {}; self.plan[k] = v; use(self.plan)`), never those after it."""
        local = self._local()
        walk()
        self.local = local

    def stmt(self, node: ast.stmt, ctx: FunctionContext, guarded: bool, depth: int) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(node, ast.If):
            self.expr(node.test, ctx, guarded, depth)
            inner = guarded or self._varies(node.test, ctx)
            skipped = training_only_block(node, ctx.self_name) or constant_flag_block(
                node, ctx.fn, ctx.facts.param_constants.get(ctx.fn.id)) or self._none_test(node.test)
            varies = self._varies(node.test, ctx)
            start, ends = (self._writes(), self._local()), []
            for arm, stmts in (("body", node.body), ("orelse", node.orelse)):
                if skipped == arm:
                    continue
                # each arm starts from what was written before the `if`: a write in one arm covers no read in
                # the other (`if self.first: self.h = seed(x) else: self.h = roll(self.h, x)` reads the last call's)
                (written, names), local = start
                self.written, self.written_names, self.local = _copy(written), set(names), _copy(local)
                if varies:
                    self.scoped(lambda stmts=stmts: self.branch(stmts, ctx, inner, depth))
                else:
                    self.branch(stmts, ctx, inner, depth)
                ends.append((self._writes(), self._local()))
            if ends:   # after the `if`, what either arm wrote (a test that does not vary takes the same arm each call)
                self.written = {a: set().union(*(w.get(a, set()) for (w, _), _ in ends)) for (w, _), _ in ends for a in w}
                self.written_names = set().union(*(n for (_, n), _ in ends))
                self.local = {a: set().union(*(loc.get(a, set()) for _, loc in ends)) for _, loc in ends for a in loc}
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.expr(node.iter, ctx, guarded, depth)
            inner = guarded or self._varies(node.iter, ctx)
            self.scoped(lambda: (self.target(node.target, ctx, True, depth), self.block(node.body, ctx, inner, depth),
                                 self.block(node.orelse, ctx, inner, depth)))
        elif isinstance(node, ast.While):
            self.expr(node.test, ctx, guarded, depth)
            inner = guarded or self._varies(node.test, ctx)
            self.scoped(lambda: (self.block(node.body, ctx, inner, depth), self.block(node.orelse, ctx, inner, depth)))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expr(item.context_expr, ctx, guarded, depth)
            self.block(node.body, ctx, guarded, depth)
        elif isinstance(node, ast.Try) or node.__class__.__name__ == "TryStar":
            self.block(node.body, ctx, guarded, depth)
            for handler in node.handlers:
                self.scoped(lambda handler=handler: self.block(handler.body, ctx, True, depth))
            self.block(node.orelse, ctx, guarded, depth)
            self.block(node.finalbody, ctx, guarded, depth)
        elif isinstance(node, ast.Match):
            self.expr(node.subject, ctx, guarded, depth)
            for case in node.cases:
                self.scoped(lambda case=case: self.block(case.body, ctx, True, depth))
        elif isinstance(node, ast.Assign):
            self.expr(node.value, ctx, guarded, depth)
            for target in node.targets:
                self.target(target, ctx, guarded, depth)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expr(node.value, ctx, guarded, depth)
                self.target(node.target, ctx, guarded, depth)
        elif isinstance(node, ast.AugAssign):
            self.expr(_as_load(node.target), ctx, guarded, depth)
            self.expr(node.value, ctx, guarded, depth)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, ctx, guarded, depth)

    def target(self, target: ast.expr, ctx: FunctionContext, guarded: bool, depth: int) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.target(elt.value if isinstance(elt, ast.Starred) else elt, ctx, guarded, depth)
        elif isinstance(target, ast.Starred):
            self.target(target.value, ctx, guarded, depth)
        elif is_self_attr(target, ctx.self_name):
            self.write(target.attr, ctx, guarded)
        elif isinstance(target, ast.Name):
            self.write_name(target.id, ctx, guarded)
        elif isinstance(target, ast.Subscript):
            self.expr(target.slice, ctx, guarded, depth)
            root = target.value
            while isinstance(root, ast.Subscript):
                self.expr(root.slice, ctx, guarded, depth)
                root = root.value
            if is_self_attr(root, ctx.self_name):
                # the step fills the buffer it then reads (`self.obs[:3] = ...`); a write through an index
                # (`self.ctrl[ARM_IDS] = q`) leaves the other entries as the previous call left them; a write
                # into one entry of a dict (`self.hist["q"][:, 0] = v`) covers reads of that entry only
                key, slices = _entry_key(target)
                fills = all(_fills(s, ctx) for s in slices)
                self.write(root.attr + key, ctx, guarded or not fills, fills)
            elif isinstance(root, ast.Name):
                self.write_name(root.id, ctx, guarded)
            else:
                self.expr(root, ctx, guarded, depth)
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, ctx, guarded, depth)

    # ------------------------------------------------------------------ expressions
    def expr(self, node: ast.expr, ctx: FunctionContext, guarded: bool, depth: int) -> None:
        stack = [node]
        calls: list[ast.Call] = []
        while stack:   # reads in evaluation order are approximated by source order; calls run after their arguments
            e = stack.pop()
            if isinstance(e, ast.Attribute) and isinstance(e.ctx, ast.Load) and is_self_attr(e, ctx.self_name):
                self.read(e.attr, ctx, e.lineno)
                continue
            if isinstance(e, ast.Subscript) and is_self_attr(e.value, ctx.self_name) and _str_key(e.slice):
                self.read(e.value.attr, ctx, e.lineno, f"[{e.slice.value!r}]")   # `self.hist["dq"]`: one entry
                continue
            if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Load) and e.id in ctx.fn.carried \
                    and e.id not in self.written_names:
                self.order.uncovered.setdefault((ctx.fn.id, e.id), set()).add((ctx.fn.id, e.lineno))
                self.order.first_read.setdefault((ctx.fn.id, e.id), (len(self.order.first_read), ctx.fn.id, e.lineno))
            if isinstance(e, ast.Call):
                calls.append(e)
            stack.extend(reversed(list(_subexpressions(e))))
        for call in reversed(calls):   # innermost (arguments) first
            self.call(call, ctx, guarded, depth)

    def call(self, call: ast.Call, ctx: FunctionContext, guarded: bool, depth: int) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in OVERWRITING_METHODS and not call.args[1:] \
                and is_self_attr(func.value, ctx.self_name):
            self.write(func.value.attr, ctx, guarded)
        try:
            callees = ctx.resolve_call(call)
        except RecursionError:
            return
        on_self = is_self_attr(func, ctx.self_name)
        for callee in callees:
            receiver = self._receiver(callee, ctx, on_self, len(callees))
            if receiver is _SKIP:
                continue   # an override of a class the object this walk runs on is not
            none, given = _none_arguments(callee, call)
            self.function(callee, guarded, depth + 1, none, given, receiver)

    def _receiver(self, callee: FunctionInfo, ctx: FunctionContext, on_self: bool, alternatives: int):
        """The object `callee` runs on: for `self.m()` the one this walk runs on (the overrides of classes it is
        not are skipped: `get_actions` of one distribution calls its own `mode`, not every subclass's); for a call
        on another object choosing among several classes' methods, the class of each."""
        if callee.class_name is None:
            return None
        owner = ctx.project.modules[callee.module].classes.get(callee.class_name)
        if owner is None:
            return None
        if not on_self:
            return owner.id if alternatives > 1 else None
        if self.receiver is None:
            return None
        mine = self.family.get(self.receiver)
        if mine is None:
            return self.receiver
        related = owner.id in mine or self.receiver in {k.id for k in ctx.project.mro(owner)}
        return self.receiver if related else _SKIP

    def _none_test(self, test: ast.expr) -> str | None:
        """The branch of `if param is None:` / `if param is not None:` this call never takes."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
            return None
        name, negated = test.left.id, isinstance(test.ops[0], ast.IsNot)
        if name in self.none_params:
            return "body" if negated else "orelse"
        if name in self.given_params:
            return "orelse" if negated else "body"
        return None

    # ------------------------------------------------------------------ events
    def read(self, attr: str, ctx: FunctionContext, line: int, key: str = "") -> None:
        """A read of `self.<attr>` (of its entry `key` of a dict, which a write of the whole or of that entry covers;
        a read of the whole is covered by a write of any entry)."""
        writers = self.written.get(attr, set()) | self.local.get(attr, set())
        if key:
            writers |= self.written.get(attr + key, set()) | self.local.get(attr + key, set())
        else:   # the whole dict (`self.stats.update(...)`): an entry written above covers it, as before entries
            writers |= {c for table in (self.written, self.local) for name, classes in table.items()
                        if name.startswith(attr + "[") for c in classes}
        mine = self.family.get(ctx.cls.id, set()) if ctx.cls is not None else set()
        if ctx.cls is not None and not any(w in mine or ctx.cls.id in self.family.get(w, ()) for w in writers):
            self.order.uncovered.setdefault((ctx.cls.id, attr), set()).add((ctx.fn.id, line))
            self.order.first_read.setdefault((ctx.cls.id, attr), (len(self.order.first_read), ctx.fn.id, line))

    def write(self, attr: str, ctx: FunctionContext, guarded: bool, whole: bool = True) -> None:
        """`whole`: the write sets the whole value (not some entries of it). Under a guard it covers the reads
        after it in the guarded block (`local`); otherwise every later read."""
        if ctx.cls is None:
            return
        if not guarded:
            self.written.setdefault(attr, set()).add(ctx.cls.id)
        elif whole:
            self.local.setdefault(attr, set()).add(ctx.cls.id)

    def write_name(self, name: str, ctx: FunctionContext, guarded: bool) -> None:
        if not guarded and name in ctx.fn.carried:
            self.written_names.add(name)

    @staticmethod
    def _varies(test: ast.expr, ctx: FunctionContext) -> bool:
        """Can the condition differ from one call to the next? Pipeline data, state and a number an inline
        range takes from its loop (`if t % query_every == 0:` of a step counter) can."""
        varying = {name for name, changes in ctx.fn.numbers.items() if changes} | set(ctx.fn.carried)
        return ctx.is_data(test) or any(isinstance(n, ast.Name) and n.id in varying for n in ast.walk(test)) \
            or _asks_namespace(test) or any(is_self_attr(n, ctx.self_name) and _reassigned(ctx, n.attr)
                                            for n in ast.walk(test))


def _reassigned(ctx: FunctionContext, attr: str) -> bool:
    """Does a method of the object's class family other than a constructor assign `self.<attr>` (a mode the
    driver sets between calls, `self.last_mode = self.mode`)? A test on it may take the other arm next call."""
    if ctx.cls is None:
        return False
    return any(method not in CONSTRUCTION_METHODS for klass in ctx.project.mro(ctx.cls)
               for method, _ in klass.attr_values.get(attr, ()))


def _asks_namespace(test: ast.expr) -> bool:
    """`if "avg" not in locals():` (`globals()`, `vars()`): what names exist changes once an earlier iteration or
    call has bound them, so the test takes one arm on the first pass and the other after: a write under it is no
    write of every call (an initialiser of carried state)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in NAMESPACE_CALLS
               and not n.args for n in ast.walk(test))


def _str_key(index: ast.expr) -> bool:
    return isinstance(index, ast.Constant) and isinstance(index.value, str)


def _entry_key(target: ast.Subscript) -> tuple[str, list[ast.expr]]:
    """('["q"]', the other indices) for a write into one entry of a dict attribute (`self.h["q"][:, 0] = v`),
    else ('', every index): the entry a write covers, and what decides whether it covers all of it."""
    chain = [target]
    while isinstance(chain[-1].value, ast.Subscript):
        chain.append(chain[-1].value)
    if _str_key(chain[-1].slice):
        return f"[{chain[-1].slice.value!r}]", [c.slice for c in chain[:-1]]
    return "", [target.slice]


def _fills(index: ast.expr, ctx: FunctionContext) -> bool:
    """Slices, positions and loop indices (`[:3]`, `[0]`, `[i]` in `for i in range(n)`) fill a buffer piece by
    piece; a fixed or passed-in index (see `_selects`) writes only those entries, so the others keep what the
    previous call left."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return not any(_selects(p, ctx) for p in parts)


def _selects(part: ast.expr, ctx: FunctionContext) -> bool:
    """An index that picks entries the code does not sweep: a list, an attribute, a module constant, or a
    value the caller passes (`[t % 8]` of a step counter parameter: one slot per call of a ring buffer)."""
    if isinstance(part, ast.Slice):
        return False
    params = set(ctx.fn.params) - {ctx.self_name}
    return isinstance(part, (ast.List, ast.Attribute)) or any(
        isinstance(n, ast.Name) and (n.id in params or n.id in ctx.module.globals) for n in ast.walk(part))


def _subexpressions(node: ast.AST):
    """The expressions directly inside `node`, looking through keywords and comprehension clauses."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield child
        elif isinstance(child, (ast.keyword, ast.comprehension, ast.arguments)):
            yield from _subexpressions(child)


def _as_load(target: ast.expr) -> ast.expr:
    """The target of `x += v` as the value it reads first."""
    if isinstance(target, ast.Attribute):
        return ast.copy_location(ast.Attribute(value=target.value, attr=target.attr, ctx=ast.Load()), target)
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(id=target.id, ctx=ast.Load()), target)
    return target


def access_order(entry: FunctionInfo, contexts) -> AccessOrder | None:
    """Walk one call of `entry` (see the module docstring). `contexts(fn)` gives a function's context
    with its local facts computed. None when the call is too large to walk whole (more than
    MAX_STATEMENTS statements): a read the walk never reached must not look covered."""
    walk = _Walk(contexts)
    walk.function(entry, False, 0)
    return walk.order if walk.statements <= MAX_STATEMENTS else None


def _none_arguments(callee: FunctionInfo, call: ast.Call) -> tuple[frozenset, frozenset]:
    """(parameters None at this call: left to a None default or passed None, parameters given a value that is
    never None: a literal, a call, an operation), as far as the call's own text tells."""
    args = callee.node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if callee.is_method and positional:
        positional = positional[1:]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return frozenset(), frozenset()
    passed = dict(zip(positional, call.args))
    passed.update({k.arg: k.value for k in call.keywords})
    defaults = dict(zip(reversed([a.arg for a in (*args.posonlyargs, *args.args)]), reversed(args.defaults)))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    none = {p for p, d in defaults.items() if p not in passed and isinstance(d, ast.Constant) and d.value is None}
    none |= {p for p, v in passed.items() if isinstance(v, ast.Constant) and v.value is None}
    given = {p for p, v in passed.items() if not isinstance(v, (ast.Name, ast.Attribute, ast.Subscript, ast.IfExp,
                                                                 ast.BoolOp, ast.Constant, ast.Starred))
             or isinstance(v, ast.Constant) and v.value is not None}
    return frozenset(none), frozenset(given)


def _falls_through(stmts: list[ast.stmt]) -> bool:
    """Can running the block reach its end (no `return`/`raise` on every path)?"""
    if leaves_function(stmts):
        return False
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.If):
        return _falls_through(last.body) or _falls_through(last.orelse)
    return True


def _copy(table: dict[str, set[str]]) -> dict[str, set[str]]:
    return {a: set(c) for a, c in table.items()}
