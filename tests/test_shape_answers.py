"""`is_shape` keeps its answers while the rules run: the same answer for every sub-expression as the
plain walk, and a rule asking about each operator of a long expression walks it once, not once per
operator (asked of each of the 2,000 operators of a sum, the plain walk took 16 million steps)."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.taint import _any_leaf, _any_leaf_kept


def _step(counter: list[int]):
    """A shape question over names only: `n` is a shape, `x` is not; operators, calls and tuples ask
    their parts."""
    def step(e):
        counter[0] += 1
        if isinstance(e, ast.Name):
            return e.id == "n"
        if isinstance(e, ast.BinOp):
            return [e.left, e.right]
        if isinstance(e, ast.Call):
            return list(e.args)
        if isinstance(e, (ast.Tuple, ast.List)):
            return list(e.elts)
        return False
    return step


def _expressions(tree: ast.AST) -> list[ast.expr]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.expr)]


def test_kept_answers_equal_the_plain_walk_for_every_sub_expression():
    # calls, tuples and operators mixed, one shape leaf deep inside, several parts without one
    tree = ast.parse("f(x, (x + g(x, n) * 2, [x, x - 1]), x) - h(x)[0] + (x, (x, n))", mode="eval")
    kept: dict[int, tuple] = {}
    for order in (_expressions(tree), list(reversed(_expressions(tree)))):
        kept.clear()
        for node in order:
            assert _any_leaf_kept(node, _step([0]), kept) == _any_leaf(node, _step([0])), ast.unparse(node)


def test_asking_every_operator_of_a_long_chain_walks_it_once():
    terms = 400
    tree = ast.parse(" - ".join(["g(x)"] * terms), mode="eval")
    operators = [node for node in ast.walk(tree) if isinstance(node, ast.BinOp)]
    kept, counted = {}, [0]
    assert not any(_any_leaf_kept(node, _step(counted), kept) for node in operators)
    plain = [0]
    assert not any(_any_leaf(node, _step(plain)) for node in operators)
    nodes = len(_expressions(tree))
    assert counted[0] <= nodes < plain[0] // 50       # linear in the tree, where the plain walk is quadratic
