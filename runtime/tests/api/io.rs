//! File input and output (`io/`): `.npy` files written by NumPy (committed
//! under `tests/data/npy/`, made by `generate.py` there) read on every
//! device for every dtype, both orders, both byte orders and header
//! versions 1 to 3; files written by Cuprite read back, checked against
//! the format's bytes and, when `CUPRITE_TEST_PYTHON` names a Python with
//! NumPy, read by NumPy; `.npz` both ways; text tables; raw bytes; every
//! error case; and a fuzz of headers and truncations that must give
//! errors, never panics.

use crate::common;

use std::path::{Path, PathBuf};

use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Device, Error};
use proptest::prelude::*;

/// The dtypes NumPy has (all but bfloat16), with their fixture names.
fn numpy_dtypes() -> impl Iterator<Item = DType> {
    DType::ALL.into_iter().filter(|&d| d != DType::BFloat16)
}

/// A committed fixture: under the crate where the test was built, else
/// under `runtime/` of the current directory (packed test binaries run
/// from the repository root on the GPU machine).
fn fixture(name: &str) -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy");
    let dir = if built.is_dir() {
        built
    } else {
        PathBuf::from("runtime/tests/data/npy")
    };
    dir.join(name)
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("cuprite-io-{}", std::process::id()))
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The values of the (2, 3) fixture of `dtype` (generate.py's VALUES),
/// as complex128 in C order.
fn fixture_values(dtype: DType) -> Vec<Complex64> {
    let c = |re: f64, im: f64| Complex64::new(re, im);
    let real = |v: [f64; 6]| v.iter().map(|&x| c(x, 0.0)).collect();
    match dtype.kind() {
        cp::Kind::Bool => real([1.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
        cp::Kind::Int => real([1.0, -2.0, 3.0, -4.0, 5.0, 127.0]),
        cp::Kind::UInt => real([1.0, 2.0, 3.0, 4.0, 5.0, 255.0]),
        cp::Kind::Float => real([0.5, -1.25, f64::INFINITY, 1e4, f64::NAN, -0.0]),
        cp::Kind::Complex => vec![
            c(1.0, 2.0),
            // Python's -0.5j is complex(-0.0, -0.5).
            c(-0.0, -0.5),
            c(3.0, 0.0),
            c(-1.0, -1.0),
            c(0.25, 0.0),
            c(1e3, -2.0),
        ],
    }
}

/// The fixture values as an array of `dtype`, shape (2, 3).
fn fixture_array(dtype: DType) -> Array {
    cp::asarray(fixture_values(dtype))
        .unwrap()
        .reshape([2, 3])
        .unwrap()
        .astype(dtype)
        .unwrap()
}

/// Same value: equal bits (so -0.0 differs from 0.0), or both NaN.
fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Shape, dtype and every value (bit for bit, NaN matching NaN).
#[track_caller]
fn assert_same(got: &Array, want: &Array) {
    assert_eq!(got.shape(), want.shape(), "shape");
    assert_eq!(got.dtype(), want.dtype(), "dtype");
    let as_c = |a: &Array| {
        a.astype(DType::Complex128)
            .unwrap()
            .to_vec::<Complex64>()
            .unwrap()
    };
    let (g, w) = (as_c(got), as_c(want));
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            same(a.re, b.re) && same(a.im, b.im),
            "element {i}: got {a}, want {b}"
        );
    }
}

/// The error's message, for checks of what it names.
fn message(r: cp::Result<impl std::fmt::Debug>) -> String {
    r.expect_err("expected an error").to_string()
}

on_every_device!(
    numpy_files_of_every_dtype_load_in_both_orders_and_byte_orders,
    |dev| {
        for dtype in numpy_dtypes() {
            let want = fixture_array(dtype);
            let mut names = vec![format!("{dtype}_c.npy"), format!("{dtype}_f.npy")];
            if dtype.itemsize() > 1 {
                names.push(format!("{dtype}_be.npy"));
                names.push(format!("{dtype}_be_f.npy"));
            }
            for name in names {
                let a = cp::load(fixture(&name))?;
                assert_eq!(a.device(), dev, "{name}");
                assert_same(&a, &want);
                // Fortran files load as Fortran-ordered arrays, as NumPy's do.
                assert_eq!(
                    a.is_f_contiguous(),
                    name.ends_with("_f.npy") || !a.is_c_contiguous()
                );
                assert_eq!(a.is_c_contiguous(), !name.ends_with("_f.npy"), "{name}");
            }
        }
        common::assert_no_host_fallback("loading .npy files");
    }
);

on_every_device!(header_versions_1_to_3_load, |dev| {
    // NumPy: np.arange(6, dtype=np.float64).reshape(2, 3) / 4, written by
    // np.lib.format.write_array(f, v, version=(1, 0)), (2, 0) and (3, 0).
    let want = cp::divide(
        &cp::arange(6)?.reshape([2, 3])?.astype(DType::Float64)?,
        4.0,
    )?;
    for v in 1..=3 {
        let a = cp::load_to(fixture(&format!("v{v}.npy")), &dev)?;
        assert_eq!(a.device(), dev);
        assert_same(&a, &want);
    }
});

on_every_device!(scalars_empty_arrays_and_3d_fortran_files_load, |dev| {
    // np.save("scalar.npy", np.float64(3.5))
    let s = cp::load(fixture("scalar.npy"))?;
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s.item::<f64>()?, 3.5);
    // np.save("empty.npy", np.zeros((0, 3), dtype=np.int32))
    let e = cp::load(fixture("empty.npy"))?;
    assert_eq!((e.shape(), e.dtype()), (&[0usize, 3][..], DType::Int32));
    // np.asfortranarray(np.arange(24.).reshape(2, 3, 4))
    let f = cp::load(fixture("f64_3d_f.npy"))?;
    assert!(f.is_f_contiguous() && !f.is_c_contiguous());
    let want = cp::arange(24)?.reshape([2, 3, 4])?.astype(DType::Float64)?;
    assert_same(&f, &want);
    assert_eq!(f.device(), dev);
});

