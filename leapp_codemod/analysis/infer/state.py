"""State-write questions (LCM701/LCM702 and the state `generate` declares): which persistent state a
statement writes, and whether a later call can see what it wrote."""
from __future__ import annotations

import ast

from leapp_codemod.analysis.infer.cadence import cadence_counter, cadence_guard, cadence_test
from leapp_codemod.analysis.infer.kept import KeptQuestions
from leapp_codemod.analysis.infer.taint import function_attr
from leapp_codemod.analysis.infer.type_tests import parent_map
from leapp_codemod.analysis.model.class_state import CONSTRUCTION_METHODS, inputs_from_callbacks
from leapp_codemod.analysis.model.walk import is_self_attr
from leapp_codemod.analysis.infer.outside_inputs import REACHED_KEY
from leapp_codemod.analysis.infer.value_reads import STEP_READS_KEY, project_value_reads, read_outside
from leapp_codemod.knowledge.vocab import CONTAINER_MUTATORS, INPLACE_EXCEPTIONS, SAME_VALUE_METHODS


class StateQuestions(KeptQuestions):
    """Mixin of `FunctionContext`: writes of persistent state and the order of its reads."""

    def _is_state_root(self, root: ast.expr) -> str | None:
        if is_self_attr(root, self.self_name) and self.self_attr_is_data(root.attr):
            return root.attr
        if isinstance(root, ast.Name) and (self.is_data_global(root.id) or root.id in self.fn.carried):
            return root.id
        stored = function_attr(self, root)
        if stored and stored in self.facts.data_globals.get(self.module.name, ()):
            return stored   # `low_pass.memory += ...`: kept on the function object from call to call
        held = self.held_path(root)
        if held and self.is_data(root):
            return held     # `term.hist[:, 0] = v` with `for term in self.terms`: an array an item of self holds
        return None

    def held_path(self, expr: ast.expr) -> str | None:
        """'sub.hist', 'terms[].hist': `expr` is an attribute of an object self holds (`self.sub.hist`), an item
        of a container on self (`self.terms[k].hist`) or a loop variable walking one (`t.hist` with
        `for t in self.terms`), when that object is of a project class. Its value lives as long as self: what the
        step writes there, the next call reads. None for anything else, `self.x` itself included."""
        if not isinstance(expr, ast.Attribute) or is_self_attr(expr, self.self_name) or self.cls is None:
            return None
        if not any(":" in t for t in self.types_of(expr.value)):
            return None   # a library object's field (`self.sim_data.ctrl[:] = u` feeds a simulator): not the step's
        parts = [expr.attr]
        holder = expr.value
        while True:
            if isinstance(holder, ast.Subscript) and not isinstance(holder.slice, ast.Slice):
                parts.append("[]")
                holder = holder.value
            elif is_self_attr(holder, self.self_name):
                parts.append(holder.attr)
                break
            elif isinstance(holder, ast.Attribute):
                parts.append(holder.attr)
                holder = holder.value
            elif isinstance(holder, ast.Name) and self.loop_alias(holder) is not None:
                parts += ["[]", self.loop_alias(holder).attr]
                break
            else:
                return None
        path = ""
        for part in reversed(parts):
            path += part if part == "[]" or not path else f".{part}"
        return path

    def loop_alias(self, name: ast.expr) -> ast.Attribute | None:
        """`self.bufs` when `name` is the loop target that walks its items (`for buf in self.bufs`, also
        `zip(self.bufs, frames)`, `enumerate(self.bufs)`, `self.legs.values()`, `self.legs.items()` and their
        nestings): writes through the alias change `self.bufs`."""
        if not isinstance(name, ast.Name):
            return None
        loops = self.fn.walks.get("loops")
        if loops is None:   # the function's loops and comprehensions, listed once per function
            loops = self.fn.walks["loops"] = [n for n in self.fn.nodes if isinstance(n, (ast.For, ast.comprehension))]
        for loop in loops:
            for target, source in _walked(loop.target, loop.iter):
                if isinstance(target, ast.Name) and target.id == name.id and is_self_attr(source, self.self_name):
                    return source
        return None

    def declared_globals(self) -> frozenset[str]:
        """Names the function declares `global`: module globals it rebinds."""
        known = self.fn.walks.get("declared_globals")
        if known is None:
            known = self.fn.walks["declared_globals"] = frozenset(
                name for n in self.fn.nodes if isinstance(n, ast.Global) for name in n.names)
        return known

    def closure_cells(self) -> frozenset[str]:
        """Variables of the enclosing function this closure keeps from one of its calls to the next: the
        closure escapes (is returned or stored by) a function the pipeline does not call, so its cells live
        as long as the closure (`def make_step(net): last = ...; def step(obs): nonlocal last ...; return
        step`), or the closure is the entry the function around it calls again and again. A closure defined in a
        function the pipeline calls gets fresh cells on every call: none."""
        known = self.fn.walks.get("closure_cells")
        if known is not None:
            return known
        self.fn.walks["closure_cells"] = frozenset()
        outer_name, sep, own = self.fn.qualname.rpartition(".<locals>.")
        outer = self.module.functions.get(outer_name) if sep else None
        if outer is None or self.facts.callers.get(outer.id) or not (_escapes(outer.node, own) or self.is_entry()):
            return frozenset()   # the entry closure: the driver around it calls it again with the same cells
        local = {n.id for n in _own_nodes(self.fn.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        kept = (set(outer.params) | {n.id for n in _own_nodes(outer.node) if isinstance(n, ast.Name)
                                     and isinstance(n.ctx, ast.Store)}) - (local - self._nonlocals())
        known = self.fn.walks["closure_cells"] = frozenset(kept)
        return known

    def _nonlocals(self) -> set[str]:
        return {name for n in _own_nodes(self.fn.node) if isinstance(n, ast.Nonlocal) for name in n.names}

    def closure_state(self, name: str) -> str:
        """How a kept closure variable is named as state: 'make_step.last' (never a declarable identifier)."""
        return f"{self.fn.qualname.rpartition('.<locals>.')[0]}.{name}"

    def _global_read_before(self, name: str, line: int) -> bool:
        """Does the function read the global `name` on or before `line` (the write's own value included)?"""
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno <= line
                   for n in self.fn.nodes)

    def state_owner(self, attr: str) -> str:
        """'module:Class' for attributes of self, 'module' for module globals and loop-carried names."""
        if self.cls is not None and attr not in self.facts.data_globals.get(self.module.name, ()) \
                and attr not in self.fn.carried and attr not in self.declared_globals():
            return self.cls.id
        return self.module.name

    def cadence_test(self, test: ast.expr) -> bool:
        """A test whose only pipeline data is a step counter read only by tests and indexes (see `cadence`)."""
        return cadence_test(test, self)

    def cadence_guard(self, node: ast.AST):
        """(the `if`, its counters, their lines) when `node` sits in a block such a counter's test picks."""
        return cadence_guard(self, node)

    def state_write(self, node: ast.AST) -> tuple[str, str] | None:
        """(attr, kind) of the first persistent state `node` writes (see `state_writes`)."""
        writes = self.state_writes(node)
        return writes[0] if writes else None

    def state_writes(self, node: ast.AST) -> list[tuple[str, str]]:
        """(attr, kind) for each piece of persistent state (of `self` or a module global) `node` writes:
        kind 'inplace' (`x.copy_()`, `x += ...`, `x[i] = ...`, `queue.append(...)`) or 'reassigned'. A
        constructor writes a new object's attributes: nothing a later call of the step reads back."""
        if self.cls is not None and self.fn.name in CONSTRUCTION_METHODS:
            return []
        kept = self.kept_write(node)
        if kept is not None:
            return [kept] if kept[0] else []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return self._call_state_writes(node)
        if isinstance(node, ast.AugAssign):
            target = node.target
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Name) and target.id in self.declared_globals() \
                    and target.id not in self.fn.carried:
                return [(target.id, "inplace")] if self.is_data(node.value) else []   # `global acc; acc += obs`
            if isinstance(target, ast.Name) and target.id in self.closure_cells():
                return [(self.closure_state(target.id), "inplace")] if self.is_data(node.value) else []
            attr = self._is_state_root(target)
            if attr and (self._is_counter(target) or _counts(node, self.self_name)) \
                    and not self._read_elsewhere(attr, {node.lineno}):
                return []  # a counter nothing else reads (but I/O), also one a data branch advances
            if attr and self._is_counter(target) and cadence_counter(self, attr):
                return []  # `self.t += 1` read only by tests and indexes: the carried plan is the state
            return [(attr, "inplace")] if attr and self._carried(target) else []
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out: list[tuple[str, str]] = []
            for target in targets:
                for elt, value in _target_pairs(target, node.value):
                    write = self._assign_state_write(elt, value, node.lineno)
                    if write and write not in out:
                        out.append(write)
            return out
        return []

    def _call_state_writes(self, node: ast.Call) -> list[tuple[str, str]]:
        method = node.func.attr
        root = node.func.value
        if method.endswith("_") and not method.endswith("__") and method not in INPLACE_EXCEPTIONS:
            while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and root.func.attr.endswith("_"):
                root = root.func.value
            while isinstance(root, ast.Subscript):
                root = root.value
            attr = self._is_state_root(root)
            return [(attr, "inplace")] if attr and self._carried(root) else []
        root = self.loop_alias(root) or root      # `for buf in self.bufs: buf.append(x)`
        if method in CONTAINER_MUTATORS and self.is_state_container(root):
            held = root.value if isinstance(root, ast.Subscript) else root   # `self.frames[cam].append(img)`
            if isinstance(held, ast.Attribute) and not self._read_as_value(held.attr):
                return []   # `self.log.append(a)` into a list nothing reads: no later call sees it
            if self._carried(held):
                return [(held.id if isinstance(held, ast.Name) else held.attr, "inplace")]
        return []

    def _read_as_value(self, attr: str) -> bool:
        """Does code read `<obj>.<attr>` as a value (`analysis.infer.value_reads`)? A container of self that
        nothing reads so is write-only, its content reaches no output. In entry mode: the step's code, or code
        outside it that does more than report it or ask its size; else every module."""
        in_step = self.project.memo.get(STEP_READS_KEY)
        if in_step is None:
            key = ("value_read_attrs",)
            found = self.project.memo.get(key)
            if found is None:
                found = self.project.memo[key] = project_value_reads(self.project)
            return attr in found
        return attr in in_step or read_outside(self.project, attr, self.project.memo.get(REACHED_KEY, frozenset()),
                                               self._only_reports)

    def _only_reports(self, fn) -> bool:
        """Does `fn` (a method too: its own fields may change) do nothing with what it reads but report it?"""
        owner = fn.positional_params[0] if fn.is_method and fn.positional_params else None
        return self.for_function(fn).report_body(owner=owner) is not None

    def _assign_state_write(self, target: ast.expr, value: ast.expr, line: int) -> tuple[str, str] | None:
        if isinstance(target, ast.Subscript):
            root = target
            while isinstance(root, ast.Subscript):
                root = root.value
            root = self.loop_alias(root) or root   # `for buf in self.bufs: buf[:] = x`
            if isinstance(root, ast.Name) and root.id in self.fn.refilled:
                return None   # scratch space the range fills whole before reading
            if isinstance(root, ast.Name) and root.id in self.closure_cells():
                return (self.closure_state(root.id), "inplace") if self.is_data(value) else None
            attr = self._is_state_root(root)
            return (attr, "inplace") if attr and self._carried(root) else None
        if isinstance(target, ast.Name) and target.id in self.fn.carried:
            return (target.id, "reassigned") if self.is_data(value) and self._carried(target) else None
        if isinstance(target, ast.Name) and target.id in self.closure_cells():
            # `nonlocal last; d = obs - last; last = obs` in a closure that outlives its maker
            return (self.closure_state(target.id), "reassigned") \
                if self.is_data(value) and self._global_read_before(target.id, line) else None
        if isinstance(target, ast.Name) and target.id in self.declared_globals():
            # `global prev; vel = obs - prev; prev = obs`: the next call reads what this one left
            return (target.id, "reassigned") if self.is_data(value) and self._global_read_before(target.id, line) \
                else None
        stored = function_attr(self, target)
        if stored:
            read_before = any(function_attr(self, n) == stored and isinstance(n.ctx, ast.Load)
                              for n in (*ast.walk(value), *(m for m in self.fn.nodes if getattr(m, "lineno", line) < line))
                              if isinstance(n, ast.Attribute))
            return (stored, "reassigned") if read_before and self.is_data(value) else None
        held = self.held_path(target)
        if held is not None:
            return (held, "reassigned") if self.is_data(value) and self._held_read_before(target, held, line, value) \
                else None
        if not is_self_attr(target, self.self_name) or self.cls is None:
            return None
        if cadence_counter(self, target.attr):
            return None  # `self.t = 0` of a counter only tests and indexes read: the carried plan is the state
        if not self.is_data(value) and not self._fed_back(value, target.attr) and not self._chosen_by_data(target):
            return None
        if _same_value(value, target.attr, self.self_name):
            return None  # `self.w = self.w.to(x.device)`: the same tensor, moved
        if self._lazy_fill(target, value):
            return None  # `if self._inv is None: self._inv = (self._var + eps) ** -0.5`: a cache of module state
        if self._is_counter(target):
            updates = {line}
            return (target.attr, "reassigned") if self._read_elsewhere(target.attr, updates) else None
        return (target.attr, "reassigned") if self._read_across_calls(target.attr, line) else None

    def _held_read_before(self, target: ast.Attribute, held: str, line: int, value: ast.expr | None = None) -> bool:
        """Is the held attribute (`self.legs[i].prev`) read before this write can have set it: on or before
        its line in this function, in the value written (`self.env.hist = torch.cat([self.env.hist[:, 1:],
        x], 1)` over several lines), or by a reachable method of the object's class (`self.prev`)?"""
        in_value = {id(n) for n in ast.walk(value)} if value is not None else set()
        if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr == target.attr
               and (n.lineno <= line or id(n) in in_value) and self.held_path(n) == held for n in self.fn.nodes):
            return True
        for type_name in self.types_of(target.value):
            module, _, qual = type_name.partition(":")
            cls = self.project.modules[module].classes.get(qual) if module in self.project.modules else None
            if cls is not None and any(self.facts.attr_reads.get(c.id, {}).get(target.attr)
                                       for c in self.project.mro(cls)):
                return True
        return False

    def _lazy_fill(self, target: ast.Attribute, value: ast.expr) -> bool:
        """A cache filled once under `if self.<attr> is None:` from attributes of self and module names only
        (no parameter, no local, no attribute a callback writes): a function of the module's own state (its
        buffers), the same value on every later call."""
        branch = parent_map(self.fn).get(id(parent_map(self.fn).get(id(target))))
        test = branch.test if isinstance(branch, ast.If) else None
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                and is_self_attr(test.left, self.self_name) and test.left.attr == target.attr):
            return False
        module_names = set(self.module.imports) | set(self.module.globals)
        if not all(n.id == self.self_name or n.id in module_names and n.id not in self.fn.params
                   for n in ast.walk(value) if isinstance(n, ast.Name)):
            return False
        read = {n.attr for n in ast.walk(value) if is_self_attr(n, self.self_name)}
        return not read & self._callback_written()

    def _callback_written(self) -> set[str]:
        """Attributes of self a callback writes from outside (`self.K = msg.k`): inputs, not the module's own."""
        key = ("callback_written", self.cls.id)
        found = self.project.memo.get(key)
        if found is None:
            found = self.project.memo[key] = inputs_from_callbacks(self.project, self.cls, frozenset())
        return found

    def constants_chosen_by_data(self, node: ast.If) -> list[str]:
        """`if np.linalg.norm(cmd) < eps: self.freq = 0.0 else: ...`: attributes of self the branches set to
        numbers, when pipeline data picks the branch (the attribute then holds pipeline data)."""
        attrs = [s.targets[0].attr for s in (*node.body, *node.orelse) if isinstance(s, ast.Assign)
                 and len(s.targets) == 1 and is_self_attr(s.targets[0], self.self_name)
                 and isinstance(s.value, ast.Constant) and isinstance(s.value.value, (int, float))
                 and not isinstance(s.value.value, bool)]
        return attrs if attrs and self.is_data(node.test) and not self.decided_by_settings(node) else []

    def _chosen_by_data(self, target: ast.expr) -> bool:
        """`if norm(cmd) < eps: self.freq = 0.0`: a constant written in a branch pipeline data decides."""
        parents = parent_map(self.fn)
        assign = parents.get(id(target))
        branch = parents.get(id(assign)) if assign is not None else None
        return isinstance(branch, ast.If) and isinstance(assign, ast.Assign) and \
            isinstance(assign.value, ast.Constant) and self.is_data(branch.test) and not self.decided_by_settings(branch)

    def _fed_back(self, value: ast.expr, attr: str) -> bool:
        """`self.states = model.predict(obs, state=self.states)`: a call on pipeline data that takes the
        attribute's previous value and returns its next one is recurrent state, whatever the callee."""
        if not isinstance(value, ast.Call) or not self.args_data(value):
            return False
        args = (*value.args, *(k.value for k in value.keywords))
        return any(is_self_attr(a, self.self_name) and a.attr == attr for a in args)

    def _carried(self, root: ast.expr) -> bool:
        """Can a read of this state root see the value the previous call left? Without a known order
        (lint mode, module globals) every write counts; with one, only reads no always-running write
        precedes (see `access_order`)."""
        order = self.facts.access
        if order is not None and isinstance(root, ast.Name) and root.id in self.fn.carried:
            return bool(order.uncovered.get((self.fn.id, root.id)))
        if order is None or self.cls is None or not is_self_attr(root, self.self_name):
            return True
        attr = root.attr
        for klass in self.project.mro(self.cls):
            if any(not self._decides_only_io(fid, line) for fid, line in order.uncovered.get((klass.id, attr), ())):
                return True
            if any(fid not in order.visited and not self._decides_only_io(fid, line)
                   for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ())):
                return True
        return False

    def _is_counter(self, target: ast.expr) -> bool:
        return is_self_attr(target, self.self_name) and self._class_fact(self.facts.counter_attrs, target.attr)

    def _read_elsewhere(self, attr: str, lines: set[int]) -> bool:
        """Is `self.<attr>` read anywhere in the pipeline other than on these lines of this function,
        and other than for I/O (`print(self.count)`, `if self.count % 50 == 0: print(...)`)?"""
        for klass in self.project.mro(self.cls):
            for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ()):
                if (fid != self.fn.id or line not in lines) and not self._decides_only_io(fid, line):
                    return True
        return False

    def _decides_only_io(self, fid: str, line: int) -> bool:
        module, _, qualname = fid.partition(":")
        fn = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
        if fn is None:
            return False
        reader = self.for_function(fn)
        for node in fn.nodes:
            if node.__class__ in (ast.If, ast.Expr) and node.lineno <= line <= (node.end_lineno or line):
                if reader.only_io([node] if isinstance(node, ast.Expr) else node.body + node.orelse):
                    return True
                if isinstance(node, ast.If) and node.test.lineno <= line <= (node.test.end_lineno or line) \
                        and (reader.host_block(node.body + node.orelse) or reader.rate_gate(node.test)):
                    return True   # `if now - self.started < wait: return`: a host guard; a rate gate paces
        return False

    def _read_across_calls(self, attr: str, write_line: int) -> bool:
        """Is `self.<attr>` read before this write can have set it: earlier in this function, or in
        another reachable function that is not only called from here after the write (a scratch
        attribute written at the top of a step and read by its helpers is no state)?"""
        unconditional = self._top_level_line(write_line)
        for klass in self.project.mro(self.cls):
            for fid, line in self.facts.attr_reads.get(klass.id, {}).get(attr, ()):
                order = self.facts.access
                if self._exclusive_arms(fid, line, write_line):
                    continue   # `if self.from_model: read ... else: write`: a fixed setting runs one arm only
                if order is not None and fid in order.visited:  # the order of this call is known
                    if (fid, line) in order.uncovered.get((klass.id, attr), ()):
                        return True
                    continue
                if fid == self.fn.id:
                    if line <= write_line:
                        return True
                elif not (unconditional and self._only_called_after(fid, write_line)):
                    return True
        return False

    def _exclusive_arms(self, fid: str, read_line: int, write_line: int) -> bool:
        """Do the read and this write sit in opposite arms of tests of the same setting of self (an
        attribute only the constructor sets: `if not self.from_model:` here, `else:` or `if
        self.from_model:` there)? The object keeps its setting from call to call, so no call reads what
        another call of the other mode wrote."""
        module, _, qualname = fid.partition(":")
        fn = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
        if fn is None or not fn.positional_params:
            return False
        read = self._setting_arms(fn, fn.positional_params[0], read_line)
        written = self._setting_arms(self.fn, self.self_name, write_line)
        return any((key, not polarity) in read for key, polarity in written)

    def _setting_arms(self, fn, self_name: str | None, line: int) -> set[tuple[str, bool]]:
        """(setting attribute, its truth) for each `if` on a constructor-only attribute of self whose arm
        holds `line`."""
        arms: set[tuple[str, bool]] = set()
        for parent in fn.nodes:
            for field in ("body", "orelse"):
                stmts = getattr(parent, field, None)
                if not isinstance(stmts, list):
                    continue
                for i, node in enumerate(stmts):
                    if not isinstance(node, ast.If):
                        continue
                    test, polarity = node.test, True
                    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                        test, polarity = test.operand, not polarity
                    if not (is_self_attr(test, self_name) and self._constructor_setting(test.attr)):
                        continue
                    rest = stmts[i + 1:] if not node.orelse and isinstance(node.body[-1], (ast.Return, ast.Raise)) \
                        else []   # `if self.replay: return ...` then the live mode's statements
                    for body, truth in ((node.body, polarity), (node.orelse or rest, not polarity)):
                        if body and body[0].lineno <= line <= (body[-1].end_lineno or body[-1].lineno):
                            arms.add((test.attr, truth))
        return arms

    def _constructor_setting(self, attr: str) -> bool:
        writers = [m for klass in self.project.mro(self.cls) for m, _ in klass.attr_values.get(attr, ())]
        return bool(writers) and all(m in CONSTRUCTION_METHODS for m in writers)

    def _top_level_line(self, line: int) -> bool:
        return any(stmt.lineno == line for stmt in self.fn.node.body)

    def _only_called_after(self, fid: str, line: int) -> bool:
        if self.facts.callers.get(fid, set()) != {self.fn.id}:
            return False
        call_lines = [node.lineno for node in self.fn.nodes if isinstance(node, ast.Call)
                      and any(c.id == fid for c in self.resolve_call(node))]
        return bool(call_lines) and min(call_lines) > line


