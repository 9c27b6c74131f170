//! Magics, handled before a cell reaches evcxr: `%time`, `%%time`, `%timeit`,
//! `%%timeit`, `%gpu`, `%mem`, `%lsmagic`, and `?name`, `cp::name?` (documentation in the
//! pager). The shell magics (`!cmd`, `%cd`, `%%bash`, ...) are `shell.rs`'s.
//!
//! Each magic line is replaced by Rust code on the same line, so compile
//! errors keep the line numbers of the cell as typed. The code calls
//! `cuprite_kernel_io::magic` (compiled once per session, with optimizations),
//! which measures with the runtime's clocks and CUDA events and renders with
//! `cuprite-display`:
//!
//! - `%time STMT` / `%%time`: `__time_start()` before the timed code and
//!   `__time_end()` after it print CPU, wall and GPU (CUDA-event) time. When
//!   the timed code ends in an expression (the cell's value), the expression
//!   is wrapped as `match &(EXPR) { v => { __time_end(); v } }`, so the value
//!   is still shown, variables are borrowed rather than moved, and temporaries
//!   live as long as they did.
//! - `%timeit` / `%%timeit`: `__timeit(loops, repeat, label, || { CODE })`.
//! - `%gpu`, `%mem`: `__gpu()`, `__mem()`.

/// What to do with a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Run this code; with `time_report`, report the `%time` measurements afterwards.
    Run { code: String, time_report: bool },
    /// Show documentation for this expression in the pager.
    Page(String),
    /// A magic the kernel does not know, or bad magic arguments.
    Error(String),
    /// `%whos`: the session's variables (see [`whos_code`]).
    Whos,
    /// `%save_vars PATH [NAME...]` (no names: every variable).
    SaveVars { path: String, names: Vec<String> },
    /// `%load_vars PATH [--device DEVICE]`.
    LoadVars {
        path: String,
        device: Option<String>,
    },
}

/// The magics the kernel knows, for `%lsmagic` and completion.
/// `%cd`, `%pwd`, `%env` and the shell cell magics run in the kernel (`shell.rs`).
pub const LINE_MAGICS: &[&str] = &[
    "%time",
    "%timeit",
    "%gpu",
    "%mem",
    "%fusion",
    "%whos",
    "%save_vars",
    "%load_vars",
    "%lsmagic",
    "%cd",
    "%pwd",
    "%env",
];
/// Cell magics.
pub const CELL_MAGICS: &[&str] = &["%%time", "%%timeit", "%%bash", "%%sh", "%%writefile"];

// No leading `::`: evcxr takes a line starting with `:` for a command.
const IO: &str = "cuprite_kernel_io";

/// Default `%timeit` runs.
const DEFAULT_REPEAT: u32 = 7;

