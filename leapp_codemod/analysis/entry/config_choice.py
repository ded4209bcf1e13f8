"""Which of several peer classes the project's configs choose: the one a Hydra defaults list selects.

A library ships several policies with one step method (`BCRNNPolicy.get_action`, `BCTransformerPolicy.get_action`)
and builds one by a name from its config. The primary config's defaults list picks a file of each config
group (`defaults: [- policy: bc_transformer_policy]` reads `policy/bc_transformer_policy.yaml` beside it), and
that file names the class (`policy_type: BCTransformerPolicy`, or `_target_: pkg.policies.BCTransformerPolicy`).
The configs are read as text; nothing is imported or run. A command-line default chooses the same way:
`parser.add_argument("--policy", default="TD3")` and then `if args.policy == "TD3": policy = TD3.TD3(...)`
selects the class built under the test the default passes. A string registry chooses the same way when a
shipped shell script sets its key: `register(idx="ppo", entry_point="pkg.ppo:PPO")` (or `{"ppo": PPO}`) and
`ALGO='ppo'` (or `--algo ppo`) on a line of a `.sh` file that is not commented out.

A config that names the class by a dotted `_target_` selects that class only: a project class of the same
name in another module (a wrapper named like the library class it wraps) is not chosen by it.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from pathlib import Path

from leapp_codemod.analysis.model.config_values import cli_defaults, leaves
from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.resolve_types import is_abstract
from leapp_codemod.model import Entrypoint
from leapp_codemod.source.config_files import config_texts

_DEFAULTS = re.compile(r"^defaults\s*:\s*$")
_ITEM = re.compile(r"^\s*-\s*(?:override\s+)?(?P<group>[A-Za-z_][\w/.\-]*)\s*:\s*(?P<option>[A-Za-z_][\w.\-/]*)\s*(#.*)?$")
_TARGET = re.compile(r"^\s*_target_\s*:\s*['\"]?(?P<target>[\w.]+)")
_YAML = (".yaml", ".yml")
_SHELL = (".sh", ".bash")
# A registry's target string (`pkg.agents.ppo:PPO`, `pkg.agents.ppo.PPO`) and key (`ppo`, `sac-v2`).
_REGISTRY_TARGET = re.compile(r"^(?P<module>[A-Za-z_][\w.]*)(?::|\.)(?P<cls>[A-Z]\w*)$")
_KEY = re.compile(r"^[A-Za-z][\w\-]*$")
# A shell line that sets a value: `ALGO='ppo'`, `export TASK=track`, or passes one: `--algo ppo`, `--algo=ppo`.
_SHELL_ASSIGN = re.compile(r"^\s*(?:export\s+)?[A-Za-z_]\w*=(?P<q>['\"]?)(?P<value>[\w.\-]+)(?P=q)\s*(?:#.*)?$")
_SHELL_FLAG = re.compile(r"--[\w\-]+(?:=|\s+)(?P<q>['\"]?)(?P<value>[A-Za-z][\w.\-]*)(?P=q)(?=\s|$)")


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
    return set(named_targets(text, name))


def named_targets(text: str, name: str) -> dict[str, set[str | None]]:
    """Class name -> how the config text names it: the dotted `_target_` strings, None for a bare name."""
    found: dict[str, set[str | None]] = {}
    for match in map(_TARGET.match, text.splitlines()):
        if match:
            target = match["target"]
            found.setdefault(target.rpartition(".")[2], set()).add(target if "." in target else None)
    for _, value in leaves(text, name):
        if isinstance(value, str) and value[:1].isupper():
            found.setdefault(value.rpartition(".")[2], set()).add(None)
    return found


def selected_classes(project: Project) -> dict[str, str]:
    """Class name -> the config file that names it, for the group files the defaults lists select."""
    return {name: where for name, (where, _) in _selections(project).items()}


def _selections(project: Project) -> dict[str, tuple[str, set[str | None]]]:
    """Class name -> (where it is selected, the dotted targets naming it; None in the set: named bare)."""
    key = ("config_selected_classes",)
    if key in project.memo:
        return project.memo[key]
    roots = project_config_roots(project)
    texts = {Path(path): text for path, text in config_texts(roots, _YAML)}
    out: dict[str, tuple[str, set[str | None]]] = {}

    def add(name: str, where: str, targets: set[str | None]) -> None:
        out.setdefault(name, (where, set()))[1].update(targets)

    for path, text in texts.items():
        for chosen in _chosen_files(path, text, texts):
            for name, targets in named_targets(texts[chosen], chosen.name).items():
                add(name, os.path.relpath(chosen), targets)
    shell = shell_values(config_texts(roots, _SHELL))
    for module in list(project.modules.values()):
        for name, where in argparse_choices(module.tree).items():
            add(name, f"{os.path.relpath(module.path)}:{where}", {None})
        if shell:
            for registry_key, (name, target, line) in registry_keys(module.tree).items():
                if registry_key in shell:
                    add(name, f"{shell[registry_key]}, the key `{registry_key}` registered at "
                              f"{os.path.relpath(module.path)}:{line}", {target})
    project.memo[key] = out
    return out


def _chosen_files(path: Path, text: str, texts: dict[Path, str]) -> list[Path]:
    """The group files a config's defaults list chooses (`- model: agent` -> model/agent.yaml), when present."""
    return [path.parent / group / f"{option}{ext}" for group, option in default_choices(text) for ext in _YAML
            if path.parent / group / f"{option}{ext}" in texts]


