"""A small interpreter for the CEL subset the Percona CRDs' ``x-kubernetes-validations`` use.

Enough to evaluate the PS v1.2.0 rules (INTERFACES §4) exactly as written in the CRD, with
Kubernetes' semantics for the part that matters: selecting a missing field is an *error*, ``||`` and
``&&`` absorb an error only when the other operand alone decides the result, and an object whose rule
evaluates to an error (or to false) is rejected. Supported: literals (int, string, bool, null), field
selection, ``has()``, ``size()``, ``string.matches(re)`` (RE2 semantics: a search, not a full match;
Python's ``re`` reads these anchored patterns the same way), ``!``, ``-``, ``%``, ``*``, ``/``, ``+``, comparisons, ``&&``, ``||``
and parentheses. Anything else (``quantity()``, macros) raises :class:`Unsupported`, so a test knows when
a rule is beyond this interpreter instead of passing it silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


class Unsupported(Exception):
    pass


class CelError(Exception):
    """An evaluation error (e.g. no such key): the object is rejected."""


_TOKEN = re.compile(r"\s*(?:(\d+)|'([^']*)'|\"([^\"]*)\"|(\|\||&&|==|!=|<=|>=|[!<>%*/+\-().,])|([A-Za-z_][A-Za-z0-9_]*))")


def _tokens(text: str) -> list[tuple[str, Any]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise Unsupported(f"cannot read {text[pos : pos + 20]!r}")
        number, single, double, op, ident = match.groups()
        if number is not None:
            out.append(("num", int(number)))
        elif single is not None or double is not None:
            out.append(("str", single if single is not None else double))
        elif op is not None:
            out.append(("op", op))
        else:
            out.append(("id", ident))
        pos = match.end()
    out.append(("end", None))
    return out


@dataclass
class Node:
    kind: str
    args: tuple


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos]

    def take(self, value=None):
        token = self.tokens[self.pos]
        if value is not None and token[1] != value:
            raise Unsupported(f"expected {value!r}, got {token[1]!r}")
        self.pos += 1
        return token

    def parse(self) -> Node:
        node = self.or_()
        if self.peek()[0] != "end":
            raise Unsupported(f"trailing {self.peek()[1]!r}")
        return node

    def or_(self):
        node = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            node = Node("or", (node, self.and_()))
        return node

    def and_(self):
        node = self.rel()
        while self.peek() == ("op", "&&"):
            self.take()
            node = Node("and", (node, self.rel()))
        return node

    def rel(self):
        node = self.add()
        if self.peek()[0] == "op" and self.peek()[1] in ("==", "!=", "<", "<=", ">", ">="):
            op = self.take()[1]
            node = Node("cmp", (op, node, self.add()))
        return node

    def add(self):
        node = self.mul()
        while self.peek()[0] == "op" and self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            node = Node("arith", (op, node, self.mul()))
        return node

    def mul(self):
        node = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            node = Node("arith", (op, node, self.unary()))
        return node

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return Node("not", (self.unary(),))
        if self.peek() == ("op", "-"):
            self.take()
            return Node("neg", (self.unary(),))
        return self.postfix(self.primary())

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return Node("lit", (value,))
        if kind == "str":
            return Node("lit", (value,))
        if kind == "op" and value == "(":
            node = self.or_()
            self.take(")")
            return node
        if kind == "id":
            if value in ("true", "false"):
                return Node("lit", (value == "true",))
            if value == "null":
                return Node("lit", (None,))
            if self.peek() == ("op", "("):
                self.take()
                args = []
                if self.peek() != ("op", ")"):
                    args.append(self.or_())
                    while self.peek() == ("op", ","):
                        self.take()
                        args.append(self.or_())
                self.take(")")
                return Node("call", (value, tuple(args)))
            return Node("ident", (value,))
        raise Unsupported(f"unexpected {value!r}")

    def postfix(self, node):
        while self.peek() == ("op", "."):
            self.take()
            kind, name = self.take()
            if kind != "id":
                raise Unsupported(f"expected a field name, got {name!r}")
            if self.peek() == ("op", "("):
                if name != "matches":
                    raise Unsupported(f"method call .{name}()")
                self.take()
                pattern = self.or_()
                self.take(")")
                node = Node("matches", (node, pattern))
                continue
            node = Node("select", (node, name))
        return node


def _eval(node: Node, env: dict[str, Any]) -> Any:
    kind, args = node.kind, node.args
    if kind == "lit":
        return args[0]
    if kind == "ident":
        if args[0] not in env:
            raise CelError(f"undeclared reference to {args[0]!r}")
        return env[args[0]]
    if kind == "select":
        target = _eval(args[0], env)
        if not isinstance(target, dict):
            raise CelError(f"cannot select {args[1]!r} from {type(target).__name__}")
        if args[1] not in target:
            raise CelError(f"no such key: {args[1]}")
        return target[args[1]]
    if kind == "call":
        name, call_args = args
        if name == "has":
            (arg,) = call_args
            if arg.kind != "select":
                raise Unsupported("has() needs a field selection")
            target = _eval(arg.args[0], env)
            return isinstance(target, dict) and arg.args[1] in target
        if name == "size":
            (arg,) = call_args
            return len(_eval(arg, env))
        raise Unsupported(f"function {name}()")
    if kind == "matches":
        text, pattern = _eval(args[0], env), _eval(args[1], env)
        if not isinstance(text, str) or not isinstance(pattern, str):
            raise CelError("no such overload: matches needs strings")
        return re.search(pattern, text) is not None
    if kind == "not":
        value = _eval(args[0], env)
        if not isinstance(value, bool):
            raise CelError("! needs a bool")
        return not value
    if kind == "neg":
        return -_eval(args[0], env)
    if kind in ("or", "and"):
        decisive = kind == "or"  # True decides ||, False decides &&
        error = None
        results = []
        for operand in args:
            try:
                value = _eval(operand, env)
            except CelError as caught:
                error = caught
                continue
            if not isinstance(value, bool):
                raise CelError(f"{kind} needs bools")
            if value is decisive:
                return decisive
            results.append(value)
        if error is not None:
            raise error
        return not decisive
    if kind == "cmp":
        op, left, right = args
        a, b = _eval(left, env), _eval(right, env)
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        if type(a) is not type(b) or isinstance(a, bool):
            raise CelError(f"no such overload: {type(a).__name__} {op} {type(b).__name__}")
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if kind == "arith":
        op, left, right = args
        a, b = _eval(left, env), _eval(right, env)
        if op == "%":
            return a % b
        if op == "*":
            return a * b
        if op == "/":
            return a // b
        return a + b if op == "+" else a - b
    raise Unsupported(kind)


def evaluate(rule: str, self_value: Any) -> bool:
    """True when ``rule`` admits ``self_value``; raises CelError when the evaluation errors."""
    result = _eval(_Parser(rule).parse(), {"self": self_value})
    if not isinstance(result, bool):
        raise CelError(f"rule evaluated to {result!r}, not a bool")
    return result


def admits(rule: str, self_value: Any) -> tuple[bool, str]:
    """(admitted, reason) as the API server would decide: errors reject."""
    try:
        return (True, "") if evaluate(rule, self_value) else (False, "rule is false")
    except CelError as error:
        return False, str(error)
