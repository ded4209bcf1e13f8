"""Random draws and I/O reads inside the step become graph inputs that the host feeds (the split, carried out).

While the driver runs, the draw functions (`torch.randn`, `torch.rand_like`, `np.random.normal`, ...)
are wrapped where the application looks them up: the library's attribute, and an application
module's own binding of the same function (`from torch import randn`). Outside the entry the
wrappers call the original. Inside a recorded call they call the original too (the application's
own generator or global seed draws, so the run is unchanged) and keep each drawn array or tensor.
While the step is traced, each draw returns the recorded value declared as a LEAPP input of the
node (`noise_<i>_<function>`): the exported model takes the noise as an input. Validation feeds the
same draws to the model and, where the application is called again (a rollout), to the
application instead of drawing anew.

Draws that return a Python number (`np.random.normal()` without a size) cannot become a traced
input (a number passes through LEAPP as a constant): they are kept out (`scalar_sites`).

The same mechanism carries the I/O reads of the step (`np.fromfile`, `np.loadtxt`, `torch.load`, ...,
the read vocabulary of knowledge.io): each array read becomes the input `io_<i>_<function>`, recorded
on every recorded call (so a file rewritten during the run is a changed input), fed back to both
sides in validation and varied in the varied-input rollout. A read that returns numbers instead of
an array (`json.load(f)["gain"]`, a YAML list of offsets) is carried the same way: every float and every
list of numbers holding a float in what it returned becomes the float32 input `io_<i>_<function>_<key>`
(a shape-(1,) array for a number), and the application, fed, gets the value in the kind it read. A read
that returns neither (only strings, integers, an object) cannot be an input: `run` refuses it
(`refused_read`: the read stays in the host runtime, status `partial`) rather than export the value it
had while traced as a constant.
"""
from __future__ import annotations

import copy
import functools
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from leapp_codemod.knowledge.io import IO_READ_FUNCTIONS
from leapp_codemod.model import Category

# The draw functions wrapped, by the module that defines them: the draws of knowledge/draws.py that `run` can
# feed from the host (tests/test_draw_vocabulary.py keeps these tables subsets of that vocabulary).
DRAW_FUNCTIONS = {
    "torch": ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like", "normal", "bernoulli",
              "poisson", "multinomial", "randperm"),
    "numpy.random": ("rand", "randn", "normal", "uniform", "standard_normal", "random", "random_sample", "randint",
                     "choice", "laplace", "exponential", "beta", "gamma", "multivariate_normal"),
}
# Draw methods: of a NumPy Generator (the generators `np.random.default_rng` makes while the run is
# carried out draw through them) and the in-place fills of a torch tensor (`x.normal_()`).
GENERATOR_METHODS = ("normal", "uniform", "standard_normal", "random", "integers", "choice", "laplace", "exponential",
                     "beta", "gamma", "multivariate_normal", "standard_exponential", "lognormal", "poisson",
                     "binomial", "permutation", "shuffle")
TENSOR_FILLS = ("normal_", "uniform_", "bernoulli_", "exponential_", "random_", "cauchy_", "log_normal_",
                "geometric_")
PORT_PREFIX = "noise"
READ_PREFIX = "io"
RANDOM_CATEGORY = Category.RANDOM_IN_PIPELINE.value
IO_CATEGORY = Category.IO_IN_PIPELINE.value


def _reads_by_module() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for dotted in sorted(IO_READ_FUNCTIONS):
        module, _, name = dotted.rpartition(".")
        out[module] = (*out.get(module, ()), name)
    return out


# What is wrapped for each kind of host-fed value: the port prefix -> {module: function names}.
WRAPPED = {PORT_PREFIX: DRAW_FUNCTIONS, READ_PREFIX: _reads_by_module()}
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def port_name(index: int, function: str, kind: str = PORT_PREFIX) -> str:
    return f"{kind}_{index}_{function}"


def _is_array(value) -> bool:
    return any((c.__module__, c.__name__) in (("torch", "Tensor"), ("numpy", "ndarray"))
               for c in type(value).__mro__)


def _copy(value):
    if not _is_array(value):
        return copy.deepcopy(value)      # the numbers a read returned (carried_leaves)
    return value.clone() if hasattr(value, "clone") else value.copy()


def _is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or type(value).__module__ == "numpy" \
        and type(value).__name__.startswith(("float", "int", "uint"))


