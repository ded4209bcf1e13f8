"""What `generate` reads of the application's code, taken from the scan that preceded it.

The scan loaded and parsed every module of the application (`scan.ScanModel.loaded`); `generate` asks it
for a function's definition, a module's syntax tree and its import bindings instead of parsing the files
again. A module the scan did not read the way `generate` names it (another file under the import root, a
file above the entry-mode size bound, no scan given) is read from its file, once.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from leapp_codemod.analysis.model.index import ModuleIndex, build_index
from leapp_codemod.generate.source_info import (
    FunctionSource, SourceError, find_function, module_file, read_function,
)
from leapp_codemod.model import FileError
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import decode, parse_file

if TYPE_CHECKING:  # pragma: no cover
    from leapp_codemod.analysis.model.project import Project


@dataclass
class Sources:
    root: Path                              # the application's import root
    project: Project | None = None          # the scan's loaded project
    functions: dict[tuple[str, str], FunctionSource] = field(default_factory=dict)
    indexes: dict[str, ModuleIndex | FileError] = field(default_factory=dict)
    trees: dict[str, ast.Module | None] = field(default_factory=dict)    # by a finding's path
    lines: dict[str, tuple[dict[int, set[str]], dict[int, set[str]]]] = field(default_factory=dict)

    def function(self, module: str, qualname: str) -> FunctionSource:
        """The definition of `module:qualname` (raises SourceError like `read_function`)."""
        key = (module, qualname)
        if key not in self.functions:
            self.functions[key] = self._scanned_function(module, qualname) or read_function(self.root, module,
                                                                                              qualname)
        return self.functions[key]

    def index(self, module: str) -> ModuleIndex | FileError:
        """The module's index (tree, import bindings) as the scan built it, else parsed from its file once.
        Raises SourceError when no file under the root is that module."""
        if module not in self.indexes:
            path = module_file(self.root, module)
            scanned = self._scanned_index(module, path)
            if scanned is None:
                parsed = parse_file(SourceFile(path.resolve(), path.as_posix(), module, path.name == "__init__.py"))
                scanned = parsed if isinstance(parsed, FileError) else build_index(parsed)
            self.indexes[module] = scanned
        return self.indexes[module]

    def calls_on_line(self, path: str, line: int) -> set[str]:
        """Names called on a physical line of a file the scan reported on: `f(...)`, `obj.f(...)` give `f`."""
        return self._on_lines(path)[0].get(line, set())

    def self_attrs_on_line(self, path: str, line: int) -> set[str]:
        """Attributes of `self` read or written on a physical line of a file the scan reported on."""
        return self._on_lines(path)[1].get(line, set())

    def _on_lines(self, path: str) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
        """(line -> names called there, line -> attributes of self there), once per file."""
        if path not in self.lines:
            calls: dict[int, set[str]] = {}
            attrs: dict[int, set[str]] = {}
            tree = self.tree_at(path)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.id if isinstance(func, ast.Name) else \
                        func.attr if isinstance(func, ast.Attribute) else None
                    if name is not None:
                        calls.setdefault(func.end_lineno, set()).add(name)
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                    attrs.setdefault(node.value.lineno, set()).add(node.attr)
            self.lines[path] = (calls, attrs)
        return self.lines[path]

    def tree_at(self, path: str) -> ast.Module | None:
        """The syntax tree of the file at a finding's path (as the scan named it), None when unreadable."""
        if path not in self.trees:
            modules = self.project.modules.values() if self.project is not None else ()
            index = next((m for m in modules if m.path == path), None)
            if index is None:
                parsed = parse_file(SourceFile(Path(path), path, Path(path).stem, False))
                self.trees[path] = None if isinstance(parsed, FileError) else parsed.tree
            else:
                self.trees[path] = index.tree
        return self.trees[path]

    def _scanned_index(self, module: str, path: Path) -> ModuleIndex | None:
        index = self.project.modules.get(module) if self.project is not None else None
        if index is None or Path(index.path).resolve() != path.resolve():
            return None
        return index

    def _scanned_function(self, module: str, qualname: str) -> FunctionSource | None:
        try:
            path = module_file(self.root, module)
        except SourceError:
            return None
        index = self._scanned_index(module, path)
        node = find_function(index.tree, qualname) if index is not None else None
        if node is None:
            return None
        try:
            text = decode(path.read_bytes())
        except (OSError, UnicodeDecodeError, LookupError):
            return None
        return FunctionSource(path=path, line=node.lineno, node=node, text=text)
