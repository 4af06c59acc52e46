"""Statistical summaries of simulator tallies.

The simulator never returns per-encounter rows, only integer counts, per-batch sums
and histograms. The functions here turn those tallies into point estimates with
confidence intervals. They are numpy and scipy.special (pandas only for the time-to-down
table), vectorised where that is natural, and every interval function takes a
two-sided confidence ``level``.

Interval-returning functions return numpy arrays of the broadcast input shape
(0-d arrays for scalar inputs; ``float(x)`` turns those into Python floats).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt
import pandas as pd

# scipy is imported inside the functions, and only scipy.special: scipy.stats takes
# about 0.5 s more to import. The special functions used are the ones scipy.stats'
# distributions call (norm: ndtr; t: stdtrit; beta: betaincinv), so the figures are the
# same. Even scipy.special takes a third of a second to import, a fifth of a second run,
# so what every run's tables need is computed here without it: the normal quantile (from
# the standard library), the t quantile for whole degrees of freedom (`t_quantile`) and
# Clopper–Pearson bounds for counts near 0 or the total (`_rare_count_interval`). Each is
# tested against scipy, and those bounds against binomial tails summed exactly.

__all__ = [
    "RARE_EVENT_THRESHOLD",
    "clopper_pearson_interval",
    "cumulative_incidence",
    "exact_rate_difference",
    "few_expected",
    "first_round_reaching",
    "histogram_mean_var",
    "histogram_median",
    "holm_adjust",
    "normal_quantile",
    "rate_interval",
    "ratio_batch_means",
    "ratio_batch_means_many",
    "t_quantile",
    "t_two_sided_p",
    "two_proportion_z",
    "wilson_interval",
]

#: Below this many successes (or failures) `rate_interval` switches to Clopper–Pearson.
RARE_EVENT_THRESHOLD = 10
#: Fewer attacks than this at a point make a pair's intervals too wide to tell a moving
#: figure from a flat one (a sweep's table of unchanged pairs says so), and its mean
#: damage's interval no interval at all: a few equal damages give one of no width.
FEW_ATTACKS = 30


def few_expected(trials: int, rate: float) -> bool:
    """Whether ``trials`` at ``rate`` expect fewer than `RARE_EVENT_THRESHOLD` events, or
    non-events: where a count is far from normal, and a test of it takes its exact
    binomial tails (``run --check`` against an exact rate; the drift gate's rates, at
    the two runs' pooled rate), not a normal z."""
    return trials * min(rate, 1.0 - rate) < RARE_EVENT_THRESHOLD


#: Slack used by `first_round_reaching` so that a share of exactly 0.5 is not missed
#: because a division rounded to 0.49999999999999994.
_MEDIAN_TOL = 1e-12


def normal_quantile(level: float) -> float:
    """Two-sided standard normal quantile for a confidence level (1.96 for 0.95).

    Parameters
    ----------
    level : float
        Two-sided confidence level, strictly between 0 and 1.
    """
    _check_level(level)
    return NormalDist().inv_cdf(0.5 + 0.5 * level)


#: Above this many degrees of freedom `t_quantile` asks scipy (its series has df/2 terms).
_T_SERIES_MAX_DF = 1000


def t_quantile(df: int, level: float) -> float:
    """Two-sided Student t quantile for whole degrees of freedom (12.706 for 1 and 0.95).

    The value ``t`` with ``P(|T| < t) = level`` for ``T`` of Student's t distribution
    with ``df`` degrees of freedom: scipy's ``stdtrit(df, 0.5 + level / 2)``, which it
    matches to a relative 1e-11 or better (tested for ``df`` up to 1,000; beyond that,
    scipy's is returned).

    Parameters
    ----------
    df : int
        Degrees of freedom, at least 1 (a batch-means interval has one fewer than its
        batches).
    level : float
        Two-sided confidence level, strictly between 0 and 1.

    Notes
    -----
    With ``t = sqrt(df) tan(theta)``, ``P(|T| < t)`` is a finite series in ``sin(theta)``
    and ``cos(theta)`` for whole ``df`` (Abramowitz and Stegun, 26.7.3 and 26.7.4), and
    its derivative in ``theta`` is ``2 K cos(theta)**(df - 1)`` with
    ``K = Gamma((df + 1) / 2) / (sqrt(pi) Gamma(df / 2))``. ``theta`` is found by Newton
    steps kept inside a shrinking bracket. Written here so that a run's tables need not
    import scipy.special, which takes a third of a second.
    """
    _check_level(level)
    _check_df(df)
    df = int(df)
    if df > _T_SERIES_MAX_DF:  # a longer series than is worth summing in Python
        from scipy import special

        return float(special.stdtrit(df, 0.5 + 0.5 * level))
    log_k = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(math.pi)
    low, high = 0.0, math.pi / 2
    theta = math.atan(normal_quantile(level) / math.sqrt(df))
    for _ in range(200):
        excess = _t_central_mass(theta, df) - level
        if excess == 0.0:
            break
        if excess > 0:
            high = theta
        else:
            low = theta
        slope = 2.0 * math.exp(log_k + (df - 1) * math.log(math.cos(theta)))
        step = theta - excess / slope
        if not low < step < high:
            step = 0.5 * (low + high)
        done = abs(step - theta) <= 2 * math.ulp(theta)
        theta = step
        if done:
            break
    return math.sqrt(df) * math.tan(theta)


def _check_df(df: int) -> None:
    """Whole degrees of freedom, at least 1, or ValueError."""
    if int(df) != df or df < 1:
        raise ValueError(f"expected whole degrees of freedom, at least 1; got {df!r}")


def t_two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of a Student t statistic: ``P(|T| >= |t|)`` with ``df`` whole
    degrees of freedom, from the same finite series as :func:`t_quantile` (scipy's
    ``2 * stdtr(df, -|t|)`` beyond ``_T_SERIES_MAX_DF``). NaN for a NaN statistic, 0 for
    an infinite one; below about 1e-16 it reads 0 (the series' mass is 1 to double
    precision), which orders it first among p-values as it should."""
    _check_df(df)
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    df = int(df)
    if df > _T_SERIES_MAX_DF:
        from scipy import special

        return float(2.0 * special.stdtr(df, -abs(t)))
    return max(0.0, 1.0 - _t_central_mass(math.atan(abs(t) / math.sqrt(df)), df))


def _t_central_mass(theta: float, df: int) -> float:
    """``P(|T| < sqrt(df) tan(theta))`` for Student's t with whole ``df`` (A&S 26.7.3-4)."""
    cos, sin = math.cos(theta), math.sin(theta)
    cos2 = cos * cos
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, (df - 2) // 2 + 1):
            term *= cos2 * (2 * k - 1) / (2 * k)
            total += term
        return sin * total
    if df == 1:
        return 2.0 * theta / math.pi
    term = total = cos
    for k in range(1, (df - 3) // 2 + 1):
        term *= cos2 * (2 * k) / (2 * k + 1)
        total += term
    return 2.0 * (theta + sin * total) / math.pi


def _check_level(level: float) -> None:
    """Raise :class:`~simlab.errors.InputError` unless ``level`` is a number with
    ``0 < level < 1`` (a notebook's ``level=95`` or ``level="0.9"`` included)."""
    from numbers import Real

    from simlab.errors import InputError

    if isinstance(level, bool) or not isinstance(level, Real) or not 0.0 < level < 1.0:
        raise InputError(f"expected a confidence level strictly between 0 and 1 (0.95 for "
                         f"95% intervals); got {level!r}")  # fmt: skip


def _counts(successes: npt.ArrayLike, trials: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast and validate success/trial counts as float arrays."""
    k, n = np.broadcast_arrays(np.asarray(successes, dtype=float), np.asarray(trials, dtype=float))
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("expected 0 <= successes <= trials; got values outside that range")
    return k, n


# ---------------------------------------------------------------------------
# Binomial proportions
# ---------------------------------------------------------------------------


def wilson_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes, trials : array_like of int
        Success and trial counts; broadcast against each other.
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    lo, hi : numpy.ndarray
        Interval bounds, NaN where ``trials == 0``. The lower bound is exactly 0 when
        ``successes == 0`` and the upper bound exactly 1 when ``successes == trials``
        (as in ``scipy.stats.binomtest(...).proportion_ci(method='wilson')``).
    """
    k, n = _counts(successes, trials)
    z = normal_quantile(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 2.0 * (n + z * z)
        center = (2.0 * k + z * z) / denom
        delta = z / denom * np.sqrt(4.0 * k * (n - k) / n + z * z)
        lo = np.where(k == 0, 0.0, center - delta)
        hi = np.where(k == n, 1.0, center + delta)
    empty = n == 0
    return np.where(empty, np.nan, np.clip(lo, 0.0, 1.0)), np.where(
        empty, np.nan, np.clip(hi, 0.0, 1.0)
    )


def clopper_pearson_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Exact (Clopper–Pearson) interval for a binomial proportion.

    Parameters
    ----------
    successes, trials : array_like of int
        Success and trial counts; broadcast against each other.
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    lo, hi : numpy.ndarray
        Beta-quantile bounds; ``lo`` is 0 when ``successes == 0``, ``hi`` is 1 when
        ``successes == trials``, both NaN where ``trials == 0``.

    Notes
    -----
    A count within `RARE_EVENT_THRESHOLD` of 0 or of ``trials`` (the only kind
    `rate_interval` asks for) is solved here from the binomial distribution function, a
    sum of at most that many terms (see `_rare_count_interval`); scipy.special, a third
    of a second to import, is used only for the other counts. At 10**8 trials the sum is
    the more precise of the two (scipy's inverse is off by up to a relative 1e-9 there).
    """
    k, n = _counts(successes, trials)
    _check_level(level)
    alpha = 1.0 - level
    lo, hi = np.zeros(k.shape), np.ones(k.shape)
    whole = (k == np.floor(k)) & (n == np.floor(n))  # counts; anything else goes to scipy
    rare = (np.minimum(k, n - k) < RARE_EVENT_THRESHOLD) & whole
    for i in np.flatnonzero(rare):
        lo.flat[i], hi.flat[i] = _rare_count_interval(int(k.flat[i]), int(n.flat[i]), alpha)
    if not rare.all():
        from scipy import special

        with np.errstate(divide="ignore", invalid="ignore"):
            lo = np.where(rare, lo, special.betaincinv(k, n - k + 1, alpha / 2))
            hi = np.where(rare, hi, special.betaincinv(k + 1, n - k, 1 - alpha / 2))
    empty = n == 0
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


@functools.lru_cache(maxsize=4096)
def _rare_count_interval(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Clopper–Pearson bounds for ``k`` of ``n`` when ``k`` or ``n - k`` is small.

    The lower bound is the ``p`` at which ``P(X >= k) = alpha / 2`` for ``X`` binomial
    ``(n, p)``, the upper one the ``p`` at which ``P(X <= k) = alpha / 2``; both are found
    by bisection on the distribution function, whose sum has ``k + 1`` terms. A count
    near ``n`` is mirrored to one near 0.

    Remembered: a time-to-down curve asks for the same count at every round after a
    combatant's last fall, and a summary asks for each curve twice (its medians and its
    band); the bisections were a quarter of writing a 3-against-3 fight's summary.
    """
    if n - k < k:
        lo, hi = _rare_count_interval(n - k, n, alpha)
        return 1.0 - hi, 1.0 - lo
    lo = 0.0 if k == 0 else _binomial_cdf_root(k - 1, n, 1.0 - alpha / 2)
    hi = 1.0 if k == n else _binomial_cdf_root(k, n, alpha / 2)
    return lo, hi


def _binomial_cdf_root(k: int, n: int, target: float) -> float:
    """The ``p`` at which ``P(X <= k) = target`` for ``X`` binomial ``(n, p)`` (bisection)."""
    low, high = 0.0, 1.0
    while True:
        p = 0.5 * (low + high)
        if p in (low, high):
            return p
        if _binomial_cdf(k, n, p) > target:  # the function falls as p grows
            low = p
        else:
            high = p


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """``P(X <= k)`` for ``X`` binomial ``(n, p)``, ``0 < p < 1``, summed term by term."""
    term = math.exp(n * math.log1p(-p))
    total = term
    odds = p / (1.0 - p)
    for j in range(k):
        term *= (n - j) / (j + 1) * odds
        total += term
    return total


def rate_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval for a rate, choosing the method element by element.

    Wilson is used normally; Clopper–Pearson is used for rare events, i.e. when the
    successes or the failures number fewer than `RARE_EVENT_THRESHOLD` (10).

    Parameters
    ----------
    successes, trials : array_like of int
        Success and trial counts; broadcast against each other.
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    lo, hi : numpy.ndarray
        Interval bounds (NaN where ``trials == 0``).
    kind : numpy.ndarray of str
        ``'wilson'`` or ``'clopper-pearson'`` for each element (``trials == 0`` counts
        as rare, hence ``'clopper-pearson'``).
    """
    k, n = _counts(successes, trials)
    rare = (k < RARE_EVENT_THRESHOLD) | (n - k < RARE_EVENT_THRESHOLD)
    w_lo, w_hi = wilson_interval(k, n, level)
    # Clopper–Pearson only where it is used: for a rare count it needs no scipy.
    c_lo, c_hi = np.full(k.shape, np.nan), np.full(k.shape, np.nan)
    if rare.any():
        c_lo[rare], c_hi[rare] = clopper_pearson_interval(k[rare], n[rare], level)
    kind = np.where(rare, "clopper-pearson", "wilson")
    return np.where(rare, c_lo, w_lo), np.where(rare, c_hi, w_hi), kind


def exact_rate_difference(
    k1: int, n1: int, k2: int, n2: int, level: float = 0.95
) -> tuple[float, float, float]:
    """Exact conditional test and interval of the difference ``k2/n2 − k1/n1`` of two rates.

    Made for rates of rare events, where no normal approximation holds. The test is
    run on the rarer of the two kinds, events or non-events (a rate near 1 is tested on
    its failures). Given the ``m`` of that kind in both samples, equal rates make the
    second sample's count ``c`` binomial ``(m, n2 / (n1 + n2))`` when the counts are
    Poisson (the limit of rare events; for binomial counts this is wider than Fisher's
    hypergeometric test, so conservative).

    Parameters
    ----------
    k1, n1 : int
        Events and trials of the first sample (``n1 > 0``).
    k2, n2 : int
        Events and trials of the second sample (``n2 > 0``).
    level : float, default 0.95
        Two-sided confidence level of the interval.

    Returns
    -------
    lo, hi, p : float
        The interval of the difference and the two-sided p-value (twice the smaller
        binomial tail of ``c``, at most 1). The interval maps the Clopper–Pearson
        interval ``[s_lo, s_hi]`` of the share ``c / m`` onto differences through
        ``m s / n2 − m (1 − s) / n1``, which is the observed difference at ``s = c / m``,
        0 at the null share and increasing in ``s``: the interval excludes 0 exactly
        when ``p < 1 − level``. With no event of the rarer kind at all, ``(0, 0, 1)``.
    """
    _check_level(level)
    if min(n1, n2) <= 0 or not (0 <= k1 <= n1 and 0 <= k2 <= n2):
        raise ValueError(f"expected 0 <= k <= n and n > 0; got {k1}/{n1} and {k2}/{n2}")
    flip = k1 + k2 > (n1 - k1) + (n2 - k2)
    if flip:
        k1, k2 = n1 - k1, n2 - k2
    m = k1 + k2
    if m == 0:
        return 0.0, 0.0, 1.0
    below, above = _binomial_tails(k2, m, n2 / (n1 + n2))
    p = min(1.0, 2.0 * min(below, above))
    s_lo, s_hi = (float(x) for x in clopper_pearson_interval(k2, m, level))
    lo, hi = (m * s / n2 - m * (1.0 - s) / n1 for s in (s_lo, s_hi))
    return (-hi, -lo, p) if flip else (lo, hi, p)


def binomial_two_sided_p(k: int, n: int, p: float) -> float:
    """Exact two-sided p-value of ``k`` events in ``n`` trials of rate ``p``: twice the
    smaller binomial tail, at most 1 (the doubling rule). For a rare event, whose count
    is far from normal: 1 crit in 15,000 attempts where 0.175 are expected reads as
    z = +1.97, p = 0.049 under the normal approximation; its exact p is 0.32.

    Parameters
    ----------
    k, n : int
        Events and trials, ``0 <= k <= n``, ``n > 0``.
    p : float
        The rate tested. At 0 or 1 an event count is certain: p-value 1 if ``k`` is that
        count, else 0.

    Returns
    -------
    float
    """
    if not 0 <= k <= n or n <= 0:
        raise ValueError(f"expected 0 <= k <= n and n > 0; got {k} of {n}")
    if p <= 0.0 or p >= 1.0:
        return 1.0 if k == (0 if p <= 0.0 else n) else 0.0
    below, above = _binomial_tails(k, n, p)
    return min(1.0, 2.0 * min(below, above))


#: Up to this many trials `_binomial_tails` sums the probabilities itself (no scipy).
_TAIL_SUM_MAX = 5000


def _binomial_tails(k: int, m: int, share: float) -> tuple[float, float]:
    """``P(X <= k)`` and ``P(X >= k)`` for ``X`` binomial ``(m, share)``, ``0 < share < 1``."""
    if m > _TAIL_SUM_MAX:
        from scipy import special

        above = 1.0 if k == 0 else float(special.bdtrc(k - 1, m, share))
        return float(special.bdtr(k, m, share)), above
    log_share, log_rest = math.log(share), math.log1p(-share)
    log_m = math.lgamma(m + 1)
    pmf = [math.exp(log_m - math.lgamma(j + 1) - math.lgamma(m - j + 1) + j * log_share
                    + (m - j) * log_rest) for j in range(m + 1)]  # fmt: skip
    return min(1.0, math.fsum(pmf[: k + 1])), min(1.0, math.fsum(pmf[k:]))


def two_proportion_z(
    k1: npt.ArrayLike, n1: npt.ArrayLike, k2: npt.ArrayLike, n2: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Pooled two-proportion z test, two-sided.

    Parameters
    ----------
    k1, n1 : array_like of int
        Successes and trials of the first sample.
    k2, n2 : array_like of int
        Successes and trials of the second sample.

    Returns
    -------
    z : numpy.ndarray
        ``(k1/n1 - k2/n2) / sqrt(p (1 - p) (1/n1 + 1/n2))`` with pooled
        ``p = (k1 + k2) / (n1 + n2)``. When the pooled proportion is 0 or 1 the two
        samples agree exactly and ``z`` is 0.
    p : numpy.ndarray
        Two-sided p-value ``2 * sf(|z|)``. NaN where either sample is empty.
    """
    a_k, a_n = _counts(k1, n1)
    b_k, b_n = _counts(k2, n2)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (a_k + b_k) / (a_n + b_n)
        se = np.sqrt(pooled * (1.0 - pooled) * (1.0 / a_n + 1.0 / b_n))
        diff = a_k / a_n - b_k / b_n
        z = np.where(se > 0, diff / se, 0.0)
    z = np.where((a_n == 0) | (b_n == 0), np.nan, z)
    from scipy import special

    return z, 2.0 * special.ndtr(-np.abs(z))


#: Relative size of a difference that is only floating-point rounding: a figure summed
#: from a distribution, or a mean divided out, can sit an ulp or two from the same number,
#: and a certain figure's standard error is then such a rounding too (5e-15 for a damage
#: of 999 on every hit), not a spread.
ROUNDING = 1e-12


def z_test(diff: float, se: float, size: float) -> tuple[float, float, float]:
    """A difference in standard errors, two-sided, knowing float rounding.

    Parameters
    ----------
    diff : float
        The difference tested (simulated − exact, current − baseline).
    se : float
        Its standard error.
    size : float
        The figure's size: a difference or an error within :data:`ROUNDING` of
        ``max(1, |size|)`` is rounding.

    Returns
    -------
    z, p, se : float
        ``diff / se`` and its two-sided normal p-value; ``se`` as used, 0 when it was
        only rounding. A difference within rounding is none (z 0); any larger difference
        of a certain figure (se 0) is infinitely unlikely (z ±inf).
    """
    scale = ROUNDING * max(1.0, abs(size))
    se = se if se > scale else 0.0
    if abs(diff) <= scale:
        z = 0.0
    elif se > 0:
        z = diff / se
    else:
        z = math.copysign(math.inf, diff)
    return z, math.erfc(abs(z) / math.sqrt(2.0)), se


def holm_adjust(pvalues: npt.ArrayLike) -> np.ndarray:
    """Holm step-down adjustment of p-values (family-wise error control).

    Parameters
    ----------
    pvalues : array_like of float
        Raw p-values, one-dimensional. NaNs are left as NaN and do not count
        towards the family size.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order: with the m valid p-values sorted
        ascending, ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"expected a one-dimensional array of p-values; got shape {p.shape}")
    out = np.full_like(p, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


# ---------------------------------------------------------------------------
# Means from batch sums and histograms
# ---------------------------------------------------------------------------


def ratio_batch_means_many(
    sums: npt.ArrayLike, counts: npt.ArrayLike, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batch-means ratio estimate of several per-unit means at once.

    Row ``p`` describes one quantity (e.g. damage per attack): ``sums[p, b]`` is its
    total over batch ``b`` (a contiguous range of encounters) and ``counts[p, b]``
    the number of units (attacks) in that batch. The mean is ``Σ sums / Σ counts``.
    Batches whose count is 0 are left out. With ``B`` remaining batches, residuals
    ``r_b = sums_b − mean · counts_b`` and total count ``C``, the standard error is
    ``sqrt(B / (B − 1) · Σ r_b²) / C`` and the interval uses a Student t quantile
    with ``B − 1`` degrees of freedom. Because each batch is summarised as a whole,
    correlation between units of one batch is accounted for.

    Parameters
    ----------
    sums : array_like of float, shape (P, B)
        Per-batch totals.
    counts : array_like of int, shape (P, B)
        Per-batch unit counts (non-negative).
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    mean, lo, hi : numpy.ndarray, shape (P,)
        Point estimates and interval bounds. ``mean`` is NaN when a row has no units;
        ``lo`` and ``hi`` are NaN when fewer than 2 batches have units.
    """
    _check_level(level)
    s, c = _batch_arrays(sums, counts)
    used = c > 0
    n_used = used.sum(axis=1)
    total_c = c.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(total_c > 0, s.sum(axis=1) / total_c, np.nan)
        resid = np.where(used, s - mean[:, None] * c, 0.0)
        se = np.sqrt(n_used / (n_used - 1.0) * np.sum(resid**2, axis=1)) / total_c
    ok = n_used >= 2
    dfs = np.where(ok, n_used - 1, 1)
    quantile_of = {df: t_quantile(int(df), level) for df in np.unique(dfs)}
    tq = np.array([quantile_of[df] for df in dfs])
    half = np.where(ok, tq * se, np.nan)
    return mean, mean - half, mean + half


def _batch_arrays(sums: npt.ArrayLike, counts: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate and return batch sums/counts as float arrays of shape (P, B)."""
    s = np.asarray(sums, dtype=float)
    c = np.asarray(counts, dtype=float)
    if s.shape != c.shape or s.ndim != 2:
        raise ValueError(
            f"expected sums and counts of the same shape (P, B); got {s.shape} and {c.shape}"
        )
    if np.any(c < 0):
        raise ValueError("expected non-negative batch counts; got a negative count")
    return s, c


def ratio_batch_means(
    sums: npt.ArrayLike, counts: npt.ArrayLike, level: float = 0.95
) -> tuple[float, float, float]:
    """Batch-means ratio estimate of one per-unit mean with its interval.

    See `ratio_batch_means_many` for the method; this is the single-quantity form.

    Parameters
    ----------
    sums : array_like of float, shape (B,)
        Per-batch totals of the quantity (e.g. damage).
    counts : array_like of int, shape (B,)
        Per-batch number of units (e.g. attacks); batches with 0 are ignored.
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    mean, lo, hi : float
        ``Σ sums / Σ counts`` and the t-based interval (NaN bounds when fewer than
        2 batches have units; NaN mean when there are no units at all).
    """
    s = np.asarray(sums, dtype=float)
    c = np.asarray(counts, dtype=float)
    if s.ndim != 1 or c.ndim != 1:
        raise ValueError(f"expected one-dimensional sums and counts; got {s.shape}, {c.shape}")
    mean, lo, hi = ratio_batch_means_many(s[None, :], c[None, :], level)
    return float(mean[0]), float(lo[0]), float(hi[0])


def histogram_mean_var(hist: npt.ArrayLike, offset: int = 0) -> tuple[float, float]:
    """Mean and variance of the values tallied in an integer histogram.

    Parameters
    ----------
    hist : array_like of int, shape (K,)
        ``hist[i]`` is how many times the value ``i + offset`` occurred.
    offset : int, default 0
        Value represented by bin 0.

    Returns
    -------
    mean, var : float
        Mean and population variance (divisor ``Σ hist``) of the tallied values;
        both NaN for an empty histogram.
    """
    h = np.asarray(hist, dtype=float)
    if h.ndim != 1 or np.any(h < 0):
        raise ValueError("expected a one-dimensional histogram of non-negative counts")
    total = h.sum()
    if total == 0:
        return float("nan"), float("nan")
    idx = np.arange(h.size, dtype=float)
    m = float(np.dot(h, idx) / total)
    var = float(np.dot(h, (idx - m) ** 2) / total)
    return m + offset, var


# ---------------------------------------------------------------------------
# Time-to-down: cumulative incidence over all encounters
# ---------------------------------------------------------------------------


def cumulative_incidence(
    first_round: npt.ArrayLike, encounters: int, level: float = 0.95
) -> pd.DataFrame:
    """P(the event happened by round r) over all encounters, with a pointwise interval.

    In a fight, "never downed" is an outcome of its own (the other side went down
    first), not an unfinished observation: the only censoring is the round cap, and
    nothing is known past it. So the share of *all* encounters in which the event first
    happened in rounds 1..r is an unbiased estimate of P(by round r) for every r up to
    the cap (README, "Scenarios" and "Output files": time-to-down). Each round's count is a binomial
    count out of ``encounters``; its interval is :func:`rate_interval`'s (Wilson, or
    Clopper–Pearson when fewer than 10 encounters are on either side), pointwise: each
    round's interval covers that round's probability with the given ``level``, not the
    whole curve at once.

    Parameters
    ----------
    first_round : array_like of int, shape (R + 1,)
        ``first_round[r]`` encounters in which the event first happened in round r
        (index 0 is counted but not reported).
    encounters : int
        All encounters of the run.
    level : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per round 1..R: ``round``, ``events`` (first happened in that round),
        ``by_round`` (P(by round r)), ``by_round_lo``, ``by_round_hi``, ``ci_kind``;
        ``attrs`` holds ``{'interval': 'wilson-pointwise', 'level': level}``.
    """
    counts = np.asarray(first_round, dtype=np.int64)
    if counts.ndim != 1 or np.any(counts < 0):
        raise ValueError("expected a one-dimensional array of non-negative counts per round")
    if counts.sum() > encounters:
        raise ValueError(f"expected at most {encounters} events; got {int(counts.sum())}")
    upto = np.cumsum(counts)[1:]
    lo, hi, kind = rate_interval(upto, encounters, level)
    df = pd.DataFrame(
        {
            "round": np.arange(1, counts.size),
            "events": counts[1:],
            "by_round": upto / encounters if encounters else np.full(upto.size, np.nan),
            "by_round_lo": lo,
            "by_round_hi": hi,
            "ci_kind": kind,
        }
    )
    df.attrs = {"interval": "wilson-pointwise", "level": level}
    return df


def first_round_reaching(rounds: npt.ArrayLike, curve: npt.ArrayLike,
                         share: float = 0.5) -> float | None:  # fmt: skip
    """The first round whose cumulative probability reaches ``share``; None if none does.

    Applied to :func:`cumulative_incidence`'s ``by_round`` this is the median
    time-to-down over all encounters (None when fewer than half went down by the cap);
    applied to its band's ``by_round_hi`` and ``by_round_lo`` it gives the lower and
    upper end of that median's interval.

    Parameters
    ----------
    rounds, curve : array_like, shape (R,)
        Rounds in ascending order and a non-decreasing cumulative probability.
    share : float, default 0.5
        The level to reach (a 1e-12 slack absorbs rounding in the division).
    """
    hit = np.asarray(curve, dtype=float) >= share - _MEDIAN_TOL
    if not hit.any():
        return None
    return float(np.asarray(rounds)[np.argmax(hit)])


def histogram_median(hist: npt.ArrayLike) -> float | None:
    """Smallest value whose cumulative share of an integer histogram reaches one half.

    ``hist[i]`` counts the value i; None for an empty histogram. For the rounds of first
    down it is the median time-to-down among the encounters in which it happened.
    """
    h = np.asarray(hist, dtype=float)
    total = h.sum()
    if total == 0:
        return None
    return float(np.searchsorted(np.cumsum(h), total / 2))
