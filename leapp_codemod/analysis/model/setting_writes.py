"""Attributes a class only ever rebinds to settings: re-read configuration, not state.

An array or tensor attribute written after construction starts as pipeline state (`analysis/flow/dataflow.py`,
`seed_class_state`): a step or a callback changes it between calls. One whose every write after construction
is a plain rebinding (`self.gain = np.array(rospy.get_param("~gain"))` in a handler that reloads the gains)
to a value built only from constants, imported functions and attributes the class never changes holds a
setting of the deployment at every call: where a value comes from decides, not its type.

Not such a write: `self.x[i] = v`, `self.x += v`, an in-place method, a value that names a parameter or a
local of the method (`self.hidden = out`), an attribute of self the class changes (`self.x = self.x * 0.9`,
decaying state), a call of a method of self or of an object on self (`self.dev.read()`), or a module-level
object (`port.read()`).
"""
from __future__ import annotations

import ast
import builtins

from leapp_codemod.analysis.model.index import ClassInfo
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS, PARAMETER_READERS

_BUILTINS = frozenset(dir(builtins))


def setting_attrs(cls: ClassInfo, module, construction: set[str], changed: set[str], asked: set[str]) -> set[str]:
    """Those of the attributes `asked` about that `cls` writes outside `construction` only by rebinding them to
    settings. `changed`: attribute names written outside construction anywhere (the class's own and other
    objects')."""
    if not asked:
        return set()
    imported = set(module.imports) if module is not None else set()
    known = imported | _BUILTINS | {name for name, bound in (module.globals.items() if module is not None else ())
                                    if isinstance(bound, (ast.Constant, ast.Tuple, ast.List, ast.Dict))}
    plain: dict[str, bool] = {}
    for info in cls.methods.values():
        if info.name in construction:
            continue
        args = info.node.args.posonlyargs + info.node.args.args
        self_name = args[0].arg if args else None
        local = set(info.params) | {n.id for n in info.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in info.nodes:
            for target in _written(node):
                attr = _root_self_attr(target, self_name)
                if attr is None or attr not in asked:
                    continue
                plain[attr] = plain.get(attr, True) and isinstance(node, ast.Assign) and target in node.targets \
                    and _self_attr(target, self_name) == attr \
                    and _settled(node.value, self_name, local, known, changed)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                attr = _root_self_attr(node.func.value, self_name)
                if attr is not None and (node.func.attr.endswith("_") or node.func.attr in CONTAINER_MUTATORS):
                    plain[attr] = False     # filled in place
    return {attr for attr, ok in plain.items() if ok}


def _written(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return [e for t in node.targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _self_attr(expr: ast.expr, self_name: str | None) -> str | None:
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == self_name:
        return expr.attr
    return None


def _root_self_attr(expr: ast.expr, self_name: str | None) -> str | None:
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        attr = _self_attr(expr, self_name)
        if attr is not None:
            return attr
        expr = expr.value
    return None


def _settled(value: ast.expr, self_name: str | None, local: set[str], known: set[str], changed: set[str]) -> bool:
    """Is `value` built only from constants, imported names and functions (`known`: with the module's constants
    and the builtins), and attributes of self that nothing changes after construction?"""
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id == self_name:
                continue
            if node.id in local or node.id not in known:
                return False
        elif isinstance(node, ast.Attribute):
            attr = _self_attr(node, self_name)
            if attr is not None and attr in changed:
                return False
        elif isinstance(node, ast.Call) and _root_self_attr(node.func, self_name) is not None \
                and not (isinstance(node.func, ast.Attribute) and node.func.attr in PARAMETER_READERS):
            return False     # a method of self or of an object on self may read an input (not a node parameter)
        elif isinstance(node, (ast.Lambda, ast.comprehension)):
            return False
    return True
