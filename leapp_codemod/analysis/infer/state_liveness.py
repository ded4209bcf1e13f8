"""Is an attribute of `self` state the pipeline carries, or a value kept only for people (dead state)?

What the step stores on its object is one of its outputs only when some later call can use it: when a read of
the attribute, somewhere in the project, sits in a statement of its function's backward slice (it reaches that
function's return, a send, state that is itself carried, or decides which of those run). A period kept between
timer ticks and logged by another timer, the largest command seen for a summary print, a moving average a log
method reports, a status line a script prints: every read of those reaches only host-side sinks (text, logs,
files, plots), so storing them is no output, and a clock read, a conversion or a branch that only feeds them is
no finding of the export.

The question is a least fixpoint: while `self.<attr>` is asked, it is assumed dead, so a read that only feeds
its own next value (`if self.prev is not None: ... self.prev = now`) or another attribute being asked proves
nothing. Slices computed under such an assumption are kept for that assumption only (see `RelevanceQuestions`);
an answer "live" is kept whatever was assumed (assuming more dead leaves fewer outputs), "dead" only when asked
with no assumption. Unsure is live: an attribute no code of the project reads, or reads only to fill
or trim it again (a library runner may read what it keeps), read by more than `MAX_READERS` functions, bound by
`register_buffer`, read by a library base class's code, of a class that reads its attributes by computed name
(`getattr(self, name)`, `vars(self)`, `self.__dict__`), or asked deeper than `MAX_DEPTH`.

Asked with no assumption, the question is put for all the attributes the class's own methods store at once
(`_dead_together`): a value that goes through several attributes before it reaches a report (a rate, its
window, its average, a row list saved at shutdown) is dead however long the chain, where asking one attribute
at a time would stop at `MAX_DEPTH` on the attributes the step's other stores bring in.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.relevance import module_body
from leapp_codemod.analysis.infer.telemetry import ASSUMED_DEAD, attribute_reads, grows, reader_context
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.resolve_types import subclasses
from leapp_codemod.knowledge.vocab import WRITING_METHODS
MAX_READERS = 12
MAX_DEPTH = 3
MAX_TOGETHER = 128  # attributes of one class asked together at most


class StateLivenessQuestions:
    """Mixin of `FunctionContext`: `dead_state(attr)`."""

    def dead_state(self, attr: str) -> bool:
        """Does the value this function stores in `self.<attr>` reach no output of any later call (see the
        module doc)? False when unsure."""
        if self.cls is None or self.self_name is None:
            return False
        memo = self.project.memo
        assumed: frozenset[str] = memo.get(ASSUMED_DEAD, frozenset())
        if attr in assumed:
            return True
        key = ("dead_state", self.cls.id, attr, self.project.own_module_count())
        known = memo.get(key)
        if known is not None:
            return known
        if not assumed:
            together = self._dead_together(attr)
            if together is not None:
                return together
        if len(assumed) >= MAX_DEPTH:
            return False
        memo[ASSUMED_DEAD] = assumed | {attr}
        try:
            verdict = self._reads_reach_nothing(attr)
        except RecursionError:
            verdict = False
        finally:
            memo[ASSUMED_DEAD] = assumed
        if not assumed or not verdict:
            memo[key] = verdict   # live under an assumption is live without it; dead under one is not final
        return verdict

    def _dead_together(self, attr: str) -> bool | None:
        """The question for every attribute the class's own methods store, at once: all are assumed dead, and
        those a read of which still reaches an output under that assumption are live; again with what is left,
        until nothing more is live (the least fixpoint of liveness). What is left is dead: its reads reach only
        each other and host-side sinks. None when the class stores too many attributes to ask together."""
        key = ("dead_together", self.cls.id, self.project.own_module_count())
        memo = self.project.memo
        if key in memo:
            return None   # asked already (too many), or being asked
        stored = {a for klass in self.project.mro(self.cls) if not self.project.is_library(klass.module)
                  for a in klass.attr_values}
        if attr not in stored:
            return None
        memo[key] = True
        if len(stored) > MAX_TOGETHER:
            return None
        dead = set(stored)
        while dead:   # by name, like the reads asked about (`attribute_reads`): other classes' included
            memo[ASSUMED_DEAD] = frozenset(dead)
            try:
                live = {a for a in sorted(dead) if not self._reads_reach_nothing(a)}
            except RecursionError:
                live = set(dead)
            finally:
                memo[ASSUMED_DEAD] = frozenset()
            if not live:
                break
            dead -= live
            for a in live:   # live under more assumed dead is live: final at once
                memo[("dead_state", self.cls.id, a, self.project.own_module_count())] = False
        for a in dead:
            memo[("dead_state", self.cls.id, a, self.project.own_module_count())] = True
        return attr in dead

    def _reads_reach_nothing(self, attr: str) -> bool:
        klasses = self.project.mro(self.cls)
        if any(attr in k.buffers for k in klasses) or any(_reads_by_name(k, self.project) for k in klasses):
            return False
        if any(self.project.is_library(k.module) and any(
                isinstance(n, ast.Attribute) and n.attr == attr for m in k.methods.values() for n in m.nodes)
               for k in klasses):
            return False   # a library base class reads it (`self.training` of `nn.Module`): its uses are not seen
        reads = [(fn, node) for fn, node in attribute_reads(self.project).get(attr, [])
                 if not self._another_classes_own(fn, node)]
        if not reads or len({id(fn) for fn, _ in reads}) > MAX_READERS:
            return False
        if any(fn is not None and _returned(node, parent_map(fn)) for fn, node in reads):
            return False   # `return self.net(x) * self.scale`: handed on (asked first: no slice needed)
        used = False   # read back somewhere, not only to fill or trim it again (the host may read what is kept)
        for fn, node in reads:
            if fn is None:
                fn = module_body_of(self.project, node)
                if fn is None:
                    return False
            if grows(node, parent_map(fn)):
                continue   # `self.rows.append(r)`, `self.hist[k] = v`: filling it again
            if reader_context(self, fn).reaches_output(node):
                return False
            used = used or not _upkeep(node, attr, parent_map(fn))
        return used


    def _another_classes_own(self, fn, node: ast.AST) -> bool:
        """`self.d_goal_last` read in a method of a class neither above nor below this one (a training
        environment elsewhere that keeps a field of the same name): that object's field, never this one's."""
        if fn is None or fn.class_name is None or not fn.is_method or not fn.positional_params:
            return False
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == fn.positional_params[0]):
            return False
        owner = self.project.modules[fn.module].classes.get(fn.class_name)
        if owner is None:
            return False
        family = {k.id for k in self.project.mro(self.cls)} | {k.id for k in subclasses(self.project, self.cls)}
        return owner.id not in family and not (family & {k.id for k in self.project.mro(owner)})


def _returned(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Is this read part of the value a `return` hands back?"""
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            return False
        parent = parents.get(id(parent))
    return isinstance(parent, ast.Return)


