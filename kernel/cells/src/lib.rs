//! The crates every notebook cell uses, in one shared library.
//!
//! Each cell of a `cuprite-kernel` session is compiled into a library of its
//! own. Were the runtime and its dependencies linked into each one
//! statically, every cell's library would carry a copy of them (tens of MB),
//! and linking it would be most of a small cell's time. Cells depend on this
//! crate alone (built once per build folder as a Rust `dylib`) and reach the
//! others through these re-exports, which the session brings into scope:
//! `use cuprite_cells::{cuprite, cuprite_display, cuprite_kernel_io};`.

pub use cuprite;
pub use cuprite_display;
pub use cuprite_kernel_io;
