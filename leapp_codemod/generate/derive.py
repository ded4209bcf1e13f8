"""Patches `generate` can write itself, derived from the application's source:

* a hazardous library call (`np.linalg.norm(...)`, `sigmoid(...)` bound to scipy's expit) with a
  known traceable equivalent is patched where the pipeline looks the name up;
* an application helper with hazards gets a traceable twin (see `twin.py`), or the line that
  blocked it.
"""
from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.analysis.model.leapp_support import GLOBAL_PATCHES
from leapp_codemod.generate import adapters as adapter_index
from leapp_codemod.generate.adapters import class_constructor, torch_adapter
from leapp_codemod.generate.source_info import SourceError, module_file
from leapp_codemod.generate.sources import Sources
from leapp_codemod.generate.twin import Blocked, Twin, build_twin, flags_for
from leapp_codemod.knowledge.vocab import NUMPY_SCALAR_TYPES
from leapp_codemod.model import FileError, Finding, PatchTarget, ScanResult
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import read_source


@dataclass(frozen=True)
class Rewrite:
    source: str                   # the rewritten function definition
    imports: tuple[str, ...]      # import lines it needs in the integration module
    why: str
    helpers: tuple[str, ...] = ()  # twin_* helpers it calls (copied into the module)


def library_targets(scan: ScanResult, finding: Finding, stubs: bool = False) -> list[PatchTarget]:
    """Patch targets for the library calls on the finding's line: every call with a known adapter,
    and, with `stubs`, the call the finding is about when it has none (it gets a raising stub naming
    the line, so that `run` stops before tracing instead of failing inside LEAPP). Calls LEAPP
    patches itself (`np.array`, `torch.from_numpy`, ...) are never patched, nor are NumPy's scalar types
    (`np.float32(x)`): a patch would put a function where the pipeline also uses the type as a dtype; a
    twin converts a traced value instead, and elsewhere the constructor runs as written."""
    found = []
    for call in scan.library_calls:
        if call.path != finding.path or call.line != finding.line or call.target in GLOBAL_PATCHES \
                or numpy_scalar_type(call.target):
            continue
        owner, _, name = call.target.rpartition(".")
        function = f"{owner}:{name}"
        if stubs and class_constructor(function) is not None:
            continue        # the entry's own class binding is diverted to the class adapter by `run`
        if torch_adapter(function) is None and not (stubs and _head_call(finding.message) == call.name):
            continue
        found.append(PatchTarget(call.module, call.name, function))
    return found


def numpy_scalar_type(target: str) -> bool:
    """`numpy.float32` (a dotted library target) is one of NumPy's scalar types."""
    owner, _, name = target.rpartition(".")
    return owner == "numpy" and name in NUMPY_SCALAR_TYPES


def _head_call(message: str) -> str:
    """The function the finding is about: the last name of the dotted call its message quotes first
    (`np.linalg.pinv` in "`np.linalg.pinv(x)` is not mapped ...")."""
    match = re.match(r"`([A-Za-z_][\w.]*)", message)
    return match.group(1).rsplit(".", 1)[-1] if match else ""


def _free_names(fn: ast.FunctionDef) -> set[str]:
    local = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    local |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    loads, stores = set(), set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node is not fn:
            stores.add(node.name)
    return loads - local - stores - set(dir(builtins))


