"""`[tool.leapp-codemod]` in the nearest pyproject.toml."""
from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEYS = frozenset({"entry", "select", "extend-select", "ignore", "exclude", "extend-exclude", "per-file-ignores",
                  "max-file-mb", "bind"})
DEFAULT_MAX_FILE_MB = 64


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    entry: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_mb: float = DEFAULT_MAX_FILE_MB    # larger files are skipped with one line
    extend_select: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    # glob (relative to the pyproject.toml's folder, or a file name) -> codes, names or categories
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    source: str | None = None   # the pyproject.toml it came from
    # receiver expression (`self.adapter`) -> the class ("pkg.mod:Class") it holds at run time
    bind: tuple[tuple[str, str], ...] = field(default=())

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 2**20)

    @property
    def root(self) -> Path:
        """The folder relative paths in the configuration are resolved against."""
        return Path(self.source).parent if self.source else Path.cwd()


def find_pyproject(start: Path) -> Path | None:
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            return path
    return None


def _strings(value, key: str, path: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{path}: [tool.leapp-codemod] {key} must be a string or a list of strings")


def load_config(start: Path) -> Config:
    path = find_pyproject(start.resolve())
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    section = data.get("tool", {}).get("leapp-codemod", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.leapp-codemod] must be a table")
    unknown = sorted(set(section) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.leapp-codemod]: {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(KEYS))})")
    entry = section.get("entry")
    if entry is not None and not isinstance(entry, str):
        raise ConfigError(f"{path}: [tool.leapp-codemod] entry must be a string like 'app.policy:Policy.act'")
    max_mb = section.get("max-file-mb", DEFAULT_MAX_FILE_MB)
    if isinstance(max_mb, bool) or not isinstance(max_mb, (int, float)) or max_mb <= 0:
        raise ConfigError(f"{path}: [tool.leapp-codemod] max-file-mb must be a positive number of MiB")
    return Config(entry=entry, max_file_mb=max_mb,
                  select=_strings(section.get("select", []), "select", path),
                  extend_select=_strings(section.get("extend-select", []), "extend-select", path),
                  ignore=_strings(section.get("ignore", []), "ignore", path),
                  exclude=_strings(section.get("exclude", []), "exclude", path),
                  extend_exclude=_strings(section.get("extend-exclude", []), "extend-exclude", path),
                  per_file_ignores=_per_file_ignores(section.get("per-file-ignores", {}), path),
                  bind=_bindings(section.get("bind", {}), path),
                  source=str(path))


def _per_file_ignores(value, path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [tool.leapp-codemod] per-file-ignores must be a table of "
                          f"\"glob\" = [\"CODE\", ...]")
    return tuple((pattern, _strings(codes, f"per-file-ignores.\"{pattern}\"", path))
                 for pattern, codes in value.items())


def parse_binding(text: str) -> tuple[str, str] | None:
    """`self.adapter=pkg.mod:Adapter` -> ("self.adapter", "pkg.mod:Adapter"), None when malformed."""
    expr, sep, target = text.partition("=")
    expr, target = expr.strip(), target.strip()
    if not sep or not expr or not target or not all(part.isidentifier() for part in target.replace(":", ".").split(".")):
        return None
    return expr, target


def _bindings(value, path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{path}: [tool.leapp-codemod] bind must be a table of \"self.attr\" = \"pkg.mod:Class\"")
    out = []
    for expr, target in value.items():
        parsed = parse_binding(f"{expr}={target}")
        if parsed is None:
            raise ConfigError(f"{path}: [tool.leapp-codemod.bind] \"{expr}\" = \"{target}\": expected a class "
                              "like \"pkg.mod:Class\"")
        out.append(parsed)
    return tuple(out)


def file_ignores(config: Config, path: str) -> tuple[str, ...]:
    """The selectors `per-file-ignores` applies to the file at `path` (as displayed, relative to the cwd)."""
    if not config.per_file_ignores:
        return ()
    absolute = Path(path).resolve()
    try:
        relative = absolute.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        relative = Path(os.path.normpath(path)).as_posix()
    out: list[str] = []
    for pattern, selectors in config.per_file_ignores:
        if any(fnmatch.fnmatch(candidate, pattern) for candidate in (relative, absolute.name)):
            out.extend(selectors)
    return tuple(out)