on_every_device!(
    saved_arrays_of_every_dtype_load_back_in_their_order,
    |dev| {
        let dir = scratch(&format!("round_trip_{}", dev.is_cuda()));
        for dtype in numpy_dtypes() {
            let c = fixture_array(dtype);
            let f = c.asfortranarray()?;
            // A non-contiguous view is written in C order.
            let strided = cp::arange(12)?
                .reshape([3, 4])?
                .astype(dtype)?
                .slice(cp::s![.., ..;2])?;
            for (tag, a, fortran) in [("c", &c, false), ("f", &f, true), ("s", &strided, false)] {
                let path = dir.join(format!("{dtype}_{tag}.npy"));
                cp::save(&path, a)?;
                let back = cp::load(&path)?;
                assert_same(&back, a);
                assert_eq!(back.is_f_contiguous() && !back.is_c_contiguous(), fortran);
            }
        }
        // np.save appends .npy to a path without it.
        cp::save(dir.join("plain"), &cp::ones([2], DType::Float32)?)?;
        assert!(dir.join("plain.npy").exists());
        common::assert_no_host_fallback("saving and loading .npy files");
    }
);

/// The bytes of a version 1.0 `.npy` file: magic, version, header length,
/// the header dict padded with spaces to a 64-byte boundary, then data.
fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.as_bytes().to_vec();
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header);
    out.extend(data);
    out
}

#[test]
fn saved_files_have_the_bytes_of_the_format() {
    let dir = scratch("bytes");
    // float32 (2, 3) in C order: 0, 1, ..., 5.
    let a = cp::arange(6)
        .unwrap()
        .reshape([2, 3])
        .unwrap()
        .astype(DType::Float32)
        .unwrap();
    cp::save(dir.join("f32.npy"), &a).unwrap();
    let data: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
    assert_eq!(
        std::fs::read(dir.join("f32.npy")).unwrap(),
        npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, ), }",
            &data
        )
    );
    // int16 (2, 2) in Fortran order: [[1, 2], [3, 4]] stored column by column.
    let b = cp::asarray(vec![vec![1i16, 2], vec![3, 4]])
        .unwrap()
        .asfortranarray()
        .unwrap();
    cp::save(dir.join("i16f.npy"), &b).unwrap();
    let data: Vec<u8> = [1i16, 3, 2, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        std::fs::read(dir.join("i16f.npy")).unwrap(),
        npy_bytes(
            "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2, ), }",
            &data
        )
    );
    // A 0-d bool.
    cp::save(
        dir.join("b.npy"),
        &cp::asarray(vec![true])
            .unwrap()
            .reshape([] as [usize; 0])
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        std::fs::read(dir.join("b.npy")).unwrap(),
        npy_bytes(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (), }",
            &[1]
        )
    );
}

#[test]
fn bfloat16_has_no_npy_descr_and_is_refused() {
    let dir = scratch("bf16");
    let a = cp::ones([2], DType::BFloat16).unwrap();
    let e = message(cp::save(dir.join("x.npy"), &a));
    assert!(e.contains("bfloat16") && e.contains("astype"), "{e}");
    assert!(!dir.join("x.npy").exists());
    let e = message(cp::savez(dir.join("x.npz"), &[("a", &a)]));
    assert!(e.contains("bfloat16"), "{e}");
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "no file is left"
    );
    // Raw bytes keep bfloat16 as it is.
    a.tofile(dir.join("x.bin")).unwrap();
    assert_same(
        &cp::fromfile(dir.join("x.bin"), DType::BFloat16).unwrap(),
        &a,
    );
}

on_every_device!(numpy_npz_archives_load, |dev| {
    // np.savez("archive.npz", a=np.arange(5), b=np.eye(2, dtype=np.float32))
    let m = cp::load_npz(fixture("archive.npz"))?;
    assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_same(&m["a"], &cp::arange(5)?);
    assert_same(&m["b"], &cp::eye(2, None, 0, DType::Float32)?);
    assert_eq!(m["a"].device(), dev);
    // np.savez_compressed(..., a=np.arange(5), b=np.asfortranarray(np.arange(6, dtype=complex).reshape(2, 3)))
    let m = cp::load_npz(fixture("archive_compressed.npz"))?;
    assert_same(&m["a"], &cp::arange(5)?);
    let b = &m["b"];
    assert!(b.is_f_contiguous() && !b.is_c_contiguous());
    assert_same(
        b,
        &cp::arange(6)?.reshape([2, 3])?.astype(DType::Complex128)?,
    );
});

on_every_device!(savez_archives_load_back, |dev| {
    let dir = scratch(&format!("savez_{}", dev.is_cuda()));
    let x = fixture_array(DType::Float16);
    let y = fixture_array(DType::Complex64).asfortranarray()?;
    let z = cp::zeros([1000], DType::Int64)?;
    for compressed in [false, true] {
        let path = dir.join(format!("arch{compressed}"));
        let arrays = [("x", &x), ("y", &y), ("zeros", &z)];
        if compressed {
            cp::savez_compressed(&path, &arrays)?;
        } else {
            cp::savez(&path, &arrays)?;
        }
        let m = cp::load_npz(path.with_extension("npz"))?;
        assert_eq!(m.len(), 3);
        assert_same(&m["x"], &x);
        assert_same(&m["y"], &y);
        assert_same(&m["zeros"], &z);
        assert_eq!(m["y"].device(), dev);
    }
    let compressed = std::fs::metadata(dir.join("archtrue.npz")).unwrap().len();
    let stored = std::fs::metadata(dir.join("archfalse.npz")).unwrap().len();
    assert!(compressed < stored, "{compressed} >= {stored}");
    let e = message(cp::savez(dir.join("d.npz"), &[("a", &x), ("a", &x)]));
    assert!(e.contains("\"a\" is given twice"), "{e}");
    let e = message(cp::savez(dir.join("d.npz"), &[("", &x)]));
    assert!(e.contains("empty name"), "{e}");
    common::assert_no_host_fallback("savez and load_npz");
});

/// Writes `bytes` to a file in `dir` and loads it, returning the error text.
fn load_error(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let e = cp::load_to(&path, &Device::Cpu).expect_err("expected an error");
    assert!(
        matches!(e, Error::FileFormat { .. }),
        "{name}: not a format error: {e:?}"
    );
    let text = e.to_string();
    assert!(text.contains(name), "the message names the file: {text}");
    text
}

