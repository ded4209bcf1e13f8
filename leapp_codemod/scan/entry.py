"""Setting up entry mode: the entry's function, the class it runs on and which of its parameters are data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.loops import is_model_name
from leapp_codemod.analysis.entry.lookup import EntryNotFound, resolve_entry
from leapp_codemod.analysis.flow.params import passed_by_callers
from leapp_codemod.analysis.model.command_line import parameter_read
from leapp_codemod.analysis.model.class_state import attribute_sources, clock_attr
from leapp_codemod.analysis.model.function_values import enclosing_scopes
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.local_values import assignments
from leapp_codemod.analysis.model.project import Project
from leapp_codemod.analysis.model.walk import is_self_attr, self_name_of
from leapp_codemod.model import Entrypoint
from leapp_codemod.scan.options import ScanError


def find_function(project: Project, entry: str) -> tuple[FunctionInfo, str]:
    """The entry's function and its canonical `module:qualname`."""
    try:
        return resolve_entry(project, entry)
    except EntryNotFound as exc:
        raise ScanError(str(exc)) from None


def optional_inputs(project: Project, fn: FunctionInfo) -> set[str]:
    """`hidden=None` parameters of the entry that the driver fills with a value: optional inputs."""
    args = fn.node.args
    nones = {a.arg for a, d in zip([*args.posonlyargs, *args.args][::-1], args.defaults[::-1])
             if isinstance(d, ast.Constant) and d.value is None}
    nones |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    return nones & passed_by_callers(project, fn) if nones else set()


def closure_inputs(project: Project, fn: FunctionInfo) -> set[str]:
    """For a closure entry (`main.<locals>.policy_step`): the names it reads that the function around it binds
    to values, the way an inline range reads its inputs (the simulator's data, the last action it keeps
    `nonlocal`), not the numbers, functions, classes and modules bound there."""
    if ".<locals>." not in fn.qualname:
        return set()
    scopes = enclosing_scopes(project, project.modules[fn.module], fn)
    nonlocal_names = {n for node in fn.nodes if isinstance(node, ast.Nonlocal) for n in node.names}
    local = {n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - nonlocal_names
    read = {n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    out = set()
    for name in read - local - set(fn.params):
        values = [v for scope in scopes for v, how in assignments(project, scope).get(name, ()) if how == "value"]
        if values and not all(isinstance(v, ast.Constant) or isinstance(v, ast.Lambda) for v in values):
            out.add(name)
    return out


def entry_class(project: Project, fn: FunctionInfo, given: str | None):
    """The class the entry runs on: the one the user named (`Sub.forward` where `forward` is inherited),
    else the method's own."""
    module = project.modules[fn.module]
    own = module.classes.get(fn.class_name or "")
    qualname = (given or "").partition(":")[2]
    named = module.classes.get(qualname.rpartition(".")[0]) if "." in qualname else None
    if named is not None and own is not None and own in project.mro(named):
        return named
    return own


def annotated_data(fn: FunctionInfo) -> set[str]:
    """Entry parameters annotated as tensors/arrays are data even when named like a config."""
    out = set()
    for arg in (*fn.node.args.posonlyargs, *fn.node.args.args, *fn.node.args.kwonlyargs):
        if arg.annotation is not None and any(t in ast.unparse(arg.annotation) for t in ("Tensor", "ndarray")):
            out.add(arg.arg)
    return out


def as_entrypoint(fn: FunctionInfo, canonical: str | None = None):
    module, _, qualname = (canonical or fn.id).partition(":")
    return Entrypoint(module, qualname, fn.path, fn.node.lineno, 0, ("given with --entry",))


def reader_attrs(project: Project, fn: FunctionInfo) -> set[str]:
    """For a method entry that takes no data: the objects on self it reads its inputs from. A method of an
    object the scan cannot follow (a device, a simulator, a sensor bridge) whose result the step uses
    (`q = self.robot.read_joints()`) hands the step its inputs; the model (`self.policy.predict(...)`, any
    attribute named like a model), project objects and a clock (the host's time: `self.clock.now()`) are not
    readers."""
    cls = project.modules[fn.module].classes.get(fn.class_name or "")
    self_name = self_name_of(fn)
    if cls is None or self_name is None:
        return set()
    statements = {id(n.value) for n in fn.nodes if isinstance(n, ast.Expr)}
    sources = attribute_sources(project, cls)
    out = set()
    for node in fn.nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and is_self_attr(node.func.value, self_name)) or id(node) in statements:
            continue   # a bare `self.pub.publish(x)` writes; a reader's result is used
        attr = node.func.value.attr
        if is_model_name(attr) or attr in cls.methods or _project_object(project, cls, attr) \
                or _parameter_attr(project, cls, attr) or clock_attr(project.mro(cls), attr) \
                or not sources.reads(attr, node.func.attr):   # `self.limits.min()`: an array the class builds
            continue
        out.add(attr)
    return out


def _parameter_attr(project: Project, cls, attr: str) -> bool:
    """Is `self.<attr>` only ever a node parameter or a constant (`self.id = g("id").value`)? A method called
    on it (`self.id.startswith("left")`) asks about a setting, it reads no input."""
    writes = [(klass, method, value) for klass in project.mro(cls) for method, value in klass.attr_values.get(attr, ())]
    return bool(writes) and all(isinstance(value, ast.Constant) or parameter_read(value, klass.methods.get(method))
                                for klass, method, value in writes)


def _project_object(project: Project, cls, attr: str) -> bool:
    """Is `self.<attr>` built from a project class (followed as code, not read as input)?"""
    module = project.modules[cls.module]
    for klass in project.mro(cls):
        for _, value in klass.attr_values.get(attr, ()):
            if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
                name = project.qualify(value.func, module)
                if name and project.class_of(name) is not None:
                    return True
    return False

