"""Read the text form of a kernel expression back into a kernel (inverse of ``Kernel.to_text``).

Grammar (``*`` binds tighter than ``+``; ``×`` is accepted for ``*``)::

    expr   := term ('+' term)*
    term   := factor ('*' factor)*
    factor := '(' expr ')' | NAME [input] ['(' args ')'] | NAME '(' values ';' members ')'
    input  := '@' INT | '[' COLUMN ']'
    args   := arg (',' arg)*          arg := NAME '=' NUMBER | expr
    values := [NAME '=' NUMBER (',' NAME '=' NUMBER)*]
    members := member (',' member)*   member := NAME [input] ['(' values ')']

Base kernels take only ``name=value`` arguments (all or none); CP and CW take two kernels
followed by their own ``name=value`` arguments; a composite kernel (``kernels.base.Composite``,
e.g. ``Additive(R=2; SE, SE@1)``) takes its own values, then after ``;`` one base kernel per
input. Parentheses are kept: ``(A + B) + C`` reads as a sum nested in a sum, exactly as printed.

A kernel acts on input 0 unless its text names another: ``SE@2`` by number, or ``SE[weight]`` by
the name of its column (any text without ``]``), which needs the inputs' names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abcd_cli.errors import InputError
from abcd_cli.kernels import BASE_KERNELS, COMPOSITES, OPERATORS, Kernel, Product, Sum

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan))(?![\w.])"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<col>\[[^\]]*\])|(?P<op>[()+*,=@×;]))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise InputError(f"kernel text: unexpected character at {pos + 1}: {text[pos:][:20]!r}")
        kind = m.lastgroup or ""
        value = m.group(kind)
        # A signed number is only a value after '=' or '@'; elsewhere its sign is an operator.
        if kind == "num" and value[0] in "+-" and out and out[-1][1] not in ("=", "@"):
            out.append(("op", value[0]))
            pos = m.start(kind) + 1
            continue
        out.append((kind, "*" if value == "×" else value))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str, names: Sequence[str] = ()):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.names = list(names)

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.toks):
            raise InputError(f"kernel text ends too early: {self.text!r}")
        tok = self.toks[self.i]
        if expected is not None and tok[1] != expected:
            raise InputError(
                f"kernel text: expected {expected!r}, found {tok[1]!r} in {self.text!r}"
            )
        self.i += 1
        return tok

    def expr(self) -> Kernel:
        terms = [self.term()]
        while self.peek() == "+":
            self.take()
            terms.append(self.term())
        return terms[0] if len(terms) == 1 else Sum(tuple(terms))

    def term(self) -> Kernel:
        factors = [self.factor()]
        while self.peek() == "*":
            self.take()
            factors.append(self.factor())
        return factors[0] if len(factors) == 1 else Product(tuple(factors))

    def factor(self) -> Kernel:
        if self.peek() == "(":
            self.take("(")
            inner = self.expr()
            self.take(")")
            return inner
        kind, name = self.take()
        if kind == "name" and name in COMPOSITES:
            return self.composite(name)
        if kind != "name" or (name not in BASE_KERNELS and name not in OPERATORS):
            known = ", ".join([*BASE_KERNELS, *OPERATORS, *COMPOSITES])
            raise InputError(f"kernel text: unknown kernel {name!r} (known: {known})")
        dim = self.dim()
        kernels, values = self.args() if self.peek() == "(" else ([], {})
        return self.build(name, dim, kernels, values)

    def dim(self) -> int:
        """The input after ``@`` or named in brackets (0 when there is none)."""
        if self.i < len(self.toks) and self.toks[self.i][0] == "col":
            return self.column(self.take()[1][1:-1])
        if self.peek() != "@":
            return 0
        self.take()
        kind, value = self.take()
        if kind != "num" or not value.isdigit():
            raise InputError(f"kernel text: @ needs an input number, found {value!r}")
        return int(value)

    def column(self, name: str) -> int:
        """The input whose column is called ``name``."""
        if not self.names:
            raise InputError(
                f"kernel text: [{name}] names an input by its column, but the inputs' names"
                " are not known here"
            )
        if self.names.count(name) != 1:
            known = ", ".join(repr(n) for n in self.names)
            problem = "no input is" if name not in self.names else "two inputs are"
            raise InputError(f"kernel text: {problem} called {name!r} (inputs: {known})")
        return self.names.index(name)

    def values(self, end: str) -> dict[str, float]:
        """``name=value`` pairs up to (not including) ``end``."""
        values: dict[str, float] = {}
        while self.peek() != end:
            key = self.take()[1]
            self.take("=")
            kind, num = self.take()
            if kind != "num":
                raise InputError(f"kernel text: {key}= needs a number, found {num!r}")
            if key in values:
                raise InputError(f"kernel text: {key} given twice")
            values[key] = float(num)
            if self.peek() == ",":
                self.take()
        return values

    def composite(self, name: str) -> Kernel:
        """``NAME(values; member, ...)``: a kernel built from one base kernel per input."""
        self.take("(")
        header = self.values(";")
        self.take(";")
        members = []
        while True:
            kind, symbol = self.take()
            if kind != "name":
                raise InputError(f"kernel text: {name} expects base kernels, found {symbol!r}")
            dim = self.dim()
            values: dict[str, float] = {}
            if self.peek() == "(":
                self.take("(")
                values = self.values(")")
                self.take(")")
            members.append((symbol, dim, values))
            if self.peek() != ",":
                break
            self.take()
        self.take(")")
        try:
            return COMPOSITES[name].from_text(header, members)
        except ValueError as exc:
            raise InputError(f"kernel text: {exc}") from None

    def args(self) -> tuple[list[Kernel], dict[str, float]]:
        self.take("(")
        kernels: list[Kernel] = []
        values: dict[str, float] = {}
        while True:
            if self.i + 1 < len(self.toks) and self.toks[self.i + 1][1] == "=":
                key = self.take()[1]
                self.take("=")
                kind, num = self.take()
                if kind != "num":
                    raise InputError(f"kernel text: {key}= needs a number, found {num!r}")
                values[key] = float(num)
            else:
                kernels.append(self.expr())
            if self.peek() == ",":
                self.take()
                continue
            self.take(")")
            return kernels, values

    def build(self, name: str, dim: int, kernels: list[Kernel], values: dict[str, float]) -> Kernel:
        cls = BASE_KERNELS.get(name) or OPERATORS[name]
        unknown = set(values) - set(cls.names)
        if unknown:
            raise InputError(
                f"kernel text: {name} has no parameter {sorted(unknown)[0]!r} "
                f"(it has {', '.join(cls.names)})"
            )
        if values and len(values) != len(cls.names):
            raise InputError(f"kernel text: {name} needs all of {', '.join(cls.names)} or none")
        params = tuple(values[n] for n in cls.names) if values else ()
        if name in OPERATORS:
            if len(kernels) != 2:
                raise InputError(f"kernel text: {name} takes two kernels, got {len(kernels)}")
            return cls(kernels[0], kernels[1], params, dim)
        if kernels:
            raise InputError(f"kernel text: {name} takes no kernel arguments")
        return cls(params, dim)


def parse_kernel(text: str, names: Sequence[str] = ()) -> Kernel:
    """Parse ``text`` (as written by ``Kernel.to_text``) into a kernel; InputError if malformed.
    ``names``: the input columns' names, which ``SE[name]`` refers to."""
    parser = _Parser(text, names)
    if not parser.toks:
        raise InputError("kernel text is empty")
    kernel = parser.expr()
    if parser.i != len(parser.toks):
        raise InputError(f"kernel text: unexpected {parser.toks[parser.i][1]!r} in {text!r}")
    return kernel
