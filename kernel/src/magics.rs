//! Magics, handled before a cell reaches evcxr: `%time`, `%%time`, `%timeit`,
//! `%%timeit`, `%gpu`, `%mem`, `%lsmagic`, and `?name` (documentation in the pager).
//!
//! Each magic line is replaced by Rust code on the same line, so compile
//! errors keep the line numbers of the cell as typed.

/// What to do with a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Run this code; with `time_report`, report the `%time` measurements afterwards.
    Run { code: String, time_report: bool },
    /// Show documentation for this expression in the pager.
    Page(String),
    /// A magic the kernel does not know, or bad magic arguments.
    Error(String),
}

/// The magics the kernel knows, for `%lsmagic` and completion.
pub const LINE_MAGICS: &[&str] = &["%time", "%timeit", "%gpu", "%mem", "%lsmagic"];
/// Cell magics.
pub const CELL_MAGICS: &[&str] = &["%%time", "%%timeit"];

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
    let lines: Vec<&str> = cell.split('\n').collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut time_report = false;
    let mut suffix = String::new();

    if let Some(fi) = first {
        let l = lines[fi].trim_start();
        if let Some(rest) = l.strip_prefix("%%") {
            let (name, args) = split_word(rest);
            match name {
                "time" => {
                    out[fi] = format!("{IO}::__mark();");
                    time_report = true;
                }
                "timeit" => {
                    let (loops, repeat, setup) = match timeit_args(args) {
                        Ok(a) => a,
                        Err(e) => return Plan::Error(e),
                    };
                    out[fi] = format!("{{ {setup} {IO}::__timeit({loops}, {repeat}, || {{");
                    suffix = "\n}); }".to_string();
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
                time_report = true;
                let stmt = args.trim();
                if stmt.is_empty() {
                    return Plan::Error("%time needs a statement or expression to time".into());
                }
                if stmt.starts_with("let ") || stmt.ends_with(';') || Some(i) != last {
                    format!("{IO}::__mark(); {stmt} {IO}::__mark();")
                } else {
                    format!("{IO}::__timed(|| {{ {stmt} }})")
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
                format!("{IO}::__timeit({loops}, {repeat}, || {{ {stmt} }});")
            }
            "gpu" => GPU_CODE.to_string(),
            "mem" => MEM_CODE.to_string(),
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
    let mut code = out.join("\n");
    code.push_str(&suffix);
    Plan::Run { code, time_report }
}

fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
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
    "Line magics:\n  %time STMT       wall and CPU time of one run (a `let` keeps its variable)\n  %timeit [-n N] [-r R] STMT   repeated runs: median ± std. dev. per loop\n  %gpu             CUDA devices, driver and default device\n  %mem             memory of the cell process and device pools\n  %lsmagic         this list\nCell magics (first line):\n  %%time           time the whole cell\n  %%timeit [-n N] [-r R] [SETUP]   time the cell body\nAlso: ?NAME shows documentation; evcxr's :commands pass through (:help lists them)."
        .to_string()
}

const GPU_CODE: &str = r#"{ let s = ::cuprite::device::cuda_status(); let (d, why) = ::cuprite::device::default_device_and_reason(); println!("CUDA devices: {}\nCUDA usable: {}\nCUDA status: {}\nDefault device: {} ({})\nCUDA_VISIBLE_DEVICES: {}", s.device_count, s.usable, s.reason, d, why, ::std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_else(|_| "(not set)".into())); }"#;

const MEM_CODE: &str = r#"{ let st = ::std::fs::read_to_string("/proc/self/status").unwrap_or_default(); let get = |k: &str| st.lines().find(|l| l.starts_with(k)).map(|l| l[k.len()..].trim().to_string()).unwrap_or_else(|| "n/a".into()); println!("Cell process memory: resident {} (peak {}), virtual {}", get("VmRSS:"), get("VmHWM:"), get("VmSize:")); let s = ::cuprite::device::cuda_status(); if s.usable { println!("Device memory pools: {} CUDA device(s); pool statistics are not reported by this runtime build yet", s.device_count); } else { println!("Device memory pools: none ({})", s.reason); } }"#;

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

    #[test]
    fn cell_time_keeps_line_numbers() {
        let (code, t) = run("%%time\nlet x = 1;\nx");
        assert!(t);
        assert_eq!(code, "cuprite_kernel_io::__mark();\nlet x = 1;\nx");
    }

    #[test]
    fn line_time_statement_and_expression() {
        let (code, t) = run("%time let v = f();");
        assert!(t);
        assert_eq!(
            code,
            "cuprite_kernel_io::__mark(); let v = f(); cuprite_kernel_io::__mark();"
        );
        let (code, _) = run("let a = 2;\n%time a * 3");
        assert_eq!(code, "let a = 2;\ncuprite_kernel_io::__timed(|| { a * 3 })");
    }

    #[test]
    fn timeit_options() {
        let (code, t) = run("%timeit -n 10 -r 3 v.iter().sum::<f64>()");
        assert!(!t);
        assert_eq!(
            code,
            "cuprite_kernel_io::__timeit(10, 3, || { v.iter().sum::<f64>() });"
        );
        let (code, _) = run("%%timeit let v = vec![1; 100];\nv.len()");
        assert_eq!(
            code,
            "{ let v = vec![1; 100]; cuprite_kernel_io::__timeit(0, 7, || {\nv.len()\n}); }"
        );
        assert!(matches!(plan("%timeit -n x 1"), Plan::Error(_)));
    }

    #[test]
    fn pager_and_unknown() {
        assert_eq!(plan("?Vec::new"), Plan::Page("Vec::new".into()));
        assert_eq!(plan("??cp::zeros "), Plan::Page("cp::zeros".into()));
        assert!(matches!(plan("%bogus"), Plan::Error(_)));
        assert!(matches!(plan("%%bogus\n1"), Plan::Error(_)));
        assert!(run("%gpu").0.contains("cuda_status"));
        assert!(run("%mem").0.contains("VmRSS"));
        assert!(run("%lsmagic").0.starts_with("println!"));
    }
}
