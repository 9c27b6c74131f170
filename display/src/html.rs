//! HTML building blocks shared by every renderer: escaping, the stylesheet
//! and [`Table`] (which also renders as aligned plain text).

use std::fmt::Write as _;

/// Escapes text for HTML element content and attribute values.
///
/// ```
/// assert_eq!(cuprite_display::html::escape("<a & 'b'>"), "&lt;a &amp; &#39;b&#39;&gt;");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The stylesheet every Cuprite HTML output carries (scoped to `.cuprite`).
/// It uses JupyterLab's theme variables where they exist, so dark themes work.
pub const STYLE: &str = "<style>\n\
.cuprite{font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,13px);overflow-x:auto}\n\
.cuprite .cp-head{font-family:var(--jp-ui-font-family,sans-serif);color:var(--jp-ui-font-color2,#555);margin:2px 0 4px 0}\n\
.cuprite .cp-title{font-family:var(--jp-ui-font-family,sans-serif);font-weight:bold;font-size:1.1em;margin:2px 0 6px 0}\n\
.cuprite .cp-note{font-family:var(--jp-ui-font-family,sans-serif);color:var(--jp-ui-font-color2,#777);margin:2px 0}\n\
.cuprite table{border-collapse:collapse;margin:0 0 6px 0;table-layout:auto}\n\
.cuprite caption{text-align:left;color:var(--jp-ui-font-color2,#555);padding:4px 0 2px 0}\n\
.cuprite th,.cuprite td{padding:1px 7px;text-align:right;white-space:pre;border:none;font-family:inherit}\n\
.cuprite th{color:var(--jp-ui-font-color2,#888);font-weight:normal}\n\
.cuprite td.t,.cuprite th.t{text-align:left}\n\
.cuprite td.e,.cuprite th.e{color:var(--jp-ui-font-color2,#999);text-align:center}\n\
.cuprite tbody tr:nth-child(even){background:var(--jp-rendermime-table-row-background,rgba(127,127,127,0.08))}\n\
</style>\n";

/// What a table cell holds; it decides the element, class and alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// A row or column label (`<th>`).
    Head,
    /// A number or other right-aligned value.
    Num,
    /// Left-aligned text.
    Text,
    /// An ellipsis standing for omitted rows or columns.
    Ellipsis,
}

/// One cell of a [`Table`]: text (escaped when rendered) and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text shown (not HTML: it is escaped).
    pub text: String,
    /// How the cell is rendered.
    pub kind: CellKind,
}

impl Cell {
    /// A label cell.
    pub fn head(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            kind: CellKind::Head,
        }
    }
    /// A right-aligned value cell.
    pub fn num(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            kind: CellKind::Num,
        }
    }
    /// A left-aligned text cell.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            kind: CellKind::Text,
        }
    }
    /// An ellipsis cell (`…` across, `⋮` down, `⋱` at a crossing).
    pub fn ellipsis(symbol: &str) -> Cell {
        Cell {
            text: symbol.to_string(),
            kind: CellKind::Ellipsis,
        }
    }
}