/// Turns a cell into a plan.
pub fn plan(cell: &str) -> Plan {
    let trimmed = cell.trim();
    if let Some(rest) = trimmed.strip_prefix('?') {
        if !trimmed.contains('\n') {
            let rest = rest.trim_start_matches('?').trim();
            if !rest.is_empty() {
                return Plan::Page(rest.to_string());
            }
        }
    }
    // `cp::zeros?` and `cp::zeros??` as IPython writes them. Only for a path
    // with `::`: `r?` alone is Rust's `?` on a variable.
    if let Some(path) = trimmed
        .strip_suffix("??")
        .or_else(|| trimmed.strip_suffix('?'))
    {
        if is_item_path(path) {
            return Plan::Page(path.to_string());
        }
    }
    if trimmed == "%whos" {
        return Plan::Whos;
    }
    if let Some(plan) = vars_plan(trimmed) {
        return plan;
    }
    let lines: Vec<&str> = cell.split('\n').collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let time_report = false;
    let mut suffix = String::new();
    let mut cell_time = false;

    if let Some(fi) = first {
        let l = lines[fi].trim_start();
        if let Some(rest) = l.strip_prefix("%%") {
            let (name, args) = split_word(rest);
            match name {
                "time" => {
                    if !args.trim().is_empty() {
                        return Plan::Error(
                            "%%time takes no arguments: the rest of the cell is timed".into(),
                        );
                    }
                    out[fi] = format!("{TIME_START};");
                    cell_time = true;
                }
                "timeit" => {
                    let (loops, repeat, setup) = match timeit_args(args) {
                        Ok(a) => a,
                        Err(e) => return Plan::Error(e),
                    };
                    let body = lines[fi + 1..].join("\n");
                    if body.trim().is_empty() {
                        return Plan::Error("%%timeit needs code to time below its line".into());
                    }
                    let label = label(&body);
                    out[fi] = format!(
                        "{{ {setup} {IO}::magic::__timeit({loops}, {repeat}, {label:?}, {TIMED_CLOSURE}{{"
                    );
                    suffix = "\n}) })?; }".to_string();
                }
                _ => {
                    return Plan::Error(format!(
                        "unknown cell magic %%{name}; the kernel knows {}",
                        CELL_MAGICS.join(", ")
                    ))
                }
            }
        } else if let Some(rest) = l.strip_prefix('%') {
            let (name, _) = split_word(rest);
            if !LINE_MAGICS.iter().any(|m| m[1..] == *name) {
                return Plan::Error(format!(
                    "unknown magic %{name}; the kernel knows {} and the cell magics {}",
                    LINE_MAGICS.join(", "),
                    CELL_MAGICS.join(", ")
                ));
            }
        }
    }

    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    for (i, line) in lines.iter().enumerate() {
        if Some(i) == first && line.trim_start().starts_with("%%") {
            continue;
        }
        let Some(rest) = line.trim_start().strip_prefix('%') else {
            continue;
        };
        let (name, args) = split_word(rest);
        let indent = &line[..line.len() - line.trim_start().len()];
        let code = match name {
            "time" => {
                let stmt = args.trim();
                if stmt.is_empty() {
                    return Plan::Error("%time needs a statement or expression to time".into());
                }
                if stmt.starts_with("let ") || ends_statement(stmt) || Some(i) != last {
                    let semi = if ends_statement(stmt) { "" } else { ";" };
                    format!("{TIME_START}; {stmt}{semi} {TIME_END}")
                } else {
                    format!("{TIME_START}; {}", value_then(stmt, TIME_END))
                }
            }
            "timeit" => {
                let (loops, repeat, stmt) = match timeit_args(args) {
                    Ok(a) => a,
                    Err(e) => return Plan::Error(e),
                };
                if stmt.trim().is_empty() {
                    return Plan::Error("%timeit needs a statement or expression to time".into());
                }
                let label = label(&stmt);
                format!(
                    "{IO}::magic::__timeit({loops}, {repeat}, {label:?}, {TIMED_CLOSURE}{{ {stmt} }}) }})?;"
                )
            }
            "gpu" => match gpu_args(args) {
                Ok(None) => format!("{IO}::magic::__gpu();"),
                Ok(Some(ms)) => format!("{IO}::magic::__gpu_watch({ms});"),
                Err(e) => return Plan::Error(e),
            },
            "mem" => format!("{IO}::magic::__mem();"),
            "fusion" => match args.trim() {
                "" => format!("{IO}::magic::__fusion(None);"),
                "on" => format!("{IO}::magic::__fusion(Some(true));"),
                "off" => format!("{IO}::magic::__fusion(Some(false));"),
                other => {
                    return Plan::Error(format!(
                        "%fusion takes on, off or nothing (to show the last fused batches), not {other}"
                    ))
                }
            },
            "lsmagic" => format!(
                "println!(\"{}\");",
                lsmagic_text()
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('\n', "\\n")
            ),
            _ => continue,
        };
        out[i] = format!("{indent}{code}");
    }
    if cell_time {
        let fi = first.unwrap_or(0);
        let body = out[fi + 1..].join("\n");
        let head = out[..=fi].join("\n");
        out = vec![head, end_after_cell(&body, TIME_END)];
    }
    let mut code = out.join("\n");
    code.push_str(&suffix);
    Plan::Run { code, time_report }
}

