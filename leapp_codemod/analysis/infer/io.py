"""I/O questions about one function: is a call I/O or a clock read, does a statement do nothing but I/O?

What counts as I/O is data (`knowledge.io`); the rule LCM901 reports it, and other rules and the state
policy ask here so that what only feeds I/O decides nothing the export keeps.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.index import called_name
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.knowledge.io import (
    CLOCK_FACTORIES, CLOCK_FUNCTIONS, FILE_METHODS, IO_BUILTINS, IO_FUNCTIONS, IO_ROOTS, LOGGING_METHODS, MIDDLEWARE_FACTORIES,
    PATH_IO_METHODS, SEND_METHODS,
)


class IoQuestions:
    """Mixin of `FunctionContext`: I/O calls, clock reads, I/O-only statements."""

    def clock_kind(self, node: ast.Call) -> str | None:
        """`time.time()`, `node.get_clock().now()`: an external input frozen at trace time."""
        name = self.call_name(node)
        if name in CLOCK_FUNCTIONS:
            return f"`{name}`"
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "now" and (
                isinstance(func.value, ast.Call) and called_name(func.value.func) in CLOCK_FACTORIES
                or self._factory_made(func.value, CLOCK_FACTORIES)):
            return "the node clock"   # `self.get_clock().now()`, `self._clock.now()`
        return None

    def _factory_made(self, receiver: ast.expr, factories=MIDDLEWARE_FACTORIES) -> bool:
        """`self.pub` assigned from `self.create_publisher(...)` / `ChannelPublisher(...)` (one of `factories`)
        anywhere in its class."""
        if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and self.cls is not None):
            return False
        return any(isinstance(value, ast.Call) and called_name(value.func) in factories
                   for klass in self.project.mro(self.cls) for _, value in klass.attr_values.get(receiver.attr, ()))

    def io_kind(self, node: ast.Call) -> str | None:
        """What kind of I/O a call performs (for the message), or None."""
        builtin = self.builtin(node)
        if builtin in IO_BUILTINS:
            return f"`{builtin}()`"
        name = self.call_name(node)
        if name:
            if name in IO_FUNCTIONS or name.startswith(IO_ROOTS):
                return f"`{name}`"
            if name.startswith("logging.") and name.rsplit(".", 1)[-1] in LOGGING_METHODS:
                return "logging"
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        types = self.types_of(func.value)
        if func.attr in LOGGING_METHODS and any(t in ("logging.getLogger", "logging.Logger") for t in types):
            return "logging"
        if (func.attr in LOGGING_METHODS and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Attribute) and func.value.func.attr == "get_logger"):
            return "logging"  # ROS 2 `self.get_logger().info(...)`
        if self._factory_made(func.value):
            return f"middleware `.{func.attr}()`"
        if func.attr in PATH_IO_METHODS and any(t in ("pathlib.Path", "pathlib.PurePath", "Path") for t in types):
            return f"file access `.{func.attr}()`"
        if func.attr in FILE_METHODS and any(t in ("open", "io.open", "builtins.open") for t in types):
            return f"file access `.{func.attr}()`"
        if any(t.startswith(IO_ROOTS) for t in types):
            return f"`{sorted(types)[0]}.{func.attr}`"
        if func.attr in SEND_METHODS:
            client = next((t for t in sorted(types) if self._unread_library_type(t)), None)
            if client is not None:
                return f"`.{func.attr}()` of a `{client}` client"   # `self.con.send(...)`, `self.con = rtde.RTDE(...)`
        return None

    def _unread_library_type(self, type_name: str) -> bool:
        """A class of a third-party module neither scanned nor installed (`rtde.RTDE`): a device or network client
        whose sends leave the process, with no code the scan could follow."""
        return ":" not in type_name and "." in type_name and not in_project(self.project, type_name) \
            and not library_available(self.project, type_name)

    def only_io(self, statements: list[ast.stmt]) -> bool:
        """Statements that do nothing but I/O (`print(...)`, `log.info(...)`, `pass`): a branch around
        them decides what the export drops anyway, so the I/O is the one finding."""
        return bool(statements) and all(
            isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                                        and self.io_kind(s.value) is not None) for s in statements)

    def only_logged(self, node: ast.AST) -> bool:
        """Is `node` part of a statement that does nothing but I/O (`logger.log({'v': x.item()})`,
        `print(float(x))`)? What it computes leaves with the I/O the export drops anyway."""
        if self.io_statements is None:
            self.io_statements = {}
            for stmt in self.fn.nodes:
                if isinstance(stmt, ast.Expr) and self.only_io([stmt]):
                    span = ((stmt.lineno, stmt.col_offset), (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0))
                    for line in range(stmt.lineno, span[1][0] + 1):
                        self.io_statements.setdefault(line, []).append(span)
        where = (node.lineno, node.col_offset)
        return any(start <= where < end for start, end in self.io_statements.get(node.lineno, ()))
