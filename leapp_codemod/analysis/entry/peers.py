"""Candidates that are peers: one method name on several classes (`PPO.act`, `SAC.act`, `A2C.act`).

A library ships many policies with the same step method, and a loop that calls `agent.act(obs)` on an
object of unknown class ranks them all alike. The project's own code says which one it uses most: the
class its examples, scripts and configs build most often.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import PurePosixPath

from leapp_codemod.analysis.entry.drivers import TRAINING_WORDS, is_test_path, name_words
from leapp_codemod.analysis.entry.lookup import has_model_sign, is_training_candidate
from leapp_codemod.analysis.entry.vendored import vendored_modules

from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_sites import sites_by_class
from leapp_codemod.analysis.model.resolve_types import subclasses
from leapp_codemod.model import Entrypoint

# Generic call names (every network's and environment's): a policy step only with other evidence.
GENERIC_STEP_NAMES = frozenset({"forward", "__call__", "step"})


def favour_most_built(ranked: list[Entrypoint], project: Project) -> None:
    """Peers (methods of one name on different classes, `PPO.act` next to `SAC.act`): the one whose class
    the project builds most often (its examples and scripts; builds in tests and training modules do not
    count) gets one point, when it is built strictly more often than every other peer and at least twice, or
    is the only one built at all."""
    peers: dict[str, list[int]] = {}
    for i, candidate in enumerate(ranked):
        # `forward`/`__call__`/`step` are every network's and environment's: no peers of a policy step
        if "." in candidate.qualname and candidate.qualname.rpartition(".")[2] not in GENERIC_STEP_NAMES:
            peers.setdefault(candidate.qualname.rpartition(".")[2], []).append(i)
    for name, members in peers.items():
        if len(members) < 2:
            continue
        counts = sorted(((built_count(project, ranked[i]), i) for i in members), reverse=True)
        (best, index), (second, _) = counts[0], counts[1]
        if best > second and (best >= 2 or second == 0):
            old = ranked[index]
            ranked[index] = replace(old, score=old.score + 1, reasons=(
                *old.reasons, f"its class is built at {best} place{'s' if best > 1 else ''} in the project outside "
                              f"tests and training code, more than any other class defining `{name}` "
                              f"({second} at most)"))


def built_count(project: Project, candidate: Entrypoint) -> int:
    """Calls in the project that build the candidate's class or a subclass that inherits the method, outside
    tests, training modules and library copies (vendored.py)."""
    module = project.modules.get(candidate.module)
    owner = module.classes.get(candidate.qualname.rpartition(".")[0]) if module else None
    if owner is None:
        return 0
    method = project.find_method(owner, candidate.qualname.rpartition(".")[2])
    built = sites_by_class(project)
    copied = vendored_modules(project)     # a library copy's builds are its own examples, not the project's
    return sum(1 for klass in (owner, *subclasses(project, owner))
               if project.find_method(klass, method.name if method else "") is method
               for site in built.get(klass.id, ()) if not _fitting_or_testing(site.module.path, site.module.name)
               and site.module.name not in copied)


def _fitting_or_testing(path: str, module: str) -> bool:
    """A build in a test file or a training module (`train.py`, `trainers/ppo.py`) says nothing about which
    class is deployed."""
    words = name_words(f"{module} {PurePosixPath(path).stem}")
    return is_test_path(path) or bool((words | {w[:-1] for w in words if w.endswith("s")}) & TRAINING_WORDS)


def below_delegated_models(ranked: list[Entrypoint], project: Project) -> list[Entrypoint]:
    """A peer that is a network's method (its class is an nn.Module, or a mixin every project subclass of which
    is one: `class Policy(GaussianMixin, Model)`) is put one point below another peer that runs a model it
    holds through a method of the same name (`PPO.act` calling `self.policy.act(inputs)`), whatever its other
    signs: the network's `act` is what that step runs, the step prepares its inputs. Only a delegating peer
    that runs a model, is not training code and is no network itself counts, and never for `forward`,
    `__call__` or `step` (every network's)."""
    delegators: dict[str, tuple[Entrypoint, str]] = {}   # method name -> the best delegating candidate
    for c in ranked:
        fn = _method(project, c)
        if fn is None or fn.name in GENERIC_STEP_NAMES or not has_model_sign(c) or is_training_candidate(c) \
                or _network_class(project, c):
            continue    # a network's `forward` calling `self.encoder.forward(x)` composes, it runs no held model
        for node in ast.walk(fn.node):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == fn.name \
                    and isinstance(node.func.value, ast.Attribute) and isinstance(node.func.value.value, ast.Name) \
                    and node.func.value.value.id == (fn.positional_params or [""])[0]:
                if fn.name not in delegators or delegators[fn.name][0].score < c.score:
                    delegators[fn.name] = (c, ast.unparse(node.func))
                break
    out = []
    for c in ranked:
        step, how = delegators.get(c.qualname.rpartition(".")[2], (None, ""))
        if step is not None and step is not c and c.score >= step.score and _network_class(project, c):
            c = replace(c, score=step.score - 1, reasons=(
                *c.reasons, f"a network's `{c.qualname.rpartition('.')[2]}` that {step.qualname} runs through "
                            f"`{how}`: ranked below that step"))
        out.append(c)
    return out


def _method(project: Project, candidate: Entrypoint):
    module = project.modules.get(candidate.module)
    owner_name, dot, name = candidate.qualname.rpartition(".")
    cls = module.classes.get(owner_name) if module is not None and dot and candidate.kind == "function" else None
    return cls.methods.get(name) if cls is not None else None


def _network_class(project: Project, candidate: Entrypoint) -> bool:
    module = project.modules.get(candidate.module)
    cls = module.classes.get(candidate.qualname.rpartition(".")[0]) if module is not None else None
    if cls is None or candidate.kind != "function":
        return False
    if project.is_nn_module(cls):
        return True
    below = subclasses(project, cls)
    return bool(below) and all(project.is_nn_module(sub) for sub in below)
