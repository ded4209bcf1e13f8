"""Finding categories: one row per category saying what every stage does with it.

Columns, by stage:

* scan      `patchable`: a finding of it in a plain function makes that function a FunctionPatch target.
            `library_call`: a flagged call is a library call, patched through the binding it is looked up by.
            `in_libraries`: found inside an installed library the pipeline calls, it is reported at the
            application's call site (shape guards, warnings and Python branches inside a library are its own
            business: read in Stable-Baselines3, sb3-contrib and rsl_rl, they test flags, spaces and shapes,
            which the export fixes anyway; its ndarray round trips are traced by LEAPP).
* generate  `host_side`: the step moves to the host runtime (a random draw becomes an input).
            `left_out`: what it does is left out of the export (I/O) or baked in at the traced shapes
            (checked by `run` on those shapes); it does not block an export.
* run       `silent`: LEAPP can export it without an error, so it may explain a validation failure.
            `log_signals`: the LEAPP log signals (`runner/logcap.py` names them from LEAPP's messages)
            that confirm a finding of it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CategoryRow:
    name: str
    patchable: bool = False
    library_call: bool = False
    in_libraries: bool = False
    host_side: bool = False
    left_out: bool = False
    silent: bool = False
    log_signals: tuple[str, ...] = ()


# Signals: "frozen-constant" (a value was inlined as a constant / re-entry samples disagreed), "trimmed-input"
# (an input not used in the computation), "numpy-item-tolist" and "scalar-extraction" (a Python scalar pulled
# out while tracing), "tensor-branch" (a tensor in a boolean context), "unmapped-numpy" (no torch equivalent for
# a numpy function), "foreign-intermediate" (a value that is not a registered output), "astype" (an astype with
# no torch equivalent), "setitem" (an in-place write that cannot be lowered functionally).
CATEGORIES: tuple[CategoryRow, ...] = (
    CategoryRow("scalar-extraction", patchable=True, in_libraries=True, silent=True,
                log_signals=("numpy-item-tolist", "trimmed-input", "frozen-constant", "scalar-extraction")),
    CategoryRow("tensor-branch", patchable=True, silent=True, log_signals=("tensor-branch", "frozen-constant")),
    CategoryRow("unmapped-numpy", patchable=True, library_call=True, in_libraries=True, silent=True,
                log_signals=("unmapped-numpy", "trimmed-input", "frozen-constant")),
    CategoryRow("foreign-library", patchable=True, library_call=True, in_libraries=True, silent=True,
                log_signals=("unmapped-numpy", "trimmed-input", "foreign-intermediate", "frozen-constant")),
    CategoryRow("numpy-negative-stride", patchable=True, in_libraries=True),
    CategoryRow("numpy-astype", patchable=True, in_libraries=True, silent=True, log_signals=("astype",)),
    CategoryRow("inplace-state", in_libraries=True, silent=True, log_signals=("setitem", "frozen-constant")),
    CategoryRow("random-in-pipeline", in_libraries=True, host_side=True, silent=True,
                log_signals=("frozen-constant",)),
    CategoryRow("io-in-pipeline", left_out=True, silent=True),
    CategoryRow("shape-specialization", left_out=True, silent=True),
    CategoryRow("warp-kernel"),
)
BY_NAME = {row.name: row for row in CATEGORIES}


def names(column: str) -> frozenset[str]:
    """The categories whose row says True in `column`."""
    return frozenset(row.name for row in CATEGORIES if getattr(row, column))


def confirmed_by(signal: str) -> tuple[str, ...]:
    """The categories a LEAPP log signal confirms, in table order."""
    return tuple(row.name for row in CATEGORIES if signal in row.log_signals)


PATCHABLE_CATEGORIES = names("patchable")
LIBRARY_CATEGORIES = names("library_call")
REPORTED_IN_LIBRARIES = names("in_libraries")
HOST_CATEGORIES = names("host_side")
LEFT_OUT_CATEGORIES = names("left_out")
SILENT_CATEGORIES = names("silent")
