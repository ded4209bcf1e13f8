"""NumPy's joining functions see a deque argument as a list while a pipeline is traced.

LEAPP 0.7.2 looks for traced arrays inside lists, tuples and dicts only: `np.concatenate(history)`
on a `deque` of traced arrays (a frame history declared as LEAPP state) recurses in
`TracedNpArray.__array_function__` until Python's recursion limit. While tracing, the joining
functions are wrapped so that a deque argument is passed as a list of the same items (the same
values, in the same order); the wrappers are removed when tracing ends.
"""
from __future__ import annotations

import collections
import functools
from contextlib import contextmanager

JOINING = ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack")


def _as_list(value):
    return list(value) if isinstance(value, collections.deque) else value


def _wrap(original):
    @functools.wraps(original)
    def joined(*args, **kwargs):
        return original(*(_as_list(a) for a in args), **{k: _as_list(v) for k, v in kwargs.items()})

    joined.__leapp_codemod_deque_shim__ = True
    return joined


@contextmanager
def deques_as_lists():
    """Wrap NumPy's joining functions for the duration of a trace (restored even on errors)."""
    import numpy as np

    saved = {name: getattr(np, name) for name in JOINING if hasattr(np, name)}
    try:
        for name, original in saved.items():
            if not getattr(original, "__leapp_codemod_deque_shim__", False):
                setattr(np, name, _wrap(original))
        yield
    finally:
        for name, original in saved.items():
            setattr(np, name, original)
