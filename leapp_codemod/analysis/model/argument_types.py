"""The project classes a parameter takes from what its callers hand it, for call resolution.

`argument_types_of(ctx, fn, param)` answers "which project classes may `param` of `fn` hold": its annotation,
what reached calls pass it (positionally or by keyword: `evaluate(model, env)`, `Agent(model, cfg)` then
`self.model = model`), what every construction site passes to an `__init__`, including a value the site
binds from a project function or method that returns one of several classes (`model =
Loader(dev).load_model(args)` returning `Alpha(...)` or `Beta(...)` after `.to(device)`/`.eval()` chains).
The entry ranking can use it to tell a model parameter from a data parameter without another walk.

`ctx` is a `FunctionContext` (any function's: the question is about `fn`, answered from the project)."""
from __future__ import annotations

from leapp_codemod.analysis.model.index import FunctionInfo


def argument_types_of(ctx, fn: FunctionInfo, param: str) -> set[str]:
    """Project classes ('module:Class') `param` of `fn` may hold, from its annotation and its callers."""
    return {t for t in ctx.for_function(fn).param_value_types(fn, param) if ":" in t}


def method_returns(ctx, receiver_types: set[str], name: str) -> set[str]:
    """What `<receiver>.<name>(...)` returns, for a receiver of the given project classes: the project classes
    the method builds and returns (`load_model` returning one of two networks), never the receiver's
    constructor."""
    out: set[str] = set()
    for type_name in sorted(receiver_types):
        cls = ctx.class_for_type(type_name)
        method = ctx.project.find_method(cls, name) if cls is not None else None
        if method is not None and method.name != "__init__":
            out |= {t for t in ctx.return_types(method) if ":" in t}
    return out
