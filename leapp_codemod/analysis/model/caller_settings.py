"""Entry parameters the callers pass as settings: `agent.act(obs, step, eval_mode=True)` in every driver makes
`eval_mode` a constant of the export and `step` a Python int, never tensor data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.config_values import config_key
from leapp_codemod.analysis.model.command_line import calls_by_name, command_line_names, is_setting_expr
from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.analysis.model.resolve_sites import param_default
from leapp_codemod.knowledge.io import STATIC_MODEL_CONSTRUCTORS
from leapp_codemod.knowledge.vocab import TRAINING_FLAG_PARAMS
from leapp_codemod.source.chains import counter_kind


PYTHON_INT = ("<a Python int>",)   # a loop counter or an `int(...)`: a setting whose value changes, never data
COMMAND_LINE = ("<a command-line setting>",)   # `args.use_filter`: chosen when the program starts, never data
STATIC_MODEL = ("<a static simulator model>",)   # `mujoco.MjModel.from_xml_path(...)`: loaded once, never data
CONFIG_READ = ("<a config value>",)   # `cfg.get("image_keys", [...])`: read from the run's config, never data
VARYING = frozenset({PYTHON_INT, COMMAND_LINE, STATIC_MODEL, CONFIG_READ})   # settings whose value the scan does not know


def caller_settings(project, fn) -> dict[str, set]:
    """Parameters of the entry `fn` that every call in the project passes as a Python constant, bool or int
    (`agent.act(obs, step, eval_mode=True)` in a `for step in range(n)` loop), with the values passed
    (`PYTHON_INT` for an int whose value varies). Such a parameter is a setting, not tensor data, whatever
    its annotation says. Calls are matched by the function's name; one passing too few arguments, or only
    settings, is another function's. A call that leaves a parameter out passes its default: one driver
    calling `agent.act(obs)` keeps `eval_mode=False` among the values even if every other call passes
    True. One call passing anything else (or leaving out a parameter whose default is computed), or none
    at all, leaves the parameter alone."""
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    args = fn.node.args
    required = set(params[:len(params) - len(args.defaults)]) | {
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None}
    optional = [*params[len(params) - len(args.defaults):], *(a.arg for a in args.kwonlyargs)]
    values: dict[str, set] = {}
    spoiled: set[str] = set()
    for module, scope, calls in _entry_calls(project, fn):
        ints = _int_names(scope) | _forwarded_settings(scope)
        owners = {id(method.node): method.class_name for method in module.functions.values()}
        owner = module.classes.get(owners.get(id(scope)) or "")
        ints |= {f"self.{a}" for a in (_int_attrs(owner) if owner is not None else ())}
        cli = command_line_names(project, module, scope)
        for node in calls:
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                spoiled.update(params)
                continue
            passed = [(params[i], a) for i, a in enumerate(node.args) if i < len(params)]
            passed += [(k.arg, k.value) for k in node.keywords if k.arg]
            found = [(param, _setting_or_flag(arg, ints, project, module, cli, scope)) for param, arg in passed]
            if not required <= {p for p, _ in passed} or all(v is not None for _, v in found):
                continue   # another function of the same name (`env.step(0)`), not a call of the entry
            given = {p for p, _ in passed}   # a parameter left out receives its default
            found += [(param, _default_setting(fn, param)) for param in optional if param not in given]
            for param, value in found:
                if value is None:
                    spoiled.add(param)
                else:
                    values.setdefault(param, set()).add(None if value is NONE_DEFAULT else value)
    return {p: v for p, v in values.items() if p not in spoiled}


NONE_DEFAULT = ("<a None default>",)


def _entry_calls(project, fn) -> list[tuple]:
    """(module, scope, calls) for every scope of the project that calls a function named like `fn`."""
    return calls_by_name(project).get(fn.name, [])


def _setting_or_flag(arg: ast.expr, ints: set[str], project, module, cli: set[str], scope: ast.AST):
    value = _setting_value(arg, ints)
    if value is None and _static_model(arg, project, module, scope):
        return STATIC_MODEL
    if value is None and config_read(arg, scope, project):
        return CONFIG_READ
    return value if value is not None else _command_line_value(arg, project, module, cli, ints)


def _static_model(arg: ast.expr, project, module, scope: ast.AST) -> bool:
    """A name the calling scope binds once, to a simulator model loaded from a file (`model =
    mujoco.MjModel.from_xml_path(path)`): the same sizes and addresses on every call."""
    if not isinstance(arg, ast.Name):
        return False
    bound = [n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)]
    if len(bound) != 1 or not isinstance(bound[0], ast.Call):
        return False
    name = project.qualify(bound[0].func, module) if isinstance(bound[0].func, (ast.Name, ast.Attribute)) else None
    return name is not None and project.external_name(name) in STATIC_MODEL_CONSTRUCTORS


def config_read(arg: ast.expr, scope: ast.AST, project) -> bool:
    """An item of a config object (`dataset_cfg.get("image_keys", [...])`, `cfg.cameras`), or a name the calling
    scope binds only to such items (`=` alone: no loop target, no `+=`, nothing appended)."""
    if config_key(arg) is not None:
        return True
    return isinstance(arg, ast.Name) and arg.id in _config_names(scope, project)


def _config_names(scope: ast.AST, project) -> set[str]:
    """The names `scope` binds only by `=` to config items and never fills (walked once per scope)."""
    key = ("config_names", id(scope))
    found = project.memo.get(key)
    if found is not None:
        return found
    values: dict[str, list] = {}
    stores: dict[str, int] = {}
    filled: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            filled.add(node.func.value.id)   # `keys.append(...)`: filled by the scope
    found = project.memo[key] = {name for name, bound in values.items() if name not in filled
                                 and stores.get(name) == len(bound) and all(config_key(v) is not None for v in bound)}
    return found


def _command_line_value(arg: ast.expr, project, module, cli: set[str], ints: set[str]):
    """`COMMAND_LINE` for an argument built from command-line settings (`args.hold`, `args.debug and k % 5 ==
    0`), else None. A bare namespace (`run(args)`) is a setting too."""
    if isinstance(arg, ast.Name) and arg.id in cli:
        return COMMAND_LINE
    return COMMAND_LINE if is_setting_expr(arg, project, module, cli, frozenset(ints)) else None


def setting_items(project, fn) -> dict[str, set[str]]:
    """Keys of a dict parameter of the entry `fn` that hold settings: every call passes a name bound once, in
    the calling scope, to a dict literal, and the items under the key are constants or command-line settings
    (`buffers = {"prev": np.zeros(3), "hold": args.hold}`) in every literal that has the key; neither a caller
    nor `fn` writes the key again. `buffers["hold"]` is then a setting even though `buffers` also carries the
    step's state."""
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    written = _written_keys(fn.node)
    settings: dict[str, set] = {}
    other: dict[str, set] = {}
    for module, scope, calls in _entry_calls(project, fn):
        cli = command_line_names(project, module, scope)
        ints = frozenset(_int_names(scope))
        rewritten = _written_keys(scope)
        for node in calls:
            for param, arg in zip(params, node.args):
                bound = [n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
                         and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)] \
                    if isinstance(arg, ast.Name) else []
                if len(bound) != 1 or not isinstance(bound[0], ast.Dict):
                    other.setdefault(param, set()).add(_ANY_KEY)   # a dict the scan cannot read
                    continue
                for key, value in zip(bound[0].keys, bound[0].values):
                    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                        other.setdefault(param, set()).add(_ANY_KEY)
                    elif isinstance(value, ast.Constant) or _setting_value(value, set(ints)) is not None \
                            or is_setting_expr(value, project, module, cli, ints):
                        settings.setdefault(param, set()).add(key.value)
                    else:
                        other.setdefault(param, set()).add(key.value)
                other.setdefault(param, set()).update(rewritten.get(arg.id, set()) | written.get(param, set()))
    return {param: keys - other.get(param, set()) for param, keys in settings.items()
            if _ANY_KEY not in other.get(param, set()) and keys - other.get(param, set())}


