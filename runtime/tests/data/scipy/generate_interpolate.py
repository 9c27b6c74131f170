"""Writes interpolate.npz: SciPy's interpolants on small inputs, which
runtime/tests/api/interpolate.rs compares cp::interpolate with.

Run with SciPy 1.17 / NumPy 2.4:  python generate_interpolate.py  (from this folder).
Keys are `<case>/<field>`; every case stores its inputs beside the results.
"""

import numpy as np
from scipy import interpolate as si

rng = np.random.default_rng(35)
out = {}


def put(key, value):
    out[key] = np.asarray(value)


# 1-D data: uneven increasing x, two columns of y along axis 0.
x = np.sort(rng.uniform(0.0, 10.0, 9))
x[0], x[-1] = 0.0, 10.0
y = np.stack([np.sin(x), np.cos(0.7 * x) + 0.1 * x], axis=1)
xi = np.concatenate([np.linspace(-1.0, 11.0, 25), x[2:4]])
xin = np.linspace(0.0, 10.0, 23)
put("data/x", x)
put("data/y", y)
put("data/xi", xi)
put("data/xin", xin)

# CubicSpline with every boundary condition; derivatives and integrals.
bcs = {
    "not_a_knot": "not-a-knot",
    "clamped": "clamped",
    "natural": "natural",
    "explicit": ((1, [0.5, -1.0]), (2, [2.0, 0.25])),
}
for name, bc in bcs.items():
    s = si.CubicSpline(x, y, bc_type=bc)
    put(f"cubic_{name}/c", s.c)
    for nu in range(4):
        put(f"cubic_{name}/nu{nu}", s(xi, nu))
    put(f"cubic_{name}/anti", s.antiderivative()(xi))
    put(f"cubic_{name}/int", s.integrate(-0.5, 7.25))
    put(f"cubic_{name}/noext", si.CubicSpline(x, y, bc_type=bc, extrapolate=False)(xi))
yp = y.copy()
yp[-1] = yp[0]
put("periodic/y", yp)
sp = si.CubicSpline(x, yp, bc_type="periodic")
put("periodic/c", sp.c)
put("periodic/v", sp(xi))
put("periodic/d1", sp(xi, 1))
put("periodic/int", sp.integrate(-3.0, 24.5))
# Small systems: two points, three points (parabola), three periodic.
put("small2/v", si.CubicSpline(x[:2], y[:2])(xi))
put("small3/v", si.CubicSpline(x[:3], y[:3])(xi))
y3 = y[:3].copy()
y3[-1] = y3[0]
put("small3p/y", y3)
put("small3p/v", si.CubicSpline(x[:3], y3, bc_type="periodic")(xi))
# y along axis 1 of a 3-D array.
y3d = np.stack([y.T, 2 * y.T], axis=0)  # (2, 2, 9)
put("axis1/y", y3d)
put("axis1/v", si.CubicSpline(x, y3d, axis=2)(xin[:5]))
put("axis1/xi2", xin[:6].reshape(2, 3))
put("axis1/v2", si.CubicSpline(x, y3d, axis=2)(xin[:6].reshape(2, 3)))

# PCHIP and Akima (with flat stretches and a sign change for the edge rules).
yf = y.copy()
yf[3:5, 0] = 0.25
put("pchip/y", yf)
p = si.PchipInterpolator(x, yf)
put("pchip/v", p(xi))
put("pchip/d1", p(xi, 1))
put("pchip/int", p.integrate(0.5, 9.0))
put("pchip2/v", si.PchipInterpolator(x[:2], yf[:2])(xi))
for m in ["akima", "makima"]:
    a = si.Akima1DInterpolator(x, yf, method=m)
    put(f"{m}/v", a(xi))
    put(f"{m}/vext", si.Akima1DInterpolator(x, yf, method=m, extrapolate=True)(xi))
    put(f"{m}/d1", a(xin, 1))

# interp1d: every kind, along the last axis of y (its default).
yt = np.ascontiguousarray(y.T)  # (2, 9)
put("interp1d/y", yt)
for kind in ["linear", "nearest", "nearest-up", "previous", "next", "zero", "slinear", "quadratic", "cubic"]:
    f = si.interp1d(x, yt, kind=kind, bounds_error=False, fill_value=(-7.0, 9.0))
    put(f"interp1d_{kind}/fill", f(xi))
    g = si.interp1d(x, yt, kind=kind, fill_value="extrapolate")
    put(f"interp1d_{kind}/ext", g(xi))
    put(f"interp1d_{kind}/in", si.interp1d(x, yt, kind=kind)(xin))
# Unsorted x.
perm = rng.permutation(len(x))
put("unsorted/x", x[perm])
put("unsorted/y", yt[:, perm])
put("unsorted/v", si.interp1d(x[perm], yt[:, perm], kind="linear")(xin))

# Regular grids: 3-D linear and nearest, a trailing value axis, fill and
# extrapolation; 2-D interpn.
g0 = np.array([0.0, 0.5, 1.5, 3.0])
g1 = np.array([-1.0, 0.0, 2.0])
g2 = np.array([0.0, 1.0, 2.0, 2.5, 4.0])
vals = rng.standard_normal((4, 3, 5))
pts = np.stack([
    rng.uniform(-0.5, 3.5, 30), rng.uniform(-1.5, 2.5, 30), rng.uniform(-0.5, 4.5, 30)
], axis=1)
pts[:5] = [[0.0, -1.0, 0.0], [3.0, 2.0, 4.0], [0.5, 0.0, 1.0], [1.0, 1.0, 1.25], [0.25, 1.0, 3.25]]
put("grid/g0", g0)
put("grid/g1", g1)
put("grid/g2", g2)
put("grid/values", vals)
put("grid/pts", pts)
for method in ["linear", "nearest"]:
    r = si.RegularGridInterpolator((g0, g1, g2), vals, method=method, bounds_error=False)
    put(f"grid_{method}/nanfill", r(pts))
    r = si.RegularGridInterpolator((g0, g1, g2), vals, method=method, bounds_error=False,
                                   fill_value=None)
    put(f"grid_{method}/ext", r(pts))
