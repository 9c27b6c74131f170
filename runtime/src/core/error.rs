//! The one error type of the runtime: every fallible public call returns it.

use crate::core::dtype::DType;

/// Shapes as they appear in messages: `(2, 3)`, `(5,)`, `()`.
pub fn fmt_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// What went wrong, with the operation and the inputs that caused it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two or more shapes cannot be broadcast together.
    #[error("{op}: cannot broadcast shapes {}", .shapes.iter().map(|s| fmt_shape(s)).collect::<Vec<_>>().join(" and "))]
    Broadcast {
        op: &'static str,
        shapes: Vec<Vec<usize>>,
    },
    /// A shape is wrong for the operation; `detail` says what would be valid.
    #[error("{op}: {detail}")]
    Shape { op: &'static str, detail: String },
    /// An axis is out of range for the array's rank, or repeated.
    #[error("{op}: axis {axis} is out of bounds for an array of dimension {ndim} (valid: {} to {})", -(*.ndim as isize), *.ndim as isize - 1)]
    Axis {
        op: &'static str,
        axis: isize,
        ndim: usize,
    },
    /// The dtype is not supported by the operation.
    #[error("{op}: {detail}")]
    DType { op: &'static str, detail: String },
    /// A cast that the casting rule forbids.
    #[error("{op}: cannot cast {from} to {to} under the '{casting}' casting rule")]
    Cast {
        op: &'static str,
        from: DType,
        to: DType,
        casting: &'static str,
    },
    /// An index outside the array (Cuprite raises where CuPy would wrap silently).
    #[error("{op}: index {index} is out of bounds for axis {axis} with size {size}")]
    IndexOutOfBounds {
        op: &'static str,
        index: i64,
        axis: usize,
        size: usize,
    },
    /// A reduction over zero elements that has no identity (min, max, argmin, argmax).
    #[error("{op}: zero-size reduction over an array of shape {} has no identity", fmt_shape(.shape))]
    EmptyReduction { op: &'static str, shape: Vec<usize> },
    /// An argument value that is not allowed.
    #[error("{op}: {detail}")]
    InvalidArgument { op: &'static str, detail: String },
    /// A size or index computation that overflows.
    #[error("{op}: {detail} overflows")]
    Overflow { op: &'static str, detail: String },
    /// Arrays on different devices were mixed in one operation.
    #[error(
        "{op}: arrays are on different devices ({a} and {b}); copy one with `.to_device(..)` first"
    )]
    DeviceMismatch {
        op: &'static str,
        a: String,
        b: String,
    },
    /// The operation exists only on the CUDA backend.
    #[error("{op} needs the CUDA backend, but {reason}")]
    NeedsCuda { op: &'static str, reason: String },
    /// CUDA (driver or a library) could not be loaded or has no device.
    #[error("CUDA is unavailable: {reason}")]
    CudaUnavailable { reason: String },
    /// A CUDA call failed; `detail` names the CUDA error. A sticky error
    /// (such as an illegal address) says so and that the session must restart.
    #[error("{op}: CUDA error {detail}")]
    Cuda { op: String, detail: String },
    /// The device memory pool could not satisfy a request, even after
    /// releasing its cached blocks.
    #[error("{op}: out of memory on {device} allocating {} ({}); {detail}", fmt_bytes(*.requested), .requested)]
    OutOfMemory {
        op: &'static str,
        device: String,
        requested: usize,
        detail: String,
    },
    /// A kernel failed to compile; `log` is NVRTC's log with line numbers of
    /// the user's source.
    #[error("compiling `{name}` failed:\n{log}")]
    Compile { name: String, log: String },
    /// The operation was interrupted (Jupyter's interrupt, Ctrl-C).
    #[error("{op}: interrupted")]
    Interrupted { op: &'static str },
    /// A linear-algebra routine failed on this input (singular matrix, not
    /// positive definite, no convergence); `detail` says what and where.
    #[error("{op}: {detail}")]
    LinAlg { op: &'static str, detail: String },
    /// A CUDA library that the operation needs (cuBLAS, cuFFT, NCCL, ...)
    /// could not be loaded; `detail` lists where it was looked for.
    #[error("{op} needs {library}, which could not be loaded: {detail}")]
    MissingLibrary {
        op: &'static str,
        library: &'static str,
        detail: String,
    },
    /// An NCCL call failed; `detail` names NCCL's error and its last message.
    #[error("{op}: NCCL error {detail}")]
    Nccl { op: &'static str, detail: String },
    /// Reading or writing a file failed (missing path, permissions, a full
    /// disk); `detail` is the system's message.
    #[error("{op}: {path}: {detail}")]
    Io {
        op: &'static str,
        path: String,
        detail: String,
    },
    /// A file's contents are not what the format requires (wrong magic,
    /// a corrupt or truncated header, fewer data bytes than the header
    /// promises, a dtype Cuprite cannot hold); `detail` says what.
    #[error("{op}: {path}: {detail}")]
    FileFormat {
        op: &'static str,
        path: String,
        detail: String,
    },
}

impl Error {
    /// An [`Error::InvalidArgument`] of `op`: the shorthand that the
    /// validation code of every module uses.
    pub fn invalid(op: &'static str, detail: impl Into<String>) -> Error {
        Error::InvalidArgument {
            op,
            detail: detail.into(),
        }
    }

    /// An [`Error::Shape`] of `op`.
    pub fn shape(op: &'static str, detail: impl Into<String>) -> Error {
        Error::Shape {
            op,
            detail: detail.into(),
        }
    }
}

/// A byte count for people: `1.50 GiB`.
pub fn fmt_bytes(n: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// Shorthand for `Result<T, cuprite::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_operation_and_shapes() {
        let e = Error::Broadcast {
            op: "add",
            shapes: vec![vec![3, 4], vec![5]],
        };
        assert_eq!(
            e.to_string(),
            "add: cannot broadcast shapes (3, 4) and (5,)"
        );
        let e = Error::Axis {
            op: "sum",
            axis: 2,
            ndim: 2,
        };
        assert_eq!(
            e.to_string(),
            "sum: axis 2 is out of bounds for an array of dimension 2 (valid: -2 to 1)"
        );
        assert_eq!(fmt_shape(&[]), "()");
    }
}
