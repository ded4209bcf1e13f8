"""Loading a project: files -> parse -> per-module index -> linked `Project`, with each file's suppressions."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from leapp_codemod.analysis.model.index import FunctionInfo, build_index, renamed
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.model import FileError
from leapp_codemod.scan.suppressions import parse_suppressions
from leapp_codemod.source.files import SourceFile, discover
from leapp_codemod.source.parse import MAX_FILE_BYTES, WHOLE_FILE_BYTES, parse_file


@dataclass
class LoadedProject:
    project: Project
    suppressions: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
    errors: list[FileError] = field(default_factory=list)


def load_project(paths: list[str], exclude: tuple[str, ...] = ()) -> LoadedProject:
    found = discover(paths, exclude)
    loaded = LoadedProject(Project({}), errors=list(found.errors))
    load_files(loaded, found.files)
    return loaded


def _parse_for_entry_mode(src: SourceFile, max_bytes: int = MAX_FILE_BYTES):
    try:
        size = src.path.stat().st_size
    except OSError:
        size = 0
    if size > WHOLE_FILE_BYTES:
        return FileError(src.display, f"file is {size / 2**20:.1f} MiB, above the {WHOLE_FILE_BYTES // 2**20} MiB "
                                      "bound of entry mode; not followed from the entry (`scan --all` and `lint` "
                                      "analyze it in segments)")
    return parse_file(src, max_bytes)


def load_files(loaded: LoadedProject, files, max_bytes: int = MAX_FILE_BYTES) -> None:
    parsed_files = []
    for src in files:
        parsed = _parse_for_entry_mode(src, max_bytes)
        if isinstance(parsed, FileError):
            loaded.errors.append(parsed)
        else:
            parsed_files.append((src, parsed, build_index(parsed)))
    imported = _imported_names([index for _, _, index in parsed_files])
    chosen = _one_scheme_per_folder({src: _preferred_name(src, imported) for src, _, _ in parsed_files})
    real_paths = {}
    for src, parsed, index in parsed_files:
        preferred = chosen[src]
        if preferred != src.module:
            others = tuple(n for n in (src.module, *src.aliases) if n != preferred)
            src = SourceFile(src.path, src.display, preferred, src.is_package, others)
            parsed = replace(parsed, source=src)
            index = build_index(parsed) if index.has_relative_imports else renamed(index, preferred)
        _add_index(loaded, src, parsed, index)
        real_paths[index.name] = src.path
    loaded.project.link_imports(real_paths)


def _imported_names(indexes) -> set[str]:
    """Every dotted prefix of every absolute import target in the project."""
    out = set()
    for index in indexes:
        for target in index.imports.values():
            parts = target.split(".")
            out.update(".".join(parts[:cut]) for cut in range(1, len(parts) + 1))
    return out


def _preferred_name(src: SourceFile, imported: set[str]) -> str:
    """The package name, unless the project imports the file only by another of its names
    (a namespace package imported from the project root)."""
    if src.module in imported:
        return src.module
    return next((alias for alias in src.aliases if alias in imported and "." in alias), src.module)


def _one_scheme_per_folder(preferred: dict[SourceFile, str]) -> dict[SourceFile, str]:
    """Files of one folder named alike: when the project imports one of them by its name from the project
    root (`pkg.policy.model_a`), its neighbours take that form too (`pkg.policy.model_b`, not a bare `model_b`).
    When the project imports a file without the package its folder sits in (`agents.agent64` for
    `src/agents/agent64.py`: `src/` is on sys.path), the other files of that package drop it too (`node`, not
    `src.node`): one tree, one scheme."""
    prefixes: dict = {}
    dropped: set[str] = set()
    for src, name in preferred.items():
        if name != src.module and "." in name:
            prefixes.setdefault(src.path.parent, name.rpartition(".")[0] + ".")
        if name != src.module and src.module.endswith("." + name):
            dropped.add(src.module[: -len(name)])
    out = {}
    for src, name in preferred.items():
        prefix = prefixes.get(src.path.parent)
        if prefix and not name.startswith(prefix):
            name = next((alias for alias in src.aliases if alias.startswith(prefix)
                         and "." not in alias[len(prefix):]), name)
        elif name == src.module:
            name = next((name[len(p):] for p in sorted(dropped) if name.startswith(p) and name[len(p):] in src.aliases),
                        name)
        out[src] = name
    return out


def _add_index(loaded: LoadedProject, src: SourceFile, parsed, index) -> None:
    if index.name in loaded.project.modules:
        # two files map to one module name (e.g. two scripts called main.py): keep both, distinctly
        index.name = f"{index.name}@{src.display}"
        index.functions = {q: _rename(f, index.name) for q, f in index.functions.items()}
    loaded.project.modules[index.name] = index
    for alias in src.aliases:
        loaded.project.aliases.setdefault(alias, index.name)
    loaded.suppressions[src.display] = parse_suppressions(parsed.text)


def _rename(fn: FunctionInfo, module: str) -> FunctionInfo:
    return FunctionInfo(f"{module}:{fn.qualname}", module, fn.qualname, fn.node, fn.class_name, fn.path)
