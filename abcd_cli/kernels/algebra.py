"""Pure functions on kernel trees: canonical form, simplification, sum-of-products, BIC size.

The rules are those of thesis ch. 4 ("Sum of products normal form"):
SE × SE → SE; WN × (any stationary kernel) → WN; a constant factor only rescales the rest of its
product; several WN (or several C) in one sum are one WN (one C). Unknown (NaN) values are carried
through: where one side of a merge is unknown the known value is kept as the starting point.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from abcd_cli.kernels import (
    SE,
    WN,
    Additive,
    After,
    Before,
    C,
    ChangeOperator,
    Combination,
    Inside,
    Kernel,
    Outside,
    Product,
    Sum,
    product,
    total,
)


def _merge(f: Callable[[float, float], float], a: float, b: float) -> float:
    """f(a, b) when both are known, else whichever is known, else NaN."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return f(a, b)


def _hypot(a: float, b: float) -> float:
    return _merge(math.hypot, a, b)


def _inverse_hypot(a: float, b: float) -> float:
    return (a**-2 + b**-2) ** -0.5


def _times(a: float, b: float) -> float:
    return _merge(lambda p, q: p * q, a, b)


# ------------------------------------------------------------------------------------------
# Canonical form
# ------------------------------------------------------------------------------------------


def sort_key(kernel: Kernel) -> tuple[str, str]:
    """Operands sort by structure first, then by their values (for a stable total order)."""
    return kernel.to_text(params=False), kernel.to_text(params=True)


def flatten(kernel: Kernel) -> Kernel:
    """Nested sums (products) inside sums (products) become one flat sum (product)."""
    ops = [flatten(k) for k in kernel.operands]
    if isinstance(kernel, Combination):
        flat: list[Kernel] = []
        for k in ops:
            flat.extend(k.operands if type(k) is type(kernel) else (k,))
        return kernel.with_operands(flat)
    return kernel.with_operands(ops) if ops else kernel


def canonical(kernel: Kernel) -> Kernel:
    """Flattened, with the operands of every sum and product sorted.

    Equal structures then compare and hash equal: (A + B) × C and C × (B + A) give the same tree.
    CP and CW keep their operand order (it says which side of the change each one is on).
    """
    kernel = flatten(kernel)
    ops = [canonical(k) for k in kernel.operands]
    if isinstance(kernel, Combination):
        ops.sort(key=sort_key)
    return kernel.with_operands(ops) if ops else kernel


def structure_key(kernel: Kernel) -> str:
    """A string equal for kernels of equal canonical structure (parameter values ignored)."""
    return canonical(kernel).to_text(params=False)


# ------------------------------------------------------------------------------------------
# Simplification
# ------------------------------------------------------------------------------------------


def carries_scale(kernel: Kernel) -> bool:
    """Whether multiplying the kernel by a constant can be done through its ``sd`` parameters
    (``Kernel.scale_params``: a base kernel's ``sd``, the additive kernel's order sds)."""
    if isinstance(kernel, Product):
        return any(carries_scale(k) for k in kernel.operands)
    if kernel.operands:
        return all(carries_scale(k) for k in kernel.operands)
    return bool(kernel.scale_params())


def scale_kernel(kernel: Kernel, factor: float) -> Kernel:
    """The kernel multiplied by ``factor`` > 0, through the ``sd`` of one factor per product.

    Sums and CP/CW scale every operand; a product scales its first operand that can carry it.
    """
    if math.isnan(factor) or factor == 1.0:
        return kernel
    if isinstance(kernel, Product):
        ops = list(kernel.operands)
        i = next(i for i, k in enumerate(ops) if carries_scale(k))
        ops[i] = scale_kernel(ops[i], factor)
        return kernel.with_operands(ops)
    if kernel.operands:
        return kernel.with_operands([scale_kernel(k, factor) for k in kernel.operands])
    values = list(kernel.own_values)
    for i in kernel.scale_params():
        values[i] = _times(values[i], math.sqrt(factor))
    return kernel.with_own_values(values)


