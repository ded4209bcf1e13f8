"""The runner's errors and how an exception is told in one line (shared by every runner module)."""
from __future__ import annotations

import re


class RunnerError(Exception):
    """A one-line reason the run cannot continue (stage says where)."""

    def __init__(self, message: str, stage: str = "run"):
        super().__init__(message)
        self.stage = stage


class EnoughCalls(BaseException):
    """Raised into the driver once every needed call is recorded (a BaseException so that the
    driver's own `except Exception` handlers do not swallow it)."""


def one_line(exc: BaseException, limit: int = 240) -> str:
    """`Type: first line of the message`, without colour codes; a longer text is cut at a word
    boundary and ends with '...'."""
    lines = [ln for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines() if ln.strip()]
    first = " ".join(lines[0].split()) if lines else ""
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return cut(text, limit)


def full_text(exc: BaseException) -> str:
    """`Type: message` with every line of the message joined, colour codes removed, never cut."""
    lines = [" ".join(ln.split()) for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()]
    message = " ".join(ln for ln in lines if ln)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


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
