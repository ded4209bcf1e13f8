"""A replacement traced alone: one recorded call of a patched helper, its array arguments declared
as the inputs of a throw-away LEAPP node, the replacement called on the traced values, its array
results declared as the outputs. What the value check cannot see shows here: an argument the
original depends on that never reaches the graph (LEAPP trims it: a twin that unpacked an array into
Python numbers), a result that is not traced (a constant of the export), or a replacement that
raises or computes something else on LEAPP's traced arrays (negative strides, views).

The node is never compiled: LEAPP decides which inputs are used when the node's outputs are
declared, which is all this check needs."""
from __future__ import annotations

import copy
import inspect
import logging
import re
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import torch

from leapp_codemod.knowledge.leapp import ATOL, RTOL
from leapp_codemod.runner import values
from leapp_codemod.runner.trace_shims import during_trace

NODE = "twin_check"
RAISES = "on LEAPP-traced arguments it raises"
REFUSED = "LEAPP cannot trace it:"
_IDENT = re.compile(r"\W")


def _arrays(value, path: str, out: dict) -> None:
    """The floating tensors and arrays inside `value`, by an identifier naming where they sit."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        if value.dtype in (torch.float16, torch.float32, torch.float64) or getattr(value.dtype, "kind", "") == "f":
            out[path] = value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _arrays(v, f"{path}_{_IDENT.sub('_', str(k))}", out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _arrays(v, f"{path}_{i}", out)


def labels(original, args: tuple, kwargs: dict) -> dict:
    """Input name -> how a reader finds it: the parameter's name and the index path (`v[0]`)."""
    try:
        params = [p.name for p in inspect.signature(original).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    out: dict = {}
    for i, a in enumerate(args):
        found: dict = {}
        _arrays(a, "", found)
        base = params[i] if i < len(params) else f"argument {i}"
        out.update({f"a{i}{p}": base + "".join(f"[{x}]" for x in p.split("_")[1:]) for p in found})
    for k, v in kwargs.items():
        found = {}
        _arrays(v, "", found)
        out.update({f"k_{k}{p}": k + "".join(f"[{x}]" for x in p.split("_")[1:]) for p in found})
    return out


def _replace(value, path: str, new: dict):
    """`value` with the leaves named in `new` swapped for the new values."""
    if path in new:
        return new[path]
    if isinstance(value, Mapping):
        items = [(k, _replace(v, f"{path}_{_IDENT.sub('_', str(k))}", new)) for k, v in value.items()]
        return dict(items) if isinstance(value, dict) else type(value)(items)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_replace(v, f"{path}_{i}", new) for i, v in enumerate(value))
    if isinstance(value, list):
        return [_replace(v, f"{path}_{i}", new) for i, v in enumerate(value)]
    return value


def array_arguments(args: tuple, kwargs: dict) -> dict:
    """Every floating array argument, named `a0_...` (positional) or `k_<name>_...` (keyword)."""
    found: dict = {}
    for i, a in enumerate(args):
        _arrays(a, f"a{i}", found)
    for k, v in kwargs.items():
        _arrays(v, f"k_{k}", found)
    return found


def with_leaves(args: tuple, kwargs: dict, new: dict) -> tuple[tuple, dict]:
    return (tuple(_replace(a, f"a{i}", new) for i, a in enumerate(args)),
            {k: _replace(v, f"k_{k}", new) for k, v in kwargs.items()})


def _plain_copy(value):
    if isinstance(value, torch.Tensor):
        return values.plain(value).clone()
    return np.array(value, copy=True, subok=False)


def _varied(value, rng: np.random.Generator):
    """The array with every element moved by a clearly visible amount."""
    out, _ = values.perturbed(_plain_copy(value), rng)
    return out


def influencing(original, args: tuple, kwargs: dict, arrays: dict, seed: int = 0) -> list[str] | None:
    """The array arguments whose change alone changes the original's result; None when the original
    is not repeatable on these arguments (then nothing can be said)."""
    def run(a, k):
        return values.leaves(original(*copy.deepcopy(a), **copy.deepcopy(k)))

    def same(x: dict, y: dict) -> bool:
        return x.keys() == y.keys() and all(
            np.shape(x[n]) == np.shape(y[n]) and np.array_equal(values.to_numpy64(x[n]), values.to_numpy64(y[n]),
                                                                equal_nan=True) for n in x)
    try:
        base = run(args, kwargs)
        if not same(base, run(args, kwargs)):
            return None
        rng = np.random.default_rng(seed)
        found = []
        for name, value in arrays.items():
            a, k = with_leaves(args, kwargs, {name: _varied(value, rng)})
            if not same(base, run(a, k)):
                found.append(name)
        return found
    except Exception:  # noqa: BLE001 - an original that rejects the varied input tells nothing
        return None


def _traced(value) -> bool:
    from leapp_codemod.adapters._core import is_traced
    return is_traced(value)


