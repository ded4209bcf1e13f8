"""Deployment semantics (`generate --semantics`): which entry inputs and outputs have a meaning that is
unambiguous from the application's own names, type annotations or docstrings, as LEAPP's standard
`InputKindEnum` / `OutputKindEnum` kinds, and the joint order from an ordered name list in the
application. Normalized features, latent vectors and mixed observations are never guessed.

Read from source only (`ast`); the kinds are checked against the installed leapp's enums file.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

# Meaning -> (enum member, phrases naming it). A phrase is a sequence of tokens; it matches a name
# (parameter, return name, annotation) whose tokens are exactly the phrase, and a docstring
# description that contains the phrase.
INPUT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("JOINT_POSITION", ("joint pos", "joint position", "joint positions", "dof pos", "joint angles", "qpos")),
    ("JOINT_VELOCITY", ("joint vel", "joint velocity", "joint velocities", "dof vel", "qvel")),
    ("JOINT_EFFORT", ("joint effort", "joint efforts", "joint torque", "joint torques", "dof effort")),
    ("BODY_ANGULAR_VELOCITY", ("base ang vel", "base angular velocity", "body angular velocity",
                               "root ang vel")),
    ("BODY_LINEAR_VELOCITY", ("base lin vel", "base linear velocity", "body linear velocity", "root lin vel")),
    ("BODY_ROTATION", ("base quat", "base orientation", "body orientation", "root quat")),
    ("VECTOR3D", ("projected gravity", "gravity vec", "projected gravity b")),
    ("COMMAND_BODY_VELOCITY", ("velocity command", "velocity commands", "vel cmd", "cmd vel", "vel command",
                               "base velocity command")),
    ("COMMAND_JOINT_POSITION", ("joint pos command", "joint position command")),
)
OUTPUT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("JOINT_POSITION", ("joint pos target", "joint pos targets", "joint position target", "joint position targets",
                        "target joint pos", "joint targets", "target joint positions")),
    ("JOINT_VELOCITY", ("joint vel target", "joint velocity target", "joint velocity targets")),
    ("JOINT_TORQUES", ("joint torques", "joint torque", "torques", "joint efforts")),
    ("KP", ("kp", "stiffness", "joint stiffness")),
    ("KD", ("kd", "damping", "joint damping")),
)
# Per-joint kinds get the application's joint order as element names; 3-vectors get x, y, z.
JOINT_KINDS = frozenset({"JOINT_POSITION", "JOINT_VELOCITY", "JOINT_EFFORT", "JOINT_TORQUES",
                         "COMMAND_JOINT_POSITION", "KP", "KD"})
VECTOR_KINDS = frozenset({"BODY_ANGULAR_VELOCITY", "BODY_LINEAR_VELOCITY", "VECTOR3D"})
# Words that make a tensor's meaning a model-internal one: never guessed, left raw and reported.
NEVER_GUESSED = {"normalized": "normalized", "normalised": "normalized", "norm": "normalized",
                 "scaled": "normalized", "standardized": "normalized", "latent": "a latent vector",
                 "embedding": "a latent vector", "hidden": "a latent vector", "features": "features",
                 "feature": "features", "obs": "a mixed observation", "observation": "a mixed observation",
                 "observations": "a mixed observation", "proprio": "a mixed observation",
                 "action": "a policy action", "actions": "a policy action"}
_JOINT_LIST = re.compile(r"(joint|dof)s?_?names?$", re.IGNORECASE)
_ENUMS = Path("utils", "enums.py")


class SemanticsError(Exception):
    """--semantics cannot be applied (one line)."""


@dataclass(frozen=True)
class Meaning:
    name: str
    kind: str                          # enum member name, e.g. "JOINT_POSITION"
    element_names: tuple[str, ...]
    source: str                        # how the meaning was found


@dataclass(frozen=True)
class SemanticsSpec:
    inputs: tuple[Meaning, ...]
    outputs: tuple[Meaning, ...]
    raw: tuple[tuple[str, str], ...]   # (tensor, why it stays raw)
    joint_names_at: str                # "path:line NAME" of the ordered joint list used, "" when none


def tokens(text: str) -> tuple[str, ...]:
    """`baseAngVel` / `base_ang_vel` / `Base angular velocity` -> ('base', 'ang', 'vel')."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return tuple(t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t)


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


def _never(words: tuple[str, ...]) -> str | None:
    return next((NEVER_GUESSED[w] for w in words if w in NEVER_GUESSED), None)


def _kinds_named(text: str, table, whole: bool) -> set[str]:
    words = tokens(text)
    return {kind for kind, phrases in table for p in phrases
            if (words == tokens(p) if whole else _contains(words, tokens(p)))}


