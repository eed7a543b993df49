"""The search's grammar for a table of several inputs, restricted by its screen (issue 66).

A model is a sum of terms (each a base kernel or a product of base kernels) plus white noise.
The screen (``screening.Screen``) names the inputs worth a search, the pairs that interact and
the highest order of products. From one model the grammar makes:

* add a term B: one base kernel of a kept input (or the constant C, once);
* replace a base kernel of a term by another kind on the same input (SE ↔ Lin ...);
* multiply a term by a base kernel of another kept input, when every pair of the product's
  inputs interacts and it reads at most ``max_order`` inputs;
* remove a term (white noise stays);
* along an input where a change is plausible (a time input: ``change_inputs``), put a term on
  either side of a changepoint: T → CP(T, T).

The search starts from the sum of one base kernel of each kernel kind over every kept input,
plus noise (and C beside linear kernels), and with interacting pairs also from the smooth sum
with each pair's product added. Periodic kernels are offered on the inputs of ``periodic``
(the search passes the time inputs the data layer allows cycles on: a cycle along a weight or
a dose is not a story a table tells, and one on every input adds candidates to every level);
they start no model.
New base kernels come with unknown parameters; the rest keep their fitted values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from abcd_cli.kernel_search.grammar import BASES, distinct
from abcd_cli.kernel_search.screening import Screen
from abcd_cli.kernels import CP, WN, BaseKernel, C, Kernel, Product, Sum, product, total
from abcd_cli.kernels.algebra import structure_key
from abcd_cli.kernels.base import reads_x


def _factors(term: Kernel) -> list[Kernel]:
    return list(term.operands) if isinstance(term, Product) else [term]


def _terms(kernel: Kernel) -> list[Kernel]:
    return list(kernel.operands) if isinstance(kernel, Sum) else [kernel]


def term_inputs(term: Kernel) -> set[int]:
    """The inputs a term's base kernels read."""
    return {b.dim for b in term.bases() if reads_x(b)}


@dataclass(frozen=True)
class TableGrammar:
    """The restricted grammar: ``inputs`` searched over, interacting ``pairs`` (i < j),
    ``max_order``, ``change_inputs``, the kernel ``kinds`` (names of base kernels that read
    x, in the search's order) and the inputs periodic ones may act on (``periodic``)."""

    inputs: tuple[int, ...]
    pairs: frozenset[tuple[int, int]]
    max_order: int
    change_inputs: tuple[int, ...]
    kinds: tuple[str, ...]
    periodic: tuple[int, ...] = ()

    @classmethod
    def of(
        cls, screen: Screen, bases: tuple[str, ...], periodic: tuple[int, ...] = ()
    ) -> TableGrammar:
        """The grammar of a screen's verdict over the search's ``bases``."""
        kinds = tuple(name for name in bases if reads_x(BASES[name]))
        return cls(
            screen.inputs,
            frozenset(screen.pairs),
            screen.max_order,
            screen.change_inputs,
            kinds or ("SE",),
            periodic,
        )

    def _kinds_on(self, d: int) -> list[str]:
        return [k for k in self.kinds if BASES[k].role != "periodic" or d in self.periodic]

    def _fresh(self, d: int) -> list[BaseKernel]:
        return [BASES[k]((), d) for k in self._kinds_on(d)]

    def _may_multiply(self, term: Kernel, d: int) -> bool:
        """Whether ``term`` × (a kernel of input ``d``) is a product the screen allows."""
        dims = term_inputs(term)
        if not dims or d in dims or len(dims) + 1 > self.max_order:
            return False
        return all(tuple(sorted((d, e))) in self.pairs for e in dims)

    def start(self) -> list[Kernel]:
        """The start models (module docstring), each once."""
        starts: list[Kernel] = []
        for kind in dict.fromkeys(k for k in self.kinds if BASES[k].role != "periodic"):
            terms: list[Kernel] = [BASES[kind]((), d) for d in self.inputs]
            if BASES[kind].role == "linear":
                terms.append(C())
            starts.append(total([*terms, WN()]))
        smooth = next((k for k in self.kinds if BASES[k].role == "smooth"), None)
        if self.pairs and smooth is not None:
            pair_terms = [
                Product((BASES[smooth]((), i), BASES[smooth]((), j))) for i, j in sorted(self.pairs)
            ]
            singles = [BASES[smooth]((), d) for d in self.inputs]
            starts.append(total([*singles, *pair_terms, WN()]))
        return distinct(starts, set())

    def _moves(self, kernel: Kernel) -> Iterator[Kernel]:
        terms = _terms(kernel)
        present = {structure_key(t) for t in terms}
        for d in self.inputs:  # add a term not there yet
            for b in self._fresh(d):
                if structure_key(b) not in present:
                    yield total([*terms, b])
        if not any(isinstance(t, C) for t in terms):
            yield total([*terms, C()])
        for i, term in enumerate(terms):
            rest = terms[:i] + terms[i + 1 :]
            if not term.is_noise:
                yield total(rest)  # remove it
            if isinstance(term, CP) or term.is_noise or isinstance(term, C):
                continue
            factors = _factors(term)
            for j, f in enumerate(factors):  # replace a base kernel by another kind
                if isinstance(f, BaseKernel) and reads_x(f):
                    for b in self._fresh(f.dim):
                        if b.symbol != f.symbol:
                            yield total([*rest, product(factors[:j] + [b] + factors[j + 1 :])])
            for d in self.inputs:  # multiply by a kernel of an interacting input
                if self._may_multiply(term, d):
                    for b in self._fresh(d):
                        yield total([*rest, product([*factors, b])])
            for d in self.change_inputs:
                yield total([*rest, CP(term, term, dim=d)])

    def expand(self, kernel: Kernel) -> list[Kernel]:
        """All distinct simplified children of ``kernel`` (not itself), in a stable order."""
        return distinct(self._moves(kernel), {structure_key(kernel)})


def interactions(kernel: Kernel) -> list[tuple[int, int]]:
    """The pairs of inputs some term of ``kernel`` multiplies together (what a report names as
    interactions), sorted."""
    found = set()
    for term in _terms(kernel):
        found.update(combinations(sorted(term_inputs(term)), 2))
    return sorted(found)
