"""Is a project object a reporter: something the step hands values to only to show them (a terminal status
board, a live plot, a console dashboard)?

A class is a reporter when it has no project base, its methods write nothing but their own object's fields and
locals, call nothing but I/O, builtins, pure libraries, the values' own methods, other methods of the class and
project functions that only report, return nothing (private helpers aside), and at least one of them does I/O;
and no code outside the class reads a field of its objects. What the step hands such an object leaves the
pipeline with its I/O, even when the object smooths it first (`self.shown = a * v + (1 - a) * self.shown`):
a call of its methods is a report, and so is a call that only fetches one (`get_display()`). A method named
as a send (`link.send(width)`, `arm.set_target(q)`) hands the action on, whatever its body does (a stub that
prints stands for the robot).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.telemetry import attribute_reads
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo
from leapp_codemod.knowledge.actuation import named_as_send

_CONSTRUCTORS = frozenset({"__init__", "__post_init__"})


class ReporterQuestions:
    """Mixin of `FunctionContext`: `reporter_call(call)`."""

    def reporter_call(self, call: ast.Call) -> bool:
        """Is the call a method of a reporter (`board.show(cmd, vel)`), or one returning a reporter and doing
        nothing else that matters (`get_display()`, a cached singleton)?"""
        callees = self.resolve_call(call)
        if callees and all(c.is_method and not named_as_send(c.name) and self._reporter_of(c) for c in callees):
            return True
        if not callees or any(c.is_method for c in callees):
            return False
        returned = self.types_of(call)
        return bool(returned) and all(self._reporter_named(t) for t in returned) \
            and all(self._fetches(c) for c in callees)

    def _reporter_of(self, method: FunctionInfo) -> bool:
        return bool(method.class_name) and method.name not in _CONSTRUCTORS \
            and self._reporter_named(f"{method.module}:{method.class_name}")

    def _reporter_named(self, type_name: str) -> bool:
        cls = self.class_for_type(type_name)
        return cls is not None and self.reporter_class(cls)

    def _fetches(self, fn: FunctionInfo) -> bool:
        """A function that only builds or hands back an object (`global _board; if _board is None: _board =
        Board(); return _board`): every call in it constructs a class, every store binds a name."""
        context = self.for_function(fn)
        for node in fn.nodes:
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                return False
            if isinstance(node, ast.Call) and self.project.class_of(context.qualify(node.func)) is None:
                return False
        return True

    def reporter_class(self, cls: ClassInfo) -> bool:
        key = ("reporter", cls.id, self.project.own_module_count())
        memo = self.project.memo
        if key not in memo:
            memo[key] = False   # asked again while being answered (a method calling back): no
            memo[key] = self._reporter(cls)
        return memo[key]

    def _reporter(self, cls: ClassInfo) -> bool:
        if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.base_exprs):
            return False   # a base or a subclass may read what it keeps
        io = False
        for method in cls.methods.values():
            if method.name in _CONSTRUCTORS:
                continue
            self_name = method.positional_params[0] if method.positional_params else None
            verdict = self.for_function(method).report_body(owner=self_name)
            if verdict is None:
                return False
            io = io or verdict
        return io and not self._fields_read_outside(cls)

    def _names_module(self, module_name: str | None, expr: ast.expr) -> bool:
        """Is `expr` a name the module imports a module by (`viewer` of `import utils.viewer as viewer`)?"""
        module = self.project.modules.get(module_name) if module_name else None
        target = module.imports.get(expr.id) if module is not None and isinstance(expr, ast.Name) else None
        return target is not None and (target in self.project.modules
                                       or not any(target.partition(".")[0] == m.partition(".")[0]
                                                  for m in self.project.modules if not self.project.is_library(m)))

    def _fields_read_outside(self, cls: ClassInfo) -> bool:
        """Does code outside the class read a field its objects keep (by the field's name: unsure is yes)?"""
        reads = attribute_reads(self.project)
        at_top = self.project.memo.get(("module_reads", self.project.own_module_count()), {})
        for attr in cls.attr_values:
            for owner, node in reads.get(attr, ()):
                inside = owner is not None and owner.module == cls.module and owner.class_name == cls.name \
                    and isinstance(node.value, ast.Name) and owner.positional_params \
                    and node.value.id == owner.positional_params[0]
                module_name = owner.module if owner is not None else at_top.get(id(node))
                if not inside and not self._names_module(module_name, node.value):
                    return True   # `viewer.track_pelvis` of a module named `viewer` is no field of the class
        return False
