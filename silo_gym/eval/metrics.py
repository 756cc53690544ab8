"""The statistics of an evaluation: pure functions of counts and samples.

- :func:`pass_at_k`: the unbiased estimator of pass@k (the chance that at least one of ``k``
  trials drawn without replacement from the ``n`` played succeeds): ``1 - C(n-c, k) / C(n, k)``.
- :func:`pass_hat_k`: the unbiased estimator of pass^k (the chance that all ``k`` drawn trials
  succeed): ``C(c, k) / C(n, k)``.
- :func:`wilson_interval`: a confidence interval on a mean in ``[0, 1]``.
- :func:`percentile`: a percentile by linear interpolation between closest ranks.
- :func:`fisher_exact`: the two-sided p-value of Fisher's exact test on a 2x2 table.
- :func:`permutation_test`: the two-sided p-value of a permutation test on a difference of means.

Both estimators use exact integer arithmetic (``math.comb``) and one division of two ints, which
Python rounds correctly, so they equal their closed forms for every ``n`` (``c = 0``, ``c = n`` and ``k = n`` included), unlike the
naive ``1 - (1 - c/n)**k`` and ``(c/n)**k``, which are biased for ``k > 1``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "fisher_exact",
    "pass_at_k",
    "pass_hat_k",
    "percentile",
    "permutation_test",
    "wilson_interval",
]

#: The z value of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Above this many ways to split two samples, :func:`permutation_test` samples splits instead.
EXACT_SPLITS = 50_000
#: Splits sampled (with a fixed seed) past :data:`EXACT_SPLITS`.
SAMPLED_SPLITS = 20_000


def _check_counts(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {value!r}.")
    if not 0 <= c <= n:
        raise ValueError(f"c must be between 0 and n={n}, got {c}.")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}.")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from ``c`` successes in ``n`` trials:
    ``1 - C(n-c, k) / C(n, k)`` (``C(m, k) = 0`` for ``m < k``).

    Raises:
        TypeError: a count is not an int.
        ValueError: not ``0 <= c <= n`` or not ``1 <= k <= n``.
    """
    _check_counts(n, c, k)
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total  # int / int: the exact ratio, correctly rounded


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k (all ``k`` trials succeed) from ``c`` successes in ``n``
    trials: ``C(c, k) / C(n, k)``.

    Raises:
        TypeError: a count is not an int.
        ValueError: not ``0 <= c <= n`` or not ``1 <= k <= n``.
    """
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def wilson_interval(mean: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval around ``mean``, a mean of ``n`` values in ``[0, 1]``.

    For 0/1 values (pass or fail) it is the Wilson interval of a proportion. For fractional
    values it is conservative: a variable in ``[0, 1]`` with mean ``m`` has a variance of at most
    ``m (1 - m)`` (the Bhatia-Davis bound), the variance the interval assumes. Unlike the normal
    interval it stays inside ``[0, 1]`` and has a width at ``mean`` 0 or 1.

    Returns:
        ``(low, high)``, both in ``[0, 1]``.

    Raises:
        ValueError: ``n < 1`` or ``mean`` outside ``[0, 1]``.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}.")
    if not 0.0 <= mean <= 1.0:
        raise ValueError(f"mean must be in [0, 1], got {mean!r}.")
    z2 = z * z
    centre = (mean + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (``0 <= q <= 100``) of ``values`` by linear interpolation between
    the closest ranks (NumPy's default method).

    Raises:
        ValueError: ``values`` is empty or ``q`` is outside ``[0, 100]``.
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100], got {q!r}.")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _hypergeometric(a: int, row1: int, col1: int, total: int) -> Fraction:
    return Fraction(math.comb(col1, a) * math.comb(total - col1, row1 - a), math.comb(total, row1))


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """The two-sided p-value of Fisher's exact test on the 2x2 table ``[[a, b], [c, d]]`` (for
    an evaluation: successes and failures of A in the first row, of B in the second): the sum of
    the probabilities, under fixed margins, of every table no more likely than the one observed.
    Exact rational arithmetic, so suited to the small counts of a few trials per task.

    Raises:
        ValueError: a negative count.
    """
    if min(a, b, c, d) < 0:
        raise ValueError("counts must be >= 0")
    row1, col1, total = a + b, a + c, a + b + c + d
    if total == 0 or row1 in (0, total) or col1 in (0, total):
        return 1.0
    observed = _hypergeometric(a, row1, col1, total)
    lowest, highest = max(0, row1 + col1 - total), min(row1, col1)
    p = sum((q for q in (_hypergeometric(x, row1, col1, total) for x in range(lowest, highest + 1))
             if q <= observed), Fraction(0))
    return float(min(Fraction(1), p))


def permutation_test(first: Sequence[float], second: Sequence[float], seed: int = 0) -> float:
    """The two-sided p-value of a permutation test of ``mean(first) == mean(second)``: the share
    of the ways to split the pooled values into groups of the same sizes whose difference of
    means is at least the observed one in size. Every split is counted when there are at most
    :data:`EXACT_SPLITS`; past that, :data:`SAMPLED_SPLITS` splits are drawn with ``seed`` (the
    same inputs give the same p-value) and the p-value is ``(hits + 1) / (draws + 1)``.

    Returns:
        The p-value in ``(0, 1]``; 1.0 when either group is empty.
    """
    n1, n2 = len(first), len(second)
    if n1 == 0 or n2 == 0:
        return 1.0
    pooled = [float(v) for v in (*first, *second)]
    total = sum(pooled)
    n = n1 + n2
    observed = abs(sum(first) / n1 - sum(second) / n2)
    tolerance = 1e-9 * max(1.0, observed)

    def extreme(group_sum: float) -> bool:
        return abs(group_sum / n1 - (total - group_sum) / n2) >= observed - tolerance

    splits = math.comb(n, n1)
    if splits <= EXACT_SPLITS:
        hits = sum(1 for chosen in itertools.combinations(pooled, n1) if extreme(sum(chosen)))
        return hits / splits
    rng = random.Random(seed)
    hits = sum(1 for _ in range(SAMPLED_SPLITS) if extreme(sum(rng.sample(pooled, n1))))
    return (hits + 1) / (SAMPLED_SPLITS + 1)