def _top_level_names(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level, also inside top-level `if`/`try` blocks and by
    tuple unpacking (`LOW, HIGH = ...`)."""
    names: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.If):
            todo += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            todo += [*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)]
    return names


def helper_sources(names) -> str:
    """The source of the named twin_* helpers (and of the helpers they call), in file order."""
    text = (Path(__file__).parent / "twin_helpers.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    wanted, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in wanted or name not in defs:
            continue
        wanted.add(name)
        todo += [n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name) and n.id in defs]
    lines = text.splitlines()
    return "\n\n\n".join("\n".join(lines[n.lineno - 1:n.end_lineno]) for n in tree.body
                         if isinstance(n, ast.FunctionDef) and n.name in wanted)


def make_twin(root: Path, function: str, fn_name: str, findings: list[Finding],
              reserved: set[str], sources: Sources | None = None) -> Rewrite | Blocked:
    """A traceable twin of an app helper, or where and why it cannot be written. `sources`: the scan's
    parsed modules (the helper's module is read from its file when not given)."""
    module, _, qualname = function.partition(":")
    first = min((f.line for f in findings), default=0)
    if "." in qualname:
        return Blocked(first, "a method cannot be patched with leapp.FunctionPatch (module-level functions only)")
    sources = sources or Sources(root)
    try:
        path = module_file(root, module)
        index = sources.index(module)
    except SourceError as exc:
        return Blocked(first, str(exc))
    if isinstance(index, FileError):
        return Blocked(first, index.message)
    text = read_source(SourceFile(path.resolve(), path.as_posix(), module, path.name == "__init__.py"))
    if isinstance(text, FileError):
        return Blocked(first, text.message)
    tree = index.tree
    bindings = index.imports
    result = build_twin(text, qualname, fn_name, flags_for(findings), bindings,
                        adapter_index.registry(), function)
    if isinstance(result, Blocked):
        return result
    fn = ast.parse(result.source).body[0]
    free = _free_names(fn)
    helpers_here = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} & free
    if helpers_here:        # looked up through their module at call time, where a FunctionPatch binds them
        source = _through_module(result.source, helpers_here, module)
        result = Twin(source, result.helpers, result.rules)
        fn = ast.parse(source).body[0]
        free = _free_names(fn)
    helpers = set(result.helpers)
    imports = {"import numpy as np"} if "np" in free or helpers else set()
    if helpers_here:
        imports.add(f"import {module}")
        free.discard(module.split(".")[0])
    if ("torch" in free or helpers) and "torch" not in bindings:
        imports.add("import torch")
    if "ADAPTERS" in free:
        imports.add("from leapp_codemod.adapters import ADAPTERS")
    for name in sorted(free - {"np", "ADAPTERS"} - helpers - ({"torch"} if "torch" not in bindings else set())):
        if name in reserved:
            return Blocked(first, f"it uses the name `{name}`, which the integration module defines itself")
        if name in bindings:
            target = bindings[name]
            owner, _, attr = target.rpartition(".")
            dotted_imports = _plain_module_imports(tree, name)
            if dotted_imports:                  # `import a.b` binds `a`; the twin may read `a.b.X`
                imports.update(f"import {m}" for m in dotted_imports)
            elif owner and _is_module_import(tree, name):
                imports.add(f"import {target} as {name}" if name != target else f"import {target}")
            elif owner:
                imports.add(f"from {owner} import {attr}" + (f" as {name}" if name != attr else ""))
            else:
                imports.add(f"import {target}")
        elif name in _top_level_names(tree):
            imports.add(f"from {module} import {name}")
        else:
            return Blocked(first, f"it uses `{name}`, which is not defined at module level in {module}")
    if "np" in bindings and bindings["np"] != "numpy":
        return Blocked(first, "`np` is not numpy in this module")
    return Rewrite(result.source, tuple(sorted(imports)), "; ".join(result.rules), tuple(sorted(helpers)))


def _through_module(source: str, names: set[str], module: str) -> str:
    """`source` with each read of a module-level function in `names` written as `module.name`: the twin
    then calls what the module binds when it runs (another helper's twin while a FunctionPatch or `run`
    binds it there), not the original the integration module would have imported by name."""
    lines = source.splitlines(keepends=True)
    reads = sorted(((n.lineno, n.col_offset, n.id) for n in ast.walk(ast.parse(source))
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names), reverse=True)
    for line, col, name in reads:
        text = lines[line - 1]
        lines[line - 1] = text[:col] + f"{module}.{name}" + text[col + len(name):]
    return "".join(lines)


def _plain_module_imports(tree: ast.Module, name: str) -> list[str]:
    """The dotted modules of `import a.b` statements (no `as`) that bind `name`."""
    return [a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names
            if a.asname is None and a.name.split(".")[0] == name]


def _is_module_import(tree: ast.Module, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
            return True
    return False
