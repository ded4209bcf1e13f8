"""Types that come from declarations: annotations, alternative constructors, abstract methods.

`self.filter: KalmanFilter`, `policy: ActorCriticPolicy` in a class body, `def __init__(self, env: RobotEnv)`
and `def build() -> Actor` declare what an attribute, parameter or call holds. A classmethod returning
`cls(...)` (or annotated with a `TypeVar`/`Self`) builds an instance of the class it is called on.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.vocab import SELF_RETURNING_METHODS

_WRAPPERS = frozenset({"Optional", "Union", "Final", "ClassVar", "Annotated", "type"})


def annotation_classes(project: Project, annotation: ast.expr | None, module: ModuleIndex) -> set[str]:
    """Project (or followed library) classes an annotation names: `X`, `"X"`, `X | None`, `Optional[X]`."""
    if annotation is None:
        return set()
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return set()
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotation_classes(project, annotation.left, module) | annotation_classes(project, annotation.right, module)
    if isinstance(annotation, ast.Subscript):
        head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
        if head not in _WRAPPERS:
            return set()
        inner = annotation.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        out: set[str] = set()
        for item in items[:1] if head == "Annotated" else items:
            out |= annotation_classes(project, item, module)
        return out
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        name = project.qualify(annotation, module)
        cls = project.class_of(name) if name else None
        return {cls.id} if cls is not None else set()
    return set()


def tuple_item_annotation(annotation: ast.expr | None, index: int) -> ast.expr | None:
    """Item `index` of a `tuple[A, B]` / `Tuple[A, B]` annotation (`-> tuple[Net, Stats]`); None for any
    other annotation, a `tuple[X, ...]` or an index past its end."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(annotation, ast.Subscript) or not isinstance(annotation.slice, ast.Tuple):
        return None
    head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
    items = annotation.slice.elts
    if head not in ("tuple", "Tuple") or index >= len(items) \
            or any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in items):
        return None
    return items[index]


def foreign_class(project: Project, annotation: ast.expr, module: ModuleIndex) -> str | None:
    """The dotted name of a class an annotation names (`X`, `X | None`, `Optional[X]`) that `module` imports
    from a package neither scanned nor installed; None for project, installed and unknown names."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return foreign_class(project, annotation.left, module) or foreign_class(project, annotation.right, module)
    if isinstance(annotation, ast.Subscript):
        head = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else getattr(annotation.value, "id", "")
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return next((f for item in items if (f := foreign_class(project, item, module))), None) \
            if head in ("Optional", "Union") else None
    root = annotation
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in module.imports:
        return None
    name = project.qualify(annotation, module)
    if not name or "." not in name or in_project(project, name) or library_available(project, name):
        return None
    return name


def foreign_annotations(project: Project, fn: FunctionInfo, module: ModuleIndex) -> dict[str, str]:
    """Names of `fn` annotated with a class of a package neither scanned nor installed: its parameters
    (`log: DopplerLog`, `ring: Optional[RingWindow]`) and its annotated locals (`ring: RingWindow = make()`)
    -> the class's dotted name (indexed once per function)."""
    found = fn.walks.get("foreign annotations")
    if found is not None:
        return found
    found = fn.walks["foreign annotations"] = {}
    node = fn.node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            named = foreign_class(project, arg.annotation, module) if arg.annotation is not None else None
            if named:
                found[arg.arg] = named
    for stmt in fn.nodes:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id not in found:
            named = foreign_class(project, stmt.annotation, module)
            if named:
                found[stmt.target.id] = named
    return found


def is_classmethod(fn: FunctionInfo) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.node.decorator_list)


def _annotation_name(annotation: ast.expr | None) -> str | None:
    """`Planner` of `-> Planner` or `-> "Planner"`; None for anything else."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value
    return annotation.id if isinstance(annotation, ast.Name) else None


def _is_self_type(annotation: ast.expr | None, module: ModuleIndex) -> bool:
    name = _annotation_name(annotation)
    if name is None:
        return False
    if name == "Self":
        return True
    value = module.globals.get(name)
    return (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
            and (getattr(value.func, "id", None) or getattr(value.func, "attr", None)) == "TypeVar")


def builds_own_class(fn: FunctionInfo, module: ModuleIndex, seen: frozenset = frozenset()) -> bool:
    """A classmethod that returns an instance of the class it is called on: annotated to return `Self`, a
    `TypeVar` or its own class (`-> "Planner"`), or returning `cls(...)`, a local built by `cls(...)`, either
    moved (`cls(**cfg).eval()`, `model.to(device)`), or another such classmethod of `cls` (`cls.from_config(c)`)."""
    if not is_classmethod(fn) or not fn.positional_params or fn.id in seen:
        return False
    if _is_self_type(fn.node.returns, module) or _names_own_class(fn.node.returns, fn):
        return True
    cls_name = fn.positional_params[0]
    built = set()
    for node in fn.nodes:
        if isinstance(node, ast.Assign) and _builds_cls(_moved(node.value), cls_name, fn, module, seen):
            built |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for node in fn.nodes:
        if isinstance(node, ast.Return) and node.value is not None:
            value = _moved(node.value)
            if _builds_cls(value, cls_name, fn, module, seen) or isinstance(value, ast.Name) and value.id in built:
                return True
    return False


def _moved(value: ast.expr) -> ast.expr:
    """The object a chain of self-returning calls starts from (`model` in `model.eval().to(device)`)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in SELF_RETURNING_METHODS:
        value = value.func.value
    return value