def _is_float(value) -> bool:
    return isinstance(value, float) or (type(value).__module__ == "numpy" and type(value).__name__.startswith("float"))


def _numbers(value) -> list | None:
    """The numbers of a (nested, rectangular) list or tuple of numbers, else None."""
    if _is_number(value):
        return [value]
    if not isinstance(value, (list, tuple)) or not value:
        return None
    parts = [_numbers(v) for v in value]
    if any(p is None for p in parts) or len({len(p) for p in parts}) != 1 or (
            len({isinstance(v, (list, tuple)) for v in value}) != 1):
        return None
    return [n for p in parts for n in p]


def _carried(value) -> bool:
    """A float, or a list of numbers holding a float: what a read's value carries as an input."""
    if _is_float(value):
        return True
    found = _numbers(value) if isinstance(value, (list, tuple)) else None
    return bool(found) and any(_is_float(n) for n in found)


def _walk(value, prefix: str, visit):
    """`value` with every carried leaf (see `_carried`) replaced by `visit(port name, leaf)`; dicts,
    lists and tuples are walked, other values stay."""
    from leapp_codemod.boundary import port_name as leaf_name

    if _carried(value):
        return visit(prefix, value)
    if isinstance(value, dict):
        return {k: _walk(v, leaf_name(prefix, k), visit) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_walk(v, leaf_name(prefix, i), visit) for i, v in enumerate(value))
    return value


def carried_leaves(value, prefix: str) -> dict:
    """{port: float32 array} for every float (a shape-(1,) array) and list of numbers in a read's value."""
    import numpy as np

    found: dict = {}
    _walk(value, prefix, lambda name, leaf: found.setdefault(name, np.asarray(leaf, dtype=np.float32).reshape(
        (1,) if _is_number(leaf) else np.shape(leaf))))
    return found


def _like(leaf, array):
    """`array` (a carried leaf's input value) back in the kind the read returned it."""
    return float(array.reshape(-1)[0]) if _is_number(leaf) else array.tolist()


def _call_site() -> str:
    """The innermost application line that made the draw (`path:line`, relative to the working directory)."""
    frame = sys._getframe(2)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_OWN + os.sep) and "site-packages" not in path and not path.startswith("<"):
            return f"{os.path.relpath(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


