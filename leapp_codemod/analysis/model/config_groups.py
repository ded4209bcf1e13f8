"""Names the project's YAML configs give a key under a group: `policy_head/gmm_head.yaml` sets
`network: GMMHead`, so `eval(cfg.policy_head.network)` names `GMMHead`.

Read as text like the other config readers (never imported or run). A value counts for (group, key) when
the key sits at the top of a file inside a folder named after the group (a Hydra config group), when it is
nested directly under a `group:` mapping, or when a defaults list mounts another group's folder there
(`- position_encoding@temporal_encoding: sinusoidal.yaml`).
"""
from __future__ import annotations

import re
from pathlib import Path

from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.source.config_files import config_texts

_KEY_LINE = re.compile(r"^(\s*)([A-Za-z_][\w.-]*)\s*:\s*(.*?)\s*(#.*)?$")
_MOUNT = re.compile(r"^\s*-\s*([A-Za-z_][\w/-]*)@([A-Za-z_][\w.-]*)\s*:")


def group_values(project) -> dict[tuple[str, str], frozenset[str]]:
    """(group, key) -> the plain string values the configs give `key` in that group (memoised per project)."""
    key = ("config_groups",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = read_groups(project_config_roots(project))
    return found


def read_groups(roots: list[Path]) -> dict[tuple[str, str], frozenset[str]]:
    values: dict[tuple[str, str], set[str]] = {}
    mounts: dict[str, set[str]] = {}          # group folder -> keys it is mounted under
    for path, text in config_texts(roots, (".yaml", ".yml")):
        folder = path.parent.name
        stack: list[tuple[int, str]] = []
        for line in text.splitlines():
            mount = _MOUNT.match(line)
            if mount:
                mounts.setdefault(mount.group(1).rpartition("/")[2], set()).add(mount.group(2).rpartition(".")[2])
                continue
            match = _KEY_LINE.match(line)
            if not match:
                continue
            indent, name, value = len(match.group(1)), match.group(2), match.group(3)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if value:
                scalar = _plain(value)
                if scalar is not None:
                    group = stack[-1][1] if stack else folder
                    values.setdefault((group, name), set()).add(scalar)
            else:
                stack.append((indent, name))
    for (group, name), found in list(values.items()):
        for mounted in mounts.get(group, ()):
            values.setdefault((mounted, name), set()).update(found)
    return {k: frozenset(v) for k, v in values.items()}


def _plain(text: str) -> str | None:
    """A bare or quoted identifier-like string (a class or function name), else None."""
    if len(text) > 1 and text[0] in "'\"" and text[-1] == text[0]:
        text = text[1:-1]
    return text if re.fullmatch(r"[A-Za-z_][\w.]*", text) and text.lower() not in ("true", "false", "null", "none") \
        else None
