"""The search operators, written as data, and ``expand(kernel) -> candidates``.

Operators of the grammar appendix (eq. 1.9-1.19), applied to every subexpression S of the current
kernel, with B any base kernel of the language and C the constant kernel::

    S → S + B       S → S × B       B → B'        S → CP(S, S)    S → CW(S, S)
    S → CW(S, C)    S → CW(C, S)    S → S × (B + C)                S → B
    S + S' → S      S × S' → S

New base kernels come with unknown (NaN) parameters; everything copied from the parent keeps
its fitted values. Candidates are simplified, put in canonical form and deduplicated.

A ``Language`` names its start kernels and the operators it allows, so the papers' baselines
(a single SE, linear regression, MKL, TCI, spectral mixtures, changepoints, the additive GP of
every order up to R) run on the same machinery as the full search.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from abcd_cli.kernels import (
    BASE_KERNELS,
    CP,
    CW,
    SE,
    WN,
    Additive,
    BaseKernel,
    C,
    Combination,
    Cos,
    Kernel,
    Per,
    Product,
    Sum,
    total,
)
from abcd_cli.kernels.additive import MAX_ORDER
from abcd_cli.kernels.algebra import (
    canonical,
    carries_scale,
    simplify,
    structure_key,
    sum_of_products,
)
from abcd_cli.kernels.base import copy_with
from abcd_cli.kernels.base import reads_x as _reads_x
from abcd_cli.kernels.text import parse_kernel


class _SearchableBases(Mapping[str, type[BaseKernel]]):
    """The base kernels the grammar may add: those of ``BASE_KERNELS`` declared ``searchable``
    (read live, so a kernel class defined later is offered too)."""

    def _live(self) -> dict[str, type[BaseKernel]]:
        return {name: cls for name, cls in BASE_KERNELS.items() if cls.searchable}

    def __getitem__(self, name: str) -> type[BaseKernel]:
        cls = BASE_KERNELS[name]
        if not cls.searchable:
            raise KeyError(name)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self._live())

    def __len__(self) -> int:
        return len(self._live())


BASES: Mapping[str, type[BaseKernel]] = _SearchableBases()
DEFAULT_BASES = ("SE", "Per", "Lin", "C", "WN")


def _fresh(name: str, dim: int = 0) -> BaseKernel:
    return BASES[name]((), dim)


def subexpressions(
    kernel: Kernel, depth: int = 0
) -> Iterator[tuple[Kernel, Callable[[Kernel], Kernel], int]]:
    """Every node S of the tree with a function that puts a replacement for S in its place,
    and the node's depth (the root's is ``depth``)."""
    yield kernel, lambda new: new, depth
    for i, child in enumerate(kernel.operands):
        for node, put, below in subexpressions(child, depth + 1):

            def place(new: Kernel, i: int = i, put: Callable[[Kernel], Kernel] = put) -> Kernel:
                ops = list(kernel.operands)
                ops[i] = put(new)
                return kernel.with_operands(ops)

            yield node, place, below


def _full_operators(s: Kernel, bases: list[BaseKernel]) -> Iterator[Kernel]:
    """Replacements for one subexpression S under the full ABCD grammar."""
    for b in bases:
        yield Sum((s, b))  # S → S + B
        yield Product((s, b))  # S → S × B
        yield Product((s, Sum((b, C()))))  # S → S × (B + C)
        yield b  # S → B (covers B → B' when S is a base kernel)
    for d in sorted({b.dim for b in bases}):  # a change along each input dimension
        yield CP(s, s, dim=d)  # S → CP(S, S)
        yield CW(s, s, dim=d)  # S → CW(S, S)
        yield CW(s, C(), dim=d)  # S → CW(S, C)
        yield CW(C(), s, dim=d)  # S → CW(C, S)
    if isinstance(s, Combination):  # S + S' → S and S × S' → S
        for i in range(len(s.operands)):
            rest = s.operands[:i] + s.operands[i + 1 :]
            yield rest[0] if len(rest) == 1 else s.with_operands(rest)


def _expand_full(kernel: Kernel, bases: list[BaseKernel]) -> Iterator[Kernel]:
    for node, put, _ in subexpressions(kernel):
        for new in _full_operators(node, bases):
            yield put(new)


def _root_sums(terms: list[Kernel]) -> Callable[[Kernel, list[BaseKernel]], Iterator[Kernel]]:
    """An operator family that only adds one of ``terms`` to the whole kernel."""

    def expand(kernel: Kernel, bases: list[BaseKernel]) -> Iterator[Kernel]:
        for t in terms:
            yield Sum((kernel, t))

    return expand


def _expand_changepoints(kernel: Kernel, bases: list[BaseKernel]) -> Iterator[Kernel]:
    """Split any SE (or any CP of SEs) at a new changepoint: S → CP(S, SE)."""
    for node, put, _ in subexpressions(kernel):
        if isinstance(node, (SE, CP)):
            yield put(CP(node, SE()))


@dataclass(frozen=True)
class Language:
    """A space of models: where the search starts and how it may grow."""

    name: str
    description: str
    start: tuple[str, ...]  # text forms of the start kernels
    grow: Callable[[Kernel, list[BaseKernel]], Iterator[Kernel]] | None
    #: start kernels built from the number of inputs and the maximum order (None: the
    #: language's default), instead of ``start`` placed on each input
    build_start: Callable[[int, int | None], list[Kernel]] | None = None

    @property
    def searches(self) -> bool:
        return self.grow is not None


def additive_order(n_dims: int, max_order: int | None) -> int:
    """The additive language's order R: ``max_order``, by default the number of inputs, never
    more than the number of inputs nor ``MAX_ORDER`` (10)."""
    return min(n_dims, MAX_ORDER, max_order or n_dims)


def _additive_start(n_dims: int, max_order: int | None) -> list[Kernel]:
    """The additive kernel of every order up to R over every input (SE bases), plus noise."""
    return [Sum((Additive.on_inputs(n_dims, additive_order(n_dims, max_order)), WN()))]


LANGUAGES: dict[str, Language] = {
    "abcd": Language(
        "abcd",
        "the full language: sums, products, changepoints and changewindows",
        ("WN",),
        _expand_full,
    ),
    "se": Language("se", "one squared-exponential kernel plus noise", ("SE + WN",), None),
    "linear": Language("linear", "linear regression: a line plus noise", ("C + Lin + WN",), None),
    "mkl": Language("mkl", "sums of squared-exponential kernels", ("WN",), _root_sums([SE()])),
    "tci": Language(
        "tci",
        "trend, cycles and irregular part: sums of SE and Per",
        ("WN",),
        _root_sums([SE(), Per()]),
    ),
    "spectral": Language(
        "spectral", "spectral mixture: sums of SE × cosine", ("WN",), _root_sums([SE() * Cos()])
    ),
    "changepoint": Language(
        "changepoint",
        "changepoints between squared-exponential kernels",
        ("SE + WN",),
        _expand_changepoints,
    ),
    "additive": Language(
        "additive",
        "the additive GP: every order of interaction of the inputs up to --max-order, one"
        " variance per order, plus noise (fitted, not searched)",
        (),
        None,
        _additive_start,
    ),
}


def on_dim(kernel: Kernel, dim: int) -> Kernel:
    """``kernel`` with every base kernel and change operator that reads x acting on input
    ``dim``."""
    ops = [on_dim(k, dim) for k in kernel.operands]
    node = kernel.with_operands(ops) if ops else kernel
    return copy_with(node, dim=dim) if _reads_x(node) else node


def _periodic_where_allowed(kernel: Kernel, periodic: Collection[int] | None) -> bool:
    """Whether every periodic base kernel of ``kernel`` acts on an input of ``periodic``
    (None: any input; ``data.inputs.periodic_inputs`` says which may be periodic)."""
    return periodic is None or all(
        b.dim in periodic for b in kernel.bases() if b.role == "periodic"
    )


def start_kernels(
    language: Language,
    n_dims: int = 1,
    max_order: int | None = None,
    periodic: Collection[int] | None = None,
) -> list[Kernel]:
    """The language's start kernels on every input dimension (each structure once, none with
    a periodic kernel on an input outside ``periodic``); the additive language's from the
    number of inputs and ``max_order``."""
    if language.build_start is not None:
        return language.build_start(n_dims, max_order)
    out: dict[str, Kernel] = {}
    for text in language.start:
        for d in range(n_dims):
            kernel = on_dim(parse_kernel(text), d)
            if _periodic_where_allowed(kernel, periodic):
                out.setdefault(structure_key(kernel), kernel)
    return list(out.values())


def expand(
    kernel: Kernel,
    language: Language,
    bases: tuple[str, ...] = DEFAULT_BASES,
    interpretable: bool = False,
    n_dims: int = 1,
    periodic: Collection[int] | None = None,
) -> list[Kernel]:
    """All distinct simplified children of ``kernel`` (excluding itself), in a stable order.

    New base kernels go on every input (those that do not read x on the first only); periodic
    ones only on the inputs of ``periodic`` (None: every input). With ``interpretable``, each
    child is also distributed into its sum-of-products form (ABCD-interpretability), so
    products never hold sums.
    """
    if language.grow is None:
        return []
    fresh = [
        _fresh(name, d) for d in range(n_dims) for name in bases if d == 0 or _reads_x(BASES[name])
    ]
    fresh = [b for b in fresh if _periodic_where_allowed(b, periodic)]
    return distinct(language.grow(kernel, fresh), {structure_key(kernel)}, interpretable)


def distinct(
    children: Iterable[Kernel], seen: set[str], interpretable: bool = False
) -> list[Kernel]:
    """The ``children`` simplified (with ``interpretable``, also distributed into a sum of
    products), in order, without those whose structure is in ``seen`` or came before, and
    without degenerate ones (``_is_degenerate``)."""
    out: list[Kernel] = []
    for child in children:
        child = simplify(child)
        if interpretable:
            child = canonical(total(sum_of_products(child)))
        key = structure_key(child)
        if key in seen or _is_degenerate(child):
            continue
        seen.add(key)
        out.append(child)
    return out


def _is_degenerate(kernel: Kernel) -> bool:
    """Every model keeps a white-noise term (without one, K is singular on real data), and every
    term has an ``sd`` to carry its scale: a term such as a lone ``Before`` gate (left when a
    removal rule takes its partner) would have a variance fixed in the search's internal units,
    which cannot be written in the units of y."""
    return not kernel.has_noise_factor() or not carries_scale(kernel)
