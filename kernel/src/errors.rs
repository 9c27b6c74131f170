//! Turning evcxr's errors into Jupyter error replies: `ename`, `evalue` and a
//! readable traceback (message, source line, caret), with ANSI colours as
//! Jupyter frontends render them.

use evcxr::CompilationError;

const RED: &str = "\x1b[1;31m";
const BLUE: &str = "\x1b[1;34m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// A Jupyter error: what goes into the `error` message and the error reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JupyterError {
    pub ename: String,
    pub evalue: String,
    pub traceback: Vec<String>,
}

impl JupyterError {
    /// An error whose traceback is its message, line by line.
    pub fn simple(ename: &str, evalue: impl Into<String>) -> JupyterError {
        let evalue = evalue.into();
        let mut traceback = vec![format!("{RED}{ename}{RESET}: {}", first_line(&evalue))];
        traceback.extend(evalue.lines().skip(1).map(str::to_string));
        JupyterError {
            ename: ename.to_string(),
            evalue,
            traceback,
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Compile errors, against the cell's source as the user typed it.
pub fn compilation(errors: &[CompilationError], source: &str) -> JupyterError {
    let lines: Vec<&str> = source.lines().collect();
    let mut traceback = Vec::new();
    for e in errors {
        let code = e.code().map(|c| format!("[{c}]")).unwrap_or_default();
        let level = e.level();
        traceback.push(format!(
            "{RED}{level}{code}{RESET}{BOLD}: {}{RESET}",
            e.message()
        ));
        let mut shown = false;
        for m in e.spanned_messages() {
            let Some(span) = m.span else { continue };
            shown = true;
            traceback.extend(render_span(
                &lines,
                span.start_line,
                span.start_column,
                span.end_line,
                span.end_column,
                &m.label,
            ));
        }
        if !shown {
            // No span in the user's code: fall back to rustc's own rendering.
            let rendered = e.rendered();
            if !rendered.trim().is_empty() && !e.is_from_user_code() {
                traceback.extend(rendered.lines().skip(1).map(str::to_string));
            }
        }
        for help in e.help() {
            let mut hl = help.lines();
            if let Some(first) = hl.next() {
                traceback.push(format!("{BLUE}help{RESET}: {first}"));
            }
            traceback.extend(hl.map(|l| format!("      {l}")));
        }
        if let Some(hint) = e.evcxr_extra_hint() {
            traceback.push(format!("{BLUE}note{RESET}: {hint}"));
        }
        traceback.push(String::new());
    }
    while traceback.last().is_some_and(|l| l.is_empty()) {
        traceback.pop();
    }
    let first = errors.first();
    JupyterError {
        ename: match first.and_then(|e| e.code()) {
            Some(code) => format!("CompileError[{code}]"),
            None => "CompileError".to_string(),
        },
        evalue: first
            .map(|e| e.message())
            .unwrap_or_else(|| "compilation failed".into()),
        traceback,
    }
}

/// What a read of `std::io::stdin()` gives in a cell (the cell process's fd 0
/// is a directory: see `cell_runtime`).
const STDIN_READ_ERROR: &str = "Is a directory (os error 21)";

/// Adds a note naming `cp::input` to an error that a read of stdin may have caused.
pub fn with_stdin_hint(mut e: JupyterError) -> JupyterError {
    let mentions = |s: &str| strip_ansi(s).contains(STDIN_READ_ERROR);
    if mentions(&e.evalue) || e.traceback.iter().any(|l| mentions(l)) {
        e.traceback.push(format!(
            "{BLUE}note{RESET}: if this came from reading `std::io::stdin()`: a cell cannot read stdin (it carries the kernel's own commands). \
             `cp::input(\"prompt\")?` asks for a line in the notebook (`cp::input_password` hides it)."
        ));
    }
    e
}

/// The lines showing one span: location, source line(s), carets and label.
fn render_span(
    lines: &[&str],
    l1: usize,
    c1: usize,
    l2: usize,
    c2: usize,
    label: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let width = l2.max(l1).to_string().len();
    let pad = " ".repeat(width);
    out.push(format!("{BLUE}{pad}--> {RESET}cell:{l1}:{c1}"));
    out.push(format!("{BLUE}{pad} |{RESET}"));
    let last = l2.max(l1).min(l1 + 3);
    for ln in l1..=last {
        let Some(text) = lines.get(ln.wrapping_sub(1)) else {
            break;
        };
        out.push(format!("{BLUE}{ln:>width$} |{RESET} {text}"));
        let chars = text.chars().count();
        let (from, to) = if l1 == l2 {
            (c1.saturating_sub(1), c2.saturating_sub(1).max(c1))
        } else if ln == l1 {
            (c1.saturating_sub(1), chars.max(c1))
        } else if ln == l2 {
            (0, c2.saturating_sub(1).max(1))
        } else {
            (0, chars.max(1))
        };
        let carets = "^".repeat(to.saturating_sub(from).max(1));
        let tail = if ln == last && !label.is_empty() {
            format!(" {label}")
        } else {
            String::new()
        };
        out.push(format!(
            "{BLUE}{pad} |{RESET} {}{RED}{carets}{tail}{RESET}",
            " ".repeat(from)
        ));
    }
    out
}

/// Strips ANSI colour codes.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_render_with_carets() {
        let lines = ["let x = 1;", "let y: i32 = \"a\";"];
        let out: Vec<String> = render_span(&lines, 2, 14, 2, 17, "expected `i32`")
            .iter()
            .map(|l| strip_ansi(l))
            .collect();
        assert_eq!(
            out,
            vec![
                " --> cell:2:14",
                "  |",
                "2 | let y: i32 = \"a\";",
                "  |              ^^^ expected `i32`",
            ]
        );
    }

    #[test]
    fn simple_errors() {
        let e = JupyterError::simple("Panic", "boom\nsecond line");
        assert_eq!(e.ename, "Panic");
        assert_eq!(e.evalue, "boom\nsecond line");
        assert_eq!(strip_ansi(&e.traceback[0]), "Panic: boom");
        assert_eq!(e.traceback[1], "second line");
    }
}
