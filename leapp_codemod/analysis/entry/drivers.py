"""Which code drives the application, and which code only looks like it does.

Drivers are a module's top-level statements (its `if __name__ == "__main__":` block included) when
they run something, and the functions those statements call. Callers in tests and training loops
(code that calls `.backward()` or steps an optimizer) are not drivers of the exported pipeline.
"""
from __future__ import annotations

import ast
import functools
import re
from pathlib import PurePosixPath

from leapp_codemod.analysis.model.index import (FunctionInfo, ModuleIndex, is_test_module,  # noqa: F401 (re-exported)
                                                is_test_path)
from leapp_codemod.knowledge.vocab import GRADIENT_CALLS

MODULE_QUALNAME = "<module>"
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
_OPTIMIZER_WORDS = ("optim", "sched", "scaler")


def module_body_function(module: ModuleIndex) -> FunctionInfo | None:
    """The module's executable top-level statements as one pseudo-function, or None when it has none.

    Definitions and imports are left out; the body of a `__main__` block stays in (it is an `if`).
    """
    body = [stmt for stmt in module.tree.body
            if not isinstance(stmt, _DEFINITIONS) and not _is_plain_assignment(stmt)]
    if not body:
        return None
    kept = [stmt for stmt in module.tree.body if not isinstance(stmt, _DEFINITIONS)]
    node = ast.FunctionDef(name=MODULE_QUALNAME, args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                                                      kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                                      defaults=[]),
                           body=kept, decorator_list=[], returns=None, lineno=kept[0].lineno, col_offset=0,
                           end_lineno=kept[-1].end_lineno, end_col_offset=0)
    return FunctionInfo(f"{module.name}:{MODULE_QUALNAME}", module.name, MODULE_QUALNAME, node, None, module.path)


def _is_plain_assignment(stmt: ast.stmt) -> bool:
    """Constants and docstrings: a module made of them runs nothing."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return not any(isinstance(n, ast.Call) for n in ast.walk(stmt))
    return False


# Words in a function, class or file name that say it trains (`train.py`, `learn`, `_update_learning_rate`).
TRAINING_WORDS = frozenset({"train", "training", "trainer", "learn", "fit", "update", "optimize", "backward",
                            "loss", "finetune"})


def name_words(name: str) -> set[str]:
    """Lower-case words of a snake_case, CamelCase or dotted name."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


# Last words of a function name that say it acts: `update_belief_and_act` updates a filter to act, it does not train.
ACTING_WORDS = frozenset({"act", "action", "actions", "predict", "infer", "inference", "control"})