/// A table with an optional caption and header row; renders as HTML or as
/// aligned plain text. Reports (arrays, timings, memory pools) build on it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// Text above the table.
    pub caption: Option<String>,
    /// The header row, if any.
    pub header: Option<Vec<Cell>>,
    /// The body rows.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table.
    pub fn new() -> Table {
        Table::default()
    }

    /// Sets the caption.
    pub fn caption(mut self, caption: impl Into<String>) -> Table {
        self.caption = Some(caption.into());
        self
    }

    /// Sets the header row.
    pub fn header(mut self, cells: Vec<Cell>) -> Table {
        self.header = Some(cells);
        self
    }

    /// Adds a body row.
    pub fn row(mut self, cells: Vec<Cell>) -> Table {
        self.rows.push(cells);
        self
    }

    /// Adds a body row in place.
    pub fn push_row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    /// Number of cells (header included).
    pub fn cell_count(&self) -> usize {
        self.header.as_ref().map_or(0, Vec::len) + self.rows.iter().map(Vec::len).sum::<usize>()
    }

    /// The table as an HTML `<table>` element (no stylesheet; wrap it with [`wrap`]).
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(32 + self.cell_count() * 16);
        self.write_html(&mut out);
        out
    }

    /// Appends the table's HTML to `out`.
    pub fn write_html(&self, out: &mut String) {
        out.push_str("<table>\n");
        if let Some(c) = &self.caption {
            let _ = writeln!(out, "<caption>{}</caption>", escape(c));
        }
        if let Some(h) = &self.header {
            out.push_str("<thead><tr>");
            for (i, cell) in h.iter().enumerate() {
                // A label over a text column is left-aligned like the column.
                let over_text = self
                    .rows
                    .first()
                    .and_then(|r| r.get(i))
                    .is_some_and(|b| b.kind == CellKind::Text);
                if cell.kind == CellKind::Head && over_text {
                    let _ = write!(out, "<th class=\"t\">{}</th>", escape(&cell.text));
                } else {
                    write_cell(out, cell, true);
                }
            }
            out.push_str("</tr></thead>\n");
        }
        out.push_str("<tbody>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for cell in row {
                write_cell(out, cell, false);
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }

    /// The table as plain text: columns padded to equal width, values right-aligned.
    pub fn to_text(&self) -> String {
        let all: Vec<&Vec<Cell>> = self.header.iter().chain(self.rows.iter()).collect();
        let ncols = all.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut widths = vec![0usize; ncols];
        for row in &all {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(c.text.chars().count());
            }
        }
        let mut out = String::new();
        if let Some(c) = &self.caption {
            out.push_str(c);
            out.push('\n');
        }
        for (r, row) in all.iter().enumerate() {
            let mut line = String::new();
            for (i, c) in row.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let w = widths[i];
                let pad = w.saturating_sub(c.text.chars().count());
                // Header labels follow the alignment of their column's values.
                let kind = match (r, c.kind, self.header.is_some()) {
                    (0, CellKind::Head, true) => self
                        .rows
                        .first()
                        .and_then(|row| row.get(i))
                        .map_or(CellKind::Head, |b| b.kind),
                    _ => c.kind,
                };
                match kind {
                    CellKind::Text => {
                        line.push_str(&c.text);
                        line.push_str(&" ".repeat(pad));
                    }
                    CellKind::Ellipsis => {
                        let left = pad / 2;
                        line.push_str(&" ".repeat(left));
                        line.push_str(&c.text);
                        line.push_str(&" ".repeat(pad - left));
                    }
                    _ => {
                        line.push_str(&" ".repeat(pad));
                        line.push_str(&c.text);
                    }
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
            if r == 0 && self.header.is_some() {
                let total = widths.iter().sum::<usize>() + 2 * ncols.saturating_sub(1);
                out.push_str(&"-".repeat(total));
                out.push('\n');
            }
        }
        out
    }
}

fn write_cell(out: &mut String, cell: &Cell, in_header: bool) {
    let text = escape(&cell.text);
    match cell.kind {
        CellKind::Head => {
            let _ = write!(out, "<th>{text}</th>");
        }
        CellKind::Ellipsis if in_header => {
            let _ = write!(out, "<th class=\"e\">{text}</th>");
        }
        CellKind::Ellipsis => {
            let _ = write!(out, "<td class=\"e\">{text}</td>");
        }
        CellKind::Text => {
            let _ = write!(out, "<td class=\"t\">{text}</td>");
        }
        CellKind::Num => {
            let _ = write!(out, "<td>{text}</td>");
        }
    }
}

/// Wraps body HTML in a `<div class="cuprite {class}">` with the stylesheet.
pub fn wrap(class: &str, body: &str) -> String {
    let mut out = String::with_capacity(STYLE.len() + body.len() + 64);
    out.push_str(STYLE);
    let _ = writeln!(out, "<div class=\"cuprite {}\">", escape(class));
    out.push_str(body);
    out.push_str("</div>\n");
    out
}

/// A header line (`<div class="cp-head">`) from already-plain text.
pub fn head_line(text: &str) -> String {
    format!("<div class=\"cp-head\">{}</div>\n", escape(text))
}

/// A note line (`<div class="cp-note">`) from plain text.
pub fn note_line(text: &str) -> String {
    format!("<div class=\"cp-note\">{}</div>\n", escape(text))
}

/// A byte count for people: `24 B`, `1.50 KiB`, `7.63 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let digits = if v < 10.0 {
        2
    } else if v < 100.0 {
        1
    } else {
        0
    };
    format!("{v:.digits$} {}", UNITS[unit])
}

/// Shapes as NumPy writes them: `(2, 3)`, `(5,)`, `()`.
pub fn fmt_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}