@dataclass
class Draws:
    """The wrappers' shared switch: off (pass through), recording, feeding recorded values, or tracing."""

    kinds: tuple = (PORT_PREFIX,)                    # which of WRAPPED are wrapped (draws, reads)
    mode: str = ""
    captured: list = field(default_factory=list)     # (function, site, value, kind) in call order
    queue: list = field(default_factory=list)
    node: str = ""
    sites: dict = field(default_factory=dict)        # port -> "path:line function", from the traced calls
    scalar_sites: dict = field(default_factory=dict)  # "site function" -> kind: no array returned (not carried)
    app_root: str = ""
    active: bool = False                             # the wrappers are in place

    def draw(self, original, function: str, args, kwargs, kind: str = PORT_PREFIX):
        if function.endswith("_") and self.mode in ("feed", "trace") and self.queue and args:
            return self._fill(args[0], function, kind)
        if self.mode == "record":
            value = original(*args, **kwargs)
            if _is_array(value) or (kind == READ_PREFIX and carried_leaves(value, "read")):
                self.captured.append((function, _call_site(), _copy(value), kind))
            else:
                self.scalar_sites[f"{_call_site()} {function}"] = kind
            return value
        if self.mode in ("feed", "trace") and self.queue:
            index = sum(1 for c in self.captured if c[3] == kind)
            fn, site, value, _ = self.queue.pop(0)
            self.captured.append((fn, site, value, kind))
            if self.mode == "feed":
                return _copy(value)
            from leapp_codemod import boundary

            port = port_name(index, fn, kind)
            if not _is_array(value):        # numbers a read returned: each carried leaf an input
                leaves = carried_leaves(value, port)
                traced = boundary.input_tensors(self.node, leaves)
                traced = dict(zip(leaves, traced if len(leaves) > 1 else (traced,)))
                for name in leaves:
                    self.sites.setdefault(name, f"{site} {fn}")
                return _walk(_copy(value), port, lambda name, _: traced[name])
            self.sites.setdefault(port, f"{site} {fn}")
            return boundary.input_tensors(self.node, {port: _copy(value)})
        return original(*args, **kwargs)

    def _fill(self, tensor, function: str, kind: str):
        """An in-place fill (`x.normal_()`) fed or traced: fed, the tensor takes the recorded values; traced,
        the call returns the input that carries them (the tensor itself cannot become a traced value, so
        the step must use what the fill returns, as `torch.empty(n).normal_()` does)."""
        value = self.draw(None, function, (), {}, kind)
        if self.mode == "feed":
            tensor.copy_(value)
            return tensor
        return value

    @contextmanager
    def recording(self):
        """Keep the draws of one call of the entry; yields the list they are appended to."""
        saved = self.mode, self.captured
        self.mode, self.captured = "record", []
        got = self.captured
        try:
            yield got
        finally:
            self.mode, self.captured = saved

    @contextmanager
    def replaying(self, recorded, node: str = ""):
        """Return `recorded` draws in order (traced as inputs of `node` when given) instead of drawing
        (the wrappers are put back for the call when the driver has ended)."""
        saved = self.mode, self.queue, self.captured, self.node
        self.mode, self.queue, self.captured, self.node = ("trace" if node else "feed"), list(recorded), [], node
        try:
            if self.active:
                yield
            else:
                with self.installed(self.app_root):
                    yield
        finally:
            self.mode, self.queue, self.captured, self.node = saved

    @contextmanager
    def installed(self, app_root: str):
        """Wrap every draw function where it is looked up, for the duration of the run."""
        import importlib

        done: list = []
        originals = {}
        wrapped = [(m, names, kind) for kind in self.kinds for m, names in WRAPPED[kind].items()]
        for module_name, names, kind in wrapped:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            for name in names:
                original = getattr(module, name, None)
                if original is None or getattr(original, "__leapp_codemod_draw__", False):
                    continue
                wrapper = self._wrap(original, name, kind)
                originals[id(original)] = wrapper
                setattr(module, name, wrapper)
                done.append((module, name, original))
        if PORT_PREFIX in self.kinds:
            done.extend(self._wrap_methods(originals))
        root = os.path.abspath(app_root) + os.sep if app_root else None
        for module in list(sys.modules.values()):
            path = os.path.abspath(getattr(module, "__file__", "") or "")
            if root is None or not path.startswith(root) or "site-packages" in path:
                continue
            for name, value in list(vars(module).items()):
                if callable(value) and id(value) in originals:
                    setattr(module, name, originals[id(value)])
                    done.append((module, name, value))
        self.app_root, self.active = app_root, True
        try:
            yield self
        finally:
            self.active = False
            for module, name, original in reversed(done):
                setattr(module, name, original)

    def _wrap_methods(self, originals: dict) -> list:
        """Wrap `np.random.default_rng` (its generators draw through `DrawingGenerator`) and the torch
        tensor fills; returns (owner, name, original) to put back."""
        import numpy as np
        import torch

        done = []
        make = np.random.default_rng
        if not getattr(make, "__leapp_codemod_draw__", False):
            @functools.wraps(make)
            def default_rng(*args, **kwargs):
                made, cls = make(*args, **kwargs), generator_class()
                return made if isinstance(made, cls) else cls(made.bit_generator, self)

            default_rng.__leapp_codemod_draw__ = True
            originals[id(make)] = default_rng
            np.random.default_rng = default_rng
            done.append((np.random, "default_rng", make))
        for name in TENSOR_FILLS:
            original = getattr(torch.Tensor, name, None)
            if original is None or getattr(original, "__leapp_codemod_draw__", False):
                continue
            setattr(torch.Tensor, name, self._wrap(original, name))
            done.append((torch.Tensor, name, original))
        return done

    def _wrap(self, original, function: str, kind: str = PORT_PREFIX):
        @functools.wraps(original)
        def draw(*args, **kwargs):
            return self.draw(original, function, args, kwargs, kind)

        draw.__leapp_codemod_draw__ = True
        return draw