def _written_keys(scope: ast.AST) -> dict[str, set]:
    """name -> constant keys `name["key"] = ...` (or `+=`) writes in `scope`; `_ANY_KEY` among them when a
    key is computed or `name.update(...)` is called (any key may be written)."""
    out: dict[str, set] = {}
    for node in ast.walk(scope):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                    key = sub.slice.value if isinstance(sub.slice, ast.Constant) else _ANY_KEY
                    out.setdefault(sub.value.id, set()).add(key)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                and isinstance(node.func.value, ast.Name):
            out.setdefault(node.func.value.id, set()).add(_ANY_KEY)
    return out


_ANY_KEY = ("<a computed key>",)




def training_switches(fn) -> dict[str, set]:
    """Parameters of the entry `fn` that switch training mode (`training`, `is_training`): False in the
    export, whatever a training loop's call passes (`agent(obs, training=True)` while collecting data), so
    the training arms (exploration, sampling, updates) are not the pipeline."""
    params = [*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs]
    return {a.arg: {False} for a in params if a.arg in TRAINING_FLAG_PARAMS}


def _default_setting(fn, param: str):
    """What a call that leaves `param` out passes: its literal default (`NONE_DEFAULT` for None), or None
    (not a setting) for a computed default or none at all."""
    default = param_default(fn, param)
    if isinstance(default, ast.Constant) and default.value is None:
        return NONE_DEFAULT
    return _setting_value(default, set()) if default is not None else None


