"""Writes SciPy's values of the special functions read by runtime/tests/api/special.rs
(run once; special.npz is committed). SciPy 1.17, NumPy 2.4:

/work/lead/sci/bin/python runtime/tests/data/scipy/generate_special.py

For each function NAME the archive has NAME.x (and NAME.y, NAME.z for two
and three arguments), float64 inputs; NAME.f64, SciPy's float64 values; and NAME.f32,
SciPy's values of its float32 loop on the inputs rounded to float32.
"""
import os

import numpy as np
import scipy
import scipy.special as sc

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(34)

EDGES = [np.nan, -np.inf, np.inf, 0.0, -0.0]
# Real arguments across the range: edges, small and large magnitudes,
# integers (poles of gamma), half-integers, and random values of both signs.
REALS = EDGES + [1e-300, -1e-300, 1e-20, -1e-20, 1e-8, -1e-8, 0.1, -0.1, 0.5, -0.5, 1.0, -1.0,
                 1.5, -1.5, 2.0, -2.0, 2.5, -2.5, 3.0, -3.0, 5.0, -5.0, 7.3, -7.3, 10.0, -10.0,
                 20.0, -20.0, 26.0, -26.0, 27.5, -27.5, 30.0, -30.0, 50.0, -50.5, 100.0, -100.5,
                 171.0, 171.7, 200.0, 700.0, 710.0, 1000.0, 1e10, -1e10, 1e300, -1e300]
REALS += list(np.round(RNG.uniform(-12, 12, 40), 6))
REALS += list(10.0 ** RNG.uniform(-6, 3, 20)) + list(-(10.0 ** RNG.uniform(-6, 3, 10)))
# Arguments of the functions of probabilities ([0, 1], [-1, 1], [0, 2]).
PROBS = EDGES + [5e-324, 1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.01, 0.1, 0.25, 0.3, 0.45, 0.5,
                 0.55, 0.65, 0.7, 0.9, 0.99, 1 - 1e-10, 1 - 1e-16, 1.0, 1.5, 2.0, -0.5, 3.0]
PROBS += list(RNG.uniform(0, 1, 20))
SIGNED_PROBS = PROBS + [-p for p in PROBS if p == p and 0 < p <= 1] + [-1.0, -1.5]
SIGNED_PROBS += list(RNG.uniform(-1, 1, 20))
CPROBS = PROBS + [1.9, 1.99, 2 - 1e-10, 1 + 1e-10] + list(RNG.uniform(0, 2, 20))

UNARY = {
    "erf": REALS, "erfc": REALS, "erfcx": REALS, "erfinv": SIGNED_PROBS, "erfcinv": CPROBS,
    "ndtr": REALS + [-37.5, -38.5, -40.0, 8.0, 8.5], "ndtri": PROBS,
    "log_ndtr": REALS + [-37.5, -38.5, -40.0, 8.0, 8.5, -1e5],
    "gamma": REALS, "gammaln": REALS, "loggamma": REALS, "digamma": REALS + [1.4616321449683623, 1e17, 1e18],
    "expit": REALS, "logit": PROBS, "log_expit": REALS, "entr": REALS,
    "i0": REALS, "i0e": REALS, "i1": REALS, "i1e": REALS,
    "k0": REALS, "k0e": REALS, "k1": REALS, "k1e": REALS,
    "j0": REALS, "j1": REALS, "y0": REALS, "y1": REALS,
}

PAIR_A = EDGES[:3] + [0.0, -0.0, 1e-300, 1e-10, 0.3, 0.5, 1.0, 1.5, 2.0, 3.5, 10.0, 55.5, 171.5,
                      300.0, 1e7, 1e12, -0.5, -1.0, -2.0, -2.5, -3.0, -7.5]
PAIR_B = PAIR_A


def pairs(a, b, extra=0, lo=-5.0, hi=30.0):
    x, y = np.meshgrid(np.array(a), np.array(b), indexing="ij")
    x, y = list(x.ravel()), list(y.ravel())
    x += list(RNG.uniform(lo, hi, extra))
    y += list(RNG.uniform(lo, hi, extra))
    return x, y


