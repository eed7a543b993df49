"""The coordinate-wise search for a table of several inputs (issue 66): a fixed plan of small
steps, each a handful of fits, read off one fit of the additive GP (``screening``).

The screen names the inputs that matter (largest share first), the pairs that interact and the
time inputs. The model is always a sum of one part per kept input, the products named so far,
a constant C and white noise. The plan's steps, one level of the search each:

0. "start": every kept input with the same kind of part, for each kind of ``KINDS``;
1. "bases", one step per kept input d (largest share first): d's part swapped for each other
   kind (``KINDS``; a periodic part only on a time input the data allow cycles on), the rest
   kept at their fitted values (warm start); the best BIC so far is what the next step swaps in
   (coordinate descent on BIC, Gauss-Seidel order);
2. "interactions", one step per interacting pair (i, j) of the screen: the pair's product added
   in each form of ``PRODUCT_FORMS`` (and in the two parts' leading kernels where that
   differs), and in place of either input's own SE, that SE times a new SE along the other
   (``grown``, measured: docs/findings.md, "Fourth attempt"). A pair whose share of the
   fitted mean's variance is at least ``NAMED_SHARE`` is named an interaction by the screen
   and BIC chooses only its product's form: the step's best is kept even where its BIC is
   worse than the model without it (``TablePlan.named``), so a story's strong interactions
   are the screen's, which hold from split to split where a pair-by-pair BIC verdict flips.
   A weaker pair (share from ``screening.PAIR_SHARE`` to NAMED_SHARE, borderline) is added
   only where BIC says so;
3. "prune", one step per input of an interacting pair: its own part removed when a product
   holding it was kept (SE1 × SE2 needs no SE1 + SE2 beside it); a step with nothing to remove
   is skipped;
4. "changes", one step per time input t: each term put either side of a changepoint along t.

Inputs are never dropped (the screen chose them: the story stays the screen's), and a step
other than an interaction whose candidates all score worse than the best leaves it as it was.
So the search fits at most 3 + 3·D + 7·P + (terms) structures for D kept inputs and P pairs,
each warm-started from the best so far, and one seed gives one result whatever the executor
(each fit's random numbers come from the seed and its structure alone: ``candidate.entropy``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from abcd_cli.kernel_search.grammar import BASES
from abcd_cli.kernel_search.screening import BORDER_SHARE, INPUT_SHARE, Screen
from abcd_cli.kernel_search.table_grammar import term_inputs
from abcd_cli.kernels import CP, WN, C, Kernel, Sum, product, total
from abcd_cli.kernels.algebra import simplify

if TYPE_CHECKING:
    from abcd_cli.kernel_search.records import LevelRecord

#: The kinds of part an input may have: base kernels summed (periodic only along time).
KINDS: tuple[tuple[str, ...], ...] = (("Lin",), ("SE",), ("Lin", "SE"), ("Per",))
#: The kinds that start a model (a cycle on every input is no story a table tells).
START_KINDS = KINDS[:3]
#: The share from which the plan's screen keeps an input: borderline ones too (``screening``).
SCREEN_FLOOR = BORDER_SHARE


def screen_floor(table_search: str) -> float:
    """The share from which a table's screen keeps an input: ``SCREEN_FLOOR`` for the
    coordinate-wise plan, ``INPUT_SHARE`` for the restricted grammar (``screening``)."""
    return SCREEN_FLOOR if table_search == "coordinate" else INPUT_SHARE


#: A pair's share from which its product is kept whatever BIC says (the screen names it).
NAMED_SHARE = 0.10
#: The forms a named pair's product takes: each input linear or smooth.
PRODUCT_FORMS: tuple[tuple[str, str], ...] = (
    ("SE", "SE"),
    ("Lin", "Lin"),
    ("Lin", "SE"),
    ("SE", "Lin"),
)


def _terms(kernel: Kernel) -> list[Kernel]:
    return list(kernel.operands) if isinstance(kernel, Sum) else [kernel]


def part_of(kernel: Kernel, d: int) -> list[Kernel]:
    """The terms of ``kernel`` that read input ``d`` alone: its part."""
    return [t for t in _terms(kernel) if term_inputs(t) == {d}]


def kind_of(part: list[Kernel]) -> tuple[str, ...]:
    """The kind of a part: its base kernels' symbols in ``KINDS`` order (() for none)."""
    symbols = {t.symbol for t in part}
    return next((kind for kind in KINDS if set(kind) == symbols), tuple(sorted(symbols)))


def _fresh(name: str, d: int) -> Kernel:
    return BASES[name]((), d)


def with_part(kernel: Kernel, d: int, kind: tuple[str, ...]) -> Kernel:
    """``kernel`` with input ``d``'s part made of ``kind``; a base kernel it already had keeps
    its fitted values, the others start unknown."""
    old = {t.symbol: t for t in part_of(kernel, d)}
    rest = [t for t in _terms(kernel) if term_inputs(t) != {d}]
    return total([*rest, *(old.get(name) or _fresh(name, d) for name in kind)])


def grown(kernel: Kernel, d: int, other: int) -> list[Kernel]:
    """``kernel`` with input ``d``'s own SE multiplied by a new SE along ``other`` (the
    thesis's operator S → S × B): the product starts from the part's fitted SE, so it may take
    the part's place rather than sit beside it (none when ``d``'s part has no SE)."""
    own = [t for t in part_of(kernel, d) if t.symbol == "SE"]
    if not own:
        return []
    rest = [t for t in _terms(kernel) if t is not own[0]]
    return [total([*rest, product([own[0], _fresh("SE", other)])])]


