"""Writes SciPy's values of the Bessel functions of real order (jv, yv, iv,
ive, kv, kve) read by runtime/tests/api/special_bessel_order.rs (run once;
bessel_order.npz is committed). SciPy 1.17, NumPy 2.4:

/work/lead/sci/bin/python runtime/tests/data/scipy/generate_bessel_order.py

The grid is v in [-20, 50] (integers, half-integers and random orders) by
x in (0, 200], plus x = 0 for v >= 0 and x < 0 for integer v. For each NAME
the archive has NAME.v, NAME.x, NAME.f64 (SciPy's values) and NAME.scale:
the size the error is measured against. That is |f| where the function
has no zeros nearby; where J and Y oscillate (x >= |v|) it is the envelope
sqrt(J_|v|^2 + Y_|v|^2), and for negative orders the size of the
reflection formula's terms (|cos(pi v) J_|v|| + |sin(pi v) Y_|v||, and
|I_|v|| + |2/pi sin(pi v) K_|v||): only an absolute error scaled so is
meaningful near a zero.
"""
import os

import numpy as np
import scipy
import scipy.special as sc

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(3434)

ORDERS = np.concatenate([np.arange(-20.0, 50.5, 2.5), [-0.5, 0.0, 0.5, 1.0, 1.5, -1.0, -1.5],
                         np.round(RNG.uniform(-20, 50, 14), 4)])
ARGS = np.concatenate([[1e-8, 1e-3, 0.1, 0.5, 1.0, 1.99, 2.0, 2.5, 5.0, 10.0, 24.9, 25.0, 30.0,
                        49.0, 75.0, 100.0, 150.0, 200.0],
                       np.round(RNG.uniform(0, 200, 10), 4), np.round(RNG.uniform(0, 3, 4), 4)])


def points():
    v, x = (a.ravel() for a in np.meshgrid(ORDERS, ARGS))
    zero_v = ORDERS[ORDERS >= 0]
    int_v = np.array([-7.0, -2.0, -1.0, 0.0, 1.0, 2.0, 5.0, 12.0])
    neg_x = np.array([-0.5, -3.0, -30.0])
    nv, nx = (a.ravel() for a in np.meshgrid(int_v, neg_x))
    return (np.concatenate([v, zero_v, nv]), np.concatenate([x, np.zeros_like(zero_v), nx]))


def scale(name, f, v, x):
    u, ax = np.abs(v), np.abs(x)
    s = np.abs(f)
    c, si = np.abs(np.cos(np.pi * u)), np.abs(np.sin(np.pi * u))
    if name in ("jv", "yv"):
        j, y = sc.jv(u, ax), sc.yv(u, ax)
        env = np.where(ax >= u, np.hypot(j, y), 0.0)
        refl = np.where(v < 0, c * np.abs(j) + si * np.abs(y), 0.0) if name == "jv" else \
            np.where(v < 0, si * np.abs(j) + c * np.abs(y), 0.0)
        s = np.maximum(s, np.maximum(np.nan_to_num(env), np.nan_to_num(refl)))
    elif name in ("iv", "ive"):
        g = sc.iv if name == "iv" else sc.ive
        k = sc.kv(u, ax) if name == "iv" else sc.kve(u, ax) * np.exp(-2 * ax)
        refl = np.where(v < 0, np.abs(g(u, ax)) + 2 / np.pi * si * np.abs(k), 0.0)
        s = np.maximum(s, np.nan_to_num(refl))
    return s


def main():
    v, x = points()
    out = {}
    with np.errstate(all="ignore"):
        for name in ("jv", "yv", "iv", "ive", "kv", "kve"):
            f = getattr(sc, name)(v, x)
            keep = (np.isfinite(f) & ((x > 0) | (v >= 0))) | ((x == 0) & (v >= 0))
            if name in ("yv", "kv", "kve"):
                keep &= x >= 0
            out[f"{name}.v"], out[f"{name}.x"] = v[keep], x[keep]
            out[f"{name}.f64"] = f[keep]
            out[f"{name}.scale"] = scale(name, f, v, x)[keep]
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}: {len(out)} arrays, "
          f"{len(out['jv.v'])} points of jv")
    np.savez_compressed(os.path.join(HERE, "bessel_order.npz"), **out)


if __name__ == "__main__":
    main()
