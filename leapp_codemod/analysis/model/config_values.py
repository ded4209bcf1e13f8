"""Settings the project's own config files give one value: `pose_repr: relative` in every YAML that sets it.

The configs are read as text (YAML lines, TOML and JSON through the standard library), never imported or
run. A key that every config file setting it gives the same string or boolean decides a comparison in the
code that reads it from a config object (`if cfg.pose_repr == "relative":`, `mode = self.config["mode"]`,
`opts.get("mode", "abs")`): the other branch is not the pipeline. A key set to two values anywhere, or not
set in any config, decides nothing.
"""
from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import tomllib

from leapp_codemod.analysis.model.hydra_configs import _LINE, project_config_roots
from leapp_codemod.source.config_files import config_texts

CONFIG_KEY = "config:"            # constants key prefix: "config:<key>" -> values the configs give it
CONFIG_LOCALS = "<config locals>"  # constants key: names bound once from a decided config key
CONFIG_OWNERS = frozenset({"cfg", "config", "conf", "configs", "args", "opt", "opts", "hparams", "params",
                           "settings", "options", "hydra_cfg", "task"})
_CONFIG_HEADS = frozenset({"cfg", "config", "conf", "args"})   # `cfg_dict`, `args_cli`: a config under another name
CONFIG_EXTENSIONS = (".yaml", ".yml", ".toml", ".json")
CONFIG_SKIP_FILES = frozenset({"pyproject.toml", "package.json", "package-lock.json", "tsconfig.json"})


def config_values(project) -> dict[str, frozenset]:
    """Leaf key -> the string/boolean/number values the project's config files give it (memoised per project)."""
    key = ("config_values",)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = read_values(project_config_roots(project))
    return found


def read_values(roots: list[Path]) -> dict[str, frozenset]:
    values: dict[str, set] = {}
    for path, text in config_texts(roots, CONFIG_EXTENSIONS, CONFIG_SKIP_FILES):
        for leaf, value in leaves(text, path.name):
            values.setdefault(leaf, set()).add(value)
    return _freeze(values)


def _freeze(values: dict[str, set]) -> dict[str, frozenset]:
    return {k: frozenset(v) for k, v in values.items()}


def leaves(text: str, name: str) -> list[tuple[str, object]]:
    """(key, value) for every string, boolean or number leaf of one config text."""
    if name.endswith(".json"):
        try:
            return list(_walk(json.loads(text)))
        except (ValueError, RecursionError):
            return []
    if name.endswith(".toml"):
        try:
            return list(_walk(tomllib.loads(text)))
        except (tomllib.TOMLDecodeError, RecursionError):
            return []
    out = []
    for raw in text.splitlines():
        match = _LINE.match(raw)
        if match is None or match["key"].startswith("_"):
            continue
        value = _yaml_scalar(match["value"].strip())
        if value is not None:
            out.append((match["key"], value))
    return out


def _walk(node):
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(v, (str, bool, int, float)):
                    yield str(k), v
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))


def _yaml_scalar(text: str):
    """A YAML scalar that is a plain string, a boolean or a number; None for nulls, mappings, lists, anchors,
    interpolations (`${...}`) and block markers."""
    if not text or text[0] in "[{&*|>!" or "${" in text:
        return None
    if text[0] in "'\"":
        return text[1:-1] if len(text) > 1 and text[-1] == text[0] else None
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "~", "none"):
        return None
    for number in (int, float):
        try:
            return number(text)
        except ValueError:
            continue
    return text


def config_key(expr: ast.expr) -> str | None:
    """The key a config read names: `cfg.mode`, `self.config["mode"]`, `opts.get("mode", ...)`, when an owner
    in the chain is named like a config object (`cfg`, `self.policy_cfg`, `args`)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and expr.args and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
        key, owner = expr.args[0].value, expr.func.value
    elif isinstance(expr, ast.Attribute):
        key, owner = expr.attr, expr.value
    elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        key, owner = expr.slice.value, expr.value
    else:
        return None
    return key if _config_owner(owner) else None


def _config_owner(expr: ast.expr) -> bool:
    while True:
        name = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else None
        if name is not None and (name.lower() in CONFIG_OWNERS or name.lower().endswith(("_cfg", "_config", "_conf"))
                                 or name.lower().partition("_")[0] in _CONFIG_HEADS):
            return True   # `cfg`, `policy_cfg`, `cfg_dict`, `config_map`
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
        else:
            return False


def function_config_constants(project, fn) -> dict[str, set]:
    """The decided config keys `fn` reads ("config:<key>" -> values), and the names it binds once from one
    (`mode = cfg.pose_repr`, or, for an inline range, before the range: `use_history = config.get("use_history")`),
    under their own name, listed under CONFIG_LOCALS."""
    values = config_values(project)
    if not values:
        return {}
    out: dict[str, set] = {}
    stores: dict[str, int] = {}
    bound: dict[str, str] = {}
    for node in fn.nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        key = config_key(node) if isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)) else None
        if key is not None and key in values:
            out[CONFIG_KEY + key] = set(values[key])
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = config_key(node.value)
            if key is not None and key in values:
                bound[node.targets[0].id] = key
    names = {name for name, key in bound.items() if stores.get(name) == 1 and name not in fn.params}
    for name, value in fn.outer_values.items():   # an inline range's input bound before the range from one
        key = config_key(value)
        if key is not None and key in values and not stores.get(name):
            bound[name] = key
            names.add(name)
    for name in names:
        out[name] = set(values[bound[name]])
    if names:
        out[CONFIG_LOCALS] = names
    return out


def decided_block(test: ast.expr, values: dict[str, frozenset] | Callable[[], dict[str, frozenset]]) -> str | None:
    """The block of `if <test>:` that never runs ('body'/'orelse') when the test reads one config key the
    project's configs give one value (`if cfg["use_learned"]:`, `if not cfg.sim:`, `if cfg.mode == "pid":`), or
    compares it with a literal none of them gives; None when anything else decides. `values` may be a function giving them: the configs are then read only
    for a test that names a config key."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    compared = None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) \
            and isinstance(test.comparators[0], ast.Constant):
        compared, negated = test.comparators[0].value, negated ^ isinstance(test.ops[0], ast.NotEq)
        test = test.left
    key = config_key(test)
    if key is None:
        return None
    found = (values() if callable(values) else values).get(key)
    if not found:
        return None
    # every config agrees: one value, or a literal none of the configs gives (`== "endToEnd"` where they say
    # "Game" or "pathFollower": that arm of a selection chain never runs)
    outcomes = {bool(value) if compared is None else value == compared for value in found}
    if len(outcomes) != 1:
        return None
    return "orelse" if outcomes.pop() != negated else "body"


