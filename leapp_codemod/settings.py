"""Every scan setting, declared once.

Each row makes the `[tool.leapp-codemod]` key, the `Config` field (`config.py`), the click option of
`scan`/`lint` (`cli.py`), its help text and the line `--show-settings` prints. Adding a setting is adding a
row here; nothing else lists them.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

DEFAULT_MAX_FILE_MB = 64

# how a value is written in pyproject.toml -> what it must be
KINDS = {
    "entry": "a string like 'app.policy:Policy.act' or 'run.py:12-30'",
    "script": "a string like 'main.py' (a path relative to the pyproject.toml)",
    "selectors": "a string or a list of strings (rule codes, prefixes, names or categories)",
    "patterns": "a string or a list of strings (glob patterns)",
    "paths": "a string or a list of strings (paths relative to the pyproject.toml)",
    "flag": "true or false",
    "mib": "a positive number of MiB",
    "file-table": "a table of \"glob\" = [\"CODE\", ...]",
    "bind-table": "a table of \"self.attr\" = \"pkg.mod:Class\"",
}


@dataclass(frozen=True)
class Setting:
    """One setting: its key (`extend-select`), what it holds, its help, its default, how the command line
    combines with the file (`replace`: the flag wins; `add`: both count), and whether it has a flag."""

    key: str
    kind: str
    help: str
    default: object = ()
    merge: str = "replace"
    flag: bool = True
    commands: tuple[str, ...] = ("scan", "lint")   # the commands that have the flag

    @property
    def attr(self) -> str:
        """The field name (`extend_select`) in Config and in click's keyword arguments."""
        return self.key.replace("-", "_")

    @property
    def option(self) -> str:
        return f"--{self.key}"

    @property
    def multiple(self) -> bool:
        return self.kind in ("selectors", "patterns", "paths", "bind-table")


SETTINGS: tuple[Setting, ...] = (
    Setting("entry", "entry", "Pipeline entrypoint MODULE:QUALNAME or a statement range of the driver "
            "FILE:START-END (default: discovered).", default=None),
    Setting("driver", "script", "Run SCRIPT once and add what the first calls of the entry ran to the analysis "
            "(a fresh saved observation is used without it).", default=None, commands=("scan",)),
    Setting("select", "selectors", "Only these rule codes/prefixes, rule names or categories (comma-separated)."),
    Setting("extend-select", "selectors", "Add these to the selection (config or --select).", merge="add"),
    Setting("ignore", "selectors", "Skip these rule codes/prefixes, rule names or categories (comma-separated)."),
    Setting("exclude", "patterns", "Glob patterns of files/folders to skip (replaces config)."),
    Setting("extend-exclude", "patterns", "Glob patterns to skip in addition to the config's.", merge="add"),
    Setting("force-exclude", "flag", "Apply the exclusions to files named on the command line too (as "
            "pre-commit passes them).", default=False),
    Setting("integration", "paths", "Generated integration modules whose STATE, PATCHES and twins resolve "
            "findings (default: any module under the scanned folders that carries the generated header).",
            merge="add"),
    Setting("per-file-ignores", "file-table", "Glob (relative to the pyproject.toml, or a file name) -> "
            "rule selectors ignored in those files.", flag=False),
    Setting("bind", "bind-table", "The class a receiver holds at run time (`self.adapter=pkg.adapters:Adapter`, "
            "EXPR=MODULE:CLASS); repeatable; adds to [tool.leapp-codemod.bind].", merge="add", commands=("scan",)),
    Setting("max-file-mb", "mib", "Files larger than this are skipped with one line.",
            default=DEFAULT_MAX_FILE_MB, flag=False),
)

BY_KEY = {s.key: s for s in SETTINGS}
KEYS = frozenset(BY_KEY)


def did_you_mean(word: str, choices) -> str:
    """` (did you mean 'x'?)` for the closest of `choices`, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def split_values(values) -> tuple[str, ...]:
    """Repeated and comma-separated command-line values, flattened."""
    return tuple(c.strip() for v in values or () for c in v.split(",") if c.strip())


def combine(setting: Setting, from_file, from_cli) -> tuple[object, str]:
    """The value in effect and where it came from ("command line", "config", "default", or both)."""
    if setting.multiple:
        cli_values = split_values(from_cli)
        if setting.merge == "add" and cli_values and from_file:
            return tuple(dict.fromkeys((*from_file, *cli_values))), "config + command line"
        if cli_values:
            return cli_values, "command line"
    elif from_cli not in (None, False):
        return from_cli, "command line"
    return from_file, "config" if from_file != setting.default else "default"


def format_value(value, kind: str = "") -> str:
    """A value as TOML would spell it."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "file-table" or (isinstance(value, tuple) and value and isinstance(value[0], tuple)):
        return "{" + ", ".join(f'"{k}" = {format_value(v)}' for k, v in value) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
