//! Distance transforms: exact Euclidean (one lower-envelope pass per axis)
//! and chessboard / taxicab.

use super::{check_input, contiguous_as, per_axis, wrap};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// The Euclidean distance of every non-zero element to the nearest zero
/// element, with grid spacing `sampling` (one or per axis; default 1),
/// and with `return_indices` that element's coordinates, `(ndim,
/// shape...)` int64 (`scipy.ndimage.distance_transform_edt`). Without any
/// zero element the distances are infinite.
pub fn distance_transform_edt(
    input: &Array,
    sampling: Option<&[f64]>,
    return_indices: bool,
) -> Result<(Array, Option<Array>)> {
    let op = "ndimage.distance_transform_edt";
    check_input(op, input)?;
    let nd = input.ndim();
    if nd == 0 {
        return Err(Error::Shape {
            op,
            detail: "a 0-d input has no grid".into(),
        });
    }
    let sampling = per_axis(op, "sampling", sampling.unwrap_or(&[1.0]), nd)?;
    if sampling.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("sampling {sampling:?} must be finite and positive"),
        });
    }
    let mask = contiguous_as(&crate::not_equal(input, 0)?, DType::UInt8)?;
    let be = crate::backend::on(op, input.device())?;
    let (d, i) = be.edt(op, mask.view(), &sampling, return_indices)?;
    let mut ishape = vec![nd];
    ishape.extend_from_slice(input.shape());
    Ok((
        wrap(d, input.shape(), DType::Float64),
        i.map(|i| wrap(i, &ishape, DType::Int64)),
    ))
}

/// Chessboard (`"chessboard"`, L-infinity) or taxicab (`"taxicab"`,
/// `"cityblock"`, `"manhattan"`, L1) distance of every non-zero element to
/// the nearest zero element, int32; -1 where there is none
/// (`scipy.ndimage.distance_transform_cdt`).
pub fn distance_transform_cdt(input: &Array, metric: &str) -> Result<Array> {
    let op = "ndimage.distance_transform_cdt";
    check_input(op, input)?;
    let chessboard = match metric {
        "chessboard" => true,
        "taxicab" | "cityblock" | "manhattan" => false,
        m => {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("metric {m:?} is not chessboard, taxicab, cityblock or manhattan"),
            })
        }
    };
    if input.ndim() == 0 {
        return Err(Error::Shape {
            op,
            detail: "a 0-d input has no grid".into(),
        });
    }
    let mask = contiguous_as(&crate::not_equal(input, 0)?, DType::UInt8)?;
    let be = crate::backend::on(op, input.device())?;
    Ok(wrap(
        be.cdt(op, mask.view(), chessboard)?,
        input.shape(),
        DType::Int32,
    ))
}
