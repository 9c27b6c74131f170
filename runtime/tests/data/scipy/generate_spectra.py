"""Writes spectra.npz: SciPy's windows, spectral estimates, detrending,
analytic signals, Savitzky-Golay filters, peaks and resampling that
runtime/tests/api/signal_spectra.rs compares cp::signal with.

Run with SciPy 1.17 / NumPy 2.4:  python generate_spectra.py  (from this folder).
Keys are `<case>/<field>`; the test builds the same case names.
"""

import numpy as np
from scipy import signal

out = {}


def put(key, value):
    out[key] = np.asarray(value)


# Windows: every family, odd and even lengths, symmetric and periodic.
WINDOWS = {
    "boxcar": "boxcar",
    "bartlett": "bartlett",
    "hann": "hann",
    "hamming": "hamming",
    "blackman": "blackman",
    "blackmanharris": "blackmanharris",
    "kaiser": ("kaiser", 8.6),
    "tukey": ("tukey", 0.3),
    "gaussian": ("gaussian", 2.5),
    "general_gaussian": ("general_gaussian", 1.5, 3.0),
    "chebwin": ("chebwin", 60.0),
    "dpss": ("dpss", 2.5),
}
for name, spec in WINDOWS.items():
    for m in [1, 2, 7, 16, 33]:
        if name == "dpss" and m < 7:
            continue
        put(f"win/{name}/{m}/periodic", signal.get_window(spec, m, fftbins=True))
        put(f"win/{name}/{m}/sym", signal.get_window(spec, m, fftbins=False))

rng = np.random.default_rng(35)
t = np.arange(600) / 100.0
x = np.sin(2 * np.pi * 7.0 * t) + 0.5 * rng.standard_normal(600) + 0.01 * np.arange(600)
y = np.cos(2 * np.pi * 7.0 * t + 0.3) + 0.5 * rng.standard_normal(600)
x2 = rng.standard_normal((3, 300))
put("x", x)
put("y", y)
put("x2", x2)

# Welch / csd / coherence / periodogram / spectrogram.
CASES = {
    "default": dict(),
    "hamming_128_100": dict(window="hamming", nperseg=128, noverlap=100),
    "linear_spectrum": dict(nperseg=100, detrend="linear", scaling="spectrum"),
    "nfft_odd": dict(nperseg=64, nfft=101, detrend=False),
    "twosided": dict(nperseg=64, return_onesided=False),
    "median": dict(nperseg=64, average="median"),
    "kaiser": dict(window=("kaiser", 5.0), nperseg=90, noverlap=30),
}
for name, kw in CASES.items():
    f, p = signal.welch(x, fs=100.0, **kw)
    put(f"welch/{name}/f", f)
    put(f"welch/{name}/p", p)
    f, p = signal.csd(x, y, fs=100.0, **kw)
    put(f"csd/{name}/f", f)
    put(f"csd/{name}/p", p)
    ckw = {k: v for k, v in kw.items() if k not in ("average", "return_onesided", "scaling")}
    f, c = signal.coherence(x, y, fs=100.0, **ckw)
    put(f"coherence/{name}/c", c)
f, p = signal.welch(x2, nperseg=50, axis=-1)
put("welch/x2/p", p)
f, p = signal.welch(x2.T, nperseg=50, axis=0)
put("welch/x2T/p", p)
f, p = signal.periodogram(x, fs=100.0)
put("periodogram/default/p", p)
f, p = signal.periodogram(x, window="hann", nfft=400, scaling="spectrum")
put("periodogram/nfft400/p", p)
f, p = signal.periodogram(x, nfft=800, detrend="linear")
put("periodogram/nfft800/p", p)
f, tt, s = signal.spectrogram(x, fs=100.0, nperseg=64)
put("spectrogram/x/f", f)
put("spectrogram/x/t", tt)
put("spectrogram/x/s", s)
f, tt, s = signal.spectrogram(x2, nperseg=40, noverlap=10, detrend="linear")
put("spectrogram/x2/s", s)

# STFT and its inverse.
STFT = {
    "default": dict(nperseg=64),
    "even": dict(nperseg=50, noverlap=30, boundary="even"),
    "odd_psd": dict(nperseg=48, boundary="odd", scaling="psd", window="hamming"),
    "none_unpadded": dict(nperseg=64, noverlap=32, boundary=None, padded=False),
    "constant_nfft": dict(nperseg=40, nfft=64, boundary="constant"),
}
for name, kw in STFT.items():
    f, tt, z = signal.stft(x, fs=10.0, **kw)
    put(f"stft/{name}/f", f)
    put(f"stft/{name}/t", tt)
    put(f"stft/{name}/z", z)
    ikw = {k: v for k, v in kw.items() if k in ("nperseg", "noverlap", "nfft", "window", "scaling")}
    ikw["boundary"] = kw.get("boundary", "zeros") is not None
    tt, xr = signal.istft(z, fs=10.0, **ikw)
    put(f"istft/{name}/t", tt)
    put(f"istft/{name}/x", xr)
