"""Setting up entry mode: the entry's function, the class it runs on and which of its parameters are data."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.entry.lookup import EntryNotFound, resolve_entry
from leapp_codemod.analysis.flow.dataflow import passed_by_callers
from leapp_codemod.analysis.model.index import FunctionInfo
from leapp_codemod.analysis.model.project import Project
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
