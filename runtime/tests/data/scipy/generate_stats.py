"""Writes SciPy's values of the statistics read by runtime/tests/scipy_stats.rs
(run once; stats.npz is committed). SciPy 1.17, NumPy 2.4:

/work/lead/sci/bin/python runtime/tests/data/scipy/generate_stats.py

Distributions: for each case NAME (its parameters in NAME.params, in the
order the test's constructor takes them), NAME.x with pdf/logpdf (pmf/logpmf),
cdf/logcdf, sf/logsf at it, NAME.q with ppf and isf at it, and NAME.moments
(mean, variance). Functions: their inputs and SciPy's results under the
function's name.

A continuous quantile that SciPy's own cdf/sf contradicts is replaced by
the root of that cdf/sf (see `checked_quantiles`): SciPy's root finders
give up in the far tails (boost's ibeta_inv stops with a warning at
beta(2, 3.5).ppf(1e-300), returning 1.9e-50 where cdf(1.9e-50) = 3e-99;
t(0.7).ppf(1e-300) is -5.6e153 where the true quantile, about -7e427, is
beyond float64), and the test holds this crate to the true values.
"""
import os

import numpy as np
import scipy
import scipy.stats as st
from scipy.special import gammaln

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(3434)

X = np.array([np.nan, -np.inf, np.inf, -10.0, -2.0, -1.0, -0.5, 0.0, 1e-10, 0.1, 0.5, 0.9, 1.0,
              1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 1e3])
Q = np.array([np.nan, -0.1, 0.0, 1e-300, 1e-20, 1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99,
              1 - 1e-10, 1.0, 1.1])
K = np.array([np.nan, -1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 5.0, 10.0, 20.0, 21.0, 30.0, 100.0, np.inf])

# name: (scipy distribution, shape parameters, loc, scale); the test builds
# the same from NAME.params = shapes + [loc, scale].
CONTINUOUS = {
    "norm": (st.norm, [], 1.0, 2.0),
    "t": (st.t, [3.5], 0.5, 1.5),
    "t_small_df": (st.t, [0.7], 0.0, 1.0),
    "chi2": (st.chi2, [4.5], 0.0, 1.0),
    "chi2_small_df": (st.chi2, [0.6], 0.0, 1.0),
    "f": (st.f, [3.0, 7.5], 0.0, 1.0),
    "gamma": (st.gamma, [0.5], 0.0, 2.0),
    "gamma_large": (st.gamma, [30.0], 0.0, 1.0),
    "beta": (st.beta, [2.0, 3.5], 0.0, 1.0),
    "beta_u": (st.beta, [0.5, 0.5], 0.0, 1.0),
    "expon": (st.expon, [], -1.0, 3.0),
    "uniform": (st.uniform, [], -2.0, 5.0),
    "lognorm": (st.lognorm, [0.7], 0.0, 2.0),
    "cauchy": (st.cauchy, [], 1.0, 0.5),
    "laplace": (st.laplace, [], 0.0, 2.0),
    "logistic": (st.logistic, [], 1.0, 0.3),
}
# name: (scipy distribution, shape parameters, loc).
DISCRETE = {
    "poisson": (st.poisson, [4.5], 0.0),
    "poisson_small": (st.poisson, [0.3], 0.0),
    "binom": (st.binom, [20.0, 0.3], 0.0),
    "nbinom": (st.nbinom, [3.5, 0.4], 0.0),
    "geom": (st.geom, [0.25], 0.0),
}


def ordered(x):
    """The float64 `x` as an integer that orders like it (for bisection)."""
    i = int(np.float64(x).view(np.int64))
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def unordered(i):
    """The inverse of `ordered`."""
    bits = i if i >= 0 else (-i) | -0x8000000000000000
    return float(np.int64(bits).view(np.float64))


def first_true(pred):
    """The least float64 (from -inf to inf) where the monotone `pred` holds."""
    lo, hi = ordered(-np.inf), ordered(np.inf)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(unordered(mid)):
            hi = mid
        else:
            lo = mid
    return unordered(hi)


def tail_of(f, q, upper):
    """The function of x that is q's tail (the cdf or the sf, whichever is
    at most 1/2 there), its target value, and whether it increases with x:
    the quantile at q solves tail(x) = target (1 - q is exact for q >= 1/2)."""
    if (q <= 0.5) != upper:
        return f.cdf, (q if not upper else 1.0 - q), True
    return f.sf, (q if upper else 1.0 - q), False


