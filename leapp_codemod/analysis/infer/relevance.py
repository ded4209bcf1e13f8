"""Does a value reach what the function hands on? A backward slice from its outputs, one per function.

The outputs of a function: what it returns or yields, what it writes outside its own locals (state on
`self` a later call reads, an argument's content, a global), what it passes to a call whose effects the scan
cannot see (an unfollowed function, a method of an object it did not build), and the control that decides
whether those run (`break`, `return`, `raise`). I/O calls are no outputs: what reaches only a print, a log,
a CSV row list that only a file write reads, or nothing at all decides nothing the export keeps, so a
finding about such a value (a scalar read, a NumPy call, a branch whose block holds no output) is not one.
An inline range's outputs are its results and the state it fills, unless the code around it reads them only
to report them. A kept world step's outputs are narrower (`world_bookkeeping.py`).

The slice is by name and flow-insensitive (a name an output statement reads makes every statement binding or
filling it one), so it keeps too much, never too little: an unknown call or object counts as an output.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leapp_codemod.analysis.infer.argument_writes import writes_argument, written_argument  # noqa: F401 (sink)
from leapp_codemod.analysis.infer.io import named_path
from leapp_codemod.analysis.infer.slice_order import fills_needed
from leapp_codemod.analysis.infer.slice_aliases import _aliases, _target_names, root_of  # noqa: F401 (sink)
from leapp_codemod.analysis.infer.telemetry import ASSUMED_DEAD, self_record
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.infer.unused_positions import (
    kept_reads,
    returned_positions,
    target_reads,
)
from leapp_codemod.analysis.infer.world_bookkeeping import deferred_state, narrow_outputs
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.knowledge.draws import (
    NOT_DRAWS,
    RANDOM_MODULES,
    STDLIB_DRAWS,
    TORCH_RANDOM,
)
from leapp_codemod.knowledge.io import (
    DRAWING_ROOTS,
    FILE_WRITER_METHODS,
    PACING_FUNCTIONS,
    PATH_SAVERS,
    REPORT_ROOTS,
)
from leapp_codemod.knowledge.vocab import (
    DATA_METHOD_NAMES,
    DRAWING_FUNCTIONS,
    INPLACE_EXCEPTIONS,
    NON_DATA_BUILTINS,
    PURE_BUILTINS,
    PURE_LIBRARIES,
    TABLE_LIBRARIES,
    WRITING_METHODS,
)
from leapp_codemod.source.astwalk import statement_heads, walked

# Compound statements: which of their fields hold the statements they run (the rest is their head).
_BLOCKS = ("body", "orelse", "finalbody", "handlers")
_OPAQUE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
VALUE_BUILTINS = NON_DATA_BUILTINS | PURE_BUILTINS | {
    "enumerate", "zip", "sorted", "reversed", "sum", "any", "all", "map", "filter", "dict", "set", "frozenset",
    "divmod", "pow", "isinstance", "repr", "str", "format"} - {"print", "open", "setattr", "next", "iter"}


@dataclass(frozen=True)
class _Scope:
    """What the slice of one function knows of its names."""
    params: frozenset[str]
    declared: frozenset[str]   # `global` / `nonlocal` names
    inline: bool
    foreign: frozenset[str]    # locals bound to an object from outside (`buf = self.buf`): filling one is an output
    handles: frozenset[str]    # locals bound by an I/O call (`f = open(p)`, `w = csv.writer(f)`): their methods are I/O
    kept: frozenset[int] | None = None   # the positions of what it returns a caller uses (None: all; `unused_*`)


@dataclass
class _Stmt:
    """What one statement (or the head of a compound one) does to names: binds, reads; is it an output?"""
    node: ast.stmt
    binds: set[str] = field(default_factory=set)
    fills: set[str] = field(default_factory=set)   # names whose object it changes in place (`rows.append(r)`)
    reads: set[str] = field(default_factory=set)
    output: bool = False
    control: bool = False   # `break`, `continue`, a bare `return`: an output when anything else is
    skipped: bool = False   # stands for the skipped lines (an inline range, in the function around it)
    parent: _Stmt | None = None
    block: list[_Stmt] = field(default_factory=list, repr=False)   # its own block, itself included
    position: int = 0
    inside: list[_Stmt] = field(default_factory=list, repr=False)  # every statement nested in it
    reads_for: dict[str, set[str]] = field(default_factory=dict)   # `a, b = f(x, y)`: what it reads for each name
    served: set[str] = field(default_factory=set)   # those of them some output needs (their reads are read)

    @property
    def compound(self) -> bool:
        return any(getattr(self.node, name, None) for name in _BLOCKS)


class RelevanceQuestions:
    """Mixin of `FunctionContext`: `reaches_output(node)`."""

    def reaches_output(self, node: ast.AST) -> bool:
        """Can the value of `node` (for the test of a branch or the iterable of a loop: the block it decides)
        reach this function's outputs? True when unsure."""
        relevant = self._relevant_statements()
        if relevant is None:
            return True
        parents = parent_map(self.fn)
        child, parent = node, parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, _OPAQUE):
                return True
            child, parent = parent, parents.get(id(parent))
        stmt = node if isinstance(node, ast.stmt) else parent
        if isinstance(stmt, ast.Return) and stmt.value is child and isinstance(child, ast.Tuple):
            position = next((i for i, e in enumerate(child.elts) if any(n is node for n in ast.walk(e))), None)
            if position is not None:
                return self._position_kept(position)
        return stmt is None or id(stmt) not in relevant[1] or id(stmt) in relevant[0]

    def slice_needs(self) -> set[str] | None:
        """The names the statements of this function's slice read (None when the slice is unknown)."""
        relevant = self._relevant_statements()
        return None if relevant is None else relevant[2][0]

    def _position_kept(self, position: int) -> bool:
        """Is this position of the tuple the function returns used by some caller on the pipeline?"""
        kept = returned_positions(self, self.fn, "<lines" in self.fn.qualname, False)
        return kept is None or position in kept

    # ------------------------------------------------------------------ the slice
    def _relevant_statements(self) -> tuple[set[int], set[int], tuple[set[str], set[str]]] | None:
        """(ids of the output statements, ids of every statement analysed, (the names they read, those of
        them whose value from the skipped lines they read)), computed once per context."""
        assumed = self.project.memo.get(ASSUMED_DEAD)
        if assumed:   # under a liveness assumption (see `state_liveness`): kept for that assumption only
            key = ("slice_assuming", assumed)
            if key not in self.fn.walks:
                try:
                    self.fn.walks[key] = self._slice()
                except RecursionError:
                    self.fn.walks[key] = None
            return self.fn.walks[key]
        if self.relevance is None:
            try:
                self.relevance = self._slice()
            except RecursionError:
                self.relevance = False
        return self.relevance or None

    def _slice(self, skip: tuple[int, int] | None = None, positions: frozenset[int] | None | bool = False
               ) -> tuple[set[int], set[int], tuple[set[str], set[str]]]:
        """The slice; with `skip`, of the function without the statements on those lines (an inline range's
        enclosing function, asked what it needs of the range); with `positions`, when a caller uses only those
        positions of what it returns (`unused_positions`)."""
        fn = self.fn
        inline = "<lines" in fn.qualname
        params = frozenset(fn.params)
        declared = frozenset(n for node in fn.nodes if isinstance(node, (ast.Global, ast.Nonlocal))
                             for n in node.names)
        outside = (params if not inline else frozenset()) | declared | {self.self_name} | set(self.module.imports) \
            | (set(self.module.globals) if fn.qualname != MODULE_BODY else set())
        groups, foreign = _aliases(fn.nodes, outside, frozenset(self.module.imports))
        kept = returned_positions(self, fn, inline, skip is not None) if positions is False else positions
        scope = _Scope(params, declared, inline, foreign, self._io_handles(), kept)
        stmts: list[_Stmt] = []
        self._describe(fn.node.body, stmts, scope, None, skip)
        for s in stmts:   # filling `buf` from `for buf in bufs:` fills `bufs`
            s.fills |= {alias for group in groups if s.fills & group for alias in group}
            s.output = s.output or bool(s.fills & foreign)
        deferred = narrow_outputs(stmts, params, self)   # a kept world step's bookkeeping: no output
        needed: set[str] = set()   # names some output statement reads (what fills them is an output too)
        at_entry: set[str] = set()   # names whose value on entry an output statement reads
        from_skipped: set[str] = set()   # names whose value from the skipped lines a statement reads
        if inline:
            needed |= {p for p in params if p != self.self_name and not self._host_outside(p, filled=True)}
        out: set[int] = set()
        work = [s for s in stmts if s.output]
        ordered = self._ordered_locals(stmts, scope, groups)

        def mark(s: _Stmt) -> None:
            if id(s.node) not in out:
                out.add(id(s.node))
                work.append(s)
        for s in list(work):
            out.add(id(s.node))
        while work:
            while work:
                s = work.pop()
                if s.parent is not None:
                    mark(s.parent)   # the block around it decides whether it runs
                s.served |= {t for t in s.reads_for if t in needed}
                for name in s.reads | {n for t in s.served for n in s.reads_for[t]}:
                    needed.add(name)
                    for binder in _reaching(s, name):
                        if binder is None:
                            at_entry.add(name)
                        elif binder.skipped:
                            from_skipped.add(name)
                        else:
                            mark(binder)
            for s in stmts:
                if id(s.node) not in out and (fills_needed(s, needed, ordered, stmts, out)
                                              or inline and s.binds & at_entry or s.control and out):
                    mark(s)   # what fills a needed object; in a range, what it leaves for its next pass to read;
                              # the jumps that decide whether an output runs
                elif id(s.node) in out and any(t in needed and t not in s.served for t in s.reads_for):
                    work.append(s)   # `a, b = f(x, y)`, `b` needed since: what `f` computes `b` from
            list(map(mark, deferred_state(deferred, [s for s in stmts if id(s.node) in out], self.self_name)))
        if skip is not None:   # every read of what the skipped lines leave, output or not (a print of it)
            from_skipped |= {name for s in stmts if not s.skipped for name in s.reads.union(*s.reads_for.values())
                             if any(b is not None and b.skipped for b in _reaching(s, name))}
        return out, {id(s.node) for s in stmts}, (needed, from_skipped)

    def _ordered_locals(self, stmts: list[_Stmt], scope: _Scope, groups: list[set[str]]) -> dict[str, frozenset[str]]:
        """Locals whose fills count only when an output reads them after (`cv2.rectangle(image, ...)` drawn once
        the model has read `image`), each with the names that may share its object (`crop = image[a:b]`): not a
        parameter, a global, a name bound to an outside object or carried by the driver loop to its next pass,
        nor one sharing its object with such a name."""
        unordered = scope.params | scope.declared | scope.foreign | set(self.fn.carried)
        found: dict[str, frozenset[str]] = {}
        for name in {name for s in stmts for name in s.fills}:
            shared = frozenset({name}.union(*(g for g in groups if name in g)))
            if not shared & unordered:
                found[name] = shared
        return found

    def _describe(self, block: list[ast.stmt], stmts: list[_Stmt], scope: _Scope, parent: _Stmt | None,
                  skip: tuple[int, int] | None = None) -> list[_Stmt]:
        """Describe the statements of `block` (and, depth first, of the blocks inside them) into `stmts`."""
        entries: list[_Stmt] = []
        for stmt in block:
            if skip is not None and skip[0] <= stmt.lineno <= skip[1]:
                if not entries or not entries[-1].skipped:   # the range: one statement binding what it binds
                    entries.append(_Stmt(stmt, parent=parent, block=entries, position=len(entries), skipped=True))
                entries[-1].binds |= {n.id for n in walked(stmt) if isinstance(n, ast.Name)
                                      and isinstance(n.ctx, ast.Store)}
                continue
            entry = _Stmt(stmt, parent=parent, block=entries, position=len(entries))
            entries.append(entry)
            stmts.append(entry)
            self._one(stmt, entry, scope)
            dead = self.dead_block(stmt) if isinstance(stmt, ast.If) else None
            for name in _BLOCKS:
                if name == dead:
                    continue   # a block the settings rule out runs nothing, reads nothing
                for inner in _blocks(getattr(stmt, name, None) or []):
                    for child in self._describe(inner, stmts, scope, entry, skip):
                        entry.inside += [child, *child.inside]
        return entries

    def _one(self, stmt: ast.stmt, entry: _Stmt, scope: _Scope) -> None:
        """What one statement (the head of a compound one) binds, fills, reads; is it an output itself?"""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            entry.output = True   # a closure may run anywhere: what it reads stays
            entry.binds.add(stmt.name)
            entry.reads |= {n.id for n in walked(stmt) if isinstance(n, ast.Name)}
            return
        for head in statement_heads(stmt):
            self._expression(head, entry, scope)
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            entry.binds |= _target_names(stmt.target)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    entry.binds |= _target_names(item.optional_vars)
        if isinstance(stmt, ast.Return):
            if stmt.value is not None and scope.inline and isinstance(stmt.value, ast.Tuple) \
                    and stmt is fn_last(self.fn):
                kept = [e for e in stmt.value.elts if not (isinstance(e, ast.Name) and self._host_outside(e.id))]
                entry.output = bool(kept)
                entry.reads = {n.id for e in kept for n in walked(e) if isinstance(n, ast.Name)}
            elif stmt.value is None or isinstance(stmt.value, ast.Constant) and stmt.value.value is None:
                entry.control = True   # `return`: it matters when something after it does
            else:   # a value (or positions of a tuple) no caller uses, with no effect in it, is no output
                effect, unused = entry.output, scope.kept == frozenset() and not entry.output
                entry.output, entry.control = not unused, unused
                entry.reads = entry.reads if effect else kept_reads(stmt.value, scope.kept, entry.reads)
        elif isinstance(stmt, (ast.Break, ast.Continue)):
            entry.control = True
        elif isinstance(stmt, (ast.Raise, ast.Global, ast.Nonlocal, ast.Assert,
                               ast.Import, ast.ImportFrom)) or type(stmt).__name__ in ("Match", "TryStar"):
            entry.output = True
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                self._store(target, entry, scope)
            split = None if entry.output or not isinstance(stmt, ast.Assign) else target_reads(self, stmt)
            entry.reads, entry.reads_for = split or (entry.reads, {})
            if isinstance(stmt, ast.AugAssign):
                entry.reads |= {n.id for n in walked(stmt.target) if isinstance(n, ast.Name)}
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self._store(target, entry, scope)

    def _expression(self, expr: ast.AST, entry: _Stmt, scope: _Scope) -> None:
        """Names `expr` reads; the calls in it that write outside the function's locals or are unknown."""
        loggers: set[int] = set()   # `self.get_logger()` of `self.get_logger().info(...)`: the report's receiver
        for n in walked(expr):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                entry.reads.add(n.id)
            elif isinstance(n, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
                entry.output = True
            elif isinstance(n, ast.Call) and id(n) not in loggers:
                if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Call) \
                        and self.io_kind(n) == "logging":
                    loggers |= {id(c) for c in walked(n.func.value) if isinstance(c, ast.Call)}
                self._call(n, entry, scope)

    def _call(self, call: ast.Call, entry: _Stmt, scope: _Scope) -> None:
        if self.clock_kind(call) is not None or self.call_name(call) in PACING_FUNCTIONS:
            return   # a clock read, a wait: no output itself
        if self.io_kind(call) is not None:
            if not self._reports(call, scope.handles):
                entry.output = True   # a publish, a send: what it is handed leaves the step
            return
        if self.builtin(call) in VALUE_BUILTINS:
            return
        func = call.func
        if isinstance(func, ast.Attribute) and (isinstance(root_of(func.value), ast.Name)
                                                and root_of(func.value).id in scope.handles
                                                or func.attr in FILE_WRITER_METHODS):
            return   # `writer.writerows(rows)` of `writer = csv.writer(f)`, `axes[0].plot(xs)`, `table.to_csv(p)`
        if self._draws(call):
            return   # `plt.plot(xs)`: drawn for a person
        if isinstance(func, ast.Attribute):
            root = root_of(func.value)
            method = func.attr
            fills = method in WRITING_METHODS or (method.endswith("_") and method not in INPLACE_EXCEPTIONS)
            if fills and isinstance(root, ast.Name) and self._own(root.id, scope):
                entry.fills.add(root.id)   # `rows.append(row)`, `buf.fill_(0)`: fills a local
                entry.reads.add(root.id)
                return
            if not fills and method in DATA_METHOD_NAMES:
                return   # `self.gains.mean()`, `x.reshape(3)`: a value
            if fills and isinstance(root, ast.Name) and root.id == self.self_name \
                    and isinstance(func.value, ast.Attribute) and func.value.value is root \
                    and self._unread_state(func.value.attr):
                return   # `self.log_rows.append(row)`: a list of the object nothing reads but reports
            record = self_record(func.value, self.self_name)
            if fills and record is not None and (self.telemetry(record) or self.dead_state(record)):
                return   # `self.logs["pos"].append(p)`: a record no code reads back as data
        name = self.call_name(call)
        if name in TORCH_RANDOM or name in STDLIB_DRAWS or name and name.startswith(RANDOM_MODULES) \
                and name not in NOT_DRAWS:
            entry.output = True   # a draw advances the process's generator, which every later draw reads
            return
        if name and name.partition(".")[0] in PURE_LIBRARIES + TABLE_LIBRARIES and not writes_argument(call, name):
            return
        written = written_argument(call, name) if name else None
        if written is not None and isinstance(root_of(written), ast.Name) and self._own(root_of(written).id, scope) \
                and (name.partition(".")[0] in PURE_LIBRARIES or name in DRAWING_FUNCTIONS) \
                and not self.resolve_call(call):
            entry.fills.add(root_of(written).id)   # `np.copyto(buf, x)`, `cv2.rectangle(image, ...)`: fills a local
            entry.reads.add(root_of(written).id)
            return
        callees = self.resolve_call(call)
        if callees and all(not c.is_method and self.for_function(c).reports_only() for c in callees) \
                or self.reporter_call(call):
            return   # a debug printer of the project
        if callees and all(self.for_function(c).value_only() for c in callees):
            return   # `err = self.tracking_error()`: a value; what the statement binds of it is what counts
        entry.output = True

    def _store(self, target: ast.expr, entry: _Stmt, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            if target.id in scope.declared:
                entry.output = True
            entry.binds.add(target.id)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._store(element, entry, scope)
            return
        if isinstance(target, ast.Starred):
            self._store(target.value, entry, scope)
            return
        root = root_of(target)
        for part in walked(target):   # `obs[i] = v`: the index is read
            if isinstance(part, ast.Name) and part is not root:
                entry.reads.add(part.id)
        if isinstance(root, ast.Name) and self._own(root.id, scope):
            entry.fills.add(root.id)   # `obs[i] = v`, `msg.data = v`
            entry.reads.add(root.id)
            return
        if isinstance(root, ast.Name) and root.id == self.self_name and isinstance(target, ast.Attribute) \
                and target.value is root and self._unread_state(target.attr):
            return   # `self.last_stamp = t`: an attribute nothing reads, or read only to report it
        record = self_record(target, self.self_name)
        if isinstance(target, ast.Subscript) and record is not None and (self.telemetry(record)
                                                                         or self.dead_state(record)):
            return   # `self.stats[k] = v`: a record no code reads back as data
        entry.output = True

    def reports(self, call: ast.Call) -> bool:
        return self._reports(call)

    def _reports(self, call: ast.Call, handles: frozenset[str] = frozenset()) -> bool:
        """Does the I/O call only report (`print`, a log, a CSV row, a metrics logger, a write to a file it
        opened)?"""
        if self.builtin(call) in ("print", "open") or self.io_kind(call) == "logging":
            return True
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in handles:
            return True   # `writer.writerow(row)`, `f.write(line)` on what it opened
        if any(isinstance(a, ast.Name) and a.id in handles for a in [*call.args, *(k.value for k in call.keywords)]):
            return True   # `json.dump(rows, f)`, `np.savetxt(f, rows)` into what it opened
        name = self.call_name(call) or ""
        at = PATH_SAVERS.get(name)
        if at is not None and len(call.args) > at and named_path(self.fn.nodes, call.args[at]):
            return True   # `np.save(f"{log_dir}/{stamp}_obs.npy", rows)`: a file it names and writes
        types = self.types_of(func.value) if isinstance(func, ast.Attribute) else set()
        return name.startswith(REPORT_ROOTS) or any(t.startswith(REPORT_ROOTS) for t in types)

    def _io_handles(self) -> frozenset[str]:
        """Locals every binding of which is a reporting I/O call (`with open(p) as f`, `writer = csv.writer(f)`),
        a plotting call (`fig, axes = plt.subplots(2)`), or a call or item of such a handle."""
        bound: dict[str, list[ast.expr]] = {}
        seen: set[int] = set()
        for node in self.fn.nodes:
            pairs = []
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                pairs = [(node.targets[0], node.value)]
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                    and isinstance(node.targets[0], ast.Tuple) and self._draws(node.value) \
                    and all(isinstance(e, ast.Name) for e in node.targets[0].elts):
                pairs = [(e, node.value) for e in node.targets[0].elts]
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                pairs = [(i.optional_vars, i.context_expr) for i in node.items if isinstance(i.optional_vars, ast.Name)]
            for target, value in pairs:
                seen.add(id(target))
                bound.setdefault(target.id, []).append(value)
        for node in self.fn.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in seen:
                bound.setdefault(node.id, []).append(node)   # any other binding: not only a handle
        handles: set[str] = set()
        while more := {n for n, values in bound.items() if n not in handles
                       and all(self._handle_value(v, handles) for v in values)}:
            handles |= more
        return frozenset(handles)

    def _handle_value(self, value: ast.expr, handles: set[str]) -> bool:   # `ax = fig.add_subplot(1, 2, 1)`
        if isinstance(value, ast.Call) and (self.io_kind(value) is not None and self._reports(value)
                                            or self._draws(value)):
            return True
        held = value.func.value if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) else value
        return isinstance(held, (ast.Attribute, ast.Subscript, ast.Name)) and getattr(root_of(held), "id", 0) in handles

    def _draws(self, call: ast.Call) -> bool:
        return (self.call_name(call) or "").startswith(DRAWING_ROOTS)

    def _own(self, name: str, scope: _Scope) -> bool:
        """Is `name` a local of this call holding its own object (an inline range's inputs and state are its
        own too: what the code around it reads of them is asked separately)?"""
        if name in scope.declared or name in scope.foreign or name == self.self_name:
            return False
        return name not in scope.params or scope.inline

    def _unread_state(self, attr: str) -> bool:
        """`self.<attr>` that the code the step reaches reads only to report it (an attribute nothing of the
        project reads may still be what the host reads: an output)."""
        return self._read_only_for_io(attr) or self.dead_state(attr)

    def _host_outside(self, name: str, filled: bool = False) -> bool:
        """For an inline range: does the function around it never read the value the range leaves in `name`
        (what it reads, even to print, is what the range hands on)? With `filled`, an object the range fills
        (a list of rows): does it read the object only to report it? Its own slice, without the range, answers."""
        if self.fn.outer_values is None:
            return False
        module = self.project.modules[self.fn.module]
        scope = self.fn.qualname.rpartition(".")[0]
        enclosing = module.functions.get(scope) if scope else module_body(self.project, module)
        if enclosing is None:
            return False
        span = (self.fn.node.lineno, self.fn.node.end_lineno or self.fn.node.lineno)
        key = ("range_needs", span, self.project.memo.get(ASSUMED_DEAD))
        needs = enclosing.walks.get(key)
        if needs is None:
            try:
                needs = self.for_function(enclosing)._slice(span)[2]
            except RecursionError:
                needs = False
            enclosing.walks[key] = needs
        if needs is False:
            return False
        read, from_range = needs
        return name not in from_range and not (filled and name in read)