def _names_acting(name: str) -> bool:
    words = re.split(r"[^A-Za-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())
    return bool(words) and words[-1] in ACTING_WORDS


def is_training_loop(fn: FunctionInfo) -> bool:
    """Training code, decided by what it does: it calls `.backward()`/`.zero_grad()`, steps something named
    like an optimizer or scheduler with at most one argument, samples a replay buffer, or calls a method
    named for training (`agent.learn()`, `trainer.train_step(batch)`); or the function or its class is named
    like it (`train_epoch`, `PPOTrainer.rollout`). A module path alone (`train/evaluator.py`, `train.py`)
    decides nothing: it only breaks ties (`in_training_path`)."""
    owner = fn.qualname if not _names_acting(fn.name) else fn.qualname.rpartition(".")[0]
    if owner != MODULE_QUALNAME and _training_words(name_words(owner)):
        return True
    return any(training_operation(node) for node in fn.nodes if isinstance(node, ast.Call))


def _training_words(words: set[str]) -> bool:
    return bool((words | {w[:-1] for w in words if w.endswith("s")}) & TRAINING_WORDS)   # `trainers`, `updates`


# Receivers whose `.sample(n)` draws a training batch (`replay_buffer.sample(256)`, `self.memory.sample(b)`).
_BUFFER_WORDS = frozenset({"buffer", "replay", "memory", "storage", "rb"})
# ... and names of a replay buffer handed to an update (`agent.update(replay_buffer, L, step)`).
_REPLAY_WORDS = frozenset({"replay", "rb"})
# Words of a called method that trains what it is called on (`agent.learn()`, `self.train_step(batch)`).
_TRAINING_CALL_WORDS = frozenset({"train", "training", "learn", "fit", "optimize", "finetune", "backward"})
# A method that stores what it names as training data (`trainer.store_transition(obs, a, r, ...)`,
# `agent.add_experience(...)`): a store verb and a transition word in its name.
_STORE_VERBS = frozenset({"store", "add", "push", "insert", "append", "save", "record", "remember"})
_TRANSITION_WORDS = frozenset({"transition", "transitions", "experience", "experiences"})


def training_operation(call: ast.Call) -> bool:
    """Is the call a training operation: a gradient call, an optimizer or scheduler step, a replay-buffer
    sample, a method named for training, or one that stores a transition?"""
    if not isinstance(call.func, ast.Attribute):
        return False
    attr = call.func.attr
    if attr in GRADIENT_CALLS:
        return True
    if attr == "step" and len(call.args) + len(call.keywords) <= 1:
        # `optimizer.step()`, `scaler.step(optimizer)`, `lr_scheduler.step(epoch)`; not a diffusion
        # sampler's `noise_scheduler.step(noise_pred, t, sample)`, which runs at inference
        receiver = ast.unparse(call.func.value).lower()
        return any(word in receiver for word in _OPTIMIZER_WORDS)
    if attr == "sample":
        receiver = call.func.value
        last = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        return bool(name_words(last) & _BUFFER_WORDS)
    if any(isinstance(arg, ast.Name) and _call_words(arg.id) & _REPLAY_WORDS for arg in call.args):
        return True    # `agent.update(replay_buffer, logger, step)`: an update fed from the replay buffer
    words = _call_words(attr)
    return bool(words & _TRAINING_CALL_WORDS) or bool(words & _STORE_VERBS and words & _TRANSITION_WORDS)


@functools.lru_cache(maxsize=4096)
def _call_words(name: str) -> frozenset[str]:
    return frozenset(name_words(name))


def in_training_path(path: str) -> bool:
    """Is the file named like training code, or in a package that is (`train.py`, `trainers/ppo.py`)? Only a
    tie-break. A file whose own name says it evaluates or deploys (`train/evaluator.py`, `learn/play.py`) and not
    that it trains runs the trained policy, wherever it sits."""
    pure = PurePosixPath(path).with_suffix("")
    own = name_words(pure.name)
    if own & PATH_EVALUATION_WORDS and not _training_words(own):
        return False
    return _training_words(name_words(" ".join(pure.parts)))


# Words of a flag that selects evaluating a trained policy instead of training it (`if args.test:`,
# `if args.demo:`, `if cfg.eval_only:`): such a branch of training code runs the policy as a user deploys it.
EVALUATION_FLAG_WORDS = frozenset({"test", "testing", "eval", "evaluate", "evaluation", "demo", "play", "deploy",
                                   "inference", "infer", "enjoy"})
# ... and words of a file name that say it evaluates or deploys a trained policy (`evaluator.py`, `play.py`).
PATH_EVALUATION_WORDS = EVALUATION_FLAG_WORDS - {"test", "testing"} | {"evaluator", "rollout", "sim2sim", "sim2real"}


def evaluation_branch_calls(fn: FunctionInfo) -> set[int]:
    """In training code, the ids of the calls made in the body of an `if` on an evaluation flag (`if args.test:
    for _ in range(n): a = act(obs)`, `if args.demo: eval_performance(env, agent)`): that branch does not train,
    it runs the trained policy. A test on anything else (`if epoch % 10 == 0`) is no evaluation flag. Inside a
    loop, a periodic evaluation (`if epoch % 10 == 0:`, `if eval_mode:`) is part of training; only an `if`
    that an evaluation flag alone also opens (`if epoch % 10 == 0 or args.eval_only:`, the run that loads a
    checkpoint and only evaluates) is searched there."""
    out: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(stmt, False) for stmt in fn.node.body]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and (_opened_by_flag(node.test) if looped else _is_evaluation_flag(node.test)):
            out |= {id(call) for stmt in node.body for call in ast.walk(stmt) if isinstance(call, ast.Call)}
            stack.extend((child, looped) for child in node.orelse)
            continue
        inner = looped or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return out