/// The start of the closure `%timeit` runs: the timed code goes in
/// `Ok({ ... })`, so `?` works in it (the first error stops the timing and
/// becomes the cell's error).
const TIMED_CLOSURE: &str = "|| -> ::std::result::Result<_, cuprite_kernel_io::magic::TimedError> { ::std::result::Result::Ok(";

const TIME_START: &str = "cuprite_kernel_io::magic::__time_start()";
const TIME_END: &str = "cuprite_kernel_io::magic::__time_end();";

/// The cell `%whos` runs: the variables evcxr knows (name, type), borrowed
/// as `Any` for `cuprite_kernel_io::magic::__whos`. Every variable evcxr keeps
/// is `'static`, so each borrows as `&dyn Any`.
pub fn whos_code<'a>(vars: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let vars: Vec<(&str, &str)> = vars.filter(|(name, _)| !name.starts_with("__")).collect();
    format!("{IO}::magic::__whos({});", borrowed_as_any(&vars))
}

/// The cell whose value lists the variables for the debugger (name, type,
/// summary), as JSON (`cuprite_kernel_io::magic::__variables`).
pub fn variables_code<'a>(vars: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let vars: Vec<(&str, &str)> = vars.filter(|(name, _)| !name.starts_with("__")).collect();
    format!("{IO}::magic::__variables({})", borrowed_as_any(&vars))
}

/// `&[("name", "type", &name as &dyn Any), ...]`: the slice `__whos` and
/// `__save_vars` take.
fn borrowed_as_any(vars: &[(&str, &str)]) -> String {
    let items: Vec<String> = vars
        .iter()
        .map(|(name, ty)| format!("({name:?}, {ty:?}, &{name} as &dyn ::std::any::Any)"))
        .collect();
    format!("&[{}]", items.join(", "))
}

/// `%save_vars` and `%load_vars`, which take a cell of their own.
fn vars_plan(cell: &str) -> Option<Plan> {
    let (magic, rest) = cell.split_once(char::is_whitespace).unwrap_or((cell, ""));
    let which = match magic {
        "%save_vars" | "%load_vars" => &magic[1..],
        _ => return None,
    };
    if rest.contains('\n') {
        return Some(Plan::Error(format!("%{which} goes in a cell of its own")));
    }
    let mut words = rest.split_whitespace();
    let Some(path) = words.next() else {
        return Some(Plan::Error(format!(
            "%{which} needs a path: %save_vars PATH [NAME...] or %load_vars PATH [--device cpu|cuda:N]"
        )));
    };
    let path = path.to_string();
    if which == "save_vars" {
        return Some(Plan::SaveVars {
            path,
            names: words.map(str::to_string).collect(),
        });
    }
    Some(match (words.next(), words.next(), words.next()) {
        (None, _, _) => Plan::LoadVars { path, device: None },
        (Some("--device"), Some(d), None) if is_device(d) => Plan::LoadVars {
            path,
            device: Some(d.to_string()),
        },
        _ => Plan::Error("%load_vars PATH [--device cpu|cuda:N]".into()),
    })
}

/// `cpu` or `cuda:N`.
pub fn is_device(s: &str) -> bool {
    s == "cpu"
        || s.strip_prefix("cuda:")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The cell `%save_vars` runs: the variables named (all when none is)
/// borrowed as `Any` for `cuprite_kernel_io::vars::__save_vars`. An unknown
/// name is the error.
pub fn save_vars_code<'a>(
    path: &str,
    names: &[String],
    vars: impl Iterator<Item = (&'a str, &'a str)>,
) -> Result<String, String> {
    let vars: Vec<(&str, &str)> = vars.filter(|(n, _)| !n.starts_with("__")).collect();
    if let Some(missing) = names.iter().find(|n| !vars.iter().any(|(v, _)| v == n)) {
        let known: Vec<&str> = vars.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "%save_vars: no variable {missing} (the session has: {})",
            known.join(", ")
        ));
    }
    let chosen: Vec<(&str, &str)> = vars
        .into_iter()
        .filter(|(n, _)| names.is_empty() || names.iter().any(|m| m == n))
        .collect();
    Ok(format!(
        "{IO}::vars::__save_vars({path:?}, {})?;",
        borrowed_as_any(&chosen)
    ))
}

