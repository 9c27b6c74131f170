"""Writes iir.npz: SciPy's IIR designs, conversions, responses and filtering
results that runtime/tests/api/signal_iir.rs compares cp::signal with.

Run with SciPy 1.17 / NumPy 2.4:  python generate_iir.py  (from this folder).
Keys are `<case>/<field>`; tests/api/signal_iir.rs builds the same case names.
"""

import numpy as np
from scipy import signal

out = {}


def put(key, value):
    out[key] = np.asarray(value)


# Designs: family x btype x order x analog, each as zpk, ba and sos.
FAMILIES = {
    "butter": lambda n, wn, bt, an: dict(N=n, Wn=wn, btype=bt, analog=an, ftype="butter"),
    "cheby1": lambda n, wn, bt, an: dict(N=n, Wn=wn, rp=1.0, btype=bt, analog=an, ftype="cheby1"),
    "cheby2": lambda n, wn, bt, an: dict(N=n, Wn=wn, rs=40.0, btype=bt, analog=an, ftype="cheby2"),
    "ellip": lambda n, wn, bt, an: dict(N=n, Wn=wn, rp=1.0, rs=40.0, btype=bt, analog=an, ftype="ellip"),
    "bessel_phase": lambda n, wn, bt, an: dict(N=n, Wn=wn, btype=bt, analog=an, ftype="bessel_phase"),
    "bessel_delay": lambda n, wn, bt, an: dict(N=n, Wn=wn, btype=bt, analog=an, ftype="bessel_delay"),
    "bessel_mag": lambda n, wn, bt, an: dict(N=n, Wn=wn, btype=bt, analog=an, ftype="bessel_mag"),
}
WN = {
    (False, "lowpass"): 0.3,
    (False, "highpass"): 0.3,
    (False, "bandpass"): [0.2, 0.5],
    (False, "bandstop"): [0.2, 0.5],
    (True, "lowpass"): 2.0,
    (True, "highpass"): 2.0,
    (True, "bandpass"): [1.0, 3.0],
    (True, "bandstop"): [1.0, 3.0],
}
designs = []
for fam, args in FAMILIES.items():
    # Bessel's other norms differ only in the prototype: two bands suffice.
    bands = ["lowpass", "bandpass"] if fam in ("bessel_delay", "bessel_mag") else [
        "lowpass", "highpass", "bandpass", "bandstop"]
    for bt in bands:
        for n in [1, 2, 5]:
            for an in [False, True]:
                designs.append((fam, bt, n, an))
# Higher orders of the lowpass prototypes (root finding and pairing).
for fam in FAMILIES:
    designs.append((fam, "lowpass", 8, False))
designs.append(("bessel_phase", "lowpass", 25, True))

for fam, bt, n, an in designs:
    d = FAMILIES[fam](n, WN[(an, bt)], bt, an)
    ftype = d.pop("ftype")
    kw = {}
    if ftype.startswith("bessel"):
        kw["norm"] = ftype.split("_")[1]
        ftype = "bessel"
    name = f"{fam}_{bt}_{n}_{'a' if an else 'd'}"
    if ftype == "bessel":
        f = lambda output: signal.bessel(d["N"], d["Wn"], btype=bt, analog=an, output=output, **kw)
    else:
        f = lambda output: signal.iirfilter(output=output, ftype=ftype, **d)
    z, p, k = f("zpk")
    put(f"{name}/z", np.asarray(z, complex))
    put(f"{name}/p", np.asarray(p, complex))
    put(f"{name}/k", k)
    b, a = f("ba")
    put(f"{name}/b", b)
    put(f"{name}/a", a)
    put(f"{name}/sos", f("sos"))

# Sampling frequency in Hz.
put("fs_butter/sos", signal.butter(4, 100.0, fs=1000.0, output="sos"))
put("fs_cheby1_band/sos", signal.cheby1(3, 0.5, [50.0, 120.0], btype="band", fs=500.0, output="sos"))