MODULE_BODY = "<module>"


def module_body(project, module) -> FunctionInfo:
    """A module's top-level code as a function without parameters (the scope of an inline range in a script),
    built once per module."""
    key = ("module_body", module.name)
    found = project.memo.get(key)
    if found is None:
        args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
        node = ast.FunctionDef(name=MODULE_BODY, args=args, body=module.tree.body, decorator_list=[], returns=None,
                               lineno=1, col_offset=0, **extra)
        found = project.memo[key] = FunctionInfo(f"{module.name}:{MODULE_BODY}", module.name, MODULE_BODY, node,
                                                 None, module.path)
    return found


def fn_last(fn) -> ast.stmt | None:
    body = fn.node.body
    return body[-1] if body else None


def _blocks(block: list) -> list[list[ast.stmt]]:
    """The statement lists of one field of a compound statement (each `except` handler's body its own)."""
    if block and isinstance(block[0], ast.ExceptHandler):
        return [h.body for h in block]
    return [block]


def _reaching(s: _Stmt, name: str) -> list[_Stmt | None]:
    """The statements whose binding of `name` the read in `s` may see (None: the value on entry): the
    nearest one before it in its block that binds it on every path, those nested in between, and in a loop
    around it (or a `try` whose handler it is in) every binding in that loop."""
    found: list[_Stmt | None] = []
    if isinstance(s.node, (ast.While, ast.For, ast.AsyncFor)):   # a test read again after every pass
        found += [d for d in s.inside if name in d.binds]
    current = s
    while True:
        for sibling in reversed(current.block[:current.position]):
            if name in sibling.binds and not sibling.compound:
                found.append(sibling)
                return found
            found += [d for d in sibling.inside if name in d.binds]
            if name in sibling.binds:
                found.append(sibling)
        parent = current.parent
        if parent is None:
            found.append(None)
            return found
        if name in parent.binds and isinstance(parent.node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            found.append(parent)   # `for i in ...:` binds `i` before every pass of its body
            return found
        if isinstance(parent.node, (ast.For, ast.AsyncFor, ast.While, ast.Try)) or type(parent.node).__name__ == "TryStar":
            found += [d for d in parent.inside if name in d.binds]
        current = parent
