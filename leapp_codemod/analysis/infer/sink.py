"""Is a function a project I/O wrapper, the pipeline's boundary? A method of an I/O object (a robot interface,
a middleware node, a sender) whose job is I/O: it sends what the step hands it (publishes, writes to a
device, a socket or a queue another thread sends from) and returns nothing or a status, or it reads a
message or a device and returns what it read; its helpers on the same object count with it.

Decided from what the function does (the I/O knowledge of `knowledge.io`: its calls are I/O, value calls,
message construction and other methods of the boundary; it writes nothing the step reads back), never from
its name. The step's call of a read wrapper is its I/O finding (LCM901), the wrapper's body is not pipeline
code, and what the read returns is the pipeline's input. The class-wide fixpoint is
`analysis.flow.io_boundary`; the verdicts sit in the project memo under `BOUNDARY_KEY`.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.relevance import VALUE_BUILTINS, root_of, writes_argument
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.knowledge.draws import RANDOM_MODULES
from leapp_codemod.knowledge.io import HANDOFF_METHODS, PACING_FUNCTIONS, WIRE_BUILTINS
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS, DATA_METHOD_NAMES, PURE_LIBRARIES, WRITING_METHODS

BOUNDARY_KEY = ("io_boundaries",)
SEND, READ = "send", "read"
_IO, _VALUE = "io", "value"


class SinkQuestions:
    """Mixin of `FunctionContext`: `boundary_kind()` (one function, given its object's other boundary
    methods) and `wrapper_read()` (a call of the step into a read wrapper)."""

    def boundary_kind(self, kinds: dict[str, str], outside: bool) -> str | None:
        """SEND, READ or None for this method, assuming the methods in `kinds` (fid -> kind) are boundary
        methods of its object. `outside`: some caller is not one of them (the step, another object)."""
        fn = self.fn
        values = {p for p in fn.params if p != self.self_name and self.is_data(ast.Name(id=p, ctx=ast.Load()))}
        messages = self._boundary_messages()
        handed = reads = returns = False
        for node in fn.nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda, ast.Await)):
                return None
            if isinstance(node, ast.Return) and node.value is not None and not isinstance(node.value, ast.Constant):
                returns = True
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) \
                    and isinstance(node.value, ast.Name) and node.value.id == self.self_name and node.attr in messages:
                reads = True   # `js = self._last_js`: the message a subscription callback stored
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                root = root_of(node)
                if not isinstance(root, ast.Name) or root.id in values:
                    return None   # a write into the caller's objects
                if root.id == self.self_name and isinstance(node, ast.Attribute) and node.value is root:
                    readers = self._attr_readers(node.attr)
                    if readers - set(kinds) - {fn.id}:
                        return None   # state the step reads back
                    handed = handed or not readers - {fn.id}   # an attribute another thread sends from
            if isinstance(node, ast.Call):
                kind = self._boundary_call(node, kinds)
                if kind is None:
                    return None
                handed = handed or kind in (_IO, SEND)
                reads = reads or kind == READ
        if values and self._computes_with(values):
            return None   # `thrust = (action[3] + 1) / 2` before the send: post-processing of the pipeline
        if not outside:
            return READ if reads else SEND   # a helper of the boundary (`self._publish_gap()`)
        if returns:
            return READ if reads and not values else None   # a read takes nothing of the pipeline
        return SEND if handed and values else None          # a send hands a value of the pipeline on

    def _computes_with(self, values: set[str]) -> bool:
        """Does the function compute with what it is handed (arithmetic, an ordering, `min`/`max`/`abs`/
        `round`) rather than only pack it (convert, index, format, put it in a message)? Followed through the
        local names bound from it; a size (`len(values) != 16`) is no computation."""
        derived, changed = set(values), True
        while changed:
            changed = False
            for node in self.fn.nodes:
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.comprehension)):
                    source = node.iter if isinstance(node, (ast.For, ast.comprehension)) else node.value
                    targets = [node.target] if not isinstance(node, ast.Assign) else node.targets
                    if source is not None and _mentions(source, derived):
                        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)} - derived
                        changed = changed or bool(names)
                        derived |= names
        for node in self.fn.nodes:
            if isinstance(node, ast.BinOp) or isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
                if _mentions(node, derived):
                    return True
            if isinstance(node, ast.Compare) and any(_mentions(x, derived) for x in (node.left, *node.comparators)
                                                     if not (isinstance(x, ast.Call) and self.builtin(x) == "len")):
                return True
            if isinstance(node, ast.Call) and self.builtin(node) in ("min", "max", "abs", "round", "sum") \
                    and _mentions(node, derived):
                return True
        return False

    def _boundary_messages(self) -> set[str]:
        if self.cls is None:
            return set()
        return {a for klass in self.project.mro(self.cls) for a in self._message_attrs(klass)}

    def _attr_readers(self, attr: str) -> set[str]:
        """Functions the step reaches that read `self.<attr>` (all of them when the class is unknown)."""
        if self.cls is None:
            return {"?"}
        return {fid for klass in self.project.mro(self.cls) for fid, _ in self.facts.attr_reads.get(klass.id, {}).get(attr, ())}

    def _boundary_call(self, call: ast.Call, kinds: dict[str, str]) -> str | None:
        """_IO (an I/O call or a wait), READ (an I/O call whose value is used, a read wrapper), SEND (a send
        helper), _VALUE (a value computed, a lock taken, a message built) or None (effects of its own)."""
        parents = parent_map(self.fn)
        if self.io_kind(call) is not None:
            return READ if not isinstance(parents.get(id(call)), ast.Expr) and not self.only_logged(call) else _IO
        name = self.call_name(call)
        if name in PACING_FUNCTIONS:
            return _IO
        if self.builtin(call) in VALUE_BUILTINS | WIRE_BUILTINS or self.clock_kind(call) is not None:
            return _VALUE
        if name and name.partition(".")[0] in PURE_LIBRARIES and not writes_argument(call, name) \
                and not name.startswith(RANDOM_MODULES):
            return _VALUE
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in HANDOFF_METHODS or func.attr in DATA_METHOD_NAMES and func.attr not in WRITING_METHODS:
                return _VALUE   # `self.lock.acquire()`, `action.tolist()`, `name.lower()`
            if func.attr in CONTAINER_MUTATORS and isinstance(func.value, ast.Name) \
                    and func.value.id not in self.fn.params:
                return _VALUE   # `index_map.append(i)` on a list of its own
            if isinstance(func.value, ast.Call) and (self.clock_kind(func.value) or self.io_kind(func.value)) \
                    or isinstance(func.value, (ast.JoinedStr, ast.Constant)):
                return _VALUE   # `self.get_clock().now().to_msg()`, `f"T {a:.3f}".encode()`: a value's own method
        if self._io_receiver(call, parents):
            return _VALUE       # `self.get_logger()` of `self.get_logger().warn(...)`
        callees = self.resolve_call(call)
        if callees and all(c.id in kinds for c in callees):
            found = {kinds[c.id] for c in callees}
            return READ if READ in found else SEND
        if callees and all(not c.is_method and self.for_function(c).reports_only() for c in callees) \
                or self.reporter_call(call):
            return _IO
        last = (name or ast.unparse(func)).rpartition(".")[2]
        if not callees and last[:1].isupper() and not isinstance(parents.get(id(call)), ast.Expr):
            return _VALUE   # `msg = JointState()`: a message built to be sent
        return None

    def _io_receiver(self, call: ast.Call, parents) -> bool:
        """Is `call` the object an I/O or clock call is made on (`self.get_logger()`, `self.get_clock()`)?"""
        attr = parents.get(id(call))
        outer = parents.get(id(attr)) if isinstance(attr, ast.Attribute) else None
        return isinstance(outer, ast.Call) and outer.func is attr \
            and (self.io_kind(outer) is not None or self.clock_kind(outer) is not None)

    def wrapper_read(self, call: ast.Call) -> str | None:
        """`self.io.poll_joint_position()`: the qualified name of the project I/O wrapper the call reads
        through, when every function it may run is a read boundary of another object; else None."""
        return self._wrapper_of_kind(call, READ)

    def wrapper_send(self, call: ast.Call) -> str | None:
        """`self.robot.send_cmd(cmd)`: the qualified name of the project I/O wrapper the call hands pipeline
        data to, when every function it may run is a send boundary of another object; else None."""
        if not self.args_data(call) or any(c.name == "__init__" for c in self.resolve_call(call)):
            return None   # a constructor builds an object of what it is handed (`SampleDist(dist)`): no send
        return self._wrapper_of_kind(call, SEND)

    def _wrapper_of_kind(self, call: ast.Call, kind: str) -> str | None:
        kinds = self.project.memo.get(BOUNDARY_KEY)
        if not kinds or self.fn.id in kinds:
            return None
        callees = self.resolve_call(call)
        if not callees or any(kinds.get(c.id) != kind for c in callees):
            return None
        return callees[0].qualname



def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))
