"""Settings read through a container of data: `self.policy.ncams`, bound once in the policy's constructor from its
config file, is a setting of the object even when the object also holds pipeline data (a history, a model);
`buffers["hold"]` is a setting the caller stored next to the step's state."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.fold import name_stores
from leapp_codemod.analysis.model.resolve_types import annotation_classes, subclasses
from leapp_codemod.analysis.model.attribute_stores import attribute_rebound
from leapp_codemod.analysis.model.settings import CONSTRUCTION
from leapp_codemod.analysis.model.walk import is_self_attr

_CASTS = frozenset({"int", "len", "str", "bool", "float"})


def construction_field(ctx, e: ast.Attribute) -> bool:
    """A field of a project object (not `self`) that every class the object can be binds only in its
    constructor, to a scalar, string or config item (`self.ncams = agent_config["n_cams"]`), and nothing
    rebinds, fills or writes from outside: the object was built with it, it is no pipeline data even when
    the object also holds some. `ctx` is the reading function's `FunctionContext`."""
    if e.attr in ctx.facts.foreign_written or is_self_attr(e, ctx.self_name):
        return False
    classes = [ctx.class_for_type(t) for t in ctx.types_of(e.value) or _declared_classes(ctx, e.value)]
    if not classes or any(c is None for c in classes):
        return False
    project = ctx.project
    writes = [(m, v) for cls in classes for k in (*project.mro(cls), *subclasses(project, cls))
              for m, v in k.attr_values.get(e.attr, ())]
    return bool(writes) and all(m in CONSTRUCTION and _setting_like(v) for m, v in writes) and not any(
        e.attr in ctx.facts.data_attrs.get(k.id, ()) or attribute_rebound(project, cls, e.attr)
        for cls in classes for k in project.mro(cls))


def _declared_classes(ctx, value: ast.expr) -> set[str]:
    """The project classes the annotation of a parameter names (`model: VlaModel`), when the data flow knows
    nothing of what the parameter holds and the function never rebinds it: the object the callers pass."""
    if not isinstance(value, ast.Name) or value.id not in ctx.fn.params or name_stores(ctx.fn).get(value.id):
        return set()
    args = ctx.fn.node.args
    arg = next(a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == value.id)
    return annotation_classes(ctx.project, arg.annotation, ctx.module)


def setting_item(ctx, e: ast.Subscript) -> bool:
    """`buffers["hold"]` where every caller's dict literal puts a setting under the key (`setting_items`)."""
    return isinstance(e.value, ast.Name) and isinstance(e.slice, ast.Constant) \
        and e.slice.value in ctx.facts.setting_items.get(ctx.fn.id, {}).get(e.value.id, ())


def _setting_like(value: ast.expr) -> bool:
    """A constant, a constructor parameter or an item/field of one (`agent_config["n_cams"]`, `cfg.width`),
    `len(...)`/`int(...)` of one: a value an object is configured with, not a tensor it computes."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CASTS \
            and len(value.args) == 1:
        value = value.args[0]
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        if isinstance(value, ast.Subscript) and not isinstance(value.slice, ast.Constant):
            return False
        value = value.value
    return isinstance(value, (ast.Constant, ast.Name)) and not (isinstance(value, ast.Name) and value.id == "self")
