"""Calls inside followed library code on objects the project handed to the library.

`agent.act(obs)` runs skrl's `PPO.act`, which calls `self.policy.act(...)`; `self.policy` is
`self.models.get("policy")`, and `models` is what the project passed to `PPO(models={...})`. SB3's
`BaseModel.extract_features` calls the extractor a project named in `policy_kwargs`; tianshou's policies call
the `actor` module their constructor was given. The project's model code runs there. When the scan binds the
receiver (from the construction sites, see `subclass_sites`), the call is followed and recorded with where the
value came from; when it cannot, the call is listed as not followed, naming the project's construction site,
because the code that runs there is the project's and nothing else would say it was never read. A receiver
the library fills itself (its defaults, its own classes) is the library's code: neither listed nor recorded.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from leapp_codemod.analysis.flow.known_receivers import RUNTIME_FACTORIES, root_of
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.analysis.infer.context import FunctionContext, is_self_attr
from leapp_codemod.analysis.model import runtime_bind
from leapp_codemod.analysis.model.handed_stores import stores_on
from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.analysis.model.resolve_sites import argument_for, sites_of
from leapp_codemod.analysis.model.subclass_sites import class_keyword
from leapp_codemod.knowledge.vocab import PLAIN_METHODS
from leapp_codemod.model import NotFollowed

MAX_DEPTH = 4
MAX_TEXT = 60


@dataclass(frozen=True)
class Origin:
    """Where the project hands a library object the value a `self` attribute holds, in words."""

    text: str

    def words(self) -> str:
        return self.text


def library_callbacks(ctx: FunctionContext, nodes: list[ast.AST]) -> list[NotFollowed]:
    """The calls of a reached library function on `self` attributes filled from the project's construction
    arguments: recorded when the scan follows them into project code, listed when it cannot name their class."""
    out: list[NotFollowed] = []
    for node in nodes:
        if not isinstance(node, ast.Call) or _plain(node.func) or not ctx.args_data(node):
            continue
        attr = _held_attribute(node.func, ctx.self_name) if ctx.cls is not None and ctx.self_name else None
        if attr is not None:
            origin = project_origin(ctx, attr)
        elif isinstance(node.func, ast.Name) and node.func.id in ctx.fn.params:
            attr, origin = node.func.id, _param_origin(ctx, node.func.id)   # `features_extractor(obs)`
        else:
            continue
        if origin is None:
            continue
        held = ctx.types_of(_receiver(node.func, ctx.self_name))
        own = [c for c in (ctx.class_for_type(t) for t in sorted(held) if ":" in t)
               if c is not None and not ctx.project.is_library(c.module)]
        callees = ctx.resolve_call(node)
        if own and callees:   # the project's class runs here (its own method or a library mixin's)
            runtime_bind.record(ctx.project, node, ctx.fn.path, own, f"bound from {origin.words()}")
        elif not callees:
            text = _short(ast.unparse(node.func)) + "(...)"
            what = attr if isinstance(node.func, ast.Name) else f"self.{attr}"
            reason = (f"`{what}` in library code ({ctx.fn.qualname}) holds {origin.words()}; the scan could not "
                      "name its class, so the project code that runs here was not followed")
            out.append(NotFollowed(ctx.fn.path, node.lineno, text, reason, what, ctx.fn.id))
    return out


def _held_attribute(func: ast.expr, self_name: str) -> str | None:
    """`self.policy(...)` or `self.policy.act(...)`: the attribute of `self` the call runs code of."""
    if is_self_attr(func, self_name):
        return func.attr
    if isinstance(func, ast.Attribute) and is_self_attr(func.value, self_name):
        return func.value.attr
    return None


def _plain(func: ast.expr) -> bool:
    """A container's or tensor's own method (`self.models.get(...)`, `self.buf.append(x)`): no handed code."""
    return isinstance(func, ast.Attribute) and (func.attr in PLAIN_METHODS or func.attr.startswith("__")) \
        and not is_self_attr(func, "self")


def _receiver(func: ast.expr, self_name: str | None) -> ast.expr:
    return func if isinstance(func, ast.Name) or is_self_attr(func, self_name) else func.value


def _param_origin(ctx: FunctionContext, param: str) -> Origin | None:
    """A parameter of a library function every reached caller fills from one of its own `self` attributes
    (`super().extract_features(obs, self.pi_features_extractor)`): that attribute's origin."""
    from leapp_codemod.analysis.model.resolve_sites import passed_argument
    for caller_id in sorted(ctx.facts.callers.get(ctx.fn.id, ())):
        module_name, _, qualname = caller_id.partition(":")
        module = ctx.project.modules.get(module_name)
        caller = module.functions.get(qualname) if module is not None else None
        if caller is None or not caller.params:
            continue
        caller_ctx = ctx.for_function(caller)
        for node in caller.nodes:
            if isinstance(node, ast.Call) and ctx.fn in caller_ctx.resolve_call(node):
                arg = passed_argument(ctx.fn, node, param)
                if is_self_attr(arg, caller.params[0]) and caller_ctx.cls is not None:
                    found = project_origin(caller_ctx, arg.attr)
                    if found is not None:
                        return found
    return None


