"""Is a function the host's sink of the step's result? A method of another object (a robot interface, a
sender) that the step hands a value to, and that only passes it on: its I/O is the host's, not the step's.

Decided from what the function does with its inputs (returns nothing, writes nothing the step reads back,
makes only I/O, lock and value calls), not from its name.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.relevance import VALUE_BUILTINS, root_of, writes_argument
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.knowledge.draws import RANDOM_MODULES
from leapp_codemod.knowledge.io import HANDOFF_METHODS, PACING_FUNCTIONS
from leapp_codemod.knowledge.vocab import DATA_METHOD_NAMES, PURE_LIBRARIES, WRITING_METHODS


class SinkQuestions:
    """Mixin of `FunctionContext`: `hands_on_only()`."""

    def hands_on_only(self) -> bool:
        """Is this function a sink of the host: a method of another object (a robot interface, a sender) the
        step hands a value of the pipeline to, it returns nothing and only passes that value on (I/O calls, a
        message it builds and publishes, an attribute of its object no code the step reaches reads, which
        another thread sends, a lock around them)? Its I/O is the host taking the result over, not a hazard
        of the step that feeds it."""
        known = self.fn.walks.get("hands_on_only")
        if known is None:
            self.fn.walks["hands_on_only"] = False   # a recursive sink is not proven by itself
            known = self.fn.walks["hands_on_only"] = self._hands_on_only()
        return known

    def _hands_on_only(self) -> bool:
        fn = self.fn
        callers = self.facts.callers.get(fn.id)
        if "<lines" in fn.qualname or not callers or not fn.is_method:
            return False   # the entry, an inline range or a function of its own: the step itself
        for fid in callers:   # the result leaves the step's object: `self.robot.apply(a)`, `sender.put(a)`
            module, _, qualname = fid.partition(":")
            caller = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
            if caller is None or (caller.module, caller.class_name) == (fn.module, fn.class_name):
                return False   # `self.publish(a)`: the step's own I/O
        values = [p for p in fn.params if p != self.self_name]
        if not any(self.is_data(ast.Name(id=p, ctx=ast.Load())) for p in values):
            return False
        handed = False
        for node in fn.nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda, ast.Await)):
                return False
            if isinstance(node, ast.Return) and node.value is not None \
                    and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return False
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                root = root_of(node)
                if not isinstance(root, ast.Name) or root.id in values:
                    return False   # a write into the caller's objects
                if root.id == self.self_name and isinstance(node, ast.Attribute) and node.value is root:
                    if self._read_by_step(node.attr):
                        return False   # state the step reads back
                    handed = True
            if isinstance(node, ast.Call):
                kind = self._hand_off(node)
                if kind is None:
                    return False
                handed = handed or kind
        return handed

    def _hand_off(self, call: ast.Call) -> bool | None:
        """True: a call that hands something to the host (I/O); False: one that computes or locks; None: one
        with effects of its own."""
        if self.io_kind(call) is not None or self.call_name(call) in PACING_FUNCTIONS:
            return True
        if self.builtin(call) in VALUE_BUILTINS or self.clock_kind(call) is not None:
            return False
        func = call.func
        name = self.call_name(call)
        if name and name.partition(".")[0] in PURE_LIBRARIES and not writes_argument(call, name) \
                and not name.startswith(RANDOM_MODULES):
            return False
        if isinstance(func, ast.Attribute) and (func.attr in HANDOFF_METHODS or func.attr in DATA_METHOD_NAMES
                                                and func.attr not in WRITING_METHODS):
            return False   # `self.lock.acquire()`, `action.tolist()`
        callees = self.resolve_call(call)
        if callees and all(not c.is_method and self.for_function(c).reports_only()
                           or self.for_function(c).hands_on_only() for c in callees):
            return True
        last = (name or ast.unparse(func)).rpartition(".")[2]
        if not callees and last[:1].isupper() and not isinstance(self._relevance_parent(call), ast.Expr):
            return False   # `msg = JointState()`: a message built to be sent
        return None

    def _relevance_parent(self, node: ast.AST) -> ast.AST | None:
        return parent_map(self.fn).get(id(node))

    def _read_by_step(self, attr: str) -> bool:
        """Does code the step reaches, other than this function, read `self.<attr>`?"""
        if self.cls is None:
            return True
        return any(fid != self.fn.id for klass in self.project.mro(self.cls)
                   for fid, _ in self.facts.attr_reads.get(klass.id, {}).get(attr, ()))
