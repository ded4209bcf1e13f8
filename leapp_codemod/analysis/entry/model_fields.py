"""A model held in a declared field of an object handed to a function.

`def run(loaded: Loaded, x): out = loaded.scripted(x)` with `class Loaded: scripted: torch.jit.ScriptModule` (a
dataclass, a NamedTuple, or `self.scripted: nn.Module = ...` in a method): the field's declared type says it is a
model, so calling it runs one, whatever the field is named (`module`, `scripted`, `fn`). A plain function has no
`self`: the parameter's annotation names the class that declares the field.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import annotation_classes

# Library types whose instances run a model when called (or through `.run`).
MODEL_TYPES = frozenset({"torch.nn.Module", "torch.jit.ScriptModule", "torch.jit.RecursiveScriptModule",
                         "torch.jit.TopLevelTracedModule", "torch.jit.ScriptFunction",
                         "onnxruntime.InferenceSession"})
_OPTIONAL = frozenset({"Optional", "Union", "Final", "Annotated"})


def _declared_names(annotation: ast.expr) -> list[ast.expr]:
    """The type expressions an annotation declares: `T`, `"T"`, `T | None`, `Optional[T]`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _declared_names(annotation.left) + _declared_names(annotation.right)
    if isinstance(annotation, ast.Subscript):
        head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return [n for item in items for n in _declared_names(item)] if head in _OPTIONAL else []
    return [annotation] if isinstance(annotation, (ast.Name, ast.Attribute)) else []


def declares_model(project: Project, annotation: ast.expr, module: ModuleIndex) -> bool:
    """Does the annotation declare a model: a torch module, a TorchScript or ONNX model, a project nn.Module?"""
    for expr in _declared_names(annotation):
        name = project.qualify(expr, module)
        if name is None:
            continue
        if project.external_name(name) in MODEL_TYPES:
            return True
        cls = project.class_of(name)
        if cls is not None and project.is_nn_module(cls):
            return True
    return False


def _param_annotation(fn: FunctionInfo, name: str) -> ast.expr | None:
    args = fn.node.args
    return next((a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == name), None)


def _class(project: Project, class_id: str) -> ClassInfo | None:
    module, _, qual = class_id.partition(":")
    found = project.modules.get(module)
    return found.classes.get(qual) if found is not None else None


def calls_declared_model(project: Project, fn: FunctionInfo, call: ast.Call) -> bool:
    """`loaded.scripted(x)` (or `loaded.scripted.forward(x)`) with `loaded` a parameter annotated with a project
    class that declares the field `scripted` a model (see declares_model)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("forward", "run") and isinstance(func.value, ast.Attribute):
        func = func.value
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return False
    annotation = _param_annotation(fn, func.value.id)
    if annotation is None:
        return False
    for class_id in annotation_classes(project, annotation, project.modules[fn.module]):
        cls = _class(project, class_id)
        for klass in project.mro(cls) if cls is not None else ():
            declared = klass.attr_annotations.get(func.attr)
            if declared is not None:
                return declares_model(project, declared, project.modules[klass.module])
    return False
