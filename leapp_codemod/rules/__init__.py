"""The rule registry: every rule module exports `RULE`."""
from __future__ import annotations

from leapp_codemod.rules import (
    array_unpack, astype, bare_squeeze, branch_condition, branch_expression, caller_state, container_input, data_count, exception_fallback, fed_after_state, foreign_buffer, foreign_library, function_transform, inplace_state,
    io_call,
    legacy_constructor, library_conversion, library_value_check,
    mask_index, mixed_operands, negative_stride, number_input, numpy_method, outside_input, plain_index_write, random_draw, scalar_cast, scalar_item, scalar_list_join, scratch_buffer, script_function,
    shape_branch, train_mode, shape_value, state_reassign, table_index, tensor_data, text_number, unmapped_numpy, warp_kernel, world_step,
)
from leapp_codemod.rules.base import Hit, Rule

ALL_RULES: tuple[Rule, ...] = tuple(sorted((
    m.RULE for m in (
        scalar_item, scalar_cast, number_input, array_unpack, branch_condition, branch_expression, unmapped_numpy, numpy_method,
        foreign_library, negative_stride, astype, inplace_state, state_reassign, scratch_buffer, random_draw, io_call,
        shape_branch, shape_value, warp_kernel, bare_squeeze, scalar_list_join, mask_index,
        legacy_constructor, table_index, data_count, foreign_buffer, tensor_data, container_input, caller_state, text_number,
        exception_fallback, fed_after_state, mixed_operands, script_function, library_value_check, library_conversion,
        function_transform, outside_input, plain_index_write, train_mode, world_step,
    )), key=lambda rule: rule.code))


def get_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (`LCM101`, any case) or name (`item-call`)."""
    wanted = code_or_name.strip()
    return next((rule for rule in ALL_RULES if rule.code == wanted.upper() or rule.name == wanted.lower()), None)


def selects(selector: str, rule: Rule) -> bool:
    """Whether one selector (code or code prefix, rule name, category, `ALL`) covers `rule`."""
    wanted = selector.strip()
    return (rule.code.startswith(wanted.upper()) or wanted.lower() in (rule.category, rule.name)
            or wanted.upper() == "ALL")


def select_rules(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    """Rules enabled by code prefixes, rule names or categories (`LCM1`, `LCM101`, `item-call`, `tensor-branch`)."""
    def matches(rule: Rule, selectors: tuple[str, ...]) -> bool:
        return any(selects(s, rule) for s in selectors)
    chosen = [r for r in ALL_RULES if not select or matches(r, select)]
    return tuple(r for r in chosen if not (ignore and matches(r, ignore)))


def codes_for(selectors) -> frozenset[str]:
    """The rule codes a set of selectors covers (for suppressions and per-file ignores)."""
    selectors = tuple(selectors)
    return frozenset(rule.code for rule in ALL_RULES if any(selects(s, rule) for s in selectors))


def unknown_selectors(selectors: tuple[str, ...]) -> list[str]:
    return [s for s in selectors if not any(selects(s, r) for r in ALL_RULES)]


__all__ = ["ALL_RULES", "Hit", "Rule", "codes_for", "get_rule", "select_rules", "selects", "unknown_selectors"]