/// The cell `%load_vars` runs, from the manifest `%save_vars` wrote: one
/// `let` per variable. The manifest comes from a file, so names, types and
/// devices are checked before they become code.
pub fn load_vars_code(
    path: &str,
    manifest: &serde_json::Value,
    device: Option<&str>,
) -> Result<String, String> {
    let Some(vars) = manifest["variables"].as_object() else {
        return Err(format!(
            "%load_vars: {path} has no variables saved by %save_vars"
        ));
    };
    let mut lines = Vec::new();
    let mut names = Vec::new();
    for (name, v) in vars {
        if !is_identifier(name) {
            return Err(format!("%load_vars: {name:?} is not a variable name"));
        }
        let line = match v["kind"].as_str() {
            Some("array") => {
                let saved_on = v["device"]
                    .as_str()
                    .filter(|d| is_device(d))
                    .unwrap_or("cpu");
                format!(
                    "let {name}: cuprite::Array = {IO}::vars::__load_array({path:?}, {name:?}, {saved_on:?}, {device:?})?;"
                )
            }
            Some("value") => {
                let ty = v["type"].as_str().unwrap_or("");
                let value = literal(ty, &v["value"]).ok_or_else(|| {
                    format!(
                        "%load_vars: {name}: cannot read a {ty:?} from {}",
                        v["value"]
                    )
                })?;
                format!("let {name}: {ty} = {value};")
            }
            _ => return Err(format!("%load_vars: {name}: unknown kind {}", v["kind"])),
        };
        lines.push(line);
        names.push(name.as_str());
    }
    lines.push(format!(
        "println!(\"Loaded {} variable{} from {{}}: {}\", {path:?});",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    ));
    Ok(lines.join("\n"))
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// A Rust expression of type `ty` for a value `%save_vars` wrote.
fn literal(ty: &str, v: &serde_json::Value) -> Option<String> {
    if let Some(inner) = ty.strip_prefix("Vec<").and_then(|t| t.strip_suffix('>')) {
        let items: Option<Vec<String>> = v.as_array()?.iter().map(|x| literal(inner, x)).collect();
        return Some(format!(
            "::std::vec::Vec::<{inner}>::from([{}])",
            items?.join(", ")
        ));
    }
    match ty {
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            let n = v.as_str()?;
            let digits = n.strip_prefix('-').unwrap_or(n);
            (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
                .then(|| format!("{n}{ty}"))
        }
        "f32" | "f64" => {
            let bits = v.as_str()?.strip_prefix("0x")?;
            bits.chars()
                .all(|c| c.is_ascii_hexdigit())
                .then(|| format!("{ty}::from_bits(0x{bits})"))
        }
        "bool" => v.as_bool().map(|b| b.to_string()),
        "String" => v
            .as_str()
            .map(|s| format!("::std::string::String::from({s:?})")),
        _ => None,
    }
}

/// Whether `s` names an item by a path of two or more segments (`cp::zeros`,
/// `Vec::new`, `cp::Array::sum`).
fn is_item_path(s: &str) -> bool {
    let segments: Vec<&str> = s.split("::").collect();
    segments.len() >= 2
        && segments.iter().all(|seg| {
            seg.starts_with(|c: char| c.is_alphabetic() || c == '_')
                && seg.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// Whether a line of code ends a statement (`;`) or a block (`}`).
fn ends_statement(code: &str) -> bool {
    let t = code.trim_end();
    t.ends_with(';') || t.ends_with('}')
}

/// `EXPR` as an expression with the same value that runs `then` after
/// evaluating it. Borrowing keeps variables in place (`x` is not moved) and
/// the scrutinee's temporaries live to the end of the enclosing statement.
fn value_then(expr: &str, then: &str) -> String {
    format!("match &({expr}) {{ __cuprite_value => {{ {then} __cuprite_value }} }}")
}

/// The timed code's text for a report title (one line, at most 60 characters).
fn label(code: &str) -> String {
    let one = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= 60 {
        one
    } else {
        let mut s: String = one.chars().take(59).collect();
        s.push('…');
        s
    }
}

/// Puts `then` after the last statement of a cell body: around its final
/// expression when it has one (so the cell's value is still shown), else
/// after its last statement, on the same line (line numbers are kept).
/// Parses the body as evcxr does (statements of a function body).
fn end_after_cell(body: &str, then: &str) -> String {
    use ra_ap_syntax::ast::{self, AstNode};
    const PRELUDE: &str = "fn f(){";
    let text = format!("{PRELUDE}{body}\n}}");
    let parsed = ra_ap_syntax::SourceFile::parse(&text, ra_ap_syntax::Edition::Edition2024);
    let list = parsed
        .tree()
        .syntax()
        .children()
        .next()
        .and_then(ast::Fn::cast)
        .and_then(|f| f.body())
        .and_then(|b| b.stmt_list());
    let at = |n: ra_ap_syntax::TextSize| {
        let i = usize::from(n).saturating_sub(PRELUDE.len()).min(body.len());
        // Ranges from the parser fall on character boundaries; be safe anyway.
        (0..=i)
            .rev()
            .find(|&j| body.is_char_boundary(j))
            .unwrap_or(0)
    };
    let Some(list) = list else {
        return format!("{body}\n{then}");
    };
    if let Some(tail) = list.tail_expr() {
        let r = tail.syntax().text_range();
        let (a, b) = (at(r.start()), at(r.end()));
        if a < b {
            return format!(
                "{}{}{}",
                &body[..a],
                value_then(&body[a..b], then),
                &body[b..]
            );
        }
    }
    match list.statements().last() {
        Some(stmt) => {
            let b = at(stmt.syntax().text_range().end());
            let semi = if ends_statement(&body[..b]) { "" } else { ";" };
            format!("{}{semi} {then}{}", &body[..b], &body[b..])
        }
        None => format!("{body}\n{then}"),
    }
}

fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `%gpu` (None) or `%gpu --watch [SECONDS]` (the refresh period in ms, 1 s by default).
fn gpu_args(args: &str) -> Result<Option<u64>, String> {
    let mut words = args.split_whitespace();
    match words.next() {
        None => Ok(None),
        Some("--watch" | "-w") => {
            let ms = match words.next() {
                None => 1000,
                Some(w) => match w.parse::<f64>() {
                    Ok(s) if (0.1..=3600.0).contains(&s) => (s * 1000.0).round() as u64,
                    _ => {
                        return Err(format!(
                            "%gpu --watch {w}: the period is 0.1 to 3600 seconds"
                        ))
                    }
                },
            };
            match words.next() {
                None => Ok(Some(ms)),
                Some(w) => Err(format!("%gpu --watch: unexpected {w}")),
            }
        }
        Some(w) => Err(format!(
            "%gpu takes no argument but --watch [SECONDS], not {w}"
        )),
    }
}

/// `-n N -r R rest` → (loops (0 = automatic), repeat, rest).
fn timeit_args(args: &str) -> Result<(u64, u32, String), String> {
    let mut loops = 0u64;
    let mut repeat = DEFAULT_REPEAT;
    let mut rest = args.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("-n") {
            let (num, r) = take_number(r).ok_or("%timeit -n needs a number of loops")?;
            loops = num.max(1);
            rest = r;
        } else if let Some(r) = rest.strip_prefix("-r") {
            let (num, r) = take_number(r).ok_or("%timeit -r needs a number of runs")?;
            repeat = num.clamp(1, 1000) as u32;
            rest = r;
        } else {
            break;
        }
    }
    Ok((loops, repeat, rest.to_string()))
}

fn take_number(s: &str) -> Option<(u64, &str)> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, s[end..].trim_start()))
}

