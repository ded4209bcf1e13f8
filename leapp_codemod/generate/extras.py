"""What `generate` adds to the integration module only when asked (or when the pipeline needs it):
exporter parameters, deployment semantics, Warp setup, a multi-node split."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leapp_codemod.generate.backend_params import (
    BackendParamError,
    accepted_keys,
    check_keys,
)
from leapp_codemod.generate.literals import default_graph_name, pystr
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

    def inputs_arg(self, tensors: str) -> str:
        if not self.semantics:
            return tensors
        if tensors.startswith("{\n"):
            tensors = tensors.replace("\n        ", "\n            ").replace("\n    }", "\n        }")
            return f"described(\n        {tensors},\n        INPUT_SEMANTICS, InputKindEnum)"
        return f"described({tensors}, INPUT_SEMANTICS, InputKindEnum)"

    def outputs_arg(self, tensors: str) -> str:
        return f"described({tensors}, OUTPUT_SEMANTICS, OutputKindEnum)" if self.semantics else tensors

    @property
    def output_kwargs_flat(self) -> str:
        return ", backend_params=backend_params(EXPORT_WITH)" if self.backend_params else ""

    @property
    def split_order_literal(self) -> str:
        return "(" + ", ".join(pystr(n) for n in self.split.order) + ")"

    @property
    def split_boundary_lines(self) -> list[str]:
        def tup(items) -> str:
            items = list(items)
            return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        lines = []
        for b in self.split.boundaries:
            lines += ["    (", f"        {pystr(b.node)}, {pystr(b.function)},",
                      f"        {tup(tup(pystr(x) for x in t) for t in b.targets)},",
                      f"        {tup(pystr(n) for n in b.late_inputs)},", "    ),"]
        return lines

    @property
    def split_reason_lines(self) -> list[str]:
        import textwrap
        return textwrap.wrap(" ".join(self.split.reason.split()), 100, break_on_hyphens=False)

    @property
    def late_inputs(self) -> tuple[str, ...]:
        return tuple(n for b in self.split.boundaries for n in b.late_inputs)

    @staticmethod
    def names_dict(names) -> str:
        return "{" + ", ".join(f"{pystr(n)}: {n}" for n in names) + "}"

    @staticmethod
    def outputs_dict(boundary) -> str:
        return "{" + ", ".join(f"{pystr(name)}: {access}" for name, access in boundary.outputs) + "}"

    @property
    def semantics_lines(self) -> dict[str, list[str]]:
        """The INPUT_SEMANTICS / OUTPUT_SEMANTICS / RAW_TENSORS entries as source lines."""
        sem = self.semantics

        def entry(m) -> str:
            names = "JOINT_ORDER" if m.element_names and m.element_names != ("x", "y", "z") else \
                "XYZ" if m.element_names else "()"
            return f"{pystr(m.name)}: ({pystr(m.kind)}, {names}),  # {m.source}"
        return {"inputs": [entry(m) for m in sem.inputs], "outputs": [entry(m) for m in sem.outputs],
                "raw": [f"{pystr(name)}: {pystr(why)}," for name, why in sem.raw if not name.startswith("(")],
                "notes": [why for name, why in sem.raw if name.startswith("(")]}

    @property
    def joint_order_literal(self) -> str:
        for m in (*self.semantics.inputs, *self.semantics.outputs):
            if m.element_names and m.element_names != ("x", "y", "z"):
                return "(" + ", ".join(pystr(n) for n in m.element_names) + ")"
        return "()"

    @property
    def backend_params_literal(self) -> str:
        return "{" + ", ".join(f"{pystr(k)}: {_literal(v)}" for k, v in self.backend_params.items()) + "}"

    @property
    def backend_keys_lines(self) -> list[str]:
        def literal(keys) -> str:
            items = [pystr(k) for k in sorted(keys)]
            return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        return [f"{pystr(b)}: {literal(keys)}," for b, keys in self.backend_keys.items()]


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
    semantics = _semantics(opts, root, entry, inputs) if opts.semantics else None
    split = _split(scan, opts, root, entry, inputs) if opts.split else None
    if opts.split_reason and not opts.split:
        raise ExtrasError("--reason is only used with --split")
    if params:
        try:
            accepted = accepted_keys()
            check_keys(params, accepted)
        except BackendParamError as exc:
            raise ExtrasError(str(exc)) from None
        keys, origin = dict(accepted.by_backend), accepted.origin
    return Extras(backend_params=params, backend_keys=keys, leapp_origin=origin, warp=warp, semantics=semantics,
                  split=split)


def _split(scan, opts, root, entry, inputs):
    from leapp_codemod.generate.split import SplitError, build_split

    app_dir = opts.app if opts.app.is_dir() else opts.app.parent
    try:
        return build_split(root, app_dir, entry.module, entry.qualname, inputs,
                           opts.graph or default_graph_name(entry.qualname), ",".join(opts.split),
                           opts.split_reason, bool(scan.state))
    except SplitError as exc:
        raise ExtrasError(str(exc)) from None


def _semantics(opts, root, entry, inputs):
    from leapp_codemod.generate.semantics import SemanticsError, build_semantics
    from leapp_codemod.generate.source_info import read_function

    fn = read_function(root, entry.module, entry.qualname).node
    app_dir = opts.app if opts.app.is_dir() else opts.app.parent
    try:
        return build_semantics(root, fn, inputs, tuple(o.name for o in entry.outputs), app_dir)
    except SemanticsError as exc:
        raise ExtrasError(str(exc)) from None
