"""The Warp setup `generate` writes when the scan found Warp kernels in the pipeline."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from leapp_codemod.model import Category, ScanResult

# Only these exporters carry Warp kernels (LEAPP's Warp guide); the runner's ladder is limited to them.
WARP_EXPORTERS = ("onnx", "pt2")
# The Warp path must run once to discover the kernels and again to capture them.
WARP_MIN_TRACES = 2


@dataclass(frozen=True)
class WarpSpec:
    uses: tuple[str, ...]          # "path:line" of each Warp call the scan found

    @property
    def uses_lines(self) -> list[str]:
        return textwrap.wrap(f"Warp: the pipeline runs Warp kernels ({', '.join(self.uses)}).", 104,
                             break_on_hyphens=False)

    @property
    def exporters_literal(self) -> str:
        return "(" + ", ".join(f'"{e}"' for e in WARP_EXPORTERS) + ")"

    @property
    def min_traces(self) -> int:
        return WARP_MIN_TRACES


class WarpSetupError(Exception):
    """The requested exporter cannot carry Warp kernels."""


def warp_spec(scan: ScanResult, export_with: str) -> WarpSpec | None:
    uses = tuple(dict.fromkeys(f"{f.path}:{f.line}" for f in scan.findings
                               if f.category == Category.WARP_KERNEL.value))
    if not uses:
        return None
    if export_with not in WARP_EXPORTERS:
        raise WarpSetupError(f"--export-with {export_with}: the pipeline launches Warp kernels ({uses[0]}); "
                             f"only {' and '.join(WARP_EXPORTERS)} can export them")
    return WarpSpec(uses)