/// The `%lsmagic` text.
pub fn lsmagic_text() -> String {
    "Line magics:\n  %time STMT       CPU, wall and GPU (CUDA event) time of one run (a `let` keeps its variable)\n  %timeit [-n N] [-r R] STMT   repeated runs: median ± std. dev. per loop, CPU and GPU time, histogram\n  %gpu             CUDA devices, driver, NVRTC and the CUDA libraries found (or why there is no GPU)\n  %gpu --watch [S] device memory and this session's pools, updated every S seconds (1) until interrupted\n  %mem             device and pinned memory pools, and the cell process's memory\n  %fusion [on|off] switch automatic fusion of elementwise GPU operations, or show the last fused batches and their kernels\n  %whos            the variables: name and type, and shape, dtype, device and bytes of arrays\n  %save_vars PATH [NAME...]   save arrays and plain values (numbers, bool, String, Vecs) to one .npz\n  %load_vars PATH [--device D]   define them again, in this or a later session\n  %cd [DIR]        change the working directory (of the kernel and of the cells)\n  %pwd             the working directory\n  %env [NAME[=VALUE]]   list, show or set environment variables (cells see them)\n  %lsmagic         this list\nCell magics (first line):\n  %%time           time the whole cell (CPU, wall and GPU time)\n  %%timeit [-n N] [-r R] [SETUP]   time the cell body\n  %%bash, %%sh     run the cell as a shell script (a failure fails the cell)\n  %%writefile [-a] PATH   write (or append) the cell body to a file\nAlso: !CMD runs a shell command (output streamed, interruptible); ?NAME or PATH::NAME? shows documentation; evcxr's :commands pass through (:help lists them)."
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cell: &str) -> (String, bool) {
        match plan(cell) {
            Plan::Run { code, time_report } => (code, time_report),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn plain_code_is_untouched() {
        assert_eq!(
            run("let x = 1;\nx + 1"),
            ("let x = 1;\nx + 1".to_string(), false)
        );
        // `%` at a line start that is not a magic stays code (the modulo operator).
        assert_eq!(run("let x = 7\n    % 3;").0, "let x = 7\n    % 3;");
    }

    const START: &str = "cuprite_kernel_io::magic::__time_start();";
    const END: &str = "cuprite_kernel_io::magic::__time_end();";

    fn wrapped(expr: &str) -> String {
        format!("match &({expr}) {{ __cuprite_value => {{ {END} __cuprite_value }} }}")
    }

    #[test]
    fn cell_time_keeps_line_numbers_and_the_value() {
        let (code, t) = run("%%time\nlet x = 1;\nx");
        assert!(!t, "the cell process reports %time itself");
        assert_eq!(code, format!("{START}\nlet x = 1;\n{}", wrapped("x")));
        // A multi-line final expression, a trailing comment, leading blank lines.
        let (code, _) = run("\n%%time\nlet v = vec![1, 2];\nv.iter()\n .sum::<i32>() // total\n");
        assert_eq!(
            code,
            format!(
                "\n{START}\nlet v = vec![1, 2];\n{} // total\n",
                wrapped("v.iter()\n .sum::<i32>()")
            )
        );
        assert_eq!(code.lines().count(), 5);
    }

    #[test]
    fn cell_time_without_a_value() {
        let (code, _) = run("%%time\nlet x = 1;\nlet y = x + 1; // done");
        assert_eq!(
            code,
            format!("{START}\nlet x = 1;\nlet y = x + 1; {END} // done")
        );
        // An item last, then a `let` missing its semicolon.
        let (code, _) = run("%%time\nfn f() -> i32 { 1 }");
        assert_eq!(code, format!("{START}\nfn f() -> i32 {{ 1 }} {END}"));
        let (code, _) = run("%%time\nlet z = 3");
        assert_eq!(code, format!("{START}\nlet z = 3; {END}"));
        // A block-like final expression (a loop) is the value, as evcxr sees it.
        let (code, _) = run("%%time\nfor i in 0..3 {\n    println!(\"{i}\");\n}");
        assert_eq!(
            code,
            format!(
                "{START}\n{}",
                wrapped("for i in 0..3 {\n    println!(\"{i}\");\n}")
            )
        );
        let (code, _) = run("%%time\n// nothing");
        assert_eq!(code, format!("{START}\n// nothing\n{END}"));
        assert!(matches!(plan("%%time -n 3\n1"), Plan::Error(_)));
    }

    #[test]
    fn line_time_statement_and_expression() {
        let (code, t) = run("%time let v = f();");
        assert!(!t);
        assert_eq!(code, format!("{START} let v = f(); {END}"));
        let (code, _) = run("let a = 2;\n%time a * 3");
        assert_eq!(code, format!("let a = 2;\n{START} {}", wrapped("a * 3")));
        // Not the last line: a statement, with the semicolon it lacked.
        let (code, _) = run("%time g(1)\nlet b = 4;");
        assert_eq!(code, format!("{START} g(1); {END}\nlet b = 4;"));
        let (code, _) = run("    %time for i in 0..2 { g(i) }\n1");
        assert_eq!(
            code,
            format!("    {START} for i in 0..2 {{ g(i) }} {END}\n1")
        );
        assert!(matches!(plan("%time"), Plan::Error(_)));
    }

    #[test]
    fn timeit_options() {
        let (code, t) = run("%timeit -n 10 -r 3 v.iter().sum::<f64>()");
        assert!(!t);
        assert_eq!(
            code,
            format!("cuprite_kernel_io::magic::__timeit(10, 3, \"v.iter().sum::<f64>()\", {TIMED_CLOSURE}{{ v.iter().sum::<f64>() }}) }})?;")
        );
        let (code, _) = run("%%timeit let v = vec![1; 100];\nv.len()");
        assert_eq!(
            code,
            format!("{{ let v = vec![1; 100]; cuprite_kernel_io::magic::__timeit(0, 7, \"v.len()\", {TIMED_CLOSURE}{{\nv.len()\n}}) }})?; }}")
        );
        // The label is a valid string literal on the magic's line, however the code looks.
        let (code, _) = run("%%timeit\nlet s = \"a\\\"b\";\n\n\ns.len()");
        let label = format!("{:?}", "let s = \"a\\\"b\"; s.len()");
        assert!(label.contains("\\\\"), "{label}");
        assert!(
            code.starts_with(&format!(
                "{{  cuprite_kernel_io::magic::__timeit(0, 7, {label}, {TIMED_CLOSURE}{{\n"
            )),
            "{code}"
        );
        assert_eq!(
            code.lines().count(),
            6,
            "one line more: the closing of the closure"
        );
        let long = format!("%timeit {}", "x + ".repeat(30) + "x");
        let (code, _) = run(&long);
        assert!(code.contains("…\", ||"), "{code}");
        assert!(matches!(plan("%timeit -n x 1"), Plan::Error(_)));
        assert!(matches!(plan("%timeit -r 3"), Plan::Error(_)));
        assert!(matches!(plan("%%timeit\n  "), Plan::Error(_)));
    }

    #[test]
    fn save_and_load_vars() {
        assert_eq!(
            plan("%save_vars state.npz a n"),
            Plan::SaveVars {
                path: "state.npz".into(),
                names: vec!["a".into(), "n".into()]
            }
        );
        assert_eq!(
            plan("%load_vars s.npz --device cuda:1"),
            Plan::LoadVars {
                path: "s.npz".into(),
                device: Some("cuda:1".into())
            }
        );
        for bad in [
            "%save_vars",
            "%load_vars s.npz --device gpu",
            "%load_vars a b",
            "%save_vars x\n1",
        ] {
            assert!(matches!(plan(bad), Plan::Error(_)), "{bad}");
        }
        let vars = || [("a", "Array"), ("n", "usize"), ("__hidden", "i32")].into_iter();
        let code = save_vars_code("s.npz", &[], vars()).unwrap();
        assert_eq!(
            code,
            "cuprite_kernel_io::vars::__save_vars(\"s.npz\", &[(\"a\", \"Array\", &a as &dyn ::std::any::Any), (\"n\", \"usize\", &n as &dyn ::std::any::Any)])?;"
        );
        assert!(save_vars_code("s.npz", &["zz".into()], vars())
            .unwrap_err()
            .contains("no variable zz"));

        let manifest = serde_json::json!({"format": 1, "variables": {
            "a": {"kind": "array", "device": "cuda:0"},
            "n": {"kind": "value", "type": "i64", "value": "-3"},
            "x": {"kind": "value", "type": "Vec<f64>", "value": ["0x3ff0000000000000"]},
            "s": {"kind": "value", "type": "String", "value": "q\"}"},
        }});
        let code = load_vars_code("s.npz", &manifest, None).unwrap();
        assert!(code.contains("let a: cuprite::Array = cuprite_kernel_io::vars::__load_array(\"s.npz\", \"a\", \"cuda:0\", None)?;"), "{code}");
        assert!(code.contains("let n: i64 = -3i64;"), "{code}");
        assert!(code.contains("let x: Vec<f64> = ::std::vec::Vec::<f64>::from([f64::from_bits(0x3ff0000000000000)]);"), "{code}");
        assert!(
            code.contains("let s: String = ::std::string::String::from(\"q\\\"}\");"),
            "{code}"
        );
        // What a file says never becomes other code.
        for evil in [
            serde_json::json!({"variables": {"a; std::process::exit(1); let b": {"kind": "array"}}}),
            serde_json::json!({"variables": {"n": {"kind": "value", "type": "i64", "value": "1; panic!()"}}}),
            serde_json::json!({"variables": {"n": {"kind": "value", "type": "Box<dyn Fn()>", "value": "1"}}}),
            serde_json::json!({"variables": {"f": {"kind": "value", "type": "f64", "value": "0x1)+(2"}}}),
        ] {
            assert!(load_vars_code("s.npz", &evil, None).is_err(), "{evil}");
        }
    }

    #[test]
    fn pager_and_unknown() {
        assert_eq!(plan("?Vec::new"), Plan::Page("Vec::new".into()));
        assert_eq!(plan("??cp::zeros "), Plan::Page("cp::zeros".into()));
        assert_eq!(plan("cp::zeros?"), Plan::Page("cp::zeros".into()));
        assert_eq!(plan(" %whos "), Plan::Whos);
        let code = |cell: &str| match plan(cell) {
            Plan::Run { code, .. } => code,
            other => panic!("{other:?}"),
        };
        assert_eq!(code("%gpu"), "cuprite_kernel_io::magic::__gpu();");
        assert_eq!(
            code("%gpu --watch"),
            "cuprite_kernel_io::magic::__gpu_watch(1000);"
        );
        assert_eq!(
            code("%gpu -w 0.5"),
            "cuprite_kernel_io::magic::__gpu_watch(500);"
        );
        for bad in [
            "%gpu --watch 0",
            "%gpu --watch x",
            "%gpu --watch 1 2",
            "%gpu now",
        ] {
            assert!(matches!(plan(bad), Plan::Error(_)), "{bad}");
        }
        assert_eq!(
            whos_code([("a", "cp::Array"), ("__hidden", "i32")].into_iter()),
            "cuprite_kernel_io::magic::__whos(&[(\"a\", \"cp::Array\", &a as &dyn ::std::any::Any)]);"
        );
        assert_eq!(
            plan(" cp::Array::sum?? "),
            Plan::Page("cp::Array::sum".into())
        );
        // Rust's `?` on a value stays Rust.
        for rust in [
            "r?",
            "cp::ones([3], cp::f32)?",
            "a.sum()?",
            "x??",
            "cp::zeros?\n1",
        ] {
            assert!(matches!(plan(rust), Plan::Run { .. }), "{rust}");
        }
        assert!(matches!(plan("%bogus"), Plan::Error(_)));
        assert!(matches!(plan("%%bogus\n1"), Plan::Error(_)));
        assert_eq!(run("%gpu").0, "cuprite_kernel_io::magic::__gpu();");
        assert_eq!(run("  %mem").0, "  cuprite_kernel_io::magic::__mem();");
        assert_eq!(
            run("%fusion").0,
            "cuprite_kernel_io::magic::__fusion(None);"
        );
        assert_eq!(
            run("%fusion on").0,
            "cuprite_kernel_io::magic::__fusion(Some(true));"
        );
        assert!(matches!(plan("%fusion maybe"), Plan::Error(_)));
        assert!(run("%lsmagic").0.starts_with("println!"));
    }
}