def _quiet_console() -> None:
    """LEAPP's console handlers off for the throw-away node (its log file stays); the next
    `leapp.start` puts them back."""
    logger = logging.getLogger("leapp")
    for handler in list(logger.handlers):
        if type(handler) is logging.StreamHandler:
            logger.removeHandler(handler)


def varying(calls) -> set[str] | None:
    """The array arguments whose values differ between the recorded calls (the others may be constants
    of the pipeline that are never traced, such as a filter's coefficients); None with one call."""
    if len(calls) < 2:
        return None
    first = array_arguments(calls[0].args, calls[0].kwargs)
    out = set()
    for call in calls[1:]:
        other = array_arguments(call.args, call.kwargs)
        out |= {n for n, v in first.items() if n not in other or np.shape(v) != np.shape(other[n])
                or not np.array_equal(values.to_numpy64(v), values.to_numpy64(other[n]), equal_nan=True)}
    return out


def _patches(patching) -> list:
    """The pipeline's FunctionPatch list (`patching()`), or none when it cannot be built here."""
    if patching is None:
        return []
    try:
        return list(patching())
    except Exception:  # noqa: BLE001 - a patch that cannot be built here is checked without the others
        return []


def trace_check(replacement, original, calls, workdir: Path, patching=None) -> str | None:
    """`trace_alone` on the first recorded call with every array argument traced; when that raises,
    again with only the arguments that varied between the calls traced (a constant argument, such
    as a filter's coefficients, may be one the replacement requires untraced). An argument that stayed
    constant (a robot standing level) is still traced first, so its loss shows."""
    args, kwargs = calls[0].args, calls[0].kwargs
    problem = trace_alone(replacement, original, args, kwargs, workdir, patching=patching)
    moving = varying(calls)
    if problem and problem.startswith((RAISES, REFUSED)) and moving is not None \
            and moving != set(array_arguments(args, kwargs)):
        problem = trace_alone(replacement, original, args, kwargs, workdir, moving, patching=patching)
    return problem


def trace_alone(replacement, original, args: tuple, kwargs: dict, workdir: Path,
                traced: set[str] | None = None, patching=None) -> str | None:
    """Why `replacement` is not faithful under a LEAPP trace on these arguments, or None. `traced`:
    the array arguments to declare as inputs (all when None)."""
    import leapp
    from leapp import annotate
    from leapp.export_manager import ExportManager

    arrays = {n: v for n, v in array_arguments(args, kwargs).items() if traced is None or n in traced}
    if not arrays:
        return None
    try:
        expected = original(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    except Exception:  # noqa: BLE001 - an input the original rejects says nothing about the replacement
        return None
    needed = influencing(original, args, kwargs, arrays)
    inputs = {name: _plain_copy(v) for name, v in arrays.items()}
    problem = None
    shims = ExitStack()
    leapp.start(NODE, save_path=str(workdir), patching=_patches(patching))
    try:
        _quiet_console()
        shims.enter_context(during_trace())     # the work-arounds the pipeline's trace has
        traced = annotate.input_tensors(NODE, dict(inputs))
        traced = traced if isinstance(traced, tuple) else (traced,)
        a, k = with_leaves(copy.deepcopy(args), copy.deepcopy(kwargs), dict(zip(inputs, traced, strict=True)))
        try:
            got = replacement(*a, **k)
        except Exception as exc:  # noqa: BLE001 - any error on traced arguments is the finding
            from leapp_codemod.runner.errors import one_line
            return f"{RAISES} {one_line(exc)}"
        leaves = values.raw_leaves(got)
        outputs = {f"out_{i}": v for i, (n, v) in enumerate(sorted(leaves.items())) if _traced(v)}
        untraced = [n or "the result" for n, v in leaves.items() if not _traced(v)]
        got = values.numbers_as_one_element(expected, values.plain(got) if isinstance(got, torch.Tensor) else got)
        problem, _ = values.mismatch(expected, got,
                                     RTOL, ATOL)
        if problem:
            problem = f"on LEAPP-traced arguments {problem}"
        elif needed and untraced:
            what = "its result" if untraced == ["the result"] else f"output {', '.join(map(repr, untraced))} of its result"
            problem = (f"{what} is not traced (LEAPP would export it as a constant) although the original's result "
                       "depends on its arguments")
        elif outputs:
            annotate.output_tensors(NODE, outputs)
    except Exception as exc:  # noqa: BLE001 - a LEAPP refusal of the replacement's trace is the finding
        from leapp_codemod.runner.errors import one_line
        problem = problem or f"{REFUSED} {one_line(exc)}"
    finally:
        shims.close()
        leapp.stop()
    if problem or not needed:
        return problem
    node = ExportManager().nodes.get(NODE)
    trimmed = set(getattr(node, "trimmed_inputs", ()) or ())
    lost = [n for n in needed if n in trimmed]
    if lost:
        return (f"argument `{labels(original, args, kwargs).get(lost[0], lost[0])}` changes the original's result but reaches no output of the traced "
                "replacement (LEAPP: inputs are not used in the computation)")
    return None
