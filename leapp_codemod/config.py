"""`[tool.leapp-codemod]` in the nearest pyproject.toml."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KEYS = frozenset({"entry", "select", "ignore", "exclude", "max-file-mb"})
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
    source: str | None = None   # the pyproject.toml it came from

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 2**20)


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
                  ignore=_strings(section.get("ignore", []), "ignore", path),
                  exclude=_strings(section.get("exclude", []), "exclude", path),
                  source=str(path))
