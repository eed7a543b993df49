"""Is a kernel's text faithful? The skc objective of a search's kernels from memory against the
same kernels printed and parsed back, in each of the ways a model file or a study carries them.

Reads a model JSON that ``abcd report --json`` wrote for an skc search. The kernels are the
model's own (``internal.kernel``, full precision) and, with ``--level L``, the full-data
finalists of level L run again from the trace (``level_split``: about two minutes of CPU on
Seattle's 8,759 points), held in memory in internal units as the search holds them. For each
kernel k it prints the search's objective F (skc's bound, internal nats, an upper bound on
−log p(y_s)) and BIC = 2·F' + p·log N (F' in the user's units, ``Scaling.nll_out``) of:

* k itself;
* ``parse_kernel(data.text(k))``: the text of the internal kernel read back (same units);
* ``kernel_in(parse_kernel(text(kernel_out(k), digits)))``: the user-unit text a model file
  (full precision) or its trace (``digits=6``) keeps, read back and converted in, for several
  digits;
* each parameter alone rounded to 6 digits in the user's units (which one the trace's rounding
  moves);
* ``kernel_in(parse_kernel(data.text(k)))``: the internal text read as if it were the user's
  units (a misuse: ``data.text`` prints the kernel in the units it is given).

``--exact`` adds the exact BIC (one dense Cholesky, about 0.6 GiB and a minute at N ≈ 9,000)
of k and of its 6-digit user text.

    OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python -m benchmarks.studies.text_roundtrip \\
        /tmp/seattle/work/runs/default/seattle-temps.model.json [--level 5] [--exact]
"""

from __future__ import annotations

import argparse
import json
import math

from abcd_cli.kernel_search.greedy import Search
from abcd_cli.kernel_search.scoring import Scored
from abcd_cli.kernels import Kernel
from abcd_cli.kernels.algebra import count_params
from abcd_cli.kernels.base import _fmt
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import bic
from benchmarks.studies.level_split import exact_bic, instrumented, rebuilt, search_of

DIGITS = (4, 6, 8, 10, 12, 15, 17)


def objective(search: Search, kernel: Kernel) -> tuple[float, float]:
    """The search's objective F (internal nats) and BIC = 2·F' + p·log N (user units)."""
    data = search.data
    value = search.engine.objective_value(kernel, data.X, data.Y, data.constant_mean)
    nll = data.scaling.nll_out(value, data.n - data.constant_mean)
    return value, bic(nll, count_params(kernel), data.n)


def through_user_text(search: Search, kernel: Kernel, digits: int | None) -> Kernel:
    """k written in the user's units to ``digits`` (None: full precision), read back, converted
    in: what a model file's kernel (or its trace's, ``digits=6``) gives a reader."""
    scaling, text = search.data.scaling, search.data.text
    return scaling.kernel_in(parse_kernel(text(scaling.kernel_out(kernel), digits=digits)))


def one_rounded(search: Search, kernel: Kernel, index: int, digits: int) -> Kernel:
    """k with its ``index``-th parameter alone rounded to ``digits`` in the user's units."""
    scaling = search.data.scaling
    user = scaling.kernel_out(kernel)
    values = user.values().copy()
    values[index] = float(_fmt(values[index], digits))
    return scaling.kernel_in(user.with_values(values))


def compared(search: Search, label: str, kernel: Kernel, exact: bool) -> None:
    """Print the objective of ``kernel`` and of each text form of it (see the module's notes)."""
    data = search.data
    own_f, own_bic = objective(search, kernel)
    same = parse_kernel(data.text(kernel)) == kernel
    print(f"{label}: {data.text(kernel, params=False)} (parse(data.text(k)) == k: {same})")
    print(f"  {'form':58s} {'F (internal)':>16s} {'ΔF':>12s} {'BIC':>14s}")

    def row(form: str, k: Kernel) -> None:
        f, b = objective(search, k)
        print(f"  {form:58s} {f:16.4f} {f - own_f:12.4g} {b:14.2f}", flush=True)

    print(f"  {'in memory':58s} {own_f:16.4f} {0.0:12.4g} {own_bic:14.2f}")
    row("parse(data.text(k)), full precision, internal", parse_kernel(data.text(kernel)))
    row("kernel_in(parse(user text)), full precision", through_user_text(search, kernel, None))
    for digits in DIGITS:
        row(
            f"kernel_in(parse(user text)), {digits} digits",
            through_user_text(search, kernel, digits),
        )
    user = data.scaling.kernel_out(kernel)
    for i, name in enumerate(user.param_names()):
        shown = f"{name} = {float(user.values()[i])!r} alone to 6 digits"
        row(shown, one_rounded(search, kernel, i, 6))
    row("MISUSE kernel_in(parse(data.text(k))): internal as user", _misread(search, kernel))
    if exact:
        full, rounded = (
            exact_bic(search, kernel),
            exact_bic(search, through_user_text(search, kernel, 6)),
        )
        print(f"  exact BIC: in memory {full:.2f}, 6-digit user text {rounded:.2f}", flush=True)


def _misread(search: Search, kernel: Kernel) -> Kernel:
    """The internal kernel's text read as if in the user's units (what no reader should do)."""
    return search.data.scaling.kernel_in(parse_kernel(search.data.text(kernel)))


def level_finalists(search: Search, trace: list[dict], level: int) -> list[Scored]:
    """Level ``level`` run again from the trace; its full-data models (in memory)."""
    rebuilt(search, trace, level)
    full: list[Scored] = []
    undo = instrumented(search, full)
    try:
        search.step()
    finally:
        undo()
    return full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a model JSON written by abcd report --json (skc)")
    parser.add_argument("--level", type=int, help="also the full-data finalists of this level")
    parser.add_argument("--exact", action="store_true", help="also exact BICs (dense)")
    args = parser.parse_args()
    with open(args.model) as file:
        doc = json.load(file)
    search = search_of(doc)
    data = search.data
    print(f"scaling: {data.scaling}; N = {data.n}, log N = {math.log(data.n):.4f}")
    compared(search, "the model's kernel", parse_kernel(doc["internal"]["kernel"]), args.exact)
    if args.level:
        for i, c in enumerate(level_finalists(search, doc["trace"], args.level), start=1):
            compared(search, f"level {args.level}, full-data model {i}", c.kernel, args.exact)


if __name__ == "__main__":
    main()
