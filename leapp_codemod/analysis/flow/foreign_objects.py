"""Objects of a class from a package that is neither scanned nor installed: what the scan knows of them is the
class's name, never its code.

The name comes from an annotation (a parameter `log: DopplerLog`, a local `ring: RingWindow = make()`, a
field the class declares) or from a constructor call (`DopplerLog(port)`). Every method called on such an
object runs that unseen class's code, whatever the method is called: `ring.append(x)` is the class's
`append`, not a list's, and `ring.stacked` may be a property or the state the object keeps. So each call
and each attribute read on one is listed as not followed, naming the class, and never matched by its
method name to a project class that happens to define a method of the same name (duck typing).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.context import FunctionContext
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.model import NotFollowed

MAX_TEXT = 60


def foreign_types(ctx: FunctionContext, receiver: ast.expr) -> list[str]:
    """The classes of a package neither scanned nor installed that the receiver holds, when it holds
    nothing else (no project class, no installed library's object): [] otherwise."""
    types = ctx.types_of(receiver)
    found = sorted(t for t in types if is_foreign_class(ctx, t))
    return found if found and len(found) == len(types) else []


def is_foreign_class(ctx: FunctionContext, type_name: str) -> bool:
    """`mjlab.utils.buffers.CircularBuffer`: a dotted class name (capitalised last part; not a factory's
    name such as `transformers.AutoModel.from_pretrained`) from an imported package that is neither in the
    scanned code nor installed."""
    if ":" in type_name or "." not in type_name or not type_name.rpartition(".")[2][:1].isupper() \
            or type_name.partition(".")[0] not in imported_roots(ctx.project):
        return False   # `cfg.Policy`: a value's field, not an imported class
    return not in_project(ctx.project, type_name) and not library_available(ctx.project, type_name)


def imported_roots(project) -> set[str]:
    """The top-level names the project's modules import (`mjlab` for `from mjlab.utils import buffers`)."""
    key = ("imported_roots",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {t.partition(".")[0] for m in project.modules.values() for t in m.imports.values()}
    return found


def _reason(receiver: ast.expr, classes: list[str]) -> str:
    return (f"`{_short(ast.unparse(receiver))}` is a `{classes[0]}`, from a module neither in the scanned code "
            "nor installed in this environment")


def foreign_call(ctx: FunctionContext, call: ast.Call) -> NotFollowed | None:
    """`ring.append(x)`, `log.latest()` on an object of a class the scan cannot read: listed, whatever the
    method is called (a list's or a tensor's method names included)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr.startswith("__"):
        return None
    classes = foreign_types(ctx, func.value)
    if not classes or ctx.resolve_call(call):
        return None
    return NotFollowed(ctx.fn.path, call.lineno, _short(ast.unparse(func), call=True), _reason(func.value, classes),
                       ast.unparse(func.value), ctx.fn.id, classes[0].partition(".")[0])


def foreign_reads(ctx: FunctionContext, nodes) -> list[NotFollowed]:
    """`ring.stacked` after `ring.append(x)`: an attribute read from an object of a class the scan cannot read,
    when the function hands that object pipeline data through one of its methods. What comes back (a
    property's result, a field the object filled) is the pipeline's data made by code the scan did not see,
    so it is listed like the calls. A configuration object's fields (`cfg.clip`) and the attribute a call
    looks up (`ring.append`) are not such reads."""
    fed = {ast.unparse(n.func.value) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
           and ctx.args_data(n)}
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    out = []
    for node in nodes:
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load) or id(node) in called \
                or node.attr.startswith("__") or ast.unparse(node.value) not in fed:
            continue
        classes = foreign_types(ctx, node.value)
        if classes:
            reason = _reason(node.value, classes) + f"; `.{node.attr}` is read back from it after it is handed data"
            out.append(NotFollowed(ctx.fn.path, node.lineno, _short(ast.unparse(node)), reason,
                                   ast.unparse(node.value), ctx.fn.id, classes[0].partition(".")[0]))
    return out


def _short(text: str, call: bool = False) -> str:
    limit = MAX_TEXT - (5 if call else 0)
    text = text if len(text) <= limit else text[:limit - 3] + "..."
    return f"{text}(...)" if call else text
