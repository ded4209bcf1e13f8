"""Patches `generate` can write itself, derived from the application's source:

* a hazardous library call (`np.linalg.norm(...)`, `sigmoid(...)` bound to scipy's expit) with a
  known traceable equivalent is patched where the pipeline looks the name up;
* an application helper whose only hazards are negative-stride views, `astype` to an unsigned
  dtype LEAPP lacks, or a value-dependent choice between two returned expressions is copied with
  those rewritten (`a[::-1]` -> `np.flip(a, 0)`, `.astype(np.uint16)` -> `.astype(np.int32)`,
  `if c: return a` / `return b` -> `return torch.where(c, a, b)`).
"""
from __future__ import annotations

import ast
import builtins
import copy
import textwrap
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.generate.adapters import known_adapter, torch_adapter
from leapp_codemod.generate.source_info import SourceError, module_file
from leapp_codemod.analysis.index import build_index
from leapp_codemod.model import FileError, Finding, PatchTarget, ScanResult
from leapp_codemod.source.files import SourceFile
from leapp_codemod.source.parse import parse_file

_UNSIGNED = {"uint16": "int32", "uint32": "int64", "uint64": "int64"}


@dataclass(frozen=True)
class Rewrite:
    source: str                   # the rewritten function definition
    imports: tuple[str, ...]      # import lines it needs in the integration module
    why: str


def library_targets(scan: ScanResult, finding: Finding) -> list[PatchTarget]:
    """Patch targets with a known adapter for the library calls on the finding's line."""
    found = []
    for call in scan.library_calls:
        if call.path != finding.path or call.line != finding.line:
            continue
        owner, _, name = call.target.rpartition(".")
        function = f"{owner}:{name}"
        if known_adapter(function) is None and torch_adapter(function) is None:
            continue
        found.append(PatchTarget(call.module, call.name, function))
    return found


# --------------------------------------------------------------------------------- rewrites
class _Rewriter(ast.NodeTransformer):
    def __init__(self):
        self.changed = 0
        self.failed = ""

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(_is_reverse(i) for i in items):
            return node
        if any(isinstance(i, ast.Slice) and i.step is not None and not _is_reverse(i) for i in items):
            self.failed = "a slice mixes a negative step with other steps"
            return node
        axes = _reverse_axes(items)
        if axes is None:
            self.failed = "an index expression is too complex to rewrite"
            return node
        kept = [ast.Slice() if _is_reverse(i) else i for i in items]
        base = node.value
        if not all(isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None
                   or isinstance(i, ast.Constant) and i.value is Ellipsis for i in kept):
            base = ast.Subscript(value=node.value, ctx=ast.Load(),
                                 slice=ast.Tuple(elts=kept, ctx=ast.Load()) if len(kept) > 1 else kept[0])
        self.changed += 1
        if len(axes) == 1:
            axis = ast.Constant(axes[0])
        else:
            axis = ast.Tuple(elts=[ast.Constant(a) for a in axes], ctx=ast.Load())
        return ast.Call(func=_np("flip"), args=[base], keywords=[ast.keyword("axis", axis)])

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
            target = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "dtype"), None)
            name = _dtype_name(target)
            if name in _UNSIGNED:
                self.changed += 1
                return ast.Call(func=node.func, args=[_np(_UNSIGNED[name])],
                                keywords=[k for k in node.keywords if k.arg != "dtype"])
        return node


def _np(attr: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name("np", ast.Load()), attr=attr, ctx=ast.Load())


