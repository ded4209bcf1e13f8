"""The runner's errors and how an exception is told in one line (shared by every runner module)."""
from __future__ import annotations

import re

from leapp_codemod.knowledge.leapp import MODEL_INVALID


class RunnerError(Exception):
    """A one-line reason the run cannot continue (stage says where)."""

    def __init__(self, message: str, stage: str = "run"):
        super().__init__(message)
        self.stage = stage


class EnoughCalls(BaseException):
    """Raised into the driver once every needed call is recorded (a BaseException so that the
    driver's own `except Exception` handlers do not swallow it)."""


# A library that re-raises an error as `type(error)(message)` fails on an exception class whose
# constructor takes other arguments (LEAPP's fatal() with torch's UnsupportedOperatorError); the
# TypeError it gets names the class, the error it meant to raise is in the exception chain.
_BROKEN_RAISE = re.compile(r"^(\w+)\.__init__\(\) missing \d+ required (?:positional|keyword-only) argument")
_BROKEN_FALLBACK = {"UnsupportedOperatorError": "the torchscript ONNX exporter failed inside torch while reporting "
                                               "an unsupported operator"}


def told(exc: BaseException) -> tuple[str, str]:
    """(type name, message) to report for `exc`: for a TypeError raised while constructing another
    exception (see _BROKEN_RAISE) the exception it meant to raise, found in the chain (cause or
    context), or a sentence saying what failed; never the TypeError's own text."""
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    broken = _BROKEN_RAISE.match(message) if isinstance(exc, TypeError) else None
    if broken is None:
        return type(exc).__name__, message
    seen: set[int] = set()
    inner = exc.__cause__ or exc.__context__
    while inner is not None and id(inner) not in seen:
        seen.add(id(inner))
        if type(inner).__name__ == broken.group(1) and str(inner).strip():
            return told(inner)
        inner = inner.__cause__ or inner.__context__
    return broken.group(1), _BROKEN_FALLBACK.get(
        broken.group(1), f"the exporter failed while raising {broken.group(1)}, whose own message is lost")


def one_line(exc: BaseException, limit: int = 240) -> str:
    """`Type: first line of the message`, without colour codes; a longer text is cut at a word
    boundary and ends with '...'."""
    name, message = told(exc)
    lines = [ln for ln in message.splitlines() if ln.strip()]
    first = " ".join(lines[0].split()) if lines else ""
    text = f"{name}: {first}" if first else name
    return cut(text, limit)


def full_text(exc: BaseException) -> str:
    """`Type: message` with every line of the message joined, colour codes removed, never cut."""
    name, message = told(exc)
    lines = [" ".join(ln.split()) for ln in message.splitlines()]
    message = " ".join(ln for ln in lines if ln)
    return f"{name}: {message}" if message else name


def cut(text: str, limit: int) -> str:
    """`text` shortened to at most `limit` characters at a word boundary ('...' marks the cut)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 3]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "..."


def where(exc: BaseException) -> str:
    """`Type: message (at file:line)` of an exception, its innermost frame named."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    at = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return one_line(exc, 200) + at


# Torch's and Python's words for a call that refused its arguments: `cumsum() missing 1 required ...`.
_FAILING_OP = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(\):? (?:missing|got|takes|received|argument)")


def failing_op(error: str) -> str:
    """The function a graph error names as refusing its arguments (`cumsum`), or ''."""
    m = _FAILING_OP.search(error or "")
    return m.group(1) if m else ""


def model_invalid(reason: str | None) -> bool:
    """An exporter's error that says the model it wrote is invalid (refused by the ONNX checker, or by ONNX
    Runtime when loading it): nothing of the model ran, so it says nothing about the trace."""
    return any(m in (reason or "") for m in MODEL_INVALID)
