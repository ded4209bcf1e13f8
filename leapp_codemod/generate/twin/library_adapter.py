"""foreign-library / unmapped-numpy: a library name with a torch adapter in
`leapp_codemod.adapters` -> `ADAPTERS["<name>"].function`.

A library name the scan flagged once is replaced everywhere in the helper (the scan may flag only the
first `R.from_quat(q)` of a chain of SciPy rotations; leaving the others would mix SciPy and adapter
values), and only with adapters of kind "function" or "class" (a class adapter brings its
constructors and methods, so `Rotation.from_quat(q).inv().apply(v)` keeps its shape). A flagged call
without an adapter is left for the coverage check, which refuses the twin."""
from __future__ import annotations

import re

import libcst as cst

from leapp_codemod.generate.twin.base import Example, TwinRule, dotted


class LibraryAdapter(TwinRule):
    CATEGORIES = ("foreign-library", "unmapped-numpy")
    EXAMPLES = (
        Example("from scipy.special import expit as squash\n\n\ndef f(x):\n    return 2.0 * squash(x)\n",
                (("foreign-library", "squash(x)"),),
                'def f(x):\n    return 2.0 * ADAPTERS["scipy.special.expit"].function(x)\n'),
        Example("from scipy.spatial.transform import Rotation as R\n\n\ndef f(q, v):\n"
                "    return R.from_quat(q).inv().apply(v)\n",
                (("foreign-library", "R.from_quat(q)"),),
                'def f(q, v):\n    return ADAPTERS["scipy.spatial.transform.Rotation"].function.from_quat(q)'
                '.inv().apply(v)\n'),
        Example("from scipy.spatial.transform import Rotation as R\n\n\ndef f(q, p, v):\n"
                "    a = R.from_quat(q)\n    b = R.from_rotvec(p)\n    return (a * b).apply(v)\n",
                (("foreign-library", "R.from_quat(q)"),),
                'def f(q, p, v):\n    a = ADAPTERS["scipy.spatial.transform.Rotation"].function.from_quat(q)\n'
                '    b = ADAPTERS["scipy.spatial.transform.Rotation"].function.from_rotvec(p)\n'
                '    return (a * b).apply(v)\n'),
        Example("import numpy as np\n\n\ndef f(x):\n    return np.linalg.norm(x, axis=-1)\n",
                (("unmapped-numpy", "np.linalg.norm(x, axis=-1)"),),
                'def f(x):\n    return ADAPTERS["numpy.linalg.norm"].function(x, axis=-1)\n'),
        Example("import scipy.linalg\n\n\ndef f(a):\n    return scipy.linalg.expm(a)\n",
                (("foreign-library", "scipy.linalg.expm(a)"),), refused="no torch adapter"),
    )

    def __init__(self, ctx):
        super().__init__(ctx)
        self.attr_names: set[int] = set()       # Name nodes that are attribute or keyword names

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attr_names.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.attr_names.add(id(node.keyword))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.attr_names:
            return super().leave_Name(original, updated)
        return self._library(original, updated, updated.value)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        text = dotted(original)
        return self._library(original, updated, text) if text else super().leave_Attribute(original, updated)

    def _library(self, original, updated, text: str):
        if self.depth == 0:
            return updated
        head = text.split(".")[0]
        if head not in self.ctx.bindings:
            return updated
        target = f"{self.ctx.bindings[head]}{text[len(head):]}"
        adapter = adapter_name(target, self.ctx.registry)
        if adapter is None or self.ctx.registry[adapter] not in ("function", "class"):
            return updated
        flags = self.flags_on(original, *LibraryAdapter.CATEGORIES)
        if not flags and adapter not in self.ctx.flagged_adapters:
            return updated
        self.use(flags, f"`{target}` replaced by its torch adapter in leapp_codemod.adapters")
        return cst.Attribute(value=cst.Subscript(value=cst.Name("ADAPTERS"), slice=[
            cst.SubscriptElement(cst.Index(cst.SimpleString(f'"{adapter}"')))]), attr=cst.Name("function"))


def adapter_name(target: str, registry: dict[str, str]) -> str | None:
    """The registry name for an import target, private submodules allowed (`scipy.special._ufuncs.expit`)."""
    parts = target.split(".")
    candidates = [target, ".".join(p for p in parts if not p.startswith("_"))]
    for i in range(len(parts) - 1, 0, -1):
        candidates.append(".".join(parts[:i - 1] + parts[i:]) if i > 1 else target)
    return next((c for c in candidates if c in registry), None)


def flagged_adapters(source: str, flags, bindings: dict[str, str], registry: dict[str, str]) -> frozenset[str]:
    """The adapters (kind function or class) of the library names the scan flagged in `source`: the
    dotted name at the start of each flagged span and its prefixes (`R.from_quat` -> `R`)."""
    lines = source.splitlines()
    found = set()
    for f in flags:
        if f.category not in LibraryAdapter.CATEGORIES or not 0 < f.line <= len(lines):
            continue
        match = re.match(r"[A-Za-z_][\w.]*", lines[f.line - 1][f.col:])
        parts = match.group(0).rstrip(".").split(".") if match else []
        if not parts or parts[0] not in bindings:
            continue
        for i in range(1, len(parts) + 1):
            target = ".".join([bindings[parts[0]], *parts[1:i]])
            adapter = adapter_name(target, registry)
            if adapter is not None and registry[adapter] in ("function", "class"):
                found.add(adapter)
    return frozenset(found)