def lead(part: list[Kernel]) -> str:
    """The kernel a part takes into a product: its SE if it has one, else its first."""
    symbols = [t.symbol for t in part]
    return "SE" if "SE" in symbols else (symbols[0] if symbols else "SE")


@dataclass(frozen=True)
class Step:
    """One step of the plan: its ``stage`` ("start", "bases", "interactions", "prune",
    "changes") and
    what it acts on (an input, a pair, or nothing)."""

    stage: str
    inputs: tuple[int, ...] = ()


@dataclass(frozen=True)
class TablePlan:
    """The plan of a screen's verdict: ``inputs`` (largest share first), interacting ``pairs``,
    ``change_inputs``, the inputs a periodic part may act on (``periodic``) and the pairs
    whose product is kept whatever BIC says (``named_pairs``)."""

    inputs: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    change_inputs: tuple[int, ...]
    periodic: tuple[int, ...] = ()
    named_pairs: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, screen: Screen, periodic: tuple[int, ...] = ()) -> TablePlan:
        """The plan of ``screen``'s verdict, its inputs ordered by their share."""
        shares = screen.shares.inputs
        order = tuple(sorted(screen.inputs, key=lambda d: (-shares[d], d)))
        pair_shares = screen.shares.pairs
        named = tuple(p for p in screen.pairs if pair_shares.get(p, 0.0) >= NAMED_SHARE)
        return cls(order, tuple(screen.pairs), screen.change_inputs, periodic, named)

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every step after the start, in order (module docstring)."""
        return (
            *(Step("bases", (d,)) for d in self.inputs),
            *(Step("interactions", pair) for pair in self.pairs),
            *(Step("prune", (d,)) for d in self.inputs if any(d in p for p in self.pairs)),
            *(Step("changes", (t,)) for t in self.change_inputs),
        )

    def stage_of(self, level: int) -> str:
        """The stage of the search's level ``level`` (0: the start)."""
        return "start" if level == 0 else self.steps[level - 1].stage

    def named(self, level: int) -> bool:
        """Whether level ``level``'s best is kept whatever its BIC: the product of a pair the
        screen names (module docstring, step 2)."""
        return (
            level > 0
            and self.steps[level - 1].inputs in self.named_pairs
            and (self.stage_of(level) == "interactions")
        )

    def start(self) -> list[Kernel]:
        """The start models: each kind of ``START_KINDS`` on every kept input, plus C and WN."""
        return [
            simplify(total([*(_fresh(n, d) for d in self.inputs for n in kind), C(), WN()]))
            for kind in START_KINDS
        ]

    def kinds_on(self, d: int) -> list[tuple[str, ...]]:
        """The kinds input ``d``'s part may take."""
        return [k for k in KINDS if k != ("Per",) or d in self.periodic]

    def candidates(self, level: int, best: Kernel) -> list[Kernel]:
        """The structures of level ``level`` (from 1) built from the ``best`` model so far."""
        step = self.steps[level - 1]
        if step.stage == "bases":
            (d,) = step.inputs
            now = kind_of(part_of(best, d))
            out = [with_part(best, d, kind) for kind in self.kinds_on(d) if kind != now]
        elif step.stage == "interactions":
            i, j = step.inputs
            leads = (lead(part_of(best, i)), lead(part_of(best, j)))
            out = [
                total([*_terms(best), product([_fresh(a, i), _fresh(b, j)])])
                for a, b in dict.fromkeys([*PRODUCT_FORMS, leads])
            ]
            out += [*grown(best, i, j), *grown(best, j, i)]
        elif step.stage == "prune":
            (d,) = step.inputs
            terms = _terms(best)
            in_product = any(d in term_inputs(t) and len(term_inputs(t)) > 1 for t in terms)
            own = {id(t) for t in part_of(best, d)}
            out = [total([t for t in terms if id(t) not in own])] if in_product and own else []
        else:
            (t,) = step.inputs
            terms = _terms(best)
            out = [
                total([*terms[:k], CP(term, term, dim=t), *terms[k + 1 :]])
                for k, term in enumerate(terms)
                if not term.is_noise and not isinstance(term, C | CP)
            ]
        return [simplify(k) for k in out]


def stage_costs(
    plan: TablePlan, trace: list[LevelRecord], screen_seconds: float, screen_fits: int = 1
) -> list[dict[str, object]]:
    """The cost of each stage of a plan's search, in order: the screen (its fits), then each
    stage's fits (its levels' candidates) and seconds (from the levels' running totals,
    ``LevelRecord.elapsed_seconds``, which start after the screen)."""
    costs: dict[str, dict[str, object]] = {
        "screen": {"fits": screen_fits, "seconds": screen_seconds}
    }
    before = screen_seconds
    for record in trace:
        stage = plan.stage_of(record.level)
        cost = costs.setdefault(stage, {"fits": 0, "seconds": 0.0})
        after = record.elapsed_seconds if record.elapsed_seconds is not None else before
        cost["fits"] = int(cost["fits"]) + record.candidates  # type: ignore[call-overload]
        cost["seconds"] = float(cost["seconds"]) + after - before  # type: ignore[arg-type]
        before = after
    return [
        {"stage": stage, "fits": c["fits"], "seconds": round(float(c["seconds"]), 3)}  # type: ignore[arg-type]
        for stage, c in costs.items()
    ]