def docstring_descriptions(fn: ast.FunctionDef) -> dict[str, str]:
    """`name: text`, `name (type): text` and `:param name: text` lines of the docstring."""
    doc = ast.get_docstring(fn) or ""
    out: dict[str, str] = {}
    for line in doc.splitlines():
        m = re.match(r"\s*(?::param\s+)?(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$", line)
        if m and m.group(1) not in ("Args", "Returns", "Parameters", "param"):
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def _annotation_text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    text = ast.unparse(node)
    return "" if re.fullmatch(r"(torch\.)?Tensor|(np\.|numpy\.)?ndarray|Any|None", text) else text.split(".")[-1]


def meaning_of(name: str, annotation: str, description: str, table) -> tuple[str | None, str]:
    """(kind or None, how it was decided / why it stays raw)."""
    for text, what in ((name, "name"), (annotation, "type annotation"), (description, "docstring")):
        why = _never(tokens(text)) if text else None
        if why:
            return None, f"{what} says {why}: never guessed"
    found: dict[str, str] = {}
    for text, what, whole in ((name, "name", True), (annotation, "type annotation", True),
                              (description, "docstring", False)):
        for kind in _kinds_named(text, table, whole) if text else ():
            found.setdefault(kind, what)
    if len(found) == 1:
        kind, what = next(iter(found.items()))
        return kind, what
    if len(found) > 1:
        return None, f"ambiguous ({', '.join(sorted(found))})"
    return None, "no unambiguous meaning in its name, annotation or docstring"


def joint_name_lists(root: Path, shown_from: Path) -> list[tuple[str, tuple[str, ...]]]:
    """("path:line NAME", names) of every literal tuple/list of strings named like `joint_names` under
    `root` (paths shown relative to `shown_from`)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) and node.value is not None else []
            for t in targets:
                label = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
                if not _JOINT_LIST.search(label) or not isinstance(node.value, (ast.Tuple, ast.List)):
                    continue
                items = node.value.elts
                if items and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
                    rel = Path(os.path.relpath(path, shown_from)).as_posix()
                    found.append((f"{rel}:{node.lineno} {label}", tuple(e.value for e in items)))
    return found


def installed_kinds() -> tuple[frozenset[str], frozenset[str]]:
    """Member names of InputKindEnum and OutputKindEnum in the installed leapp (read, not imported)."""
    try:
        spec = importlib.util.find_spec("leapp")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise SemanticsError("--semantics needs the installed leapp (its InputKindEnum/OutputKindEnum kinds)")
    path = Path(next(iter(spec.submodule_search_locations))) / _ENUMS
    tree = ast.parse(path.read_text(encoding="utf-8"))
    members: dict[str, frozenset[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members[node.name] = frozenset(t.id for s in node.body if isinstance(s, ast.Assign)
                                           for t in s.targets if isinstance(t, ast.Name))
    return members.get("InputKindEnum", frozenset()), members.get("OutputKindEnum", frozenset())


def build_semantics(root: Path, fn: ast.FunctionDef, inputs: tuple[str, ...], outputs: tuple[str, ...],
                    app_dir: Path) -> SemanticsSpec:
    input_enum, output_enum = installed_kinds()
    lists = {names: where for where, names in joint_name_lists(app_dir, root)}
    joints = next(iter(lists)) if len(lists) == 1 else ()
    joints_at = lists[joints] if joints else ""
    described = docstring_descriptions(fn)
    annotations = {a.arg: _annotation_text(a.annotation) for a in [*fn.args.args, *fn.args.kwonlyargs]}
    raw: list[tuple[str, str]] = []

    def decide(names, table, enum, returns: str):
        out = []
        for name in names:
            kind, how = meaning_of(name, annotations.get(name, returns), described.get(name, ""), table)
            if kind is None:
                raw.append((name, how))
                continue
            if kind not in enum:
                raw.append((name, f"the installed leapp has no kind {kind}"))
                continue
            element_names: tuple[str, ...] = ()
            source = how
            if kind in JOINT_KINDS and joints:
                element_names, source = joints, f"{how}; joint order {joints_at}"
            elif kind in VECTOR_KINDS:
                element_names = ("x", "y", "z")
            out.append(Meaning(name, kind, element_names, source))
        return tuple(out)

    returns = _annotation_text(fn.returns) if len(outputs) == 1 else ""
    spec_in = decide(inputs, INPUT_KINDS, input_enum, "")
    spec_out = decide(outputs, OUTPUT_KINDS, output_enum, returns)
    if len(lists) > 1:
        why = f"{len(lists)} different joint name lists ({', '.join(lists.values())}); no element_names written"
        raw.append(("(joint order)", why))
    return SemanticsSpec(spec_in, spec_out, tuple(raw), joints_at)
