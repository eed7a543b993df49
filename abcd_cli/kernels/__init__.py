"""Kernel expressions: base kernels, operators, their text form and algebra.

Modules, one job each:
  ``params``        what a parameter means (``Param``): transform, unit, start, bounds, check, words
  ``base``          the ``Kernel`` node, ``Inputs``, ``BaseKernel`` and the registries
  ``families``      WN, C, Lin, SE, RQ          ``periodic``  Per, Cos
  ``changes``       CP, CW and their gates (Before, After, Outside, Inside)
  ``combinations``  Sum, Product                ``text``      parser     ``algebra``  rewriting
  ``additive``      the additive kernel of every order up to R (Newton-Girard), a ``Composite``

Adding a base kernel is one class: subclass ``BaseKernel`` with ``@dataclass(frozen=True)``,
give it a ``symbol``, its ``specs`` (one ``params.Param`` per parameter, in theta order), its
report ``role`` and ``searchable = True`` if the search grammar should offer it, and implement
``_eval`` (K and dK/dθ on ``Inputs``) and ``_diag`` (k(x_i, x_i) in O(N)). A periodic or
smooth kernel also declares its words in the report (``noun``, ``approximate_noun``,
``modifier``, ``shape_sentence``). Defining the class registers it in ``BASE_KERNELS``: the
text form, starting values, bounds, validity checks, unit scaling, the grammar and the report
then pick it up with no other change.
"""

# Modules register their classes as they are defined: this order is the registries' order.
# isort: off
from abcd_cli.kernels.base import (
    BASE_KERNELS,
    COMPOSITES,
    OPERATORS,
    BaseKernel,
    Composite,
    Inputs,
    Kernel,
    Wording,
)
from abcd_cli.kernels.families import RQ, SE, WN, C, Lin
from abcd_cli.kernels.periodic import Cos, Per
from abcd_cli.kernels.changes import CP, CW, After, Before, ChangeOperator, Gate, Inside, Outside
from abcd_cli.kernels.combinations import Combination, Product, Sum, product, total
from abcd_cli.kernels.additive import Additive
from abcd_cli.kernels.params import Param
# isort: on

__all__ = [
    "BASE_KERNELS",
    "COMPOSITES",
    "OPERATORS",
    "Inputs",
    "CP",
    "CW",
    "RQ",
    "SE",
    "WN",
    "Additive",
    "After",
    "BaseKernel",
    "Before",
    "C",
    "ChangeOperator",
    "Composite",
    "Combination",
    "Cos",
    "Gate",
    "Inside",
    "Kernel",
    "Lin",
    "Outside",
    "Param",
    "Per",
    "Product",
    "Sum",
    "Wording",
    "product",
    "total",
]
