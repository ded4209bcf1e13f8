"""Middleware message questions about one function: is a value a field of a message a subscription delivered?

A message's fields are Python values (numbers, lists, `array.array`): `np.array(msg.ranges)` or
`torch.tensor(imu.gyroscope)` copies them into a fresh array that no trace connects to anything.
"""
from __future__ import annotations

import ast

from leapp_codemod.analysis.model.class_state import message_attrs, message_params
from leapp_codemod.analysis.model.walk import is_self_attr
from leapp_codemod.knowledge.vocab import VALUE_COPY_CALLS

_MAX_LOCAL_HOPS = 3


class MessageQuestions:
    """Mixin of `FunctionContext`: fields of middleware messages."""

    def is_message_field(self, expr: ast.expr, hops: int = 0) -> bool:
        """`msg.ranges`, `self.scan.ranges` (a callback stored the message), `imu.gyroscope` (`imu =
        msg.imu_state`): a field read from a message a subscription callback received."""
        fields, root = 0, expr
        while True:
            if isinstance(root, ast.Call) and _named_field(root, self):   # `getattr(msg, "position", [])`
                fields, root = fields + 1, root.args[0]
            elif isinstance(root, (ast.Attribute, ast.Subscript)) and not is_self_attr(root, self.self_name):
                fields += isinstance(root, ast.Attribute)
                root = root.value
            else:
                break
        if fields == 0:   # `pos = getattr(msg, "position", [])`, then `pos`: a name bound once to a field
            bound = self.fn.assigned(root.id) if isinstance(root, ast.Name) and hops < _MAX_LOCAL_HOPS else []
            return len(bound) == 1 and self.is_message_field(bound[0], hops + 1)
        if self.cls is not None and is_self_attr(root, self.self_name):
            return any(root.attr in self._message_attrs(klass) for klass in self.project.mro(self.cls)) \
                or bool(self._outside_fills(root))   # a value a callback or thread stores (LCM903)
        if not isinstance(root, ast.Name):
            return False
        if root.id in self.message_params():
            return True
        if hops >= _MAX_LOCAL_HOPS:
            return False
        bound = self._bound(root.id)
        return len(bound) == 1 and self._message_or_field(bound[0], hops + 1)

    def _bound(self, name: str) -> list[ast.expr]:
        """The values `name = v` and `name: T = v` bind in this function (`tf: TransformStamped = ...`)."""
        return [*self.fn.assigned(name), *(n.value for n in self.fn.nodes if isinstance(n, ast.AnnAssign)
                                           and n.value is not None and isinstance(n.target, ast.Name)
                                           and n.target.id == name)]

    def _message_attrs(self, klass) -> set[str]:
        key = ("message_attrs", klass.id)
        found = self.project.memo.get(key)
        if found is None:
            found = self.project.memo[key] = message_attrs(klass)
        return found

    def message_params(self) -> set[str]:
        """Parameters holding a message: a subscription callback's own, or what callers pass a message to
        (`state = parse_state(msg)` in the callback makes `parse_state`'s first parameter one)."""
        known = self.fn.walks.get("message_params")
        if known is not None:
            return known
        self.fn.walks["message_params"] = set()   # a recursive helper is not proven by itself
        own = message_params(self.cls, self.fn.name) if self.cls is not None else set()
        found = set(own) or self._passed_messages()
        self.fn.walks["message_params"] = found
        return found

    def _passed_messages(self) -> set[str]:
        params = self.fn.positional_params[1:] if self.fn.is_method else self.fn.positional_params
        out: set[str] = set()
        for caller_id in sorted(self.facts.callers.get(self.fn.id, ())):
            module, _, qualname = caller_id.partition(":")
            caller = self.project.modules[module].functions.get(qualname) if module in self.project.modules else None
            if caller is None:
                continue
            reader = self.for_function(caller)
            for call in (n for n in caller.nodes if isinstance(n, ast.Call)):
                if any(callee.id == self.fn.id for callee in reader.resolve_call(call)):
                    out |= {params[i] for i, arg in enumerate(call.args[:len(params)])
                            if reader._message_or_field(arg, 1)}
                    out |= {k.arg for k in call.keywords   # `to_vec(js_msg=msg)`: a message passed by name
                            if k.arg in params and reader._message_or_field(k.value, 1)}
        return out

    def _message_or_field(self, value: ast.expr, hops: int) -> bool:
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords \
                and self.call_name(value) in VALUE_COPY_CALLS:
            value = value.args[0]   # `msg = copy.copy(self.joint_state_msg)`: the same message's fields
        if isinstance(value, ast.Call) and self.builtin(value) is None and self.io_kind(value) is not None:
            return True   # `tf = self.tf_buffer.lookup_transform(...)`: what a middleware read returns is a message
        if isinstance(value, ast.Name):
            if value.id in self.message_params():
                return True
            bound = self.fn.assigned(value.id) if hops < _MAX_LOCAL_HOPS and value.id not in self.fn.params else ()
            return len(bound) == 1 and self._message_or_field(bound[0], hops + 1)   # `m = copy.copy(self.m)`
        if self.cls is not None and is_self_attr(value, self.self_name):
            return any(value.attr in self._message_attrs(klass) for klass in self.project.mro(self.cls))
        return self.is_message_field(value, hops)


def _named_field(call: ast.Call, ctx) -> bool:
    """`getattr(obj, "field")` or `getattr(obj, "field", default)`: a field read by a constant name."""
    return ctx.builtin(call) == "getattr" and len(call.args) in (2, 3) \
        and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)
