"""A per-module index built from one parse: imports, functions, classes, module globals.

Everything here is derived from the AST of a single file, so it can be cached by content.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from leapp_codemod.knowledge.vocab import CLASS_LOADERS, MODEL_LOADERS
from leapp_codemod.source.astwalk import walk, walked
from leapp_codemod.source.parse import ParsedFile



@dataclass
class FunctionInfo:
    id: str                     # "module:qualname"
    module: str
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    class_name: str | None
    path: str                   # display path
    # the body's nodes as the analysis walks them, per set of constant parameters, all of them ("all"), and
    # what is read off them alone ("local_callables"): walked once, read often
    walks: dict = field(default_factory=dict, repr=False, compare=False)
    # names a driver loop carries from one iteration into the next (an inline range's state and the
    # containers it fills): the pipeline's persistent state, like attributes of self
    carried: frozenset[str] = frozenset()
    # an inline range: buffers from before it that every pass fills whole before reading (`cmd[:] = target`):
    # scratch space, not state, though the range writes into them
    refilled: frozenset[str] = frozenset()
    # an inline range: the value each name it uses was last bound to before the range (its allocation)
    outer_values: dict = field(default_factory=dict, repr=False, compare=False)
    # an inline range: the Python numbers it reads from before it (a counter, a loop index, a setting),
    # each with whether it changes from one iteration to the next. Constants of the export, not data.
    numbers: dict = field(default_factory=dict, repr=False, compare=False)
    # an inline range: its inputs whose value a LEAPP boundary cannot declare (a deque, a list of Python
    # numbers), each an `analysis.inline.boundary_types.Undeclarable`
    undeclarable: dict = field(default_factory=dict, repr=False, compare=False)
    # an inline range: its inputs the driver loop rebinds after the range from the range's outputs, by array
    # arithmetic alone (`analysis.inline.fed_after`), each with that rebinding (an `ast.Assign`): state kept outside
    fed_after: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def nodes(self) -> tuple[ast.AST, ...]:
        """Every node of the function, `ast.walk` order (walked once, read by many questions)."""
        nodes = self.walks.get("all")
        if nodes is None:
            nodes = self.walks["all"] = walked(self.node)
        return nodes

    def assigned(self, name: str) -> tuple[ast.expr, ...]:
        """The values of the function's `=` statements that bind `name` itself, in `nodes` order (one per
        statement; indexed once, so a question asked of every name stays linear)."""
        index = self.walks.get("assigned")
        if index is None:
            index = self.walks["assigned"] = {}
            for node in self.nodes:
                if isinstance(node, ast.Assign):
                    for target in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
                        index.setdefault(target, []).append(node.value)
        return tuple(index.get(name, ()))

    @property
    def params(self) -> list[str]:
        """The parameter names (listed once per function; read, never changed, by every question)."""
        found = self.walks.get("params")
        if found is None:
            args = self.node.args
            found = self.walks["params"] = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        return found

    @property
    def positional_params(self) -> list[str]:
        found = self.walks.get("positional_params")
        if found is None:
            args = self.node.args
            found = self.walks["positional_params"] = [a.arg for a in (*args.posonlyargs, *args.args)]
        return found

    @property
    def is_static(self) -> bool:
        return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in self.node.decorator_list)

    @property
    def is_method(self) -> bool:
        return self.class_name is not None and not self.is_static


@dataclass
class ClassInfo:
    id: str                     # "module:Name"
    module: str
    name: str
    node: ast.ClassDef
    path: str
    base_exprs: list[ast.expr]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    # self.<attr> = <expr> anywhere in the class's methods: (method name, value expression)
    attr_values: dict[str, list[tuple[str, ast.expr]]] = field(default_factory=dict)
    buffers: set[str] = field(default_factory=set)       # register_buffer("name", ...)
    parameters: set[str] = field(default_factory=set)    # register_parameter / nn.Parameter
    class_attrs: dict[str, ast.expr] = field(default_factory=dict)
    attr_annotations: dict[str, ast.expr] = field(default_factory=dict)  # `x: T` in the body, `self.x: T` in methods


@dataclass
class ModuleIndex:
    name: str
    path: str
    is_package: bool
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)      # local name -> qualified target
    functions: dict[str, FunctionInfo] = field(default_factory=dict)  # qualname -> info (methods too)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    globals: dict[str, ast.expr] = field(default_factory=dict)
    has_main_guard: bool = False
    has_relative_imports: bool = False    # resolved against the module's name when indexed
    star_imports: list[str] = field(default_factory=list)     # modules of `from m import *`, in order
    # local name -> every target an import statement binds it to, when they differ (`try: from a import f`
    # / `except ImportError: from b import f`, an import inside a function shadowing the module's)
    import_alternatives: dict[str, list[str]] = field(default_factory=dict)
    # local names a relative import binds above the scanned root (`from .... import f` three levels deep)
    above_root: set[str] = field(default_factory=set)
    # globals functions rebind under a `global` declaration: name -> the values they bind it to, in order
    rebound_globals: dict[str, list[ast.expr]] = field(default_factory=dict)
    # ast columns are UTF-8 byte offsets; lines with non-ASCII text are kept to convert them
    non_ascii_lines: dict[int, str] = field(default_factory=dict)
    # the tree last walked and its nodes in `ast.walk` order (see `nodes`)
    walked: tuple = field(default=(None, ()), repr=False, compare=False)

    @property
    def nodes(self) -> tuple[ast.AST, ...]:
        """Every node of the module, `ast.walk` order (walked once, read by the index and the analysis)."""
        tree, nodes = self.walked
        if tree is not self.tree:
            nodes = walked(self.tree)
            self.walked = (self.tree, nodes)
        return nodes

    def column(self, line: int, byte_offset: int) -> int:
        """1-based character column of a byte offset on `line`."""
        text = self.non_ascii_lines.get(line)
        if text is None:
            return byte_offset + 1
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace")) + 1


def is_test_path(path: str) -> bool:
    """Files under tests/ or test/, and test_*.py, *_test.py, conftest.py."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (any(p in ("tests", "test") for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test.py") or name == "conftest.py")


