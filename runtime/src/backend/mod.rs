//! Where the device of an operation is matched: the `Array` methods that
//! move data between host and device or allocate on a device, and the
//! probe that says which devices exist. The core (array, layout, dtype,
//! element, storage, device, error) calls these and never imports `cuda/`.

pub(crate) mod probe;
mod transfer;
