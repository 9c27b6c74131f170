//! Arrays as MIME bundles: NumPy's `repr` as `text/plain`, and an HTML
//! header line plus tables (0-d: one cell, 1-D: one row, 2-D: a grid, N-D:
//! the leading 2-D slices), summarized with edge items like NumPy.

use cuprite::format::ElementFormat;
use cuprite::{Array, DType, PrintOptions, Scalar};

use crate::bundle::{MimeBundle, RichDisplay, TEXT_HTML};
use crate::html::{self, Cell, Table};

/// The most HTML bytes one array may produce.
pub const MAX_HTML_BYTES: usize = 100_000;
/// The most `text/plain` bytes one array may produce.
pub const MAX_TEXT_BYTES: usize = 100_000;
/// The most value cells one array's HTML shows (fewer edge items beyond).
pub const MAX_CELLS: usize = 2_000;
/// The most 2-D slices an N-D array's HTML shows.
pub const MAX_SLICES: usize = 16;

const H_ELLIPSIS: &str = "…";
const V_ELLIPSIS: &str = "⋮";
const D_ELLIPSIS: &str = "⋱";

impl RichDisplay for Array {
    fn bundle(&self) -> MimeBundle {
        array_bundle(self)
    }
}

/// The bundle of an array: `text/plain` (NumPy's repr) and `text/html`.
pub fn array_bundle(a: &Array) -> MimeBundle {
    let text = truncate_text(cuprite::format::repr(a), MAX_TEXT_BYTES);
    MimeBundle::new(text).with(TEXT_HTML, array_html(a))
}

/// Cuts text longer than `max` bytes at a character boundary and says so.
fn truncate_text(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n... ({} more bytes of text not shown)",
        &text[..cut],
        text.len() - cut
    )
}

/// The header line: `shape (2, 3) · float32 · cpu · 24 B`.
pub fn header_text(a: &Array) -> String {
    let nbytes = a.nbytes() as u64;
    let bytes = if nbytes < 1024 {
        html::human_bytes(nbytes)
    } else {
        format!("{} ({nbytes} bytes)", html::human_bytes(nbytes))
    };
    let kind = if a.ndim() == 0 {
        "scalar array"
    } else {
        "array"
    };
    format!(
        "{kind} · shape {} · {} · {} · {bytes}",
        html::fmt_shape(a.shape()),
        a.dtype(),
        a.device()
    )
}

