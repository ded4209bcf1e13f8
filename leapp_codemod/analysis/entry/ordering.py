"""Orderings between candidates that a score alone cannot say.

A project network's method (`model.act_inference(obs)`) that a driver loop calls amid statements building
its input and using its output is the model of that inline range, not the policy step: exporting it leaves
the observation, the history and the action scaling out. It ranks below the range, whatever its own signs.
A candidate in a folder named like a copy (`gym_custom (copy)/`) ranks below its original.
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import PurePosixPath

from leapp_codemod.model import Entrypoint


def below_their_ranges(ranked: list[Entrypoint], networks: dict[str, str]) -> list[Entrypoint]:
    """`networks`: function id -> the id of the inline range that calls it. Each such function scored at or
    above its range is put one point below it, with the reason."""
    scores = {c.id: c.score for c in ranked if c.kind == "inline"}
    out = []
    for c in ranked:
        range_id = networks.get(c.id) if c.kind == "function" else None
        if range_id in scores and c.score >= scores[range_id]:
            c = replace(c, score=scores[range_id] - 1, reasons=(
                *c.reasons, f"ranked below the range {range_id} that calls it with the pipeline around it"))
        out.append(c)
    return out


# A folder named the way file managers and people name a duplicate: `gym_custom (copy)`, `policy - Copy`,
# `Copy of deploy`, `deploy_copy2`, `scripts.bak`, `old`, `backup`. Its code is a snapshot, not what runs.
_COPY_FOLDER = re.compile(r"(^|[\s_\-.(])(copy|backup|bak|old)(\s*\d*)([\s_\-.)]|$)|^copy of ", re.IGNORECASE)
COPY_PENALTY = 4


def copied_folder(path: str) -> str | None:
    """The first folder of `path` named like a copy of another folder, or None."""
    return next((part for part in PurePosixPath(path).parts[:-1] if _COPY_FOLDER.search(part)), None)


def below_copies(ranked: list[Entrypoint]) -> list[Entrypoint]:
    """Candidates in a copied folder lose COPY_PENALTY points, with the reason."""
    out = []
    for c in ranked:
        folder = copied_folder(c.path)
        if folder is not None:
            c = replace(c, score=c.score - COPY_PENALTY, reasons=(
                *c.reasons, f"in `{folder}/`, a folder named like a copy of another (-{COPY_PENALTY})"))
        out.append(c)
    return out


PART_PENALTY = 2


def built_on_self(project) -> dict[str, str]:
    """nn.Module classes another project class builds and keeps (`self.actor = Actor(...)`, also inside
    `nn.Sequential(...)`): class id -> `Owner.method` that builds it."""
    out: dict[str, str] = {}
    for module in project.modules.values():
        for owner in module.classes.values():
            for attr, values in owner.attr_values.items():
                for method, value in values:
                    for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
                        if not isinstance(call.func, (ast.Name, ast.Attribute)):
                            continue
                        name = project.qualify(call.func, module)
                        cls = project.class_of(name) if name else None
                        if cls is not None and cls is not owner and project.is_nn_module(cls):
                            out.setdefault(cls.id, f"{owner.name}.{method}")
    return out


def below_parts(ranked: list[Entrypoint], project) -> list[Entrypoint]:
    """A network's `forward`/`__call__` whose class another project class builds and keeps on `self` is a part
    of that class's model (an encoder, an actor head): it loses PART_PENALTY points, with the owner."""
    parts = built_on_self(project)
    out = []
    for c in ranked:
        owner_name, _, method = c.qualname.rpartition(".")
        module = project.modules.get(c.module)
        cls = module.classes.get(owner_name) if module is not None and c.kind == "function" else None
        if cls is not None and method in ("forward", "__call__") and cls.id in parts:
            c = replace(c, score=c.score - PART_PENALTY, reasons=(
                *c.reasons, f"a part of another model: {parts[cls.id]} builds and keeps it (-{PART_PENALTY})"))
        out.append(c)
    return out
