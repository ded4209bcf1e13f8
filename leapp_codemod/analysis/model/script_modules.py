"""Parts of a TorchScript module: `policy.actor.head` of `policy = torch.jit.load(p)` is a submodule, a network
LEAPP traces like the whole (its scripted code is decomposed into the graph)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.walk import self_returned
from leapp_codemod.knowledge.libraries import SCRIPT_MODULE_LOADERS


def script_submodule(project, module, value: ast.expr, scope: ast.AST) -> bool:
    """Is `value` an attribute chain (`base.actor.backbone`) on a name `scope` (a function, or the module's
    tree) binds only to a loaded or scripted TorchScript module (also moved or put in evaluation mode)?"""
    if not isinstance(value, ast.Attribute):
        return False
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    values = [self_returned(n.value) for n in ast.walk(scope) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == root.id for t in n.targets)]
    return bool(values) and all(isinstance(v, ast.Call) and project.external_name(
        project.qualify(v.func, module) or "") in SCRIPT_MODULE_LOADERS for v in values)
