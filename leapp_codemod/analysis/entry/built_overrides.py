"""A base class's method ranked for a loop that calls it on an object typed as the base, when the project builds a
subclass that overrides it: the override is what runs.

A loop calls `policy(obs)` on what a runner returns, typed as the base class (`actor_critic: ActorCritic`), while
the class actually built is picked at run time (`eval(cfg.class_name)`, a registry, a factory) or built directly
under another name. The evidence of which class is built, read from the project's own code and configs without
running anything:

- a direct constructor call of the class (`RecurrentPolicy(...)`) outside tests;
- the class's name given as a setting's value: a keyword argument (`PolicyCfg(class_name="LstmPolicy")`), a
  dict entry (`{"policy": "LstmPolicy"}`), an assignment (`cfg.policy_name = "LstmPolicy"`, a class attribute of
  a config class), a value in a YAML/JSON/TOML config (also a dotted `_target_`). A config class's own field
  value (`class_name: str = "MlpPolicy"` in its body) is a default: evidence only when the project uses it (the
  class, or a subclass not setting the field, built without that keyword, or named though never built).

When that evidence names no class of the family but the override's, and exactly one override, the override takes
the base method's place (its score, the reason naming the evidence) and the base method goes one point below it.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, replace

from leapp_codemod.analysis.entry.drivers import is_test_path
from leapp_codemod.analysis.entry.vendored import import_root, vendored_modules
from leapp_codemod.analysis.model.config_values import (
    CONFIG_EXTENSIONS,
    CONFIG_SKIP_FILES,
    leaves,
)
from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.analysis.model.resolve_sites import sites_by_class
from leapp_codemod.analysis.model.resolve_types import subclasses
from leapp_codemod.model import Entrypoint
from leapp_codemod.source.config_files import config_texts

_CLASS_LIKE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*(?P<name>[A-Z]\w*)$")


@dataclass(frozen=True)
class Naming:
    """A string naming a class as a setting's value."""

    key: str            # the field, keyword or config key it is given for
    where: str          # `path:line`
    holder: str = ""    # for a value in a class body: the class id (a field's default)


def _class_name(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        match = _CLASS_LIKE.match(node.value)
        return match["name"] if match else None
    return None


def _target_key(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and isinstance(
            target.slice.value, str):
        return target.slice.value
    return None


def namings(project) -> dict[str, list[Naming]]:
    """Class-like name -> every place the project's own code or configs give it as a setting's value (tests
    left out). Read once per project."""
    memo = ("entry-class-namings", project.own_module_count())
    if memo in project.memo:
        return project.memo[memo]
    out: dict[str, list[Naming]] = {}

    def add(value: ast.AST | None, key: str | None, where: str, holder: str = "") -> None:
        name = _class_name(value)
        if name and key:
            out.setdefault(name, []).append(Naming(key, where, holder))

    copied = vendored_modules(project)
    for module in list(project.modules.values()):
        if project.is_library(module.name) or is_test_path(module.path) or module.name in copied:
            continue
        path = os.path.relpath(module.path)
        for node in module.nodes:
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    add(keyword.value, keyword.arg, f"{path}:{node.lineno}")
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        add(value, key.value, f"{path}:{node.lineno}")
            elif isinstance(node, ast.ClassDef):
                holder = f"{module.name}:{node.name}"
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign):
                        for target in stmt.targets:
                            add(stmt.value, _target_key(target), f"{path}:{stmt.lineno}", holder)
                    elif isinstance(stmt, ast.AnnAssign):
                        add(stmt.value, _target_key(stmt.target), f"{path}:{stmt.lineno}", holder)
        for fn in module.functions.values():
            for node in ast.walk(fn.node):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        add(node.value, _target_key(target), f"{path}:{node.lineno}")
    roots = project_config_roots(project)
    scan_roots = {os.path.abspath(root) for root in roots}
    libraries = {os.path.abspath(import_root(module)) for module in project.modules.values() if module.name in copied}
    libraries -= scan_roots     # a copy's own folder (`exts/lib/config/*.yaml`: its examples), not the project's
    for path, text in config_texts(roots, CONFIG_EXTENSIONS, CONFIG_SKIP_FILES):
        if is_test_path(str(path)) or any(os.path.abspath(path).startswith(lib + os.sep) for lib in libraries):
            continue
        for key, value in leaves(text, path.name):
            add(ast.Constant(value) if isinstance(value, str) else None, key, os.path.relpath(path))
    project.memo[memo] = out
    return out


def _set_values(project, name: str) -> list[Naming]:
    """The namings of `name` that are evidence: a class body's field value (a default) only when some class
    that inherits it is used without setting the field (`_default_used`)."""
    return [naming for naming in namings(project).get(name, ())
            if not naming.holder or _default_used(project, naming)]


def _default_used(project, naming: Naming) -> bool:
    """Does the project use the default `naming` gives in its class body: the class, or a subclass that does
    not set the field in its own body, built without the field as a keyword (or `**` arguments), or never built
    but named somewhere other than a class statement's bases? A config class built once with
    `class_name="LstmPolicy"`, or one nothing uses, does not run its default. A class the scan cannot place
    (nested in another) keeps it."""
    cls = project.class_of(naming.holder.replace(":", "."))
    if cls is None:
        return True
    inheriting = [cls, *(sub for sub in subclasses(project, cls) if naming.key not in _body_fields(sub.node))]
    built = sites_by_class(project)
    for klass in inheriting:
        sites = [site for site in built.get(klass.id, ()) if not is_test_path(site.module.path)]
        if any(not any(k.arg in (naming.key, None) for k in site.call.keywords) for site in sites):
            return True
        if not sites and klass.name in _named_loads(project):
            return True
    return False


def _body_fields(node: ast.ClassDef) -> set[str]:
    out = set()
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) \
            else []
        out.update(key for key in map(_target_key, targets) if key)
    return out


