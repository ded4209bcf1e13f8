"""Which bindings of a local can reach a read of it: the ones before it, and any inside a loop around it."""
from __future__ import annotations

import ast


def reaching_bindings(fn, name: ast.Name) -> list[ast.expr]:
    """The values bound to `name.id` in `fn` that a read at `name` can see: a binding after the read reaches it
    only through a loop around both (`count = len(parts)`, then `parts = torch.cat(parts)`: the list, not the
    tensor)."""
    loops = [n for n in fn.nodes if isinstance(n, (ast.For, ast.While))
             and n.lineno <= name.lineno <= (n.end_lineno or n.lineno)]
    return [v for v in fn.assigned(name.id) if v.lineno <= name.lineno
            or any(loop.lineno <= v.lineno <= (loop.end_lineno or loop.lineno) for loop in loops)]
