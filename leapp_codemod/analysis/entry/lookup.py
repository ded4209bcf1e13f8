"""Resolve a `--entry MODULE:QUALNAME` to a function, and say which entry a scan used and why.

MODULE is any import name of a scanned file (see `source/roots.py`), a dotted suffix of one, or the file's path
(`deploy/run.py:Controller.step`).
QUALNAME may name a method a class inherits (`RecurrentModel.forward` with `forward` defined on
a project base class) or a closure a function returns (`load_policy.<locals>.policy`).
"""
from __future__ import annotations

import ast
import difflib
from dataclasses import replace

from leapp_codemod.analysis.model.index import FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.model import Entrypoint

LOCALS = ".<locals>."
_SUGGESTIONS = 3


class EntryNotFound(Exception):
    """One line: why the entry was rejected and the nearest names the tool knows."""


def _modules_at_path(project: Project, spelled: str) -> list[ModuleIndex]:
    """The scanned modules a file path names (`deploy/run.py`, `./deploy/run.py`, relative to the scan root or
    any folder above the file): the spelling a user copies from a traceback or an editor."""
    wanted = spelled.replace("\\", "/").removeprefix("./")
    found = {id(m): m for m in project.modules.values()
             if (path := m.path.replace("\\", "/")) == wanted or path.endswith("/" + wanted)}
    return list(found.values())


def _modules_named(project: Project, name: str) -> list[ModuleIndex]:
    exact = project.module_named(name)
    if exact is not None:
        return [exact]
    if name.endswith((".py", ".pyw")):
        return _modules_at_path(project, name)
    suffix = "." + name
    found = {m.name: m for key, m in project.modules.items() if key.endswith(suffix)}
    found.update({project.modules[target].name: project.modules[target]
                  for alias, target in project.aliases.items() if alias.endswith(suffix)})
    return list(found.values())


def _nested(fn: FunctionInfo, path: list[str], module: ModuleIndex) -> FunctionInfo | None:
    """The function `path` names inside `fn` (a closure or a local helper)."""
    node: ast.AST = fn.node
    qualname = fn.qualname
    for part in path:
        node = next((n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and n is not node and n.name == part), None)
        if node is None:
            return None
        qualname = f"{qualname}{LOCALS}{part}"
    return FunctionInfo(f"{module.name}:{qualname}", module.name, qualname, node, None, module.path)


def _in_module(project: Project, module: ModuleIndex, qualname: str) -> FunctionInfo | None:
    outer, *inner = qualname.split(LOCALS)
    fn = module.functions.get(outer)
    if fn is None and "." in outer:
        class_name, _, method = outer.rpartition(".")
        cls = module.classes.get(class_name)
        fn = project.find_method(cls, method) if cls is not None else None
    if fn is None or not inner:
        return fn
    return _nested(fn, inner, module)


def known_entries(project: Project) -> list[str]:
    """Every `module:qualname` the tool accepts, inherited methods and alias module names included."""
    by_module: dict[str, list[str]] = {}
    for name, module in project.modules.items():
        qualnames = list(module.functions)
        for cls in module.classes.values():
            for klass in project.mro(cls)[1:]:
                qualnames += [f"{cls.name}.{m}" for m in klass.methods if m not in cls.methods]
        by_module[name] = qualnames
    names = [f"{m}:{q}" for m, qualnames in by_module.items() for q in qualnames]
    for alias, target in project.aliases.items():
        names += [f"{alias}:{q}" for q in by_module.get(target, ())]
    return names


def _nearest(entry: str, project: Project) -> str:
    close = difflib.get_close_matches(entry, known_entries(project), n=_SUGGESTIONS, cutoff=0.5)
    return f"; nearest: {', '.join(close)}" if close else ""


def find_entry(project: Project, entry: str) -> FunctionInfo:
    return resolve_entry(project, entry)[0]


def resolve_entry(project: Project, entry: str) -> tuple[FunctionInfo, str]:
    """The function `entry` names and the entry in canonical spelling: the module's own name and the
    qualname as given (`recurrent:RecurrentModel.forward` -> `models.recurrent:RecurrentModel.forward`)."""
    module_name, sep, qualname = entry.partition(":")
    if not sep or not module_name or not qualname:
        raise EntryNotFound(f"--entry '{entry}' must look like MODULE:QUALNAME (e.g. app.policy:Policy.act)"
                            f"{_nearest(entry, project)}")
    candidates = _modules_named(project, module_name)
    if not candidates:
        raise EntryNotFound(f"--entry '{entry}': module '{module_name}' is not among the scanned files"
                            f"{_nearest(entry, project)}")
    for module in candidates:
        found = _in_module(project, module, qualname)
        if found is not None:
            return found, f"{module.name}:{qualname}"
    raise EntryNotFound(f"--entry '{entry}': no function '{qualname}' in {candidates[0].path}"
                        f"{_nearest(entry, project)}")


