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

pub mod array;
pub mod bundle;
pub mod html;
pub mod plot;
pub mod sink;
mod values;

pub use array::{array_bundle, array_html};
pub use bundle::{
    Html, Markdown, MimeBundle, Png, RichDisplay, Svg, Text, IMAGE_PNG, IMAGE_SVG, TEXT_HTML,
    TEXT_PLAIN,
};
pub use html::{Cell, CellKind, Table};
pub use plot::Figure;
pub use sink::{
    display, display_with_id, new_display_id, show, update_display, DisplayHandle, EvcxrDisplay,
};
pub use values::format_elements;

impl RichDisplay for Table {
    fn bundle(&self) -> MimeBundle {
        let mut body = String::new();
        self.write_html(&mut body);
        MimeBundle::new(self.to_text()).with(TEXT_HTML, html::wrap("cp-table", &body))
    }
}