def _simplify_product(factors: list[Kernel]) -> Kernel:
    """Apply SE×SE→SE, WN×stationary→WN and absorb constants, within one flat product."""
    ses = [k for k in factors if isinstance(k, SE)]
    others = [k for k in factors if not isinstance(k, SE)]
    merged_se: dict[int, SE] = {}
    for k in ses:
        if k.dim not in merged_se:
            merged_se[k.dim] = k
            continue
        a = merged_se[k.dim]
        # exp(-r²/2l1²)·exp(-r²/2l2²) = exp(-r²/2l²) with 1/l² = 1/l1² + 1/l2².
        ell = _merge(_inverse_hypot, a.param("lengthscale"), k.param("lengthscale"))
        sd = _times(a.param("sd"), k.param("sd"))
        merged_se[k.dim] = SE((ell, sd), k.dim)
    factors = others + list(merged_se.values())

    wns = [k for k in factors if k.is_noise]
    if wns:
        # WN × k for stationary k is WN with its variance multiplied by k(x, x).
        variance = math.nan
        for k in factors:
            if k.stationary:
                variance = _times(variance, _stationary_variance(k))
        factors = [WN((math.sqrt(variance),), wns[0].dim)] + [
            k for k in factors if not k.stationary
        ]
    constants = [k for k in factors if isinstance(k, C)]
    rest = [k for k in factors if not isinstance(k, C)]
    if not constants:
        return product(rest)
    # C(s1) × C(s2) × ... is one constant with sd = s1·s2·...
    sd = constants[0].param("sd")
    for k in constants[1:]:
        sd = _times(sd, k.param("sd"))
    if any(carries_scale(k) for k in rest):
        return scale_kernel(product(rest), _times(sd, sd))
    # Nothing else carries a scale (no factors, or only gates): the one constant is the scale.
    return product([C((sd,), constants[0].dim), *rest])


def _stationary_variance(kernel: Kernel) -> float:
    """k(x, x) of a stationary kernel (sums add, products multiply; NaN if any is unknown)."""
    if isinstance(kernel, Sum):
        return sum(_stationary_variance(k) for k in kernel.operands)
    if isinstance(kernel, Product):
        return math.prod(_stationary_variance(k) for k in kernel.operands)
    if isinstance(kernel, Additive):
        return kernel.variance()
    return kernel.param("sd") ** 2


def _simplify_sum(terms: list[Kernel]) -> Kernel:
    """Merge several WN (and several C) of the same dimension into one."""
    out: list[Kernel] = []
    for cls in (WN, C):
        same = [k for k in terms if isinstance(k, cls)]
        if same:
            sd = same[0].param("sd")
            for k in same[1:]:
                sd = _hypot(sd, k.param("sd"))
            out.append(cls((sd,), same[0].dim))
    out += [k for k in terms if not isinstance(k, (WN, C))]
    return total(out)


def simplify(kernel: Kernel) -> Kernel:
    """Simplified canonical form (thesis ch. 4 rules), applied bottom-up."""
    kernel = flatten(kernel)
    ops = [simplify(k) for k in kernel.operands]
    if isinstance(kernel, Product):
        flat: list[Kernel] = []
        for k in ops:
            flat.extend(k.operands if isinstance(k, Product) else (k,))
        kernel = _simplify_product(flat)
    elif isinstance(kernel, Sum):
        flat = []
        for k in ops:
            flat.extend(k.operands if isinstance(k, Sum) else (k,))
        kernel = _simplify_sum(flat)
    elif ops:
        kernel = kernel.with_operands(ops)
    return canonical(kernel)


# ------------------------------------------------------------------------------------------
# Sum-of-products form
# ------------------------------------------------------------------------------------------


def _gate_factors(op: ChangeOperator) -> tuple[Kernel, Kernel]:
    if op.symbol == "CP":
        return Before(op.params, op.dim), After(op.params, op.dim)
    return Outside(op.params, op.dim), Inside(op.params, op.dim)


def factor_lists(kernel: Kernel) -> list[list[Kernel]]:
    """The kernel as a list of products, each a list of factors (no sums or CP/CW inside)."""
    if isinstance(kernel, Sum):
        return [p for k in kernel.operands for p in factor_lists(k)]
    if isinstance(kernel, Product):
        prods: list[list[Kernel]] = [[]]
        for k in kernel.operands:
            prods = [p + q for p in prods for q in factor_lists(k)]
        return prods
    if isinstance(kernel, ChangeOperator):
        g_first, g_second = _gate_factors(kernel)
        return [p + [g_first] for p in factor_lists(kernel.first)] + [
            p + [g_second] for p in factor_lists(kernel.second)
        ]
    return [[kernel]]


def sum_of_products(kernel: Kernel) -> list[Kernel]:
    """Additive components: products distributed over sums, CP/CW split into their two sides
    with their sigmoid factors, each product simplified (thesis §4.1, eq. 4.1).

    Terms whose simplified structure coincides (e.g. two WN) are merged.
    """
    terms = [simplify(product(factors)) for factors in factor_lists(kernel)]
    merged = simplify(total(terms))
    return list(merged.operands) if isinstance(merged, Sum) else [merged]


# ------------------------------------------------------------------------------------------
# Size for BIC
# ------------------------------------------------------------------------------------------


def count_params(kernel: Kernel) -> int:
    """Effective number of parameters p in BIC = 2·NLL + p·log n (shared/reference/README.md).

    Base kernel: its own; sum: sum over operands; product: sum over operands minus
    (factors - 1), since all factors' scales but one are redundant; CP: 2 + operands;
    CW: 3 + operands.
    """
    own = len(kernel.own_values)
    inner = sum(count_params(k) for k in kernel.operands)
    if isinstance(kernel, Product):
        return inner - (len(kernel.operands) - 1)
    return own + inner
