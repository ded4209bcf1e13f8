"""The knowledge layer's tables agree with the rest of the tool: one row per finding category, every LEAPP
log signal the runner names confirms some category, the vocabularies' intended differences hold."""
from __future__ import annotations

from leapp_codemod.knowledge import categories, vocab
from leapp_codemod.model import Category
from leapp_codemod.rules import ALL_RULES


def test_one_row_per_category():
    assert [row.name for row in categories.CATEGORIES] == [c.value for c in Category]
    assert {rule.category for rule in ALL_RULES} <= set(categories.BY_NAME)


def test_every_runner_signal_confirms_a_category_and_every_row_signal_is_named_by_the_runner():
    from leapp_codemod.runner.logcap import PATTERNS, SIGNAL_OF
    named = {signal for _, signal in SIGNAL_OF} | {"scalar-extraction"}   # + LEAPP's debug record of .item()
    assert all(cats for _, _, cats in PATTERNS)
    assert {s for row in categories.CATEGORIES for s in row.log_signals} == named


def test_columns_select_rows():
    assert categories.names("library_call") <= categories.PATCHABLE_CATEGORIES
    assert not categories.HOST_CATEGORIES & categories.LEFT_OUT_CATEGORIES
    assert categories.confirmed_by("setitem") == ("inplace-state",)
    assert categories.confirmed_by("no such signal") == ()


def test_vocabulary_differences_are_the_written_ones():
    assert vocab.NDARRAY_RESULT_METHODS <= vocab.NDARRAY_METHODS
    assert vocab.FRESH_COPY_METHODS.isdisjoint(vocab.DEVICE_DTYPE_MOVES)
    assert vocab.SAME_VALUE_METHODS - vocab.TENSOR_COPY_METHODS == {"type"}
    assert vocab.TENSOR_COPY_METHODS <= vocab.NAME_KEEPING_CONVERSIONS
    assert vocab.LOOP_MUTATORS & vocab.CONTAINER_MUTATORS == vocab.CONTAINER_MUTATORS - {"remove", "add", "discard"}
    assert vocab.TENSOR_LIBRARY_NAMES < vocab.LIBRARY_NAMES