@functools.cache
def generator_class() -> type:
    """`DrawingGenerator`: a NumPy Generator whose draws go through `Draws.draw` (built on first use:
    this module does not import NumPy at import time)."""
    import numpy as np

    def method(name):
        def drawn(self, *args, **kwargs):
            return self._leapp_codemod_draws.draw(getattr(np.random.Generator, name).__get__(self), name, args, kwargs)
        drawn.__name__ = name
        return drawn

    def init(self, bit_generator, draws):
        np.random.Generator.__init__(self, bit_generator)
        self._leapp_codemod_draws = draws

    def deepcopy(self, memo):
        import copy

        return type(self)(copy.deepcopy(self.bit_generator, memo), self._leapp_codemod_draws)

    def shallow(self):
        import copy

        return type(self)(copy.deepcopy(self.bit_generator), self._leapp_codemod_draws)

    body = {name: method(name) for name in GENERATOR_METHODS if hasattr(np.random.Generator, name)}
    body.update(__init__=init, __deepcopy__=deepcopy, __copy__=shallow, __module__=__name__,
                __doc__="A NumPy Generator whose draws go through `Draws.draw` (made by the wrapped "
                        "`np.random.default_rng` while a run carries draws out; the same bit generator).")
    return type("DrawingGenerator", (np.random.Generator,), body)


def _reads_listed(findings) -> bool:
    """An io-in-pipeline finding whose call is one of the wrapped reads (`(`numpy.fromfile`)`)."""
    names = {f"`{d}`" for d in IO_READ_FUNCTIONS}
    return any(f" {IO_CATEGORY}" in f and any(n in f for n in names) for f in findings)


def for_module(module) -> Draws | None:
    """A Draws for a module whose HOST_RUNTIME lists random draws inside the step, or whose HOST_RUNTIME
    or LEFT_OUT lists an I/O read, else None."""
    host = tuple(getattr(module, "HOST_RUNTIME", ()))
    kinds = tuple(k for k, on in ((PORT_PREFIX, any(f" {RANDOM_CATEGORY}" in h for h in host)),
                                  (READ_PREFIX, _reads_listed((*host, *getattr(module, "LEFT_OUT", ()))))) if on)
    return Draws(kinds=kinds) if kinds else None


def report(d: Draws | None) -> dict:
    """For the child's result: which input carries which draw or read, and those left in the host."""
    if d is None:
        return {}
    out: dict = {}
    if PORT_PREFIX in d.kinds:
        out["noise_inputs"] = {p: s for p, s in d.sites.items() if p.startswith(PORT_PREFIX + "_")}
    if READ_PREFIX in d.kinds:
        out["host_read_inputs"] = {p: s for p, s in d.sites.items() if p.startswith(READ_PREFIX + "_")}
        opens = opened_for(carried_draws(out["host_read_inputs"]))
        if opens:
            out["host_read_opens"] = opens
    for kind, key in ((PORT_PREFIX, "noise_not_carried"), (READ_PREFIX, "host_reads_not_carried")):
        left = sorted(s for s, k in d.scalar_sites.items() if k == kind)
        if left:
            out[key] = left
    return out


def _opens(node) -> bool:
    import ast

    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"


def opened_for(sites: set[str]) -> dict[str, str]:
    """{`path:line` of an `open(...)`: `path:line` of the carried read that takes its file object}
    (`with open(p) as f:` / `f = open(p)` then `json.load(f)`): the file is what that read reads,
    carried with it."""
    import ast

    out: dict = {}
    lines_of: dict = {}
    for site in sites:
        path, _, line = site.rpartition(":")
        if line.isdigit():
            lines_of.setdefault(path, set()).add(int(line))
    for path, lines in lines_of.items():
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        takes = {a.id: n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno in lines
                 for a in n.args if isinstance(a, ast.Name)}
        for n in ast.walk(tree):
            pairs = ([(n.context_expr, n.optional_vars)] if isinstance(n, ast.withitem) else
                     [(n.value, n.targets[0])] if isinstance(n, ast.Assign) and len(n.targets) == 1 else [])
            for call, name in pairs:
                if _opens(call) and isinstance(name, ast.Name) and name.id in takes:
                    out[f"{path}:{call.lineno}"] = f"{path}:{takes[name.id]}"
    return out


def carried_draws(noise_inputs: dict) -> set[str]:
    """The `path:line` of every draw or read an input carries (from the report's noise_inputs or
    host_read_inputs)."""
    return {site.split(" ")[0] for site in noise_inputs.values()}