def _above_root(module: str, is_package: bool, level: int) -> bool:
    """Does a relative import of `level` dots climb above the top package of the scanned tree (Python's
    "attempted relative import beyond top-level package")?"""
    package = module if is_package else module.rpartition(".")[0]
    return level > 1 and level - 1 >= len(package.split(".")) if package else level > 1


# `pytest.main(...)`, `unittest.main()`: a `__main__` block that only hands the file to a test runner.
TEST_RUNNER_CALLS = frozenset({"pytest.main", "unittest.main", "sys.exit", "print"})


def is_test_module(module: ModuleIndex) -> bool:
    """A module a test runner collects, not a script to scan as a driver: conftest.py, every file under tests/
    or test/ but an evaluation script there (its `__main__` block drives, it loads a trained model and holds nothing
    pytest collects: `scripts/test/play_policy.py`); a file elsewhere named like a test (`test_*.py`, `*_test.py`) only when it holds what
    pytest collects (`test*` functions, `Test*` classes) and no `__main__` block that runs anything but a
    test runner: `test_policy.py` whose main block loads a checkpoint and evaluates it in a loop is an
    evaluation script."""
    if not is_test_path(module.path):
        return False
    parts = PurePosixPath(module.path).parts
    collected = any(_collected_by_pytest(stmt) for stmt in module.tree.body)
    if parts[-1] == "conftest.py":
        return True
    if any(p in ("tests", "test") for p in parts[:-1]):   # a helper or a test, unless an evaluation script
        return collected or not (_main_block_drives(module.tree) and _loads_a_model(module.tree))
    return not _main_block_drives(module.tree) and collected


