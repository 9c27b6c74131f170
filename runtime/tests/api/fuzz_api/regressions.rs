//! Each panic the API fuzzing found, kept as a case: the call now returns
//! `Ok` or an `Err` naming its operation.

#[allow(unused_imports)]
use cuprite as cp;
