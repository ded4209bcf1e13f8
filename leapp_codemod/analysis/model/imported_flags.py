"""Settings a module imports from another project module: `from .settings import ENABLE_VISUAL` (or
`from . import settings`, read as `settings.ENABLE_VISUAL`), where `settings.py` binds `ENABLE_VISUAL = False`
to a literal that nothing rebinds. The flag is as fixed in the importing module as in its own: the blocks it
rules out (`if ENABLE_VISUAL:`) never run. A flag some code of the project assigns through the module
(`settings.ENABLE_VISUAL = args.visual`, `setattr(settings, ...)`) is no setting.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.settings import module_flags


def imported_flags(project, module) -> dict[str, set]:
    """Keys the importing `module`'s code reads (`ENABLE_VISUAL`, or `settings.ENABLE_VISUAL`) -> the values of
    the literal flags the project modules they come from bind."""
    key = ("imported_flags", module.name)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = _imported(project, module)
    return found


def _imported(project, module) -> dict[str, set]:
    out: dict[str, set] = {}
    stored = {n.id for n in module.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    stored |= {name for n in module.nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    for local, target in sorted(module.imports.items()):
        if local in stored:
            continue    # rebound in the importing module
        if target in project.modules and target != module.name:    # `from . import settings`
            for name, values in _flags(project, target).items():
                if name.isidentifier():      # plain flags, not the `table:` / `call:` keys of the module
                    out[f"{local}.{name}"] = values
            continue
        source, _, name = target.rpartition(".")
        if source in project.modules and source != module.name:   # `from .settings import ENABLE_VISUAL`
            values = _flags(project, source).get(name)
            if values is not None:
                out[local] = values
    return out


def _flags(project, source: str) -> dict[str, set]:
    key = ("module_flags_unassigned", source)
    found = project.memo.get(key)
    if found is None:
        mod = project.modules[source]
        flags = module_flags(mod.tree, mod.nodes)
        assigned = _assigned_through_imports(project, source)
        found = project.memo[key] = {} if None in assigned else {
            name: values for name, values in flags.items() if name not in assigned}
    return found


def _assigned_through_imports(project, source: str) -> set:
    """The names other modules store into `source` (`settings.X = ...`); None among them when one calls
    `setattr` on it (any name)."""
    out: set = set()
    for mod in project.modules.values():
        aliases = {local for local, target in mod.imports.items() if target == source}
        if not aliases or mod.name == source:
            continue
        for node in mod.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                    and isinstance(node.value, ast.Name) and node.value.id in aliases:
                out.add(node.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in aliases:
                out.add(None)
    return out
