"""The rule registry: every rule module exports `RULE`."""
from __future__ import annotations

from leapp_codemod.rules import (
    astype, branch_condition, branch_expression, foreign_library, inplace_state, io_call, negative_stride,
    numpy_method, random_draw, scalar_cast, scalar_item, shape_branch, shape_value, state_reassign,
    unmapped_numpy, warp_kernel,
)
from leapp_codemod.rules.base import Hit, Rule

ALL_RULES: tuple[Rule, ...] = tuple(sorted((
    m.RULE for m in (
        scalar_item, scalar_cast, branch_condition, branch_expression, unmapped_numpy, numpy_method,
        foreign_library, negative_stride, astype, inplace_state, state_reassign, random_draw, io_call,
        shape_branch, shape_value, warp_kernel,
    )), key=lambda rule: rule.code))


def get_rule(code: str) -> Rule | None:
    wanted = code.strip().upper()
    return next((rule for rule in ALL_RULES if rule.code == wanted), None)


def select_rules(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    """Rules enabled by code prefixes or category names (ruff-style: `LCM1`, `LCM101`, `tensor-branch`)."""
    def matches(rule: Rule, selectors: tuple[str, ...]) -> bool:
        return any(rule.code.startswith(s.upper()) or rule.category == s.lower() or s.upper() == "ALL"
                   for s in selectors)
    chosen = [r for r in ALL_RULES if not select or matches(r, select)]
    return tuple(r for r in chosen if not (ignore and matches(r, ignore)))


def unknown_selectors(selectors: tuple[str, ...]) -> list[str]:
    return [s for s in selectors if not any(
        r.code.startswith(s.upper()) or r.category == s.lower() or s.upper() == "ALL" for r in ALL_RULES)]


__all__ = ["ALL_RULES", "Hit", "Rule", "get_rule", "select_rules", "unknown_selectors"]
