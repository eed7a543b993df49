"""The sampler's structure moves: Metropolis-Hastings steps on a particle's tree S (its noise,
outside the tree, kept), each keeping the target π(S, θ) ∝ p(S) p(θ | S) p(y | S, θ) invariant.

A move is drawn from three kinds, ``replace`` with probability ½, ``attach`` and ``detach``
with ¼ each (attach and detach undo each other, so their choice probabilities cancel):

- replace: a node of S chosen uniformly (|S| nodes) is replaced by a subtree T' drawn from the
  prior at its depth and context (``StructurePrior.sample``);
- attach: a node k chosen uniformly becomes op(k, T) or op(T, k) (side ½), op drawn from the
  prior's operator probabilities there (sum, product or a change on an input chosen uniformly),
  T from the prior one level deeper;
- detach: an operator node chosen uniformly among the m(S) operator nodes of S is replaced by
  one of its two children (½): the reverse of an attach.

New parameters (T's, a new change's own) come from ``smc_proposal.ParameterProposal`` q, a
mixture of prior and data. With q_s the structural choices' probability of the move and q_s'
that of its reverse, the acceptance probability is min(1, r),

    log r = log p(y | S', θ') − log p(y | S, θ) + log p(S') − log p(S)
            + Σ_new [log p(θ_i) − log q(θ_i)] − Σ_removed [log p(θ_i) − log q(θ_i)]
            + log q_s' − log q_s,

with p(S) the grammar's probability (``StructurePrior.log_prob``, at the root: depth 0, not
below a change). For replace, log q_s = −log|S| + log p(T' at its place), and its reverse
replaces T'; for attach, log q_s = −log|S| + log P(op) + log P(input) + log ½ + log p(T at
depth+1), its reverse −log m(S') + log ½. With q = p (no data share) the replace ratio reduces
to p(y | S')/p(y | S) · |S|/|S'|, the first sampler's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from abcd_cli.kernel_search.grammar import subexpressions
from abcd_cli.kernel_search.parameter_chain import accepts
from abcd_cli.kernel_search.smc_proposal import ParameterProposal
from abcd_cli.kernel_search.structure_prior import (
    BUILDERS,
    CHANGES,
    StructurePrior,
    below_change,
    operator_of,
)
from abcd_cli.kernels import Kernel, Sum

#: The probability of a replace move (attach and detach share the rest equally).
REPLACE_SHARE = 0.5

LogLikelihood = Callable[[Kernel], float]


@dataclass(frozen=True)
class Proposed:
    """A proposed tree ``new`` (new parameters unset: NaN), the current tree ``old`` with the
    parameters the move removes unset, and log q_s' − log q_s (``log_choice``); None for a move
    that cannot be made from the tree (no operator node to detach)."""

    new: Kernel
    old: Kernel
    log_choice: float


@dataclass(frozen=True)
class StructureMover:
    """Structure moves on trees of ``n_dims`` inputs under ``prior``, new parameters from
    ``proposal``, random numbers from ``rng``."""

    prior: StructurePrior
    proposal: ParameterProposal
    n_dims: int
    rng: np.random.Generator

    def move(
        self, kernel: Kernel, current: float, log_likelihood: LogLikelihood
    ) -> tuple[Kernel, float, bool]:
        """One Metropolis-Hastings step from ``kernel`` (tree + noise), whose log likelihood
        is ``current``: the particle, its log likelihood and whether the move was accepted."""
        tree, noise = kernel.operands
        u = self.rng.uniform()
        if u < REPLACE_SHARE:
            proposed = self.replace(tree)
        elif u < REPLACE_SHARE + (1.0 - REPLACE_SHARE) / 2.0:
            proposed = self.attach(tree)
        else:
            proposed = self.detach(tree)
        if proposed is None:
            return kernel, current, False
        log_structure = self.prior.log_prob(proposed.new, self.n_dims) - self.prior.log_prob(
            tree, self.n_dims
        )
        if not math.isfinite(log_structure + proposed.log_choice):
            return kernel, current, False
        unset = Sum((proposed.new, noise))
        candidate = self.proposal.draw(unset, self.rng)
        added = self.proposal.log_weight(candidate, np.isnan(unset.theta()))
        removed = self.proposal.log_weight(kernel, np.isnan(Sum((proposed.old, noise)).theta()))
        value = log_likelihood(candidate)
        log_ratio = value - current + log_structure + added - removed + proposed.log_choice
        if math.isfinite(value) and accepts(log_ratio, self.rng):
            return candidate, value, True
        return kernel, current, False

    # --- the three kinds ---------------------------------------------------------------------
    def replace(self, tree: Kernel) -> Proposed:
        """A uniformly chosen node replaced by a subtree drawn from the prior there."""
        nodes, below = list(subexpressions(tree)), below_change(tree)
        pick = int(self.rng.integers(len(nodes)))
        old_subtree, put, depth = nodes[pick]
        new_subtree = self.prior.sample(self.rng, self.n_dims, depth, below[pick])
        new = put(new_subtree)
        forward = -math.log(len(nodes)) + self._log_prob(new_subtree, depth, below[pick])
        backward = -math.log(_size(new)) + self._log_prob(old_subtree, depth, below[pick])
        return Proposed(new, put(_unset(old_subtree)), backward - forward)

    def attach(self, tree: Kernel) -> Proposed:
        """A uniformly chosen node k made op(k, T) or op(T, k), op and T from the prior."""
        nodes, below = list(subexpressions(tree)), below_change(tree)
        pick = int(self.rng.integers(len(nodes)))
        kept, put, depth = nodes[pick]
        weights = self.prior.operator_weights(below[pick])
        op = str(self.rng.choice(list(weights), p=list(weights.values())))
        change = op in CHANGES
        dim = int(self.rng.integers(self.n_dims)) if change and self.n_dims > 1 else 0
        first = self.rng.uniform() < 0.5
        under = below[pick] or change
        added = self.prior.sample(self.rng, self.n_dims, depth + 1, under)
        node = BUILDERS[op](kept, added, dim) if first else BUILDERS[op](added, kept, dim)
        new = put(node)
        forward = -math.log(len(nodes)) + math.log(weights[op]) + math.log(0.5)
        forward += self._log_prob(added, depth + 1, under)
        forward -= math.log(self.n_dims) if change else 0.0
        backward = -math.log(_operators(new)) + math.log(0.5)
        return Proposed(new, tree, backward - forward)

    def detach(self, tree: Kernel) -> Proposed | None:
        """A uniformly chosen operator node replaced by one of its children (the other child,
        and the node's own parameters, removed)."""
        nodes, below = list(subexpressions(tree)), below_change(tree)
        inner = [i for i, (node, _, _) in enumerate(nodes) if node.operands]
        if not inner:
            return None
        pick = inner[int(self.rng.integers(len(inner)))]
        node, put, depth = nodes[pick]
        op = operator_of(node)
        if len(node.operands) != 2:
            return None  # the grammar's trees are binary; another tree cannot be detached
        side = int(self.rng.integers(2))
        kept, removed = node.operands[side], node.operands[1 - side]
        new = put(kept)
        change = op in CHANGES
        weight = self.prior.operator_weights(below[pick]).get(op, 0.0)
        if weight == 0.0:
            return None
        forward = -math.log(len(inner)) + math.log(0.5)
        backward = -math.log(_size(new)) + math.log(weight) + math.log(0.5)
        backward += self._log_prob(removed, depth + 1, below[pick] or change)
        backward -= math.log(self.n_dims) if change else 0.0
        unset = _unset(node).with_operands(
            [kept if i == side else _unset(removed) for i in range(2)]
        )
        return Proposed(new, put(unset), backward - forward)

    def _log_prob(self, subtree: Kernel, depth: int, under_change: bool) -> float:
        return self.prior.log_prob(subtree, self.n_dims, depth, under_change)


def _size(tree: Kernel) -> int:
    """|S|: the tree's nodes."""
    return sum(1 for _ in tree.nodes())


def _operators(tree: Kernel) -> int:
    """m(S): the tree's operator nodes."""
    return sum(1 for node in tree.nodes() if node.operands)


def _unset(kernel: Kernel) -> Kernel:
    """``kernel`` with every parameter unset (NaN)."""
    return kernel.with_theta(np.full(kernel.theta().size, math.nan))