def _dtype_name(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_reverse(item) -> bool:
    return (isinstance(item, ast.Slice) and item.lower is None and item.upper is None
            and isinstance(item.step, ast.UnaryOp) and isinstance(item.step.op, ast.USub)
            and isinstance(item.step.operand, ast.Constant) and item.step.operand.value == 1)


def _reverse_axes(items) -> list[int] | None:
    """Axes of the reversed slices in the result of the (step-free) subscript."""
    def dims(i):
        if isinstance(i, ast.Slice):
            return 1
        if isinstance(i, ast.Constant) and i.value is None:
            return 1
        if isinstance(i, ast.Constant) and isinstance(i.value, int):
            return 0
        if isinstance(i, (ast.Name, ast.UnaryOp, ast.BinOp)):
            return 0  # assumed an integer index
        return None

    ell = next((k for k, i in enumerate(items) if isinstance(i, ast.Constant) and i.value is Ellipsis), None)
    axes = []
    before = items if ell is None else items[:ell]
    pos = 0
    for i in before:
        d = dims(i)
        if d is None:
            return None
        if _is_reverse(i):
            axes.append(pos)
        pos += d
    if ell is not None:
        after = items[ell + 1:]
        remaining = [dims(i) for i in after]
        if any(d is None for d in remaining):
            return None
        for k, i in enumerate(after):
            if _is_reverse(i):
                axes.append(-sum(remaining[k:]))
    return axes


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
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _returns_where(stmts: list[ast.stmt], lines: set[int]) -> ast.expr | None:
    """The value of `stmts` (a chain of `if c: return a` ending in `return b`) as nested where()
    calls; None when the statements do anything else. Branch lines found are added to `lines`."""
    if not stmts:
        return None
    head, rest = stmts[0], stmts[1:]
    if isinstance(head, ast.Return) and not rest and head.value is not None:
        if isinstance(head.value, ast.IfExp):
            lines.add(head.value.lineno)
            return _where(head.value.test, _plain(head.value.body, lines), _plain(head.value.orelse, lines))
        return head.value
    if isinstance(head, ast.If) and len(head.body) == 1 and isinstance(head.body[0], ast.Return):
        chosen = head.body[0].value
        other = _returns_where(head.orelse + rest if not head.orelse else head.orelse, lines)
        if chosen is None or other is None or (head.orelse and rest):
            return None
        lines.add(head.lineno)
        return _where(head.test, chosen, other)
    return None


def _plain(expr: ast.expr, lines: set[int]) -> ast.expr:
    if isinstance(expr, ast.IfExp):
        lines.add(expr.lineno)
        return _where(expr.test, _plain(expr.body, lines), _plain(expr.orelse, lines))
    return expr


def _where(test: ast.expr, a: ast.expr, b: ast.expr) -> ast.expr:
    uses_numpy = any(isinstance(n, ast.Name) and n.id in ("np", "numpy") for n in ast.walk(test))
    lib = "np" if uses_numpy else "torch"
    return ast.Call(func=ast.Attribute(value=ast.Name(lib, ast.Load()), attr="where", ctx=ast.Load()),
                    args=[test, a, b], keywords=[])


def _branch_rewrite(fn: ast.FunctionDef, findings: list[Finding]) -> bool:
    """Rewrite `fn` in place when every tensor-branch finding is a choice between returned values."""
    branch_lines = {f.line for f in findings if f.category == "tensor-branch"}
    if not branch_lines:
        return True
    body = fn.body[1:] if _has_docstring(fn) else fn.body
    prefix = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) \
                and stmt.lineno not in branch_lines:
            prefix.append(stmt)
        else:
            break
    found: set[int] = set()
    value = _returns_where(body[len(prefix):], found)
    if value is None or not branch_lines <= found:
        return False
    fn.body = [*prefix, ast.Return(value=value)]
    return True