def _named_loads(project) -> set[str]:
    """Names (and attribute names) the project's own modules read, outside class statements' bases and imports."""
    memo = ("entry-named-loads", project.own_module_count())
    if memo not in project.memo:
        found: set[str] = set()
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            bases = {id(n) for node in module.nodes if isinstance(node, ast.ClassDef)
                     for base in node.bases for n in ast.walk(base)}
            for node in module.nodes:
                if id(node) in bases:
                    continue
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    found.add(node.id)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    found.add(node.attr)
        project.memo[memo] = found
    return project.memo[memo]


def built_evidence(project, cls) -> str | None:
    """How the project says it builds `cls`: a constructor call outside tests, or a setting naming it."""
    for site in sites_by_class(project).get(cls.id, ()):
        if not is_test_path(site.module.path):
            return f"built at {os.path.relpath(site.module.path)}:{site.call.lineno}"
    for naming in _set_values(project, cls.name):
        return f"named as the `{naming.key}` setting at {naming.where}"
    return None


def to_built_overrides(ranked: list[Entrypoint], project) -> list[Entrypoint]:
    """A base class's method whose class the project never builds nor names, nor any subclass inheriting the
    method, with exactly one override among the subclasses it does build or name: the override gets the base method's score and the base goes one
    below, each with the reason."""
    out = list(ranked)
    for index, candidate in enumerate(ranked):
        owner, method = _owner(project, candidate)
        if owner is None or built_evidence(project, owner) is not None:
            continue
        base_fn = owner.methods[method]
        chosen: dict[str, tuple] = {}
        inherits = False     # a subclass the project builds that runs the base method itself
        for sub in subclasses(project, owner):
            fn = project.find_method(sub, method)
            if fn is None or fn is base_fn:
                inherits = inherits or fn is base_fn and built_evidence(project, sub) is not None
                continue
            evidence = built_evidence(project, sub)
            if evidence is not None:
                chosen.setdefault(fn.id, (fn, sub, evidence))
        if len(chosen) != 1 or inherits:
            continue
        fn, sub, evidence = next(iter(chosen.values()))
        called = next((f" ({r})" for r in candidate.reasons if r.startswith(("called", "registered"))), "")
        note = (f"runs in place of {candidate.qualname}{called}: the project builds `{sub.name}`, which overrides "
                f"`{method}` ({evidence}), and never builds `{owner.name}` itself")
        at = next((i for i, c in enumerate(out) if c.kind == "function" and c.id == f"{fn.module}:{fn.qualname}"),
                  None)
        if at is None:
            kept = tuple(r for r in candidate.reasons if not r.startswith("a base class's"))
            out.append(Entrypoint(fn.module, fn.qualname, fn.path, fn.node.lineno, candidate.score, (*kept, note)))
        elif out[at].score <= candidate.score:
            out[at] = replace(out[at], score=candidate.score, reasons=(*out[at].reasons, note))
        below = (f"`{sub.name}` overrides it and is what the project builds ({evidence}): ranked below "
                 f"{sub.name}.{method}")
        out[index] = replace(out[index], score=min(out[index].score, candidate.score) - 1,
                             reasons=(*out[index].reasons, below))
    return out


def _owner(project, candidate: Entrypoint):
    """(class, method name) of a method candidate, else (None, "")."""
    if candidate.kind != "function" or "." not in candidate.qualname:
        return None, ""
    module = project.modules.get(candidate.module)
    owner_name, _, method = candidate.qualname.rpartition(".")
    cls = module.classes.get(owner_name) if module is not None else None
    return (cls, method) if cls is not None and method in cls.methods else (None, "")
