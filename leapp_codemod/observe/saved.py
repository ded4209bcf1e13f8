"""The saved observation: `.leapp-codemod/observed.json` inside the scanned project.

Written by `scan --driver` / `scan --inputs`; read by `scan`, `lint` and `generate` while it is
fresh. It holds only what the static analysis uses (functions with their executed lines, call
edges, receiver classes, reads constant or changed), with paths relative to the project root, and
the SHA-256 of every file it covers: when one of them changed (or is gone), the observation is
stale and is ignored with a one-line note. No values beyond short summaries of settings, no
absolute paths: safe to commit.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.io_util import write_atomic

SCHEMA = "leapp-codemod-observed"
SCHEMA_VERSION = 1
FOLDER = ".leapp-codemod"
NAME = "observed.json"


@dataclass(frozen=True)
class Loaded:
    """A saved observation, or why none is used (`note`, one line; "" when there is no file)."""

    data: dict | None
    note: str = ""
    path: Path | None = None


def location(root: Path) -> Path:
    return root / FOLDER / NAME


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _relative(path: str, root: Path) -> str | None:
    try:
        rel = Path(os.path.abspath(path)).relative_to(root.resolve())
    except ValueError:
        return None
    return rel.as_posix()


def portable(observation: dict, root: Path) -> dict:
    """The observation with file paths relative to `root` (files outside it are dropped: libraries),
    function keys rewritten the same way, and the digests of the covered files."""
    root = root.resolve()
    files: dict[str, str] = {}

    def rel(path: str) -> str | None:
        r = _relative(path, root)
        if r is not None and r not in files:
            digest = _sha(root / r)
            if digest is None:
                return None
            files[r] = digest
        return r

    def key(k: str) -> str | None:
        path, line, qual = k.rsplit(":", 2)
        r = rel(path)
        return f"{r}:{line}:{qual}" if r is not None else None

    out = {k: v for k, v in observation.items() if k not in ("functions", "edges", "reads", "entry_location")}
    out["functions"] = [dict(f, file=rel(f["file"]), key=key(f["key"])) for f in observation.get("functions", [])
                        if not f.get("library") and key(f["key"]) is not None]
    edges = []
    for e in observation.get("edges", []):
        caller, callee = key(e["caller"]), key(e["callee"])
        if caller is None:
            continue
        edges.append(dict(e, caller=caller, callee=callee or f"lib:{e['callee'].rsplit(':', 1)[-1]}",
                          receiver_file=rel(e["receiver_file"]) if e.get("receiver_file") else ""))
    out["edges"] = edges
    out["reads"] = [dict(r, file=rel(r["file"]) or "") for r in observation.get("reads", [])]
    entry = observation.get("entry_location")
    if entry:
        out["entry_location"] = [rel(entry[0]), entry[1], entry[2]]
    out["files"] = files
    return out


def save(root: Path, observation: dict, meta: dict) -> Path:
    """Write the observation of `root`'s code as `.leapp-codemod/observed.json` (atomically)."""
    data = {"schema": SCHEMA, "version": SCHEMA_VERSION, **meta, **portable(observation, root)}
    path = location(root)
    path.parent.mkdir(exist_ok=True)
    ignore = path.parent / ".gitignore"
    if not ignore.exists():
        write_atomic(ignore, "# observed.json is safe to commit; anything else here is not\n*\n!observed.json\n"
                             "!.gitignore\n")
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def load(root: Path) -> Loaded:
    """The saved observation of `root` if it is there and fresh; else None with a one-line note."""
    path = location(root)
    if not path.is_file():
        return Loaded(None)
    shown = os.path.relpath(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return Loaded(None, f"{shown}: not readable as JSON; ignored (run scan --driver again)", path)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return Loaded(None, f"{shown}: not a leapp-codemod observation; ignored", path)
    if data.get("version") != SCHEMA_VERSION:
        return Loaded(None, f"{shown}: observation format version {data.get('version')} is not {SCHEMA_VERSION}; "
                            "ignored (run scan --driver again)", path)
    files = data.get("files")
    if not isinstance(files, dict):
        return Loaded(None, f"{shown}: no file digests; ignored", path)
    for rel, digest in sorted(files.items()):
        if _sha(root / rel) != digest:
            return Loaded(None, f"{shown}: stale ({rel} changed since it was observed); ignored "
                                "(run scan --driver again)", path)
    return Loaded(data, "", path)


def absolute(data: dict, root: Path) -> dict:
    """A loaded observation with its paths made absolute again (the form `merge` reads)."""
    root = root.resolve()

    def ab(rel: str) -> str:
        return str(root / rel) if rel else ""

    def key(k: str) -> str:
        if k.startswith("lib:"):
            return k
        path, line, qual = k.rsplit(":", 2)
        return f"{ab(path)}:{line}:{qual}"

    out = dict(data)
    out["functions"] = [dict(f, file=ab(f["file"]), key=key(f["key"])) for f in data.get("functions", [])]
    out["edges"] = [dict(e, caller=key(e["caller"]), callee=key(e["callee"]),
                         receiver_file=ab(e.get("receiver_file") or "")) for e in data.get("edges", [])]
    out["reads"] = [dict(r, file=ab(r.get("file") or "")) for r in data.get("reads", [])]
    if data.get("entry_location"):
        loc = data["entry_location"]
        out["entry_location"] = [ab(loc[0] or ""), loc[1], loc[2]]
    return out


def as_input(data: dict, root: Path):
    """The observation input the scanner takes: absolute paths, and a digest for the cache key."""
    from leapp_codemod.observe.merge import ObservedInput

    text = json.dumps(data, sort_keys=True)
    return ObservedInput(absolute(data, root), str(data.get("source", "")), str(data.get("entry", "")),
                         hashlib.sha256(text.encode()).hexdigest()[:16])


def fresh_input(root: Path, entry: str | None):
    """(observation input or None, a one-line note or "") from the saved observation of `root`: used
    while fresh and made for `entry` (any entry when None)."""
    loaded = load(root)
    if loaded.data is None:
        return None, loaded.note
    if entry and loaded.data.get("entry") != entry:
        return None, f"{os.path.relpath(loaded.path)}: observed {loaded.data.get('entry')}, not {entry}; ignored"
    return as_input(loaded.data, root), ""


def root_for(app: Path, config_source: str | None) -> Path:
    """Where a project's observation lives: the pyproject.toml's folder, else the scanned folder."""
    if config_source:
        return Path(config_source).parent
    return app if app.is_dir() else app.parent
