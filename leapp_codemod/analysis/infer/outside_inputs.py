"""Reads of values filled outside the step: is this `self.cmd` / `SPEED` the step turns into data something a
callback, a listener, a thread or a handler wrote between calls (`analysis.model.filled_outside`)?

Only the first read per name and field path read off it (`self.low_state.motor_state[i].q`, `.motor_state[i].dq`
and `.imu_state.gyroscope` are three inputs; `.x`/`.y` of one part are one), at most one per statement, in a
function that feeds the function's outputs counts; writing through the value (`self.cmd.q[i] = v`)
is no read. A read that only gates
(`if self.js is None: return`, `while not self.ready:`, `len(self.buf) < 3`, `hasattr`) decides whether the step
runs, not what it computes: no data. Writers the step itself reaches are pipeline code (their writes are state,
reported by the state rules), so the analysis hands the reached functions over under `REACHED_KEY`.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.telemetry import attribute_reads
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.filled_outside import Fill, class_fills, global_fills, module_fills, split_global
from leapp_codemod.analysis.model.object_fills import ObjectWrite, method_data_writes, object_writes
from leapp_codemod.analysis.model.walk import is_self_attr, name_stores
from leapp_codemod.knowledge.io import VECTOR_COMPONENTS
from leapp_codemod.knowledge.vocab import WRITING_METHODS

# project memo key: the function ids the analysis whose rules run now reached
REACHED_KEY = ("outside-inputs-reached",)
# Calls whose answer about a value is a yes/no or a size: a gate, never the value itself.
_GATE_CALLS = frozenset({"len", "hasattr", "isinstance", "bool", "callable", "id", "type"})


class OutsideInputQuestions:
    """Mixin of `FunctionContext`: `filled_outside(node)`."""

    def filled_outside(self, node: ast.AST) -> Fill | None:
        """The write (by code registered to run outside the step) of the value this read gives, when the read
        is the function's first that feeds its outputs with that name; None otherwise."""
        fills = self._outside_fills(node)
        if not fills:
            return None
        name = node.attr if isinstance(node, ast.Attribute) else node.id
        key = ("outside_reported", name)
        reported = self.fn.walks.get(key)
        if reported is None:
            reported = self.fn.walks[key] = self._reported_reads(node)
        return fills[0] if id(node) in reported else None

    def _reported_reads(self, node: ast.AST) -> frozenset[int]:
        """The reads of this name the rule reports: per field path read off the value, the first that feeds the
        function's outputs, and at most one per statement (`np.array([m.pose.x, m.twist.x])` builds one input in
        one place)."""
        reads = sorted((n for n in self.fn.nodes if self._same_read(n, node)
                        and not self._gates(n) and not self._written_through(n)),
                       key=lambda n: (n.lineno, n.col_offset))
        fields: set[tuple[str, ...]] = set()
        statements: set[int] = set()
        out: set[int] = set()
        for read in reads:
            field, statement = self._field(read), self._statement(read)
            if field in fields or statement in statements or not self.reaches_output(read) \
                    or self._kept_unread(read):
                continue
            fields.add(field)
            statements.add(statement)
            out.add(id(read))
        return frozenset(out)

    def _kept_unread(self, node: ast.AST) -> bool:
        """`self.euler = self.state.imu.rpy` where no scanned code reads `euler`: kept for nobody, no input the
        step turns into data (a class with a library base may read it: unsure, kept)."""
        parents = parent_map(self.fn)
        stmt = parents.get(id(node))
        while stmt is not None and not isinstance(stmt, ast.stmt):
            stmt = parents.get(id(stmt))
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and is_self_attr(stmt.targets[0], self.self_name)) or self.cls is None:
            return False
        if any(self.project.is_library(k.module) for k in self.project.mro(self.cls)):
            return False
        return not attribute_reads(self.project).get(stmt.targets[0].attr)

    def _statement(self, node: ast.AST) -> int:
        parents = parent_map(self.fn)
        while node is not None and not isinstance(node, ast.stmt):
            node = parents.get(id(node))
        return id(node)

    def _field(self, node: ast.AST) -> tuple[str, ...]:
        """The field path read off the value, through indexing (`motor_state.q` of `self.low_state.motor_state[i]
        .q`, `twist.twist.linear` of `self.odom.twist.twist.linear.x`; () for the value itself): each part of a
        stored message the step reads is its own input; the components of one vector (`.x`, `.y`) are one."""
        parents = parent_map(self.fn)
        path: list[str] = []
        child, parent = node, parents.get(id(node))
        while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is child:
            if isinstance(parent, ast.Attribute):
                path.append(parent.attr)
            child, parent = parent, parents.get(id(parent))
        if path and path[-1] in VECTOR_COMPONENTS:
            path.pop()
        return tuple(path)

    def _written_through(self, node: ast.AST) -> bool:
        """`self.cmd.motor[i].q = v`: the value is the object the step writes into, not a value it reads."""
        parents = parent_map(self.fn)
        child, parent = node, parents.get(id(node))
        while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is child:
            child, parent = parent, parents.get(id(parent))
        return child is not node and isinstance(getattr(child, "ctx", None), ast.Store)

    def _outside_fills(self, node: ast.AST) -> list[Fill]:
        if not isinstance(getattr(node, "ctx", None), ast.Load) or self.project.is_library(self.fn.module):
            return []     # an installed library's own bookkeeping between calls is not the application's input
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name not in self._fill_names():
            return []
        if isinstance(node, ast.Attribute) and is_self_attr(node, self.self_name):
            if self.cls is None:
                return []
            fills = [*class_fills(self.project, self.cls).get(node.attr, []), *self._object_fills(node)]
        elif isinstance(node, ast.Attribute):
            place = self._module_global(node)
            fills = global_fills(self.project).get(place, []) if place else []
        elif isinstance(node, ast.Name):
            closures = [f for f in module_fills(self.project, self.module).get(node.id, []) if f.scope]
            place = self._module_global(node)
            fills = [f for f in closures if self._in_scope(f)] + (global_fills(self.project).get(place, []) if place
                                                                  else [])
            inline = "<lines" in self.fn.qualname     # an inline range: what it reads from before it are parameters
            if fills and (node.id in self.fn.params and not inline or name_stores(self.fn).get(node.id)) \
                    and not any(f.scope == self.fn.id for f in fills):
                return []     # a local or a parameter of the same name (not the closure's own variable)
        else:
            return []
        reached = self.project.memo.get(REACHED_KEY, frozenset())
        return [f for f in fills if f.writer_id not in reached and f.writer_id != self.fn.id
                and not self.fn.id.startswith(f"{f.writer_id}.<lines")   # the callback an inline range is cut from
                and not _inside_reached_range(f, reached)]

    def _object_fills(self, node: ast.Attribute) -> list[Fill]:
        """Writes through an object held on self (`object_fills`): the holder's registered code fills the field
        the step reads off the object (`self.pad.lx`, after `self.pad.update(msg.axes)` or `self.pad.lx = v`), or
        the step is a method of the object and reads its own field a holder's registered code fills (`self.state`,
        after the holder's callback `self.robot.set_state(msg)` or `self.robot.state = msg`)."""
        family = {k.id for k in self.project.mro(self.cls)}
        field = next(iter(self._field(node)), "")    # the field of the held object (`lx` of `self.pad.lx.v`)
        out = []
        for write in object_writes(self.project):
            if not write.data:
                continue
            if write.holder in family and write.receiver == node.attr:    # `self.pad.lx`, or `self.pad` whole
                if write.field and write.field == (field or write.field) or write.method \
                        and write.method not in WRITING_METHODS and any(
                            field in stored or not field and stored for stored in
                            (method_data_writes(self.project, m) for m in self._held_methods(write))):
                    out.append(Fill(f"{node.attr}.{field}" if field else node.attr, write.module, write.path,
                                    write.line, write.column, write.writer, write.writer_id))
            method = self.project.find_method(self.cls, write.method) if write.method else None
            stored = method_data_writes(self.project, method).get(node.attr) if method is not None else None
            if (stored is not None or not write.method and write.field == node.attr) and any(
                    self.cls.id in {k.id for k in self.project.mro(held)} for held in self._held_classes(write)):
                path, line, column = (method.path, stored.lineno, stored.col_offset) if stored is not None \
                    else (write.path, write.line, write.column)
                module = method.module if stored is not None else write.module
                out.append(Fill(node.attr, module, path, line, column, f"{write.writer} (self.{write.receiver}"
                                f"{'.' + write.method if write.method else ''})", write.writer_id))
        return out

    def _held_classes(self, write: ObjectWrite) -> list:
        """The project classes the holder's attribute holds."""
        found = (self.class_for_type(t) for t in sorted(self.attr_types(write.holder_cls, write.receiver)))
        return [cls for cls in found if cls is not None]

    def _held_methods(self, write: ObjectWrite) -> list:
        found = (self.project.find_method(cls, write.method) for cls in self._held_classes(write))
        return [m for m in found if m is not None]

    def _object_fill_names(self) -> set[str]:
        """Attributes of self an object write may fill: those the class holds objects in that its registered code
        writes through, and those the methods such code calls (when this class has them) write with data."""
        family = {k.id for k in self.project.mro(self.cls)}
        out = set()
        for write in object_writes(self.project):
            if write.holder in family:
                out.add(write.receiver)
            if not write.method:
                out.add(write.field)
            elif (method := self.project.find_method(self.cls, write.method)) is not None:
                out |= method_data_writes(self.project, method).keys()
        return out

    def _module_global(self, node: ast.Name | ast.Attribute) -> tuple[str, str] | None:
        """(module, global) a read names: a global of this module (`VEL`), one imported from another project module
        (`from shared import VEL`), or one read through the module's import (`shared.VEL`)."""
        if isinstance(node, ast.Attribute):
            if not isinstance(node.value, ast.Name) or node.value.id not in self.module.imports \
                    or node.value.id in self.fn.params or name_stores(self.fn).get(node.value.id):
                return None
            return split_global(self.project, self.project.qualify(node, self.module))
        if node.id in self.module.imports:
            return split_global(self.project, self.project.qualify(node, self.module))
        return (self.module.name, node.id) if node.id in self.module.globals else None

    def _fill_names(self) -> frozenset[str]:
        """The attribute and global names anything registered to run outside the step writes, for this function's
        class and module (once per function: every attribute and name read asks)."""
        found = self.fn.walks.get("outside_fill_names")
        if found is None:
            attrs = (*class_fills(self.project, self.cls).keys(), *self._object_fill_names()) \
                if self.cls is not None else ()
            found = self.fn.walks["outside_fill_names"] = frozenset(
                (*attrs, *module_fills(self.project, self.module).keys(),
                 *(name for _, name in global_fills(self.project))))
        return found

    def _in_scope(self, fill: Fill) -> bool:
        """A module global's fill is seen everywhere; a closure's local only in its function and the inline
        ranges cut from it."""
        return not fill.scope or self.fn.id == fill.scope or self.fn.id.startswith(fill.scope + ".<lines")

    def _same_read(self, other: ast.AST, node: ast.AST) -> bool:
        if not isinstance(getattr(other, "ctx", None), ast.Load) or type(other) is not type(node):
            return False
        if isinstance(node, ast.Attribute) and is_self_attr(node, self.self_name):
            return other.attr == node.attr and is_self_attr(other, self.self_name)
        if isinstance(node, ast.Attribute):     # `shared.VEL`: the same module's import
            return other.attr == node.attr and isinstance(other.value, ast.Name) and other.value.id == node.value.id
        return other.id == node.id

    def _gates(self, node: ast.AST) -> bool:
        """Does the read only decide whether (or how long) the step runs: a test's operand compared with None,
        a truth test, a size or type test?"""
        parents = parent_map(self.fn)
        child, parent = node, parents.get(id(node))
        truth = True        # only `not` and `and`/`or` between the read and the test: a truth test of the value
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Compare) and any(isinstance(c, ast.Constant) and c.value is None
                                                       for c in (parent.left, *parent.comparators)):
                return True
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _GATE_CALLS \
                    and child is not parent.func:
                return True
            if isinstance(parent, ast.IfExp) and child is parent.test and truth:
                return True
            truth = truth and (isinstance(parent, ast.BoolOp) or isinstance(parent, ast.UnaryOp)
                               and isinstance(parent.op, ast.Not))
            child, parent = parent, parents.get(id(parent))
        return truth and isinstance(parent, (ast.If, ast.While, ast.Assert)) and child is parent.test


def _inside_reached_range(fill: Fill, reached) -> bool:
    """Is the write on a line of an inline range the step is (`rl_loop.<lines 466-495>` writing `self.obs_x` at
    468, read by a helper the range calls)? Its writer is then the step itself: the value is state, not an input."""
    prefix = f"{fill.writer_id}.<lines "
    for fid in reached:
        if fid.startswith(prefix):
            start, _, end = fid[len(prefix):].rstrip(">").partition("-")
            if start.isdigit() and end.isdigit() and int(start) <= fill.line <= int(end):
                return True
    return False
