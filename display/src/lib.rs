//! Rich notebook display for Cuprite: values become MIME bundles
//! (`text/plain` always, plus `text/html`, `image/png`, `image/svg+xml`).
//!
//! ```
//! use cuprite as cp;
//! use cuprite_display::RichDisplay;
//! let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
//! let b = x.bundle();
//! assert!(b.get("text/plain").unwrap().starts_with("array("));
//! assert!(b.get("text/html").unwrap().contains("<table>"));
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! How the kernel uses it: it puts `use cuprite_display::EvcxrDisplay;` in
//! every cell's scope, so a cell ending in a displayable value prints that
//! value's bundle as evcxr markers (see [`sink`]); and it sets
//! `CUPRITE_DISPLAY_SOCKET` so that [`display`] calls reach the notebook as
//! separate `display_data` messages.

#![warn(missing_docs)]

pub mod array;
pub mod bundle;
pub mod html;
pub mod plot;
pub mod progress;
pub mod report;
pub mod sink;
mod values;

pub use array::{array_bundle, array_html};
pub use bundle::{
    Html, Markdown, MimeBundle, Png, RichDisplay, Svg, Text, IMAGE_PNG, IMAGE_SVG, TEXT_HTML,
    TEXT_PLAIN,
};
pub use html::{Cell, CellKind, Table};
pub use plot::Figure;
pub use progress::{progress, Progress};
pub use report::Report;
pub use sink::{
    display, display_with_id, new_display_id, show, update_display, DisplayHandle, EvcxrDisplay,
};
pub use values::format_elements;

/// A fallible value shows its value, or its error as text (so a cell ending
/// in `cp::arange(5)` without `?` still displays).
impl<T: RichDisplay> RichDisplay for Result<T, cuprite::Error> {
    fn bundle(&self) -> MimeBundle {
        match self {
            Ok(v) => v.bundle(),
            Err(e) => MimeBundle::new(format!("Error: {e}")),
        }
    }
}

/// A scalar shows as NumPy prints one (`3.5`, `True`, `(1+2j)`).
impl RichDisplay for cuprite::Scalar {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.to_string())
    }
}

impl RichDisplay for Table {
    fn bundle(&self) -> MimeBundle {
        let mut body = String::new();
        self.write_html(&mut body);
        MimeBundle::new(self.to_text()).with(TEXT_HTML, html::wrap("cp-table", &body))
    }
}
