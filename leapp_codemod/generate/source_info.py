"""What `generate` reads from the application's source without importing it: the entry's
parameters and return structure, and the definitions of functions it must patch."""
from __future__ import annotations

import ast
import json
import keyword
from dataclasses import dataclass
from pathlib import Path

from leapp_codemod.boundary import fresh_port
from leapp_codemod.generate.pass_through import pass_through_reads
from leapp_codemod.generate.sent import describe_selectors, send_hint, sent_value
from leapp_codemod.knowledge.vocab import LIBRARY_NAMES, NAME_KEEPING_CONVERSIONS
from leapp_codemod.source.parse import decode, is_literal, parse_text

# Library calls and conversions: `torch.from_numpy(x)` is `x`; `torch.cat(...)` gets a neutral name
# (an output named after an op can clash with the exporter's own node names, e.g. "cat" in ONNX).
_WRAPPERS = frozenset({"from_numpy", "as_tensor", "tensor", "asarray", "array", "ascontiguousarray"})


class SourceError(Exception):
    """The application source does not contain what the entry names."""


@dataclass(frozen=True)
class Param:
    name: str
    static: bool        # has a literal constant default: passed through, not an input boundary


@dataclass(frozen=True)
class OutputLeaf:
    name: str           # LEAPP output name
    access: str         # Python expression on `result`, e.g. "result[0]"


@dataclass(frozen=True)
class EntrySource:
    module: str
    qualname: str
    path: Path
    line: int
    is_method: bool
    params: tuple[Param, ...]
    outputs: tuple[OutputLeaf, ...]
    outputs_expr: str   # the dict literal mapping output names to parts of `result`
    note: str           # non-empty when the return structure had to be guessed
    sent: tuple[str, ...] = ()   # a step that returns nothing: (attribute path..., send method) of its one send
    sent_value: tuple = ()       # where the data is in that send: its argument, then fields (generate.sent)
    sent_host_reads: tuple = ()  # (line, input field) read only by the send's host-side arguments
    pass_through: tuple = ()     # (line, input field) only copied into the returned object (PASS_THROUGH)


@dataclass(frozen=True)
class FunctionSource:
    path: Path
    line: int
    node: ast.FunctionDef
    text: str           # the module's full source


def import_root(app: Path) -> Path:
    """The directory that has to be on sys.path for the application's modules to import."""
    app = app.resolve()
    if app.is_file():
        app = app.parent
    root = app
    while (root / "__init__.py").exists():
        root = root.parent
    return root


def module_file(root: Path, module: str) -> Path:
    """The file `module` names under `root`, by the module-root logic `scan` uses (any import name)."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    from leapp_codemod.source.files import discover
    for src in discover([str(root)]).files:
        if module == src.module or module in src.aliases:
            return src.path
    raise SourceError(f"module {module} not found under {root}")


def find_function(tree: ast.Module, qualname: str) -> ast.FunctionDef | None:
    scope: list[ast.stmt] = tree.body
    node = None
    for part in qualname.split("."):
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        scope = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def read_function(root: Path, module: str, qualname: str) -> FunctionSource:
    path = module_file(root, module)
    try:
        text = decode(path.read_bytes())
        tree = parse_text(text, str(path))
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"{path}: cannot decode: {str(exc).splitlines()[0]}") from None
    except SyntaxError as exc:
        raise SourceError(f"{path}:{exc.lineno}: cannot parse: {exc.msg}") from None
    except RecursionError:
        raise SourceError(f"{path}: nested too deeply to parse") from None
    node = find_function(tree, qualname)
    if node is None:
        return _read_resolved(root, module, qualname, path)
    return FunctionSource(path=path, line=node.lineno, node=node, text=text)


def _read_resolved(root: Path, module: str, qualname: str, path: Path) -> FunctionSource:
    """An inherited method or a closure, found the way `scan --entry` finds it."""
    from leapp_codemod.analysis.entry.lookup import EntryNotFound, find_entry
    from leapp_codemod.scan import load_project
    project = load_project([str(root)]).project
    try:
        fn = find_entry(project, f"{module}:{qualname}")
    except EntryNotFound:
        raise SourceError(f"{path}: no function {qualname} in module {module}") from None
    defined_in = Path(fn.path).resolve()
    return FunctionSource(path=defined_in, line=fn.node.lineno, node=fn.node,
                          text=defined_in.read_text(encoding="utf-8"))


def entry_params(fn: ast.FunctionDef, is_method: bool) -> tuple[Param, ...]:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    if is_method and positional and not _is_static(fn):
        positional = positional[1:]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [Param(a.arg, d is not None and is_literal(d)) for a, d in zip(positional, defaults)]
    params += [Param(a.arg, d is not None and is_literal(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return tuple(params)


def _is_static(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _returns(fn: ast.FunctionDef) -> list[ast.Return]:
    """Return statements of `fn` itself (not of nested functions or classes)."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.Return):
            found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def leaf_name(expr: ast.expr) -> str | None:
    """A readable name for a returned expression, or None."""
    if isinstance(expr, ast.Name):
        return None if expr.id == "self" else expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        return leaf_name(expr.value)
    if isinstance(expr, ast.Call):
        # a conversion or wrapper keeps the name of what it converts; any other call's name says
        # what computes the value, not what it holds (`smoother(x)`), so it names nothing
        func = expr.func
        if isinstance(func, ast.Attribute):
            if func.attr in NAME_KEEPING_CONVERSIONS:
                return leaf_name(func.value)
            if isinstance(func.value, ast.Name) and func.value.id in LIBRARY_NAMES \
                    and func.attr in _WRAPPERS and expr.args:
                return leaf_name(expr.args[0])
    return None


