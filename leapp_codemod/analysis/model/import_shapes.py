"""Calls reached through imports the plain name lookup does not settle, resolved statically where the code
names the callee, and why not where it does not.

Resolved (`imported_callees`, asked by `resolve_call` before it gives up):
- a name bound by several import statements (`try: from .fast import clamp` / `except ImportError: from .plain
  import clamp`, `if`/`else` imports, an import inside a function that shadows the module's): every project
  function the alternatives name, when there are at most `MAX_ALTERNATIVES`;
- a module loaded with `importlib.import_module("pkg.calib")` (a constant, a module-level string constant, or a
  relative name with a constant `package=`) and kept in a local, a module global or `self.x`: `x.trim(...)` runs
  `pkg.calib.trim`.
Each is recorded with how (`followed at run time`).

Not resolved (`import_gap`): why a call into an imported project name stayed unknown, for the not-followed
list: a module that is not among the scanned files, a module that defines no such name, a relative import
that climbs above the scanned folder.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model import runtime_bind
from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo

MAX_ALTERNATIVES = 4   # more import alternatives than this for one name: not guessed, listed
IMPORTERS = frozenset({"importlib.import_module"})


def _root(expr: ast.expr) -> tuple[ast.Name | None, list[str]]:
    """`a.b.c` -> (Name a, ["b", "c"])."""
    rest: list[str] = []
    while isinstance(expr, ast.Attribute):
        rest.insert(0, expr.attr)
        expr = expr.value
    return (expr, rest) if isinstance(expr, ast.Name) else (None, rest)


def _callable(found) -> FunctionInfo | None:
    """The function a looked-up name runs when called: itself, or a class's `__init__`."""
    if isinstance(found, FunctionInfo):
        return found
    return None


def _targets(project, names: list[str]) -> list[FunctionInfo]:
    out: list[FunctionInfo] = []
    for name in names:
        found = project.lookup(name)
        fn = _callable(found) if not isinstance(found, ClassInfo) else project.find_method(found, "__init__")
        if fn is not None and fn not in out:
            out.append(fn)
    return out


def imported_callees(ctx, call: ast.Call) -> list[FunctionInfo]:
    """The project functions a call through an import alternative or an `import_module` result runs."""
    root, rest = _root(call.func)
    if root is None:
        return []
    local = root.id in ctx.fn.params or root.id in ctx.env.data or root.id in ctx.env.numpy
    alternatives = getattr(ctx.module, "import_alternatives", {}).get(root.id)
    if alternatives and not local and root.id not in ctx.env.types and not _bound_in_function(ctx.fn, root.id):
        found = _targets(ctx.project, [".".join([t, *rest]) for t in alternatives])
        if 1 < len(found) <= MAX_ALTERNATIVES:
            runtime_bind.record(ctx.project, call, ctx.fn.path, found,
                                f"one of {len(alternatives)} imports of `{root.id}` (conditional or local)")
            return found
        return []
    if not _uses_importlib(ctx.project):
        return []
    modules, how = loaded_modules(ctx, call.func)
    if not modules:
        return []
    found = _targets(ctx.project, [f"{m}.{call.func.attr}" for m in modules])
    if found:
        runtime_bind.record(ctx.project, call, ctx.fn.path, found, how)
    return found


def _uses_importlib(project) -> bool:
    """Does any scanned module import `importlib` (asked once per scan: most projects never do)?"""
    key = ("uses_importlib",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = any(t == "importlib" or t.startswith("importlib.")
                                        for m in project.modules.values() for t in m.imports.values())
    return found


def _bound_in_function(fn, name: str) -> bool:
    """`name` assigned in the function itself (not by an import): a local that shadows the import."""
    return bool(fn.assigned(name))


def loaded_modules(ctx, func: ast.expr) -> tuple[list[str], str]:
    """For `x.f` with `x` holding what `importlib.import_module("<constant>")` returned: the project modules
    (dotted names) and how they were found; ([], "") otherwise."""
    if not isinstance(func, ast.Attribute):
        return [], ""
    holder = func.value
    values: list[tuple[ast.expr, object]] = []
    if isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) \
            and holder.value.id == ctx.self_name and ctx.cls is not None:
        for klass in ctx.project.mro(ctx.cls):
            for method, value in klass.attr_values.get(holder.attr, ()):
                values.append((value, ctx.project.modules[klass.module]))
    elif isinstance(holder, ast.Name) and holder.id not in ctx.fn.params:
        values = [(v, ctx.module) for v in ctx.fn.assigned(holder.id)]
        if not values and holder.id in ctx.module.globals:
            values = [(ctx.module.globals[holder.id], ctx.module)]
    modules: list[str] = []
    for value, module in values:
        name = _constant_import(ctx.project, value, module)
        if name is None:
            return [], ""
        if name not in modules:
            modules.append(name)
    if not modules or len(modules) > MAX_ALTERNATIVES:
        return [], ""
    shown = ", ".join(f'"{m}"' for m in modules)
    return modules, f"importlib.import_module({shown}), a constant module name"


