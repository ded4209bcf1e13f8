"""On-disk cache of analysis results, keyed by content hashes, tool version, rules and LEAPP tables.

Entries are JSON (never pickle: a cache folder inside a repository is untrusted input). An entry
whose stored key does not match, or that does not decode into the expected shape, is ignored
and rebuilt.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from functools import lru_cache
from importlib import resources
from pathlib import Path

from leapp_codemod import __version__
from leapp_codemod.model import (Entrypoint, FileError, Finding, LibraryCall, NotFollowed, PatchTarget, Resolved,
                                  ScanResult, StateAttr)

CACHE_DIRNAME = ".leapp-codemod-cache"
ENV_DIR = "LEAPP_CODEMOD_CACHE_DIR"
SCHEMA = 2


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def environment_key(options_key: str, support_key: str) -> str:
    """Everything besides file contents that changes a result, the tool's own files included."""
    return digest(str(SCHEMA), __version__, tool_digest(), f"{sys.version_info[0]}.{sys.version_info[1]}",
                  options_key, support_key)


_TOOL_SUFFIXES = (".py", ".json", ".j2", ".toml")


def tool_files() -> list[Path]:
    """The installed tool's own source and data files (rules, tables, templates), sorted."""
    package = Path(__file__).resolve().parents[1]
    roots = {str(package), str(resources.files("leapp_codemod.templates"))}
    found = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            found.update(os.path.join(folder, f) for f in files if f.endswith(_TOOL_SUFFIXES))
    return [Path(p) for p in sorted(found)]


@lru_cache(maxsize=1)
def tool_digest() -> str:
    """A digest of the contents of `tool_files()`: any edit to a rule, table or template (or a new
    release installed over the old one) gives new cache keys. About 150 small files, read once per
    process (a few milliseconds)."""
    h = hashlib.sha256()
    for path in tool_files():
        try:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            h.update(path.name.encode() + b"\0?\0")
    return h.hexdigest()


class Cache:
    def __init__(self, root: Path | None):
        self.root = root

    @classmethod
    def at(cls, project_root: Path, enabled: bool = True) -> "Cache":
        if not enabled:
            return cls(None)
        override = os.environ.get(ENV_DIR)
        return cls(Path(override) if override else project_root / CACHE_DIRNAME)

    def _path(self, key: str) -> Path:
        return self.root / f"v{SCHEMA}" / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        if self.root is None:
            return None
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("value"), dict):
            return None
        return data["value"]

    def put(self, key: str, value: dict) -> None:
        if self.root is None:
            return
        try:
            self._ensure_root()
            target = self._path(key)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "value": value}, fh, separators=(",", ":"))
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only or full disk only costs speed

    def _ensure_root(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# created by leapp-codemod\n*\n", encoding="utf-8")


# ------------------------------------------------------------------ (de)serialisation
def findings_to_json(findings: list[Finding]) -> list[dict]:
    return [asdict(f) for f in findings]


def findings_from_json(items) -> list[Finding]:
    return [Finding(**item) for item in items]


def errors_from_json(items) -> list[FileError]:
    return [FileError(**item) for item in items]


def result_to_json(result: ScanResult) -> dict:
    return {
        "findings": findings_to_json(result.findings),
        "entrypoints": [asdict(e) for e in result.entrypoints],
        "entry": asdict(result.entry) if result.entry else None,
        "entry_note": result.entry_note,
        "reachable": list(result.reachable),
        "patch_targets": [asdict(t) for t in result.patch_targets],
        "library_calls": [asdict(c) for c in result.library_calls],
        "state": [asdict(s) for s in result.state],
        "errors": [asdict(e) for e in result.errors],
        "files_analyzed": result.files_analyzed,
        "leapp_support": result.leapp_support,
        "not_followed": [asdict(n) for n in result.not_followed],
        "resolved": [r.to_json() for r in result.resolved],
    }


def _entrypoint(item: dict) -> Entrypoint:
    return Entrypoint(**{**item, "reasons": tuple(item["reasons"])})


def result_from_json(data: dict) -> ScanResult | None:
    try:
        return ScanResult(
            findings=findings_from_json(data["findings"]),
            entrypoints=[_entrypoint(e) for e in data["entrypoints"]],
            entry=_entrypoint(data["entry"]) if data["entry"] else None,
            entry_note=str(data["entry_note"]),
            reachable=[str(r) for r in data["reachable"]],
            patch_targets=[PatchTarget(**t) for t in data["patch_targets"]],
            library_calls=[LibraryCall(**c) for c in data["library_calls"]],
            state=[StateAttr(**s) for s in data["state"]],
            errors=errors_from_json(data["errors"]),
            files_analyzed=int(data["files_analyzed"]),
            leapp_support=str(data["leapp_support"]),
            not_followed=tuple(NotFollowed(**n) for n in data["not_followed"]),
            resolved=tuple(Resolved(**{**r, "targets": tuple(r["targets"])}) for r in data["resolved"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
