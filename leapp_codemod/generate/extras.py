"""What `generate` adds to the integration module only when asked (or when the pipeline needs it):
exporter parameters, deployment semantics, Warp setup, a multi-node split."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leapp_codemod.generate.backend_params import BackendParamError, accepted_keys, check_keys
from leapp_codemod.generate.warp import WarpSetupError, warp_spec


class ExtrasError(Exception):
    """A one-line reason the requested additions cannot be generated."""


@dataclass(frozen=True)
class Extras:
    backend_params: dict                     # KEY -> value, from --backend-param
    backend_keys: dict                       # exporter -> keys it accepts (installed leapp)
    leapp_origin: str = ""
    semantics: Any = None                    # generate/semantics.py SemanticsSpec
    warp: Any = None                         # generate/warp.py WarpSpec
    split: Any = None                        # generate/split.py SplitSpec

    @property
    def output_kwargs(self) -> str:
        """Extra keyword arguments of the module's output_tensors call."""
        return ",\n                           backend_params=backend_params(EXPORT_WITH)" if self.backend_params else ""

    @property
    def backend_params_literal(self) -> str:
        return "{" + ", ".join(f"{pystr(k)}: {_literal(v)}" for k, v in self.backend_params.items()) + "}"

    @property
    def backend_keys_lines(self) -> list[str]:
        def literal(keys) -> str:
            items = [pystr(k) for k in sorted(keys)]
            return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        return [f"{pystr(b)}: {literal(keys)}," for b, keys in self.backend_keys.items()]


def pystr(text: str) -> str:
    from leapp_codemod.generate.spec import pystr as quoted  # spec imports this module
    return quoted(text)


def _literal(value) -> str:
    return pystr(value) if isinstance(value, str) else repr(value)


def build_extras(scan, opts, root, entry, inputs) -> Extras:
    params = dict(opts.backend_params)
    keys: dict = {}
    origin = ""
    try:
        warp = warp_spec(scan, opts.export_with)
    except WarpSetupError as exc:
        raise ExtrasError(str(exc)) from None
    if params:
        try:
            accepted = accepted_keys()
            check_keys(params, accepted)
        except BackendParamError as exc:
            raise ExtrasError(str(exc)) from None
        keys, origin = dict(accepted.by_backend), accepted.origin
    return Extras(backend_params=params, backend_keys=keys, leapp_origin=origin, warp=warp)
