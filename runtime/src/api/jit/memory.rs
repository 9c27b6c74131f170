//! Element access for kernels run on the CPU: a [`Slice`] is a checked
//! handle to an array argument or a block's shared memory. Every element is
//! read and written as an atomic of its size (relaxed), so the threads of a
//! block that run concurrently never race in Rust's sense, and atomics are
//! compare-and-swap loops on the same bits.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use super::grid::{fault_position, Fault};

/// A scalar that kernels can keep in arrays: plain data of 1, 2, 4 or 8 bytes.
pub trait JitElem: Copy + Send + Sync + 'static {
    /// The value's bits, zero-extended.
    fn to_bits64(self) -> u64;
    /// The value from bits made by `to_bits64`.
    fn from_bits64(bits: u64) -> Self;
}

macro_rules! jit_int {
    ($($t:ty => $u:ty),*) => {$(
        impl JitElem for $t {
            fn to_bits64(self) -> u64 { self as $u as u64 }
            fn from_bits64(bits: u64) -> Self { bits as $u as $t }
        }
    )*};
}
jit_int!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => u64, u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => u64);

impl JitElem for f32 {
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}
impl JitElem for f64 {
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}
impl JitElem for half::f16 {
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(bits: u64) -> Self {
        half::f16::from_bits(bits as u16)
    }
}
impl JitElem for half::bf16 {
    fn to_bits64(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits64(bits: u64) -> Self {
        half::bf16::from_bits(bits as u16)
    }
}
impl JitElem for bool {
    fn to_bits64(self) -> u64 {
        self as u64
    }
    fn from_bits64(bits: u64) -> Self {
        bits != 0
    }
}

/// An integer usable as an index (negative ones are reported, not wrapped).
pub trait JitIndex: Copy {
    /// The value, widened.
    fn index(self) -> i128;
}
macro_rules! jit_index {
    ($($t:ty),*) => {$(
        impl JitIndex for $t {
            fn index(self) -> i128 { self as i128 }
        }
    )*};
}
jit_index!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// Reads the element at `p` atomically.
///
/// # Safety
/// `p` points to a live, aligned `T`.
unsafe fn load<T: JitElem>(p: *mut T) -> T {
    unsafe {
        let bits = match std::mem::size_of::<T>() {
            1 => AtomicU8::from_ptr(p.cast()).load(Relaxed) as u64,
            2 => AtomicU16::from_ptr(p.cast()).load(Relaxed) as u64,
            4 => AtomicU32::from_ptr(p.cast()).load(Relaxed) as u64,
            _ => AtomicU64::from_ptr(p.cast()).load(Relaxed),
        };
        T::from_bits64(bits)
    }
}

/// Replaces the element at `p` with `f(old)` atomically; returns `old`.
///
/// # Safety
/// As [`load`].
unsafe fn update<T: JitElem>(p: *mut T, f: impl Fn(T) -> T) -> T {
    unsafe {
        macro_rules! cas {
            ($a:ty, $u:ty) => {{
                let a = <$a>::from_ptr(p.cast());
                let mut old = a.load(Relaxed);
                loop {
                    let new = f(T::from_bits64(old as u64)).to_bits64() as $u;
                    match a.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                        Ok(prev) => break T::from_bits64(prev as u64),
                        Err(now) => old = now,
                    }
                }
            }};
        }
        match std::mem::size_of::<T>() {
            1 => cas!(AtomicU8, u8),
            2 => cas!(AtomicU16, u16),
            4 => cas!(AtomicU32, u32),
            _ => cas!(AtomicU64, u64),
        }
    }
}

/// A kernel's view of an array argument or of shared memory on the CPU:
/// indexing is checked and reports the index, the length and the array.
#[derive(Clone, Copy)]
pub struct Slice<T> {
    ptr: *mut T,
    len: usize,
    name: &'static str,
}

// SAFETY: every access goes through atomics (see the module doc), and the
// memory outlives the launch that hands the slice out.
unsafe impl<T: Send> Send for Slice<T> {}
unsafe impl<T: Sync> Sync for Slice<T> {}

impl<T: JitElem> Slice<T> {
    /// A slice over `len` elements at `ptr`, which must stay valid and
    /// aligned while kernels run.
    pub(crate) fn new(ptr: *mut T, len: usize, name: &'static str) -> Slice<T> {
        Slice { ptr, len, name }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn slot(&self, i: impl JitIndex) -> Result<*mut T, Fault> {
        let i = i.index();
        if i < 0 || i >= self.len as i128 {
            return Err(Fault::OutOfBounds {
                array: self.name,
                index: i,
                len: self.len,
                at: fault_position(),
            });
        }
        // SAFETY: in bounds of the allocation this slice was made over.
        Ok(unsafe { self.ptr.add(i as usize) })
    }

    /// Element `i`.
    pub fn at(&self, i: impl JitIndex) -> Result<T, Fault> {
        let p = self.slot(i)?;
        // SAFETY: `slot` checked the index.
        Ok(unsafe { load(p) })
    }

    /// Sets element `i`.
    pub fn set(&self, i: impl JitIndex, v: T) -> Result<(), Fault> {
        let p = self.slot(i)?;
        // SAFETY: `slot` checked the index.
        unsafe { update(p, |_| v) };
        Ok(())
    }

    /// Replaces element `i` with `f(old)` atomically; returns `old`.
    pub(crate) fn update(&self, i: impl JitIndex, f: impl Fn(T) -> T) -> Result<T, Fault> {
        let p = self.slot(i)?;
        // SAFETY: `slot` checked the index.
        Ok(unsafe { update(p, f) })
    }
}