vals4 = rng.standard_normal((4, 3, 5, 2))
put("grid/values4", vals4)
put("grid_trailing/v", si.RegularGridInterpolator((g0, g1, g2), vals4, bounds_error=False,
                                                 fill_value=-1.0)(pts))
inside = pts[5:].copy()
inside[:, 0] = np.clip(inside[:, 0], 0.0, 3.0)
inside[:, 1] = np.clip(inside[:, 1], -1.0, 2.0)
inside[:, 2] = np.clip(inside[:, 2], 0.0, 4.0)
put("grid/inside", inside)
put("interpn/v", si.interpn((g0, g1, g2), vals, inside))
put("interpn2/v", si.interpn((g0, g1), vals[:, :, 0], inside[:, :2], method="nearest"))

# make_interp_spline / BSpline: every degree, not-a-knot knots; natural and
# clamped cubics; derivatives, antiderivatives, integrals, no extrapolation.
for k in range(6):
    b = si.make_interp_spline(x, y, k=k)
    put(f"bspl_k{k}/t", b.t)
    put(f"bspl_k{k}/c", b.c)
    put(f"bspl_k{k}/v", b(xi))
    if k >= 1:
        put(f"bspl_k{k}/d1", b.derivative(1)(xi))
    put(f"bspl_k{k}/anti", b.antiderivative(1)(xi))
    put(f"bspl_k{k}/int", b.integrate(-0.5, 7.25))
    put(f"bspl_k{k}/intno", si.BSpline(b.t, b.c, k, extrapolate=False).integrate(-0.5, 7.25))
    put(f"bspl_k{k}/noext", si.BSpline(b.t, b.c, k, extrapolate=False)(xi))
for bc in ("natural", "clamped"):
    b = si.make_interp_spline(x, y, k=3, bc_type=bc)
    put(f"bspl_{bc}/t", b.t)
    put(f"bspl_{bc}/c", b.c)
    put(f"bspl_{bc}/v", b(xi))

# Regular grids read by splines: cubic and quintic (the tensor-product
# spline, solved with a direct solver: the default gcrotmk stops at a
# relative residual of 1e-5) and pchip, on 1-D, 2-D (a trailing value axis)
# and 3-D grids, with NaN fill, a fill value and extrapolation.
from scipy.sparse.linalg import spsolve

s1 = np.sort(rng.uniform(0.0, 6.0, 8))
s1[0], s1[-1] = 0.0, 6.0
sv1 = np.sin(s1) + 0.3 * s1
sp1 = np.concatenate([np.linspace(-0.5, 6.5, 20), s1[3:5]])
s2a = np.array([0.0, 0.4, 1.0, 1.7, 2.1, 3.0, 3.2])
s2b = np.array([-2.0, -1.0, -0.2, 0.5, 1.5, 2.0, 3.5, 4.0])
sv2 = rng.standard_normal((7, 8, 2))
sp2 = np.stack([rng.uniform(-0.3, 3.3, 40), rng.uniform(-2.3, 4.3, 40)], axis=1)
sp2[:3] = [[0.0, -2.0], [3.2, 4.0], [1.0, 0.5]]
s3 = [np.array([0.0, 0.5, 1.5, 2.0, 3.0, 3.5]),
      np.array([-1.0, 0.0, 0.7, 2.0, 2.2, 3.0, 4.0]),
      np.array([0.0, 1.0, 2.0, 2.5, 4.0, 4.5])]
sv3 = rng.standard_normal((6, 7, 6))
sp3 = np.stack([rng.uniform(-0.3, 3.8, 40), rng.uniform(-1.3, 4.3, 40),
                rng.uniform(-0.3, 4.8, 40)], axis=1)
grids = {"1d": ((s1,), sv1, sp1[:, None]), "2d": ((s2a, s2b), sv2, sp2), "3d": (tuple(s3), sv3, sp3)}
for tag, (axes_, v, p_) in grids.items():
    for i, a_ in enumerate(axes_):
        put(f"sgrid_{tag}/g{i}", a_)
    put(f"sgrid_{tag}/values", v)
    put(f"sgrid_{tag}/pts", p_)
    for method in ["cubic", "quintic", "pchip"]:
        kw = {} if method == "pchip" else {"solver": spsolve}
        r = si.RegularGridInterpolator(axes_, v, method=method, bounds_error=False, **kw)
        put(f"sgrid_{tag}_{method}/nanfill", r(p_))
        r = si.RegularGridInterpolator(axes_, v, method=method, bounds_error=False,
                                       fill_value=-3.5, **kw)
        put(f"sgrid_{tag}_{method}/fill", r(p_))
        r = si.RegularGridInterpolator(axes_, v, method=method, bounds_error=False,
                                       fill_value=None, **kw)
        put(f"sgrid_{tag}_{method}/ext", r(p_))
inside3 = np.clip(sp3, [0.0, -1.0, 0.0], [3.5, 4.0, 4.5])
put("sgrid_3d/inside", inside3)
for method in ["cubic", "quintic", "pchip"]:
    put(f"sinterpn_3d_{method}/v", si.interpn(tuple(s3), sv3, inside3, method=method))

np.savez_compressed("interpolate.npz", **out)
print(f"wrote {len(out)} arrays to interpolate.npz")