# Shape parameters and limits of the incomplete gamma functions, and points
# where x is near a (Temme's expansion) across its region's borders.
IGAM_A = [np.nan, np.inf, -1.0, 0.0, 1e-10, 0.1, 0.5, 1.0, 2.0, 5.5, 19.0, 21.0, 50.0, 150.0,
          199.0, 250.0, 1000.0, 1e5, 1e10]
IGAM_X = [np.nan, np.inf, -1.0, 0.0, 1e-300, 1e-10, 0.3, 0.5, 0.8, 1.0, 1.1, 2.0, 5.0, 20.0,
          50.0, 200.0, 1000.0, 1e6]
IGAM_NEAR = ([a for a in [25.0, 100.0, 300.0, 5000.0, 1e6] for _ in range(5)],
             [a * f for a in [25.0, 100.0, 300.0, 5000.0, 1e6]
              for f in [0.5, 0.9, 1.0, 1.02, 1.3]])


def igam_points():
    x, y = pairs(IGAM_A, IGAM_X, 60, 0, 60)
    return x + IGAM_NEAR[0], y + IGAM_NEAR[1]


ZETA_X = [np.nan, np.inf, 0.5, 1.0, 1.0001, 1.5, 2.0, 3.0, 4.5, 10.0, 50.0, 200.0]
ZETA_Q = [np.nan, np.inf, -np.inf, -2.5, -2.0, -1.5, -0.5, 0.0, 1e-5, 0.5, 1.0, 2.0, 9.5, 1e3,
          1e9]
POLYGAMMA_N = [np.nan, 0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 1.5, -1.0]
POLYGAMMA_X = [np.nan, np.inf, -np.inf, -2.5, -2.0, -0.5, 0.0, 1e-8, 0.3, 1.0, 2.5, 7.0, 30.0,
               1e3, 1e8]

BINOM_N = [np.nan, np.inf, -np.inf, -3.0, -2.5, -0.5, 0.0, 1e-9, 0.5, 1.0, 5.0, 7.5, 20.0, 50.0,
           1e3, 1e12]
BINOM_K = [np.nan, np.inf, -np.inf, -3.0, -1.0, -0.5, 0.0, 1.0, 2.0, 2.5, 3.0, 10.0, 19.0, 25.0,
           1e9, 1e10 + 0.5]
HUBER_D = [np.nan, np.inf, -1.0, 0.0, 0.5, 1.0, 3.0]
HUBER_R = [np.nan, np.inf, -np.inf, -5.0, -1.0, -0.25, 0.0, 1e-10, 0.5, 1.0, 2.0, 1e10]

# The inverses of the incomplete gamma and beta functions: shapes from 1e-3
# to 1e5, probabilities from the smallest to 1 - 1e-16, and the edges.
# (SciPy's values at a = 0 and p < 0 are left out: 0 at some p, NaN at others.)
INV_A = [np.nan, np.inf, -1.0, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.5, 21.0, 50.0, 150.0, 250.0,
         1e3, 1e5]
INV_P = [np.nan, 0.0, 1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.01, 0.1, 0.3, 0.5, 0.7,
         0.9, 0.99, 1 - 1e-10, 1 - 1e-16, 1.0, 1.5]
INV_AB = [1e-2, 0.1, 0.5, 1.0, 2.0, 5.5, 20.0, 100.0, 1e3]
# (SciPy's betaincinv gives NaN at y = 1e-300 for many shapes: left out.)
INV_Y = [1e-20, 1e-5, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-10]


BINARY = {
    "binom": pairs(BINOM_N, BINOM_K, 40, -5, 30),
    "huber": pairs(HUBER_D, HUBER_R, 20, -2, 5),
    "pseudo_huber": pairs(HUBER_D, HUBER_R, 20, -2, 5),
    "zeta": pairs(ZETA_X, ZETA_Q, 40, -3, 20),
    "polygamma": pairs(POLYGAMMA_N, POLYGAMMA_X),
    "gammainc": igam_points(),
    "gammaincc": igam_points(),
    "beta": pairs(PAIR_A, PAIR_B, 40),
    "betaln": pairs(PAIR_A, PAIR_B, 40),
    "xlogy": pairs(REALS[:30], [np.nan, -1.0, 0.0, 1e-300, 0.5, 1.0, 2.0, np.inf], 20),
    "xlog1py": pairs(REALS[:30], [np.nan, -2.0, -1.0, -0.5, 0.0, 1e-20, 0.5, 1.0, np.inf], 20),
    "rel_entr": pairs(PAIR_A, PAIR_B, 40, 0, 10),
    "kl_div": pairs(PAIR_A, PAIR_B, 40, 0, 10),
    "gammaincinv": pairs(INV_A, INV_P),
    "gammainccinv": pairs(INV_A, INV_P),
}


