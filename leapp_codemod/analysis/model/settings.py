"""Settings an object is built with: constructor arguments stored on `self` that no method rebinds.

A literal set in `__init__` (`self.show = False`) is not one: it is a switch left for a person to flip. A
literal in the class body nothing assigns (`debug: bool = False`) is a class constant, like a module one.

`Normalizer(n, update=False)` stores `self.update = update`; when every construction site in the project
passes a constant (or leaves the default) and nothing assigns `self.update` again, `if self.update:` is
decided before the program runs, like a module-level `RECORD = False`. Keys are "self.<attr>", values the
constants the attribute can hold (`UNKNOWN` when one site passes something else).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.config_values import CONFIG_LOCALS, argument_defaults
from leapp_codemod.analysis.model.fold import CALL_KEY, TABLE_KEY, UNKNOWN, frozen_literal
from leapp_codemod.analysis.model.hydra_configs import matching
from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.analysis.model.resolve_sites import (
    _scopes, argument_for, calls_named, forwarded_sites, param_default, sites_of,
)
from leapp_codemod.analysis.model.runtime_bind import INSTANTIATE, config_chain, hydra_targets
from leapp_codemod.analysis.model.index import called_name
from leapp_codemod.analysis.model.class_state import class_constants
from leapp_codemod.analysis.model.dormant_counters import dormant_counters
from leapp_codemod.analysis.model.attribute_stores import attribute_rebound
from leapp_codemod.knowledge.libraries import SCRIPT_MODULE_LOADERS
from leapp_codemod.knowledge.vocab import DEVICE_DTYPE_MOVES, GRADIENT_CALLS

CONSTRUCTION = frozenset({"__init__", "__post_init__", "setup", "__new__"})


def class_settings(project, cls: ClassInfo, unknown) -> dict[str, set]:
    key = ("class_settings", cls.id)
    found = project.memo.get(key)
    if found is None:
        found = project.memo[key] = _settings(project, cls, unknown)
    return found


def _settings(project, cls: ClassInfo, unknown) -> dict[str, set]:
    out = _literal_settings(project, cls) | _module_checks(project, cls)
    for key, values in dormant_counters(project, cls, lambda attr: attribute_rebound(project, cls, attr)).items():
        out.setdefault(key, values)
    init = project.find_method(cls, "__init__")
    if init is None:
        return out
    forwarded: list = []
    for sub in (s for s in _subclasses(project, cls) if "__init__" in s.methods):
        calls = forwarded_sites(project, sub, init)
        if calls is None:
            return out  # a subclass constructs it through super().__init__(...) in a way not read here
        forwarded += calls
    sites = None
    for klass in project.mro(cls):
        for attr, writes in klass.attr_values.items():
            if f"self.{attr}" in out or any(method not in CONSTRUCTION for method, _ in writes) or len(writes) != 1:
                continue
            if attribute_rebound(project, cls, attr):
                continue
            method, value = writes[0]
            if not (isinstance(value, ast.Name) and value.id in init.params and method == "__init__"
                    and klass.methods.get("__init__") is init):
                continue
            if sites is None:
                sites = [*sites_of(project, cls), *forwarded]
            values = _passed(project, init, value.id, sites, unknown)
            if values:
                out[f"self.{attr}"] = values
    return out


def _module_checks(project, cls: ClassInfo) -> dict[str, set]:
    """`isinstance(self.model, nn.Module)` is True when every value the class stores in `self.model` is
    None or a network (`torch.jit.load(path)`, a project nn.Module): the other branch never runs."""
    out: dict[str, set] = {}
    family = [*project.mro(cls), *_subclasses(project, cls)]
    attrs = {a for k in family for a in k.attr_values}
    for attr in attrs:
        values = [(k, v) for k in family for _, v in k.attr_values.get(attr, ())]
        networks = 0
        for klass, value in values:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            name = project.qualify(value.func, project.modules[klass.module]) if isinstance(value, ast.Call) else None
            built = project.class_of(name) if name else None
            if not name or not (project.external_name(name) in SCRIPT_MODULE_LOADERS
                                or (built is not None and project.is_nn_module(built))):
                break
            networks += 1
        else:
            if networks and not attribute_rebound(project, cls, attr):
                out[f"isinstance:self.{attr}"] = {True}
    return out


def _literal_settings(project, cls: ClassInfo) -> dict[str, set]:
    """`self.use_history = False` (or `4 if self.use_history else 0`) written once, in a method the
    constructors call on self (`self._set_specs()`), and nowhere else in the class, its bases, its
    subclasses or outside: a setting with that one value."""
    out: dict[str, set] = {}
    family = [*project.mro(cls), *_subclasses(project, cls)]
    # the constructor's own literals too (`self.verbose = -1`), unless some method of the family sets
    # attributes by computed names (`setattr(self, k, v)` over a config: the literal is only a default)
    building = _construction(project, cls) - (CONSTRUCTION if _dynamic_attrs(family) else set())
    for klass in project.mro(cls):
        for attr, writes in klass.attr_values.items():
            if len(writes) != 1 or writes[0][0] not in building or f"self.{attr}" in out:
                continue
            if any(attr in k.attr_values for k in family if k is not klass) or attribute_rebound(project, cls, attr):
                continue
            value = _chosen(writes[0][1], out)
            if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) \
                    and isinstance(value.operand, ast.Constant) and type(value.operand.value) is int:
                value = ast.Constant(-value.operand.value)   # `self.verbose = -1`
            if isinstance(value, ast.Constant) and isinstance(value.value, (bool, int)):
                out[f"self.{attr}"] = {value.value}
    return out | class_constants(family, lambda attr: attribute_rebound(project, cls, attr))


def _dynamic_attrs(family) -> bool:
    """Does a method of these classes set attributes of self by computed names (`setattr(self, key, v)`,
    `self.__dict__.update(cfg)`)?"""
    for klass in family:
        for info in klass.methods.values():
            for node in info.nodes:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                        and not (len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
                    return True
                if isinstance(node, ast.Attribute) and node.attr == "__dict__":
                    return True
    return False


def _chosen(value: ast.expr, known: dict[str, set]) -> ast.expr:
    """`a if self.flag else 0` with `self.flag` a known one-valued setting: the branch it selects."""
    while isinstance(value, ast.IfExp) and len(known.get(ast.unparse(value.test), ())) == 1:
        value = value.body if next(iter(known[ast.unparse(value.test)])) else value.orelse
    return value


def _construction(project, cls: ClassInfo) -> set[str]:
    """The constructor's method names plus the methods of the class the constructors (its own and its
    bases') call on self (`self._set_specs()`), one level deep."""
    out = set(CONSTRUCTION)
    inits = [k.methods["__init__"] for k in project.mro(cls) if "__init__" in k.methods]
    for node in (n for init in inits for n in init.nodes):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "self" and project.find_method(cls, node.func.attr) is not None:
            out.add(node.func.attr)
    return out


