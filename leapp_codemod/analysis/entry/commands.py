"""Functions a packaging file installs as commands: the console scripts a user runs to start the application.

Three files declare them, each read as text (nothing is imported or built):
- `setup.py`: `entry_points={"console_scripts": ["drive = pkg.node:main"]}` (every string of that form);
- `setup.cfg`: `[options.entry_points]` (or pbr's `[entry_points]`), key `console_scripts` or `gui_scripts`,
  one `name = module:function` per line;
- `pyproject.toml`: `[project.scripts]`, `[project.gui-scripts]` and `[tool.poetry.scripts]` (a string or a
  table with `reference`/`callable`).

A `module:function` string is resolved against the packaging file's folder: the module file below it whose
path ends with the dotted name (`pkg/node.py`, `src/pkg/node.py`, `pkg/__init__.py` for `pkg:main`).
"""
from __future__ import annotations

import ast
import configparser
import os
import re
import sys
from collections.abc import Iterator
from pathlib import PurePosixPath

from leapp_codemod.source.parse import read_regular_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PACKAGING_BYTES = 256 * 1024
# `name = package.module:function` (a setup.py string, a setup.cfg line); extras (`[gpu]`) allowed after it.
_COMMAND = re.compile(r"^\s*[\w.\-]+\s*=\s*([A-Za-z_][\w.]*)\s*:\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$")
# ... and the value alone (`pyproject.toml`: `drive = "package.module:function"`).
_REFERENCE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*:\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$")
_CFG_SECTIONS = ("options.entry_points", "entry_points")
_CFG_KEYS = ("console_scripts", "gui_scripts")


def setup_py_commands(tree: ast.AST) -> list[tuple[str, str]]:
    """(module, function) of every `name = module:function` string in a setup.py."""
    out = []
    for node in ast.walk(tree):
        found = _COMMAND.match(node.value) if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            else None
        if found:
            out.append((found.group(1), found.group(2)))
    return out


def setup_cfg_commands(text: str) -> list[tuple[str, str]]:
    """(module, function) of the console and GUI scripts a setup.cfg declares; nothing when it does not parse."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    out = []
    for section in _CFG_SECTIONS:
        for key in _CFG_KEYS:
            value = parser.get(section, key, fallback="") if parser.has_section(section) else ""
            for line in value.splitlines():
                found = _COMMAND.match(line)
                if found:
                    out.append((found.group(1), found.group(2)))
    return out


def pyproject_commands(text: str) -> list[tuple[str, str]]:
    """(module, function) of the scripts a pyproject.toml declares; nothing when it does not parse."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    tables = [project.get("scripts"), project.get("gui-scripts"),
              poetry.get("scripts") if isinstance(poetry, dict) else None]
    out = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for value in table.values():
            if isinstance(value, dict):    # poetry: `name = { reference = "pkg.mod:main", type = "console" }`
                value = value.get("reference") or value.get("callable")
            found = _REFERENCE.match(value) if isinstance(value, str) else None
            if found:
                out.append((found.group(1), found.group(2)))
    return out


def packaging_files(module_paths: list[str], stop: str | None = None) -> Iterator[tuple[PurePosixPath, str]]:
    """(path, text) of every setup.cfg and pyproject.toml in the folders holding the modules and the folders
    above them, up to `stop` (the scan root) when given: where a package's packaging file sits."""
    folders: set[str] = set()
    for path in module_paths:
        folder = os.path.dirname(os.path.abspath(path))
        while folder not in folders:
            folders.add(folder)
            parent = os.path.dirname(folder)
            if folder == stop or parent == folder:
                break
            folder = parent
    for folder in sorted(folders):
        for name in ("setup.cfg", "pyproject.toml"):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                text = read_regular_text(path, PACKAGING_BYTES)
                if text is not None:
                    yield PurePosixPath(path), text


def declared_commands(project) -> list[tuple[PurePosixPath, str, str]]:
    """(folder of the packaging file, module, function) of every command the project's packaging files declare."""
    out = []
    own = [m for m in project.modules.values() if not project.is_library(m.name)]
    for module in own:
        if PurePosixPath(module.path).name == "setup.py":
            base = PurePosixPath(os.path.abspath(module.path)).parent
            out += [(base, mod, fn) for mod, fn in setup_py_commands(module.tree)]
    common = os.path.commonpath([os.path.dirname(os.path.abspath(m.path)) for m in own]) if own else None
    for path, text in packaging_files([m.path for m in own], stop=common):
        found = setup_cfg_commands(text) if path.name == "setup.cfg" else pyproject_commands(text)
        out += [(path.parent, mod, fn) for mod, fn in found]
    return out


def installed_commands(project) -> set[str]:
    """Ids of the project functions its packaging files install as commands (see the module docstring)."""
    declared = declared_commands(project)
    if not declared:
        return set()
    modules = sorted(((PurePosixPath(os.path.abspath(m.path)), m) for m in project.modules.values()),
                     key=lambda item: (len(item[0].parts), str(item[0])))    # the nearest file first
    out: set[str] = set()
    for base, dotted, function in declared:
        tails = (dotted.replace(".", "/") + ".py", dotted.replace(".", "/") + "/__init__.py")
        for path, module in modules:
            if path.is_relative_to(base) and any(str(path).endswith("/" + tail) for tail in tails):
                found = module.functions.get(function)
                if found is not None:
                    out.add(found.id)
                    break
    return out