def root_quantile(f, q, upper):
    """The quantile at q by bisection over float64 on q's tail (so both
    tails keep their digits)."""
    tail, target, rising = tail_of(f, q, upper)
    if rising:
        return first_true(lambda x: tail(x) >= target)
    return first_true(lambda x: tail(x) <= target)


def t_tail_beyond_float64(df, q):
    """Whether t(df)'s tail beyond the largest float64 still holds more than
    q: then the quantile at q is +-inf in float64. The tail is
    c df^((df+1)/2) x^-df / df far out (c the density's constant); SciPy's
    cdf squares x and breaks past 1.3e154, so it cannot be bisected there."""
    log_c = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * np.log(df * np.pi)
    log_tail = log_c + (df + 1) / 2 * np.log(df) - np.log(df) - df * np.log(np.finfo(float).max)
    return log_tail > np.log(q)


# Points whose quantile is beyond float64, checked by the tail's power law.
BEYOND_FLOAT64 = {("t_small_df", 1e-300): lambda: t_tail_beyond_float64(0.7, 1e-300)}


def checked_quantiles(name, f, method, upper):
    """SciPy's `method` (ppf or isf) at Q, with each point inside (0, 1)
    where SciPy's cdf/sf contradicts it (not within 1e-6 of q on q's tail,
    nor SciPy's value within 2 float64 steps of the root) replaced by the
    root of the cdf/sf."""
    got = getattr(f, method)(Q)
    for i, q in enumerate(Q):
        if not 0.0 < q < 1.0:
            continue
        if (name, q) in BEYOND_FLOAT64:
            assert BEYOND_FLOAT64[(name, q)]()
            sign = -1.0 if (q < 0.5) != upper else 1.0
            print(f"{name}.{method}({q:g}): SciPy {got[i]:.17g}, beyond float64")
            got[i] = sign * np.inf
            continue
        tail, target, _ = tail_of(f, q, upper)
        if np.isfinite(got[i]) and abs(tail(got[i]) - target) <= 1e-6 * target:
            continue
        root = root_quantile(f, q, upper)
        if np.isfinite(got[i]) and abs(ordered(got[i]) - ordered(root)) <= 2:
            continue  # the root is between two float64s, SciPy's one of them
        print(f"{name}.{method}({q:g}): SciPy {got[i]:.17g}, root of its cdf {root:.17g}")
        got[i] = root
    return got


def discrete_quantiles(name, f, method, upper):
    """SciPy's `method` at Q for a discrete distribution, with each point
    inside (0, 1) where it differs from the least integer k whose tail
    passes q (cdf(k) >= q for ppf, sf(k) <= q for isf, on q's tail) replaced
    by that k: SciPy's isf gives NaN or inf far in the upper tail."""
    got = getattr(f, method)(Q)
    for i, q in enumerate(Q):
        if not 0.0 < q < 1.0:
            continue
        tail, target, rising = tail_of(f, q, upper)
        passes = (lambda k: tail(k) >= target) if rising else (lambda k: tail(k) <= target)
        lo, hi = -1, 1  # relative to loc; the support starts at loc or loc + 1
        while not passes(f.kwds.get("loc", 0.0) + hi):
            hi *= 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if passes(f.kwds.get("loc", 0.0) + mid) else (mid, hi)
        root = f.kwds.get("loc", 0.0) + hi
        if got[i] != root:
            print(f"{name}.{method}({q:g}): SciPy {got[i]:.17g}, least k passing {root}")
            got[i] = root
    return got


def distributions(out):
    for name, (d, shapes, loc, scale) in CONTINUOUS.items():
        f = d(*shapes, loc=loc, scale=scale)
        out[f"{name}.params"] = np.array(shapes + [loc, scale])
        out[f"{name}.x"] = X
        for m in ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"]:
            out[f"{name}.{m}"] = getattr(f, m)(X)
        out[f"{name}.q"] = Q
        out[f"{name}.ppf"] = checked_quantiles(name, f, "ppf", False)
        out[f"{name}.isf"] = checked_quantiles(name, f, "isf", True)
        out[f"{name}.moments"] = np.array([f.mean(), f.var()])
    for name, (d, shapes, loc) in DISCRETE.items():
        f = d(*shapes, loc=loc)
        out[f"{name}.params"] = np.array(shapes + [loc])
        out[f"{name}.x"] = K
        for m in ["pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"]:
            out[f"{name}.{m}"] = getattr(f, m)(K)
        out[f"{name}.q"] = Q
        out[f"{name}.ppf"] = discrete_quantiles(name, f, "ppf", False)
        out[f"{name}.isf"] = discrete_quantiles(name, f, "isf", True)
        out[f"{name}.moments"] = np.array([f.mean(), f.var()])


