//! The workshop's first program and basic creation, on every device.

use crate::common;
use common::*;
use cuprite as cp;

on_every_device!(first_program_shape_and_dtype, |dev| {
    let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
    assert_eq!(x.shape(), &[2, 3]);
    assert_eq!(x.dtype(), cp::float32);
    assert_eq!(x.device(), dev);
    assert_exact(&x, &[2, 3], &[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0]);
});
