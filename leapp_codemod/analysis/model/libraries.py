"""Installed third-party packages the pipeline calls, read from site-packages (never imported).

When the pipeline calls into an installed package (a Stable-Baselines3 policy's `predict`, an rsl_rl
model, a skrl model, tensordict), the functions it reaches there are analyzed like project code and
their hazards are reported at the application's call site, naming the library location. Packages
are located by reading the interpreter's `sys.path` site directories, and their modules are parsed
lazily, only when a lookup names them, so scans of applications that call no library pay nothing.

Libraries the rules model themselves (torch, NumPy, SciPy, OpenCV, ...) are never followed: their
calls are what the rules judge.
"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.analysis.model.index import ModuleIndex, build_index
from leapp_codemod.knowledge.libraries import (
    FOREIGN_ROOTS,
    MODELED_ROOTS,
    OPAQUE_MODELS,
)
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import ParsedFile, parse_file

SITE_DIR_NAMES = ("site-packages", "dist-packages")


def site_dirs(path: list[str] | None = None) -> tuple[Path, ...]:
    """The site-packages folders of the running interpreter's search path, in search order."""
    out = []
    for entry in path if path is not None else sys.path:
        if entry and Path(entry).name in SITE_DIR_NAMES and Path(entry).is_dir():
            out.append(Path(entry))
    return tuple(out)


def installed_key(dirs: tuple[Path, ...]) -> str:
    """Names and versions of everything installed (dist-info folder names), for cache keys."""
    names = []
    for folder in dirs:
        try:
            names += sorted(n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return "|".join(names)


@dataclass(frozen=True)
class InstalledPackage:
    name: str          # top-level import name
    site: Path         # the site-packages folder holding it
    version: str       # from its dist-info, "unknown" without one


def _version(site: Path, name: str) -> str:
    for info in sorted(site.glob("*.dist-info")):
        top = info / "top_level.txt"
        try:
            tops = top.read_text(encoding="utf-8").split() if top.is_file() else []
        except OSError:
            tops = []
        dist, _, version = info.name[: -len(".dist-info")].partition("-")
        if name in tops or dist.replace("-", "_").lower() == name.lower():
            return version
    return "unknown"


@dataclass
class LibraryLoader:
    """Parses library modules on demand for one scan; what it loads is kept for that scan only."""

    dirs: tuple[Path, ...]
    local_roots: frozenset[str]                      # top-level names the scanned project defines itself
    packages: dict[str, InstalledPackage | None] = field(default_factory=dict)
    modules: dict[str, ModuleIndex | None] = field(default_factory=dict)
    loaded: int = 0                                  # how many modules were indexed

    def package(self, top: str) -> InstalledPackage | None:
        if top in self.packages:
            return self.packages[top]
        found = None
        if top not in MODELED_ROOTS and top not in FOREIGN_ROOTS and top not in self.local_roots \
                and top not in sys.stdlib_module_names and top.isidentifier():
            for site in self.dirs:
                if (site / top / "__init__.py").is_file() or (site / f"{top}.py").is_file():
                    found = InstalledPackage(top, site, _version(site, top))
                    break
        self.packages[top] = found
        return found

    def module(self, dotted: str) -> ModuleIndex | None:
        """The index of an installed module by its import name, parsed on first use."""
        if dotted in self.modules:
            return self.modules[dotted]
        index = None
        package = self.package(dotted.partition(".")[0])
        if package is not None:
            index = self._parse(package, dotted)
        self.modules[dotted] = index
        self.loaded += index is not None
        return index

    def _parse(self, package: InstalledPackage, dotted: str) -> ModuleIndex | None:
        base = package.site.joinpath(*dotted.split("."))
        for path, is_package in ((base / "__init__.py", True), (base.with_suffix(".py"), False)):
            if path.is_file():
                display = path.relative_to(package.site).as_posix()
                parsed = parse_file(SourceFile(path, display, dotted, is_package))
                return build_index(parsed) if isinstance(parsed, ParsedFile) else None
        return None

    def is_library(self, module: str) -> bool:
        return self.modules.get(module) is not None


def call_origin(call: ast.Call, caller_id: str) -> tuple:
    return (caller_id, call.lineno, call.col_offset, call.end_lineno or call.lineno,
            call.end_col_offset if call.end_col_offset is not None else call.col_offset)


def library_available(project, dotted: str) -> bool:
    """Is the top-level package of `dotted` one whose behaviour the scan knows or can read?"""
    root = dotted.partition(".")[0]
    if root in MODELED_ROOTS or root in FOREIGN_ROOTS or root in sys.stdlib_module_names or root in OPAQUE_MODELS:
        return True
    libraries = project.libraries
    return libraries is None or libraries.package(root) is not None


def in_project(project, target: str) -> bool:
    """Does the dotted `target` name a module of the scanned code (not an installed library's)?"""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        module = project.module_named(".".join(parts[:cut]))
        if module is not None:
            return not project.is_library(module.name)
    return False
