"""Name resolution across the scanned modules: what does `f`, `mod.f` or `Cls.meth` refer to?"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from leapp_codemod.analysis.model.index import ClassInfo, FunctionInfo, ModuleIndex
from leapp_codemod.analysis.model.libraries import library_available
from leapp_codemod.analysis.model.path_entries import search_folders

if TYPE_CHECKING:
    from leapp_codemod.analysis.model.libraries import LibraryLoader

_MAX_ALIAS_HOPS = 8
STDLIB = sys.stdlib_module_names   # a bare `import logging` means the standard library, not a sibling logging.py


def _resolve_in(folder: Path, target: str, by_path: dict[Path, str]) -> str | None:
    """`target` with its longest module prefix found under `folder` replaced by that module's name."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        base = folder.joinpath(*parts[:cut])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            name = by_path.get(candidate)
            if name is not None:
                return ".".join([name, *parts[cut:]])
    return None


def _first_names(paths) -> set[tuple[Path, str]]:
    """(folder, name) for every file and folder on the way to each scanned file: an import can resolve under
    `folder` only when its first name is one of them (checked before building any path)."""
    out: set[tuple[Path, str]] = set()
    for path in paths:
        out.add((path.parent, path.stem))
        for folder in path.parents:
            if (folder.parent, folder.name) in out or folder.parent == folder:
                break
            out.add((folder.parent, folder.name))
    return out


NN_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module", "torch.jit.ScriptModule",
                             "torch.jit._script.ScriptModule",   # a ScriptModule is an nn.Module: calling runs forward
                             # Lightning's module derives from torch.nn.Module (installed or not, under both names)
                             "pytorch_lightning.LightningModule", "pytorch_lightning.core.LightningModule",
                             "pytorch_lightning.core.module.LightningModule",
                             "pytorch_lightning.core.lightning.LightningModule", "lightning.LightningModule",
                             "lightning.pytorch.LightningModule", "lightning.pytorch.core.LightningModule",
                             "lightning.pytorch.core.module.LightningModule"})

_NOT_TEMPLATE_BASES = frozenset({"object", "abc.ABC", "ABC", "typing.Generic", "Generic", "typing.Protocol",
                                 "Protocol", "typing.NamedTuple", "NamedTuple", "enum.Enum", "Enum"})


class Questions:
    """Answers to `types_of`, `resolve_call` and `attr_types` while one outermost question is answered.

    A method chain (`cfg.a(x).b(y).c(z)...`), or classes whose attributes are built from each other's
    attributes, ask the same inner question from many places; answering each afresh made the work
    grow exponentially with the chain's length. Nothing the answers depend on (env, facts) changes
    during one outermost question, so answers are kept until the next one starts. The cycle guards
    (`return_types`, `attr_types`, the resolver's re-entrancy check) record the depth they were set
    at: an answer that a guard set outside it cut short depends on that guard, so it is kept only
    while the answer that set the guard is still being computed."""

    __slots__ = ("answers", "frames", "guards", "reach", "serial")
    NEVER = 1 << 30

    def __init__(self) -> None:
        self.frames: list[int] = []  # a serial number per answer being computed, outermost first
        self.serial = 0
        self.reach = self.NEVER      # the lowest depth of a guard that cut the current answer short
        self.answers: dict = {}      # key -> (answer, reach, serial of the answer it depends on, pinned)
        self.guards: dict = {}       # (asker, what) being computed -> the depth it was set at

    @property
    def depth(self) -> int:
        return len(self.frames)

    def cut(self, since: int) -> None:
        """A cycle guard set at depth `since` answered nothing."""
        self.reach = min(self.reach, since)

    def kept(self, key):
        """The kept answer for `key` if it still holds here, else None."""
        found = self.answers.get(key)
        if found is None:
            return None
        answer, reach, serial, _ = found
        if reach < self.NEVER:
            if reach > 0 and (len(self.frames) < reach or self.frames[reach - 1] != serial):
                return None      # the answer whose guard it depends on is finished
            self.cut(reach)
        return answer

    def answer(self, key, compute, pinned):
        """`compute()`, kept under `key` for the current outermost question with the same rules as the
        answers of `types_of`/`resolve_call` (the hot ones spell this out inline: analysis/infer/memo.py)."""
        if not self.frames:   # a new outermost question: what was kept belongs to the last one
            self.answers.clear()
        found = self.kept(key)
        if found is not None:
            return found
        outer_reach, self.reach = self.reach, self.NEVER
        self.serial += 1
        self.frames.append(self.serial)
        try:
            found = compute()
        finally:
            self.frames.pop()
            reach, self.reach = self.reach, min(outer_reach, self.reach)
        self.keep(key, found, reach, pinned)
        return found

    def keep(self, key, answer, reach: int, pinned) -> None:
        """`pinned` holds the objects whose ids are in `key`, so no other object takes those ids."""
        if reach > len(self.frames):
            reach = self.NEVER   # only guards set inside it cut it short: it holds anywhere
        serial = self.frames[reach - 1] if 0 < reach < self.NEVER else None
        self.answers[key] = (answer, reach, serial, pinned)


