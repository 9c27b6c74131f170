"""Writes ndimage.npz: SciPy's scipy.ndimage results on small arrays that
runtime/tests/api/ndimage.rs and ndimage_labels.rs compare cp::ndimage with.

Run with SciPy 1.17 / NumPy 2.4:  python generate_ndimage.py  (from this folder).
Keys are `<function>/<case>`; inputs are stored under `in/<name>`; the
tests build the same case names.
"""

import numpy as np
from scipy import ndimage as nd

rng = np.random.default_rng(20261128)
out = {}


def put(key, value):
    out[key] = np.asarray(value)


MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]
IMODES = MODES + ["grid-mirror", "grid-constant", "grid-wrap"]

a1 = rng.random(10)
a2 = rng.random((7, 9))
a3 = rng.random((4, 5, 6))
put("in/a1", a1)
put("in/a2", a2)
put("in/a3", a3)

# Line filters: weights odd and even, every mode, origins.
W3 = [0.2, 0.5, 0.3]
W4 = [1.0, 2.0, -1.0, 0.5]
for m in MODES:
    for o in (-1, 0, 1):
        put(f"correlate1d/{m}/{o}/w3", nd.correlate1d(a2, W3, axis=1, mode=m, cval=0.5, origin=o))
        put(f"correlate1d/{m}/{o}/w4", nd.correlate1d(a2, W4, axis=0, mode=m, cval=0.5, origin=o))
        put(f"convolve1d/{m}/{o}/w3", nd.convolve1d(a1, W3, mode=m, cval=0.5, origin=o))
        put(f"convolve1d/{m}/{o}/w4", nd.convolve1d(a2, W4, axis=1, mode=m, cval=0.5, origin=o))

# N-D correlation and convolution.
K = rng.random((3, 4)) - 0.3
K[1, 2] = 0.0
put("in/k", K)
for m in MODES:
    for o in [(0, 0), (1, -1), (-1, 1)]:
        tag = f"{o[0]}_{o[1]}"
        put(f"correlate/{m}/{tag}", nd.correlate(a2, K, mode=m, cval=0.25, origin=o))
        put(f"convolve/{m}/{tag}", nd.convolve(a2, K, mode=m, cval=0.25, origin=o))

# Gaussian and uniform filters.
for m in MODES:
    for order in [(0, 0), (1, 0), (0, 2), (1, 1)]:
        put(f"gaussian_filter/{m}/{order[0]}{order[1]}", nd.gaussian_filter(a2, (1.5, 0.8), order=order, mode=m, cval=0.5, truncate=3.0))
    put(f"gaussian_filter1d/{m}", nd.gaussian_filter1d(a1, 1.2, order=1, mode=m, cval=0.5))
    put(f"uniform_filter/{m}", nd.uniform_filter(a2, (2, 4), mode=m, cval=0.5))
    put(f"uniform_filter1d/{m}", nd.uniform_filter1d(a2, 4, axis=1, mode=m, cval=0.5, origin=1))
put("gaussian_filter/3d", nd.gaussian_filter(a3, (1.0, 0.5, 2.0)))
put("uniform_filter/3d", nd.uniform_filter(a3, 3))

# Order-statistic filters, by size and by footprint.
FP = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], bool)
put("in/fp", FP.astype(np.float64))
for m in MODES:
    put(f"minimum_filter/{m}/size", nd.minimum_filter(a2, (3, 4), mode=m, cval=0.5))
    put(f"maximum_filter/{m}/size", nd.maximum_filter(a2, (3, 4), mode=m, cval=0.5))
    put(f"median_filter/{m}/size", nd.median_filter(a2, (3, 4), mode=m, cval=0.5))
    put(f"minimum_filter/{m}/fp", nd.minimum_filter(a2, footprint=FP, mode=m, cval=0.5))
    put(f"maximum_filter/{m}/fp", nd.maximum_filter(a2, footprint=FP, mode=m, cval=0.5))
    put(f"median_filter/{m}/fp", nd.median_filter(a2, footprint=FP, mode=m, cval=0.5))
    put(f"percentile_filter/{m}/fp", nd.percentile_filter(a2, 30, footprint=FP, mode=m, cval=0.5))
    put(f"rank_filter/{m}/size", nd.rank_filter(a2, -2, (3, 3), mode=m, cval=0.5))
    put(f"minimum_filter1d/{m}", nd.minimum_filter1d(a2, 4, axis=0, mode=m, cval=0.5, origin=1))
    put(f"maximum_filter1d/{m}", nd.maximum_filter1d(a2, 3, axis=1, mode=m, cval=0.5))
put("median_filter/3d", nd.median_filter(a3, 3))
put("median_filter/origin", nd.median_filter(a2, (3, 3), origin=(1, -1)))

