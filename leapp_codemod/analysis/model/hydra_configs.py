"""Hydra / OmegaConf `_target_` entries in the project's YAML configs, read as text (no YAML library,
no import of the configs): which class or function `hydra.utils.instantiate(cfg.policy)` builds.

A config line `_target_: pkg.policy.DiffusionPolicy` under the key path `policy` (or `model.policy`)
names what `instantiate(cfg.policy)` returns; `_partial_: true` next to it makes the result a
`functools.partial` of the target. The keys of a mapping beside its `_target_` are the keyword
arguments Hydra passes (recursively instantiated when they hold a `_target_` themselves).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from leapp_codemod.source.config_files import config_texts

_LINE = re.compile(r"^(?P<indent>\s*)(?P<dash>-\s+)?(?P<key>[A-Za-z_][\w.\-]*)\s*:\s*(?P<value>[^#]*?)\s*(#.*)?$")


@dataclass(frozen=True)
class HydraTarget:
    """One `_target_` entry: the config file, the key path of its mapping, the dotted target."""

    path: str
    line: int
    keys: tuple[str, ...]
    target: str
    partial: bool = False
    arguments: tuple[tuple[str, str], ...] = ()   # key -> nested `_target_` of a keyword argument

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def config_roots(module_paths) -> list[Path]:
    """The folders to read configs from: the common folder of the scanned (non-library) modules, or the
    folder that holds their top package."""
    folders = {Path(os.path.abspath(p)).parent for p in module_paths}
    if not folders:
        return []
    common = Path(os.path.commonpath([str(f) for f in folders]))
    while (common / "__init__.py").is_file() and common.parent != common:
        common = common.parent   # the folder holding the top package (configs sit next to it: `conf/`)
    return [common]


def project_config_roots(project) -> list[Path]:
    """The config folders of a loaded project: those of its own (non-library) modules."""
    return config_roots([m.path for m in project.modules.values() if not project.is_library(m.name)])


def read_targets(roots: list[Path]) -> list[HydraTarget]:
    """Every `_target_` entry in the YAML configs below `roots`. An entry of a config group file that a
    `defaults:` list selects (`- model: mlp` picks `<dir>/model/mlp.yaml`) is also found under the keys
    it is composed at (`model`, or `agent.model` when the selecting file is itself mounted at `agent`)."""
    files = {path: text for path, text in config_texts(roots, (".yaml", ".yml"))}
    mounts = defaults_mounts(files, roots)
    out: list[HydraTarget] = []
    for path, text in files.items():
        if "_target_" in text:
            found = parse_targets(text, os.path.relpath(path))
            out += found
            for prefix in sorted(mounts.get(path, ())):
                out += [replace(t, keys=prefix + t.keys) for t in found]
    return out


_DEFAULT_ITEM = re.compile(r"^\s*-\s*(?:override\s+)?(?P<group>/?[A-Za-z_][\w/\-]*)(?:@(?P<package>[\w.\-]+))?"
                           r"\s*:\s*(?P<option>[A-Za-z_][\w.\-/]*)\s*(#.*)?$")
MAX_MOUNT_DEPTH = 6


def defaults_list(text: str) -> list[tuple[str, str | None, str]]:
    """(group, package, option) of the `defaults:` list at the top of a YAML text (`- model: mlp`,
    `- /encoder@obs_encoder: cnn`, `- override head: gmm`); `_self_` and plain names are not groups."""
    out = []
    inside = False
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if not raw[0].isspace() and not raw.startswith("-"):
            inside = raw.split("#")[0].strip() == "defaults:"
            continue
        match = _DEFAULT_ITEM.match(raw) if inside else None
        if match and match["option"].lower() not in ("null", "none"):
            out.append((match["group"], match["package"], match["option"]))
    return out


def defaults_mounts(files: dict[Path, str], roots: list[Path]) -> dict[Path, set[tuple[str, ...]]]:
    """Config file -> the key paths a `defaults:` list composes it at. A relative group is looked up next to
    the selecting file (`agents/x.yaml` with `- model: mlp` -> `agents/model/mlp.yaml`, mounted under the
    selecting file's own keys plus `model`), then in the folders above it; `/group` and `@package` as
    Hydra reads them (`_global_` is the top)."""
    selected: dict[Path, list[tuple[Path, tuple[str, ...], bool]]] = {}   # file -> (option file, package, absolute)
    for path, text in files.items():
        if "defaults" not in text:
            continue
        for group, package, option in defaults_list(text):
            absolute = group.startswith("/")
            target = _option_file(files, path.parent, group.strip("/"), option, roots)
            if target is None or target == path:
                continue
            keys = tuple(k for k in (package or group.strip("/").replace("/", ".")).split(".")
                         if k and k not in ("_global_", "_group_", "_here_"))
            selected.setdefault(path, []).append((target, keys, absolute or bool(package and "_global_" in package)))
    mounts: dict[Path, set[tuple[str, ...]]] = {}
    chosen = {t for found in selected.values() for t, _, _ in found}
    frontier = {path: {()} for path in selected if path not in chosen}   # primary configs: composed at the top
    for _ in range(MAX_MOUNT_DEPTH):
        following: dict[Path, set[tuple[str, ...]]] = {}
        for path, prefixes in frontier.items():
            for target, keys, absolute in selected.get(path, ()):
                for prefix in ({()} if absolute else prefixes):
                    new = prefix + keys
                    if new and new not in mounts.get(target, set()):
                        mounts.setdefault(target, set()).add(new)
                        following.setdefault(target, set()).add(new)
        if not following:
            break
        frontier = following
    return mounts


def _option_file(files: dict[Path, str], folder: Path, group: str, option: str, roots: list[Path]) -> Path | None:
    tops = {Path(os.path.abspath(r)) for r in roots}
    here = Path(os.path.abspath(folder))
    while True:
        for suffix in (".yaml", ".yml"):
            candidate = folder / group / f"{option}{suffix}"
            if candidate in files:
                return candidate
        if here in tops or folder.parent == folder:
            return None
        folder, here = folder.parent, here.parent


def parse_targets(text: str, path: str) -> list[HydraTarget]:
    """`_target_` entries of one YAML text, with the key path of the mapping each belongs to (list items
    are entries of their own under the list's key)."""
    stack: list[tuple[int, str]] = []          # (indent, key) of the open mappings; "-N" for list item N
    found: dict[tuple[str, ...], dict] = {}    # identity (keys with list items) -> {"target", "line", "partial"}
    order: list[tuple[str, ...]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = _LINE.match(raw)
        if match is None:
            continue
        dash_at = len(match["indent"])
        indent = dash_at + (len(match["dash"]) if match["dash"] else 0)
        key, value = match["key"], match["value"].strip().strip("'\"")
        _close(stack, dash_at)
        if match["dash"]:
            stack.append((dash_at + 1, f"-{number}"))
        identity = tuple(k for _, k in stack)
        if key == "_target_" and value:
            if identity not in found:
                order.append(identity)
            found[identity] = {"target": value, "line": number,
                               "partial": found.get(identity, {}).get("partial", False)}
        elif key == "_partial_":
            if identity not in found:
                order.append(identity)
                found[identity] = {"target": "", "line": number, "partial": False}
            found[identity]["partial"] = value.lower() == "true"
        if not value:
            stack.append((indent, key))
    out = []
    for identity in order:
        entry = found[identity]
        if not entry["target"]:
            continue
        arguments = tuple((child[-1], found[child]["target"]) for child in order
                          if len(child) == len(identity) + 1 and child[:len(identity)] == identity
                          and found[child]["target"] and not child[-1].startswith("-"))
        keys = tuple(k for k in identity if not k.startswith("-"))
        out.append(HydraTarget(path, entry["line"], keys, entry["target"], entry["partial"], arguments))
    return out


def _close(stack: list[tuple[int, str]], indent: int) -> None:
    """Pop the mappings and list items a line at `indent` is not inside."""
    while stack and (stack[-1][0] > indent if stack[-1][1].startswith("-") else stack[-1][0] >= indent):
        stack.pop()


def matching(targets: list[HydraTarget], chain: tuple[str, ...]) -> list[HydraTarget]:
    """Entries whose key path ends with the longest suffix of `chain` that any entry ends with
    (`cfg.policy` -> mappings under `policy`; `self.cfg.model.encoder` -> `model.encoder`, else `encoder`).
    An empty chain (`instantiate(cfg)`, `get_class(cfg._target_)`) matches the top-level entries."""
    if not chain:
        return [t for t in targets if not t.keys]
    for start in range(len(chain)):
        suffix = chain[start:]
        hits = [t for t in targets if t.keys[-len(suffix):] == suffix]
        if hits:
            return hits
    return []
