"""Third-party code copied into the project (a vendored library folder): which scanned modules are one.

A top-level package is a copy when the project's other code imports it and it imports nothing that imports it
back, directly or through others (a dependency, not a part edited to fit the project), and it says it is a
library: its folder, below the scan root, holds its own packaging or licence file, or its import name is a
public library's (knowledge.libraries.COPIED_LIBRARIES) and it is a folder (a single file named like a library,
`diffusion_policy.py` beside the project's `main.py`, is the project's own module). Any module under a third-party folder (`third_party/`,
`vendor/`) is one too. The copy's loops are the library's rollouts, not the project's drivers, and the project's
own code wins ties with it (entrypoints.py). A package the project uses that declares its own release (a
`version.py` in it) is a copy even when a script dropped into it imports the project back.

A copy is whole, but the project uses a part of it: a candidate in a copied module that no module of the
project's own code imports, directly or through the copied modules those import, is code no project driver
reaches (the copy's other algorithms, its examples). It ranks UNUSED_COPY_PENALTY points lower.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePath

from leapp_codemod.analysis.entry.ordering import below_copies
from leapp_codemod.analysis.model.index import ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.libraries import (
    COPIED_LIBRARIES,
    PACKAGING_FILES,
    RELEASE_FILES,
    VENDOR_FOLDERS,
)
from leapp_codemod.model import Entrypoint

UNUSED_COPY_PENALTY = 4


def import_root(module: ModuleIndex) -> PurePath:
    """The folder the module's import name starts from (`lib/lib/algo/ppo.py` named `lib.algo.ppo` -> `lib`)."""
    depth = len(module.name.split(".")) - (0 if module.is_package else 1)
    path = PurePath(module.path)
    return path.parents[depth] if depth < len(path.parents) else PurePath(".")


def _packaged(root: PurePath, base: PurePath) -> bool:
    """Does the folder, when it is below the scan root `base`, hold its own packaging or licence file?"""
    return root != base and any((Path(root) / name).is_file() for name in PACKAGING_FILES)


def _released(top: str, modules: list[ModuleIndex]) -> bool:
    """Does the top-level package declare its own release (`top/version.py`), as a published library does?"""
    return any(m.name in {f"{top}.{stem}" for stem in RELEASE_FILES} for m in modules)


def vendored_modules(project: Project) -> set[str]:
    """Names of the scanned modules that are third-party code copied into the project (once per scan)."""
    key = ("vendored", project.own_module_count())
    if key not in project.memo:
        project.memo[key] = _vendored(project)
    return project.memo[key]


def _vendored(project: Project) -> set[str]:
    own = [m for name, m in project.modules.items() if not project.is_library(name)]
    copied = {m.name for m in own if VENDOR_FOLDERS & set(PurePath(m.path).parts[:-1])}
    tops: dict[str, list[ModuleIndex]] = {}
    for module in own:
        tops.setdefault(module.name.split(".")[0], []).append(module)
    if len(tops) < 2:
        return copied
    imports = {top: {target.split(".")[0] for m in modules for target in m.imports.values()} & set(tops) - {top}
               for top, modules in tops.items()}
    base = min((import_root(m) for m in own), key=lambda root: len(root.parts))
    for top, modules in tops.items():
        inside = _kept_inside(top, tops)
        users = _importers(top, {other: targets for other, targets in imports.items() if other not in inside})
        if users and _released(top, modules):
            copied.update(m.name for m in modules)  # a published release, whatever scripts were dropped into it
            continue
        if not users or imports[top] & users:
            continue    # nothing of the project uses it, or it uses what uses it (a part, edited to fit)
        if (top in COPIED_LIBRARIES and _copied_as_folder(modules)) or _packaged(import_root(modules[0]), base):
            copied.update(m.name for m in modules)
    return copied


def _kept_inside(top: str, tops: dict[str, list[ModuleIndex]]) -> set[str]:
    """The other top-level names whose files all sit in `top`'s folder (a script in a package folder without
    `__init__.py`, `pkg/training/trainers/x/x_trainer.py` named `x_trainer`): part of it, not a user of it."""
    folder = import_root(tops[top][0]) / top
    return {other for other, modules in tops.items()
            if other != top and all(folder in PurePath(m.path).parents for m in modules)}


def _copied_as_folder(modules: list[ModuleIndex]) -> bool:
    """Is the top-level name a package (a folder of modules)? A library is copied as its folder; a single file
    named like one (`diffusion_policy.py` beside the project's `main.py`) is the project's own module."""
    return len(modules) > 1 or any(m.is_package for m in modules)


def _importers(top: str, imports: dict[str, set[str]]) -> set[str]:
    """The top-level packages that import `top`, directly or through others."""
    found, todo = set(), [top]
    while todo:
        current = todo.pop()
        for other, targets in imports.items():
            if current in targets and other not in found and other != top:
                found.add(other)
                todo.append(other)
    return found


def _module_of(target: str, modules: dict) -> str | None:
    """The scanned module an import target names (`pkg.mod.Class` -> `pkg.mod`), or None."""
    parts = target.split(".")
    return next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in modules), None)


def used_copies(project: Project, copied: set[str]) -> set[str]:
    """The copied modules the project's own code imports, directly or through copied modules it imports."""
    folders = {import_root(m) / m.name.split(".")[0] for m in map(project.modules.get, copied) if m is not None}
    own = [m for name, m in project.modules.items() if name not in copied and not project.is_library(name)
           and not folders & set(PurePath(m.path).parents)]    # a script kept inside the copy is the copy's
    used: set[str] = set()
    todo = [target for m in own for target in m.imports.values()]
    while todo:
        name = _module_of(todo.pop(), project.modules)
        if name in copied and name not in used:
            used.add(name)
            todo.extend(project.modules[name].imports.values())
    return used


def below_unused_copies(ranked: list[Entrypoint], project: Project) -> list[Entrypoint]:
    """Candidates in copied modules the project's own code never imports lose UNUSED_COPY_PENALTY points."""
    copied = vendored_modules(project)
    unused = copied - used_copies(project, copied) if copied else set()
    out = []
    for c in ranked:
        if c.module in unused:
            note = (f"no module of the project's own code imports `{c.module}`, directly or through the copy: "
                    f"no project driver reaches it (-{UNUSED_COPY_PENALTY})")
            c = replace(c, score=c.score - UNUSED_COPY_PENALTY, reasons=(*c.reasons, note))
        out.append(c)
    return out


def below_any_copy(ranked: list[Entrypoint], project: Project) -> list[Entrypoint]:
    """Candidates in a folder named like a copy (ordering.below_copies), then those in copied-library modules
    the project never imports, lose their points."""
    return below_unused_copies(below_copies(ranked), project)