_GENERIC_TYPES = frozenset({"Tensor", "ndarray", "Any", "object", "dict", "Dict", "tuple", "Tuple", "list", "List",
                            "Mapping", "Sequence", "float", "int", "bool", "None", "Optional", "Union", "TensorDict",
                            "NDArray", "ArrayLike", "array"})


def annotation_name(fn: ast.FunctionDef) -> str | None:
    """A name for a single returned value from the return annotation: `-> JointTargets` gives
    `joint_targets`; generic types (`Tensor`, `np.ndarray`, `dict`, ...) give None."""
    node = fn.returns
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if not name or name in _GENERIC_TYPES:
        return None
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _identifier(name: str | None) -> str | None:
    if not name:
        return None
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    if not cleaned or cleaned[0].isdigit() or keyword.iskeyword(cleaned):
        return None
    return cleaned


def output_structure(fn: ast.FunctionDef, taken: set[str], is_method: bool = False
                     ) -> tuple[tuple[OutputLeaf, ...], str, str]:
    """Output leaves, the dict literal that names them, and a note when it had to guess. A method that returns
    nothing and sends one value out (`sent_value`) has that value as its output."""
    returns = [r for r in _returns(fn) if r.value is not None]
    note = ""
    sent = sent_value(fn, is_method) if not returns else None
    if not returns and sent is None:
        raise SourceError(f"line {fn.lineno}: {fn.name} returns nothing; an output boundary needs a return value"
                          + send_hint(fn))
    if sent is not None:
        note = (f"{fn.name} returns nothing: its output is the value it sends at line {sent.call.lineno} "
                f"(`{ast.unparse(sent.value)}` in `{ast.unparse(sent.call)}`: {describe_selectors(sent.selectors)}),"
                " taken from the call by `run`")
        value = sent.value
    else:
        if len({_shape(r.value) for r in returns}) > 1:
            note = "return statements differ in structure; the last one was used"
        value = returns[-1].value
    leaves: list[OutputLeaf] = []
    used = set(taken)
    counter = [0]

    def unique(name: str | None) -> str:
        base = _identifier(name) or (_identifier(annotation_name(fn)) or "output" if single else f"output{counter[0]}")
        counter[0] += 1
        candidate = fresh_port(base, used)
        used.add(candidate)
        return candidate

    def build(node: ast.expr, access: str) -> str:
        if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            parts = [build(e, f"{access}[{i}]") for i, e in enumerate(node.elts)]
            return ", ".join(p for p in parts if p)
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                              for k in node.keys):
            items = []
            for k, v in zip(node.keys, node.values):
                if isinstance(v, (ast.Tuple, ast.List, ast.Dict)):
                    key = json.dumps(k.value)
                    inner = build(v, f"{access}[{key}]")
                    items.append(f"{key}: {{{inner}}}")
                else:
                    key = json.dumps(k.value)
                    name = unique(k.value)
                    leaves.append(OutputLeaf(name, f"{access}[{key}]"))
                    items.append(f"{json.dumps(name)}: {access}[{key}]")
            return ", ".join(items)
        name = unique(leaf_name(node) or (sent.keyword if sent is not None and node is value else None))
        leaves.append(OutputLeaf(name, access))
        return f"{json.dumps(name)}: {access}"

    single = not isinstance(value, (ast.Tuple, ast.List, ast.Dict))
    body = build(value, "result")
    return tuple(leaves), "{" + body + "}", note


def _shape(node: ast.expr) -> str:
    if isinstance(node, (ast.Tuple, ast.List)):
        return "(" + ",".join(_shape(e) for e in node.elts) + ")"
    if isinstance(node, ast.Dict):
        return "{" + ",".join(ast.unparse(k) if k else "**" for k in node.keys) + "}"
    return "x"


def read_entry(root: Path, module: str, qualname: str) -> EntrySource:
    return entry_source(read_function(root, module, qualname), module, qualname)


def entry_source(fn_src: FunctionSource, module: str, qualname: str) -> EntrySource:
    """What the integration needs of the entry function: parameters, outputs, where it is."""
    fn = fn_src.node
    is_method = "." in qualname
    params = entry_params(fn, is_method)
    leaves, expr, note = output_structure(fn, {p.name for p in params}, is_method)
    sent = sent_value(fn, is_method) if not any(r.value is not None for r in _returns(fn)) else None
    return EntrySource(module=module, qualname=qualname, path=fn_src.path, line=fn.lineno, is_method=is_method,
                       params=params, outputs=leaves, outputs_expr=expr, note=note,
                       sent=sent.sender if sent else (), sent_value=sent.selectors if sent else (),
                       sent_host_reads=sent.host_reads if sent else (),
                       pass_through=() if sent else pass_through_reads(fn, is_method))

