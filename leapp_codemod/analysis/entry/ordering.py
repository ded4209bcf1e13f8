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

from leapp_codemod.analysis.entry.bounds import sends
from leapp_codemod.analysis.entry.submodules import PART_PENALTY, factory_built
from leapp_codemod.model import Entrypoint


def below_their_ranges(ranked: list[Entrypoint], networks: dict[str, str],
                       composed: frozenset[str] = frozenset()) -> list[Entrypoint]:
    """`networks`: function id -> the id of the inline range that calls it. Each such function scored at or
    above its range is put one point below it, with the reason. A range in `composed` (a project helper prepares
    the function's input or turns its output into the action there: cores.processes_around) runs the function
    with more of the pipeline around it and carries its evidence: scored below it, it is first raised one point
    above it."""
    raised: dict[str, tuple[int, str]] = {}
    for c in ranked:
        range_id = networks.get(c.id) if c.kind == "function" else None
        if range_id in composed and c.score + 1 > raised.get(range_id, (c.score, ""))[0]:
            raised[range_id] = (c.score + 1, c.qualname)
    out = []
    for c in ranked:
        if c.kind == "inline" and c.id in raised and raised[c.id][0] > c.score:
            score, qualname = raised[c.id]
            c = replace(c, score=score, reasons=(*c.reasons, f"runs {qualname} with the project's own pre- or "
                                                             "post-processing around it: ranked one point above it"))
        out.append(c)
    scores = {c.id: c.score for c in out if c.kind == "inline"}
    return [replace(c, score=scores[networks[c.id]] - 1, reasons=(
        *c.reasons, f"ranked below the range {networks[c.id]} that calls it with the pipeline around it"))
            if c.kind == "function" and networks.get(c.id) in scores and c.score >= scores[networks[c.id]] else c
            for c in out]


# A folder named the way file managers and people name a duplicate: `gym_custom (copy)`, `policy - Copy`,
# `Copy of deploy`, `deploy_copy2`, `scripts.bak`, `old`, `backup`. Its code is a snapshot, not what runs.
_COPY_FOLDER = re.compile(r"(^|[\s_\-.(])(copy|backup|bak|old)(\s*\d*)([\s_\-.)]|$)|^copy of ", re.IGNORECASE)
COPY_PENALTY = 4


def copied_folder(path: str) -> str | None:
    """The first folder of `path` named like a copy of another folder, or None."""
    return next((part for part in PurePosixPath(path).parts[:-1] if _COPY_FOLDER.search(part)), None)


# A folder named for code taken out of use: `deprecated/`, `legacy/`, `archive/`. Its code is kept, not run.
RETIRED_FOLDERS = frozenset({"deprecated", "legacy", "archive", "archived", "obsolete", "unused", "attic", "outdated"})


def retired_folder(path: str) -> str | None:
    """The first folder of `path` named for code taken out of use (RETIRED_FOLDERS), or None."""
    return next((part for part in PurePosixPath(path).parts[:-1] if part.lower() in RETIRED_FOLDERS), None)


def below_copies(ranked: list[Entrypoint]) -> list[Entrypoint]:
    """Candidates in a copied folder, or in one named for code taken out of use, lose COPY_PENALTY points, with
    the reason."""
    out = []
    for c in ranked:
        folder, retired = copied_folder(c.path), retired_folder(c.path)
        if folder is not None:
            c = replace(c, score=c.score - COPY_PENALTY, reasons=(
                *c.reasons, f"in `{folder}/`, a folder named like a copy of another (-{COPY_PENALTY})"))
        elif retired is not None:
            c = replace(c, score=c.score - COPY_PENALTY, reasons=(
                *c.reasons, f"in `{retired}/`, a folder named for code taken out of use (-{COPY_PENALTY})"))
        out.append(c)
    return out




def built_on_self(project) -> dict[str, str]:
    """nn.Module classes another project class builds and keeps as a part of its model (`self.actor =
    Actor(...)`, also inside `nn.Sequential(...)`): class id -> `Owner.method` that builds it. The owner is a
    network itself, or keeps two or more project networks it composes (an agent's encoder and head); a class
    that is no network and keeps one model (a wrapper's `self.policy = Policy(cfg)`) runs that model whole."""
    out: dict[str, str] = {}
    for module in list(project.modules.values()):
        for owner in module.classes.values():
            kept: dict[str, str] = {}
            for attr, values in owner.attr_values.items():
                for method, value in values:
                    for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
                        if not isinstance(call.func, (ast.Name, ast.Attribute, ast.Subscript)):
                            continue
                        name = project.qualify(call.func, module) if not isinstance(call.func, ast.Subscript) \
                            else None
                        built = [project.class_of(name)] if name and project.class_of(name) else \
                            factory_built(call, module, project)    # `NETS[kind](...)`, `make_net(cfg)`
                        for cls in built:
                            if cls is not owner and project.is_nn_module(cls):
                                kept.setdefault(cls.id, f"{owner.name}.{method}")
            if project.is_nn_module(owner) or len(kept) >= 2:
                for cls_id, where in kept.items():
                    out.setdefault(cls_id, where)
            if project.is_nn_module(owner):
                for cls_id, where in _built_inside(owner, module, project).items():
                    out.setdefault(cls_id, where)
    return out