def _subclasses(project, cls: ClassInfo):
    from leapp_codemod.analysis.model.resolve_types import subclasses
    return subclasses(project, cls)


def _passed(project, init, param: str, sites, unknown) -> set:
    """The constants every construction site passes for `param` (its default where none is given)."""
    if not sites:
        return set()
    default = param_default(init, param)
    values: set = set()
    for site in sites:
        arg = argument_for(init, site.call, param)
        if arg is None:
            if any(isinstance(a, ast.Starred) for a in site.call.args) or any(k.arg is None for k in site.call.keywords):
                return {unknown}
            arg = default
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
            arg = _flag_default(project, site, arg.attr) or arg   # `Walker(rma=args.rma)`: the flag's default
        if isinstance(arg, ast.Constant) and isinstance(arg.value, (bool, str, int, float, type(None))):
            values.add(arg.value)
        else:
            return {unknown}
    return values


def _flag_default(project, site, flag: str) -> ast.Constant | None:
    """The default of `--<flag>` when the site's module declares that command-line flag (`args.rma` where the
    module adds `--rma` with `action="store_true"`: False), as a constant; else None."""
    key = ("argument defaults", site.module.name)
    defaults = project.memo.get(key)
    if defaults is None:
        defaults = project.memo[key] = argument_defaults(site.module.tree)
    return ast.Constant(defaults[flag]) if flag in defaults else None


# ------------------------------------------------------------------ `inputs.get("training", True)` defaults
DICT_KEY = "dict:"    # constants key prefix: "dict:<param>:<key>" -> values the key holds


