"""Run a driver whose pipeline is a statement range (`--entry FILE:START-END`), in memory.

The driver's source is transformed, never the file: the range is hoisted into a module-level
function of the values it reads from before it (inputs and constants as parameters, carried values
through a state holder) that returns the values read after it, and the range is replaced by a call
of that function that rebinds them in the loop's scope. Both parts keep the original statement
nodes and line numbers and are compiled with the driver's own filename, so a traceback raised
inside the range names the driver's line. The function is then intercepted and traced like any
function entry.

    for step in range(n):                        def __leapp_codemod_step__(__leapp_codemod_state__, qpos, policy):
        qpos = read(data)                            last = __leapp_codemod_state__.last
        obs = concat(qpos, last)        ─►           obs = concat(qpos, last)
        last = policy(obs)                           last = policy(obs)
        apply(last)                                  __leapp_codemod_state__.last = last
                                                     return ()
                                                 # in the loop, on the range's first line:
                                                 __leapp_codemod_state__.last = last
                                                 () = __leapp_codemod_state__.__leapp_codemod_step__(
                                                     qpos=__leapp_codemod_state__.__leapp_codemod_number__(qpos), ...)
                                                 last = __leapp_codemod_state__.last

The step function is a method of the holder (an `InlineState`), so the runner treats the holder like
the instance of a method entry: copied before the first traced call, traced and validated from
that copy, its attributes declared as LEAPP state.
"""
from __future__ import annotations
import __future__

import ast
import builtins
import functools
import inspect
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

from leapp_codemod.analysis.inline.boundary_plan import BoundaryPlan, plan_boundary
from leapp_codemod.analysis.inline.range import (
    InlineEntry,
    InlineRange,
    RangeError,
    function_def,
    read_range,
)

STEP = "__leapp_codemod_step__"
HOLDER = "__leapp_codemod_state__"
AS_ARRAY = "__leapp_codemod_number__"   # the holder's method that carries a number input as a 0-d array
DRIVER_MODULE = "__leapp_codemod_driver__"   # the driver's namespace, also in sys.modules under this name


def number_as_array(value):
    """A Python or NumPy number (not a bool) the range reads as an input, as a 0-d NumPy array of the
    dtype NumPy gives it (int64, float64, or the NumPy scalar's own): the array behaves as the number
    does in NumPy and Python arithmetic, and LEAPP traces it as a graph input instead of freezing it.
    Anything else is returned unchanged."""
    import numbers

    import numpy as np

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Number, np.number)):
        return value
    if isinstance(value, complex):
        return value
    return np.asarray(value)


class InlineState:
    """Holds the values an inline pipeline carries from one iteration to the next (one attribute each)."""

    def __repr__(self) -> str:
        return f"InlineState({', '.join(sorted(vars(self)))})"

    @staticmethod
    def __leapp_codemod_number__(value):
        return number_as_array(value)




@dataclass(frozen=True)
class Program:
    path: Path
    rng: InlineRange
    step_code: types.CodeType
    main_code: types.CodeType
    label: str             # the entry as the user wrote it, FILE:START-END


def _leaves_range(rng: InlineRange) -> str:
    """Why the range cannot become a function body ('' when it can)."""
    def walk(node, in_loop: bool):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return ""
        if isinstance(node, ast.Return):
            return f"line {node.lineno}: `return` leaves the range"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return f"line {node.lineno}: `{type(node).__name__.lower()}` cannot move into a function"
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return f"line {node.lineno}: `{type(node).__name__.lower()}` leaves the range"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return f"line {node.lineno}: `{type(node).__name__.lower()}` declarations cannot move into a function"
        for child in ast.iter_child_nodes(node):
            inner = in_loop or (isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and child in node.body)
            why = walk(child, inner)
            if why:
                return why
        return ""
    for stmt in rng.statements:
        why = walk(stmt, False)
        if why:
            return why
    return ""


def _name(name: str, ctx=ast.Load) -> ast.Name:
    return ast.Name(id=name, ctx=ctx())


def _holder_attr(name: str, ctx=ast.Load) -> ast.Attribute:
    return ast.Attribute(value=_name(HOLDER), attr=name, ctx=ctx())


def _at(node: ast.AST, line: int, col: int) -> ast.AST:
    for n in ast.walk(node):
        n.lineno, n.col_offset, n.end_lineno, n.end_col_offset = line, col, line, col
    return node


def step_function(rng: InlineRange) -> ast.FunctionDef:
    """The range as `__leapp_codemod_step__(inputs..., constants...)` returning its outputs."""
    first, last = rng.statements[0], rng.statements[-1]
    params = [*rng.inputs, *rng.constants]
    load_state = [_at(ast.Assign(targets=[_name(s, ast.Store)], value=_holder_attr(s)), first.lineno,
                      first.col_offset) for s in rng.state]
    store_state = [_at(ast.Assign(targets=[_holder_attr(s, ast.Store)], value=_name(s)), last.end_lineno,
                       last.col_offset) for s in rng.state]
    ret = _at(ast.Return(value=ast.Tuple(elts=[_name(o) for o in rng.outputs], ctx=ast.Load())),
              last.end_lineno, last.col_offset)
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in (HOLDER, *params)], kwonlyargs=[],
                         kw_defaults=[],
                         defaults=[])
    fn = function_def(STEP, args, [*load_state, *rng.statements, *store_state, ret])
    for a in args.args:
        _at(a, first.lineno, first.col_offset)
    fn.lineno, fn.col_offset, fn.end_lineno, fn.end_col_offset = first.lineno, 0, last.end_lineno, 0
    return fn


