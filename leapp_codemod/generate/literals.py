"""Python literals and names the generated module spells (shared by the spec and its extras)."""
from __future__ import annotations

import json
import re


def pystr(text: str) -> str:
    """A double-quoted Python string literal."""
    return json.dumps(text)


def tuple_literal(items) -> str:
    """A Python tuple literal of strings."""
    items = [pystr(i) for i in items]
    if not items:
        return "()"
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


def selector_literal(items) -> str:
    """A Python tuple literal of ints and strings (`(1, 2)`, `("payload", "data")`)."""
    parts = [str(i) if isinstance(i, int) else pystr(i) for i in items]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def line_text_literal(items) -> str:
    """A Python tuple literal of (line, text) pairs: `((46, "msg.header"),)`."""
    parts = [f"({line}, {pystr(text)})" for line, text in items]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def default_graph_name(qualname: str) -> str:
    parts = qualname.split(".")
    base = parts[0] if len(parts) > 1 else parts[-1]
    return re.sub(r"[^0-9a-zA-Z_]", "_", snake(base))
