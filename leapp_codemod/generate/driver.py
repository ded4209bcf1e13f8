"""The driver script `generate` defaults to: the script whose loop calls the entrypoint.

The same call-site analysis `entrypoints` ranks with (a call in a loop resolved to the entry, or
a `.name(...)` call in a loop of an unresolved object), over the folder that holds the
application. A script (it has `if __name__ == "__main__":` or its loop runs at module level)
outside the application package is preferred. A loop (or a registered callback) in a module nobody runs
as a script is driven by the script that imports that module, directly or through other modules.
"""
from __future__ import annotations

import ast
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.source.roots import search_root


class DriverArgsError(ValueError):
    """--driver-args / --driver-env that cannot be kept (one line)."""


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_driver_args(text: str | None) -> tuple[str, ...]:
    """`--driver-args "config.yaml --steps 200"` as the argument list the driver receives (shell quoting)."""
    if text is None:
        return ()
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise DriverArgsError(f"--driver-args {text!r}: {exc}") from None


def parse_driver_env(items) -> tuple[tuple[str, str], ...]:
    """`--driver-env NAME=VALUE` pairs, in order (a name given twice keeps the last value)."""
    env: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not _ENV_NAME.match(name):
            raise DriverArgsError(f"--driver-env {item!r}: expected NAME=VALUE with NAME an environment variable name")
        env[name] = value
    return tuple(env.items())


@dataclass(frozen=True)
class FoundDriver:
    path: Path
    line: int        # the call of the entrypoint inside the loop
    reason: str


def find_driver(app: Path, entry: str) -> FoundDriver | None:
    from leapp_codemod.analysis.entry.collect import collect_call_sites
    from leapp_codemod.analysis.model.leapp_support import load_support
    from leapp_codemod.scan import load_project
    root = search_root(app)
    loaded = load_project([os.path.relpath(root)])
    project = loaded.project
    module_name, _, qualname = entry.partition(":")
    sites = collect_call_sites(project, load_support())
    calls = [(caller.path, caller.module, line) for caller, line in _entry_loop_calls(sites, project, module_name,
                                                                                       qualname)]
    calls += _module_level_loop_calls(project, qualname.rpartition(".")[2], module_name.split(".")[0])
    app_tree = (app if app.is_dir() else app.parent).resolve()
    candidates = []
    for path, module, line in calls:
        index = project.modules.get(module)
        is_script = index is not None and index.has_main_guard or module.endswith("<loop>")
        inside_app = Path(path).resolve().is_relative_to(app_tree) if app.is_dir() else False
        candidates.append(((not is_script, inside_app, path, line), path, line))
    if not candidates:
        return None
    (not_script, *_), path, line = min(candidates)
    if not_script:
        # A loop or callback in a module nobody runs as a script: run the script that imports it.
        caller = next(module for module in project.modules.values() if module.path == path)
        script = _script_reaching(project, caller.name, app_tree)
        if script is not None:
            return FoundDriver(Path(script.path), line, f"it runs {path}, whose loop calls {qualname} at {path}:{line}")
    return FoundDriver(Path(path), line, f"its loop calls {qualname} at {path}:{line}")


def _script_reaching(project, module_name: str, app_tree: Path):
    """The script (`if __name__ == "__main__":`) that imports `module_name`, directly or through other
    modules of the project; inside the application's folder and nearest in imports first."""
    reached, frontier, depth, found = {module_name}, {module_name}, 0, []
    while frontier:
        depth += 1
        frontier = {module.name for module in project.modules.values()
                    if module.name not in reached and not project.is_library(module.name)
                    and any(_names(target, name) for target in module.imports.values() for name in frontier)}
        reached |= frontier
        found += [(not Path(project.modules[name].path).resolve().is_relative_to(app_tree), depth,
                   project.modules[name].path, name) for name in frontier if project.modules[name].has_main_guard]
    return project.modules[min(found)[3]] if found else None


def _names(target: str, module_name: str) -> bool:
    """An import target (`pkg.mod`, `pkg.mod.Class`) that names the module."""
    return target == module_name or target.startswith(module_name + ".")


def _entry_loop_calls(sites, project, module_name: str, qualname: str):
    for module in project.modules.values():
        if module.name == module_name or module.name.endswith("." + module_name):
            fn = module.functions.get(qualname)
            if fn is not None:
                yield from sites.in_loops.get(fn.id, [])
    yield from sites.by_name_in_loops.get(qualname.rpartition(".")[2], [])


def _module_level_loop_calls(project, name: str, package: str):
    """Calls of `name` in loops that run at module level, in scripts that import from `package`."""
    for module in project.modules.values():
        if not any(target.split(".")[0] == package for target in module.imports.values()):
            continue
        for stmt in module.tree.body:
            if not isinstance(stmt, (ast.For, ast.While, ast.If)):
                continue
            for node in ast.walk(stmt):
                if isinstance(node, (ast.For, ast.While)):
                    for sub in ast.walk(node):
                        func = sub.func if isinstance(sub, ast.Call) else None
                        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                        if called == name:
                            yield module.path, module.name + "<loop>", sub.lineno