def rewrite_helper(root: Path, function: str, fn_name: str, findings: list[Finding],
                   reserved: set[str]) -> Rewrite | None:
    """A faithful rewritten copy of an app helper, or None when it cannot be written safely."""
    allowed = ("numpy-negative-stride", "numpy-astype", "tensor-branch")
    if not findings or any(f.category not in allowed for f in findings):
        return None
    module, _, qualname = function.partition(":")
    if "." in qualname:
        return None
    try:
        path = module_file(root, module)
    except SourceError:
        return None
    parsed = parse_file(SourceFile(path.resolve(), path.as_posix(), module, path.name == "__init__.py"))
    if isinstance(parsed, FileError):
        return None
    tree = parsed.tree
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == qualname), None)
    if fn is None:
        return None
    new = copy.deepcopy(fn)
    if not _branch_rewrite(new, findings):
        return None
    rewriter = _Rewriter()
    new.body = [rewriter.visit(stmt) for stmt in new.body]
    branches = any(f.category == "tensor-branch" for f in findings)
    if rewriter.failed or not (rewriter.changed or branches):
        return None
    bindings = build_index(parsed).imports
    top = _top_level_names(tree)
    free = _free_names(new)
    imports = {"import numpy as np"} if "np" in free else set()
    if "torch" in free and "torch" not in bindings:
        imports.add("import torch")
    for name in sorted(free - {"np"} - ({"torch"} if "torch" not in bindings else set())):
        if name in reserved:
            return None
        if name in bindings:
            target = bindings[name]
            owner, _, attr = target.rpartition(".")
            if owner and _is_module_import(tree, name):
                imports.add(f"import {target} as {name}" if name != target else f"import {target}")
            elif owner:
                imports.add(f"from {owner} import {attr}" + (f" as {name}" if name != attr else ""))
            else:
                imports.add(f"import {target}")
        elif name in top:
            imports.add(f"from {module} import {name}")
        else:
            return None
    if "np" in bindings and bindings["np"] != "numpy":
        return None
    new.name = fn_name
    new.decorator_list = []
    kinds = {f.category for f in findings}
    parts = []
    if "numpy-negative-stride" in kinds:
        parts.append("negative-step slices written as np.flip")
    if "numpy-astype" in kinds:
        parts.append("casts to unsigned dtypes LEAPP lacks written as signed ones (same values in range)")
    if "tensor-branch" in kinds:
        parts.append("the value-dependent choice of return value written as where() (both branches are "
                     "evaluated, so they must be free of side effects)")
    doc = "\n    ".join(textwrap.wrap(f"{function}, with {'; and '.join(parts)}.", 92))
    body = new.body[1:] if _has_docstring(new) else new.body
    new.body = [ast.Expr(ast.Constant(doc)), *body]
    source = _format_function(ast.fix_missing_locations(new))
    return Rewrite(source, tuple(sorted(imports)), f"rewritten for {', '.join(sorted(kinds))}")


def _format_function(fn: ast.FunctionDef, width: int = 100) -> str:
    """ast.unparse, with long top-level `return f(...)` / `x = f(...)` split one argument per line."""
    lines = ast.unparse(fn).splitlines()
    head = copy.copy(fn)
    head.body = fn.body[:1]
    header_end = len(ast.unparse(head).splitlines())
    out = lines[:header_end]
    for stmt in fn.body[1:]:
        text = ast.unparse(stmt)
        value = getattr(stmt, "value", None)
        if (len(text) + 4 > width and isinstance(stmt, (ast.Return, ast.Assign)) and isinstance(value, ast.Call)
                and "\n" not in text):
            lead = "return " if isinstance(stmt, ast.Return) else " = ".join(map(ast.unparse, stmt.targets)) + " = "
            parts = [ast.unparse(a) for a in value.args] + [
                f"{k.arg}={ast.unparse(k.value)}" if k.arg else f"**{ast.unparse(k.value)}" for k in value.keywords]
            out.append(f"    {lead}{ast.unparse(value.func)}(")
            out.extend(f"        {part}," for part in parts)
            out.append("    )")
        else:
            out.extend(f"    {line}" for line in text.splitlines())
    return "\n".join(out)


def _is_module_import(tree: ast.Module, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
            return True
    return False


def _has_docstring(fn: ast.FunctionDef) -> bool:
    return bool(fn.body) and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) \
        and isinstance(fn.body[0].value.value, str)
