"""Random draws inside the step become graph inputs that the host feeds (the split, carried out).

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
"""
from __future__ import annotations

import functools
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from leapp_codemod.model import Category

# The draw functions wrapped, by the module that defines them.
DRAW_FUNCTIONS = {
    "torch": ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like", "normal", "bernoulli",
              "poisson", "multinomial", "randperm"),
    "numpy.random": ("rand", "randn", "normal", "uniform", "standard_normal", "random", "random_sample", "randint",
                     "choice", "laplace", "exponential", "beta", "gamma", "multivariate_normal"),
}
PORT_PREFIX = "noise"
RANDOM_CATEGORY = Category.RANDOM_IN_PIPELINE.value
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def port_name(index: int, function: str) -> str:
    return f"{PORT_PREFIX}_{index}_{function}"


def _is_array(value) -> bool:
    return any((c.__module__, c.__name__) in (("torch", "Tensor"), ("numpy", "ndarray"))
               for c in type(value).__mro__)


def _copy(value):
    return value.clone() if hasattr(value, "clone") else value.copy()


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

    mode: str = ""
    captured: list = field(default_factory=list)     # (function, site, value) in draw order
    queue: list = field(default_factory=list)
    node: str = ""
    sites: dict = field(default_factory=dict)        # port -> "path:line function", from the traced calls
    scalar_sites: set = field(default_factory=set)   # draws that returned a number (not carried out)
    app_root: str = ""
    active: bool = False                             # the wrappers are in place

    def draw(self, original, function: str, args, kwargs):
        if self.mode == "record":
            value = original(*args, **kwargs)
            if _is_array(value):
                self.captured.append((function, _call_site(), _copy(value)))
            else:
                self.scalar_sites.add(f"{_call_site()} {function}")
            return value
        if self.mode in ("feed", "trace") and self.queue:
            index = len(self.captured)
            fn, site, value = self.queue.pop(0)
            self.captured.append((fn, site, value))
            if self.mode == "feed":
                return _copy(value)
            from leapp_codemod import boundary

            port = port_name(index, fn)
            self.sites.setdefault(port, f"{site} {fn}")
            return boundary.input_tensors(self.node, {port: _copy(value)})
        return original(*args, **kwargs)

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
        for module_name, names in DRAW_FUNCTIONS.items():
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            for name in names:
                original = getattr(module, name, None)
                if original is None or getattr(original, "__leapp_codemod_draw__", False):
                    continue
                wrapper = self._wrap(original, name)
                originals[id(original)] = wrapper
                setattr(module, name, wrapper)
                done.append((module, name, original))
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

    def _wrap(self, original, function: str):
        @functools.wraps(original)
        def draw(*args, **kwargs):
            return self.draw(original, function, args, kwargs)

        draw.__leapp_codemod_draw__ = True
        return draw


def for_module(module) -> Draws | None:
    """A Draws for a module whose HOST_RUNTIME lists random draws inside the step, else None."""
    listed = [h for h in getattr(module, "HOST_RUNTIME", ()) if f" {RANDOM_CATEGORY}" in h]
    return Draws() if listed else None


def report(d: Draws | None) -> dict:
    """For the child's result: which input carries which draw, and the draws left in the host."""
    if d is None:
        return {}
    out: dict = {"noise_inputs": dict(d.sites)}
    if d.scalar_sites:
        out["noise_not_carried"] = sorted(d.scalar_sites)
    return out


def carried_draws(noise_inputs: dict) -> set[str]:
    """The `path:line` of every draw a noise input carries (from the report's noise_inputs)."""
    return {site.split(" ")[0] for site in noise_inputs.values()}


@contextmanager
def replayed(draws: Draws | None, recorded, node: str = ""):
    """`draws.replaying(...)` when the run carries draws out, else nothing."""
    if draws is None or not recorded:
        yield
        return
    with draws.replaying(recorded, node):
        yield


def ports(recorded) -> dict:
    """{port: value} of one call's recorded draws (what the exported model takes as its noise inputs)."""
    return {port_name(i, fn): value for i, (fn, _, value) in enumerate(recorded)}


def plain(recorded) -> tuple:
    return tuple((fn, site, _copy(value)) for fn, site, value in recorded)


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
