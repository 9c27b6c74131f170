//! Reports: a title, then tables, figures and notes in order, as one bundle
//! (HTML with figures inlined as PNG, and plain text). Timing reports and
//! memory-pool charts are built from these pieces.

use std::fmt::Write as _;

use crate::bundle::{base64_encode, MimeBundle, RichDisplay, TEXT_HTML};
use crate::html::{self, Table};
use crate::plot::Figure;

/// One part of a [`Report`].
#[derive(Debug, Clone, PartialEq)]
pub enum Section {
    /// A table (HTML table, aligned text).
    Table(Table),
    /// A chart (inline PNG in HTML, its description in text).
    Figure(Figure),
    /// A line of plain text.
    Note(String),
}

/// A titled sequence of tables, figures and notes shown as one output.
///
/// ```
/// use cuprite_display::{report::Report, Cell, Table, RichDisplay};
/// let t = Table::new()
///     .header(vec![Cell::head("stat"), Cell::head("ms")])
///     .row(vec![Cell::text("mean"), Cell::num("1.25")]);
/// let r = Report::new("Timing").table(t).note("100 runs");
/// let b = r.bundle();
/// assert!(b.text_plain().starts_with("Timing\n"));
/// assert!(b.get("text/html").unwrap().contains("<td>1.25</td>"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// The heading.
    pub title: String,
    /// The parts, in order.
    pub sections: Vec<Section>,
}

impl Report {
    /// An empty report with a heading.
    pub fn new(title: impl Into<String>) -> Report {
        Report {
            title: title.into(),
            sections: Vec::new(),
        }
    }

    /// Appends a table.
    pub fn table(mut self, table: Table) -> Report {
        self.sections.push(Section::Table(table));
        self
    }

    /// Appends a figure.
    pub fn figure(mut self, figure: Figure) -> Report {
        self.sections.push(Section::Figure(figure));
        self
    }

    /// Appends a note.
    pub fn note(mut self, text: impl Into<String>) -> Report {
        self.sections.push(Section::Note(text.into()));
        self
    }

    /// The report as plain text.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.title);
        for s in &self.sections {
            match s {
                Section::Table(t) => out.push_str(&t.to_text()),
                Section::Figure(f) => {
                    out.push_str(&f.describe());
                    out.push('\n');
                }
                Section::Note(n) => {
                    out.push_str(n);
                    out.push('\n');
                }
            }
        }
        out.trim_end().to_string()
    }

    /// The report as HTML (stylesheet included).
    pub fn to_html(&self) -> String {
        let mut body = format!(
            "<div class=\"cp-title\">{}</div>\n",
            html::escape(&self.title)
        );
        for s in &self.sections {
            match s {
                Section::Table(t) => t.write_html(&mut body),
                Section::Figure(f) => match f.to_png() {
                    Ok(png) => {
                        let _ = writeln!(
                            body,
                            "<img width=\"{}\" height=\"{}\" alt=\"{}\" src=\"data:image/png;base64,{}\"/>",
                            png.width,
                            png.height,
                            html::escape(&f.describe()),
                            base64_encode(&png.bytes)
                        );
                    }
                    Err(e) => body.push_str(&html::note_line(&format!("(chart failed: {e})"))),
                },
                Section::Note(n) => body.push_str(&html::note_line(n)),
            }
        }
        html::wrap("cp-report", &body)
    }
}

impl RichDisplay for Report {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.to_text()).with(TEXT_HTML, self.to_html())
    }
}
