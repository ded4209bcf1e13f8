"""Candidates tied on score in different scripts: which one the user runs.

Two signals, in this order, each named in the winner's reasons:

1. **The derived script of a near-copy that brings its own model.** Deploy folders often keep a vendor's
   script next to the project's own version of it (`deploy.py` running a loaded TorchScript file, and
   `deploy_dwaq.py`, most lines shared, defining the network it runs). The file that adds code of its own to
   the lines both share, among it a network class (`nn.Module`) the other file lacks, is the one the project
   wrote for its policy. A derived file without a network of its own is a variant (a server wrapper, another
   task) and settles nothing.
2. **The one that runs on the robot**: a candidate whose loop advances a physics simulator (`mujoco.mj_step`)
   goes after a tied one whose loop does not (a sim2sim twin of a deploy server is its test harness), and an
   inline range whose loop sends nothing out (a replay of recorded data that keeps its predictions,
   `unsent.py`) goes after a tied range whose loop sends its action.
3. **The script the project's own words run first**, between near-copies: a README (`python track.py`, then
   `python track_arbitrary.py`: the first command is the project's main use), then the documentation, shell
   scripts, launch and container files below the scan root (`run_robot.sh` running
   `python robot/walk.py`, a Dockerfile's `CMD`). Two copies
   with one file name are told apart by the folder the text names with it (`robot/walk.py`). Scripts that
   are no copies of each other are not compared by order (a README names many files); among them only a script
   the texts name at all goes before one they never name (a README listing one node of two that run models).
   A method's script counts as named when the texts name a script that builds its class (`serve_iql.py`
   building `IQLAgent`, whose `act` ties with a baseline agent's near-copy `act` built only by an unnamed script).
   Then a script another file of the project runs by name (a string constant naming it: a subprocess call,
   a launch description) goes before one nothing names.
4. **Not a scratch copy**: a file whose folders or name say test, debug, scratch, tmp, draft or sandbox goes
   after one that does not.
5. **The one the others import from**, between near-copies: a copy that imports the other's module runs on
   top of it.

Nothing else moves: candidates keep their scores. When none of the signals separates the first candidates,
the first one says that they tie (`TIED`), naming the others, so a user picks with `--entry`. Inline ranges in
near-copy scripts tie whatever their lengths: a longer range there holds an extra component of that variant.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from leapp_codemod.analysis.entry.lookup import TIED, is_vendored
from leapp_codemod.analysis.entry.peers import built_count
from leapp_codemod.analysis.model.hydra_configs import project_config_roots
from leapp_codemod.analysis.model.index import is_test_path
from leapp_codemod.analysis.model.resolve_sites import sites_by_class
from leapp_codemod.model import Entrypoint
from leapp_codemod.source.config_files import config_texts
from leapp_codemod.source.parse import read_regular_text

# Two files are near-copies when this share of the smaller one's statement lines is in the other ...
NEAR_COPY_SHARE = 0.6
# ... and the derived one adds at least this many lines of its own, and twice as many as the base.
DERIVED_MIN_LINES = 10
README_BYTES = 256 * 1024
README_LEVELS = 3    # folders above the scan root searched for a README, up to the repository root
# Files below the scan root whose text may run a script: documentation, shell scripts, launch files.
RUN_TEXTS = (".md", ".rst", ".txt", ".sh", ".bash", ".launch", ".launch.py", ".launch.xml", ".yaml", ".yml",
             "Dockerfile", "Makefile")
# Folder and file-name words of a copy kept for testing or debugging, not the one deployed.
SCRATCH_WORDS = frozenset({"test", "tests", "debug", "debugging", "scratch", "tmp", "temp", "draft", "sandbox",
                           "playground"})
_REPOSITORY_MARKER = ".git"


def statement_lines(tree: ast.Module) -> set[str]:
    """The module's code as a set of normalised lines (comments and layout dropped)."""
    return {line.strip() for line in ast.unparse(tree).splitlines() if line.strip()}


