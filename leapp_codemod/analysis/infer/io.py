"""I/O questions about one function: is a call I/O or a clock read, does a statement do nothing but I/O?

What counts as I/O is data (`knowledge.io`); the rule LCM901 reports it, and other rules and the state
policy ask here so that what only feeds I/O decides nothing the export keeps.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.loaded import binding_before, is_range
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.handles import factory_handle
from leapp_codemod.analysis.model.index import called_name
from leapp_codemod.analysis.model.libraries import in_project, library_available
from leapp_codemod.analysis.model.walk import is_self_attr, iter_nodes
from leapp_codemod.knowledge.vocab import (
    CONTAINER_MUTATORS, DATA_METHOD_NAMES, NON_DATA_BUILTINS, PURE_BUILTINS, PURE_LIBRARIES,
)
from leapp_codemod.knowledge.actuation import named_as_send, shows_to_a_person
from leapp_codemod.knowledge.io import (
    WIRE_METHOD_NAMES,
    CLOCK_FACTORIES, CLOCK_FUNCTIONS, FILE_METHODS, IO_BUILTINS, IO_FUNCTIONS, IO_ROOTS, IO_VALUE_TYPES, LOGGING_METHODS,
    LOG_FUNCTION_PREFIXES, MIDDLEWARE_FACTORIES,
    PACING_FUNCTIONS, PACING_METHODS, PATH_IO_METHODS, PATH_STRING_FUNCTIONS, RECEIVE_METHODS, SEND_METHODS,
)


class IoQuestions:
    """Mixin of `FunctionContext`: I/O calls, clock reads, I/O-only statements."""

    def paces(self, node: ast.Call) -> bool:
        """Does the call only wait (`time.sleep(dt)`, `rate.sleep()` of a `rospy.Rate`)?"""
        if self.call_name(node) in PACING_FUNCTIONS:
            return True
        func = node.func
        return isinstance(func, ast.Attribute) and any(
            f"{t}.{func.attr}" in PACING_METHODS for t in self.types_of(func.value) | self._built_before_range(func.value))

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
        if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and self.cls is not None:
            return any(isinstance(value, ast.Call) and called_name(value.func) in factories
                       for klass in self.project.mro(self.cls) for _, value in klass.attr_values.get(receiver.attr, ()))
        if not isinstance(receiver, (ast.Subscript, ast.Name)):
            return False
        # an item of a container of handles, or a local bound to a handle (`self.pubs[name]`, `pub` of a loop)
        methods = [m.node for klass in self.project.mro(self.cls) for m in klass.methods.values()] \
            if self.cls is not None else []
        return factory_handle(receiver, self.fn.node, self.self_name, methods,
                              lambda call: called_name(call.func) in factories, self.module.globals)

    def io_kind(self, node: ast.Call) -> str | None:
        """What kind of I/O a call performs (for the message), or None."""
        builtin = self.builtin(node)
        if builtin in IO_BUILTINS:
            return f"`{builtin}()`"
        name = self.call_name(node)
        if name:
            if name.startswith(LOG_FUNCTION_PREFIXES):
                return "logging"   # `rospy.logwarn(...)`: a report, not a message sent
            if name in IO_FUNCTIONS or (name.startswith(IO_ROOTS) and name not in IO_VALUE_TYPES):
                return f"`{name}`"
            if name.startswith("logging.") and name.rsplit(".", 1)[-1] in LOGGING_METHODS:
                return "logging"
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        types = self.types_of(func.value) | self._built_before_range(func.value)
        if func.attr in LOGGING_METHODS and any(t in ("logging.getLogger", "logging.Logger") for t in types):
            return "logging"
        if (func.attr in LOGGING_METHODS and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Attribute) and func.value.func.attr == "get_logger"):
            return "logging"  # ROS 2 `self.get_logger().info(...)`
        if (func.attr in SEND_METHODS or isinstance(func.value, ast.Attribute)) and self._factory_made(func.value):
            return f"middleware `.{func.attr}()`"
        if func.attr in PATH_IO_METHODS and any(t in ("pathlib.Path", "pathlib.PurePath", "Path") for t in types):
            return f"file access `.{func.attr}()`"
        if func.attr in FILE_METHODS and any(t in ("open", "io.open", "builtins.open") for t in types):
            return f"file access `.{func.attr}()`"
        if self.paces(node):
            return None   # `rate.sleep()` paces the host: the export loses no value without it
        if any(t.startswith(IO_ROOTS) for t in types):
            return f"`{sorted(types)[0]}.{func.attr}`"
        wire = func.attr.lower() in WIRE_METHOD_NAMES   # `udp.Send()`, `udp.Recv()` of an SDK spelled in CamelCase
        if wire or named_as_send(func.attr):
            client = next((t for t in sorted(types) if self._unread_library_type(t)
                           and (wire or not shows_to_a_person(t))), None)
            if client is not None:   # `self.con.send(...)` of `rtde.RTDE(...)`, `client.Move(vx, vy, w)` of an SDK's
                return f"`.{func.attr}()` of a `{client}` client"
        return None

    def _built_before_range(self, receiver: ast.expr) -> set[str]:
        """An inline range's input built before the range by a library call (`link = socket.socket(...)`,
        `bus = lcm.LCM()`), also a name a script's `__main__` block binds before the loop the range is cut from
        (`lowudp = sdk.UDP(...)`): the dotted constructor, so a send through it inside the range is I/O."""
        if not isinstance(receiver, ast.Name):
            return set()
        bound = self.fn.outer_values.get(receiver.id) if receiver.id in self.fn.params else None
        if bound is None and is_range(self.fn) and receiver.id not in self.fn.params:
            before = binding_before(self, receiver.id)
            bound = before[0] if before is not None and before[1] is None else None   # the module's own code
        name = self.call_name(bound) if isinstance(bound, ast.Call) else None
        return {name} if name and "." in name and not in_project(self.project, name) else set()

    def _unread_library_type(self, type_name: str) -> bool:
        """A class of a third-party module neither scanned nor installed (`rtde.RTDE`): a device or network client
        whose sends leave the process, with no code the scan could follow."""
        return ":" not in type_name and "." in type_name and not in_project(self.project, type_name) \
            and not library_available(self.project, type_name)

    def host_block(self, statements: list[ast.stmt]) -> bool:
        """Statements that only do host work: I/O, waits, `pass`, `raise`, a `return` of nothing or of a
        constant (skipping the step), storing a constant or the clock's time (`self.started = now`) in a name
        or an attribute of self, and branches made of such statements. A branch around them on anything but
        pipeline data (a warm-up wait, a stale-input guard) is the host's decision, not the trace's."""
        return bool(statements) and all(self._host_statement(s) for s in statements)

    def _host_statement(self, s: ast.stmt) -> bool:
        if isinstance(s, (ast.Pass, ast.Raise)) or self.only_io([s]):
            return True
        if isinstance(s, ast.Return):
            return s.value is None or isinstance(s.value, ast.Constant)
        if isinstance(s, ast.If):
            return self.host_block(s.body) and (not s.orelse or self.host_block(s.orelse))
        if isinstance(s, ast.Assign):
            return all(isinstance(t, ast.Name) or isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                       and t.value.id == self.self_name for t in s.targets) and self._host_value(s.value)
        return False

    def rate_gate(self, test: ast.expr) -> bool:
        """`if time.monotonic() - self.started > self.period * self.ticks:`: an ordering of a clock reading against
        settings, clock stamps and step counters decides when the host runs the step (pacing), not what it
        computes. No pipeline data other than a counter may take part."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
            return False
        clocked, pending = False, [test]
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Call) and self.clock_kind(node) is not None \
                    or isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and self._host_value(node):
                clocked = True
                continue
            if is_self_attr(node, self.self_name):
                if self.is_data(node) and not self._class_fact(self.facts.counter_attrs, node.attr):
                    return False
                continue
            if isinstance(node, ast.Name) and self.is_data(node):
                return False
            pending.extend(ast.iter_child_nodes(node))
        return clocked

    def _host_value(self, value: ast.expr) -> bool:
        """A constant, a clock read, or a local every binding of which is a clock read."""
        if isinstance(value, ast.Constant) or isinstance(value, ast.Call) and self.clock_kind(value) is not None:
            return True
        if isinstance(value, ast.Name) and value.id not in self.fn.params:
            bound = self.fn.assigned(value.id)
            return bool(bound) and all(isinstance(v, ast.Call) and self.clock_kind(v) is not None for v in bound)
        return False

    def only_io(self, statements: list[ast.stmt]) -> bool:
        """Statements that do nothing but I/O (`print(...)`, `log.info(...)`, `pass`, `time.sleep(dt)`): a
        branch or a wait loop around them decides what the export drops anyway, so the I/O is the one finding."""
        return bool(statements) and all(
            isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                                        and (self.io_kind(s.value) is not None
                                             or self.call_name(s.value) in PACING_FUNCTIONS)) for s in statements)

    def host_timing(self, read: ast.Call) -> bool:
        """Does the value of the clock read `read` reach nothing but host work: I/O statements (a log of the
        elapsed time), the test of a branch or a wait loop whose body is only I/O, `pass` or a sleep (pacing),
        a field of an object the function hands to an I/O call (a timer message it publishes), or nothing?
        Followed through the local names it is stored in (`t0 = time.time()` ... `dt = time.time() - t0`)."""
        parents = parent_map(self.fn)
        live = list(iter_nodes(self.fn, self.facts.param_constants.get(self.fn.id)))
        sent = {ast.unparse(part) for n in live if isinstance(n, ast.Call) and self.io_kind(n) is not None
                for a in [*n.args, *(k.value for k in n.keywords)] for part in ast.walk(a)
                if isinstance(part, (ast.Name, ast.Attribute))}   # `bus.publish("t", msg.encode())` sends `msg`
        seen: set[str] = set()
        sinks: list[ast.AST] = []

        def statement(node: ast.AST) -> tuple[ast.AST, ast.AST]:
            child, parent = node, parents.get(id(node))
            while parent is not None and not isinstance(parent, ast.stmt):
                child, parent = parent, parents.get(id(parent))
            return child, parent

        def host_only(node: ast.expr) -> bool:
            part, stmt = statement(node)
            if stmt is None:
                return False
            if isinstance(stmt, ast.Expr):
                sinks.append(stmt)
                return self.only_logged(node)
            if isinstance(stmt, ast.Raise):
                sinks.append(stmt)
                return True   # the message of an error the host raises (a watchdog's)
            if isinstance(stmt, ast.Return) and stmt.lineno > (self.fn.node.end_lineno or stmt.lineno) - 1 \
                    and isinstance(node, ast.Name) and self.fn.outer_values is not None and "<lines" in self.fn.qualname:
                sinks.append(stmt)
                return self._host_after_range(node.id)   # an inline range's output: what the host does with it
            if isinstance(stmt, (ast.If, ast.While)) and part is stmt.test:
                sinks.append(stmt)
                return self.only_io(stmt.body + stmt.orelse) or self._watchdog(stmt) or self.rate_gate(stmt.test) or (
                    isinstance(stmt, ast.If) and self.host_block(stmt.body + stmt.orelse) and not self.is_data(stmt.test))
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and part is stmt.value:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                return all(stored(t) for t in targets)
            return False

        def stored(target: ast.expr) -> bool:
            if isinstance(target, ast.Attribute) and any(
                    ast.unparse(holder) in sent and ast.unparse(holder) != self.self_name
                    for holder in _holders(target.value)):
                sinks.append(target)
                return True   # `self.timer_msg.data = dt`, `cmd.header.stamp = now`, then the message is sent
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.attr not in self._project_attr_reads():
                return True   # `self.last_call = time.time()`, an attribute no code of the project reads
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id == self.self_name and self._read_only_for_io(target.attr):
                return True   # `self.prev_time = now`, read back only to log the interval
            if not isinstance(target, ast.Name):
                return False
            if target.id in seen:
                return True
            seen.add(target.id)
            return all(host_only(n) for n in live if isinstance(n, ast.Name) and n.id == target.id
                       and isinstance(n.ctx, ast.Load))

        return host_only(read)   # a read whose value nothing uses (a dead local, an unread attribute) too

    def _read_only_for_io(self, attr: str) -> bool:
        """Is every read of `self.<attr>` the step reaches part of a statement that only does I/O, or the test
        of a branch whose body only does I/O (`if self.prev_time is not None: log(now - self.prev_time)`)?"""
        if self.cls is None:
            return False
        reads = [read for klass in self.project.mro(self.cls)
                 for read in self.facts.attr_reads.get(klass.id, {}).get(attr, ())]
        return bool(reads) and all(self._decides_only_io(fid, line) for fid, line in reads)

    def _watchdog(self, stmt: ast.stmt) -> bool:
        """`if now - self.last_stamp > timeout: log(msg); raise ...`: a check that stops the host when its
        inputs are stale. Its body reports and raises (names bound there hold only text); no value leaves it."""
        if not isinstance(stmt, ast.If) or stmt.orelse or not stmt.body or not isinstance(stmt.body[-1], ast.Raise):
            return False
        return all(isinstance(s, ast.Raise) or self.only_io([s]) or (
            isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets)
            and isinstance(s.value, (ast.JoinedStr, ast.Constant))) for s in stmt.body)

    def _project_attr_reads(self) -> frozenset[str]:
        """Names of every attribute some scanned module reads (`x.stamp`, `self.stamp`), once per project."""
        key = ("attr_reads", self.project.own_module_count())
        found = self.project.memo.get(key)
        if found is None:
            found = self.project.memo[key] = frozenset(
                n.attr for name, module in list(self.project.modules.items()) if not self.project.is_library(name)
                for n in module.nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load))
        return found

    def _host_after_range(self, name: str) -> bool:
        """Is the inline range's output `name` read after the range, in the function around it, only by
        statements that print or log (directly, or through names computed from it and only logged)?"""
        scope = self.project.modules[self.fn.module].functions.get(self.fn.qualname.rpartition(".")[0])
        if scope is None:
            return False
        end = self.fn.node.end_lineno or 0
        after = [s for s in scope.nodes if isinstance(s, ast.stmt) and s.lineno > end]
        names, todo = {name}, [name]
        while todo:
            current = todo.pop()
            for stmt in after:
                heads = _heads(stmt)
                if not any(isinstance(n, ast.Name) and n.id == current and isinstance(n.ctx, ast.Load)
                           for head in heads for n in ast.walk(head)):
                    continue   # a compound statement is asked about its test (its body's statements on their own)
                if isinstance(stmt, (ast.If, ast.While)) and self.only_io(stmt.body + stmt.orelse):
                    continue
                if isinstance(stmt, ast.Expr) and self.only_io([stmt]):
                    continue
                if isinstance(stmt, (ast.Assign, ast.AugAssign)) and all(
                        isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                    for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                        if t.id not in names:
                            names.add(t.id)
                            todo.append(t.id)
                    continue
                return False
        return True

    def reports_only(self) -> bool:
        """Does this function only report (a debug printer: `print_obs(name, values)`)? It returns nothing,
        writes nothing outside its own locals, and every call it makes is I/O, a pure builtin, a NumPy/torch/
        math function, a method of a value, or another such function: what it computes leaves with its I/O,
        so its I/O is the one finding (nothing it converts or builds reaches the export)."""
        known = self.fn.walks.get("reports_only")
        if known is not None:
            return known
        self.fn.walks["reports_only"] = False   # a recursive printer is not proven by itself
        verdict = self._reports_only()
        self.fn.walks["reports_only"] = verdict
        return verdict

    def _reports_only(self) -> bool:
        fn = self.fn
        if fn.is_method or "<lines" in fn.qualname:
            return False   # a method may keep what it computes on its object; an inline range is the step
        return self.report_body() is True

    def report_body(self, owner: str | None = None) -> bool | None:
        """Does the body only report: None when it does something else (returns a value, writes what another
        reader may see, calls what may), else whether it does I/O. With `owner` (the method's self name, see
        `reporters`), it may also write and grow its own object's fields, call its object's methods and, when
        private, return a value to them."""
        fn = self.fn
        local = {n.id for n in fn.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        params = set(fn.params)
        mine = set(local - params) | ({owner} if owner else set())
        private = owner is not None and fn.name.startswith("_") and not fn.name.endswith("__")
        io = False
        for node in fn.nodes:
            if isinstance(node, ast.Return) and node.value is not None and not private \
                    and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return None
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, ast.Lambda)):
                return None
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                if owner is not None and _root_name(node) == owner:
                    continue   # `self.filtered = v`: the reporter's own field
                return None   # `values[0] = ...`, `obj.x = ...`: a write another reader may see
            if not isinstance(node, ast.Call):
                continue
            if self.io_kind(node) is not None:
                io = True
                continue
            func = node.func
            if self.builtin(node) in NON_DATA_BUILTINS | PURE_BUILTINS | {"enumerate", "zip", "sorted", "reversed"}:
                continue
            name = self.call_name(node)
            if name and name.partition(".")[0] in PURE_LIBRARIES and not name.startswith("numpy.random") \
                    or name in PATH_STRING_FUNCTIONS:
                continue
            if isinstance(func, ast.Attribute):
                root = _root_name(func.value)
                if owner is not None and root == owner and isinstance(func.value, ast.Name):
                    continue   # `self._format(v)`: another method of the reporter (the class is asked whole)
                if func.attr in CONTAINER_MUTATORS:
                    if root in mine:
                        continue   # `segments.append(...)` on a list of its own
                    return None
                if func.attr in DATA_METHOD_NAMES and not func.attr.endswith("_"):
                    continue   # `values.min()`, `", ".join(...)`: a value's own method
            if self.reporter_call(node):
                io = True
                continue
            callees = self.resolve_call(node)
            if callees and all(not c.is_method and self.for_function(c).reports_only() for c in callees):
                io = True
                continue
            return None
        return io

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


