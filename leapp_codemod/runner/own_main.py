"""A driver that is the entry's own module (`policy.py` defines the class and, under its main guard, the loop
that calls it).

Running that file as `__main__` would define the class a second time, and the loop would call the new class,
not the one `run` intercepts. So the statements of its main guard run in the already imported module's
namespace instead, where every name is the intercepted object: the loop calls what was intercepted, the rest
of the module has already run once at import, as it does when the file is run as a script.
"""
from __future__ import annotations

import ast
import types
from pathlib import Path


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either side)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
    return sides in ({"__name__", "'__main__'"}, {"__name__", '"__main__"'})


def main_guard_runner(driver: Path, module: types.ModuleType):
    """A callable running the main-guard statements of `driver` in `module`'s namespace when `driver` is the
    file `module` was imported from, else None (the driver runs as `__main__` as usual)."""
    source_file = getattr(module, "__file__", None)
    if not source_file or Path(source_file).resolve() != driver.resolve():
        return None
    tree = ast.parse(driver.read_text(encoding="utf-8"), filename=str(driver))
    body = [stmt for node in tree.body if isinstance(node, ast.If) and _is_main_guard(node.test) for stmt in node.body]
    if not body:
        return None
    code = compile(ast.Module(body=body, type_ignores=[]), str(driver), "exec")
    return lambda: exec(code, module.__dict__)   # noqa: S102 - the user's own driver, as `run` always runs it