# Derivatives.
for m in MODES:
    for ax in (0, 1):
        put(f"sobel/{m}/{ax}", nd.sobel(a2, axis=ax, mode=m, cval=0.5))
        put(f"prewitt/{m}/{ax}", nd.prewitt(a2, axis=ax, mode=m, cval=0.5))
    put(f"laplace/{m}", nd.laplace(a2, mode=m, cval=0.5))
    put(f"gaussian_laplace/{m}", nd.gaussian_laplace(a2, 1.0, mode=m, cval=0.5))
    put(f"gaussian_gradient_magnitude/{m}", nd.gaussian_gradient_magnitude(a2, 1.0, mode=m, cval=0.5))

# Interpolation.
s1 = rng.random(24)
put("in/s1", s1)
for order in range(2, 6):
    for m in ["mirror", "reflect", "grid-wrap", "wrap", "constant"]:
        put(f"spline_filter1d/{order}/{m}", nd.spline_filter1d(s1, order, mode=m))
    put(f"spline_filter/{order}", nd.spline_filter(a2, order))
img = rng.random((8, 9))
put("in/img", img)
coords = np.stack([rng.uniform(-3, 11, 30), rng.uniform(-3, 12, 30)])
coords[:, :4] = [[0, 7, 2.5, 3], [0, 8, 4, 4.5]]
put("in/coords", coords)
for order in range(6):
    for m in IMODES:
        put(f"map_coordinates/{order}/{m}", nd.map_coordinates(img, coords, order=order, mode=m, cval=0.3))
MAT = np.array([[0.9, 0.3], [-0.2, 1.1]])
put("in/mat", MAT)
for order in (0, 1, 3, 5):
    put(f"affine_transform/{order}", nd.affine_transform(img, MAT, offset=(0.5, -1.0), output_shape=(6, 7), order=order, mode="nearest"))
    hom = np.array([[0.9, 0.3, 0.5], [-0.2, 1.1, -1.0], [0, 0, 1]])
    put(f"affine_transform/{order}/hom", nd.affine_transform(img, hom, order=order, mode="reflect"))
    put(f"zoom/{order}/x2", nd.zoom(img, 2.0, order=order))
    put(f"zoom/{order}/mixed", nd.zoom(img, (1.5, 0.7), order=order, mode="mirror"))
    put(f"zoom/{order}/grid", nd.zoom(img, (0.5, 1.3), order=order, mode="grid-constant", grid_mode=True, cval=0.2))
    put(f"shift/{order}", nd.shift(img, (1.3, -0.4), order=order, mode="wrap"))
    put(f"shift/{order}/constant", nd.shift(img, (-2.2, 0.6), order=order, cval=0.7))
    put(f"rotate/{order}/reshape", nd.rotate(img, 30.0, order=order))
    put(f"rotate/{order}/same", nd.rotate(img, -50.0, reshape=False, order=order, mode="nearest"))
put("zoom/3/3d", nd.zoom(a3, (1.5, 0.8, 1.2), order=3))

# Labels and measurements.
bw = rng.random((12, 13)) > 0.55
put("in/bw", bw.astype(np.float64))
lab, n = nd.label(bw)
put("label/cross", lab)
lab8, n8 = nd.label(bw, structure=np.ones((3, 3)))
put("label/full", lab8)
bw3 = rng.random((5, 6, 7)) > 0.6
put("in/bw3", bw3.astype(np.float64))
put("label/3d", nd.label(bw3)[0])
put("label/3d_full", nd.label(bw3, structure=np.ones((3, 3, 3)))[0])
vals = rng.random((12, 13))
put("in/vals", vals)
idx = [1, 2, 3, 5, n]
put("in/idx", np.array(idx))
put("sum_labels", nd.sum_labels(vals, lab, idx))
put("sum_labels/all", nd.sum_labels(vals, lab))
put("mean", nd.mean(vals, lab, idx))
put("variance", nd.variance(vals, lab, idx))
put("standard_deviation", nd.standard_deviation(vals, lab, idx))
put("minimum", nd.minimum(vals, lab, idx))
put("maximum", nd.maximum(vals, lab, idx))
mn, mx, mnp, mxp = nd.extrema(vals, lab, idx)
put("extrema/minpos", np.array(mnp))
put("extrema/maxpos", np.array(mxp))
put("center_of_mass", np.array(nd.center_of_mass(vals, lab, idx)))
put("center_of_mass/all", np.array(nd.center_of_mass(vals)))
put("histogram", np.array([np.asarray(h) for h in nd.histogram(vals, 0.0, 1.0, 5, lab, idx)]))
objs = nd.find_objects(lab)
put("find_objects", np.array([[s.start for s in o] + [s.stop for s in o] for o in objs]))