def near_copies(lines_a: set[str], lines_b: set[str]) -> bool:
    """Do two files share most of their code (NEAR_COPY_SHARE of the smaller one's lines)?"""
    return bool(lines_a and lines_b) and len(lines_a & lines_b) >= NEAR_COPY_SHARE * min(len(lines_a), len(lines_b))


def derived_over(lines_a: set[str], lines_b: set[str]) -> tuple[int, int] | None:
    """(own, shared) when the file with `lines_a` is a near-copy of the one with `lines_b` that adds code."""
    if not near_copies(lines_a, lines_b):
        return None
    shared = len(lines_a & lines_b)
    own_a, own_b = len(lines_a - lines_b), len(lines_b - lines_a)
    if own_a >= DERIVED_MIN_LINES and own_a >= 2 * own_b:
        return own_a, shared
    return None


def own_networks(project, module_name: str) -> set[str]:
    """Names of the `nn.Module` classes a module defines."""
    module = project.modules.get(module_name)
    return {name for name, cls in module.classes.items() if project.is_nn_module(cls)} if module else set()


def readme_texts(project) -> list[tuple[str, str]]:
    """(name, text) of the README files in the scan root and the few folders above it, nearest first."""
    out: list[tuple[str, str]] = []
    for root in project_config_roots(project):
        folder = Path(os.path.abspath(root))
        for _ in range(README_LEVELS + 1):
            for path in sorted(folder.glob("[Rr][Ee][Aa][Dd][Mm][Ee]*")):
                text = read_regular_text(path, README_BYTES) if path.is_file() else None
                if text is not None:
                    out.append((path.name, text))
            if (folder / _REPOSITORY_MARKER).exists() or folder.parent == folder:
                break
            folder = folder.parent
    return out


def run_texts(project) -> list[tuple[str, str]]:
    """(name, text) of the README files (see `readme_texts`), then the documentation, shell scripts and launch
    files below the scan root, in path order."""
    out = readme_texts(project)
    roots = project_config_roots(project)
    known = {name for name, _ in out}
    for path, text in config_texts(roots, RUN_TEXTS):
        if path.name not in known or path.parent not in roots:
            out.append((str(path.relative_to(roots[0])) if roots and path.is_relative_to(roots[0]) else path.name,
                        text))
    return out


def first_mention(readmes: list[tuple[str, str]], script: str) -> tuple[int, int] | None:
    """(text index, offset) of the first time a text names `script` as a file (`python rl_track.py`,
    `robot/walk.py`)."""
    pattern = re.compile(rf"(?<![\w.\-]){re.escape(script)}(?![\w\-])")
    for index, (_, text) in enumerate(readmes):
        match = pattern.search(text)
        if match:
            return index, match.start()
    return None


def code_references(project) -> list[tuple[str, str]]:
    """(module path, text) of every string constant in the project's own modules that names a `.py` file
    (`subprocess.run(["python", "deploy/walk.py"])`, a launch description's script): another file running a
    script by name. Docstrings only talk about files. Read once per project."""
    key = ("entry-script-references",)
    if key not in project.memo:
        found = []
        for module in project.modules.values():
            if project.is_library(module.name):
                continue
            notes: set[int] = set()     # docstrings and other bare strings
            for node in module.nodes:    # breadth first: a statement before the constant it holds
                if isinstance(node, ast.Expr):
                    notes.add(id(node.value))
                elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and ".py" in node.value
                      and id(node) not in notes):
                    found.append((module.path, node.value))
        project.memo[key] = found
    return project.memo[key]


def referenced_by(references: list[tuple[str, str]], path: str, spelling: str) -> str | None:
    """The first other module whose string constants name the script at `path` (as `spelling`), or None."""
    pattern = re.compile(rf"(?<![\w.\-]){re.escape(spelling)}(?![\w\-])")
    return next((where for where, text in references if where != path and pattern.search(text)), None)


def _spelling(path: str, paths: list[str]) -> str:
    """How a text names the file at `path` among `paths`: its name, with its folder when another has the name."""
    pure = PurePosixPath(path)
    if sum(PurePosixPath(p).name == pure.name for p in paths) > 1 and len(pure.parts) > 1:
        return f"{pure.parent.name}/{pure.name}"
    return pure.name


