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
//! What renders what:
//! * [`cuprite::Array`]: NumPy's `repr` as text, and an HTML header line
//!   (shape, dtype, device, bytes) over tables, summarized with
//!   `cp::set_printoptions` and capped at [`array::MAX_HTML_BYTES`] ([`mod@array`]).
//! * [`plot::Figure`]: PNG (base64, with width/height metadata) and SVG, from
//!   [`plot::line`], [`plot::line_xy`], [`plot::scatter`], [`plot::hist`],
//!   [`plot::imshow`] and several panels ([`plot`]).
//! * [`Report`]: a title over [`Table`]s, figures and notes; [`Timings`]
//!   (benchmark tables, run histograms, GB/s and FLOP/s against peak),
//!   [`MemoryReport`] (pool tables and stacked bars), [`DeviceInfo`] — plain
//!   data that the runtime's profiler, pools and devices will convert into;
//!   [`progress()`] bars; [`Html`], [`Markdown`],
//!   [`Text`], [`Png`], [`Svg`] wrappers; any `cuprite::Result<T>`.
//!
//! # For the kernel
//! The Cuprite kernel puts `use cuprite_display::cp;` (the runtime plus
//! plots, displays and progress bars, see [`cp`]) and
//! `use cuprite_display::prelude::*;` in every cell's scope. Then:
//! * a cell ending in a displayable value is shown through evcxr:
//!   [`EvcxrDisplay`] gives every [`RichDisplay`] type the `evcxr_display`
//!   method that evcxr calls, which prints `EVCXR_BEGIN_CONTENT <mime>` blocks
//!   on stdout (the `execute_result`);
//! * [`display`], [`display_with_id`], [`update_display`], [`DisplayHandle`],
//!   [`clear_output`] and [`progress()`] write one in-band frame per output
//!   into stdout, which the kernel's output capture turns into
//!   `display_data` / `update_display_data` / `clear_output` in order with
//!   the cell's text (protocol in [`sink`]). Outside the kernel they print
//!   the `text/plain` part (and progress bars draw on stderr).

#![warn(missing_docs)]

pub mod array;
pub mod bundle;
pub mod dist;
pub mod html;
pub mod memory;
pub mod plot;
pub mod progress;
pub mod report;
pub mod sink;
pub mod timing;
mod values;

pub use array::{array_bundle, array_html};
pub use bundle::{
    Html, Markdown, MimeBundle, Png, RichDisplay, Svg, Text, IMAGE_PNG, IMAGE_SVG, TEXT_HTML,
    TEXT_PLAIN,
};
pub use html::{Cell, CellKind, Table};
pub use memory::{DeviceInfo, MemoryReport, PoolStats};
pub use plot::Figure;
pub use progress::{progress, Progress};
pub use report::Report;
pub use sink::{
    clear_output, display, display_with_id, new_display_id, show, update_display, DisplayHandle,
    EvcxrDisplay,
};
pub use timing::Timings;
pub use values::format_elements;

/// What a notebook cell needs in scope: `use cuprite_display::prelude::*;`.
pub mod prelude {
    pub use crate::plot::{self, Axes, Figure};
    pub use crate::{
        clear_output, display, display_with_id, progress, update_display, DisplayHandle,
        EvcxrDisplay, Html, Markdown, MimeBundle, Report, RichDisplay, Table, Text,
    };
}

/// The namespace notebook cells call `cp` (`use cuprite_display::cp;`): the
/// whole runtime (`cp::arange`, `cp::f32`, `cp::cuda`, ...) plus plots,
/// displays, progress bars and reports, so that cells read like the CuPy
/// workshop: `cp::plot::line(&y)?`, `cp::progress(0..n)`, `cp::display(&x)`,
/// `cp::memory_pool()`.
///
/// ```
/// use cuprite_display::cp;
/// let x = cp::arange(4)?;
/// let total: usize = cp::progress(0..3usize).sum();
/// let fig = cp::plot::line(&x)?;
/// assert_eq!(total, 3);
/// assert!(cp::RichDisplay::bundle(&fig).contains("image/png"));
/// # Ok::<(), cp::Error>(())
/// ```
pub mod cp {
    pub use cuprite::*;

    pub use crate::memory::{device_info, memory_pool, memory_report};
    pub use crate::{
        clear_output, display, display_with_id, plot, progress, show, update_display, DeviceInfo,
        DisplayHandle, Html, Markdown, MemoryReport, MimeBundle, PoolStats, Progress, Report,
        RichDisplay, Table, Text, Timings,
    };
}

/// A fallible value shows its value (so a cell ending in `cp::arange(5)`
/// without `?` displays the array). An error shows as text outside the
/// kernel; in the kernel a cell ending in one fails with it, as `?` would
/// ([`RichDisplay::error`]).
impl<T: RichDisplay> RichDisplay for Result<T, cuprite::Error> {
    fn bundle(&self) -> MimeBundle {
        match self {
            Ok(v) => v.bundle(),
            Err(e) => MimeBundle::new(format!("Error: {e}")),
        }
    }
    fn error(&self) -> Option<(String, String)> {
        match self {
            Ok(v) => v.error(),
            Err(e) => Some((error_name(e), e.to_string())),
        }
    }
}

/// The name a notebook shows for a runtime error, after its kind:
/// `Error::Shape` is `ShapeError`, and an interrupt is Python's
/// `KeyboardInterrupt`.
pub fn error_name(e: &cuprite::Error) -> String {
    if matches!(e, cuprite::Error::Interrupted { .. }) {
        return "KeyboardInterrupt".into();
    }
    // The variant's name starts its Debug form (`Shape { op: .. }`).
    let debug = format!("{e:?}");
    let kind: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if kind.is_empty() {
        "Error".into()
    } else {
        format!("{kind}Error")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_values_name_their_kind() {
        let err: cuprite::Result<cuprite::Array> =
            cuprite::arange(10).and_then(|a| a.reshape([3, 4]));
        let (ename, evalue) = err.error().expect("an error value");
        assert_eq!(ename, "ShapeError");
        assert!(evalue.starts_with("reshape"), "{evalue}");
        assert!(err.bundle().get(TEXT_PLAIN).unwrap().starts_with("Error: "));
        let ok = cuprite::arange(3);
        assert!(ok.error().is_none());
        assert!(ok.bundle().contains(TEXT_HTML));
        let stopped = cuprite::Error::Interrupted { op: "add" };
        assert_eq!(error_name(&stopped), "KeyboardInterrupt");
    }
}