@contextmanager
def replayed(draws: Draws | None, recorded, node: str = ""):
    """`draws.replaying(...)` when the run carries draws out, else nothing."""
    if draws is None or not recorded:
        yield
        return
    with draws.replaying(recorded, node):
        yield


def _named(recorded):
    """(port, (function, site, value, kind)) for one call's recorded draws and reads, numbered per kind."""
    counts: dict = {}
    for rec in recorded:
        kind = rec[3]
        yield port_name(counts.get(kind, 0), rec[0], kind), rec
        counts[kind] = counts.get(kind, 0) + 1


def ports(recorded) -> dict:
    """{port: value} of one call's recorded draws and reads (what the exported model takes as inputs;
    a read that returned numbers gives one port per carried leaf)."""
    out = {}
    for port, (_, _, value, _) in _named(recorded):
        out.update({port: value} if _is_array(value) else carried_leaves(value, port))
    return out


def refused_read(d: Draws | None) -> str:
    """One line naming the first read inside the step that returned neither an array nor numbers, or ''."""
    left = sorted(s for s, k in (d.scalar_sites if d else {}).items() if k == READ_PREFIX)
    if not left:
        return ""
    site, _, function = left[0].partition(" ")
    return (f"{site}: the step reads `{function}` and gets neither an array nor numbers (a float or a list of "
            "numbers): such a read cannot become a graph input the host feeds, and the export would keep the "
            "value it had while traced as a constant; read it in the host and pass what the step needs "
            "as an argument")


def plain(recorded) -> tuple:
    return tuple((fn, site, _copy(value), kind) for fn, site, value, kind in recorded)


def varied_reads(recorded, every: list, seed: int = 0) -> tuple:
    """`recorded` (one call's draws and reads) with every array read varied within the range its port
    took over `every` call (as validation varies the entry's inputs): a changed file is a changed input."""
    if not any(kind == READ_PREFIX for *_, kind in recorded):
        return tuple(recorded)
    from leapp_codemod.runner.perturb import vary_one

    base = ports(recorded)
    calls = [p for p in (ports(r) for r in every) if p.keys() == base.keys()] or [base]
    varied = base
    for i, port in enumerate(p for p in base if p.startswith(READ_PREFIX + "_")):
        varied = vary_one(calls, varied, port, seed=seed + i)
    return tuple((fn, site, varied[port] if _is_array(value) else
                  _walk(value, port, lambda name, leaf: _like(leaf, varied[name])), kind)
                 for port, (fn, site, value, kind) in _named(recorded))


def _text(node) -> str:
    import ast

    return ast.unparse(node)


def gate(path: str, line: int) -> str:
    """The setting whose value removes the draw on `path:line`, read from the `if` around it
    (`if self.noise_std > 0:` -> "noise_std = 0"), or '' when the draw is not gated by one."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ""
    found = ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)) and node.lineno <= line <= node.end_lineno:
            body = node.body if isinstance(node.body, list) else [node.body]
            if any(s.lineno <= line <= s.end_lineno for s in body):
                found = _removal(node.test) or found
        elif isinstance(node, (ast.If, ast.IfExp)) and node.test.lineno == line:
            found = _removal(node.test) or found
    return found


def _is_setting(node) -> bool:
    import ast

    return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and not any(
        isinstance(n, ast.Call) for n in ast.walk(node))


def _removal(test) -> str:
    """What makes `test` false, when it is a setting compared with a constant or a draw compared
    with a setting ('' otherwise)."""
    import ast

    if _is_setting(test):
        return f"`{_text(test)}` = False removes the draw"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_setting(test.operand):
        return f"`{_text(test.operand)}` = True removes the draw"
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return ""
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(right, ast.Constant) and _is_setting(left) and isinstance(op, (ast.Gt, ast.NotEq)):
        return f"`{_text(left)}` = {right.value!r} removes the draw (`{_text(test)}` gates it)"
    if isinstance(left, ast.Constant) and _is_setting(right) and isinstance(op, (ast.Lt, ast.NotEq)):
        return f"`{_text(right)}` = {left.value!r} removes the draw (`{_text(test)}` gates it)"
    if _is_setting(right) and isinstance(op, (ast.Lt, ast.LtE)) and any(isinstance(n, ast.Call) for n in ast.walk(left)):
        return f"`{_text(right)}` = 0 removes the draw (`{_text(test)}` gates it)"
    return ""
