"""A step that feeds its own inputs to a model function and returns what comes back ranks above that function.

The policy step is the function that turns observation-derived data into the model's input, runs the model and
returns (or sends) what becomes the action. When a candidate `step(image, instruction)` calls a project function
that runs a model (`self.vla.predict_action(image=pil, ...)`, itself a candidate, perhaps named like a step and
run under `no_grad`), and
- the call's arguments are built from the step's own parameters (its backward slice reaches them),
- with work of the step's own around the call (statements building the input, or using the result),
- and the step returns or sends a value its result flows into,
- not inside a loop of the step (a loop that calls the model is a driver or a rollout, ranked elsewhere),
then the called function is a part of the step: the step goes one point above it (a chain of such steps, a VLA's
`predict_action` over its action head's sampler and an inference function over both, stacks up). Training
code, I/O helpers, network `forward`s (their blocks are ranked by `submodules.py`) and copied libraries compose
nothing here.
"""
from __future__ import annotations

import ast
from dataclasses import replace

from leapp_codemod.analysis.entry.composers import first_word, send_after
from leapp_codemod.analysis.entry.loops import defined_names, used_names
from leapp_codemod.analysis.entry.signs import IO_WORDS, TRAINING_NAMES, computes_loss
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.resolve_types import annotation_classes, is_abstract
from leapp_codemod.model import Entrypoint

_COMPOUND = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, getattr(ast, "Match", ast.If))
MAX_ROUNDS = 6    # chains deeper than this are not stacked further
PART_DEPTH = 3    # calls below the wrapped function whose model calls are parts of the step


def _simple_statements(fn: FunctionInfo) -> list[ast.stmt]:
    """The function's own simple statements (nested ones included, nested definitions not), in line order."""
    out, stack = [], list(fn.node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND):
            out.append(node)
            continue
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.AST))
    return sorted(out, key=lambda s: (s.lineno, s.col_offset))


def _in_loop(fn: FunctionInfo, call: ast.Call) -> bool:
    return any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and n.lineno <= call.lineno <= (n.end_lineno or 0)
               for n in ast.walk(fn.node) if n is not fn.node)


def _inputs(fn: FunctionInfo, registered: bool = False) -> set[str]:
    """The step's parameters; for a method a framework calls back (a timer's, a subscriber's), also its object:
    such a step reads its inputs from the fields other callbacks fill."""
    args = fn.node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return set(names[1:] if fn.is_method and names and not registered else names)


def wraps(fn: FunctionInfo, call: ast.Call, registered: bool = False) -> bool:
    """Does `fn` build `call`'s arguments from its own parameters (`registered`, a method reading its inputs
    from its object: from its object's fields too), do work of its own around the call, and return or send a value the call's result flows into
    (see the module docstring)?"""
    if _in_loop(fn, call):
        return False
    if isinstance(call.func, ast.Name) and call.func.id in _inputs(fn):
        return False   # `func(*args, **kwargs)`: the caller chooses what runs, this function only forwards
    statements = _simple_statements(fn)
    at = next((s for s in statements if s.lineno <= call.lineno <= (s.end_lineno or s.lineno)
               and any(n is call for n in ast.walk(s))), None)
    if at is None:
        return False
    index = statements.index(at)
    needed = {n.id for arg in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(arg)
              if isinstance(n, ast.Name)}
    before = 0
    for stmt in reversed(statements[:index]):
        if defined_names(stmt) & needed:
            needed |= used_names(stmt)
            before += 1
    if not needed & _inputs(fn, registered):
        return False     # the model is fed something else than the step's inputs
    produced = defined_names(at)
    after, returned = 0, isinstance(at, ast.Return)
    for stmt in statements[index + 1:]:
        if not used_names(stmt) & produced:
            continue
        if isinstance(stmt, ast.Return):
            returned = True
            after += not isinstance(stmt.value, ast.Name)    # `return y * scale`: work on the result
            continue
        produced |= defined_names(stmt)
        after += 1
    sent = send_after(fn, call.lineno) is not None and after > 0
    return (returned or sent) and before >= 1 and before + after >= 2


def _composes(fn: FunctionInfo) -> bool:
    return not (fn.name == "forward" or fn.name.startswith("__") or fn.name in TRAINING_NAMES or computes_loss(fn)
                or first_word(fn.name) in IO_WORDS)


def annotated_calls(fn: FunctionInfo, project) -> list[tuple[ast.Call, list[str]]]:
    """Calls of a method on a parameter annotated with a project class (`model.predict_action(x)` with
    `model: VlaModel`) that nothing else resolved: (call, the class's method of that name). Ranking only: the
    annotation stands in where no caller's value was followed."""
    module = project.modules.get(fn.module)
    args = fn.node.args
    declared = {a.arg: a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation}
    if module is None or not declared:
        return []
    out = []
    for node in ast.walk(fn.node):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in declared):
            continue
        targets = []
        for cls_id in sorted(annotation_classes(project, declared[node.func.value.id], module)):
            cls = project.class_of(cls_id.replace(":", "."))
            method = project.find_method(cls, node.func.attr) if cls is not None else None
            if method is not None and not is_abstract(method):
                targets.append(method.id)
        if targets:
            out.append((node, targets))
    return out


def _network_method(fn: FunctionInfo, project) -> bool:
    module = project.modules.get(fn.module)
    cls = module.classes.get(fn.class_name) if module is not None and fn.class_name else None
    return cls is not None and project.is_nn_module(cls)


