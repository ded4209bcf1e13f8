"""Which expressions build a tensor or array (an attribute's state-like initial value) and what external name a
call's function has in a module."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.vocab import FRESH_COPY_METHODS, SAME_VALUE_METHODS


def external_namer(project: Project, module):
    """A function from a call's function expression in `module` to its dotted name outside the project."""
    def name(expr: ast.expr) -> str | None:
        qualified = project.qualify(expr, module)
        return project.external_name(qualified) if qualified else None
    return name


def tensor_like(expr: ast.expr, project: Project, module) -> bool:
    """Does an attribute's initial value look like a tensor or array (state), not config or a module?
    A dict or list literal of tensors (`{"base": torch.zeros(3)}`) counts too. Iterative: a
    2,000-term constant sum must not exhaust the stack."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.BinOp):
            stack += [e.left, e.right]
        elif isinstance(e, ast.Dict):
            stack += [v for v in e.values if v is not None]
        elif isinstance(e, (ast.List, ast.Tuple)):
            stack += e.elts
        elif isinstance(e, ast.DictComp):
            stack.append(e.value)
        elif isinstance(e, ast.ListComp):
            stack.append(e.elt)
        elif isinstance(e, ast.Call) and tensor_call(e, project, module):
            return True
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in SAME_VALUE_METHODS:
            stack.append(e.func.value)   # `torch.zeros(n).to(device)` is the tensor `torch.zeros` made
    return False


def tensor_call(expr: ast.Call, project: Project, module) -> bool:
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in FRESH_COPY_METHODS:
        return True
    name = project.qualify(func, module)
    if not name:
        return False
    name = project.external_name(name)
    if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
        return True
    if name.startswith("torch.nn.") or name.startswith("torch.distributions.") or name.startswith("torch.optim."):
        return False
    if name.startswith("numpy.random."):
        return False
    return name.startswith("torch.") or name.startswith("numpy.")
