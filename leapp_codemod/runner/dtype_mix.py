"""How `run` names a float32/float64 mix: the executed lines taking a matrix product (found by
`graph_check.mixed_dtype_lines` from torch's or ONNX Runtime's words), said in the attempt and at the head
of the one-line verdict, whichever exporter's attempt found them."""
from __future__ import annotations

ADVICE = "NumPy promotes float32 with float64 there, a traced graph does not: make both operands one dtype"


def mixed_dtype_text(lines: list[str]) -> str:
    """How an attempt names the lines."""
    return f"the matrix products the step ran: {', '.join(lines)} ({ADVICE})"


def lead_with_dtype_mix(report: dict, attempts: list[dict]) -> None:
    """Put the first attempt's mixed-dtype lines at the head of `report["error"]` (kept in `dtype_mix`)
    unless the error names them already."""
    mixed = next((a["dtype_mix_lines"] for a in attempts if a.get("dtype_mix_lines")), None)
    if mixed and "error" in report and mixed[0] not in report["error"]:
        report["dtype_mix"] = mixed
        report["error"] = (f"float32 and float64 operands of one matrix product at {', '.join(mixed)} "
                           f"({ADVICE}); {report['error']}")
