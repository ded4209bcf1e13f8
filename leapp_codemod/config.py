"""`[tool.leapp-codemod]` in the nearest pyproject.toml: one field per row of `settings.SETTINGS`."""
from __future__ import annotations

import fnmatch
import math
import os
import sys
from dataclasses import field, make_dataclass
from pathlib import Path

from leapp_codemod.settings import DEFAULT_MAX_FILE_MB, KEYS, KINDS, SETTINGS, did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["DEFAULT_MAX_FILE_MB", "KEYS", "Config", "ConfigError", "file_ignores", "find_pyproject", "load_config"]
MAX_FILE_MB_LIMIT = 2**20     # 1 TiB: anything larger is a typo


class ConfigError(Exception):
    pass


def _root(self) -> Path:
    """The folder relative paths in the configuration are resolved against."""
    return Path(self.source).parent if self.source else Path.cwd()


def _max_file_bytes(self) -> int:
    return int(self.max_file_mb * 2**20)


Config = make_dataclass(
    "Config",
    [(s.attr, object, field(default=s.default)) for s in SETTINGS]
    + [("source", object, field(default=None))],   # the pyproject.toml it came from
    frozen=True,
    namespace={"root": property(_root), "max_file_bytes": property(_max_file_bytes),
               "__doc__": "The settings of `[tool.leapp-codemod]` (one field per row of settings.SETTINGS)."},
)
Config.__module__ = __name__


def find_pyproject(start: Path) -> Path | None:
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            return path
    return None


def _kind(value) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__)


def _strings(value, key: str, path: Path, kind: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{path}: [tool.leapp-codemod] {key} must be {KINDS[kind]}")


def _parse(kind: str, value, key: str, path: Path):
    """The value of one key, checked against its kind."""
    if kind in ("selectors", "patterns", "paths"):
        return _strings(value, key, path, kind)
    if kind in ("entry", "script") and isinstance(value, str) and value.strip():
        return value
    if kind == "flag" and isinstance(value, bool):
        return value
    if kind == "mib" and not isinstance(value, bool) and isinstance(value, (int, float)):
        if math.isfinite(value) and 0 < value <= MAX_FILE_MB_LIMIT:
            return value
        raise ConfigError(f"{path}: [tool.leapp-codemod] {key} must be a positive, finite number of MiB "
                          f"(at most {MAX_FILE_MB_LIMIT}), not {str(value)[:40]}")
    if kind == "bind-table":
        return _bindings(value, path)
    if kind == "file-table" and isinstance(value, dict):
        return tuple((pattern, _strings(codes, f"{key}.\"{pattern}\"", path, "selectors"))
                     for pattern, codes in value.items())
    raise ConfigError(f"{path}: [tool.leapp-codemod] {key} must be {KINDS[kind]}")


def _unknown_key(key: str) -> str:
    return f"unknown key '{key}' in [tool.leapp-codemod]{did_you_mean(key, KEYS)}"


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
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table, not {_kind(tool)}")
    section = tool.get("leapp-codemod", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.leapp-codemod] must be a table")
    unknown = sorted(set(section) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: {'; '.join(_unknown_key(k) for k in unknown)} "
                          f"(known: {', '.join(sorted(KEYS))})")
    values = {s.attr: _parse(s.kind, section[s.key], s.key, path) for s in SETTINGS if s.key in section}
    return Config(**values, source=str(path))


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


def force_excluded(root: Path, path: str, patterns: tuple[str, ...]) -> bool:
    """Whether a file named on the command line matches an exclusion (`force-exclude`): its name, its path
    relative to `root`, or any folder above it up to `root`."""
    absolute = Path(path).resolve()
    try:
        parts = absolute.relative_to(root.resolve()).parts
    except ValueError:
        parts = Path(os.path.normpath(path)).parts
    for depth in range(len(parts), 0, -1):
        relative = "/".join(parts[:depth])
        if any(fnmatch.fnmatch(parts[depth - 1], p) or fnmatch.fnmatch(relative, p) for p in patterns):
            return True
    return False
