"""Calls that hand over no pipeline data but may still run code the scan cannot see, and `getattr` reads by a
name the scan cannot pin down: listed as not followed (see `not_followed`), so a path that stops there is never
reported clean."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext, is_self_attr
from leapp_codemod.analysis.model.local_values import name_pattern
from leapp_codemod.analysis.model.walk import is_property, self_returned
from leapp_codemod.knowledge.vocab import DATA_METHOD_NAMES
from leapp_codemod.model import NotFollowed

MAX_TEXT = 60


def _short(expr: ast.expr) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."


def dynamic_getattr(ctx: FunctionContext, call: ast.Call) -> NotFollowed | None:
    """`getattr(self.body, key)` on an object of a project class that has properties, with a name the scan
    cannot pin down: the read may run any of those getters, so the path may go on there unseen."""
    from leapp_codemod.analysis.model.resolve_callables import CallableResolver
    if len(call.args) not in (2, 3) or ctx.resolve_call(call):
        return None
    name = call.args[1]
    if isinstance(name, ast.Constant):
        return None
    resolver = CallableResolver(ctx)
    owners = resolver._owner_classes(call.args[0], resolver_where(ctx))
    shape = name_pattern(name, resolver_where(ctx), ctx, 0)   # `f"_obs_{term}"`: only names of that shape
    getters = sorted({n for cls in owners for klass in ctx.project.mro(cls) for n, m in klass.methods.items()
                      if is_property(m) and (shape is None or shape.fullmatch(n))})
    if not getters:
        return None
    shown = ", ".join(f"`{g}`" for g in getters[:4]) + (", ..." if len(getters) > 4 else "")
    reason = (f"`getattr` reads an attribute named by `{_short(name)}`, which the scan cannot pin down; the object's "
              f"class has properties ({shown}) whose getters such a read runs")
    text = f"getattr({_short(call.args[0])}, {_short(name)})"
    return NotFollowed(ctx.fn.path, call.lineno, text, reason, ast.unparse(call.args[0]), ctx.fn.id)


def resolver_where(ctx: FunctionContext):
    from leapp_codemod.analysis.model.resolve_callables import Where
    return Where(ctx.module, ctx.fn)


def runs_unseen_code(ctx: FunctionContext, call: ast.Call) -> bool:
    """A call that hands over no pipeline data but may still run code the scan cannot see (a sampler
    `self.spec.make(size, scale)` whose callable a field holds, a draw from a package not installed): every
    such call is listed, so a path that stops there is never reported clean. Left out: methods of data (`shape.numel()`) and methods of what another
    call returns (`make(...).matrix()`: the inner call is the one listed)."""
    func = call.func
    if isinstance(func, ast.Attribute) and (func.attr in DATA_METHOD_NAMES
                                            or isinstance(self_returned(func.value), ast.Call)):
        return False
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name[:1].isupper():
        return False   # `String(...)`, `Time(...)`: an object built from no pipeline data
    if is_self_attr(func, ctx.self_name) and ctx.cls is not None and _library_base_method(ctx, func.attr):
        return False   # `self.get_logger()`: a method of the library base class, no project code
    if ctx.paces(call):
        return False   # `rate.sleep()`: it only waits
    return ctx.io_kind(call) is None and ctx.clock_kind(call) is None   # I/O, a clock: reported as such


def _library_base_method(ctx: FunctionContext, attr: str) -> bool:
    """`self.get_logger`: a method of a library base class of the receiver, no project code."""
    return ctx.project.from_library_base(ctx.receiver_classes() or [ctx.cls], attr)