def _why(candidate: Entrypoint) -> str:
    return "; ".join(candidate.reasons[:2])


NO_MODEL = "no sign of a model"
# How the first candidate says that others tie with it and nothing separates them (see ties.py).
TIED = "ties with"


def _tie(candidate: Entrypoint) -> str:
    """`; ties with ...` when the candidate says nothing separates it from others, else ''."""
    note = next((r for r in candidate.reasons if r.startswith(TIED) and "nothing in the project" in r), None)
    return f"; {note}" if note else ""


def has_model_sign(candidate: Entrypoint) -> bool:
    """Does the candidate call a model (or is it an inline loop around one, or named like a policy step)?"""
    return candidate.kind == "inline" or not any(r.startswith(NO_MODEL) for r in candidate.reasons)


def below_model_signs(ranked: list[Entrypoint]) -> list[Entrypoint]:
    """Candidates without a model sign scored below every candidate with one (a joystick poll called in
    the driver loop never outranks the function that runs the policy), with the reason."""
    signed = [c.score for c in ranked if has_model_sign(c)]
    unsigned = [c.score for c in ranked if not has_model_sign(c)]
    if not signed or not unsigned or max(unsigned) < min(signed):
        return list(ranked)
    drop = max(unsigned) - min(signed) + 1
    return [c if has_model_sign(c) else replace(c, score=c.score - drop, reasons=(
        *c.reasons, f"ranked below every candidate that runs a model (-{drop})")) for c in ranked]


# How a candidate's reason says it is defined in a library copied into the project (see vendored.py).
VENDORED = "third-party code copied into the project"


def is_vendored(candidate: Entrypoint) -> bool:
    return any(VENDORED in r for r in candidate.reasons)


TRAINING_CODE = "(training code)"     # how a candidate's reason says the tool judged it training code


def is_training_candidate(candidate: Entrypoint) -> bool:
    return candidate.kind == "function" and any(r.endswith(TRAINING_CODE) for r in candidate.reasons)


def below_non_training(ranked: list[Entrypoint]) -> list[Entrypoint]:
    """A candidate judged training code (a loss, an update) is scored below every candidate that is not and
    carries a model sign, whatever its other signs add up to (a training step called in a loop of a
    pretraining script never outranks the policy's forward), with the reason."""
    floor = min((c.score for c in ranked if has_model_sign(c) and not is_training_candidate(c)), default=None)
    if floor is None:
        return list(ranked)
    said = "ranked below every candidate that runs a model and is not training code"
    return [replace(c, score=floor - 1, reasons=(
        *(r for r in c.reasons if not r.startswith(said)), f"{said} (-{c.score - floor + 1})"))
            if is_training_candidate(c) and c.score >= floor else c for c in ranked]


def choose_entry(ranked: list[Entrypoint], inline: bool = False) -> tuple[Entrypoint | None, str]:
    """The candidate a scan starts from, and the one line that says which and why.

    With `inline`, an inline-loop candidate ranked first (above every function) is the choice; without,
    the best function is, and an inline candidate ranked above it is named with the `--entry` that scans it.
    """
    chosen = next((c for c in ranked if c.kind == "function"), None)
    top = ranked[0] if ranked else None
    if inline and top is not None and top.kind == "inline":    # ranked first, ties included (see tie_order)
        return top, f"entry: {top.id} (the {top.title}, ranked first; {_why(top)}){_tie(top)}"
    if chosen is None:
        if ranked:
            best = ranked[0]
            return None, (f"entry: none chosen; the best candidate is the {best.title} "
                          f"(scan it with --entry {best.id}); analyzed every function instead")
        return None, ("entry: no candidate found (no policy step called in a loop); analyzed every "
                      "function as pipeline code instead; pass --entry MODULE:QUALNAME")
    if not any(has_model_sign(c) for c in ranked):
        best = ", ".join(f"--entry {c.id}" for c in ranked[:3])
        return chosen, (f"entry: no confident entry (no candidate feeds data to a model); analyzed the best "
                        f"guess {chosen.id} ({_why(chosen)}); the best 3: {best}")
    line = f"entry: {chosen.id} ({_why(chosen)}){_tie(chosen)}"
    better = next((c for c in ranked if c.kind == "inline" and c.score > chosen.score), None)
    if better is not None:
        line += f"; an {better.title} ranks higher: scan it with --entry {better.id}"
    return chosen, line