def _constant_import(project, value: ast.expr, module) -> str | None:
    """The project module `importlib.import_module("pkg.mod")` (or `(".mod", package="pkg")`) loads."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    name = project.qualify(value.func, module)
    if name is None or project.external_name(name) not in IMPORTERS:
        return None
    spelled = _string(value.args[0], module)
    package = next((_string(k.value, module) for k in value.keywords if k.arg == "package"), None)
    if spelled is None:
        return None
    if spelled.startswith("."):
        if not package:
            return None
        level = len(spelled) - len(spelled.lstrip("."))
        base = package.rsplit(".", level - 1)[0] if level > 1 else package
        spelled = f"{base}.{spelled.lstrip('.')}"
    return _project_module(project, spelled)


def _string(expr: ast.expr, module) -> str | None:
    if isinstance(expr, ast.Name):
        expr = module.globals.get(expr.id)
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


def _project_module(project, spelled: str) -> str | None:
    """The scanned module a dotted name loads: itself, or the one module whose name ends with it (a project
    that puts one of its folders on `sys.path`)."""
    if project.module_named(spelled) is not None:
        return spelled
    ending = [name for name in project.modules if name.endswith("." + spelled) and not project.is_library(name)]
    return ending[0] if len(ending) == 1 else None


# ---------------------------------------------------------------------------------------------- gaps
def import_gap(ctx, func: ast.expr) -> str | None:
    """Why a call through an imported project name (`helper(x)`, `pkg.sub.mod.f(x)`) runs no code the scan
    can name, or None when the name is no project import (or is one the scan resolves)."""
    root, rest = _root(func)
    if root is None or root.id not in ctx.module.imports or root.id in ctx.fn.params or root.id in ctx.env.types:
        return None
    qualified = ".".join([ctx.module.imports[root.id], *rest])
    if root.id in getattr(ctx.module, "above_root", ()) and ctx.project.lookup(qualified) is None:
        return (f"`{root.id}` is imported by a relative import that climbs above the scanned folder; scan from "
                "the folder that holds the whole package")
    return _gap(ctx.project, qualified, 0)


def _gap(project, qualified: str, hops: int) -> str | None:
    from leapp_codemod.analysis.model.libraries import in_project
    parts = qualified.split(".")
    if hops > 8 or not in_project(project, qualified) or project.lookup(qualified) is not None:
        return None
    for cut in range(len(parts) - 1, 0, -1):
        module = project.module_named(".".join(parts[:cut]))
        if module is not None:
            break
    else:
        return None
    if project.is_library(module.name):
        return None
    head, rest = parts[cut], parts[cut + 1:]
    if head in module.classes or head in module.functions:
        return None   # a method the class lacks: the receiver's reasons say why
    if head in module.imports:
        return _gap(project, ".".join([module.imports[head], *rest]), hops + 1)
    if head in module.globals:
        return module_global_gap(project, module, head, rest)
    if project._star_imported(head, module):
        return None
    rebound = _package_rebinding(project, module)
    if rebound is not None:   # `from pkg.utils import registry`: the package's `registry`, not the submodule
        return _gap(project, ".".join([rebound, head, *rest]), hops + 1)
    if _shadowed_library(project, parts):
        return None   # `torch.distributions` read as the project's `rlkit/torch/distributions.py`
    if rest:
        return (f"no module `{module.name}.{head}` among the scanned files, nor installed (imported as "
                f"`{'.'.join(parts)}`)")
    return f"`{module.name}` ({module.path}) defines or imports no `{head}` the scan can find"


def _package_rebinding(project, module) -> str | None:
    """A package whose `__init__` binds the name of one of its submodules to something else (`from
    .task_registry import task_registry`): what importing that name from the package gives."""
    parent, _, last = module.name.rpartition(".")
    package = project.module_named(parent) if parent else None
    if package is None or last not in package.imports or package.imports[last] == module.name:
        return None
    return package.imports[last]


def _shadowed_library(project, parts: list[str]) -> bool:
    """A dotted name whose tail starts at an installed or known library (`rlkit.torch.distributions.Normal`,
    once `torch.distributions` was matched to a project folder of that name): the library is what runs."""
    from leapp_codemod.analysis.model.libraries import library_available
    if project.libraries is None:
        return False
    own = parts[0]
    return any(parts[k] != own and library_available(project, ".".join(parts[k:])) for k in range(1, len(parts)))


def module_global_gap(project, module, head: str, rest: list[str]) -> str | None:
    """`smooth = make_smoother(0.3)` at a module's top, called from another module: listed unless it is a
    library object or an instance of a project class (whose methods the types resolve)."""
    from leapp_codemod.analysis.model.libraries import in_project, library_available
    from leapp_codemod.analysis.model.script_modules import script_submodule
    value = module.globals[head]
    if rest or isinstance(value, (ast.Lambda, ast.Constant)) or script_submodule(project, module, value, module.tree):
        return None
    func = value.func if isinstance(value, ast.Call) else value
    name = project.qualify(func, module) if isinstance(func, (ast.Name, ast.Attribute)) else None
    name = project.external_name(name) if name else None
    if name and not in_project(project, name) and library_available(project, name):
        return None
    if name and isinstance(project.lookup(name), ClassInfo):
        return None
    if name and isinstance(value, ast.Call) and not in_project(project, name):
        return (f"`{module.name}.{head}` is a `{name}` (set at {module.path}:{value.lineno}), from a module "
                "neither in the scanned code nor installed in this environment")
    return (f"`{module.name}.{head}` is a module-level value set from `{ast.unparse(value)[:50]}`, "
            "which the scan cannot name")
