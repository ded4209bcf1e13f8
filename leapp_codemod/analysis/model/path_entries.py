"""Folders a module puts on `sys.path` (`sys.path.append(...)`, `sys.path.insert(0, ...)`), read from its code.

A script that appends `./vendor/models` or `os.path.join(os.path.dirname(__file__), "lib")` imports the files
there by bare name. Only folders spelled by constants and `__file__` are read; anything else is skipped.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.analysis.model.index import ModuleIndex

_DIRNAME_CALLS = frozenset({"os.path.dirname", "path.dirname", "osp.dirname", "dirname"})
_SAME_FOLDER_CALLS = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath", "path.abspath",
                                "path.realpath", "osp.abspath", "osp.realpath", "abspath", "realpath", "str",
                                "Path", "pathlib.Path", "os.fspath"})
_JOIN_CALLS = frozenset({"os.path.join", "path.join", "osp.join", "join"})
_MAX_DEPTH = 12


@dataclass
class PathEntries:
    """Folders searched before the project root (`insert(0, ...)`) and after it (`append`, other inserts)."""
    first: list[Path] = field(default_factory=list)
    last: list[Path] = field(default_factory=list)


def path_entries(module: ModuleIndex, file: Path, cwd: Path) -> PathEntries:
    """The folders `module` (the file at `file`) adds to `sys.path`; a relative constant is taken from `cwd`."""
    found = PathEntries()
    for node in module.nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "insert") and ast.unparse(node.func.value) == "sys.path"):
            continue
        args = node.args
        spelled = args[0] if node.func.attr == "append" and len(args) == 1 else \
            args[1] if node.func.attr == "insert" and len(args) == 2 else None
        folder = _folder(spelled, module, file, cwd, 0) if spelled is not None else None
        if folder is None:
            continue
        front = node.func.attr == "insert" and isinstance(args[0], ast.Constant) and args[0].value == 0
        (found.first if front else found.last).append(Path(os.path.normpath(folder)))
    return found


def _folder(expr: ast.expr, module: ModuleIndex, file: Path, cwd: Path, depth: int) -> Path | None:
    """The path `expr` spells, or None when it is not built from constants and `__file__`."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return cwd / expr.value if not os.path.isabs(expr.value) else Path(expr.value)
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return file
        bound = module.globals.get(expr.id)
        return _folder(bound, module, file, cwd, depth + 1) if bound is not None else None
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        inner = _folder(expr.value, module, file, cwd, depth + 1)
        return inner.parent if inner is not None else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        left = _folder(expr.left, module, file, cwd, depth + 1)
        right = expr.right
        if left is not None and isinstance(right, ast.Constant) and isinstance(right.value, str):
            return left / right.value
        return None
    if not isinstance(expr, ast.Call):
        return None
    if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("resolve", "absolute") and not expr.args:
        return _folder(expr.func.value, module, file, cwd, depth + 1)
    called = ast.unparse(expr.func)
    if called in _DIRNAME_CALLS and len(expr.args) == 1:
        inner = _folder(expr.args[0], module, file, cwd, depth + 1)
        return inner.parent if inner is not None else None
    if called in _SAME_FOLDER_CALLS and len(expr.args) == 1:
        return _folder(expr.args[0], module, file, cwd, depth + 1)
    if called in _JOIN_CALLS and expr.args:
        head = _folder(expr.args[0], module, file, cwd, depth + 1)
        rest = [a.value for a in expr.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if head is None or len(rest) != len(expr.args) - 1:
            return None
        return head.joinpath(*rest)
    return None


def search_folders(module: ModuleIndex, file: Path, top: Path, cwd: Path) -> list[Path]:
    """Where an absolute import in `module` is looked up, in order: folders it inserts at the front of
    `sys.path`, the project root it sits under (`top`), its own folder (Python puts a script's folder first
    on `sys.path`, so a sibling imported by bare name is found even inside a package; tried after the root,
    which wins when the file is imported as part of its package), then folders it appends."""
    entries = path_entries(module, file, cwd) if _touches_sys_path(module) else PathEntries()
    own = [file.parent] if file.parent != top else []
    return list(dict.fromkeys([*entries.first, top, *own, *entries.last]))


def _touches_sys_path(module: ModuleIndex) -> bool:
    return "sys" in module.imports