f, tt, z = signal.stft(x2, nperseg=32, noverlap=24)
put("stft/x2/z", z)
tt, xr = signal.istft(z, nperseg=32, noverlap=24)
put("istft/x2/x", xr)

# Detrend.
put("detrend/constant", signal.detrend(x, type="constant"))
put("detrend/linear", signal.detrend(x, type="linear"))
put("detrend/bp", signal.detrend(x, type="linear", bp=[100, 450, 599]))
put("detrend/x2_axis0", signal.detrend(x2, axis=0))

# Analytic signals.
put("hilbert/x", signal.hilbert(x))
put("hilbert/x_n800", signal.hilbert(x, N=800))
put("hilbert/x2_axis0", signal.hilbert(x2, axis=0))
put("hilbert/x_odd", signal.hilbert(x[:599]))
put("hilbert2/x2", signal.hilbert2(x2[:, :40]))

# Savitzky-Golay.
for wl, po, deriv in [(7, 2, 0), (11, 3, 1), (10, 4, 2), (5, 0, 0)]:
    put(f"savgol_coeffs/{wl}_{po}_{deriv}", signal.savgol_coeffs(wl, po, deriv=deriv))
    put(f"savgol_coeffs/{wl}_{po}_{deriv}/dot", signal.savgol_coeffs(wl, po, deriv=deriv, use="dot"))
put("savgol_coeffs/9_3_pos2", signal.savgol_coeffs(9, 3, pos=2))
for mode in ["interp", "mirror", "constant", "nearest", "wrap"]:
    put(f"savgol/{mode}", signal.savgol_filter(x, 21, 3, mode=mode))
    put(f"savgol/{mode}/d1", signal.savgol_filter(x, 20, 2, deriv=1, delta=0.01, mode=mode))
put("savgol/x2_axis0", signal.savgol_filter(x2, 3, 1, axis=0))

# Peaks.
xp = np.array([0, 1, 3, 3, 3, 2, 5, 5, 1, 4, 0, 2, 2, 7, 1, 1, 6, 0, 3, 3, 0, 8, 2], dtype=float)
put("peaks/xp", xp)
pk, props = signal.find_peaks(xp)
put("find_peaks/plain", pk)
put("find_peaks/plain/left_edges", props.get("left_edges", np.array([])))
pk, props = signal.find_peaks(xp, plateau_size=1)
put("find_peaks/plateau/left_edges", props["left_edges"])
put("find_peaks/plateau/right_edges", props["right_edges"])
put("find_peaks/plateau/plateau_sizes", props["plateau_sizes"])
pk, props = signal.find_peaks(xp, height=3, threshold=0.5)
put("find_peaks/height_threshold", pk)
put("find_peaks/height_threshold/peak_heights", props["peak_heights"])
put("find_peaks/height_threshold/left_thresholds", props["left_thresholds"])
put("find_peaks/height_threshold/right_thresholds", props["right_thresholds"])
pk, props = signal.find_peaks(xp, distance=3)
put("find_peaks/distance", pk)
pk, props = signal.find_peaks(xp, prominence=2, width=1)
put("find_peaks/prom_width", pk)
for k in ["prominences", "left_bases", "right_bases", "widths", "width_heights", "left_ips", "right_ips"]:
    put(f"find_peaks/prom_width/{k}", props[k])
# Ties of the distance rule: -0.0 equals 0.0 and a tie goes to the later
# peak. SciPy's argsort is not stable (its tie order is NumPy's SIMD
# sort's), so only cases where it gives the stable order are kept.
def by_distance_stable(x, peaks, distance):
    keep = np.ones(len(peaks), bool)
    for j in np.argsort(x[peaks], kind="stable")[::-1]:
        if keep[j]:
            near = np.abs(peaks - peaks[j]) < distance
            keep[near] = False
            keep[j] = True
    return peaks[keep]
ties = {
    "zero_first": [-1, 0.0, -1, -0.0, -1],
    "negzero_first": [-1, -0.0, -1, 0.0, -1],
    "equal4": [0, 1, 0, 1, 0, 1, 0, 1, 0],
}
for name, xt in ties.items():
    xt = np.array(xt, dtype=float)
    pk, _ = signal.find_peaks(xt, distance=3)
    assert (pk == by_distance_stable(xt, signal.find_peaks(xt)[0], 3)).all(), name
    put(f"peaks/ties/{name}", xt)
    put(f"find_peaks/ties/{name}", pk)
