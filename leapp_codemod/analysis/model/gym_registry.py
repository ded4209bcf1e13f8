"""Environments a script makes by their registered id: `register(id="DiffBot-v0", entry_point="pkg.env:DiffBotEnv")`
somewhere in the project, then `env = gym.make("DiffBot-v0")`. The class is the project's, named by the
registration's entry point; nothing is imported or run."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.analysis.model.project import Project

MAKE_FUNCTIONS = frozenset({"make"})   # `gym.make(...)`, `gymnasium.make(...)`
REGISTER_FUNCTIONS = frozenset({"register"})


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str, position: int) -> ast.AST | None:
    found = next((k.value for k in call.keywords if k.arg == name), None)
    return found if found is not None else (call.args[position] if len(call.args) > position else None)


def registered_entry_points(project: Project) -> dict[str, str]:
    """Environment id -> `module:Class` entry point, from every `register(id=..., entry_point=...)` call of the
    project's modules (kept per project)."""
    key = ("gym registrations", project.own_module_count())
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = {}
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            for node in module.nodes:
                if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) \
                        in REGISTER_FUNCTIONS:
                    env_id, target = _string(_keyword(node, "id", 0)), _string(_keyword(node, "entry_point", 1))
                    if env_id and target and ":" in target:
                        found.setdefault(env_id, target)
    return found


def made_class(project: Project, call: ast.Call) -> ClassInfo | None:
    """The project class `gym.make("Id", ...)` builds, when the project registers that id."""
    name = getattr(call.func, "attr", getattr(call.func, "id", None))
    env_id = _string(_keyword(call, "id", 0)) if name in MAKE_FUNCTIONS else None
    target = registered_entry_points(project).get(env_id) if env_id else None
    if target is None:
        return None
    module, _, qualname = target.partition(":")
    return project.class_of(f"{module}.{qualname}")