def dict_read(expr: ast.expr) -> tuple[str, str, ast.expr | None] | None:
    """(parameter, key, default) of `p.get("key", default)` / `p["key"]` on a plain name `p`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and isinstance(expr.func.value, ast.Name) and 1 <= len(expr.args) <= 2 and not expr.keywords \
            and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
        default = expr.args[1] if len(expr.args) == 2 else ast.Constant(value=None)
        return expr.func.value.id, expr.args[0].value, default
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant) \
            and isinstance(expr.slice.value, str):
        return expr.value.id, expr.slice.value, None
    return None


def dict_defaults(project, fn, unknown) -> dict[str, set]:
    """What `p.get("key", default)` can give in `fn`, when every call of `fn` in the project passes a dict
    literal for `p`: the constants the literals hold for the key, or the default where one leaves it out.
    `step({"obs": x, "training": False})` everywhere decides `if inputs.get("training", True):`."""
    out: dict[str, set] = {}
    reads = [(node, read) for node in fn.nodes if isinstance(node, (ast.Call, ast.Subscript))
             for read in [dict_read(node)] if read is not None and read[0] in fn.params]
    if not reads:
        return out
    literals: dict[str, list[ast.Dict] | None] = {}
    for param, key, default in (read for _, read in reads):
        if param not in literals:
            literals[param] = _passed_literals(project, fn, param)
        passed = literals[param]
        if not passed:
            continue
        values: set = set()
        for literal in passed:
            value = _literal_value(literal, key, default, unknown)
            values.add(value)
        if unknown not in values:
            out.setdefault(f"{DICT_KEY}{param}:{key}", set()).update(values)
    stores = [n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    names = set()
    for node in fn.nodes:   # `training = inputs.get("training", True)`, bound once
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            read = dict_read(node.value)
            name = node.targets[0].id
            if read and f"{DICT_KEY}{read[0]}:{read[1]}" in out and stores.count(name) == 1 and name not in fn.params:
                out[name] = set(out[f"{DICT_KEY}{read[0]}:{read[1]}"])
                names.add(name)
    if names:
        out[CONFIG_LOCALS] = names
    return out


def _literal_value(literal: ast.Dict, key: str, default: ast.expr | None, unknown):
    if any(k is None for k in literal.keys):
        return unknown   # `{**base, ...}`
    for k, v in zip(literal.keys, literal.values):
        if isinstance(k, ast.Constant) and k.value == key:
            return v.value if isinstance(v, ast.Constant) else unknown
    if isinstance(default, ast.Constant):
        return default.value
    return unknown


def _passed_literals(project, fn, param: str) -> list[ast.Dict] | None:
    """The dict literals every call of `fn` (matched by name) passes for `param`; None when one passes
    anything else, or no call is found."""
    positional = fn.positional_params[1:] if fn.is_method else fn.positional_params
    out: list[ast.Dict] = []
    for call, scope, _ in calls_named(project).get(fn.name, ()):
        arg = next((a for i, a in enumerate(call.args) if i < len(positional) and positional[i] == param), None)
        arg = arg or next((k.value for k in call.keywords if k.arg == param), None)
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        if isinstance(arg, ast.Name) and len(scope.get(arg.id, ())) == 1:
            arg = scope[arg.id][0]
        if not isinstance(arg, ast.Dict):
            return None
        out.append(arg)
    return out or None


def module_flags(tree: ast.Module, nodes=None) -> dict[str, set]:
    """Module-level settings (`RECORD_FRAMES = False`, `MODE = "eval"`, also under the main guard) that
    every module-level assignment binds to a literal and no function rebinds (`global`): the blocks they
    rule out (`if RECORD_FRAMES:`) never run."""
    values: dict[str, set] = {}
    varying: set[str] = set()
    blocks = [tree.body] + [s.body + s.orelse for s in tree.body if isinstance(s, ast.If)]
    for stmt in (s for block in blocks for s in block):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names = [t for t in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target])
                         if isinstance(t, ast.Name)]
                literal = isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Constant) \
                    and len(names) == 1 and names[0] is target
                for name in names:
                    if literal:
                        values.setdefault(name.id, set()).add(stmt.value.value)
                    else:
                        varying.add(name.id)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.Try)):
            varying |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    nodes = list(ast.walk(tree)) if nodes is None else nodes   # nodes: the tree's, walked already
    rebound = {name for node in nodes if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    flags = {name: vals for name, vals in values.items() if name not in varying | rebound}
    return flags | _module_tables(tree, nodes, rebound) | _constant_helpers(tree, flags) | _class_flags(tree, nodes)


def _class_flags(tree: ast.Module, nodes) -> dict[str, set]:
    """A module-level config class's literal class attributes (`class cfg: motion_play = False`) that no code of
    the module stores (`cfg.motion_play = True`, `setattr`): "Cls.attr" -> {value}, read as `cfg.motion_play`."""
    stored = {(n.value.id, n.attr) for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
              and isinstance(n.value, ast.Name)}
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" for n in nodes):
        return {}
    out: dict[str, set] = {}
    for cls in (s for s in tree.body if isinstance(s, ast.ClassDef)):
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Constant) and (cls.name, stmt.targets[0].id) not in stored:
                out[f"{cls.name}.{stmt.targets[0].id}"] = {stmt.value.value}
    return out


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
                       "sort", "reverse", "add", "discard", "__setitem__"})


def _module_tables(tree: ast.Module, nodes, rebound: set[str]) -> dict[str, set]:
    """Module-level tables (`GAITS = {"TROT": (2, 0, 0.5), ...}`, `SIGNS = (1.0, -1.0)`) of constants, bound
    once and never written (no item store, no mutating method, no `global`): "table:<NAME>" -> {frozen}."""
    bound: dict[str, list] = {}
    for name, stmt in _top_level_bindings(tree):
        simple = isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        bound.setdefault(name, []).append(stmt.value if simple else None)
    tables = {name: frozen_literal(values[0]) for name, values in bound.items()
              if len(values) == 1 and isinstance(values[0], (ast.Dict, ast.Tuple, ast.List)) and name not in rebound}
    tables = {name: value for name, value in tables.items() if value is not UNKNOWN}
    if not tables:
        return {}
    for node in nodes:
        held = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            held = node.value
        elif isinstance(node, ast.Attribute) and node.attr in _MUTATORS:
            held = node.value
        while isinstance(held, ast.Subscript):
            held = held.value
        if isinstance(held, ast.Name):
            tables.pop(held.id, None)
    return {f"{TABLE_KEY}{name}": {value} for name, value in tables.items()}


def _constant_helpers(tree: ast.Module, flags: dict[str, set]) -> dict[str, set]:
    """Module functions without parameters whose body returns a constant or a module setting (`def
    _smoothing_on(): return SMOOTHING`): "call:<f>" -> the values the call gives."""
    defined: dict[str, list] = {}
    for name, stmt in _top_level_bindings(tree):
        defined.setdefault(name, []).append(stmt)
    out: dict[str, set] = {}
    for name, stmts in defined.items():
        fn = stmts[0]
        if len(stmts) != 1 or not isinstance(fn, ast.FunctionDef) or fn.decorator_list or _has_params(fn.args):
            continue
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        value = body[0].value
        if isinstance(value, ast.Constant):
            out[f"{CALL_KEY}{name}"] = {value.value}
        elif isinstance(value, ast.Name) and value.id in flags:
            out[f"{CALL_KEY}{name}"] = set(flags[value.id])
    return out


def _top_level_bindings(tree: ast.Module) -> list[tuple[str, ast.stmt]]:
    """(name, statement) for every name the module's top-level statements bind (definitions, assignment
    targets, imports, and any store inside a compound statement): walked once per module."""
    out: list[tuple[str, ast.stmt]] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((stmt.name, stmt))
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out += [((a.asname or a.name).partition(".")[0], stmt) for a in stmt.names]
            continue
        parts = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else [] if isinstance(stmt, ast.Expr) else [stmt]
        out += [(n.id, stmt) for part in parts for n in ast.walk(part)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return out


def _has_params(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg)


# ------------------------------------------------------------------ what `f(x, **kwargs)` passes
def unpacked_items(fn, expr: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The (key, value) pairs a `**expr` in `fn` can pass, when every key is known: a dict literal with
    constant keys, or a local bound only to such literals and filled only by `name["key"] = value`
    (`kwargs = {}; if bet: kwargs["centers"] = c; actor(x, **kwargs)` passes `centers` at most, never
    `action`). None when anything else could add a key (`kwargs.update(...)`, a parameter, `{**base}`)."""
    if isinstance(expr, (ast.Dict, ast.Call)):
        return literal_items(expr)
    if not isinstance(expr, ast.Name) or expr.id in fn.params or not fn.assigned(expr.id):
        return None
    name, items = expr.id, []
    for node in fn.nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            literal = literal_items(node.value) if len(node.targets) == 1 else None
            if literal is None:
                return None
            items += literal
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.ctx, ast.Store):
            if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                return None
            items.append((node.slice.value, node))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            return None   # `kwargs.update(...)`, `kwargs.setdefault(...)`
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr,
                               ast.comprehension)) \
                and any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                        for n in ast.walk(_bound_target(node))):
            return None   # bound by the statement itself (a loop target, `with ... as`), not in its body
    return items



