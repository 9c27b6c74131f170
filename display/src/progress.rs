//! A progress bar over an iterator: in a notebook (the Cuprite kernel) one
//! output updated in place, at most every [`UPDATE_INTERVAL`]; on a
//! terminal a `\r`-redrawn line on stderr.
//!
//! ```
//! let total: u64 = cuprite_display::progress(0..1000u64).map(|i| i * 2).sum();
//! assert_eq!(total, 999_000);
//! ```

use std::io::Write as _;
use std::time::{Duration, Instant};

use crate::bundle::{MimeBundle, RichDisplay, TEXT_HTML};
use crate::html;
use crate::sink::{in_kernel, DisplayHandle};

/// The least time between two updates of a bar.
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(100);
/// Characters in the text bar.
const BAR_WIDTH: usize = 30;

/// The state of a progress bar at one moment (what each update shows).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressState {
    /// What is being done, if given.
    pub description: Option<String>,
    /// Items done.
    pub done: usize,
    /// Items in all, when known.
    pub total: Option<usize>,
    /// Seconds since the start.
    pub elapsed: f64,
    /// True once the iterator is exhausted.
    pub finished: bool,
}

fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0);
    if s < 60.0 {
        format!("{s:.1}s")
    } else if s < 3600.0 {
        format!("{}:{:02}", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!(
            "{}:{:02}:{:02}",
            (s / 3600.0) as u64,
            ((s % 3600.0) / 60.0) as u64,
            (s % 60.0) as u64
        )
    }
}

impl ProgressState {
    fn rate(&self) -> f64 {
        if self.elapsed > 0.0 {
            self.done as f64 / self.elapsed
        } else {
            0.0
        }
    }

    /// `12/100 [1.2s<8.8s, 10.0 it/s]` (remaining time only when the total is known).
    fn stats(&self) -> String {
        let rate = self.rate();
        let count = match self.total {
            Some(t) => format!("{}/{t}", self.done),
            None => format!("{}", self.done),
        };
        let remaining = match self.total {
            Some(t) if rate > 0.0 && !self.finished => {
                format!("<{}", fmt_secs(t.saturating_sub(self.done) as f64 / rate))
            }
            _ => String::new(),
        };
        format!(
            "{count} [{}{remaining}, {rate:.1} it/s]",
            fmt_secs(self.elapsed)
        )
    }

    fn fraction(&self) -> Option<f64> {
        self.total.map(|t| {
            if t == 0 {
                1.0
            } else {
                (self.done as f64 / t as f64).min(1.0)
            }
        })
    }

    /// The bar as one line of text: `desc  40% |############------------| 40/100 [...]`.
    pub fn to_text(&self) -> String {
        let desc = self
            .description
            .as_ref()
            .map(|d| format!("{d}: "))
            .unwrap_or_default();
        match self.fraction() {
            Some(f) => {
                let full = (f * BAR_WIDTH as f64).round() as usize;
                format!(
                    "{desc}{:3.0}% |{}{}| {}",
                    f * 100.0,
                    "#".repeat(full),
                    "-".repeat(BAR_WIDTH - full),
                    self.stats()
                )
            }
            None => format!("{desc}{}", self.stats()),
        }
    }

    /// The bar as HTML: a `<progress>` element and the same statistics.
    pub fn to_html(&self) -> String {
        let desc = self
            .description
            .as_ref()
            .map(|d| format!("{} ", html::escape(d)))
            .unwrap_or_default();
        let bar = match self.total {
            Some(t) => format!(
                "<progress value=\"{}\" max=\"{}\" style=\"width:320px;vertical-align:middle\"></progress>",
                self.done.min(t),
                t.max(1)
            ),
            None if self.finished => {
                "<progress value=\"1\" max=\"1\" style=\"width:320px;vertical-align:middle\"></progress>".to_string()
            }
            None => "<progress style=\"width:320px;vertical-align:middle\"></progress>".to_string(),
        };
        let pct = self
            .fraction()
            .map(|f| format!(" {:.0}%", f * 100.0))
            .unwrap_or_default();
        html::wrap(
            "cp-progress",
            &format!("{desc}{bar}{pct} {}", html::escape(&self.stats())),
        )
    }
}

