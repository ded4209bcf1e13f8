"""Handles a factory made (a publisher, a subscription, a clock), however the step reaches them.

A ROS 2 node keeps one publisher per leg in a dict, a ROS 1 script keeps a list of them, a server holds a
tuple of channels: the call that sends (`self.pubs[name].publish(msg)`, `pub.publish(msg)` for `pub` taken out
of the container, `for pub in self.pubs.values(): pub.publish(msg)`) goes through the item of a container whose
items a factory call built. `factory_handle` answers, for the receiver of a call, whether it is such a handle:

- an attribute of self assigned a factory call anywhere in the class (`self.pub = node.create_publisher(...)`);
- an item of an attribute of self whose items are factory calls: a container literal or comprehension of them
  (`{n: create_publisher(...) for n in names}`), or items stored one by one in any method of the class
  (`self.pubs[n] = create_publisher(...)`, `self.pubs.append(...)`, `self.pubs.setdefault(n, ...)`);
- a local name bound in the function to either of those, to a factory call, or a loop target over such a
  container (`.values()`, `.items()`, `enumerate(...)` and `zip(...)` included).
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

# container methods that store an item (the stored value is their last argument)
_ITEM_STORES = frozenset({"append", "insert", "setdefault", "add", "appendleft"})
# views of a dict that iterate its items (`.items()` gives (key, item) pairs)
_ITEM_VIEWS = frozenset({"values", "items"})


def factory_handle(receiver: ast.expr, fn_node: ast.AST, self_name: str | None,
                   class_methods: Iterable[ast.AST], is_factory: Callable[[ast.Call], bool],
                   module_globals: dict[str, ast.expr] | None = None, depth: int = 0) -> bool:
    """Is `receiver` (in the function `fn_node`) a handle a factory call built? `class_methods` are the
    function nodes of the class and its bases (empty for a plain function); `is_factory` tells a factory call;
    `module_globals` the values of the module's globals (a name the function does not bind is one of them)."""
    if depth > 3:
        return False
    if isinstance(receiver, ast.Call):
        return is_factory(receiver)
    if isinstance(receiver, ast.Attribute) and _is_self(receiver.value, self_name):
        return any(isinstance(v, ast.Call) and is_factory(v) for v in _attr_values(receiver.attr, self_name,
                                                                                    class_methods))
    if isinstance(receiver, ast.Subscript):
        return _container_of_handles(receiver.value, fn_node, self_name, class_methods, is_factory, module_globals,
                                     depth)
    if isinstance(receiver, ast.Name):
        for kind, value in _bindings(receiver.id, fn_node, module_globals):
            if kind == "value" and factory_handle(value, fn_node, self_name, class_methods, is_factory,
                                                  module_globals, depth + 1):
                return True
            if kind == "item" and _container_of_handles(value, fn_node, self_name, class_methods, is_factory,
                                                        module_globals, depth):
                return True
    return False


def _container_of_handles(container: ast.expr, fn_node: ast.AST, self_name: str | None,
                          class_methods: Iterable[ast.AST], is_factory: Callable[[ast.Call], bool],
                          module_globals: dict[str, ast.expr] | None, depth: int) -> bool:
    """Are the items of `container` factory-made handles (`self.pubs`, `self.pubs.values()`, a local list)?"""
    if isinstance(container, ast.Call) and isinstance(container.func, ast.Attribute) \
            and container.func.attr in _ITEM_VIEWS and not container.args:
        container = container.func.value
    if isinstance(container, ast.Attribute) and _is_self(container.value, self_name):
        methods = list(class_methods)
        values = list(_attr_values(container.attr, self_name, methods)) \
            + list(_item_stores(container.attr, self_name, methods))
        return any(_items_made(v, is_factory) for v in values)
    if isinstance(container, ast.Name):
        return any(kind == "value" and _items_made(v, is_factory)
                   for kind, v in _bindings(container.id, fn_node, module_globals)) or \
            any(_items_made(v, is_factory) for v in _local_item_stores(container.id, fn_node))
    return _items_made(container, is_factory)