def questions(project: Project) -> Questions:
    found = project.memo.get(Questions)
    if found is None:
        found = project.memo[Questions] = Questions()
    return found


@dataclass
class Project:
    modules: dict[str, ModuleIndex]
    libraries: LibraryLoader | None = None     # installed packages followed on demand
    memo: dict = field(default_factory=dict, repr=False, compare=False)   # derived indexes, per scan

    def own_module_count(self) -> int:
        """How many scanned (not library) modules there are: a key for indexes over project code."""
        return len(self.modules) - (self.libraries.loaded if self.libraries is not None else 0)

    def is_library(self, module: str) -> bool:
        return self.libraries is not None and self.libraries.is_library(module)

    def _load_library(self, parts: list[str]) -> None:
        """Index the installed modules a dotted name passes through (`a`, `a.b`, ...), once each."""
        if self.libraries.package(parts[0]) is None:
            return
        for cut in range(1, len(parts) + 1):
            name = ".".join(parts[:cut])
            if name in self.modules:
                continue
            index = self.libraries.module(name)
            if index is None:
                return
            self.modules[name] = index
    aliases: dict[str, str] = field(default_factory=dict)   # other import name -> module name

    def module_named(self, name: str) -> ModuleIndex | None:
        """The module imported as `name` (its own name or an alias)."""
        found = self.modules.get(name)
        if found is None and name in self.aliases:
            found = self.modules.get(self.aliases[name])
        return found

    def link_imports(self, files: dict[str, Path]) -> None:
        """Point absolute imports at the file Python would load: a module next to the importing
        script (its folder is first on sys.path) wins over a same-named module elsewhere."""
        by_path = {path: name for name, path in files.items()}
        suffixes: dict[str, list[str]] = {}
        named = [(name, name) for name in files] + [(alias, name) for alias, name in self.aliases.items()
                                                     if name in files]
        for spelled, name in named:    # a file's other names too: `src.mod` of `ros/node/src/mod.py`
            parts = spelled.split(".")
            for cut in range(1, len(parts) - 1):    # dotted tails of two parts or more
                found = suffixes.setdefault(".".join(parts[cut:]), [])
                if name not in found:
                    found.append(name)
        cwd = Path(os.path.commonpath([p.parent for p in files.values()])) if files else Path(".")
        heads = _first_names(files.values())
        for name, module in self.modules.items():
            path = files.get(name)
            if path is None or "@" in name:
                continue
            top = path.parent
            for _ in range(name.count(".") + (1 if module.is_package else 0)):
                top = top.parent
            folders = search_folders(module, path, top, cwd)

            def link(target: str) -> str | None:
                first = target.partition(".")[0]
                return (next((found for folder in folders if (folder, first) in heads
                              and (found := _resolve_in(folder, target, by_path))
                              and not (folder == path.parent != top and target.partition(".")[0] in STDLIB)), None)
                        or self._under_a_path_entry(target, suffixes))

            for local, target in list(module.imports.items()):
                resolved = link(target)
                if resolved and resolved != target:
                    module.imports[local] = resolved
            for targets in getattr(module, "import_alternatives", {}).values():
                targets[:] = [link(t) or t for t in targets]

    def _under_a_path_entry(self, target: str, suffixes: dict[str, list[str]]) -> str | None:
        """`from utils.models.detector import f` in a project that puts one of its folders on sys.path
        (`VIRT/utils/...` scanned from the repository root): the one project module whose dotted name ends
        with the import's module part, when no module has that name itself and exactly one ends with it."""
        parts = target.split(".")
        for cut in range(len(parts), 1, -1):
            head = ".".join(parts[:cut])
            if self.module_named(head) is not None:
                return None
            found = suffixes.get(head, ())
            if len(found) == 1:
                return ".".join([found[0], *parts[cut:]])
        return None

    # ----------------------------------------------------------------- qualified names
    def qualify(self, expr: ast.expr, module: ModuleIndex) -> str | None:
        """Dotted name of a Name/Attribute chain in `module`'s namespace (imports and local defs)."""
        parts: list[str] = []
        node = expr
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = node.id
        if head in module.imports:
            base = module.imports[head]
        elif head in module.functions or head in module.classes or head in module.globals:
            base = f"{module.name}.{head}"
        else:
            base = self._star_imported(head, module) or head  # a builtin or an unknown name
        return ".".join([base, *parts])

    def _star_imported(self, head: str, module: ModuleIndex, seen: set[str] | None = None) -> str | None:
        """`from pkg.fsm import *` then `FSM(...)`: the project module that defines `head` (last import wins), also
        through a chain of them (`sim` imports `*` from `mesh`, which imports `*` from `draw`)."""
        seen = set() if seen is None else seen
        for name in reversed(getattr(module, "star_imports", ())):   # (an index cached before the field)
            source = self.module_named(name)
            if source is None or name in seen:
                continue
            seen.add(name)
            if head in source.imports and not (head in source.classes or head in source.functions
                                               or head in source.globals):
                return source.imports[head]   # `import numpy as np` there: `np` here is numpy itself
            if head in source.classes or head in source.functions or head in source.globals:
                return f"{name}.{head}"
            deeper = self._star_imported(head, source, seen)
            if deeper is not None:
                return deeper
        return None

    # ----------------------------------------------------------------- project lookups
    def lookup(self, qualified: str, hops: int = 0) -> FunctionInfo | ClassInfo | None:
        """The project function, method or class a dotted name refers to, following re-exports."""
        if hops > _MAX_ALIAS_HOPS or not qualified:
            return None
        parts = qualified.split(".")
        if self.libraries is not None:
            self._load_library(parts)
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.module_named(".".join(parts[:cut]))
            if mod is None:
                continue
            rest = parts[cut:]
            head = rest[0]
            if head in mod.classes:
                cls = mod.classes[head]
                if len(rest) == 1:
                    return cls
                if len(rest) == 2:
                    return self.find_method(cls, rest[1])
                return None
            if head in mod.functions and len(rest) == 1:
                return mod.functions[head]
            if head in mod.imports:
                return self.lookup(".".join([mod.imports[head], *rest[1:]]), hops + 1)
            if isinstance(mod.globals.get(head), (ast.Name, ast.Attribute)):   # `MlpPolicy = ActorCriticPolicy`
                aliased = self.qualify(mod.globals[head], mod)
                return self.lookup(".".join([aliased, *rest[1:]]), hops + 1) if aliased else None
            # a package `__init__` re-exporting `from .core import *`; its names win over a submodule of the same
            # name (`from .Walker import *` binds the class `Walker` over the submodule `pkg.Walker`)
            star = self._star_imported(head, mod)
            if star:
                return self.lookup(".".join([star, *rest[1:]]), hops + 1)
            if self.module_named(".".join(parts[:cut + 1])) is not None:
                continue
            return None
        return None

    def external_name(self, qualified: str, hops: int = 0) -> str:
        """Follow re-exports inside the project until the name leaves it (e.g. an app re-export of numpy).
        Kept per name while the set of indexed modules stays the same (library modules are indexed on demand,
        and a newly indexed one may re-export the name)."""
        if hops == 0:
            kept = self.memo.get(("external_name",))
            if kept is None or kept[0] != len(self.modules):
                kept = self.memo[("external_name",)] = (len(self.modules), {})
            found = kept[1].get(qualified)
            if found is None:
                found = kept[1][qualified] = self._external_name(qualified, 0)
            return found
        return self._external_name(qualified, hops)

    def _external_name(self, qualified: str, hops: int) -> str:
        if hops > _MAX_ALIAS_HOPS:
            return qualified
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.module_named(".".join(parts[:cut]))
            if mod is not None and parts[cut] in mod.imports:
                return self._external_name(".".join([mod.imports[parts[cut]], *parts[cut + 1:]]), hops + 1)
        return qualified

    def class_of(self, qualified: str | None) -> ClassInfo | None:
        found = self.lookup(qualified) if qualified else None
        return found if isinstance(found, ClassInfo) else None

    def bases(self, cls: ClassInfo) -> list[ClassInfo | str]:
        mod = self.modules[cls.module]
        out: list[ClassInfo | str] = []
        for expr in cls.base_exprs:
            name = self.qualify(expr, mod)
            if name is None:
                continue
            found = self.lookup(name)
            out.append(found if isinstance(found, ClassInfo) else self.external_name(name))
        return out

    def mro(self, cls: ClassInfo, seen: frozenset = frozenset()) -> list[ClassInfo]:
        if not seen:
            key = ("mro", cls.id, len(self.modules))
            if key not in self.memo:
                self.memo[key] = self._mro(cls, seen)
            return self.memo[key]
        return self._mro(cls, seen)

    def _mro(self, cls: ClassInfo, seen: frozenset) -> list[ClassInfo]:
        if cls.id in seen:
            return []
        order = [cls]
        for base in self.bases(cls):
            if isinstance(base, ClassInfo):
                order += [c for c in self.mro(base, seen | {cls.id}) if c not in order]
        return order

    def find_method(self, cls: ClassInfo, name: str) -> FunctionInfo | None:
        for klass in self.mro(cls):
            if name in klass.methods:
                return klass.methods[name]
        return None

    def from_library_base(self, classes: list[ClassInfo], attr: str) -> bool:
        """`self.get_logger`, `self.get_action`: no class of `classes` (with their project bases) defines or
        assigns `attr`, and one of them derives from a library class: the library base provides it."""
        mro = [k for cls in classes for k in self.mro(cls)]
        return not any(attr in k.methods or attr in k.attr_values or attr in k.class_attrs for k in mro) \
            and any(isinstance(base, str) for k in mro for base in self.bases(k))

    def library_hook(self, cls: ClassInfo, name: str) -> tuple[FunctionInfo, str] | None:
        """`env.step(td)` on a project subclass of a library base (torchrl `EnvBase`, a gym `Env`) that does
        not define `step` itself: the library's public method calls the project's `_step` override (a
        template method). The override and the library base it comes through, or None."""
        if name.startswith("_") or self.is_library(cls.module) or self.find_method(cls, name) is not None:
            return None
        hook = self.find_method(cls, "_" + name)
        if hook is None:
            return None
        for klass in self.mro(cls):
            for base in self.bases(klass):
                if isinstance(base, str) and base not in _NOT_TEMPLATE_BASES and base not in NN_MODULE_BASES:
                    return hook, base
        return None

    def is_nn_module(self, cls: ClassInfo, seen: frozenset = frozenset()) -> bool:
        if cls.id in seen:
            return False
        for base in self.bases(cls):
            if isinstance(base, ClassInfo):
                if self.is_nn_module(base, seen | {cls.id}):
                    return True
            elif base in NN_MODULE_BASES or base.startswith("torch.nn.") or base.startswith("nn."):
                return True
        return False

    def call_target(self, cls: ClassInfo) -> FunctionInfo | None:
        """What `instance(...)` runs: forward for nn.Modules, else __call__; a class that defines `forward`
        over a base from a package neither scanned nor installed (`class Net(PreTrainedModel)` without
        transformers), whose `__call__` is unknown, runs its `forward` (the torch convention)."""
        if self.is_nn_module(cls):
            return self.find_method(cls, "forward") or self.find_method(cls, "__call__")
        own = self.find_method(cls, "__call__")
        if own is None and self._absent_base(cls):
            return self.find_method(cls, "forward")
        return own

    def _absent_base(self, cls: ClassInfo) -> bool:
        """Some class of `cls`'s hierarchy derives from a package neither scanned nor installed."""
        return any(isinstance(base, str) and "." in base and not library_available(self, base)
                   for klass in self.mro(cls) for base in self.bases(klass))

    def functions(self):
        for mod in self.modules.values():
            yield from mod.functions.values()