def call_site(plan: BoundaryPlan) -> list[ast.stmt]:
    """What replaces the range in the driver: the host's statements (computations on a counter), sync
    state in, call (attribute reads passed as inputs), rebind outputs and state."""
    rng = plan.rng
    first = rng.statements[0]
    line, col = first.lineno, first.col_offset
    out = [_at(ast.Assign(targets=[_holder_attr(s, ast.Store)], value=_name(s)), line, col) for s in rng.state]
    carried = [ast.keyword(arg=p, value=_at(ast.Call(func=_holder_attr(AS_ARRAY), args=[plan.port_value(p)],
                                                     keywords=[]), line, col))
               for p in rng.inputs]      # a number input (a step counter) becomes an array the trace follows
    call = ast.Call(func=_holder_attr(STEP), args=[],
                    keywords=[*carried, *(ast.keyword(arg=p, value=_name(p)) for p in rng.constants)])
    target = ast.Tuple(elts=[_name(o, ast.Store) for o in rng.outputs], ctx=ast.Store())
    out.append(_at(ast.Assign(targets=[target], value=call), line, col))
    out += [_at(ast.Assign(targets=[_name(s, ast.Store)], value=_holder_attr(s)), line, col) for s in rng.state]
    return out


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags


def instrument(path: Path, entry: InlineEntry) -> Program:
    """Parse the driver, hoist the range and compile both parts under the driver's filename."""
    text = path.read_text(encoding="utf-8")
    tree, named = read_range(str(path), text, entry.start, entry.end)
    why = _leaves_range(named)
    if why:
        raise RangeError(f"{entry.file}:{entry.start}-{entry.end}: {why}; end the range before it")
    plan = plan_boundary(named)
    rng = plan.rng
    fn = step_function(rng)
    named.block[named.first:named.first + len(named.statements)] = [*plan.host, *call_site(plan)]
    flags = _future_flags(tree)
    filename = str(path)
    step_code = compile(ast.Module(body=[fn], type_ignores=[]), filename, "exec", flags=flags, dont_inherit=True)
    main_code = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    return Program(path=path, rng=rng, step_code=step_code, main_code=main_code, label=entry.text)


def driver_module(program: Program) -> types.ModuleType:
    """The namespace the driver runs in, holding the state holder whose method is the step function
    (defined in this namespace, so the range's globals resolve as in the driver)."""
    module = types.ModuleType("__main__")
    module.__file__ = str(program.path)
    module.__builtins__ = builtins
    module.__spec__ = None
    module.__loader__ = None
    scratch: dict = {}
    exec(program.step_code, module.__dict__, scratch)  # noqa: S102 - defines the hoisted step function only
    holder_class = type(InlineState.__name__, (InlineState,), {STEP: scratch[STEP], "__module__": __name__})
    setattr(module, HOLDER, holder_class())
    return module


def run_as_main(program: Program, module: types.ModuleType) -> None:
    """Execute the transformed driver as `__main__` in `module` (the file itself is never read again)."""
    saved = sys.modules.get("__main__")
    argv = sys.argv[:]
    sys.modules["__main__"] = module
    sys.argv = [str(program.path), *argv[1:]]     # the driver's arguments (`run -- ARGS`) kept
    try:
        exec(program.main_code, module.__dict__)  # noqa: S102 - the user's driver, as `run` executes it
    finally:
        sys.argv = argv
        if saved is not None:
            sys.modules["__main__"] = saved


@dataclass
class Prepared:
    """An inline entry ready to be intercepted: the hoisted step function and how to run the driver.

    Patches of the driver's own bindings (module `__main__`) can only be installed once the driver's
    top level has bound them: `on_first_call` hooks run when the range is first reached."""

    program: Program
    module: types.ModuleType
    on_first_call: list = field(default_factory=list)

    @property
    def entry(self):
        from leapp_codemod.runner.intercept import Entry

        holder_class = type(getattr(self.module, HOLDER))
        fn = vars(holder_class)[STEP]
        hooks = self.on_first_call

        @functools.wraps(fn)
        def step(*args, **kwargs):
            while hooks:
                hooks.pop(0)()
            return fn(*args, **kwargs)

        return Entry(self.module, f"the range {self.program.label}", holder_class, STEP, step, fn, True,
                     inspect.signature(fn))

    def run(self) -> None:
        run_as_main(self.program, self.module)


def is_inline(entry_text: str) -> bool:
    from leapp_codemod.analysis.inline.range import parse_inline_entry

    return parse_inline_entry(entry_text) is not None


def prepare(entry_text: str, driver: Path) -> Prepared | None:
    """None for a MODULE:QUALNAME entry; else the instrumented driver (RunnerError when the range is bad)."""
    from leapp_codemod.analysis.inline.range import parse_inline_entry
    from leapp_codemod.runner.intercept import RunnerError

    inline = parse_inline_entry(entry_text)
    if inline is None:
        return None
    try:
        program = instrument(driver, inline)
    except (RangeError, OSError, UnicodeDecodeError) as exc:
        raise RunnerError(str(exc), "import") from None
    module = driver_module(program)
    sys.modules[DRIVER_MODULE] = module
    return Prepared(program, module)


def split_patches(patches) -> tuple[tuple, tuple]:
    """(patches installable now, patches of the driver's own bindings to install at the first call)."""
    own = tuple(p for p in patches if p.module == "__main__")
    return tuple(p for p in patches if p not in own), own