def _built_inside(owner, module, project) -> dict[str, str]:
    """nn.Module classes a network's own methods build wherever the result goes (a local list handed to
    `nn.ModuleList`, `nn.Sequential(*[Block(d) for _ in range(n)])`, a stage appended in a loop): class id ->
    `Owner.method`. A network builds only its parts."""
    out: dict[str, str] = {}
    for method in (s for s in owner.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
            if not isinstance(call.func, (ast.Name, ast.Attribute)):
                continue
            name = project.qualify(call.func, module)
            cls = project.class_of(name) if name else None
            if cls is not None and cls is not owner and project.is_nn_module(cls):
                out.setdefault(cls.id, f"{owner.name}.{method.name}")
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


def covers_body(fn_node: ast.FunctionDef | ast.AsyncFunctionDef, start: int, end: int) -> bool:
    """Do statements `start`-`end` make up the function's whole body? A docstring before them, and after them
    calls whose result nothing keeps (`self.publish(cmd)`), statements that send the output (writes into a
    command message's fields, `bounds.sends`) and the empty message made for them do not count."""
    body = list(fn_node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if not body or body[0].lineno < start:
        return False
    after = [stmt for stmt in body if stmt.lineno > end]
    return bool(body[0].lineno <= end) and all(
        (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)) or sends(stmt) or _new_message(stmt)
        for stmt in after)


def _new_message(stmt: ast.stmt) -> bool:
    """`msg_out = AckermannDriveStamped()`: an empty message (or buffer) made to carry the result into the send,
    its fields written after it."""
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and all(isinstance(a, ast.Constant) for a in (*stmt.value.args, *(k.value for k in stmt.value.keywords))))


def built_before(fn_node: ast.FunctionDef | ast.AsyncFunctionDef, start: int, end: int) -> tuple[str, int] | None:
    """(name, line) of a value the range `start`-`end` reads that the function computes before the range, in a
    statement of its own body (`obs = self._get_observation()` and then the range under `if dist > 0.05:`): the
    range leaves out where its input is built."""
    inside = [n for stmt in fn_node.body for n in ast.walk(stmt) if start <= getattr(n, "lineno", 0) <= end]
    read = {n.id for n in inside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for stmt in fn_node.body:
        if stmt.lineno >= start:
            break
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Call, ast.BinOp, ast.Subscript)):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and target.id in read:
                    return target.id, stmt.lineno
    return None


def callbacks_first(ranked: list[Entrypoint], whole: dict[str, tuple[str, str, int, str]]) -> list[Entrypoint]:
    """`whole`: inline range id -> (module, qualname, line, why) of the registered callback whose whole body
    the range is, or whose range reads what the callback builds before it. The callback itself is offered one
    point above its range (the function is what a user names with `--entry`), its own candidate raised if it
    has one; the range stays, below it."""
    scores = {c.id: c for c in ranked if c.kind == "inline" and c.id in whole}
    out = list(ranked)
    for range_id, (module, qualname, line, note) in whole.items():
        if range_id not in scores:
            continue
        inline = scores[range_id]
        own = next((i for i, c in enumerate(out)
                    if c.kind == "function" and (c.module, c.qualname) == (module, qualname)), None)
        if own is None:
            out.append(Entrypoint(module, qualname, inline.path, line, inline.score + 1, (*inline.reasons, note)))
        elif out[own].score <= inline.score:
            out[own] = replace(out[own], score=inline.score + 1, reasons=(*out[own].reasons, note))
    return out


def outermost_ranges(inline: list[tuple]) -> list[tuple]:
    """Inline ranges not inside another range of the same function (the denoising loop inside a control
    loop's range is part of that range)."""
    return [(fn, p, d) for fn, p, d in inline
            if not any(other is not p and fn2.id == fn.id and other.start <= p.start and p.end <= other.end
                       and (other.start, other.end) != (p.start, p.end) for fn2, other, _ in inline)]


def below_called_steps(ranked: list[Entrypoint], short: dict[str, list[str]]) -> list[Entrypoint]:
    """`short`: a short evaluation or deploy loop range (path:start-end, `cores.short_range_around_step`) -> the
    ids of the functions running a model that it calls. The range runs that function and hands its result to the
    world: it is placed right below the best-ranked of them, scored one point under it, with the reason; a range
    none of whose functions is a candidate stays where it ranks."""
    out = list(ranked)
    for range_id, fids in short.items():
        at = next((i for i, c in enumerate(out) if c.kind == "inline" and c.id == range_id), None)
        step = next((c for c in out if c.kind == "function" and c.id in fids), None)
        if at is None or step is None:
            continue
        moved = replace(out.pop(at), score=step.score - 1)
        moved = replace(moved, reasons=(*moved.reasons, f"a loop that runs {step.qualname} and hands its result to "
                                                        "the world: ranked right below it"))
        out.insert(out.index(step) + 1, moved)
    return out
