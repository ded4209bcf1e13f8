"""What the walk for an inline range's carried names may assume about branches and inner loops that take the same
path on every iteration of the driver loop:

* a test on a setting (`if args.net == "unet":`, an `elif` chain of such, where nothing in the loop rebinds what the
  test reads) takes the same arm every iteration: the arm the configuration picks (a chain without `else` is taken
  to list the configured value), so what every arm writes is written before the reads after it;
* an inner `for i in range(...)` whose body branches on its first pass (`if i == 0: traj = ... else: traj = f(traj)`)
  runs that arm before the others, and an inner loop over `range(16)` (or a name the range binds to a positive
  literal) runs at least once, so what every pass writes is written after it.

A value reused on frames without a new reading (`if camera.fresh: feat = enc(img)`) keeps being carried: that test
reads a value the loop changes.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Steady:
    loop_written: frozenset[str]                  # names the enclosing driver loop binds or changes
    literals: dict[str, int]                      # names the range binds once, to an integer literal
    first_pass: dict[str, int] = field(default_factory=dict)   # inner loop target -> its first value

    def setting_test(self, test: ast.expr) -> bool:
        """A comparison of a setting with text (`args.net == "unet"`, `mode in ("a", "b")`), reading nothing the
        loop changes and calling nothing."""
        if isinstance(test, ast.BoolOp):
            return all(self.setting_test(v) for v in test.values)
        if not isinstance(test, ast.Compare) or any(isinstance(n, ast.Call) for n in ast.walk(test)):
            return False
        parts = [test.left, *test.comparators]
        texts = [p for p in parts if _text(p)]
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        return bool(texts) and bool(names) and not names & self.loop_written

    def first_pass_test(self, test: ast.expr) -> bool:
        """`i == 0` for the target `i` of an inner loop over a range starting at 0."""
        return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Name) and test.left.id in self.first_pass
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value == self.first_pass[test.left.id])

    def entering(self, loop: ast.For | ast.AsyncFor) -> "Steady":
        start = _range_start(loop.iter)
        if start is None or not isinstance(loop.target, ast.Name):
            return self
        return replace(self, first_pass={**self.first_pass, loop.target.id: start})

    def runs(self, loop: ast.For | ast.AsyncFor) -> bool:
        """The loop is over `range(n)` with n a positive literal, or a name the range binds to one."""
        if _range_start(loop.iter) != 0 or len(loop.iter.args) != 1:
            return False
        count = loop.iter.args[0]
        if isinstance(count, ast.Name):
            return self.literals.get(count.id, 0) > 0
        return isinstance(count, ast.Constant) and isinstance(count.value, int) and count.value > 0


def _text(e: ast.expr) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    return isinstance(e, (ast.Tuple, ast.List, ast.Set)) and bool(e.elts) and all(_text(x) for x in e.elts)


def _range_start(it: ast.expr) -> int | None:
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and it.args):
        return None
    if len(it.args) == 1:
        return 0
    first = it.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, int) else None


def steady_for(statements: list[ast.stmt], loop_events) -> Steady:
    """The assumptions for a range's statements inside a driver loop whose events (name, kind, line) are given."""
    from leapp_codemod.analysis.inline.uses import uses

    lines: dict[str, list[int]] = {}
    for name, kind, line in uses(statements):
        if kind in "wm":
            lines.setdefault(name, []).append(line)
    bound: dict[str, list] = {}
    for node in (n for s in statements for n in ast.walk(s)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound.setdefault(node.targets[0].id, []).append(node.value)
    literals = {n: v[0].value for n, v in bound.items() if len(v) == 1 and len(lines.get(n, ())) == 1
                and isinstance(v[0], ast.Constant) and type(v[0].value) is int}
    return Steady(frozenset(n for n, k, _ in loop_events if k in "wm"), literals)