def _heads(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement evaluates itself: the test of an `if`/`while`, the iterable of a `for`, the items of a
    `with`; a simple statement whole."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    if isinstance(stmt, (ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [stmt]


def spelled_path(arg: ast.expr) -> bool:
    """A path written out in the call: a string, an f-string, `os.path.join(...)`, or `+`/`/` of such pieces."""
    if isinstance(arg, ast.JoinedStr) or isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return True
    if isinstance(arg, ast.Call) and ast.unparse(arg.func) in ("os.path.join", "osp.join", "path.join"):
        return True
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format" \
            and isinstance(arg.func.value, ast.Constant) and isinstance(arg.func.value.value, str):
        return True   # `"debug/joints_{}.npy".format(suffix)`
    return isinstance(arg, ast.BinOp) and (spelled_path(arg.left) or spelled_path(arg.right))


def named_path(nodes, arg: ast.expr) -> bool:
    """A path spelled in the call, or a local every assignment of which (among `nodes`) spells one."""
    if spelled_path(arg):
        return True
    if not isinstance(arg, ast.Name):
        return False
    values = [n.value for n in nodes if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)]
    return bool(values) and all(spelled_path(v) for v in values)


def _root_name(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _holders(expr: ast.expr) -> list[ast.expr]:
    """`cmd.header` and `cmd`: the expression and each object it is read off (attributes, items)."""
    out = [expr]
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
        out.append(expr)
    return out
