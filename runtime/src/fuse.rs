//! `cp::fuse`: elementwise expressions compiled into one kernel.
