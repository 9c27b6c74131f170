//! Distributed arrays as MIME bundles: the global shape, dtype and split,
//! a table of ranks (host, device, block), and a preview of the first rows.
//! Showing one is collective (every rank of an SPMD notebook shows it): the
//! placement is one small all-gather and the preview gathers only its rows.

use cuprite::dist::DistArray;

use crate::array::array_html;
use crate::bundle::{MimeBundle, RichDisplay, TEXT_HTML};
use crate::html::{self, Cell, Table};

/// Rows (along the split axis) of the preview.
const PREVIEW_ROWS: usize = 6;

impl RichDisplay for DistArray {
    fn bundle(&self) -> MimeBundle {
        dist_bundle(self)
    }
}

/// The bundle of a distributed array (see the module doc).
pub fn dist_bundle(d: &DistArray) -> MimeBundle {
    let split = match d.split() {
        Some(ax) => format!("split along axis {ax}"),
        None => "replicated".to_string(),
    };
    let head = format!(
        "DistArray · shape {} · {} · {split} · {} rank(s)",
        html::fmt_shape(d.global_shape()),
        d.dtype(),
        d.world_size()
    );
    let mut table = Table::new().header(vec![
        Cell::head("rank"),
        Cell::head("host"),
        Cell::head("device"),
        Cell::head("block"),
    ]);
    let placement = d.placement();
    for (r, (start, len)) in d.blocks().into_iter().enumerate() {
        let (host, device) = match &placement {
            Ok(p) => (p[r].0.clone(), p[r].1.to_string()),
            Err(_) => ("?".into(), "?".into()),
        };
        let block = match d.split() {
            Some(ax) => format!("[{start}, {}) of axis {ax}", start + len),
            None => "all".to_string(),
        };
        table.push_row(vec![
            Cell::num(r.to_string()),
            Cell::text(host),
            Cell::text(device),
            Cell::text(block),
        ]);
    }
    let mut text = format!("{head}\n{}", table.to_text());
    let mut body = format!("<div class=\"cp-head\">{}</div>", html::escape(&head));
    table.write_html(&mut body);
    match preview(d) {
        Ok(Some((rows, a))) => {
            let caption = if rows < d.global_shape().first().copied().unwrap_or(0)
                || d.split().is_some_and(|s| s > 0)
            {
                format!("first {rows} entries along the split axis")
            } else {
                "values".to_string()
            };
            body.push_str(&format!(
                "<div class=\"cp-head\">{}</div>",
                html::escape(&caption)
            ));
            body.push_str(&array_html(&a));
            text.push_str(&format!("{caption}:\n{}\n", cuprite::format::repr(&a)));
        }
        Ok(None) => {}
        Err(e) => text.push_str(&format!("(no preview: {e})\n")),
    }
    MimeBundle::new(text.trim_end().to_string()).with(TEXT_HTML, html::wrap("cp-dist", &body))
}

/// The first few entries along the split axis, gathered to every rank.
fn preview(d: &DistArray) -> cuprite::Result<Option<(usize, cuprite::Array)>> {
    if d.ndim() == 0 {
        return Ok(Some((1, d.local().clone())));
    }
    let ax = d.split().unwrap_or(0);
    let n = d.global_shape()[ax].min(PREVIEW_ROWS);
    let mut index: Vec<cuprite::SliceElem> =
        (0..ax).map(|_| cuprite::SliceElem::from(..)).collect();
    index.push(cuprite::SliceElem::from(0..n));
    let part = d.slice(index)?;
    Ok(Some((n, part.to_array()?)))
}
