"""What a name an inline range reads holds when the code before the range built it: `model = PPO.load(path)`,
`agent = Agent.from_pretrained(d)`, `policy = ALGOS[name].restore(p)` in the function the range is cut from or
in the script's `if __name__ == "__main__":` block (a class-level loader builds an object of the class it is
called on: `analysis.model.class_loaders`). A call on it (`model.predict(obs)`) then resolves into that class's
method. When the class stays unknown, `binding_before` gives the value that bound it, so the call is listed as
not followed in the words of that binding (`pickle.load(f)`), never dropped.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.class_loaders import bound_value, loader_classes
from leapp_codemod.analysis.model.function_values import enclosing_scopes, range_scope
from leapp_codemod.analysis.model.config_values import ruled_out_in
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.local_values import assignments
from leapp_codemod.analysis.model.returned_classes import built_classes
from leapp_codemod.analysis.model.script_bindings import module_bindings
from leapp_codemod.knowledge.libraries import NATIVE_ROOTS
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS

_MAX_HOPS = 3


def is_range(fn: FunctionInfo) -> bool:
    """A function cut from a statement range (`run.<lines 20-31>`, `<lines 9-12>`)."""
    return "<lines " in fn.qualname


def binding_before(ctx, name: str) -> tuple[ast.expr, FunctionInfo | None] | None:
    """The value an inline range's (or a closure's) name was last bound to before it in the scope that binds
    it, innermost first, with that scope's function (None at module level, where `if __name__ == "__main__":`
    blocks count); None when no enclosing scope binds it."""
    fn = ctx.fn
    if not is_range(fn) and ".<locals>." not in fn.qualname:
        return None
    if name in fn.outer_values:
        return fn.outer_values[name], range_scope(ctx.module, fn, ctx.project)
    scopes = enclosing_scopes(ctx.project, ctx.module, fn)
    if not scopes and not is_range(fn):
        return None
    for scope in [*scopes, None]:   # the innermost function binding it, else the module (a range's, not a closure's)
        if scope is not None:
            values = [v for v, how in assignments(ctx.project, scope).get(name, ()) if how == "value"]
        elif is_range(fn) or not scopes:
            values = list(module_bindings(ctx.project, ctx.module).get(name, ()))
        else:
            return None
        ruled_out = ruled_out_in(ctx.project, ctx.module, scope.node if scope is not None else ctx.module.tree)
        # the range's own scope: what it bound before the range; a closure's enclosing function may bind it later
        own = is_range(fn) and (scope is None or not scopes or scope is scopes[0])
        before = [v for v in values if (v.lineno < fn.node.lineno or not own) and id(v) not in ruled_out]
        if before:   # not in an arm the configs or the command-line defaults rule out
            return before[-1], scope
    return None


def loaded_before(ctx, name: str) -> set[str]:
    """Classes of what an inline range's name holds when a constructor, a class-level loader or a helper
    returning either bound it before the range (kept per range and name while the indexed modules stay)."""
    key = ("loaded before", ctx.fn.id, name, len(ctx.project.modules))   # library modules are indexed on demand
    memo = ctx.project.memo
    if key not in memo:
        memo[key] = set()   # a cycle through the same name answers nothing
        bound = binding_before(ctx, name)
        memo[key] = loaded_types(ctx, bound[0], bound[1]) if bound is not None else set()
    return memo[key]


def loaded_types(ctx, value: ast.expr, scope: FunctionInfo | None, hops: int = 0) -> set[str]:
    """Project (or followed library) classes of the object `value` makes, evaluated where it is written
    (`scope`; the range's module when None)."""
    here = ctx.for_function(scope) if scope is not None else ctx
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in SELF_RETURNING_METHODS:
        return loaded_types(ctx, value.func.value, scope, hops)   # `Agent.load(p).to(device)`: the same object
    if isinstance(value, ast.Name) and hops < _MAX_HOPS:   # an alias: `agent = model`
        bound = bound_value(ctx.project, value, ctx.module, scope)
        return loaded_types(ctx, bound, scope, hops + 1) if bound is not None else set()
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Call):   # `policy, norm = load(p)`
        return built_classes(ctx.project, value, here.module, scope=scope)
    if not isinstance(value, ast.Call):
        return set()
    found = {t for t in here.types_of(value) if ":" in t or t.partition(".")[0] in NATIVE_ROOTS}
    return found or loader_result(here, value.func, scope)   # a project class, or a native library's object


def loader_result(ctx, func: ast.expr, scope: FunctionInfo | None) -> set[str]:
    """`X.load` called: the classes X names whose `load` builds an instance of the class it is called on
    (read from the code as written: no call is resolved to answer it)."""
    return loader_classes(ctx.project, func, ctx.module, scope)
