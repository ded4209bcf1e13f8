"""Which of several peer classes the project's configs choose: the one a Hydra defaults list selects.

A library ships several policies with one step method (`BCRNNPolicy.get_action`, `BCTransformerPolicy.get_action`)
and builds one by a name from its config. The primary config's defaults list picks a file of each config
group (`defaults: [- policy: bc_transformer_policy]` reads `policy/bc_transformer_policy.yaml` beside it), and
that file names the class (`policy_type: BCTransformerPolicy`, or `_target_: pkg.policies.BCTransformerPolicy`).
The configs are read as text; nothing is imported or run. A command-line default chooses the same way:
`parser.add_argument("--policy", default="TD3")` and then `if args.policy == "TD3": policy = TD3.TD3(...)`
selects the class built under the test the default passes.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from pathlib import Path

from leapp_codemod.analysis.model.config_values import leaves
from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.model import Entrypoint
from leapp_codemod.source.config_files import config_texts

_DEFAULTS = re.compile(r"^defaults\s*:\s*$")
_ITEM = re.compile(r"^\s*-\s*(?:override\s+)?(?P<group>[A-Za-z_][\w/.\-]*)\s*:\s*(?P<option>[A-Za-z_][\w.\-/]*)\s*(#.*)?$")
_TARGET = re.compile(r"^\s*_target_\s*:\s*['\"]?(?P<target>[\w.]+)")
_YAML = (".yaml", ".yml")


def default_choices(text: str) -> list[tuple[str, str]]:
    """(group, option) of each `- group: option` item of a top-level `defaults:` list."""
    out, inside = [], False
    for raw in text.splitlines():
        if _DEFAULTS.match(raw):
            inside = True
            continue
        if not inside or not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if not raw[0].isspace() and not raw.startswith("-"):
            break          # the next top-level key ends the list
        match = _ITEM.match(raw)
        if match is not None:
            out.append((match["group"], match["option"]))
    return out


def named_in(text: str, name: str) -> set[str]:
    """Class-like names a config text gives as values: `_target_` classes and CamelCase strings."""
    found = {m["target"].rpartition(".")[2] for m in map(_TARGET.match, text.splitlines()) if m}
    found |= {v.rpartition(".")[2] for _, v in leaves(text, name) if isinstance(v, str) and v[:1].isupper()}
    return found


def selected_classes(project: Project) -> dict[str, str]:
    """Class name -> the config file that names it, for the group files the defaults lists select."""
    key = ("config_selected_classes",)
    if key in project.memo:
        return project.memo[key]
    texts = {Path(path): text for path, text in config_texts(project_config_roots(project), _YAML)}
    out: dict[str, str] = {}
    for path, text in texts.items():
        for group, option in default_choices(text):
            for ext in _YAML:
                chosen = path.parent / group / f"{option}{ext}"
                if chosen in texts:
                    for name in named_in(texts[chosen], chosen.name):
                        out.setdefault(name, os.path.relpath(chosen))
    for module in list(project.modules.values()):
        for name, where in argparse_choices(module.tree).items():
            out.setdefault(name, f"{os.path.relpath(module.path)}:{where}")
    project.memo[key] = out
    return out


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def argparse_choices(tree: ast.Module) -> dict[str, str]:
    """Class name -> `line (--flag default 'value')` for classes built under `if args.flag == default:`."""
    defaults: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flag = next((_string(a) for a in node.args if (_string(a) or "").startswith("--")), None)
            value = next((_string(k.value) for k in node.keywords if k.arg == "default"), None)
            if flag and value:
                defaults[flag.lstrip("-").replace("-", "_")] = value
    out: dict[str, str] = {}
    if not defaults:
        return out
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                and isinstance(node.test.ops[0], ast.Eq) and isinstance(node.test.left, ast.Attribute)):
            continue
        dest, value = node.test.left.attr, _string(node.test.comparators[0])
        if dest not in defaults or value != defaults[dest]:
            continue
        for call in (n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name[:1].isupper():
                out.setdefault(name, f"{node.lineno} (--{dest} default '{value}')")
    return out


def favour_selected(ranked: list[Entrypoint], project: Project) -> None:
    """Peers (one method name on several classes): the only one whose class a default config selects gets
    one point, with the config file."""
    selected = selected_classes(project)
    if not selected:
        return
    peers: dict[str, list[int]] = {}
    for i, candidate in enumerate(ranked):
        if "." in candidate.qualname:
            peers.setdefault(candidate.qualname.rpartition(".")[2], []).append(i)
    for members in peers.values():
        chosen = [i for i in members if ranked[i].qualname.rpartition(".")[0] in selected]
        if len(members) >= 2 and len(chosen) == 1:
            old = ranked[chosen[0]]
            where = selected[old.qualname.rpartition(".")[0]]
            ranked[chosen[0]] = replace(old, score=old.score + 1, reasons=(
                *old.reasons, f"its class is the one the configs select by default ({where})"))
