"""Third-party code copied into the project (a vendored library folder): which scanned modules are one.

A top-level package is a copy when the project's other code imports it and it imports nothing that imports it
back, directly or through others (a dependency, not a part edited to fit the project), and it says it is a
library: its folder, below the scan root, holds its own packaging or licence file, or its import name is a
public library's (knowledge.libraries.COPIED_LIBRARIES). Any module under a third-party folder (`third_party/`,
`vendor/`) is one too. The copy's loops are the library's rollouts, not the project's drivers, and the
project's own code wins ties with it (entrypoints.py).
"""
from __future__ import annotations

from pathlib import Path, PurePath

from leapp_codemod.analysis.model.index import ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.knowledge.libraries import COPIED_LIBRARIES, PACKAGING_FILES, VENDOR_FOLDERS


def _import_root(module: ModuleIndex) -> PurePath:
    """The folder the module's import name starts from (`lib/lib/algo/ppo.py` named `lib.algo.ppo` -> `lib`)."""
    depth = len(module.name.split(".")) - (0 if module.is_package else 1)
    path = PurePath(module.path)
    return path.parents[depth] if depth < len(path.parents) else PurePath(".")


def _packaged(root: PurePath, base: PurePath) -> bool:
    """Does the folder, when it is below the scan root `base`, hold its own packaging or licence file?"""
    return root != base and any((Path(root) / name).is_file() for name in PACKAGING_FILES)


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
    base = min((_import_root(m) for m in own), key=lambda root: len(root.parts))
    for top, modules in tops.items():
        users = _importers(top, imports)
        if not users or imports[top] & users:
            continue    # nothing of the project uses it, or it uses what uses it (a part, edited to fit)
        if top in COPIED_LIBRARIES or _packaged(_import_root(modules[0]), base):
            copied.update(m.name for m in modules)
    return copied


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
