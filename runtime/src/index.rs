//! (filled in by its own change)

/// Builds a slice specification: `s![.., 1..3, 2]` (placeholder until indexing lands).
#[macro_export]
macro_rules! s {
    ($($t:tt)*) => {
        ()
    };
}
