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
from dataclasses import dataclass
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
    """Every `_target_` entry in the YAML configs below `roots`."""
    out: list[HydraTarget] = []
    for path, text in config_texts(roots, (".yaml", ".yml")):
        if "_target_" in text:
            out += parse_targets(text, os.path.relpath(path))
    return out


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
