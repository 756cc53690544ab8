"""The estimators and tests of silo_gym.eval.metrics against closed forms and textbook values."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from silo_gym.eval.metrics import (
    EXACT_SPLITS,
    fisher_exact,
    pass_at_k,
    pass_hat_k,
    percentile,
    permutation_test,
    wilson_interval,
)


@pytest.mark.parametrize(("n", "c", "k", "at", "hat"), [
    (5, 2, 1, 0.4, 0.4),
    (5, 2, 2, 1 - 3 / 10, 1 / 10),  # C(3,2)/C(5,2) = 3/10; C(2,2)/C(5,2) = 1/10
    (5, 2, 3, 1 - 1 / 10, 0.0),  # C(3,3)/C(5,3) = 1/10; C(2,3) = 0
    (5, 2, 4, 1.0, 0.0),  # C(3,4) = 0
    (5, 2, 5, 1.0, 0.0),  # k = n
    (4, 3, 2, 1.0, 3 / 6),  # C(1,2) = 0; C(3,2)/C(4,2) = 3/6
    (4, 3, 4, 1.0, 0.0),
    (8, 0, 1, 0.0, 0.0),  # c = 0
    (8, 0, 8, 0.0, 0.0),
    (8, 8, 1, 1.0, 1.0),  # c = n
    (8, 8, 8, 1.0, 1.0),
    (1, 1, 1, 1.0, 1.0),
    (1, 0, 1, 0.0, 0.0),
    (10, 7, 3, 1 - 1 / 120, 35 / 120),  # C(3,3)=1, C(7,3)=35, C(10,3)=120
])
def test_pass_at_k_and_pass_hat_k_equal_their_closed_forms(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at, abs=1e-15)
    assert pass_hat_k(n, c, k) == pytest.approx(hat, abs=1e-15)


def test_the_estimators_are_not_the_naive_powers() -> None:
    # 2 of 4: the naive pass^2 (c/n)^2 = 0.25 overstates the chance that two trials drawn
    # without replacement both pass (1/6); the naive pass@2 1-(1-c/n)^2 = 0.75 understates 5/6.
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)


def test_exact_arithmetic_for_large_counts() -> None:
    n, c, k = 200, 150, 100
    exact = Fraction(math.comb(c, k), math.comb(n, k))
    assert pass_hat_k(n, c, k) == float(exact)
    assert pass_at_k(n, c, k) == 1.0  # C(50, 100) = 0


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6), (0, 0, 1)])
def test_counts_out_of_range_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def test_counts_must_be_ints() -> None:
    with pytest.raises(TypeError):
        pass_at_k(5, 2.0, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pass_hat_k(True, 1, 1)


def test_wilson_interval_textbook_values() -> None:
    low, high = wilson_interval(0.5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    # At 0 of n the interval is [0, z^2 / (n + z^2)], not a point.
    z2 = 1.959963984540054 ** 2
    assert wilson_interval(0.0, 5) == pytest.approx((0.0, z2 / (5 + z2)))
    assert wilson_interval(1.0, 5) == pytest.approx((1 - z2 / (5 + z2), 1.0))
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)
    with pytest.raises(ValueError):
        wilson_interval(1.5, 3)


def test_percentile_is_numpys_linear_interpolation() -> None:
    rng = np.random.default_rng(3)
    for size in (1, 2, 5, 17, 100):
        values = [float(v) for v in rng.exponential(50.0, size)]
        for q in (0, 50, 95, 100):
            assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    with pytest.raises(ValueError):
        percentile([], 50)


def test_fisher_exact_textbook_values() -> None:
    # The lady tasting tea: 3 of 4 right is p = 34/70 two-sided; all 4 right is 2/70.
    assert fisher_exact(3, 1, 1, 3) == pytest.approx(34 / 70)
    assert fisher_exact(4, 0, 0, 4) == pytest.approx(2 / 70)
    # A commonly quoted example: [[1, 9], [11, 3]] has p = 0.002759 two-sided.
    assert fisher_exact(1, 9, 11, 3) == pytest.approx(0.0027594, abs=1e-7)
    assert fisher_exact(2, 2, 2, 2) == 1.0
    assert fisher_exact(0, 5, 0, 5) == 1.0  # no success anywhere: nothing to test
    assert fisher_exact(5, 0, 0, 0) == 1.0
    with pytest.raises(ValueError):
        fisher_exact(-1, 1, 1, 1)


def test_fisher_exact_is_symmetric() -> None:
    assert fisher_exact(1, 4, 5, 0) == pytest.approx(fisher_exact(5, 0, 1, 4))
    assert fisher_exact(1, 4, 5, 0) == pytest.approx(fisher_exact(4, 1, 0, 5))


def test_permutation_test_exact_splits() -> None:
    # Four 1s against four 0s: only 2 of the C(8,4) = 70 splits are as far apart.
    assert permutation_test([1, 1, 1, 1], [0, 0, 0, 0]) == pytest.approx(2 / 70)
    assert permutation_test([0.5, 0.5], [0.5, 0.5]) == 1.0
    assert permutation_test([], [1.0]) == 1.0
    # A single split of (1) vs (0): both orders are as extreme, p = 1.
    assert permutation_test([1.0], [0.0]) == 1.0


def test_permutation_test_sampled_past_the_exact_limit_is_deterministic() -> None:
    first = [1.0] * 12 + [0.0] * 2
    second = [0.0] * 12 + [1.0] * 2
    assert math.comb(len(first) + len(second), len(first)) > EXACT_SPLITS
    p = permutation_test(first, second)
    assert p == permutation_test(first, second)
    assert 0 < p < 0.01
    assert fisher_exact(12, 2, 2, 12) < 0.01