/// Which indices of one axis are shown (`None` is the ellipsis).
fn axis_items(n: usize, summarize: bool, edge: usize) -> Vec<Option<usize>> {
    if summarize && n > 2 * edge {
        (0..edge)
            .map(Some)
            .chain([None])
            .chain((n - edge..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// The 2-D slices an N-D array shows: each leading index, or `None` for a
/// run of omitted slices (with how many).
#[derive(Debug, Clone, PartialEq)]
enum SliceItem {
    Slice(Vec<usize>),
    Omitted(usize),
}

/// What one rendering shows: per-axis items and the list of slices.
struct Plan {
    summarize: bool,
    rows: Vec<Option<usize>>,
    cols: Vec<Option<usize>>,
    slices: Vec<SliceItem>,
}

impl Plan {
    fn new(shape: &[usize], summarize: bool, edge: usize) -> Plan {
        let nd = shape.len();
        let (rows, cols) = match nd {
            0 => (vec![Some(0)], vec![Some(0)]),
            1 => (vec![Some(0)], axis_items(shape[0], summarize, edge)),
            _ => (
                axis_items(shape[nd - 2], summarize, edge),
                axis_items(shape[nd - 1], summarize, edge),
            ),
        };
        let slices = if nd <= 2 {
            vec![SliceItem::Slice(vec![])]
        } else {
            leading_slices(&shape[..nd - 2], summarize, edge)
        };
        Plan {
            summarize,
            rows,
            cols,
            slices,
        }
    }

    fn cells(&self) -> usize {
        let shown = self
            .slices
            .iter()
            .filter(|s| matches!(s, SliceItem::Slice(_)))
            .count();
        let per = |v: &[Option<usize>]| v.iter().filter(|i| i.is_some()).count();
        shown * per(&self.rows) * per(&self.cols)
    }
}

/// The leading index tuples shown, with runs of omitted ones collapsed, and
/// at most [`MAX_SLICES`] shown in all (the first and last halves). Tuples
/// are streamed, so a huge leading extent never builds a huge list.
fn leading_slices(lead: &[usize], summarize: bool, edge: usize) -> Vec<SliceItem> {
    let per_axis: Vec<Vec<Option<usize>>> = lead
        .iter()
        .map(|&n| axis_items(n, summarize, edge))
        .collect();
    if per_axis.iter().any(|v| v.is_empty()) {
        return vec![];
    }
    let mut cap = SliceCap::new(MAX_SLICES / 2);
    let mut idx = vec![0usize; lead.len()];
    loop {
        let tuple: Vec<Option<usize>> = idx.iter().zip(&per_axis).map(|(&i, v)| v[i]).collect();
        if tuple.iter().all(Option::is_some) {
            cap.push(SliceItem::Slice(tuple.into_iter().flatten().collect()));
        } else {
            // How many real slices this tuple of indices and ellipses stands for.
            let n: usize = tuple
                .iter()
                .zip(lead)
                .map(|(t, &len)| match t {
                    Some(_) => 1,
                    None => len - 2 * edge,
                })
                .product();
            cap.push(SliceItem::Omitted(n));
        }
        // Next tuple (odometer over the per-axis item lists).
        let mut ax = lead.len();
        loop {
            if ax == 0 {
                return cap.finish();
            }
            ax -= 1;
            idx[ax] += 1;
            if idx[ax] < per_axis[ax].len() {
                break;
            }
            idx[ax] = 0;
        }
    }
}

/// Keeps the first and last `half` slices of a stream, counting the rest.
struct SliceCap {
    half: usize,
    head: Vec<SliceItem>,
    head_slices: usize,
    tail: std::collections::VecDeque<SliceItem>,
    tail_slices: usize,
    dropped: usize,
}

impl SliceCap {
    fn new(half: usize) -> SliceCap {
        SliceCap {
            half,
            head: Vec::new(),
            head_slices: 0,
            tail: std::collections::VecDeque::new(),
            tail_slices: 0,
            dropped: 0,
        }
    }

    fn push(&mut self, item: SliceItem) {
        let is_slice = matches!(item, SliceItem::Slice(_));
        if self.head_slices < self.half {
            self.head_slices += is_slice as usize;
            self.head.push(item);
            return;
        }
        self.tail.push_back(item);
        self.tail_slices += is_slice as usize;
        while self.tail_slices > self.half {
            match self.tail.pop_front() {
                Some(SliceItem::Slice(_)) => {
                    self.tail_slices -= 1;
                    self.dropped += 1;
                }
                Some(SliceItem::Omitted(n)) => self.dropped += n,
                None => break,
            }
        }
    }

    fn finish(self) -> Vec<SliceItem> {
        let mut merged: Vec<SliceItem> = Vec::with_capacity(self.head.len() + self.tail.len() + 1);
        let middle = (self.dropped > 0).then_some(SliceItem::Omitted(self.dropped));
        for it in self.head.into_iter().chain(middle).chain(self.tail) {
            match (merged.last_mut(), it) {
                (Some(SliceItem::Omitted(a)), SliceItem::Omitted(b)) => *a += b,
                (_, it) => merged.push(it),
            }
        }
        merged
    }
}

/// C-order flat indices of the values a plan shows, in rendering order.
fn shown_flat_indices(shape: &[usize], plan: &Plan) -> Vec<usize> {
    let nd = shape.len();
    let mut strides = vec![1usize; nd];
    for ax in (0..nd.saturating_sub(1)).rev() {
        strides[ax] = strides[ax + 1] * shape[ax + 1];
    }
    let mut out = Vec::with_capacity(plan.cells());
    if nd == 0 {
        out.push(0);
        return out;
    }
    for s in &plan.slices {
        let SliceItem::Slice(lead) = s else { continue };
        let base: usize = lead.iter().zip(&strides).map(|(i, s)| i * s).sum();
        for r in plan.rows.iter().flatten() {
            for c in plan.cols.iter().flatten() {
                let off = if nd == 1 {
                    *c
                } else {
                    r * strides[nd - 2] + c * strides[nd - 1]
                };
                out.push(base + off);
            }
        }
    }
    out
}

/// The array's values at the given C-order flat indices.
fn values_at(a: &Array, flat: &[usize]) -> cuprite::Result<Vec<Scalar>> {
    // TODO(runtime): with a public slicing view (e.g. `Array::slice_axis`),
    // gather only the edge blocks instead of the whole array.
    cuprite::with_dtype!(a.dtype(), T => {
        let all = a.to_vec::<T>()?;
        Ok(flat.iter().map(|&i| cuprite::Element::to_scalar(all[i])).collect())
    })
}

/// The HTML of an array: stylesheet, header line and tables.
pub fn array_html(a: &Array) -> String {
    array_html_with(a, &cuprite::get_printoptions())
}

/// [`array_html`] with explicit print options.
pub fn array_html_with(a: &Array, opts: &PrintOptions) -> String {
    let mut body = html::head_line(&header_text(a));
    if a.size() == 0 {
        body.push_str(&html::note_line("(no elements)"));
        return html::wrap("cp-array", &body);
    }
    let shape = a.shape();
    let user_summarize = a.size() > opts.threshold;
    let mut edge = opts.edgeitems.max(1);
    let mut plan = Plan::new(shape, user_summarize, edge);
    // The hard cap: fewer edge items until the shown cells fit.
    while plan.cells() > MAX_CELLS && (!plan.summarize || edge > 1) {
        if plan.summarize {
            edge = (edge / 2).max(1);
        }
        plan = Plan::new(shape, true, edge);
    }
    let flat = shown_flat_indices(shape, &plan);
    let values = match values_at(a, &flat) {
        Ok(v) => v,
        Err(e) => {
            body.push_str(&html::note_line(&format!("cannot read the values: {e}")));
            return html::wrap("cp-array", &body);
        }
    };
    let mut tables = render_tables(a, &plan, &values, opts);
    // A last guard on bytes (long complex numbers): fewer edge items again.
    while tables.len() + body.len() + html::STYLE.len() > MAX_HTML_BYTES && edge > 1 {
        edge = (edge / 2).max(1);
        plan = Plan::new(shape, true, edge);
        let flat = shown_flat_indices(shape, &plan);
        let Ok(values) = values_at(a, &flat) else {
            break;
        };
        tables = render_tables(a, &plan, &values, opts);
    }
    if plan.summarize {
        let why = if user_summarize {
            format!(
                "summarized: {} elements > threshold {}; {} shown at each edge",
                a.size(),
                opts.threshold,
                edge
            )
        } else {
            format!(
                "summarized for display ({} elements); {} shown at each edge",
                a.size(),
                edge
            )
        };
        body.push_str(&html::note_line(&why));
    }
    body.push_str(&tables);
    html::wrap("cp-array", &body)
}

/// The tables of a plan, from the shown values in plan order.
fn render_tables(a: &Array, plan: &Plan, values: &[Scalar], opts: &PrintOptions) -> String {
    let shape = a.shape();
    let nd = shape.len();
    // The runtime's element formatter, as `repr` (`text/plain`) uses it.
    let text: Vec<String> = match values {
        [v] if nd == 0 => vec![ElementFormat::for_0d(a.dtype(), *v, opts).format(*v)],
        _ => cuprite::format::format_elements(a.dtype(), values, opts),
    };
    let mut out = String::new();
    let mut next = text.iter();
    if nd == 0 {
        let t = Table::new().row(vec![Cell::num(next.next().cloned().unwrap_or_default())]);
        t.write_html(&mut out);
        return out;
    }
    let col_header = |with_corner: bool| -> Vec<Cell> {
        let mut h = Vec::with_capacity(plan.cols.len() + 1);
        if with_corner {
            h.push(Cell::head(""));
        }
        for c in &plan.cols {
            h.push(match c {
                Some(i) => Cell::head(i.to_string()),
                None => Cell::ellipsis(H_ELLIPSIS),
            });
        }
        h
    };
    if nd == 1 {
        let row: Vec<Cell> = plan
            .cols
            .iter()
            .map(|c| match c {
                Some(_) => Cell::num(next.next().cloned().unwrap_or_default()),
                None => Cell::ellipsis(H_ELLIPSIS),
            })
            .collect();
        Table::new()
            .header(col_header(false))
            .row(row)
            .write_html(&mut out);
        return out;
    }
    for s in &plan.slices {
        match s {
            SliceItem::Omitted(n) => {
                let word = if *n == 1 { "slice" } else { "slices" };
                out.push_str(&html::note_line(&format!("{V_ELLIPSIS} {n} more {word}")));
            }
            SliceItem::Slice(lead) => {
                let mut t = Table::new().header(col_header(true));
                if nd > 2 {
                    let idx: Vec<String> = lead
                        .iter()
                        .map(|i| i.to_string())
                        .chain([":".to_string(), ":".to_string()])
                        .collect();
                    t = t.caption(format!("[{}]", idx.join(", ")));
                }
                for r in &plan.rows {
                    let mut row = Vec::with_capacity(plan.cols.len() + 1);
                    match r {
                        Some(i) => {
                            row.push(Cell::head(i.to_string()));
                            for c in &plan.cols {
                                row.push(match c {
                                    Some(_) => Cell::num(next.next().cloned().unwrap_or_default()),
                                    None => Cell::ellipsis(H_ELLIPSIS),
                                });
                            }
                        }
                        None => {
                            row.push(Cell::ellipsis(V_ELLIPSIS));
                            for c in &plan.cols {
                                row.push(Cell::ellipsis(if c.is_some() {
                                    V_ELLIPSIS
                                } else {
                                    D_ELLIPSIS
                                }));
                            }
                        }
                    }
                    t.push_row(row);
                }
                t.write_html(&mut out);
            }
        }
    }
    out
}

/// Formats a dynamic scalar of `dtype` as NumPy prints one element (the
/// value of a 0-d array in its `repr`), at `precision` digits at most.
pub fn format_scalar(dtype: DType, value: Scalar, precision: usize) -> String {
    let opts = PrintOptions {
        precision,
        ..cuprite::get_printoptions()
    };
    ElementFormat::for_0d(dtype, value, &opts).format(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_summarized_and_capped() {
        let p = Plan::new(&[10, 2, 2], true, 3);
        assert_eq!(
            p.slices,
            vec![
                SliceItem::Slice(vec![0]),
                SliceItem::Slice(vec![1]),
                SliceItem::Slice(vec![2]),
                SliceItem::Omitted(4),
                SliceItem::Slice(vec![7]),
                SliceItem::Slice(vec![8]),
                SliceItem::Slice(vec![9]),
            ]
        );
        let p = Plan::new(&[40, 2, 2], false, 3);
        let shown = p
            .slices
            .iter()
            .filter(|s| matches!(s, SliceItem::Slice(_)))
            .count();
        assert_eq!(shown, MAX_SLICES);
        assert_eq!(p.slices[8], SliceItem::Omitted(24));
    }

    #[test]
    fn shown_and_omitted_slices_add_up() {
        for (lead, summarize, edge) in [
            (vec![10, 10], false, 3),
            (vec![10, 10], true, 3),
            (vec![7, 1, 9], true, 2),
            (vec![3, 3, 3, 3], false, 1),
            (vec![100_000], false, 3),
            (vec![5], true, 3),
        ] {
            let items = leading_slices(&lead, summarize, edge);
            let shown = items
                .iter()
                .filter(|s| matches!(s, SliceItem::Slice(_)))
                .count();
            let omitted: usize = items
                .iter()
                .map(|s| match s {
                    SliceItem::Omitted(n) => *n,
                    _ => 0,
                })
                .sum();
            assert!(shown <= MAX_SLICES, "{lead:?}");
            assert_eq!(shown + omitted, lead.iter().product::<usize>(), "{lead:?}");
            // Never two omitted runs in a row.
            assert!(items
                .windows(2)
                .all(|w| !matches!(w, [SliceItem::Omitted(_), SliceItem::Omitted(_)])));
        }
    }

    #[test]
    fn flat_indices_follow_c_order() {
        let p = Plan::new(&[2, 3], false, 3);
        assert_eq!(shown_flat_indices(&[2, 3], &p), vec![0, 1, 2, 3, 4, 5]);
        let p = Plan::new(&[8], true, 2);
        assert_eq!(shown_flat_indices(&[8], &p), vec![0, 1, 6, 7]);
    }
}