def _items_made(value: ast.expr, is_factory: Callable[[ast.Call], bool]) -> bool:
    """A factory call itself (an item stored one by one), or a container literal or comprehension whose items are."""
    if isinstance(value, ast.Call):
        return is_factory(value)
    if isinstance(value, ast.Dict):
        return bool(value.values) and all(isinstance(v, ast.Call) and is_factory(v) for v in value.values)
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return bool(value.elts) and all(isinstance(v, ast.Call) and is_factory(v) for v in value.elts)
    if isinstance(value, ast.DictComp):
        return isinstance(value.value, ast.Call) and is_factory(value.value)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return isinstance(value.elt, ast.Call) and is_factory(value.elt)
    return False


def _is_self(node: ast.expr, self_name: str | None) -> bool:
    return self_name is not None and isinstance(node, ast.Name) and node.id == self_name


def _method_self(method: ast.AST) -> str | None:
    args = getattr(method, "args", None)
    params = (args.posonlyargs + args.args) if args is not None else []
    return params[0].arg if params else None


def _attr_values(attr: str, self_name: str | None, methods: Iterable[ast.AST]):
    """The values `self.<attr> = v` stores in the class's methods."""
    for method in methods:
        me = _method_self(method)
        for node in ast.walk(method):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Attribute) and t.attr == attr and _is_self(t.value, me) for t in targets):
                    yield node.value


def _item_stores(attr: str, self_name: str | None, methods: Iterable[ast.AST]):
    """The items stored into `self.<attr>` one by one in the class's methods (`self.x[k] = v`, `self.x.append(v)`)."""
    for method in methods:
        me = _method_self(method)
        for node in ast.walk(method):
            yield from _stores_into(node, lambda c, me=me: isinstance(c, ast.Attribute) and c.attr == attr
                                    and _is_self(c.value, me))


def _local_item_stores(name: str, fn_node: ast.AST):
    for node in ast.walk(fn_node):
        yield from _stores_into(node, lambda c: isinstance(c, ast.Name) and c.id == name)


def _stores_into(node: ast.AST, is_container: Callable[[ast.expr], bool]):
    if isinstance(node, ast.Assign):
        for t in node.targets:
            if isinstance(t, ast.Subscript) and is_container(t.value):
                yield node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ITEM_STORES \
            and node.args and is_container(node.func.value):
        yield node.args[-1]


def _bindings(name: str, fn_node: ast.AST, module_globals: dict[str, ast.expr] | None):
    """The function's own bindings of a name; for a name it never binds, the module global's value."""
    local = list(_local_bindings(name, fn_node))
    if local or not module_globals or name not in module_globals:
        return local
    return [("value", module_globals[name])]


def _local_bindings(name: str, fn_node: ast.AST):
    """How the function binds a local: ("value", v) for `name = v`, ("item", container) for a loop target over
    `container`: `for name in c`, `for k, name in c.items()`, `for i, name in enumerate(c)`, `for name, v in
    zip(c, values)`."""
    for node in ast.walk(fn_node):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield "value", node.value
        elif isinstance(node, (ast.For, ast.comprehension)):
            container = _iterated(node.target, node.iter, name)
            if container is not None:
                yield "item", container


def _iterated(target: ast.expr, iterable: ast.expr, name: str) -> ast.expr | None:
    """The container whose items a loop target binds `name` to, or None."""
    if isinstance(target, ast.Name):
        return iterable if target.id == name else None
    if not isinstance(target, ast.Tuple) or not isinstance(iterable, ast.Call):
        return None
    at = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
    if at is None:
        return None
    func = iterable.func
    if isinstance(func, ast.Attribute) and func.attr == "items" and at == 1 and len(target.elts) == 2:
        return iterable                  # `.items()`: `_container_of_handles` reads its dict
    if isinstance(func, ast.Name) and func.id == "enumerate" and at == 1 and iterable.args:
        return iterable.args[0]
    if isinstance(func, ast.Name) and func.id == "zip" and at < len(iterable.args) \
            and len(iterable.args) == len(target.elts):
        return iterable.args[at]
    return None