impl RichDisplay for ProgressState {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.to_text()).with(TEXT_HTML, self.to_html())
    }
}

/// Where a bar goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// Display updates through the kernel.
    Notebook,
    /// A redrawn line on stderr.
    Terminal,
}

/// An iterator that reports its progress (see [`progress`]).
#[derive(Debug)]
pub struct Progress<I> {
    inner: I,
    state: ProgressState,
    start: Instant,
    last: Option<Instant>,
    target: Target,
    handle: Option<DisplayHandle>,
}

/// Wraps an iterator with a progress bar; the total is the iterator's exact
/// length when it knows it (ranges, vectors, slices).
pub fn progress<I: IntoIterator>(iter: I) -> Progress<I::IntoIter> {
    let inner = iter.into_iter();
    let total = match inner.size_hint() {
        (lo, Some(hi)) if lo == hi => Some(lo),
        _ => None,
    };
    let target = if in_kernel() {
        Target::Notebook
    } else {
        Target::Terminal
    };
    Progress {
        inner,
        state: ProgressState {
            description: None,
            done: 0,
            total,
            elapsed: 0.0,
            finished: false,
        },
        start: Instant::now(),
        last: None,
        target,
        handle: None,
    }
}

impl<I> Progress<I> {
    /// Sets the text shown before the bar.
    pub fn description(mut self, text: impl Into<String>) -> Progress<I> {
        self.state.description = Some(text.into());
        self
    }

    /// Sets (or overrides) the total number of items.
    pub fn total(mut self, total: usize) -> Progress<I> {
        self.state.total = Some(total);
        self
    }

    /// The current state.
    pub fn state(&self) -> &ProgressState {
        &self.state
    }

    fn show(&mut self, force: bool) {
        let now = Instant::now();
        if !force && self.last.is_some_and(|t| now - t < UPDATE_INTERVAL) {
            return;
        }
        self.last = Some(now);
        self.state.elapsed = (now - self.start).as_secs_f64();
        match self.target {
            Target::Notebook => match &self.handle {
                Some(h) => h.update(&self.state),
                None => self.handle = Some(DisplayHandle::show(&self.state)),
            },
            Target::Terminal => {
                let mut err = std::io::stderr().lock();
                let end = if self.state.finished { "\n" } else { "" };
                let _ = write!(err, "\r{}{end}", self.state.to_text());
                let _ = err.flush();
            }
        }
    }
}

impl<I: Iterator> Iterator for Progress<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        // A loop over a progress bar stops at the notebook's interrupt even
        // when its body never calls the runtime; the iterator cannot return
        // an error, so it panics with it (as operators do).
        if let Err(e) = cuprite::interrupt::check("progress") {
            panic!("{e}");
        }
        if self.last.is_none() {
            self.show(true);
        }
        match self.inner.next() {
            Some(item) => {
                self.state.done += 1;
                self.show(false);
                Some(item)
            }
            None => {
                if !self.state.finished {
                    self.state.finished = true;
                    self.show(true);
                }
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_html() {
        let s = ProgressState {
            description: Some("fit <model>".into()),
            done: 25,
            total: Some(100),
            elapsed: 2.0,
            finished: false,
        };
        assert_eq!(
            s.to_text(),
            "fit <model>:  25% |########----------------------| 25/100 [2.0s<6.0s, 12.5 it/s]"
        );
        let h = s.to_html();
        assert!(h.contains("<progress value=\"25\" max=\"100\""));
        assert!(h.contains("fit &lt;model&gt; "));
        let open = ProgressState { total: None, ..s };
        assert_eq!(open.to_text(), "fit <model>: 25 [2.0s, 12.5 it/s]");
        assert_eq!(fmt_secs(75.0), "1:15");
        assert_eq!(fmt_secs(3725.0), "1:02:05");
    }
}