def scratch_word(path: str) -> str | None:
    """The folder or file-name word that marks `path` as a test or debugging copy, or None."""
    for part in PurePosixPath(path).parts:
        words = set(re.split(r"[^a-z0-9]+", part.lower().removesuffix(".py")))
        if words & SCRATCH_WORDS:
            return part
    return None


# How a file manager or a person names a copy of `stem` (`sim2sim copy.py`, `sim2sim (copy).py`, `deploy - Copy.py`,
# `play (2).py`, `copy_of_run.py`, `walk_copy.py`): the stem of the original is the group `stem`.
_COPY_NAMES = (r"(?P<stem>.+?)(?: - | |_|-)?\(?(?:copy|Copy|COPY)\)?(?: ?\d+)?", r"(?P<stem>.+?) \(\d+\)",
               r"(?:[Cc]opy[ _]of[ _])(?P<stem>.+)")


def numbered_variant(path: str, paths: list[str]) -> str | None:
    """The path of the script `path` is a numbered variant or a copy of (`scripts/rl_walk2.py` of
    `scripts/rl_walk.py`, `deploy_v3.py` of `deploy.py`: the same name with a number added; `sim2sim copy.py` or
    `sim2sim (copy).py` of `sim2sim.py`: a copy's name; in the same folder), or None."""
    pure = PurePosixPath(path)
    stems = [m.group("stem") for pattern in _COPY_NAMES if (m := re.fullmatch(pattern, pure.stem))]
    numbered = re.fullmatch(r"(.+?)[_\-]?v?\d+", pure.stem)
    for stem in [*stems, *([numbered.group(1)] if numbered else [])]:
        original = str(pure.with_name(stem + pure.suffix))
        if original in paths and original != path:
            return original
    return None


def _same_standing(a: Entrypoint, b: Entrypoint, project) -> bool:
    """Do two candidates of one score also agree on what `tie_order` compares after it (kind, range length,
    own code or a copied library's, how often the project builds the class)?"""
    if a.kind != b.kind:
        return False
    if a.kind == "inline":
        return a.end - a.start == b.end - b.start
    return is_vendored(a) == is_vendored(b) and built_count(project, a) == built_count(project, b)


def _variants(a: Entrypoint, b: Entrypoint, copied: set[str]) -> bool:
    """Inline ranges in two near-copy scripts: the longer range is the one with an extra component (a filter, a
    disturbance), no sign that it is the script the user runs, so length does not separate them."""
    return a.kind == b.kind == "inline" and a.path in copied and b.path in copied


def _imports_module(project, importer: str, module_name: str) -> bool:
    module = project.modules.get(importer)
    return module is not None and any(t == module_name or t.startswith(module_name + ".")
                                      for t in module.imports.values())


def break_ties(ranked: list[Entrypoint], project, simulated: dict[str, str] | None = None,
               unsent: set[str] | None = None) -> list[Entrypoint]:
    """`ranked` sorted best first (`tie_order`: the project's own code before a library copy's on equal scores);
    within each run of equal scores and standing spanning several files, the derived script of
    a near-copy goes before its base, then one that runs on the robot before one whose loop steps a simulator
    (`simulated`: candidate id -> the simulator call) and a range whose loop sends its action before one whose loop
    sends nothing (`unsent`: range ids), then the script a README names first. Reasons say why."""
    out: list[Entrypoint] = []
    i = 0
    readmes = None
    found: dict[str, tuple[int, int] | None] = {}     # spelling -> where the texts first name it, read once

    def mention_of(spelling: str) -> tuple[int, int] | None:
        if spelling not in found:
            found[spelling] = first_mention(readmes, spelling)
        return found[spelling]

    while i < len(ranked):
        j = i
        while (j < len(ranked) and ranked[j].score == ranked[i].score
               and is_vendored(ranked[j]) == is_vendored(ranked[i])):   # own code first (tie_order)
            j += 1
        group = ranked[i:j]
        if len({c.path for c in group}) > 1:
            if readmes is None:
                readmes = run_texts(project)
            group = _order_group(group, project, readmes, mention_of, first=not out, simulated=simulated or {},
                                 unsent=unsent or set())
        out += group
        i = j
    return out