# Morphology.
put("generate_binary_structure/2_1", nd.generate_binary_structure(2, 1))
put("generate_binary_structure/3_2", nd.generate_binary_structure(3, 2))
put("iterate_structure/2_1_3", nd.iterate_structure(nd.generate_binary_structure(2, 1), 3))
full = np.ones((3, 3), bool)
for name, f in [("binary_erosion", nd.binary_erosion), ("binary_dilation", nd.binary_dilation),
                ("binary_opening", nd.binary_opening), ("binary_closing", nd.binary_closing)]:
    put(f"{name}/default", f(bw))
    put(f"{name}/iter2_full", f(bw, structure=full, iterations=2))
put("binary_erosion/border", nd.binary_erosion(bw, border_value=1))
seed = bw & (rng.random(bw.shape) > 0.8)
put("in/seed", seed.astype(np.float64))
put("binary_dilation/until", nd.binary_dilation(seed, iterations=0))
# mask, border_value, origin (one and per axis) and iterations (0: until no
# change) for the four binary operations; an asymmetric and an even element.
bmask = rng.random(bw.shape) > 0.3
put("in/bmask", bmask.astype(np.float64))
ASYM = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], bool)
EVEN = np.array([[1, 1], [0, 1]], bool)
put("in/asym", ASYM.astype(np.float64))
put("in/even", EVEN.astype(np.float64))
for name, f in [("binary_erosion", nd.binary_erosion), ("binary_dilation", nd.binary_dilation),
                ("binary_opening", nd.binary_opening), ("binary_closing", nd.binary_closing)]:
    put(f"{name}/mask", f(bw, mask=bmask))
    put(f"{name}/mask_iter3", f(bw, structure=ASYM, iterations=3, mask=bmask))
    put(f"{name}/mask_until", f(seed, iterations=0, mask=bmask))
    put(f"{name}/border1", f(bw, structure=ASYM, border_value=1))
    put(f"{name}/origin", f(bw, structure=ASYM, origin=1))
    put(f"{name}/origins", f(bw, structure=ASYM, origin=(-1, 1)))
    put(f"{name}/even_origin", f(bw, structure=EVEN, origin=(0, -1), iterations=2))
    put(f"{name}/until_border", f(bw, structure=ASYM, iterations=0, border_value=1,
                                  origin=(1, 0)))
put("binary_erosion/empty_mask", nd.binary_erosion(bw, structure=np.zeros((3, 3), bool),
                                                   mask=bmask))
holes = np.zeros((9, 10), bool)
holes[1:6, 1:6] = True
holes[2:4, 2:4] = False
holes[7:9, 3:9] = True
holes[8, 5] = False
put("in/holes", holes.astype(np.float64))
put("binary_fill_holes", nd.binary_fill_holes(holes))
SE = np.array([[0.0, 0.5, 0.0], [0.2, 1.0, 0.3], [0.0, 0.1, 0.0]])
put("in/se", SE)
for name, f in [("grey_erosion", nd.grey_erosion), ("grey_dilation", nd.grey_dilation),
                ("grey_opening", nd.grey_opening), ("grey_closing", nd.grey_closing)]:
    put(f"{name}/size", f(vals, size=(3, 2)))
    put(f"{name}/fp", f(vals, footprint=FP))
    put(f"{name}/se", f(vals, structure=SE))
    put(f"{name}/size_origin", f(vals, size=(3, 4), origin=(1, -1), mode="constant", cval=0.5))
    put(f"{name}/fp_origin", f(vals, footprint=FP, origin=-1, mode="wrap"))
    put(f"{name}/se_origin", f(vals, structure=SE, origin=(0, 1), mode="mirror"))
# Origins of the window filters.
for m in ["reflect", "constant", "nearest", "mirror", "wrap"]:
    put(f"uniform_filter/origin/{m}", nd.uniform_filter(a2, (3, 4), mode=m, cval=0.5, origin=(1, -2)))
    put(f"minimum_filter/origin/{m}", nd.minimum_filter(a2, (4, 3), mode=m, cval=0.5, origin=(-2, 1)))
    put(f"maximum_filter/origin/{m}", nd.maximum_filter(a2, footprint=FP, mode=m, cval=0.5, origin=(1, -1)))
    put(f"median_filter/origin/{m}", nd.median_filter(a2, (3, 2), mode=m, cval=0.5, origin=(-1, 0)))

# Distance transforms.
dt_in = rng.random((11, 12)) > 0.2
put("in/dt", dt_in.astype(np.float64))
put("edt", nd.distance_transform_edt(dt_in))
put("edt/sampling", nd.distance_transform_edt(dt_in, sampling=(1.0, 2.5)))
dt3 = rng.random((5, 6, 7)) > 0.15
put("in/dt3", dt3.astype(np.float64))
put("edt/3d", nd.distance_transform_edt(dt3, sampling=(2.0, 1.0, 0.5)))
put("cdt/chessboard", nd.distance_transform_cdt(dt_in, metric="chessboard"))
put("cdt/taxicab", nd.distance_transform_cdt(dt_in, metric="taxicab"))

np.savez_compressed("ndimage.npz", **out)
print(len(out), "arrays")