def _walked(target: ast.expr, iterable: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """(loop target, the container whose items it takes): `for i, (k, leg) in enumerate(self.legs.items())`
    gives `leg` the items of `self.legs`."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and isinstance(target, ast.Tuple):
        if iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
            return [p for t, a in zip(target.elts, iterable.args) for p in _walked(t, a)]
        if iterable.func.id == "enumerate" and iterable.args and len(target.elts) == 2:
            return _walked(target.elts[1], iterable.args[0])
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args:
        if iterable.func.attr == "values":
            return _walked(target, iterable.func.value)
        if iterable.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            return _walked(target.elts[1], iterable.func.value)
    return [(target, iterable)]


def _own_nodes(fn_node: ast.AST):
    """The nodes of a function's own body, nested function and class bodies left out."""
    stack = list(ast.iter_child_nodes(fn_node))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _escapes(outer: ast.AST, name: str) -> bool:
    """Does the function hand out its nested function `name`: return it (alone or in a tuple) or store it
    in an attribute, an item or a global?"""
    for node in _own_nodes(outer):
        value = node.value if isinstance(node, (ast.Return, ast.Assign)) else None
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        if not any(isinstance(v, ast.Name) and v.id == name for v in values):
            continue
        if isinstance(node, ast.Return) or any(not isinstance(t, ast.Name) for t in node.targets):
            return True
    return False


def _target_pairs(target: ast.expr, value: ast.expr):
    """(target, value) for each name a target binds: `a, self.h = x, y` pairs elementwise;
    `out, self.h = rnn(x, self.h)` gives each element the whole value."""
    if isinstance(target, (ast.Tuple, ast.List)):
        paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            and not any(isinstance(t, ast.Starred) for t in target.elts)
        for i, elt in enumerate(target.elts):
            elt = elt.value if isinstance(elt, ast.Starred) else elt
            yield from _target_pairs(elt, value.elts[i] if paired else value)
    else:
        yield target, value



def _same_value(value: ast.expr, attr: str, self_name: str | None) -> bool:
    """`self.x`, `self.x.to(device)`, `self.x.float().contiguous()`: the attribute's own value."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr in SAME_VALUE_METHODS:
        value = value.func.value
    return is_self_attr(value, self_name) and value.attr == attr


def _counts(node: ast.AugAssign, self_name: str | None) -> bool:
    """`self.n += 1`: an attribute of self advanced by a number written in the code."""
    return is_self_attr(node.target, self_name) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, (int, float)) and not isinstance(node.value.value, bool)