def _order_group(group: list[Entrypoint], project, readmes, mention_of, first: bool = False,
                 simulated: dict[str, str] | None = None, unsent: set[str] | None = None) -> list[Entrypoint]:
    simulated, unsent = simulated or {}, unsent or set()
    lines: dict[str, set[str]] = {}
    for c in group:
        module = project.modules.get(c.module)
        if module is not None and c.path not in lines:
            lines[c.path] = statement_lines(module.tree)
    networks = {c.path: own_networks(project, c.module) for c in group}
    based: dict[str, str] = {}      # path -> the reason it is the derived script
    bases: set[str] = set()
    for a in lines:
        for b in lines:
            found = derived_over(lines[a], lines[b]) if a != b else None
            brought = sorted(networks[a] - networks[b])
            if found is not None and brought:
                based[a] = (f"ties at score {group[0].score} with {b}, a near-copy of this file: this one adds "
                            f"{found[0]} lines of its own to the {found[1]} they share, among them the network class "
                            f"`{brought[0]}` (the derived script)")
                bases.add(b)
    copied = {a for a in lines for b in lines if a != b and near_copies(lines[a], lines[b])}
    paths = sorted(lines)
    scripts = sorted({m.path for m in project.modules.values()})    # a name other files share needs its folder
    mentions = {c.id: _mention(c, project, mention_of, paths, scripts) for c in group}
    # own script named (0) before a script building the class named (1) before neither (2)
    level = {c.id: 2 if mentions[c.id][0] is None else int(mentions[c.id][1] is not None) for c in group}
    named = {c.id: (level[c.id], mentions[c.id][0]) for c in group if c.path in copied and level[c.id] < 2}
    loose = [level[c.id] for c in group if c.path not in copied]
    documented = {c.id for c in group if c.path not in copied and level[c.id] < max(loose)}
    unnamed = {c.id for c in group if c.path not in copied and c.id not in documented and level[c.id] > min(loose)}
    references = code_references(project)
    referenced = {path: where for path in paths
                  if (where := referenced_by(references, path, _spelling(path, scripts))) is not None}
    missing = (2, (len(readmes) + 1, 0))
    scratch = {c.path: scratch_word(c.path) for c in group}
    numbered = {c.path: numbered_variant(c.path, paths) for c in group}
    modules = {c.path: c.module for c in group}
    imported = {b for a in copied for b in copied if a != b and _imports_module(project, modules[a], modules[b])}

    # a simulated candidate goes after a robot twin of its own kind (an inline range after an inline range)
    behind = {c.id for c in group if c.id in simulated
              and any(o.kind == c.kind and o.id not in simulated for o in group)}
    # a range whose loop keeps its actions goes after a tied range whose loop sends them out
    replayed = {c.id for c in group if c.id in unsent and any(o.kind == "inline" and o.id not in unsent
                                                                 for o in group)}

    def key(item):
        index, c = item
        return (c.path in bases and c.path not in based, c.path not in based, c.id in behind, c.id in replayed,
                named.get(c.id) or missing, level[c.id] if c.path not in copied else 0, c.path not in referenced,
                scratch[c.path] is not None, numbered[c.path] is not None, c.path not in imported, index)

    ordered = [c for _, c in sorted(enumerate(group), key=key)]
    lead = ordered[0]
    if lead is group[0] and not first:
        return group
    if lead.path in based:
        note = based[lead.path]
    elif lead.id not in simulated and any(c.id in behind and c.kind == lead.kind for c in group):
        other = next(c for c in group if c.id in behind and c.kind == lead.kind)
        note = (f"ties at score {lead.score} with {other.id}, whose loop advances a physics simulator "
                f"({simulated[other.id]}): this one runs on the robot")
    elif lead.id not in unsent and any(c.id in replayed for c in group):
        other = next(c for c in group if c.id in replayed)
        note = (f"ties at score {lead.score} with {other.id}, whose loop sends nothing out (it keeps the actions it "
                f"computes: a replay of recorded data): this one sends its action")
    elif named.get(lead.id) is not None and named[lead.id] < min(
            named.get(c.id) or missing for c in group if c.path != lead.path):
        note = (f"ties at score {lead.score} with another script; {readmes[named[lead.id][1][0]][0]} names "
                f"{_how_named(lead, mentions, paths)} first")
    elif lead.id in documented and any(c.id in unnamed and level[c.id] > level[lead.id] for c in group):
        other = next(c for c in group if c.id in unnamed and level[c.id] > level[lead.id])
        note = (f"ties at score {lead.score} with {other.path}; the project's texts name "
                f"{_how_named(lead, mentions, paths)} ({readmes[mentions[lead.id][0][0]][0]}) and "
                f"{'the other only through a script building its class' if level[other.id] == 1 else 'never the other'}"
                f"{' nor a script that builds its class' if mentions[lead.id][1] and level[other.id] == 2 else ''}")
    elif lead.path in referenced and any(c.path not in referenced for c in group):
        other = next(c for c in group if c.path not in referenced)
        note = (f"ties at score {lead.score} with {other.path}; {referenced[lead.path]} runs "
                f"`{_spelling(lead.path, scripts)}` by name and no file names the other")
    elif scratch[lead.path] is None and any(scratch[c.path] for c in group):
        other = next(c for c in group if scratch[c.path])
        note = (f"ties at score {lead.score} with {other.path}, in `{scratch[other.path]}`, named like a test "
                f"or debugging copy")
    elif numbered[lead.path] is None and any(numbered[c.path] == lead.path for c in group):
        other = next(c for c in group if numbered[c.path] == lead.path)
        note = (f"ties at score {lead.score} with {other.path}, a numbered variant or a copy of this script (its "
                f"name with a number or a copy's mark added): the original first")
    elif lead.path in imported:
        note = f"ties at score {lead.score} with a near-copy that imports this module: the one the others build on"
    elif lead is not group[0] and group[0].path in bases:
        note = f"ties at score {lead.score} with {group[0].path}, the base of a near-copy that adds to it"
    else:
        note = None
    if note is None:
        same = [c for c in group[1:] if c.path != lead.path and (_same_standing(c, lead, project) or _variants(
            c, lead, copied))]
        if not first or not same:
            return group
        shown = ", ".join(c.id for c in same[:3]) + (f" and {len(same) - 3} more" if len(same) > 3 else "")
        note = (f"{TIED} {shown} at score {lead.score}: nothing in the project separates them (no README, "
                f"documentation or launch file names one first); pick one with --entry")
    return [replace(lead, reasons=(*lead.reasons, note)), *ordered[1:]]


