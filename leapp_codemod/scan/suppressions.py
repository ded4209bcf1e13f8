"""Suppression comments: `# leapp: ignore`, `# leapp: ignore[CODE, ...]` and, as ruff reads them,
`# noqa` and `# noqa: CODE, ...` (codes of other linters in the same comment are ignored)."""
from __future__ import annotations

import io
import re
import tokenize

_PATTERN = re.compile(r"#\s*leapp:\s*ignore(?:\[([A-Za-z0-9_,\s-]*)\])?", re.I)
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
ALL = frozenset({"*"})


def _noqa_codes(comment: str) -> frozenset[str] | None:
    match = NOQA.search(comment)
    if match is None:
        return None
    codes = match.group("codes")
    return ALL if codes is None else frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c)


def parse_suppressions(text: str) -> dict[int, frozenset[str]]:
    """Line number -> suppressed codes (`{"*"}` for a bare ignore or noqa). Only real comments count."""
    if "leapp:" not in text and "noqa" not in text.lower():
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
        noqa = _noqa_codes(tok.string)
        if match:
            codes = match.group(1)
            parsed = frozenset(c.strip().upper() for c in codes.split(",") if c.strip()) if codes is not None else ALL
            out[tok.start[0]] = out.get(tok.start[0], frozenset()) | (parsed or ALL)
        if noqa is not None:
            out[tok.start[0]] = out.get(tok.start[0], frozenset()) | noqa
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
