"""State values inside a container whose length changes between the observed calls (a deque of
[chunk, age] pairs that fills up and drains, a dict of per-sensor deques that fill up over the first
calls). Such a value has no fixed place: the slot `chunks[2][1]` exists on some calls and not on
others, so it is never read or written blindly; the run stops with one line naming the container,
where the attribute is made, and its lengths across the observed calls."""
from __future__ import annotations

import ast
import collections
import inspect
import os
import textwrap
import types

from leapp_codemod.boundary import StateRef
from leapp_codemod.runner import state_observe as observe
from leapp_codemod.runner.errors import RunnerError

_SHOWN = 10     # lengths shown in the refusal


def varying_holder(path: tuple, sizes: list[dict]) -> tuple | None:
    """The outermost container on the way to `path` (not `path` itself) whose length differs between
    the recorded snapshots `sizes` ({container path: length}, before the first observed call and after each);
    None if none. A container the first call fills and that keeps its length afterwards (a per-level cache
    made on first use) has a fixed slot once the warm-up call has run: only the snapshots after a call count."""
    for k in range(2, len(path)):
        known = {s[path[:k]] for s in sizes[1:] if path[:k] in s}
        if len(known) > 1:
            return path[:k]
    return None


def holders(paths, sizes: list[dict]) -> dict[tuple, list[tuple]]:
    """{container whose length changes: [the given paths inside it]}."""
    out: dict[tuple, list[tuple]] = {}
    for path in paths:
        holder = varying_holder(path, sizes)
        if holder is not None:
            out.setdefault(holder, []).append(path)
    return out


def _resolve(roots: dict, path: tuple):
    try:
        return StateRef("holder", roots[path[0]], tuple(path[1:])).get()
    except (AttributeError, KeyError, IndexError, TypeError):
        return None


def attribute_site(roots: dict, path: tuple) -> str:
    """`file:line` where the attribute holding the container at `path` is assigned (`self.chunks =
    deque()` in its class, or a module-level `name = ...`), or '' when it cannot be found."""
    steps = [i for i, (kind, _) in enumerate(path[1:], 1) if kind == "attr"]
    if not steps:
        return ""
    j = steps[-1]
    owner, attr = _resolve(roots, path[:j]) if j > 1 else roots.get(path[0]), path[j][1]
    if owner is None:
        return ""
    if isinstance(owner, types.ModuleType):
        return _site_in(owner, attr, module_level=True)
    for cls in type(owner).__mro__:
        if cls.__module__ not in ("builtins", "torch.nn.modules.module"):
            site = _site_in(cls, attr, module_level=False)
            if site:
                return site
    return ""


def _site_in(obj, attr: str, module_level: bool) -> str:
    try:
        lines, start = inspect.getsourcelines(obj)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        filename = inspect.getsourcefile(obj) or ""
    except (OSError, TypeError, SyntaxError):
        return ""
    start = max(start, 1)
    for node in (tree.body if module_level else ast.walk(tree)):
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                   if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for t in targets:
            hit = (isinstance(t, ast.Name) and t.id == attr) if module_level else (
                isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                and t.value.id == "self")
            if hit:
                return f"{_rel(filename)}:{node.lineno + start - 1}"
    return ""


def _rel(filename: str) -> str:
    try:
        return os.path.relpath(filename)
    except ValueError:
        return filename


def lengths_text(path: tuple, sizes: list[dict]) -> str:
    shown = [str(s[path]) if path in s else "-" for s in sizes[:_SHOWN]]
    more = ", ..." if len(sizes) > _SHOWN else ""
    return f"{', '.join(shown)}{more} items before the first observed call and after each of {len(sizes) - 1}"


def refusal(roots: dict, holder: tuple, inside: list[tuple], sizes: list[dict]) -> RunnerError:
    """One line: the container, where it is made, its lengths, the values inside it the step updates."""
    live = _resolve(roots, holder)
    site = attribute_site(roots, holder)
    kind = type(live).__name__ if live is not None else "container"
    maxlen = getattr(live, "maxlen", None) if isinstance(live, collections.deque) else None
    if maxlen:
        kind = f"deque(maxlen={maxlen})"
        fix = (f"fill it to its {maxlen} slots where it is made (deque([...] * {maxlen}, maxlen={maxlen})) so "
               "every call sees the same slots, or keep it and the code that reads it in the host runtime")
    else:
        fix = ("keep a fixed number of slots instead (deque(maxlen=N) filled where it is made, or a tensor of N "
               "slots and a counter as state), or keep the container and the code that reads it in the host runtime")
    names = ", ".join(observe.describe_path(p) for p in inside[:3]) + (", ..." if len(inside) > 3 else "")
    return RunnerError(
        f"state: {observe.describe_path(holder)} ({site + ', ' if site else ''}a {kind}) changes length between "
        f"the observed calls ({lengths_text(holder, sizes)}) and the step updates values inside it ({names}): "
        f"a value with no fixed slot cannot be LEAPP state (its ports have fixed shapes); {fix}", "state")


def refuse_varying(recorder, paths) -> None:
    """Stop at the state stage when a changed value lies inside a container whose length changes."""
    found = holders(paths, recorder.sizes)
    if found:
        holder, inside = next(iter(sorted(found.items(), key=lambda kv: observe.describe_path(kv[0]))))
        raise refusal(recorder.roots, holder, inside, recorder.sizes)


def unreachable(ref: StateRef, path: tuple, roots: dict) -> RunnerError:
    """One line for a state slot that the objects do not hold when the plan is applied (a deque
    shorter than the slot's index): never an IndexError from inside the trace."""
    holder, live = path[:2], None
    for k in range(len(path) - 1, 1, -1):
        live = _resolve(roots, path[:k])
        if live is not None:
            holder = path[:k]
            break
    size = f" holds {len(live)} items" if isinstance(live, (list, tuple, collections.deque, dict)) else " has no such slot"
    site = attribute_site(roots, holder)
    return RunnerError(
        f"state: {observe.describe_path(path)} (state {ref.name!r}) is not there when the starting state is set: "
        f"{observe.describe_path(holder)}{f' ({site})' if site else ''}{size}; a value with no fixed slot cannot be "
        "LEAPP state", "state")