def _builds_cls(value: ast.expr, cls_name: str, fn: FunctionInfo, module: ModuleIndex, seen: frozenset) -> bool:
    """`cls(...)`, or `cls.other(...)` with `other` a classmethod of the same class that builds its class."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return func.id == cls_name
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == cls_name):
        return False
    owner = module.classes.get(fn.class_name or "")
    other = owner.methods.get(func.attr) if owner is not None else None
    return other is not None and builds_own_class(other, module, seen | {fn.id})


def _names_own_class(annotation: ast.expr | None, fn: FunctionInfo) -> bool:
    """`-> Planner` or `-> "Planner"` on a method of `Planner`."""
    name = _annotation_name(annotation)
    return name is not None and fn.class_name is not None and name == fn.class_name.rpartition(".")[2]


def is_abstract(fn: FunctionInfo) -> bool:
    """`@abstractmethod`, or a body that only documents, passes or raises NotImplementedError."""
    if any((isinstance(d, ast.Name) and d.id == "abstractmethod") or (isinstance(d, ast.Attribute) and d.attr == "abstractmethod")
           for d in fn.node.decorator_list):
        return True
    for stmt in fn.node.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and "NotImplementedError" in ast.unparse(stmt.exc):
            continue
        return False
    return True


def subclasses(project: Project, cls: ClassInfo) -> list[ClassInfo]:
    """Classes among the indexed modules that derive from `cls` (directly or not)."""
    key = ("subclasses", len(project.modules))
    if key not in project.memo:
        table: dict[str, list[ClassInfo]] = {}
        for mod in list(project.modules.values()):
            for klass in mod.classes.values():
                for base in project.mro(klass)[1:]:
                    table.setdefault(base.id, []).append(klass)
        project.memo[key] = table
    return project.memo[key].get(cls.id, [])


def receiver_ids(ctx, call: ast.Call, callee: FunctionInfo) -> set[str]:
    """Concrete classes a method call runs on ({"?"} when unknown), for virtual dispatch in the callee."""
    project = ctx.project
    owner = project.modules[callee.module].classes.get(callee.class_name or "")
    if owner is None:
        return set()
    func = call.func
    if isinstance(func, ast.Attribute) and callee.name in (func.attr, "_" + func.attr):   # `_step`: a library hook
        value = func.value
        if (isinstance(value, ast.Name) and value.id == ctx.self_name) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"):
            candidates = set(ctx.facts.receivers.get(ctx.fn.id, set())) or {"?"}
        else:
            cls = project.class_of(project.qualify(value, ctx.module) or "")
            if cls is not None:   # `Cls.build(...)` runs on Cls; `Cls.meth(obj, ...)` on whatever obj is
                candidates = {cls.id} if is_classmethod(callee) else {"?"}
            else:
                candidates = ctx.types_of(value)
    else:                         # `Cls(...)`, or an instance called: `net(x)`, `self.actor(x)`
        cls = project.class_of(project.qualify(func, ctx.module) or "")
        candidates = {cls.id} if cls is not None else ctx.types_of(func) | ctx.element_types(func)
    kept = {c for c in candidates if c == "?" or _derives(project, c, owner)}
    return kept or {"?"}


def _derives(project: Project, class_id: str, owner: ClassInfo) -> bool:
    module, _, qual = class_id.partition(":")
    mod = project.modules.get(module)
    klass = mod.classes.get(qual) if mod else None
    return klass is not None and owner in project.mro(klass)


def overrides(project: Project, cls: ClassInfo, name: str) -> list[FunctionInfo]:
    """Methods called `name` defined by subclasses of `cls`."""
    return [klass.methods[name] for klass in subclasses(project, cls) if name in klass.methods]


def constructed_before(project: Project, fn: FunctionInfo, module: ModuleIndex) -> dict[str, set[str]]:
    """An inline range's inputs built from a project class before the range (`env = TrackEnv(cfg)`):
    the range calls that object's methods."""
    out = {}
    for name, value in fn.outer_values.items():
        if name in fn.params and isinstance(value, ast.Call):
            cls = project.class_of(project.qualify(value.func, module))
            if cls is not None:
                out[name] = {cls.id}
    return out