def functions(out):
    a = RNG.normal(size=(5, 40)) * np.array([[1.0], [2.0], [0.5], [3.0], [1.0]])
    a[4] = RNG.exponential(size=40)
    out["data"] = a
    d = st.describe(a, axis=1)
    out["describe.minmax"] = np.stack(d.minmax)
    out["describe.mean"], out["describe.variance"] = d.mean, d.variance
    out["describe.skewness"], out["describe.kurtosis"] = d.skewness, d.kurtosis
    out["skew.unbiased"] = st.skew(a, axis=1, bias=False)
    out["kurtosis.pearson_unbiased"] = st.kurtosis(a, axis=1, fisher=False, bias=False)
    out["zscore"] = st.zscore(a, axis=1, ddof=1)
    out["sem"] = st.sem(a, axis=1)
    out["iqr"] = st.iqr(a, axis=1)
    out["iqr.all"] = np.array(st.iqr(a, axis=None))
    p = np.abs(a[:, :10]) + 0.1
    out["entropy.pk"] = p
    out["entropy"] = st.entropy(p, axis=1)
    out["entropy.base2_qk"] = st.entropy(p[:, :5], p[:, 5:], base=2, axis=1)

    ties = RNG.integers(0, 6, size=(3, 25)).astype(np.float64)
    ties[2, 3] = np.nan
    out["ties"] = ties
    for m in ["average", "min", "max", "dense", "ordinal"]:
        out[f"rankdata.{m}"] = st.rankdata(ties, method=m, axis=1).astype(np.float64)
    out["rankdata.axis0"] = st.rankdata(ties[:2], axis=0)
    out["rankdata.none"] = st.rankdata(ties[:2], axis=None)
    mo = st.mode(ties[:2], axis=1)
    out["mode.mode"], out["mode.count"] = mo.mode, mo.count.astype(np.float64)

    x = RNG.normal(size=30)
    y = 0.6 * x + RNG.normal(size=30)
    xt, yt = np.round(x * 2) / 2, np.round(y * 2) / 2
    out["pair.x"], out["pair.y"], out["pair.xt"], out["pair.yt"] = x, y, xt, yt
    for alt in ["two-sided", "less", "greater"]:
        r = st.pearsonr(x, y, alternative=alt)
        out[f"pearsonr.{alt}"] = np.array([r.statistic, r.pvalue])
        r = st.spearmanr(xt, yt, alternative=alt)
        out[f"spearmanr.{alt}"] = np.array([r.statistic, r.pvalue])
        r = st.kendalltau(xt, yt, alternative=alt, method="asymptotic")
        out[f"kendalltau.{alt}"] = np.array([r.statistic, r.pvalue])
        r = st.ttest_1samp(a, 0.2, axis=1, alternative=alt)
        out[f"ttest_1samp.{alt}"] = np.stack([r.statistic, r.pvalue])
        r = st.ttest_ind(a[:, :15], a[:, 15:] + 0.3, axis=1, alternative=alt)
        out[f"ttest_ind.{alt}"] = np.stack([r.statistic, r.pvalue])
        r = st.ttest_ind(a[:, :15], a[:, 15:] + 0.3, axis=1, equal_var=False, alternative=alt)
        out[f"ttest_welch.{alt}"] = np.stack([r.statistic, r.pvalue])
    r = st.linregress(x, y)
    out["linregress"] = np.array([r.slope, r.intercept, r.rvalue, r.pvalue, r.stderr,
                                  r.intercept_stderr])

    k1 = RNG.normal(size=50)
    k2 = RNG.normal(size=(2, 60))
    k2[1] += 0.5 * k2[0]
    e1 = np.linspace(-4, 4, 33)
    e2 = RNG.normal(size=(2, 20))
    out["kde.data1"], out["kde.data2"], out["kde.points1"], out["kde.points2"] = k1, k2, e1, e2
    out["kde.scott1"] = st.gaussian_kde(k1)(e1)
    out["kde.silverman1"] = st.gaussian_kde(k1, bw_method="silverman")(e1)
    out["kde.factor1"] = st.gaussian_kde(k1, bw_method=0.3)(e1)
    out["kde.scott2"] = st.gaussian_kde(k2)(e2)


def main():
    out = {}
    with np.errstate(all="ignore"):
        distributions(out)
        functions(out)
    for k, v in out.items():
        out[k] = np.asarray(v, dtype=np.float64)
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}: {len(out)} arrays")
    np.savez_compressed(os.path.join(HERE, "stats.npz"), **out)


if __name__ == "__main__":
    main()