def cli_defaults(tree: ast.Module) -> dict[str, frozenset]:
    """Flag -> {default} for each `parser.add_argument("--policy-type", default="gr00t")` of a module with a
    string default (`args.policy_type` reads it when no flag is given)."""
    return {flag: frozenset({value}) for flag, value in argument_defaults(tree).items() if isinstance(value, str)}


def _optional_positional(call: ast.Call, given: dict[str, ast.expr]) -> str | None:
    """`parser.add_argument("algorithm", nargs="?", default="DDPG")`: a positional a command line may leave out,
    read as `args.algorithm`, holding its default then."""
    nargs = given.get("nargs")
    name = call.args[0] if len(call.args) == 1 else None
    if isinstance(nargs, ast.Constant) and nargs.value == "?" and isinstance(name, ast.Constant) \
            and isinstance(name.value, str) and name.value.isidentifier():
        return name.value
    return None


def argument_defaults(tree: ast.Module) -> dict[str, object]:
    """Flag -> the value `args.<flag>` holds when the flag is not given, for each `parser.add_argument("--x", ...)`
    (or an optional positional, `add_argument("algo", nargs="?", ...)`) of a module with a constant default (a
    non-empty string, a number, a bool, None), or a switch (`action="store_true"`: False; `"store_false"`: True)
    without one."""
    defaults: dict[str, object] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        flag = next((a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     and a.value.startswith("--")), None)
        given = {k.arg: k.value for k in node.keywords if k.arg in ("default", "action", "dest", "nargs")}
        if flag is None:
            flag = _optional_positional(node, given)
        if flag is None:
            continue
        key = flag.lstrip("-").replace("-", "_")
        if isinstance(given.get("dest"), ast.Constant) and isinstance(given["dest"].value, str):
            key = given["dest"].value
        default, action = given.get("default"), given.get("action")
        if isinstance(default, ast.Constant) and default.value != "":
            defaults[key] = default.value
        elif default is None and isinstance(action, ast.Constant) and action.value in ("store_true", "store_false"):
            defaults[key] = action.value == "store_false"
    return defaults


def module_decisions(project, tree: ast.Module) -> dict[str, frozenset]:
    """The values that decide a module's tests: the project's config files, and the module's own command-line
    defaults (a key both give takes the values of both); kept per module. A switch (`--run_hdw`,
    `action="store_true"`) decides nothing here: it often selects the real robot, and the code it guards is
    still the project's deploy code."""
    key = ("module decisions", id(tree))
    found = project.memo.get(key)
    if found is None:
        found = dict(config_values(project))
        for flag, defaults in cli_defaults(tree).items():
            found[flag] = found.get(flag, frozenset()) | defaults
        project.memo[key] = (tree, found)   # the tree is held so that its id is never another's
        return found
    return found[1]


def ruled_out_statements(scope: ast.AST, values: dict[str, frozenset] | Callable[[], dict[str, frozenset]]
                         ) -> frozenset[int]:
    """Ids of the statements under `scope` inside a block `decided_block` says never runs (the other arms of
    `if args.policy_type == "gr00t": ... elif args.policy_type == "openpi": ...` under the default "gr00t")."""
    out: set[int] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.If) and id(node) not in out:
            dead = decided_block(node.test, values)
            if dead is not None:
                out |= {id(n) for stmt in getattr(node, dead) for n in ast.walk(stmt)}
    return frozenset(out)


def ruled_out_in(project, module, scope: ast.AST) -> frozenset[int]:
    """`ruled_out_statements` of a scope of `module` under `module_decisions` (kept per scope)."""
    key = ("ruled out", module.name, id(scope))
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = ruled_out_statements(   # the configs are read only for a test naming a key
            scope, lambda: module_decisions(project, module.tree))
    return found
