//! Launch geometry shared by user kernels and the backend that launches them.

/// Grid or block extents in x, y, z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent in x.
    pub x: u32,
    /// Extent in y.
    pub y: u32,
    /// Extent in z.
    pub z: u32,
}

impl Dim3 {
    /// Number of threads (or blocks) in all.
    pub fn count(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}