def run_config_names(project: Project) -> set[str]:
    """Names of the configs the project's own code runs: `@hydra.main(config_name="config")`,
    `compose(config_name="eval.yaml")` (the file stem)."""
    names: set[str] = set()
    for module in project.modules.values():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Call):
                names.update(Path(_string(k.value)).stem for k in node.keywords
                             if k.arg == "config_name" and _string(k.value))
    return names


def run_selected(project: Project) -> dict[str, str]:
    """Class name -> the run config (see `run_config_names`) whose defaults list selects it: of several configs
    selecting classes for one group (`config.yaml` picking one agent, `config_variant.yaml` another), the one the
    code runs."""
    key = ("run_config_selected_classes",)
    if key not in project.memo:
        names = run_config_names(project)
        texts = {Path(path): text for path, text in config_texts(project_config_roots(project), _YAML)}
        project.memo[key] = {name: os.path.relpath(path) for path, text in texts.items() if path.stem in names
                             for chosen in _chosen_files(path, text, texts)
                             for name in named_targets(texts[chosen], chosen.name)}
    return project.memo[key]


def registry_keys(tree: ast.Module) -> dict[str, tuple[str, str | None, int]]:
    """Key -> (class name, dotted target or None, line) of a string registry: a call passing one plain-word key
    and one class target string (`register(idx="ppo", entry_point="pkg.ppo:PPO")`), or a dict literal from
    plain-word keys to classes (`{"ppo": PPO}`)."""
    out: dict[str, tuple[str, str | None, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            strings = [v for v in (*node.args, *(k.value for k in node.keywords)) if _string(v) is not None]
            targets = [m for m in (_REGISTRY_TARGET.match(_string(v)) for v in strings) if m]
            keys = [_string(v) for v in strings if _KEY.match(_string(v))]
            if len(targets) == 1 and len(keys) == 1:
                target = targets[0]
                out.setdefault(keys[0], (target["cls"], f"{target['module']}.{target['cls']}", node.lineno))
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                name = v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", "")
                key = _string(k)
                if key and _KEY.match(key) and name[:1].isupper():
                    out.setdefault(key, (name, None, node.lineno))
    return out


def shell_values(texts) -> dict[str, str]:
    """Value -> `path:line` for the values shell scripts (`(path, text)` pairs) set or pass on lines that are not
    commented out: `ALGO='ppo'`, `--algo ppo`."""
    out: dict[str, str] = {}
    for path, text in texts:
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            values = [m["value"] for m in _SHELL_FLAG.finditer(line)]
            assign = _SHELL_ASSIGN.match(line)
            if assign:
                values.append(assign["value"])
            for value in values:
                out.setdefault(value, f"{os.path.relpath(path)}:{number} ({line.strip()})")
    return out


def _names_class(targets: set[str | None], candidate: Entrypoint, project: Project) -> bool:
    """Do the targets naming a class (None: by its bare name) name the candidate's class?"""
    return _class_named(targets, candidate.module, candidate.qualname.rpartition(".")[0], project)


def _class_named(targets: set[str | None], module: str, cls: str, project: Project) -> bool:
    if None in targets:
        return True
    dotted = f".{module}.{cls}"
    for target in targets:
        found = project.lookup(target)
        if found is not None and getattr(found, "id", None) == f"{module}:{cls}":
            return True
        if found is None and dotted.endswith(f".{target}"):
            return True
    return False


def selected_among(targets: list, project: Project) -> tuple[list, str | None]:
    """Of the project methods one call may run (its receiver's class is bound at run time: `self.agent.act(obs)`
    with the agent from one of several factories), the one whose class the configs select, when exactly one of
    several classes is, or exactly one of those several is selected by a config the code runs (`run_selected`):
    ([that method], where it is selected). Otherwise (targets, None)."""
    unique = list({t.id: t for t in targets}.values())
    classes = {(t.module, t.class_name) for t in unique if t.class_name}
    if len(classes) < 2 or len(classes) != len(unique):
        return targets, None
    selected = _selections(project)
    chosen = [t for t in unique if t.class_name in selected
              and _class_named(selected[t.class_name][1], t.module, t.class_name, project)]
    run = run_selected(project) if len(chosen) > 1 else {}
    if len(chosen) > 1 and sum(t.class_name in run for t in chosen) == 1:   # several configs: the one the code runs
        chosen = [t for t in chosen if t.class_name in run]
        return ([t for t in targets if t.id == chosen[0].id],
                f"{selected[chosen[0].class_name][0]}, chosen by {run[chosen[0].class_name]}, the config the code runs")
    if len(chosen) != 1:
        return targets, None
    return [t for t in targets if t.id == chosen[0].id], selected[chosen[0].class_name][0]


def where_selected(fn, project: Project) -> str | None:
    """Where the configs select the class of method `fn` (None when they do not)."""
    found = _selections(project).get(fn.class_name or "")
    return found[0] if found and _class_named(found[1], fn.module, fn.class_name, project) else None


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def argparse_choices(tree: ast.Module) -> dict[str, str]:
    """Class name -> `line (--flag default 'value')` for classes built under `if args.flag == default:`."""
    defaults = {flag: next(iter(values)) for flag, values in cli_defaults(tree).items()}
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
    one point, with the config file. When the configs select several of them (each example script its own),
    the only one selected among the peers at the best score gets it."""
    selected = _selections(project)
    if not selected:
        return
    peers: dict[str, list[int]] = {}
    for i, candidate in enumerate(ranked):
        if "." in candidate.qualname:
            peers.setdefault(candidate.qualname.rpartition(".")[2], []).append(i)
    for members in peers.values():
        chosen = [i for i in members if ranked[i].qualname.rpartition(".")[0] in selected
                  and _names_class(selected[ranked[i].qualname.rpartition(".")[0]][1], ranked[i], project)]
        if len(chosen) > 1:   # several scripts select several peers: the one among the leading peers, if alone
            best = max(ranked[i].score for i in members)
            chosen = [i for i in chosen if ranked[i].score == best]
        if len(members) >= 2 and len(chosen) == 1:
            old = ranked[chosen[0]]
            where = selected[old.qualname.rpartition(".")[0]][0]
            ranked[chosen[0]] = replace(old, score=old.score + 1, reasons=(
                *old.reasons, f"its class is the one the configs select by default ({where})"))


def chosen_at_run_time(targets: list, project: Project) -> bool:
    """Only abstract targets, or methods of several classes the configs do not narrow to one."""
    if all(is_abstract(t) for t in targets):
        return True
    return len({t.class_name for t in targets}) > 1 and selected_among(targets, project)[1] is None