# Order selection and iirdesign: each family and band kind, digital and analog.
SPECS = {
    "low": ([0.2], [0.3]),
    "high": ([0.3], [0.2]),
    "pass": ([0.2, 0.5], [0.1, 0.6]),
    "stop": ([0.1, 0.6], [0.2, 0.5]),
}
ORD = {"butter": signal.buttord, "cheby1": signal.cheb1ord, "cheby2": signal.cheb2ord, "ellip": signal.ellipord}
for fam, ordfunc in ORD.items():
    for kind, (wp, ws) in SPECS.items():
        for an in [False, True]:
            name = f"ord_{fam}_{kind}_{'a' if an else 'd'}"
            n, wn = ordfunc(wp, ws, 1.0, 40.0, analog=an)
            put(f"{name}/n", n)
            put(f"{name}/wn", np.atleast_1d(wn))
            # SciPy's analog sos pairing fails on some of these: compare zpk there.
            if an:
                z, p, k = signal.iirdesign(wp, ws, 1.0, 40.0, analog=an, ftype=fam, output="zpk")
                put(f"{name}/z", np.asarray(z, complex))
                put(f"{name}/p", np.asarray(p, complex))
                put(f"{name}/k", k)
            else:
                put(f"{name}/sos", signal.iirdesign(wp, ws, 1.0, 40.0, analog=an, ftype=fam, output="sos"))
put("ord_fs/wn", np.atleast_1d(signal.buttord(100.0, 150.0, 3.0, 30.0, fs=1000.0)[1]))

# Notch and peak filters.
put("iirnotch/ba", np.stack(signal.iirnotch(0.2, 30.0)))
put("iirnotch_fs/ba", np.stack(signal.iirnotch(60.0, 20.0, fs=1000.0)))
put("iirpeak/ba", np.stack(signal.iirpeak(0.3, 10.0)))
put("iirpeak_fs/ba", np.stack(signal.iirpeak(1000.0, 5.0, fs=8000.0)))

# Conversions of a transfer function with leading zeros and a pole pair.
b = np.array([0.0, 0.5, 0.2, -0.1])
a = np.array([1.0, -0.6, 0.25, 0.1])
z, p, k = signal.tf2zpk(b, a)
put("tf2zpk/z", np.asarray(z, complex))
put("tf2zpk/p", np.asarray(p, complex))
put("tf2zpk/k", k)
put("tf2sos/sos", signal.tf2sos(b, a))
sos = signal.butter(6, 0.25, output="sos")
b2, a2 = signal.sos2tf(sos)
put("sos2tf/b", b2)
put("sos2tf/a", a2)
for pairing in ["nearest", "keep_odd", "minimal"]:
    z, p, k = signal.ellip(5, 0.5, 50, 0.3, output="zpk")
    put(f"zpk2sos_{pairing}/sos", signal.zpk2sos(z, p, k, pairing=pairing))

# Frequency responses.
b, a = signal.butter(4, 0.3)
w, h = signal.freqz(b, a, worN=64)
put("freqz/w", w)
put("freqz/h", h)
w, h = signal.freqz(b, a, worN=17, whole=True, fs=100.0)
put("freqz_whole/w", w)
put("freqz_whole/h", h)
sos = signal.cheby1(6, 1.0, [0.2, 0.4], btype="band", output="sos")
w, h = signal.sosfreqz(sos, worN=50)
put("sosfreqz/w", w)
put("sosfreqz/h", h)
w, gd = signal.group_delay((b, a), w=40)
put("group_delay/w", w)
put("group_delay/gd", gd)

# Filtering.
rng = np.random.default_rng(35)
x = rng.standard_normal((3, 200))
put("x", x)
sos = signal.butter(4, [0.1, 0.3], btype="band", output="sos")
put("filt_sos", sos)
b, a = signal.cheby1(4, 1.0, 0.25)
put("filt_b", b)
put("filt_a", a)
put("sosfilt/y", signal.sosfilt(sos, x))
put("sosfilt_axis0/y", signal.sosfilt(sos, x.T.copy(), axis=0))
zi = signal.sosfilt_zi(sos)
put("sosfilt_zi", zi)
zi3 = zi[:, None, :] * x[:, 0][None, :, None]
y, zf = signal.sosfilt(sos, x, zi=zi3)
put("sosfilt_zi/y", y)
put("sosfilt_zi/zf", zf)
put("lfilter_zi", signal.lfilter_zi(b, a))
for pad in ["odd", "even", "constant", None]:
    for padlen in [None, 0, 10]:
        if pad is None and padlen:
            continue
        tag = f"{pad}_{'none' if padlen is None else padlen}"
        put(f"filtfilt_{tag}/y", signal.filtfilt(b, a, x, padtype=pad, padlen=padlen))
        put(f"sosfiltfilt_{tag}/y", signal.sosfiltfilt(sos, x, padtype=pad, padlen=padlen))
put("filtfilt_axis0/y", signal.filtfilt(b, a, x.T.copy(), axis=0))

np.savez_compressed("iir.npz", **out)
print(f"wrote {len(out)} arrays")
