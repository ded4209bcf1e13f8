"""Name resolution across the scanned modules: what does `f`, `mod.f` or `Cls.meth` refer to?"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from leapp_codemod.analysis.index import ClassInfo, FunctionInfo, ModuleIndex

if TYPE_CHECKING:
    from leapp_codemod.analysis.libraries import LibraryLoader

_MAX_ALIAS_HOPS = 8
NN_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module"})


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
            base = head  # a builtin or an unknown name
        return ".".join([base, *parts])

    # ----------------------------------------------------------------- project lookups
    def lookup(self, qualified: str, hops: int = 0) -> FunctionInfo | ClassInfo | None:
        """The project function, method or class a dotted name refers to, following re-exports."""
        if hops > _MAX_ALIAS_HOPS or not qualified:
            return None
        parts = qualified.split(".")
        if self.libraries is not None:
            self._load_library(parts)
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.modules.get(".".join(parts[:cut]))
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
            if ".".join(parts[:cut + 1]) in self.modules:
                continue
            return None
        return None

    def external_name(self, qualified: str, hops: int = 0) -> str:
        """Follow re-exports inside the project until the name leaves it (e.g. an app re-export of numpy)."""
        if hops > _MAX_ALIAS_HOPS:
            return qualified
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.modules.get(".".join(parts[:cut]))
            if mod is not None and parts[cut] in mod.imports:
                return self.external_name(".".join([mod.imports[parts[cut]], *parts[cut + 1:]]), hops + 1)
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
        """What `instance(...)` runs: forward for nn.Modules, else __call__."""
        if self.is_nn_module(cls):
            return self.find_method(cls, "forward") or self.find_method(cls, "__call__")
        return self.find_method(cls, "__call__")

    def functions(self):
        for mod in self.modules.values():
            yield from mod.functions.values()