def _runs_model(fid: str, sites) -> bool:
    return fid in sites.calls_module or sites.model_via(fid) is not None


def _driven(fid: str, sites) -> bool:
    """Does a driver call `fid` in a loop of its own (a policy step in its own right, not only a part)?"""
    return any(caller.id in sites.drivers for caller, _ in sites.in_loops.get(fid, []))


def _parts(model: str, sites) -> set[str]:
    """`model` and the functions it reaches through its calls (PART_DEPTH deep) that run a model, leaving out
    those a driver also runs in a loop of its own (an agent's `act` a visualiser calls beside the step)."""
    seen, frontier = {model}, {model}
    for _ in range(PART_DEPTH):
        frontier = {c for fid in frontier for c in sites.callees.get(fid, ()) if c not in seen}
        seen |= frontier
    return {fid for fid in seen if fid == model or _runs_model(fid, sites) and not _driven(fid, sites)}


def _drives_a_model(fn: FunctionInfo, calls: list[tuple[ast.Call, list[str]]], sites) -> bool:
    """Does `fn` run a model in a loop of its own (a rollout calling the step again and again, also when it calls
    it once before the loop)? Such a function drives the step; it composes nothing."""
    lines = set(sites.model_lines.get(fn.id, ())) | {node.lineno for node, tids in calls
                                                      if any(_runs_model(t, sites) for t in tids)}
    return bool(lines) and any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and any(
        n.lineno < line <= (n.end_lineno or 0) for line in lines) for n in fn.nodes)


def wrapping_edges(functions: dict[str, FunctionInfo], sites, project, offered: set[str],
                   reach: set[str]) -> dict[str, set[str]]:
    """Step id -> ids of the model functions it wraps and their model-running parts (see `wraps`). A step need
    not be a candidate yet (a public function the driver calls once); a private or abstract one is no step.
    `reach`: the functions whose calls run a model at any depth (a candidate among them is a model function)."""
    out: dict[str, set[str]] = {}
    for fid in sorted(functions):
        fn = functions[fid]
        # a candidate reached from training code too (a trainer collecting experience through the agent's step)
        # keeps its structure: the step still wraps its network's method (a network's own methods around its
        # `forward` are the network, not a step around it)
        if ((fid in sites.ignored and (fid not in offered or _network_method(fn, project)))
                or fn.module in sites.vendored or ".<locals>." in fid
                or (fid not in offered and (fn.name.startswith("_") or fn.qualname == "<module>"))):
            continue
        resolved = sites.project_calls.get(fid, [])
        known = {id(node) for node, _ in resolved}
        calls = [*resolved, *(c for c in annotated_calls(fn, project) if id(c[0]) not in known)]
        # a model function: one that runs a model itself or is a candidate (not a function a harness is handed,
        # which runs models only somewhere below, nor a rollout running the model in a loop of its own)
        wrapped = [(node, models) for node, tids in calls
                   if (models := [t for t in tids if t != fid and (
                                      t in sites.calls_module or t in offered and (_runs_model(t, sites) or t in reach))
                                  and not (
                                      t in functions and _drives_a_model(functions[t], sites.project_calls.get(t, []),
                                                                         sites))])]
        if not wrapped or not _composes(fn) or (fid not in offered and is_abstract(fn)) \
                or _drives_a_model(fn, calls, sites):
            continue
        # a method the framework calls back, or one a driver calls with no inputs of its own (a timer's `nn()`):
        # it reads its inputs from the fields of its object
        from_object = fid in sites.callbacks or fn.is_method and not _inputs(fn) and bool(sites.in_loops.get(fid))
        for node, models in wrapped:
            if wraps(fn, node, from_object):
                for model in models:
                    out.setdefault(fid, set()).update(_parts(model, sites) - {fid})
    # a pair that reach each other (recursion, mutual calls) is no step and its model
    return {fid: {p for p in parts if fid not in out.get(p, ())} for fid, parts in out.items()}


def above_their_models(ranked: list[Entrypoint], edges: dict[str, set[str]],
                       functions: dict[str, FunctionInfo]) -> list[Entrypoint]:
    """Each step one point above the best candidate among the model functions it wraps and their parts (see the
    module docstring), offered when it was no candidate, with the reason; each such part says whose it is."""
    out = list(ranked)
    index = {c.id: i for i, c in enumerate(out) if c.kind == "function"}
    noted: set[tuple[str, str]] = set()
    for _ in range(MAX_ROUNDS):
        moved = False
        for step, parts in sorted(edges.items()):
            offered = [out[index[p]] for p in sorted(parts) if p in index]
            if not offered:
                continue
            best = max(offered, key=lambda c: c.score)
            if step not in index:
                fn = functions[step]
                out.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, best.score - 1, ()))
                index[step] = len(out) - 1
            s = out[index[step]]
            for part in offered:
                if (step, part.id) not in noted:
                    noted.add((step, part.id))
                    part_note = (f"run by {s.qualname} on inputs it builds from its own ({s.path}:{s.line}): a "
                                 f"part of that policy step")
                    out[index[part.id]] = replace(out[index[part.id]],
                                                  reasons=(*out[index[part.id]].reasons, part_note))
            if s.score <= best.score:
                note = (f"the policy step around {best.qualname}: builds its input from this function's own "
                        f"inputs and returns or sends what it gives back")
                out[index[step]] = replace(s, score=best.score + 1, reasons=(
                    *(r for r in s.reasons if not r.startswith("the policy step around ")), note))
                moved = True
        if not moved:
            break
    return out