def _opened_by_flag(test: ast.expr) -> bool:
    """`a or args.eval_only`: one operand of a top-level `or` is an evaluation flag on its own."""
    return isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and any(
        _is_evaluation_flag(value) for value in test.values)


def _is_evaluation_flag(test: ast.expr) -> bool:
    """`args.test`, `cfg.eval_only`, `demo` (a bare flag, or compared to True); not a call or arithmetic."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is True:
        test = test.left
    if isinstance(test, ast.Attribute):
        name = test.attr
    elif isinstance(test, ast.Name):
        name = test.id
    else:
        return False
    return bool(name_words(name) & EVALUATION_FLAG_WORDS) and not name_words(name) & TRAINING_WORDS


def loops_of(fn: FunctionInfo):
    """Every loop statement in the function's own body (nested functions and classes excluded).

    A constructor's loops build the object; they do not drive anything.
    """
    if fn.name == "__init__":
        return
    stack: list[ast.AST] = list(fn.node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


DRIVER_DEPTH = 3    # calls below a driver root that are still its driver code


def driver_ids(roots: list[FunctionInfo], callees: dict[str, set[str]], depth: int = DRIVER_DEPTH,
               blocked: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The roots plus what they call, `depth` calls deep. A driver's calls of its own class's methods
    (`self._run()` -> `self._run_policy_depth()`) cost no depth: they are the driver's own code. What only
    `blocked` functions (training code, tests) call is not reached: a training loop's rollout helper is no
    driver because the script that trains is one."""
    seen = _own_methods({fn.id for fn in roots}, callees)
    frontier = set(seen)
    for _ in range(depth):
        frontier = {c for fid in frontier - blocked for c in callees.get(fid, ())} - seen
        frontier = _own_methods(frontier, callees) - seen
        seen |= frontier
    return seen


def _class_of(fid: str) -> str | None:
    module, _, qualname = fid.partition(":")
    owner, dot, _ = qualname.rpartition(".")
    return f"{module}:{owner}" if dot and "<locals>" not in qualname else None


def _own_methods(fids: set[str], callees: dict[str, set[str]]) -> set[str]:
    """`fids` and the methods of their classes they call, transitively."""
    out, todo = set(fids), list(fids)
    while todo:
        fid = todo.pop()
        owner = _class_of(fid)
        for callee in callees.get(fid, ()):
            if owner is not None and callee not in out and _class_of(callee) == owner:
                out.add(callee)
                todo.append(callee)
    return out


def builds_optimizer(cls_node: ast.ClassDef) -> bool:
    """A class that builds an optimizer (`self.opt = torch.optim.Adam(...)`) trains: its loops (a `play` or
    `evaluate` beside `train`) run the training environment, not the deployed pipeline."""
    for node in ast.walk(cls_node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr[:1].isupper():
            value = node.func.value
            while isinstance(value, ast.Attribute):
                if value.attr in ("optim", "optimizers"):
                    return True
                value = value.value
            if isinstance(value, ast.Name) and value.id in ("optim", "optimizers"):
                return True
    return False


def in_trainer(fn: FunctionInfo, project, memo: dict[str, bool]) -> bool:
    """Is `fn` a method of a class that builds an optimizer (a training runner's `play`)?"""
    cls = project.modules[fn.module].classes.get(fn.class_name) if fn.class_name else None
    if cls is None:
        return False
    if cls.id not in memo:
        memo[cls.id] = builds_optimizer(cls.node)
    return memo[cls.id]


def in_tests(fn: FunctionInfo, project) -> bool:
    """Is `fn` in a module a test runner collects (see `is_test_module`)? Its loops drive no pipeline."""
    key = ("test-module", fn.module)
    if key not in project.memo:
        module = project.modules.get(fn.module)
        project.memo[key] = module is not None and is_test_module(module)
    return project.memo[key]