# A NaN next to a plateau makes no peak (SciPy's loop compares with <).
xn = np.array([0, 1, np.nan, 2, 0, 3, 1, np.nan, 1, 0, 2, 2, np.nan, 0, 4, 1, 1, 0, np.nan, 5, 5, 2])
put("peaks/nan", xn)
put("find_peaks/nan", signal.find_peaks(xn)[0])
xs = np.sin(np.linspace(0, 20 * np.pi, 2000)) + 0.3 * rng.standard_normal(2000)
put("peaks/xs", xs)
pk, props = signal.find_peaks(xs, height=0.5, distance=40, prominence=0.3, width=(2, 80))
put("find_peaks/xs", pk)
for k in ["prominences", "left_bases", "right_bases", "widths", "left_ips", "right_ips"]:
    put(f"find_peaks/xs/{k}", props[k])
pk, _ = signal.find_peaks(xs)
prom, lb, rb = signal.peak_prominences(xs, pk, wlen=51)
put("peak_prominences/wlen51/peaks", pk)
put("peak_prominences/wlen51/prominences", prom)
put("peak_prominences/wlen51/left_bases", lb)
put("peak_prominences/wlen51/right_bases", rb)
w = signal.peak_widths(xs, pk, rel_height=1.0)
for i, k in enumerate(["widths", "width_heights", "left_ips", "right_ips"]):
    put(f"peak_widths/rel1/{k}", w[i])
w = signal.peak_widths(xs, pk, rel_height=0.5)
for i, k in enumerate(["widths", "width_heights", "left_ips", "right_ips"]):
    put(f"peak_widths/rel05/{k}", w[i])
xe = np.array([[1, 2, 1, 3, 3, 0, 5], [4, 1, 4, 2, 6, 1, 0]], dtype=float)
put("argrel/xe", xe)
for name, fn in [("argrelmax", signal.argrelmax), ("argrelmin", signal.argrelmin)]:
    for order in [1, 2]:
        for mode in ["clip", "wrap"]:
            for axis in [0, 1]:
                r = fn(xe, axis=axis, order=order, mode=mode)
                put(f"{name}/{order}/{mode}/{axis}/0", r[0])
                put(f"{name}/{order}/{mode}/{axis}/1", r[1])
r = signal.argrelextrema(xs, np.greater_equal, order=3)
put("argrelextrema/ge3", r[0])

# Resampling.
put("resample/x_250", signal.resample(x, 250))
put("resample/x_1000", signal.resample(x, 1000))
put("resample/x2_axis0_7", signal.resample(x2, 7, axis=0))
put("resample/x_odd_233", signal.resample(x[:599], 233))
for up, down in [(3, 2), (2, 3), (1, 4), (5, 1), (7, 7)]:
    put(f"resample_poly/{up}_{down}", signal.resample_poly(x, up, down))
put("resample_poly/3_2_hamming", signal.resample_poly(x, 3, 2, window="hamming"))
put("resample_poly/x2_axis0_3_2", signal.resample_poly(x2, 3, 2, axis=0))
h = signal.firwin(15, 0.3)
put("upfirdn/h", h)
for up, down in [(1, 1), (3, 1), (1, 3), (3, 2), (2, 5)]:
    put(f"upfirdn/{up}_{down}", signal.upfirdn(h, x, up, down))
put("upfirdn/x2_3_2", signal.upfirdn(h, x2, 3, 2, axis=-1))
put("decimate/iir4", signal.decimate(x, 4))
put("decimate/fir3", signal.decimate(x, 3, ftype="fir"))
put("decimate/iir5_n4", signal.decimate(x, 5, n=4))

# Lomb-Scargle.
tl = np.sort(rng.uniform(0, 10, 200))
yl = np.sin(2 * np.pi * 1.3 * tl) + 0.3 * rng.standard_normal(200)
fl = np.linspace(0.1, 10, 120)
put("lomb/t", tl)
put("lomb/y", yl)
put("lomb/f", fl)
put("lomb/default", signal.lombscargle(tl, yl, fl))
put("lomb/normalize", signal.lombscargle(tl, yl, fl, normalize=True))
put("lomb/precenter", signal.lombscargle(tl, yl, fl, precenter=True, floating_mean=False))
put("lomb/floating", signal.lombscargle(tl, yl, fl, floating_mean=True))

np.savez_compressed("spectra.npz", **out)
print(len(out), "arrays")
