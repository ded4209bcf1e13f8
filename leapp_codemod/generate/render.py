"""Render an IntegrationSpec through the packaged Jinja2 templates and write it safely."""
from __future__ import annotations

import re
import textwrap
from importlib import resources
from pathlib import Path

import jinja2

from leapp_codemod.knowledge.leapp import SIGNED_FOR
from leapp_codemod.generate.formatting import format_module
from leapp_codemod.generate.guard import merge, sealed
from leapp_codemod.generate.literals import pystr
from leapp_codemod.generate.spec import IntegrationSpec
from leapp_codemod.io_util import write_atomic

TEMPLATE = "integration.py.j2"


def _load_template(name: str) -> str:
    # importlib.resources works for a source checkout, an editable install and a wheel alike.
    return resources.files("leapp_codemod.templates").joinpath(name).read_text(encoding="utf-8")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load_template), trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False)
    env.filters["pystr"] = pystr
    env.globals["SIGNED_FOR"] = SIGNED_FOR
    env.filters["docwrap"] = lambda text: "\n    ".join(textwrap.wrap(text, 92, break_on_hyphens=False))
    return env


def render_body(spec: IntegrationSpec) -> str:
    text = environment().get_template(TEMPLATE).render(spec=spec)
    text = re.sub(r"\n{4,}", "\n\n\n", text)
    return text.rstrip("\n") + "\n"


def with_header(body: str, filename: str = "integration.py") -> str:
    """The module as written: formatted by ruff, with the header and fingerprints of the edit guard."""
    return sealed(format_module(body, filename))


def check_overwrite(path: Path, generated: str = "") -> str:
    """What to write at `path`: `generated`, with the definitions the user edited carried over.

    Raises OverwriteRefused when that would lose an edit (see `guard.merge`)."""
    if not path.exists():
        return generated
    text = path.read_text(encoding="utf-8", errors="replace")
    return merge(str(path), text, generated).text


def write_module(path: Path, text: str) -> None:
    """Write the generated module (creating its folder), through the one safe write helper."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