def project_origin(ctx: FunctionContext, attr: str, depth: int = 0) -> Origin | None:
    """Where the project hands the library object what `self.<attr>` holds: a constructor parameter stored as
    is (`self.actor = actor`), looked up in a container parameter (`self.models.get("policy")`), or built from a
    class parameter (`self.extractor_class(...)`, also through a method returning that), each as passed by a
    project construction site with a value that is not a library object. None when the library fills the
    attribute itself."""
    if depth > MAX_DEPTH:
        return None
    classes = ctx.receiver_classes() or [ctx.cls]
    key = ("library origin", *sorted(c.id for c in classes), attr)
    memo = ctx.project.memo
    if key in memo:
        return memo[key]
    memo[key] = None
    found = None
    for cls in classes:
        for store, _ in stores_on(ctx, cls, attr):   # `agent.policy = Head()` after building the agent
            value = _short(ast.unparse(store.value))
            found = found or Origin(f"what the project stores with `{_short(ast.unparse(store.target))} = {value}` at "
                                    f"{store.module.path}:{store.target.lineno}")
        for klass in ctx.project.mro(cls):
            for method, value in klass.attr_values.get(attr, ()):
                fn = klass.methods.get(method)
                if fn is not None:
                    found = found or _value_origin(ctx, klass, fn, value, depth)
    memo[key] = found
    return found


def _value_origin(ctx: FunctionContext, klass: ClassInfo, fn: FunctionInfo, value: ast.expr,
                  depth: int) -> Origin | None:
    self_name = fn.params[0] if fn.params else "self"
    if isinstance(value, ast.Name) and fn.name == "__init__" and value.id in fn.params:
        return _site_origin(ctx, klass, fn, value.id)
    if is_self_attr(value, self_name):
        return project_origin(ctx, value.attr, depth + 1)                # `self.pi_head = self.head`
    if isinstance(value, ast.Subscript) and is_self_attr(value.value, self_name):
        return project_origin(ctx, value.value.attr, depth + 1)          # `self.models["policy"]`
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        func = value.func
        if func.attr == "get" and is_self_attr(func.value, self_name):     # `self.models.get("policy")`
            return project_origin(ctx, func.value.attr, depth + 1)
        if is_self_attr(func, self_name):
            own = ctx.project.find_method(klass, func.attr)
            if own is None:                                                 # `self.policy_class(...)`
                return project_origin(ctx, func.attr, depth + 1)
            for ret in (n.value for n in ast.walk(own.node) if isinstance(n, ast.Return) and n.value is not None):
                if isinstance(ret, ast.Call) and is_self_attr(ret.func, self_name):   # `make_extractor()`
                    return project_origin(ctx, ret.func.attr, depth + 1)
    return None


def _site_origin(ctx: FunctionContext, klass: ClassInfo, init: FunctionInfo, param: str) -> Origin | None:
    for site in sites_of(ctx.project, klass):
        arg = argument_for(init, site.call, param) or class_keyword(site.call, param)
        if arg is None or isinstance(arg, (ast.Constant, ast.JoinedStr)) or _library_arg(ctx, arg, site.module):
            continue
        return Origin(f"the `{param}` the project passes to `{_short(ast.unparse(site.call.func))}(...)` at "
                      f"{site.module.path}:{site.call.lineno} (`{_short(ast.unparse(arg))}`)")
    return None


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 3] + "..."


def _library_arg(ctx: FunctionContext, arg: ast.expr, module) -> bool:
    """`cfg=PPO_DEFAULT_CONFIG`, `activation=nn.ReLU`, `scaler=Scaler(...)` of an installed library: the library's
    own objects, read in the module the site is in."""
    while isinstance(arg, ast.Call):
        arg = arg.func
    root = root_of(arg)
    if not isinstance(root, ast.Name) or root.id not in module.imports:
        return False
    name = ctx.project.external_name(ctx.project.qualify(arg, module) or "")
    return "." in name and name not in RUNTIME_FACTORIES and not in_project(ctx.project, name) \
        and library_available(ctx.project, name)