def _int_attrs(cls: ClassInfo) -> set[str]:
    """Attributes of the class that only ever hold Python ints (`self._step = 0`, `self._step += 1`), and
    read-only properties that return one (`@property def global_step(self): return self._step`): a step
    counter the driver passes, never tensor data."""
    ints, other = set(), set()
    for fn in cls.methods.values():
        for node in ast.walk(fn.node):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                is_int = isinstance(node.value, ast.Constant) and type(node.value.value) is int
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        (ints if is_int else other).add(target.attr)
    ints -= other
    for name, fn in cls.methods.items():
        body = [s for s in fn.node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.node.decorator_list) and len(body) == 1 \
                and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Attribute) \
                and isinstance(body[0].value.value, ast.Name) and body[0].value.value.id == "self" \
                and body[0].value.attr in ints:
            ints.add(name)
    return ints


def _setting_value(arg: ast.expr, ints: set[str]):
    if isinstance(arg, ast.Constant) and isinstance(arg.value, (bool, int, float, str)):
        return arg.value
    if isinstance(arg, (ast.Dict, ast.List, ast.Tuple)) and not (arg.keys if isinstance(arg, ast.Dict) else arg.elts):
        return ()   # `extra_args={}`: an empty container (falsy), never data
    if isinstance(arg, ast.Name) and arg.id in ints:
        return PYTHON_INT
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self" \
            and f"self.{arg.attr}" in ints:
        return PYTHON_INT
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in ("int", "len"):
        return PYTHON_INT
    return None


def _forwarded_settings(scope: ast.AST) -> set[str]:
    """Parameters of the calling function with a literal default (`new_sampler_type=None`, `steps=10`) that
    it never rebinds and hands on: settings of its own caller (counted like a varying int: never data)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = scope.args
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
             *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
    stored = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and not isinstance(d.value, bytes)
            and a.arg not in stored}


def _int_names(scope: ast.AST) -> set[str]:
    """Names that only ever hold Python ints (or None) in `scope`: `for i in range(...)`, the index of
    `enumerate`, `n = 0` ... `n += 1`, `i = None` where a run has no index."""
    ints: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, (ast.For, ast.comprehension)):
            name = counter_kind(node.iter)
            target = node.target
            if name == "range" and isinstance(target, ast.Name):
                ints.add(target.id)
                continue
            if name == "enumerate" and isinstance(target, ast.Tuple) and isinstance(target.elts[0], ast.Name):
                ints.add(target.elts[0].id)
                other.update(n.id for e in target.elts[1:] for n in ast.walk(e) if isinstance(n, ast.Name))
                continue
            other.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            # `task_idx = None` where the run has one task: None or an int, a setting either way
            is_int = isinstance(node.value, ast.Constant) and (type(node.value.value) is int or node.value.value is None)
            (ints if is_int else other).update(names)
            other.update(n.id for t in node.targets if not isinstance(t, ast.Name)
                         for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if not (isinstance(node.value, ast.Constant) and type(node.value.value) is int):
                other.add(node.target.id)
        elif isinstance(node, (ast.arguments,)):
            other.update(a.arg for a in (*node.posonlyargs, *node.args, *node.kwonlyargs))
    return ints - other