# betainc(a, b, x): shapes from 1e-3 to 1e4 (SciPy 1.17 uses Boost's ibeta,
# this crate Cephes' incbet, which loses accuracy for smaller or larger
# shapes), the edges, and random points.
BETA_AB = [1e-3, 0.1, 0.5, 1.0, 2.0, 5.5, 20.0, 100.0, 1e3, 1e4]
BETA_X = [1e-300, 1e-10, 0.01, 0.3, 0.5, 0.7, 0.95, 0.999, 1 - 1e-12]
BETA_EDGES = [np.nan, np.inf, -1.0, 0.0, 1.0]
BETA_EDGE_X = [np.nan, -0.1, 0.0, 0.3, 1.0, 1.1]


def betainc_points():
    a, b, x = (list(v.ravel()) for v in np.meshgrid(BETA_AB, BETA_AB, BETA_X, indexing="ij"))
    ea, eb, ex = (list(v.ravel()) for v in np.meshgrid(BETA_EDGES, BETA_EDGES, BETA_EDGE_X, indexing="ij"))
    n = 200
    ra = list(10.0 ** RNG.uniform(-3, 4, n))
    rb = list(10.0 ** RNG.uniform(-3, 4, n))
    rx = list(RNG.uniform(0, 1, n))
    return a + ea + ra, b + eb + rb, x + ex + rx


def betaincinv_points():
    a, b, y = (list(v.ravel()) for v in np.meshgrid(INV_AB, INV_AB, INV_Y, indexing="ij"))
    ea, eb, ey = (list(v.ravel()) for v in np.meshgrid(BETA_EDGES, BETA_EDGES, BETA_EDGE_X, indexing="ij"))
    return a + ea, b + eb, y + ey


TERNARY = {"betainc": betainc_points(), "betaincinv": betaincinv_points()}


# The inverses compute in float64 and round once, as this crate's float32
# loops do: their reference is the float64 value at the float32 inputs.
F32_FROM_F64 = {"gammaincinv", "gammainccinv"}


def main():
    out = {}
    with np.errstate(all="ignore"):
        for name, xs in UNARY.items():
            f = getattr(sc, name)
            x = np.array(xs, dtype=np.float64)
            out[f"{name}.x"] = x
            out[f"{name}.f64"] = f(x)
            out[f"{name}.f32"] = f(x.astype(np.float32)).astype(np.float32)
        for name, (xs, ys) in BINARY.items():
            f = getattr(sc, name)
            x, y = np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)
            out[f"{name}.x"], out[f"{name}.y"] = x, y
            out[f"{name}.f64"] = f(x, y)
            if name in F32_FROM_F64:
                out[f"{name}.f32"] = f(*(v.astype(np.float32).astype(np.float64) for v in (x, y))).astype(np.float32)
            else:
                out[f"{name}.f32"] = f(x.astype(np.float32), y.astype(np.float32)).astype(np.float32)
        for name, (xs, ys, zs) in TERNARY.items():
            f = getattr(sc, name)
            x, y, z = (np.array(v, dtype=np.float64) for v in (xs, ys, zs))
            out[f"{name}.x"], out[f"{name}.y"], out[f"{name}.z"] = x, y, z
            out[f"{name}.f64"] = f(x, y, z)
            # SciPy's float32 loop of betainc computes in float32 (Boost's
            # ibeta<float>, 1e-5 off for tiny shapes); the reference is its
            # float64 value at the float32 inputs, rounded.
            f32 = [v.astype(np.float32).astype(np.float64) for v in (x, y, z)]
            out[f"{name}.f32"] = f(*f32).astype(np.float32)
    for k, v in out.items():
        assert v.dtype in (np.float64, np.float32), k
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}: {len(out)} arrays")
    np.savez_compressed(os.path.join(HERE, "special.npz"), **out)


if __name__ == "__main__":
    main()
