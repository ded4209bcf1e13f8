"""What a script-level name may hold: every value the module's own statements bind it to."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ModuleIndex
from leapp_codemod.analysis.model.project import Project


def module_bindings(project: Project, module: ModuleIndex) -> dict[str, list[ast.expr]]:
    """Every value a module-level name is assigned in the module's own statements, branches and loops
    included (`if cfg.big: net = Big() else: net = Small()` in a script): what a script-level name may hold."""
    key = ("module_bindings", module.name)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        pending = list(module.tree.body)
        while pending:
            stmt = pending.pop(0)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(stmt.value)
            for block in ("body", "orelse", "finalbody", "handlers"):
                pending += [s for s in getattr(stmt, block, ()) if isinstance(s, (ast.stmt, ast.excepthandler))]
    return found