def _upkeep(node: ast.AST, attr: str, parents: dict[int, ast.AST]) -> bool:
    """Is this read of `x.<attr>` only upkeep of the attribute itself: the test of a block that only writes
    into it (`if len(self.recent) > 4: self.recent.pop(0)`), or a statement that only rebinds it
    (`self.recent = self.recent[-4:]`)?"""
    child, stmt = node, parents.get(id(node))
    while stmt is not None and not isinstance(stmt, ast.stmt):
        child, stmt = stmt, parents.get(id(stmt))
    if isinstance(stmt, (ast.If, ast.While)) and child is stmt.test:
        return all(_writes_only(s, attr) for s in stmt.body + stmt.orelse)
    return _writes_only(stmt, attr)


def _writes_only(stmt: ast.AST | None, attr: str) -> bool:
    """`self.<attr> = ...`, `self.<attr>[k] = ...`, `self.<attr>.pop(0)`: a statement writing only into it."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return all(_root_attr(t) == attr for t in targets)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
        return stmt.value.func.attr in WRITING_METHODS and _root_attr(stmt.value.func.value) == attr
    return False


def _root_attr(expr: ast.expr) -> str | None:
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr.attr if isinstance(expr, ast.Attribute) else None


def _reads_by_name(klass, project) -> bool:
    """Does a method of the class read its own attributes by a computed name, or all of them at once?"""
    key = ("reads_by_name", klass.id)
    found = project.memo.get(key)
    if found is None:
        found = False
        for fn in klass.methods.values():
            for node in fn.nodes:
                if isinstance(node, ast.Attribute) and node.attr == "__dict__" \
                        or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                            node.func.id == "vars" or node.func.id == "getattr" and len(node.args) >= 2
                            and not isinstance(node.args[1], ast.Constant)):
                    found = True
                    break
            if found:
                break
        project.memo[key] = found
    return found


def module_body_of(project, node: ast.AST):
    """The top-level code of the scanned module holding the attribute read `node`, as a function (None: not
    found)."""
    name = project.memo.get(("module_reads", project.own_module_count()), {}).get(id(node))
    module = project.modules.get(name) if name else None
    return module_body(project, module) if module is not None else None
