"""Values a program reads from its command line or environment: settings chosen before it runs.

`args = parser.parse_args()` in a script, `run(args)` then `step(obs, args.use_filter)`: the flag is a
setting of the run, never pipeline data, whatever it is combined with (`args.debug and k % 10 == 0`).
The namespace is followed into the functions it is handed to (`def run(args)`, when every call passes one).
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import called_name
from leapp_codemod.knowledge.vocab import COMMAND_LINE_CALLS, COMMAND_LINE_PARSERS, COMMAND_LINE_VALUES, PARAMETER_READERS

_MAX_HOPS = 2   # `main` parses, `run(args)` receives, `loop(args)` receives: deeper is not followed
_CAST_BUILTINS = frozenset({"int", "float", "bool", "str", "len", "abs", "min", "max", "round"})


def command_line_names(project, module, scope: ast.AST, hops: int = 0) -> set[str]:
    """Names in `scope` (a function or a module's top-level statements) that hold command-line settings:
    bound from a parser's `parse_args()`, the environment, `sys.argv`, or an expression of such names; and
    the scope's parameters every call in the project passes one to."""
    key = ("command_line_names", module.name, id(scope))
    known = project.memo.get(key)
    if known is not None:
        return known
    project.memo[key] = set()   # a recursive call chain is not proven by itself
    names = _passed_namespaces(project, scope, hops) if hops < _MAX_HOPS else set()
    binds = [n for n in ast.walk(scope) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None]
    stored = {}
    for node in binds:
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
            for name in _bound_names(target):   # `args.steps = max(...)` adjusts a setting, binds no name
                stored.setdefault(name, []).append(node.value)
    changed = True
    while changed:   # `args = parser.parse_args()`, then `debug = args.debug`: both settings
        changed = False
        for name, values in stored.items():
            if name not in names and all(_reads_command_line(v, project, module) or
                                         is_setting_expr(v, project, module, names) for v in values):
                names.add(name)
                changed = True
    project.memo[key] = names
    return names


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound_names(e)]
    return []


def is_setting_expr(e: ast.expr, project, module, names: set[str], ints: frozenset = frozenset()) -> bool:
    """`args.gain`, `args.debug and step % args.every == 0`, `int(os.environ["N"])`, `sys.argv[1]`: an
    expression whose every leaf is a constant, a command-line setting or a Python int counter (`ints`), with
    at least one command-line setting among them."""
    found = [False]

    def ok(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            found[0] |= node.id in names
            return node.id in names or node.id in ints
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and f"self.{node.attr}" in ints:
                return True
            if _reads_command_line(node, project, module):
                found[0] = True
                return True
            return ok(node.value)
        if isinstance(node, ast.Subscript):
            if _reads_command_line(node, project, module):
                found[0] = True
                return True
            return ok(node.value) and ok(node.slice)
        if isinstance(node, ast.Call):
            if _reads_command_line(node, project, module):
                found[0] = True
                return True
            if isinstance(node.func, ast.Name) and node.func.id in _CAST_BUILTINS and not node.keywords:
                return all(ok(a) for a in node.args)
            return False
        if isinstance(node, ast.BoolOp):
            return all(ok(v) for v in node.values)
        if isinstance(node, ast.BinOp):
            return ok(node.left) and ok(node.right)
        if isinstance(node, ast.UnaryOp):
            return ok(node.operand)
        if isinstance(node, ast.Compare):
            return ok(node.left) and all(ok(c) for c in node.comparators)
        if isinstance(node, ast.IfExp):
            return ok(node.test) and ok(node.body) and ok(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(ok(x) for x in node.elts)
        return False

    return ok(e) and found[0]


def _reads_command_line(e: ast.expr, project, module) -> bool:
    """`parser.parse_args()`, `parser.parse_known_args()[0]`, `os.getenv("X")`, `os.environ["X"]`,
    `sys.argv[1]`, `tyro.cli(Config)`."""
    if isinstance(e, ast.Subscript):
        return _reads_command_line(e.value, project, module)
    if isinstance(e, ast.Call):
        if isinstance(e.func, ast.Attribute) and e.func.attr in COMMAND_LINE_PARSERS:
            return True
        name = project.qualify(e.func, module) if isinstance(e.func, (ast.Name, ast.Attribute)) else None
        return name is not None and project.external_name(name) in COMMAND_LINE_CALLS
    if isinstance(e, (ast.Attribute, ast.Name)):
        name = project.qualify(e, module)
        return name is not None and project.external_name(name) in COMMAND_LINE_VALUES
    return False


def _passed_namespaces(project, scope: ast.AST, hops: int) -> set[str]:
    """Parameters of the function `scope` that every call of it in the project passes a command-line
    namespace or setting (`run_rollout(args)` after `args = parser.parse_args()`)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    params = [a.arg for a in (*scope.args.posonlyargs, *scope.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    if not params:
        return set()
    passed: dict[str, bool] = {}
    for module, caller, calls in calls_by_name(project).get(scope.name, ()):
        if caller is scope:
            continue
        names = command_line_names(project, module, caller, hops + 1)
        for call in calls:
            pairs = [*zip(params, call.args), *((k.arg, k.value) for k in call.keywords if k.arg in params)]
            for param, arg in pairs:
                ok = isinstance(arg, ast.Name) and arg.id in names or is_setting_expr(arg, project, module, names)
                passed[param] = passed.get(param, True) and ok
    return {p for p, ok in passed.items() if ok}


def calls_by_name(project) -> dict[str, list[tuple]]:
    """name -> [(module, scope, calls)]: the calls of the application's scopes (functions, module top level),
    grouped by the last name they call (`run` for `run(args)` and `self.run(args)`), walked once per project."""
    key = ("calls_by_name", project.own_module_count())
    found = project.memo.get(key)
    if found is None:
        found = {}
        for module in list(project.modules.values()):
            if project.is_library(module.name):
                continue
            for scope in module_scopes(project, module):
                grouped: dict[str, list[ast.Call]] = {}
                for node in ast.walk(scope):
                    if isinstance(node, ast.Call):
                        name = called_name(node.func)
                        if name is not None:
                            grouped.setdefault(name, []).append(node)
                for name, calls in grouped.items():
                    found.setdefault(name, []).append((module, scope, calls))
        project.memo[key] = found
    return found


def module_scopes(project, module) -> list[ast.AST]:
    """The module's functions (each its own scope for loop counters) and its top-level statements, as one
    `ast.Module` built once per module (the same object on every call: answers are memoized by scope)."""
    key = ("module_scopes", module.name)
    found = project.memo.get(key)
    if found is None:
        top = ast.Module(body=[s for s in module.tree.body
                               if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))],
                         type_ignores=[])
        found = project.memo[key] = [*(f.node for f in module.functions.values()), top]
    return found


def parameter_read(value: ast.expr, fn) -> bool:
    """`self.get_parameter("id").value`, `rospy.get_param("~rate", 30)`, `g("id").value` after `g =
    self.get_parameter` in `fn`: a node parameter read, a setting of the deployment."""
    while isinstance(value, (ast.Attribute, ast.Subscript)) and not isinstance(value, ast.Call):
        value = value.value
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute):
        return func.attr in PARAMETER_READERS
    if isinstance(func, ast.Name) and fn is not None:
        bound = fn.assigned(func.id)
        return len(bound) == 1 and isinstance(bound[0], ast.Attribute) and bound[0].attr in PARAMETER_READERS
    return False
