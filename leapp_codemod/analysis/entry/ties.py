"""Candidates tied on score in different scripts: which one the user runs.

Two signals, in this order, each named in the winner's reasons:

1. **The derived script of a near-copy that brings its own model.** Deploy folders often keep a vendor's
   script next to the project's own version of it (`deploy.py` running a loaded TorchScript file, and
   `deploy_dwaq.py`, most lines shared, defining the network it runs). The file that adds code of its own to
   the lines both share, among it a network class (`nn.Module`) the other file lacks, is the one the project
   wrote for its policy. A derived file without a network of its own is a variant (a server wrapper, another
   task) and settles nothing.
2. **The script a README runs first**, between near-copies. Two near-identical scripts for two tasks
   (`python track.py`, then `python track_arbitrary.py`): the README's first command is the project's main
   use. Scripts that are no copies of each other are not compared this way (a README names many files).

Nothing else moves: candidates keep their scores, and a tie the signals do not settle keeps `tie_order`.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.model import Entrypoint
from leapp_codemod.source.parse import read_regular_text

# Two files are near-copies when this share of the smaller one's statement lines is in the other ...
NEAR_COPY_SHARE = 0.6
# ... and the derived one adds at least this many lines of its own, and twice as many as the base.
DERIVED_MIN_LINES = 10
README_BYTES = 256 * 1024
README_LEVELS = 3    # folders above the scan root searched for a README, up to the repository root
_REPOSITORY_MARKER = ".git"


def statement_lines(tree: ast.Module) -> set[str]:
    """The module's code as a set of normalised lines (comments and layout dropped)."""
    return {line.strip() for line in ast.unparse(tree).splitlines() if line.strip()}


def near_copies(lines_a: set[str], lines_b: set[str]) -> bool:
    """Do two files share most of their code (NEAR_COPY_SHARE of the smaller one's lines)?"""
    return bool(lines_a and lines_b) and len(lines_a & lines_b) >= NEAR_COPY_SHARE * min(len(lines_a), len(lines_b))


def derived_over(lines_a: set[str], lines_b: set[str]) -> tuple[int, int] | None:
    """(own, shared) when the file with `lines_a` is a near-copy of the one with `lines_b` that adds code."""
    if not near_copies(lines_a, lines_b):
        return None
    shared = len(lines_a & lines_b)
    own_a, own_b = len(lines_a - lines_b), len(lines_b - lines_a)
    if own_a >= DERIVED_MIN_LINES and own_a >= 2 * own_b:
        return own_a, shared
    return None


def own_networks(project, module_name: str) -> set[str]:
    """Names of the `nn.Module` classes a module defines."""
    module = project.modules.get(module_name)
    return {name for name, cls in module.classes.items() if project.is_nn_module(cls)} if module else set()


def readme_texts(project) -> list[tuple[str, str]]:
    """(name, text) of the README files in the scan root and the few folders above it, nearest first."""
    out: list[tuple[str, str]] = []
    for root in project_config_roots(project):
        folder = Path(os.path.abspath(root))
        for _ in range(README_LEVELS + 1):
            for path in sorted(folder.glob("[Rr][Ee][Aa][Dd][Mm][Ee]*")):
                text = read_regular_text(path, README_BYTES) if path.is_file() else None
                if text is not None:
                    out.append((path.name, text))
            if (folder / _REPOSITORY_MARKER).exists() or folder.parent == folder:
                break
            folder = folder.parent
    return out


def first_mention(readmes: list[tuple[str, str]], script: str) -> tuple[int, int] | None:
    """(README index, offset) of the first time a README names `script` as a file (`python rl_track.py`)."""
    pattern = re.compile(rf"(?<![\w.\-]){re.escape(script)}(?![\w\-])")
    for index, (_, text) in enumerate(readmes):
        match = pattern.search(text)
        if match:
            return index, match.start()
    return None


def break_ties(ranked: list[Entrypoint], project) -> list[Entrypoint]:
    """`ranked` sorted best first; within each run of equal scores spanning several files, the derived script of
    a near-copy goes before its base, then the script a README names first. Reasons say why."""
    out: list[Entrypoint] = []
    i = 0
    readmes = None
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j].score == ranked[i].score:
            j += 1
        group = ranked[i:j]
        if len({c.path for c in group}) > 1:
            if readmes is None:
                readmes = readme_texts(project)
            group = _order_group(group, project, readmes)
        out += group
        i = j
    return out


def _order_group(group: list[Entrypoint], project, readmes) -> list[Entrypoint]:
    lines: dict[str, set[str]] = {}
    for c in group:
        module = project.modules.get(c.module)
        if module is not None and c.path not in lines:
            lines[c.path] = statement_lines(module.tree)
    networks = {c.path: own_networks(project, c.module) for c in group}
    based: dict[str, str] = {}      # path -> the reason it is the derived script
    bases: set[str] = set()
    for a in lines:
        for b in lines:
            found = derived_over(lines[a], lines[b]) if a != b else None
            brought = sorted(networks[a] - networks[b])
            if found is not None and brought:
                based[a] = (f"ties at score {group[0].score} with {b}, a near-copy of this file: this one adds "
                            f"{found[0]} lines of its own to the {found[1]} they share, among them the network class "
                            f"`{brought[0]}` (the derived script)")
                bases.add(b)
    copied = {a for a in lines for b in lines if a != b and near_copies(lines[a], lines[b])}
    named = {path: first_mention(readmes, PurePosixPath(path).name) for path in copied}
    missing = (len(readmes) + 1, 0)

    def key(item):
        index, c = item
        return (c.path in bases and c.path not in based, c.path not in based, named.get(c.path) or missing, index)

    ordered = [c for _, c in sorted(enumerate(group), key=key)]
    if ordered[0] is group[0]:
        return group
    first = ordered[0]
    if first.path in based:
        note = based[first.path]
    elif named.get(first.path) is not None:
        note = (f"ties at score {first.score} with another script; {readmes[named[first.path][0]][0]} names "
                f"`{PurePosixPath(first.path).name}` first")
    else:
        note = f"ties at score {first.score} with {group[0].path}, the base of a near-copy that adds to it"
    return [replace(first, reasons=(*first.reasons, note)), *ordered[1:]]
