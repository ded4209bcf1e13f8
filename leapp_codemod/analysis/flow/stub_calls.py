"""Calls that resolve only to a declaration: the callee's body is a stub (`@abstractmethod`, a docstring,
`pass`, `...`, `raise NotImplementedError`) and no implementation is in the scanned or followed code.

`self.estimator.estimate(x)` with `estimator: ContactEstimator` (an abstract base whose implementations are
plugins loaded by name), `self.agent.act(obs)` with `agent: Agent` (a library base class whose `act` is a
docstring and `pass`): the call resolves, but to code that runs nothing, so what the pipeline really runs there
was never analysed. Such a call is listed as not followed, never counted as followed code.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.resolve_types import is_abstract
from leapp_codemod.model import NotFollowed


def stub_call(ctx, call: ast.Call, text: str) -> NotFollowed | None:
    """The call as a `NotFollowed` when everything it resolves to is a stub of a declared base."""
    if not isinstance(call.func, ast.Attribute):
        return None
    callees = ctx.resolve_call(call)
    if not callees or not all(is_abstract(fn) for fn in callees):
        return None
    declared = ", ".join(f"`{fn.module}.{fn.qualname}`" for fn in callees[:3])
    receiver = ast.unparse(call.func.value)
    reason = (f"`{receiver}` is declared as a type whose `{call.func.attr}` is only a stub ({declared}); the class "
              f"that runs it is decided at run time and no implementation is in the scanned or followed code")
    return NotFollowed(ctx.fn.path, call.lineno, text, reason, receiver, ctx.fn.id)