def _bound_target(node: ast.AST) -> ast.AST:
    """What a binding statement itself binds (a loop's or comprehension's target, `as` of a `with` item)."""
    if isinstance(node, ast.withitem):
        return node.optional_vars or ast.Pass()
    return node.target


def literal_items(literal: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The items of a dict literal with literal keys, or of `dict(k=v, ...)`."""
    if isinstance(literal, ast.Call) and isinstance(literal.func, ast.Name) and literal.func.id == "dict" \
            and not literal.args and all(k.arg for k in literal.keywords):
        return [(k.arg, k.value) for k in literal.keywords]
    if not isinstance(literal, ast.Dict):
        return None
    if any(not (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in literal.keys):
        return None   # `{**base}` or a computed key
    return [(k.value, v) for k, v in zip(literal.keys, literal.values)]


# ------------------------------------------------------------------ entry inputs the deploy calls leave None
INSTANCE_KEEPING = DEVICE_DTYPE_MOVES | {"eval", "requires_grad_", "share_memory"}   # return the module itself


def deploy_none_inputs(project, fn) -> dict[str, set]:
    """Parameters of the entry `fn` that every call outside training code passes as None or leaves at a None
    default (`model(obs, goal, None)` in the evaluation loop; `model(obs, goal, act)` next to
    `loss.backward()` trains and does not count). Such an input is the constant None: the blocks
    `if action_seq is not None:` guards never run. Calls are the entry's name (`agent.act(...)`) or, for
    `forward`/`__call__`, a name bound to an instance of its class (`Model(...)`, a Hydra `instantiate`
    whose `_target_` is the class). No deploy call, or one passing anything else, leaves the parameter alone."""
    cls = project.modules[fn.module].classes.get(fn.class_name or "")
    params = fn.positional_params[1:] if fn.is_method else fn.positional_params
    defaults = _none_defaults(fn)
    passed: dict[str, set] = {}
    sites = 0
    for module in [m for m in list(project.modules.values()) if not project.is_library(m.name)]:
        own = cls is not None and fn.name in ("forward", "__call__")
        instances = _instance_names(project, module, cls) if own else set()
        for nodes in _scopes(module.tree):
            calls = [n for n in nodes if isinstance(n, ast.Call) and _calls_entry(n.func, fn.name, instances)]
            if not calls or any(isinstance(n, ast.Call) and called_name(n.func) in GRADIENT_CALLS for n in nodes):
                continue
            for call in calls:
                if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                    return {}   # `model(*batch)`: what it passes is unknown
                given = {params[i]: a for i, a in enumerate(call.args) if i < len(params)}
                given |= {k.arg: k.value for k in call.keywords if k.arg}
                sites += 1
                for param in params:
                    arg = given.get(param)
                    none = (param in defaults) if arg is None else (isinstance(arg, ast.Constant) and arg.value is None)
                    passed.setdefault(param, set()).add(None if none else "<other>")
    return {p: {None} for p, values in passed.items() if sites and values == {None}}


def _none_defaults(fn) -> set[str]:
    args = fn.node.args
    positional = [*args.posonlyargs, *args.args]
    out = {a.arg for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)
           if isinstance(d, ast.Constant) and d.value is None}
    return out | {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if isinstance(d, ast.Constant) and d.value is None}


def _calls_entry(func: ast.expr, name: str, instances: set[str]) -> bool:
    """`agent.act(...)` by name; `model(...)` / `model.forward(...)` on an instance for `forward`/`__call__`."""
    called = ast.unparse(func.value if isinstance(func, ast.Attribute) and func.attr in ("forward", "__call__")
                         else func)
    if name in ("forward", "__call__"):
        return called in instances
    return called_name(func) == name


def _instance_names(project, module, cls) -> set[str]:
    """Names (`model`, `self.policy`) the module binds to an instance of `cls` or a subclass."""
    out: set[str] = set()
    for node in module.nodes:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        while isinstance(call.func, ast.Attribute) and call.func.attr in INSTANCE_KEEPING \
                and isinstance(call.func.value, ast.Call):   # `instantiate(cfg.model).to(device)`
            call = call.func.value
        name = project.qualify(call.func, module)
        built = project.class_of(name) if name else None
        if built is None and name and project.external_name(name) in INSTANTIATE and call.args:
            chain = config_chain(call.args[0])
            targets = matching(hydra_targets(project), chain) if chain is not None else []
            classes = {t.target: project.class_of(t.target) for t in targets}
            built = next(iter(classes.values())) if len(classes) == 1 else None
        if built is not None and cls in project.mro(built):
            out.add(ast.unparse(node.targets[0]))
    return out