def _loads_a_model(tree: ast.Module) -> bool:
    """Does the module load a trained model (`torch.jit.load(p)`, `PPO.load(p)`, `net.load_state_dict(sd)`)?"""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            holder, _, method = ast.unparse(node.func).rpartition(".")
            if f"{holder}.{method}".endswith(MODEL_LOADERS) or method == "load_state_dict" \
                    or method in CLASS_LOADERS and holder.rpartition(".")[2][:1].isupper():   # `PPO.load(p)`
                return True
    return False


def _collected_by_pytest(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return stmt.name.startswith("test")
    return isinstance(stmt, ast.ClassDef) and (stmt.name.startswith("Test") or any(
        ast.unparse(base).endswith("TestCase") for base in stmt.bases))


def _main_block_drives(tree: ast.Module) -> bool:
    """Does an `if __name__ == "__main__":` block run a loop or call anything but a test runner?"""
    for stmt in tree.body:
        if not (isinstance(stmt, ast.If) and _is_main_guard(stmt)):
            continue
        for node in (n for s in stmt.body for n in ast.walk(s)):
            if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
                return True
            if isinstance(node, ast.Call) and ast.unparse(node.func) not in TEST_RUNNER_CALLS:
                return True
    return False


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    if target:
        return f"{package}.{target}" if package else target
    return package


def _collect_imports(node: ast.Import | ast.ImportFrom, index: ModuleIndex) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                _bind_import(index, alias.asname, alias.name)
            else:
                top = alias.name.split(".")[0]
                index.imports.setdefault(top, top)
        return
    base = node.module or ""
    above = False
    if node.level:
        index.has_relative_imports = True
        above = _above_root(index.name, index.is_package, node.level)
        base = _resolve_relative(index.name, index.is_package, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            if base:
                index.star_imports.append(base)
            continue
        local = alias.asname or alias.name
        if above:
            index.above_root.add(local)
        _bind_import(index, local, f"{base}.{alias.name}" if base else alias.name)


def _bind_import(index: ModuleIndex, local: str, target: str) -> None:
    """`local` now names `target`; an earlier, different target stays an alternative (the last one binds)."""
    earlier = index.imports.get(local)
    if earlier is not None and earlier != target:
        found = index.import_alternatives.setdefault(local, [earlier])
        if target not in found:
            found.append(target)
    index.imports[local] = target


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _self_name(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _collect_class(node: ast.ClassDef, index: ModuleIndex, prefix: str = "") -> None:
    qual = f"{prefix}{node.name}"
    info = ClassInfo(f"{index.name}:{qual}", index.name, qual, node, index.path, list(node.bases))
    index.classes[qual] = info
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = FunctionInfo(f"{index.name}:{qual}.{stmt.name}", index.name, f"{qual}.{stmt.name}",
                              stmt, qual, index.path)
            info.methods[stmt.name] = fn
            index.functions[fn.qualname] = fn
            _collect_self_attrs(stmt, info)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    info.class_attrs[target.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            info.attr_annotations[stmt.target.id] = stmt.annotation
            if stmt.value is not None:
                info.class_attrs[stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.ClassDef):
            _collect_class(stmt, index, prefix=f"{qual}.")


def _collect_self_attrs(fn: ast.FunctionDef | ast.AsyncFunctionDef, info: ClassInfo) -> None:
    self_name = _self_name(fn)
    if self_name is None:
        return
    for node in walk(fn):
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute)
                and isinstance(node.target.value, ast.Name) and node.target.value.id == self_name):
            info.attr_annotations.setdefault(node.target.attr, node.annotation)
        for target in targets:
            for elt, val in _pair_targets(target, value):
                if (isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name)
                        and elt.value.id == self_name):
                    info.attr_values.setdefault(elt.attr, []).append((fn.name, val))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if (node.func.attr in ("register_buffer", "register_parameter") and isinstance(first, ast.Constant)
                    and isinstance(first.value, str)):
                (info.buffers if node.func.attr == "register_buffer" else info.parameters).add(first.value)
                if len(node.args) > 1:
                    info.attr_values.setdefault(first.value, []).append((fn.name, node.args[1]))


def _pair_targets(target: ast.expr, value: ast.expr):
    """(target, value) pairs for `a, b = x, y`; the whole value for other unpacking."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            for t, v in zip(target.elts, value.elts):
                yield from _pair_targets(t, v)
        else:
            for t in target.elts:
                yield from _pair_targets(t.value if isinstance(t, ast.Starred) else t, value)
    else:
        yield target, value


def renamed(index: ModuleIndex, name: str) -> ModuleIndex:
    """The same index under another module name (valid when no import was resolved relative to the old one)."""
    index.name = name
    for fn in index.functions.values():
        fn.module, fn.id = name, f"{name}:{fn.qualname}"
    for cls in index.classes.values():
        cls.module, cls.id = name, f"{name}:{cls.name}"
    return index


def build_index(parsed: ParsedFile) -> ModuleIndex:
    src = parsed.source
    index = ModuleIndex(src.module, src.display, src.is_package, parsed.tree)
    if not parsed.text.isascii():
        index.non_ascii_lines = {n: line for n, line in enumerate(parsed.text.splitlines(), 1) if not line.isascii()}
    for node in index.nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _collect_imports(node, index)
    for stmt in parsed.tree.body:
        for nested in _defined_in_blocks(stmt):
            _collect_definition(nested, index)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            index.functions[stmt.name] = FunctionInfo(f"{src.module}:{stmt.name}", src.module, stmt.name,
                                                      stmt, None, src.display)
        elif isinstance(stmt, ast.ClassDef):
            _collect_class(stmt, index)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for elt, val in _pair_targets(target, stmt.value):
                    if isinstance(elt, ast.Name):
                        index.globals[elt.id] = val
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            index.globals[stmt.target.id] = stmt.value
        elif isinstance(stmt, ast.If) and _is_main_guard(stmt):
            index.has_main_guard = True
    index.rebound_globals = _rebound_globals(index)
    return index


def _rebound_globals(index: ModuleIndex) -> dict[str, list[ast.expr]]:
    """`global client; client = SportClient()` in a function: what each declared global is bound to."""
    if not any(isinstance(n, ast.Global) for n in index.nodes):
        return {}
    found: dict[str, list[ast.expr]] = {}
    for fn in index.functions.values():
        declared = {name for n in fn.nodes if isinstance(n, ast.Global) for name in n.names}
        for node in fn.nodes if declared else ():
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in declared:
                        found.setdefault(target.id, []).append(node.value)
    return found


# Compound statements whose blocks run once, in order, at import: a definition in them is the module's.
_IMPORT_TIME_BLOCKS = (ast.If, ast.Try, ast.With) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def _defined_in_blocks(stmt: ast.stmt) -> list[ast.stmt]:
    """The functions and classes a module-level `try:` / `with` / `if` defines (an Isaac Sim script's `try:
    app = AppLauncher(...) ... class Wrapper(nn.Module): ... finally: app.close()`), at any depth of such blocks."""
    if not isinstance(stmt, _IMPORT_TIME_BLOCKS):
        return []
    found = []
    for field in ("body", "orelse", "finalbody", "handlers"):
        for inner in getattr(stmt, field, None) or []:
            for child in (inner.body if isinstance(inner, ast.ExceptHandler) else [inner]):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.append(child)
                else:
                    found += _defined_in_blocks(child)
    return found


def _collect_definition(stmt: ast.stmt, index: ModuleIndex) -> None:
    if isinstance(stmt, ast.ClassDef):
        if stmt.name not in index.classes:   # the first of alternatives (`try:` ... `except ImportError:`)
            _collect_class(stmt, index)
    elif stmt.name not in index.functions:
        index.functions[stmt.name] = FunctionInfo(f"{index.name}:{stmt.name}", index.name, stmt.name, stmt, None,
                                                  index.path)


def called_name(func: ast.expr) -> str | None:
    """The last name a call's function expression spells: `f` for `f(...)`, `m` for `obj.m(...)`."""
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
