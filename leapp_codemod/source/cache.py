"""On-disk cache of analysis results, keyed by content hashes, tool version, rules and LEAPP tables.

A cache folder inside a repository is untrusted input (it can be committed, forged, or hold
symbolic links). So:

* Entries are JSON, never pickle, and each carries an HMAC-SHA256 of its key and value made with a
  per-user secret kept outside the tree (`$XDG_CACHE_HOME/leapp-codemod/cache-key`, 0600, created on
  first use). An entry without a valid MAC (forged, copied from another user or machine, edited) is
  ignored and rebuilt. When no key can be kept (read-only home) the cache is off.
  The cache stays next to the project (a CI cache or `LEAPP_CODEMOD_CACHE_DIR` keeps working); the
  MAC, not the folder's location, is what makes an entry trusted.
* A file path in an entry (a finding, an error, an entrypoint) must lie inside the scanned tree or
  the interpreter's library folders; an entry naming another file is ignored.
* Symbolic links in the cache folder are never followed: the folder, its subfolders and the entry
  files are checked with lstat / O_NOFOLLOW; entries are written through `io_util` (no writes
  through a link, short O_EXCL temporary names).

An entry whose stored key does not match, or that does not decode into the expected shape, is
ignored and rebuilt.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import sys
import sysconfig
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


KEY_NAME = "cache-key"
_ENTRY_BYTES = 256 * 2**20


def key_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "leapp-codemod" / KEY_NAME


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
            return None
        data = handle.read(200).strip()
    return data if len(data) == 64 else None


@lru_cache(maxsize=4)
def user_key(path: Path | None = None) -> bytes | None:
    """This user's secret for the cache's MACs (created on first use); None when none can be kept."""
    path = path or key_file()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32).hex().encode())
    except OSError:
        pass
    return _read_key(path)


def _mac(secret: bytes, key: str, value: dict) -> str:
    body = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hmac.new(secret, f"{key}\0{body}".encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = {os.path.realpath(paths[name]) for name in ("stdlib", "platstdlib", "purelib", "platlib") if name in paths}
    found.update(os.path.realpath(p) for p in sys.path if p and "site-packages" in p)
    return tuple(sorted(found))


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _named_paths(value: dict) -> list[str]:
    """Every file path an entry names (findings, errors, entrypoints, the entry)."""
    out: list[str] = []
    for group in ("findings", "errors", "entrypoints"):
        items = value.get(group)
        if isinstance(items, list):
            out += [item.get("path") for item in items if isinstance(item, dict)]
    if isinstance(value.get("entry"), dict):
        out.append(value["entry"].get("path"))
    return out


class Cache:
    def __init__(self, root: Path | None, tree: tuple[str, ...] = (), secret: bytes | None = None):
        self.root = root
        self.tree = tuple(os.path.realpath(p) for p in tree)   # the scanned paths: entries name files inside
        self._secret = secret

    @classmethod
    def at(cls, project_root: Path, enabled: bool = True, tree: tuple[str, ...] = ()) -> "Cache":
        if not enabled:
            return cls(None)
        override = os.environ.get(ENV_DIR)
        return cls(Path(override) if override else project_root / CACHE_DIRNAME, tree)

    @property
    def secret(self) -> bytes | None:
        if self._secret is None:
            self._secret = user_key()
        return self._secret

    def _path(self, key: str) -> Path:
        return self.root / f"v{SCHEMA}" / key[:2] / f"{key}.json"

    def _real_folders(self, folder: Path) -> bool:
        """Every folder from the cache root down to `folder` exists and is not a symbolic link."""
        parts = folder.relative_to(self.root).parts
        current = self.root
        for part in ("", *parts):
            current = current / part if part else current
            try:
                mode = os.lstat(current).st_mode
            except OSError:
                return False
            if not stat.S_ISDIR(mode):
                return False
        return True

    def get(self, key: str) -> dict | None:
        if self.root is None or self.secret is None:
            return None
        path = self._path(key)
        if not self._real_folders(path.parent):
            return None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0))
            with os.fdopen(fd, "rb") as handle:
                st = os.fstat(handle.fileno())
                if not stat.S_ISREG(st.st_mode) or st.st_size > _ENTRY_BYTES:
                    return None
                data = json.loads(handle.read())
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("value"), dict):
            return None
        value = data["value"]
        mac = data.get("mac")
        if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(self.secret, key, value)):
            return None
        if not self._paths_allowed(value):
            return None
        return value

    def _paths_allowed(self, value: dict) -> bool:
        if not self.tree:
            return True
        roots = self.tree + _library_roots()
        return all(isinstance(p, str) and _inside(p, roots) for p in _named_paths(value))

    def put(self, key: str, value: dict) -> None:
        if self.root is None or self.secret is None:
            return
        from leapp_codemod.io_util import write_atomic
        try:
            self._ensure_root()
            target = self._path(key)
            for folder in (target.parent.parent, target.parent):
                folder.mkdir(exist_ok=True)
            if not self._real_folders(target.parent):
                return
            entry = {"key": key, "mac": _mac(self.secret, key, value), "value": value}
            write_atomic(target, json.dumps(entry, separators=(",", ":")), folder=self.root)
        except OSError:
            pass  # a read-only or full disk, or a cache folder holding links, only costs speed

    def _ensure_root(self) -> None:
        try:
            mode = os.lstat(self.root).st_mode
        except FileNotFoundError:
            self.root.mkdir(parents=True, exist_ok=True)
            mode = os.lstat(self.root).st_mode
        if not stat.S_ISDIR(mode):
            raise NotADirectoryError(f"{self.root}: not a real folder")
        ignore = self.root / ".gitignore"
        if not os.path.lexists(ignore):
            from leapp_codemod.io_util import write_atomic
            write_atomic(ignore, "# created by leapp-codemod\n*\n", folder=self.root)


# ------------------------------------------------------------------ (de)serialisation
def findings_to_json(findings: list[Finding]) -> list[dict]:
    return [asdict(f) for f in findings]


def findings_from_json(items) -> list[Finding]:
    return [Finding(**{**item, "related": tuple(tuple(r) for r in item.get("related", ()))}) for item in items]


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
        "observed_note": result.observed_note,
        "not_followed": [asdict(n) for n in result.not_followed],
        "bound_calls": [r.to_json() for r in result.bound_calls],
        "open_keys": list(result.open_keys),
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
            observed_note=str(data.get("observed_note", "")),
            not_followed=tuple(NotFollowed(**n) for n in data["not_followed"]),
            bound_calls=tuple(Resolved(**{**r, "targets": tuple(r["targets"])}) for r in data["bound_calls"]),
            open_keys=tuple(str(line) for line in data.get("open_keys", ())),
        )
    except (KeyError, TypeError, ValueError):
        return None
