"""Which application lines executed during the recorded calls (a line tracer limited to the
application's own files), so that a verdict names only lines that ran."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field


@dataclass
class LineCover:
    roots: tuple[str, ...]                      # absolute directories of the application's sources
    lines: dict[str, set[int]] = field(default_factory=dict)    # absolute path -> executed lines
    order: list[tuple[str, int]] = field(default_factory=list)   # (absolute path, line) in first-run order
    _wanted: dict[str, str | None] = field(default_factory=dict)

    def _path(self, filename: str) -> str | None:
        """The absolute path of an application file, None for any other (cached per file name)."""
        if filename not in self._wanted:
            path = os.path.abspath(filename)
            inside = any(path.startswith(r + os.sep) for r in self.roots) and "site-packages" not in path
            self._wanted[filename] = path if inside else None
        return self._wanted[filename]

    def _global(self, frame, event, arg):
        path = self._path(frame.f_code.co_filename)
        if path is None:
            return None
        seen = self.lines.setdefault(path, set())
        order = self.order

        def first(line: int) -> None:
            if line not in seen:
                seen.add(line)
                order.append((path, line))

        first(frame.f_lineno)

        def local(frame, event, arg):
            if event == "line":
                first(frame.f_lineno)
            return local
        return local

    def __enter__(self):
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._previous)
        return False

    def merge(self, other: "LineCover") -> None:
        """Take in the lines another cover (one call's) recorded, in their first-run order."""
        for path, line in other.order:
            seen = self.lines.setdefault(path, set())
            if line not in seen:
                seen.add(line)
                self.order.append((path, line))

    def to_json(self) -> dict[str, list[int]]:
        return {path: sorted(lines) for path, lines in sorted(self.lines.items())}

    def order_json(self, limit: int = 20000) -> list[str]:
        """`path:line` of the executed lines in the order they first ran (the order data flows through a call)."""
        return [f"{path}:{line}" for path, line in self.order[:limit]]


def ran(executed: dict[str, list[int]] | None, location: str, slack: int = 0) -> bool | None:
    """Whether `path:line` (a finding's location, relative to any directory) executed; None when
    nothing was recorded (no verdict can be drawn) or the location has no line."""
    if not executed:
        return None
    path, _, line = location.partition(":")
    digits = line.split(" ")[0]
    if not digits.isdigit():
        return None
    number = int(digits)
    tail = "/" + path.replace(os.sep, "/").lstrip("./")
    for file, lines in executed.items():
        if file.replace(os.sep, "/").endswith(tail) or file == path:
            return any(abs(n - number) <= slack for n in lines)
    return False


def first_run(order: list[str] | None, location: str) -> int | None:
    """The position of `path:line` (a finding's location, relative to any directory) in the first-run
    order of the executed lines, or None when it is not there."""
    path, _, line = location.partition(":")
    digits = line.split(" ")[0]
    if not order or not digits.isdigit():
        return None
    tail = "/" + path.replace(os.sep, "/").lstrip("./") + ":" + digits
    return next((i for i, at in enumerate(order) if at.replace(os.sep, "/").endswith(tail) or at == location.split(" ")[0]),
                None)
