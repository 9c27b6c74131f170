"""Writes the NumPy fixtures read by runtime/tests/api/io.rs (run once; the files are committed).

/work/lead/npenv/bin/python runtime/tests/data/npy/generate.py
"""
import os

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))

# The values of every dtype's (2, 3) fixture; io.rs writes the same lists.
VALUES = {
    "b": [[True, False, True], [False, False, True]],
    "i": [[1, -2, 3], [-4, 5, 127]],
    "u": [[1, 2, 3], [4, 5, 255]],
    "f": [[0.5, -1.25, np.inf], [1e4, np.nan, -0.0]],
    "c": [[1 + 2j, -0.5j, 3], [-1 - 1j, 0.25, 1e3 - 2j]],
}
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def path(name):
    return os.path.join(HERE, name)


def main():
    for name in DTYPES:
        dt = np.dtype(name)
        a = np.array(VALUES[dt.kind], dtype=dt)
        np.save(path(f"{name}_c.npy"), a)
        np.save(path(f"{name}_f.npy"), np.asfortranarray(a))
        if dt.itemsize > 1:
            np.save(path(f"{name}_be.npy"), a.astype(dt.newbyteorder(">")))
            np.save(path(f"{name}_be_f.npy"), np.asfortranarray(a.astype(dt.newbyteorder(">"))))
    v = np.arange(6, dtype=np.float64).reshape(2, 3) / 4
    for version in [(1, 0), (2, 0), (3, 0)]:
        with open(path(f"v{version[0]}.npy"), "wb") as f:
            npformat.write_array(f, v, version=version)
    np.save(path("scalar.npy"), np.float64(3.5))
    np.save(path("empty.npy"), np.zeros((0, 3), dtype=np.int32))
    np.save(path("f64_3d_f.npy"), np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4)))
    np.savez(path("archive.npz"), a=np.arange(5, dtype=np.int64), b=np.eye(2, dtype=np.float32))
    np.savez_compressed(path("archive_compressed.npz"), a=np.arange(5, dtype=np.int64),
                        b=np.asfortranarray(np.arange(6, dtype=np.complex128).reshape(2, 3)))
    # A type Cuprite has no dtype for (strings) and an object array (pickled).
    np.save(path("unicode.npy"), np.array(["ab", "c"]))
    np.save(path("object.npy"), np.array([1, "x"], dtype=object), allow_pickle=True)


if __name__ == "__main__":
    main()
