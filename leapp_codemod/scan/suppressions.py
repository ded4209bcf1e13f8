"""`# leapp: ignore` and `# leapp: ignore[CODE, ...]` comments."""
from __future__ import annotations

import io
import re
import tokenize

_PATTERN = re.compile(r"#\s*leapp:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?", re.I)
ALL = frozenset({"*"})


def parse_suppressions(text: str) -> dict[int, frozenset[str]]:
    """Line number -> suppressed codes (`{"*"}` for a bare ignore). Only real comments count."""
    if "leapp:" not in text:
        return {}
    out: dict[int, frozenset[str]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        match = _PATTERN.search(tok.string)
        if not match:
            continue
        codes = match.group(1)
        parsed = frozenset(c.strip().upper() for c in codes.split(",") if c.strip()) if codes is not None else ALL
        out[tok.start[0]] = out.get(tok.start[0], frozenset()) | (parsed or ALL)
    return out


def is_suppressed(suppressions: dict[int, frozenset[str]], line: int, end_line: int, code: str) -> bool:
    for number in {line, end_line}:
        codes = suppressions.get(number)
        if codes and ("*" in codes or any(code.startswith(c) for c in codes) or code in _named(codes)):
            return True
    return False


def _named(selectors: frozenset[str]) -> frozenset[str]:
    """Codes of the rules named in a suppression (`# leapp: ignore[item-tolist]`)."""
    from leapp_codemod.rules import codes_for
    return codes_for(s for s in selectors if "-" in s)