#[test]
fn bad_files_give_errors_naming_the_file_and_the_fault() {
    let dir = scratch("errors");
    let good = std::fs::read(fixture("float64_c.npy")).unwrap();
    // Missing path: an I/O error with the system's reason.
    let e = cp::load(dir.join("missing.npy")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("missing.npy"), "{e}");
    // Wrong magic, too short, an archive given to load.
    let e = load_error(&dir, "magic.npy", b"PNG\x89 not an array at all");
    assert!(e.contains("magic string"), "{e}");
    let e = load_error(&dir, "short.npy", b"\x93NUM");
    assert!(e.contains("not a .npy file"), "{e}");
    let e = load_error(
        &dir,
        "zip.npy",
        &std::fs::read(fixture("archive.npz")).unwrap(),
    );
    assert!(e.contains("load_npz"), "{e}");
    // Unsupported version.
    let mut v9 = good.clone();
    v9[6] = 9;
    let e = load_error(&dir, "version.npy", &v9);
    assert!(e.contains("version 9.0"), "{e}");
    // Truncated inside the header, and a header length past the end.
    let e = load_error(&dir, "cut_header.npy", &good[..40]);
    assert!(e.contains("truncated header"), "{e}");
    let mut long = good.clone();
    long[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
    let e = load_error(&dir, "long_header.npy", &long);
    assert!(e.contains("truncated header"), "{e}");
    // Truncated data: the shape does not match the bytes.
    let e = load_error(&dir, "cut_data.npy", &good[..good.len() - 3]);
    assert!(
        e.contains("truncated data") && e.contains("(2, 3)") && e.contains("48 bytes"),
        "{e}"
    );
    // Corrupt dicts: not a dict, a missing key, a bad shape, a bad descr.
    for (name, dict, says) in [
        ("notdict.npy", "[1, 2]", "corrupt header"),
        ("nokey.npy", "{'descr': '<f8', 'shape': (1,), }", "fortran_order"),
        ("badshape.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", "negative"),
        ("baddescr.npy", "{'descr': '<x8', 'fortran_order': False, 'shape': (1,), }", "corrupt header"),
        ("garbage.npy", "{'descr': '<f8', 'fortran_order': Fa", "corrupt header"),
        (
            "overflow.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
            "overflow",
        ),
        (
            "huge.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976,), }",
            "more elements",
        ),
    ] {
        let e = load_error(&dir, name, &npy_bytes(dict, &[0; 8]));
        assert!(e.contains(says), "{name}: {e}");
    }
    // Types Cuprite has no dtype for.
    let e = load_error(
        &dir,
        "unicode.npy",
        &std::fs::read(fixture("unicode.npy")).unwrap(),
    );
    assert!(e.contains("unsupported dtype '<U2'"), "{e}");
    let e = load_error(
        &dir,
        "object.npy",
        &std::fs::read(fixture("object.npy")).unwrap(),
    );
    assert!(e.contains("pickled"), "{e}");
    let e = load_error(
        &dir,
        "f128.npy",
        &npy_bytes(
            "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }",
            &[0; 16],
        ),
    );
    assert!(e.contains("unsupported dtype"), "{e}");
    let e = load_error(
        &dir,
        "record.npy",
        &npy_bytes(
            "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (1,), }",
            &[0; 8],
        ),
    );
    assert!(e.contains("unsupported dtype"), "{e}");
    // Not a zip archive, and a corrupt member.
    let path = dir.join("bad.npz");
    std::fs::write(&path, b"not a zip").unwrap();
    let e = cp::load_npz(&path).unwrap_err();
    assert!(
        matches!(e, Error::FileFormat { .. }) && e.to_string().contains("bad.npz"),
        "{e}"
    );
    let mut arch = std::fs::read(fixture("archive.npz")).unwrap();
    let at = arch.windows(6).position(|w| w == b"\x93NUMPY").unwrap();
    arch[at] = b'X';
    std::fs::write(&path, &arch).unwrap();
    let e = cp::load_npz(&path).unwrap_err().to_string();
    assert!(e.contains("bad.npz/a.npy") && e.contains("magic"), "{e}");
    // Saving to a directory that does not exist.
    let e = cp::save(dir.join("no/such/dir/x.npy"), &cp::arange(2).unwrap()).unwrap_err();
    assert!(
        matches!(e, Error::Io { .. }) && e.to_string().contains("x.npy"),
        "{e}"
    );
}

#[test]
fn a_failed_save_keeps_the_old_file_and_leaves_no_temporary() {
    let dir = scratch("atomic");
    let path = dir.join("x.npy");
    cp::save(&path, &cp::arange(3).unwrap()).unwrap();
    let before = std::fs::read(&path).unwrap();
    assert!(cp::save(&path, &cp::ones([2], DType::BFloat16).unwrap()).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["x.npy"]);
}

on_every_device!(memory_mapped_files_load_whole_or_by_rows, |dev| {
    let dir = scratch(&format!("mmap_{}", dev.is_cuda()));
    let a = cp::arange(20)?.reshape([5, 4])?.astype(DType::Float32)?;
    let path = dir.join("a.npy");
    cp::save(&path, &a)?;
    let m = cp::load_mmap(&path)?;
    assert_eq!(
        (m.shape(), m.dtype(), m.order()),
        (&[5usize, 4][..], DType::Float32, cp::Order::C)
    );
    assert_same(&m.load()?, &a);
    let rows = m.load_rows(1..4, &dev)?;
    assert_eq!(rows.device(), dev);
    assert_same(&rows, &a.slice(cp::s![1..4])?.copy()?);
    assert_eq!(m.load_rows(2..2, &dev)?.shape(), &[0, 4]);
    let e = message(m.load_rows(3..6, &dev));
    assert!(e.contains("outside the 5 rows"), "{e}");
    // Big-endian and Fortran files map too; Fortran rows are refused.
    let be = cp::load_mmap(fixture("int32_be.npy"))?;
    assert_same(&be.load_to(&dev)?, &fixture_array(DType::Int32));
    let f = cp::load_mmap(fixture("int32_f.npy"))?;
    assert_eq!(f.order(), cp::Order::F);
    assert!(message(f.load_rows(0..1, &dev)).contains("Fortran"));
    let e = cp::load_mmap(fixture("cut.npy")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
});

on_every_device!(raw_files_and_buffers, |dev| {
    let dir = scratch(&format!("raw_{}", dev.is_cuda()));
    let a = cp::arange(10)?.astype(DType::Int32)?;
    let path = dir.join("a.bin");
    a.tofile(&path)?;
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 40);
    assert_same(&cp::fromfile(&path, DType::Int32)?, &a);
    let part = cp::fromfile_with(
        &path,
        DType::Int32,
        &cp::RawOptions::default()
            .offset(8)
            .count(Some(3))
            .device(Some(dev)),
    )?;
    assert_eq!(part.device(), dev);
    assert_eq!(part.to_vec::<i32>()?, vec![2, 3, 4]);
    // tofile writes C order whatever the layout (NumPy's a.tofile).
    let m = cp::arange(6)?.reshape([2, 3])?.astype(DType::UInt8)?.t();
    m.tofile(&path)?;
    assert_eq!(std::fs::read(&path).unwrap(), vec![0, 3, 1, 4, 2, 5]);
    // Errors: not whole elements, a count past the end, an offset past the end.
    let e = message(cp::fromfile(&path, DType::Int32));
    assert!(e.contains("6 bytes") && e.contains("4-byte int32"), "{e}");
    let e = message(cp::fromfile_with(
        &path,
        DType::UInt8,
        &cp::RawOptions::default().count(Some(7)),
    ));
    assert!(e.contains("count 7"), "{e}");
    let e = message(cp::fromfile_with(
        &path,
        DType::UInt8,
        &cp::RawOptions::default().offset(9),
    ));
    assert!(e.contains("past the end"), "{e}");
    assert!(message(cp::fromfile(dir.join("none.bin"), DType::UInt8)).contains("none.bin"));
    // frombuffer: native byte order; bool bytes other than 0 are true.
    let bytes: Vec<u8> = [1.5f64, -2.0]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    assert_eq!(
        cp::frombuffer(&bytes, DType::Float64)?.to_vec::<f64>()?,
        vec![1.5, -2.0]
    );
    assert_eq!(
        cp::frombuffer(&[0, 1, 7], DType::Bool)?.to_vec::<bool>()?,
        vec![false, true, true]
    );
    assert!(message(cp::frombuffer(&bytes[..5], DType::Float64)).contains("multiple"));
    common::assert_no_host_fallback("raw files");
});

/// Writes `text` to `name` in `dir` and returns the path.
fn text_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

on_every_device!(loadtxt_reads_tables_with_options, |dev| {
    let dir = scratch(&format!("loadtxt_{}", dev.is_cuda()));
    let opts = cp::TextOptions::default;
    // np.loadtxt of a whitespace table with comments and blank lines.
    let p = text_file(&dir, "ws.txt", "# a b c\n1 2 3\n\n 4\t5 6 # end\n7 8 9\n");
    let a = cp::loadtxt(&p, &opts())?;
    assert_eq!(a.device(), dev);
    assert_eq!(a.shape(), &[3, 3]);
    assert_eq!(
        a.to_vec::<f64>()?,
        (1..=9).map(f64::from).collect::<Vec<_>>()
    );
    // skiprows counts comment lines; usecols with a negative index; dtype; max_rows.
    let b = cp::loadtxt(
        &p,
        &opts()
            .skiprows(2)
            .usecols(Some(vec![0, -1]))
            .dtype(DType::Int32)
            .max_rows(Some(1)),
    )?;
    assert_eq!((b.shape(), b.dtype()), (&[2usize][..], DType::Int32));
    assert_eq!(b.to_vec::<i32>()?, vec![4, 6]);
    // ndmin: a single column squeezes to 1-D, or stays a column with ndmin 2.
    let col = text_file(&dir, "col.txt", "1\n2\n3\n");
    assert_eq!(cp::loadtxt(&col, &opts())?.shape(), &[3]);
    assert_eq!(cp::loadtxt(&col, &opts().ndmin(2))?.shape(), &[3, 1]);
    let one = text_file(&dir, "one.txt", "5\n");
    assert_eq!(cp::loadtxt(&one, &opts())?.shape(), &[] as &[usize]);
    assert_eq!(cp::loadtxt(&one, &opts().ndmin(1))?.shape(), &[1]);
    let empty = text_file(&dir, "empty.txt", "# nothing\n");
    assert_eq!(cp::loadtxt(&empty, &opts())?.shape(), &[0]);
    // CSV with a custom comment marker, spaces around fields and special values.
    let csv = text_file(
        &dir,
        "t.csv",
        "// header\n1.5, -2e3, inf\nnan,+4,  -0.25 // note\n",
    );
    let c = cp::loadtxt(
        &csv,
        &opts().delimiter(Some(',')).comments(Some("//".into())),
    )?;
    let v = c.to_vec::<f64>()?;
    assert_eq!(c.shape(), &[2, 3]);
    assert_eq!((v[0], v[1], v[2]), (1.5, -2000.0, f64::INFINITY));
    assert!(v[3].is_nan());
    assert_eq!((v[4], v[5]), (4.0, -0.25));
    // Other dtypes: bool, uint8, complex (as NumPy writes it), float32.
    let t = text_file(&dir, "types.txt", "1 0 true\n");
    assert_eq!(
        cp::loadtxt(&t, &opts().dtype(DType::Bool))?.to_vec::<bool>()?,
        vec![true, false, true]
    );
    let z = text_file(&dir, "z.txt", " (1.0+2.0j)  -3j 4 1e1-1.5e-1j\n");
    let zc = cp::loadtxt(&z, &opts().dtype(DType::Complex128))?.to_vec::<Complex64>()?;
    assert_eq!(
        zc,
        vec![
            Complex64::new(1.0, 2.0),
            Complex64::new(0.0, -3.0),
            Complex64::new(4.0, 0.0),
            Complex64::new(10.0, -0.15)
        ]
    );
    let f = text_file(&dir, "f.txt", "0.1\n");
    assert_eq!(
        cp::loadtxt(&f, &opts().dtype(DType::Float32))?.to_vec::<f32>()?,
        vec![0.1f32]
    );
    // Errors: ragged rows, a value that does not parse or fit, a bad usecols.
    let ragged = text_file(&dir, "ragged.txt", "1 2 3\n4 5\n");
    let e = message(cp::loadtxt(&ragged, &opts()));
    assert!(
        e.contains("ragged.txt") && e.contains("line 2 has 2 columns"),
        "{e}"
    );
    let bad = text_file(&dir, "bad.csv", "1,2\n3,x\n");
    let e = message(cp::loadtxt(&bad, &opts().delimiter(Some(','))));
    assert!(e.contains("line 2, column 1") && e.contains("\"x\""), "{e}");
    let big = text_file(&dir, "big.txt", "300\n");
    assert!(message(cp::loadtxt(&big, &opts().dtype(DType::Int8))).contains("not a valid int8"));
    let e = message(cp::loadtxt(&ragged, &opts().usecols(Some(vec![3]))));
    assert!(e.contains("usecols index 3"), "{e}");
    assert!(message(cp::loadtxt(&ragged, &opts().delimiter(Some('é')))).contains("ASCII"));
    assert!(message(cp::loadtxt(&ragged, &opts().ndmin(3))).contains("ndmin"));
    assert!(message(cp::loadtxt(dir.join("none.txt"), &opts())).contains("none.txt"));
});

on_every_device!(genfromtxt_reads_missing_values_as_nan, |dev| {
    let dir = scratch(&format!("genfromtxt_{}", dev.is_cuda()));
    let p = text_file(&dir, "m.csv", "1,,3\n4,NA,6\n,8,9\n");
    // np.genfromtxt(p, delimiter=",") -> [[1, nan, 3], [4, nan, 6], [nan, 8, 9]]
    let a = cp::genfromtxt(&p, &cp::TextOptions::default().delimiter(Some(',')))?;
    assert_eq!(a.device(), dev);
    let n = f64::NAN;
    let want = cp::asarray(vec![
        vec![1.0, n, 3.0],
        vec![4.0, n, 6.0],
        vec![n, 8.0, 9.0],
    ])?;
    assert_same(&a, &want);
    let e = message(cp::genfromtxt(
        &p,
        &cp::TextOptions::default().dtype(DType::Int64),
    ));
    assert!(e.contains("NaN"), "{e}");
});

/// A table of `rows` rows of 3 columns (`i, i/4, -i/1000`) over more than
/// one 16 MiB block of the reader, each line ended by `end`, a comment line
/// and a blank line after every 1000th row; `edit` may replace a row's text.
fn big_table(rows: usize, sep: &str, end: &str, edit: impl Fn(usize) -> Option<String>) -> Vec<u8> {
    let mut text = format!("# a{sep}b{sep}c{end}");
    for i in 0..rows {
        match edit(i) {
            Some(row) => text.push_str(&row),
            None => text.push_str(&format!(
                "{i}{sep} {}{sep}{}",
                i as f64 / 4.0,
                -(i as f64) / 1000.0
            )),
        }
        text.push_str(end);
        if i % 1000 == 999 {
            text.push_str(&format!("   # comment{end}{end}"));
        }
    }
    text.into_bytes()
}

/// The values of `big_table`'s row `i`.
fn big_row(i: usize) -> [f64; 3] {
    [i as f64, i as f64 / 4.0, -(i as f64) / 1000.0]
}

/// The line number of `big_table`'s row `i`.
fn big_line(i: usize) -> usize {
    2 + i + 2 * (i / 1000)
}

on_every_device!(loadtxt_reads_large_tables_in_parallel_pieces, |dev| {
    let dir = scratch(&format!("loadtxt_large_{}", dev.is_cuda()));
    let rows = 700_000;
    let csv = csv_options();
    let write = |name: &str, bytes: Vec<u8>| {
        let path = dir.join(name);
        assert!(bytes.len() > 16 << 20, "{name} spans more than one block");
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let check = |a: &Array, first: usize, n: usize| -> cp::Result<()> {
        assert_eq!(a.device(), dev);
        assert_eq!(a.shape(), &[n, 3]);
        let v = a.to_vec::<f64>()?;
        for (k, row) in v.chunks(3).enumerate() {
            assert_eq!(row, big_row(first + k), "row {}", first + k);
        }
        Ok(())
    };
    // CRLF lines, spaces around fields, comments and blank lines.
    let plain = write("plain.csv", big_table(rows, ",", "\r\n", |_| None));
    check(&cp::loadtxt(&plain, &csv)?, 0, rows)?;
    check(&cp::loadtxt(&plain, &csv.clone().skiprows(3))?, 2, rows - 2)?;
    check(
        &cp::loadtxt(&plain, &csv.clone().max_rows(Some(654_321)))?,
        0,
        654_321,
    )?;
    let last = cp::loadtxt(&plain, &csv.clone().usecols(Some(vec![-1])))?;
    assert_eq!(last.shape(), &[rows]);
    assert_eq!(last.to_vec::<f64>()?[rows - 1], big_row(rows - 1)[2]);
    // Whitespace-separated.
    let ws = write("ws.txt", big_table(rows, " ", "\n", |_| None));
    check(&cp::loadtxt(&ws, &cp::TextOptions::default())?, 0, rows)?;
    // Faults deep in the file name their line; max_rows stops before them.
    let bad = write(
        "bad.csv",
        big_table(rows, ",", "\n", |i| {
            (i == 600_000).then(|| "1, x, 3".into())
        }),
    );
    let e = message(cp::loadtxt(&bad, &csv));
    let want = format!(
        "line {}, column 1: \"x\" is not a valid float64",
        big_line(600_000)
    );
    assert!(e.contains(&want) && e.contains("bad.csv"), "{e}");
    check(
        &cp::loadtxt(&bad, &csv.clone().max_rows(Some(600_000)))?,
        0,
        600_000,
    )?;
    let g = cp::genfromtxt(&bad, &csv)?;
    assert!(g.slice(cp::s![600_000, 1])?.item::<f64>()?.is_nan());
    let ragged = write(
        "ragged.csv",
        big_table(rows, ",", "\n", |i| (i == 500_001).then(|| "1, 2".into())),
    );
    let e = message(cp::loadtxt(&ragged, &csv));
    let want = format!(
        "line {} has 2 columns, but the first data row has 3",
        big_line(500_001)
    );
    assert!(e.contains(&want), "{e}");
    let mut bytes = big_table(rows, ",", "\n", |i| {
        (i == 650_000).then(|| "1, 2, 3~".into())
    });
    let at = bytes.iter().position(|&b| b == b'~').unwrap();
    bytes[at] = 0xff;
    let utf8 = write("utf8.csv", bytes);
    let e = message(cp::loadtxt(&utf8, &csv));
    assert!(
        e.contains(&format!("line {} is not valid UTF-8", big_line(650_000))),
        "{e}"
    );
    // A quote after the first block: the rest is read by the csv crate,
    // which unquotes fields; lines are still numbered from the file's start.
    let quoted = write(
        "quoted.csv",
        big_table(rows, ",", "\r\n", |i| match i {
            690_000 => Some("\"690000\", 172500, -690".into()),
            690_001 => Some("1, 2, y".into()),
            _ => None,
        }),
    );
    let e = message(cp::loadtxt(&quoted, &csv));
    assert!(
        e.contains(&format!("line {}, column 2", big_line(690_001))),
        "{e}"
    );
    check(
        &cp::loadtxt(&quoted, &csv.clone().max_rows(Some(690_001)))?,
        0,
        690_001,
    )?;
    let _ = std::fs::remove_dir_all(&dir);
});

/// `TextOptions` for comma-separated files.
fn csv_options() -> cp::TextOptions {
    cp::TextOptions::default().delimiter(Some(','))
}

on_every_device!(copy_to_slice_fills_an_existing_buffer, |dev| {
    let a = cp::arange(12)?.reshape([3, 4])?;
    assert_eq!(a.device(), dev);
    let mut out = vec![-1i64; 12];
    a.copy_to_slice(&mut out)?;
    assert_eq!(out, (0..12).collect::<Vec<i64>>());
    // Views: transposed (C order of the view), and one with an offset.
    a.t().copy_to_slice(&mut out)?;
    assert_eq!(out, [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    let mut tail = vec![0i64; 8];
    a.slice(cp::s![1..])?.copy_to_slice(&mut tail)?;
    assert_eq!(tail, (4..12).collect::<Vec<i64>>());
    // More than one 32 MiB staging chunk, from an offset.
    let n = (40 << 20) / 4 + 5;
    let big = cp::arange(n as i64 + 3)?.astype(DType::Float32)?;
    let mut host = vec![0f32; n];
    big.slice(cp::s![3..])?.copy_to_slice(&mut host)?;
    assert!(host.iter().enumerate().all(|(i, &v)| v == (i + 3) as f32));
    let mut flags = [false; 3];
    cp::asarray(vec![true, false, true])?.copy_to_slice(&mut flags)?;
    assert_eq!(flags, [true, false, true]);
    cp::zeros([0], DType::Float64)?.copy_to_slice::<f64>(&mut [])?;
    // Errors: another length, another element type.
    let e = message(a.copy_to_slice(&mut [0i64; 11]));
    assert!(
        e.contains("copy_to_slice") && e.contains("holds 11 elements") && e.contains("(3, 4)"),
        "{e}"
    );
    let e = message(a.copy_to_slice(&mut [0f64; 12]));
    assert!(
        e.contains("copy_to_slice") && e.contains("int64") && e.contains("float64"),
        "{e}"
    );
    common::assert_no_host_fallback("copy_to_slice");
});

/// Host timings of the file cases `cuprite-bench` runs on the GPU
/// (`loadtxt_csv_100MB`, `npy_save_1GB_from_device`), on the CPU device,
/// for comparison with NumPy on the same machine. Runs only when
/// `CUPRITE_IO_TIMINGS` is set (files go to `$CUPRITE_BENCH_TMP` or the
/// temporary directory); prints the median of 3 runs after a warm-up (the
/// first 1 GB writes of a process run several times slower while the page
/// cache makes room).
#[test]
fn host_io_timings() {
    if std::env::var_os("CUPRITE_IO_TIMINGS").is_none() {
        eprintln!("skipped: set CUPRITE_IO_TIMINGS=1 to time loadtxt and save on the host");
        return;
    }
    let dir = std::env::var_os("CUPRITE_BENCH_TMP")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("cuprite-io-timings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let median = |f: &mut dyn FnMut()| {
        f();
        let mut t: Vec<f64> = (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                f();
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        t.sort_by(f64::total_cmp);
        t[1]
    };
    // cuprite-bench's CSV: 1_310_720 rows of 10 `%.3f` columns.
    let csv = dir.join("table.csv");
    let mut text = String::with_capacity(110 << 20);
    for i in 0..1_310_720usize {
        for j in 0..10 {
            let v = ((10 * i + j) % 1_000_003) as f64 / 1000.0;
            text.push_str(&format!("{v:.3}{}", if j == 9 { '\n' } else { ',' }));
        }
    }
    std::fs::write(&csv, text).unwrap();
    let opts = cp::TextOptions::default()
        .delimiter(Some(','))
        .device(Some(Device::Cpu));
    let ms = median(&mut || drop(cp::loadtxt(&csv, &opts).unwrap()));
    println!("loadtxt_csv_100MB on the host: {ms:.1} ms");
    // A quote in the first line sends the whole file down the sequential
    // `csv` crate path (the reader before the parallel one).
    let mut quoted = b"# \"quoted\"\n".to_vec();
    quoted.extend(std::fs::read(&csv).unwrap());
    std::fs::write(&csv, quoted).unwrap();
    let ms = median(&mut || drop(cp::loadtxt(&csv, &opts).unwrap()));
    println!("loadtxt_csv_100MB on the host, sequential csv path: {ms:.1} ms");
    let a = cp::with_device(Device::Cpu, || cp::ones([1 << 28], DType::Float32)).unwrap();
    let npy = dir.join("save.npy");
    let ms = median(&mut || cp::save(&npy, &a).unwrap());
    println!("npy_save_1GB from the host: {ms:.1} ms");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn savetxt_writes_numpy_formats() {
    let dir = scratch("savetxt");
    let p = dir.join("out.txt");
    let read = || std::fs::read_to_string(&p).unwrap();
    let a = cp::asarray(vec![vec![1.0, -2.5], vec![1e-5, 12345.678]]).unwrap();
    // np.savetxt(p, a): '%.18e' and a space.
    cp::savetxt(&p, &a, &cp::SaveTxtOptions::default()).unwrap();
    assert_eq!(
        read(),
        "1.000000000000000000e+00 -2.500000000000000000e+00\n\
         1.000000000000000082e-05 1.234567799999999988e+04\n"
    );
    // np.savetxt(p, a, fmt="%.3g", delimiter=",", header="x,y", footer="end")
    let opts = cp::SaveTxtOptions::default()
        .fmt("%.3g".into())
        .delimiter(",".into())
        .header("x,y".into())
        .footer("end".into());
    cp::savetxt(&p, &a, &opts).unwrap();
    assert_eq!(read(), "# x,y\n1,-2.5\n1e-05,1.23e+04\n# end\n");
    // Integers with a width, a 1-D array one value per line.
    let i = cp::asarray(vec![7i64, -12]).unwrap();
    cp::savetxt(&p, &i, &cp::SaveTxtOptions::default().fmt("%5d".into())).unwrap();
    assert_eq!(read(), "    7\n  -12\n");
    cp::savetxt(
        &p,
        &i,
        &cp::SaveTxtOptions::default().fmt("%+06.1f|".into()),
    )
    .unwrap();
    assert_eq!(read(), "+007.0|\n-012.0|\n");
    // Complex as NumPy writes it: ' (re+imj)', '+-' made '-'; special values.
    let z = cp::asarray(vec![Complex64::new(1.0, -2.0)]).unwrap();
    cp::savetxt(&p, &z, &cp::SaveTxtOptions::default().fmt("%.1f".into())).unwrap();
    assert_eq!(read(), " (1.0-2.0j)\n");
    let s = cp::asarray(vec![f64::NAN, f64::NEG_INFINITY]).unwrap();
    cp::savetxt(&p, &s, &cp::SaveTxtOptions::default().fmt("%.2e".into())).unwrap();
    assert_eq!(read(), "nan\n-inf\n");
    // Round trip through loadtxt.
    cp::savetxt(&p, &a, &cp::SaveTxtOptions::default()).unwrap();
    assert_same(&cp::loadtxt(&p, &cp::TextOptions::default()).unwrap(), &a);
    // Errors.
    let e = message(cp::savetxt(
        &p,
        &cp::zeros([2, 2, 2], DType::Float64).unwrap(),
        &Default::default(),
    ));
    assert!(e.contains("(2, 2, 2)"), "{e}");
    for fmt in ["%q", "no conversion", "%d,%d", "%.3"] {
        let e = message(cp::savetxt(
            &p,
            &a,
            &cp::SaveTxtOptions::default().fmt(fmt.into()),
        ));
        assert!(e.contains("fmt"), "{fmt}: {e}");
    }
}

on_every_device!(multi_chunk_transfers_keep_every_byte, |dev| {
    // More than one 32 MiB staging chunk, with an odd tail: big-endian
    // float64 and bool bytes other than 0/1 exercise the per-chunk fix-ups.
    let dir = scratch(&format!("large_{}", dev.is_cuda()));
    let n = (40 << 20) / 8 + 3;
    let values: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 7.0).collect();
    let header = format!("{{'descr': '>f8', 'fortran_order': False, 'shape': ({n},), }}");
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
    let path = dir.join("big_be.npy");
    std::fs::write(&path, npy_bytes(&header, &data)).unwrap();
    let a = cp::load_to(&path, &dev)?;
    assert_eq!(a.device(), dev);
    assert_eq!(a.to_vec::<f64>()?, values);
    // Saved from the device and read back.
    let out = dir.join("big_out.npy");
    cp::save(&out, &a)?;
    assert_eq!(cp::load_to(&out, &Device::Cpu)?.to_vec::<f64>()?, values);
    let bools: Vec<u8> = (0..n).map(|i| (i % 5) as u8).collect();
    let bpath = dir.join("bools.bin");
    std::fs::write(&bpath, &bools).unwrap();
    let b = cp::fromfile_with(
        &bpath,
        DType::Bool,
        &cp::RawOptions::default().device(Some(dev)),
    )?;
    let want: Vec<bool> = bools.iter().map(|&x| x != 0).collect();
    assert_eq!(b.to_vec::<bool>()?, want);
    let _ = std::fs::remove_dir_all(&dir);
    common::assert_no_host_fallback("chunked loads and saves");
});

/// NumPy's side of the round trip: loads every file Cuprite wrote, checks
/// its dtype, order and values, and writes each back big-endian with
/// header versions 1 to 3 for Cuprite to read.
const NUMPY_ROUND_TRIP: &str = r#"
import sys, os
import numpy as np
from numpy.lib import format as npformat
d = sys.argv[1]
sys.path.insert(0, os.environ["FIXTURES"])
from generate import VALUES
for name in sys.argv[2:]:
    dt = np.dtype(name)
    for order in "cf":
        a = np.load(os.path.join(d, f"{name}_{order}.npy"))
        assert a.dtype == dt, (name, a.dtype)
        assert a.flags.f_contiguous == (order == "f") and a.flags.c_contiguous == (order == "c"), name
        want = np.array(VALUES[dt.kind], dtype=dt)
        np.testing.assert_array_equal(a, want)
        assert np.array_equal(np.signbit(a.real), np.signbit(want.real)), name
        for v in (1, 2, 3):
            with open(os.path.join(d, f"{name}_{order}_np{v}.npy"), "wb") as f:
                npformat.write_array(f, a.astype(dt.newbyteorder(">")), version=(v, 0))
z = np.load(os.path.join(d, "both.npz"))
np.testing.assert_array_equal(z["x"], np.arange(4))
np.testing.assert_array_equal(z["y"], np.eye(3, dtype=np.float32))
np.testing.assert_array_equal(np.loadtxt(os.path.join(d, "t.txt")), np.arange(6.0).reshape(2, 3) / 3)
np.testing.assert_array_equal(np.fromfile(os.path.join(d, "raw.bin"), dtype=np.uint16), np.arange(7))
print("numpy read everything")
"#;

#[test]
fn numpy_reads_what_cuprite_writes() {
    let Some(python) = std::env::var_os("CUPRITE_TEST_PYTHON") else {
        eprintln!("skipped: set CUPRITE_TEST_PYTHON to a Python with NumPy to run NumPy's side");
        return;
    };
    let dir = scratch("numpy_round_trip");
    for dtype in numpy_dtypes() {
        let a = fixture_array(dtype);
        cp::save(dir.join(format!("{dtype}_c.npy")), &a).unwrap();
        cp::save(
            dir.join(format!("{dtype}_f.npy")),
            &a.asfortranarray().unwrap(),
        )
        .unwrap();
    }
    let x = cp::arange(4).unwrap();
    let y = cp::eye(3, None, 0, DType::Float32).unwrap();
    cp::savez_compressed(dir.join("both.npz"), &[("x", &x), ("y", &y)]).unwrap();
    let t = cp::arange(6)
        .unwrap()
        .reshape([2, 3])
        .unwrap()
        .astype(DType::Float64)
        .unwrap()
        / 3.0;
    cp::savetxt(dir.join("t.txt"), &t, &Default::default()).unwrap();
    cp::arange(7)
        .unwrap()
        .astype(DType::UInt16)
        .unwrap()
        .tofile(dir.join("raw.bin"))
        .unwrap();
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(NUMPY_ROUND_TRIP)
        .arg(&dir)
        .env("FIXTURES", fixture(""))
        .args(numpy_dtypes().map(|d| d.name()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "NumPy failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for dtype in numpy_dtypes() {
        let want = fixture_array(dtype);
        for order in ["c", "f"] {
            for v in 1..=3 {
                let a = cp::load(dir.join(format!("{dtype}_{order}_np{v}.npy"))).unwrap();
                assert_same(&a, &want);
                assert_eq!(a.is_c_contiguous(), order == "c");
            }
        }
    }
}

/// Arbitrary `.npy` headers and mutations of a valid file: loading any of
/// them returns (an array or an error) and never panics.
mod fuzz {
    use super::*;

    fn descr() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("'<f8'".to_string()),
            Just("'>i2'".to_string()),
            Just("'|b1'".to_string()),
            Just("'<c16'".to_string()),
            Just("'<U3'".to_string()),
            Just("'|O'".to_string()),
            Just("[('a', '<f4')]".to_string()),
            "'[<>|=]?[a-zA-Z]{1,2}[0-9]{0,3}'",
            "[ -~]{0,8}",
        ]
    }

    fn shape() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::collection::vec(0u64..5, 0..4).prop_map(|v| {
                format!(
                    "({})",
                    v.iter().map(|d| format!("{d}, ")).collect::<String>()
                )
            }),
            prop::collection::vec(any::<u64>(), 1..4).prop_map(|v| format!("{v:?}")),
            Just("(-3,)".to_string()),
            Just("'x'".to_string()),
            "[ -~]{0,10}",
        ]
    }

    fn header() -> impl Strategy<Value = String> {
        (
            descr(),
            prop_oneof![Just("False"), Just("True"), Just("1")],
            shape(),
            any::<bool>(),
        )
            .prop_map(|(d, f, s, close)| {
                let end = if close { "}" } else { "" };
                format!("{{'descr': {d}, 'fortran_order': {f}, 'shape': {s}, {end}")
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_headers_give_arrays_or_errors(dict in header(), data_len in 0usize..64, version in 1u8..4) {
            let dir = scratch("fuzz_headers");
            let mut bytes = npy_bytes(&dict, &vec![0x5a; data_len]);
            if version > 1 {
                // The same header behind a 4-byte length (versions 2 and 3).
                let len = u16::from_le_bytes([bytes[8], bytes[9]]) as u32;
                bytes[6] = version;
                bytes.splice(8..10, len.to_le_bytes());
            }
            let path = dir.join("h.npy");
            std::fs::write(&path, &bytes).unwrap();
            if let Ok(a) = cp::load_to(&path, &Device::Cpu) {
                prop_assert_eq!(a.nbytes() <= data_len, true);
            }
        }

        #[test]
        fn truncated_and_corrupted_files_give_errors(name_index in 0usize..6, cut in any::<prop::sample::Index>(),
                                                     flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4)) {
            let names = ["float64_c.npy", "int16_be_f.npy", "complex64_c.npy", "bool_f.npy", "v3.npy", "scalar.npy"];
            let good = std::fs::read(fixture(names[name_index])).unwrap();
            let dir = scratch("fuzz_cuts");
            let path = dir.join("c.npy");
            // A strict prefix: always an error.
            let cut_at = cut.index(good.len());
            std::fs::write(&path, &good[..cut_at]).unwrap();
            let r = cp::load_to(&path, &Device::Cpu);
            prop_assert!(matches!(r, Err(Error::FileFormat { .. })), "{:?}", r.map(|a| a.shape().to_vec()));
            // Bytes of the header changed: an array or an error.
            let mut bad = good.clone();
            let header_end = 128.min(bad.len());
            for (at, byte) in &flips {
                bad[at.index(header_end)] = *byte;
            }
            std::fs::write(&path, &bad).unwrap();
            let _ = cp::load_to(&path, &Device::Cpu);
            let _ = cp::load_mmap(&path).and_then(|m| m.load_to(&Device::Cpu));
        }
    }
}

/// An array of more than 4 GiB (sizes and offsets past 32 bits in the
/// header, the staging loop and the file) saved from the GPU and loaded
/// back to it. Ignored by default: it needs about 15 GB of host memory and
/// disk; the GPU machine's runs include ignored tests.
#[test]
#[ignore = "needs a GPU and about 15 GB of memory and disk"]
fn arrays_above_4_gib_round_trip_on_the_gpu() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let dir = scratch("above_4_gib");
    let path = dir.join("big.npy");
    let n = (4usize << 30) + 3 * (1 << 20) + 5;
    cp::with_device(dev, || {
        // Marks around the 4 GiB boundary and at both ends.
        let mut a = cp::zeros([n], DType::UInt8)?;
        let marks = vec![0i64, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, n as i64 - 1];
        a.put(
            marks,
            cp::asarray(vec![1u8, 2, 3, 4, 200])?,
            cp::PutMode::Raise,
        )?;
        cp::save(&path, &a)?;
        assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, n + 128);
        let back = cp::load_to(&path, &dev)?;
        assert_eq!(back.device(), dev);
        assert_eq!(back.shape(), &[n]);
        assert!(cp::array_equal(&a, &back)?);
        assert_eq!(back.slice(cp::s![-1])?.item::<u8>()?, 200);
        Ok::<(), cp::Error>(())
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