def builder_scripts(project, candidate: Entrypoint) -> list[str]:
    """Paths of the modules that build the class of a method candidate (outside tests), in path order."""
    module = project.modules.get(candidate.module)
    owner = module.classes.get(candidate.qualname.rpartition(".")[0]) if module and candidate.kind == "function" \
        else None
    if owner is None:
        return []
    return sorted({site.module.path for site in sites_by_class(project).get(owner.id, ())
                   if not is_test_path(site.module.path)} - {candidate.path})


def _mention(candidate: Entrypoint, project, mention_of, paths: list[str], scripts: list[str]):
    """(first mention, builder script or None): where the project's texts first name the candidate's own script,
    else the first script they name that builds the candidate's class (`eval_agent.py` building the agent whose
    `select_action` ties with a baseline's): the texts run that class. (None, None) when they name neither."""
    own = mention_of(_spelling(candidate.path, paths))
    if own is not None:
        return own, None
    found = [(at, path) for path in builder_scripts(project, candidate)
             if (at := mention_of(_spelling(path, scripts))) is not None]
    return min(found) if found else (None, None)


def _how_named(candidate: Entrypoint, mentions, paths: list[str]) -> str:
    builder = mentions[candidate.id][1]
    if builder is None:
        return f"`{_spelling(candidate.path, paths)}`"
    return f"`{PurePosixPath(builder).name}`, which builds `{candidate.qualname.rpartition('.')[0]}`,"
