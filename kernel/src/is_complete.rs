//! `is_complete_request`: a real Rust check. Unbalanced closing brackets are
//! invalid; open brackets, strings, raw strings, block comments or a trailing
//! operator are incomplete (with an indent for the next line).

/// The answer to `is_complete_request`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    Complete,
    Incomplete(String),
    Invalid,
}

const INDENT: &str = "    ";

/// Whether `code` is a complete cell.
pub fn check(code: &str) -> Completeness {
    let trimmed = code.trim();
    if trimmed.is_empty() {
        return Completeness::Complete;
    }
    // evcxr commands and kernel magics are one line each.
    if code.lines().all(|l| {
        let l = l.trim_start();
        l.is_empty() || l.starts_with(':') || l.starts_with('%')
    }) {
        return Completeness::Complete;
    }
    let c: Vec<char> = code.chars().collect();
    let mut stack: Vec<char> = Vec::new();
    let mut i = 0;
    let n = c.len();
    let mut last_significant: Vec<char> = Vec::new();
    while i < n {
        let ch = c[i];
        // comments
        if ch == '/' && i + 1 < n && c[i + 1] == '/' {
            while i < n && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if ch == '/' && i + 1 < n && c[i + 1] == '*' {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if c[i] == '/' && i + 1 < n && c[i + 1] == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && i + 1 < n && c[i + 1] == '/' {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            if depth > 0 {
                return Completeness::Incomplete(indent(stack.len()));
            }
            continue;
        }
        // raw strings: r"..", r#".."#, br".."
        if (ch == 'r' || (ch == 'b' && i + 1 < n && c[i + 1] == 'r'))
            && (i == 0 || !is_ident(c[i - 1]))
        {
            let mut j = i + if ch == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while j < n && c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            if j < n && c[j] == '"' {
                j += 1;
                let mut closed = false;
                while j < n {
                    if c[j] == '"' && (0..hashes).all(|k| j + 1 + k < n && c[j + 1 + k] == '#') {
                        j += 1 + hashes;
                        closed = true;
                        break;
                    }
                    j += 1;
                }
                if !closed {
                    return Completeness::Incomplete(String::new());
                }
                i = j;
                last_significant = vec!['"'];
                continue;
            }
        }
        match ch {
            '"' => {
                let mut j = i + 1;
                let mut closed = false;
                while j < n {
                    if c[j] == '\\' {
                        j += 2;
                        continue;
                    }
                    if c[j] == '"' {
                        closed = true;
                        break;
                    }
                    j += 1;
                }
                if !closed {
                    return Completeness::Incomplete(String::new());
                }
                i = j + 1;
                last_significant = vec!['"'];
                continue;
            }
            '\'' => {
                // char literal or lifetime/label
                if i + 1 < n && c[i + 1] == '\\' {
                    let mut j = i + 2;
                    while j < n && c[j] != '\'' && c[j] != '\n' {
                        j += 1;
                    }
                    if j >= n || c[j] != '\'' {
                        return Completeness::Invalid;
                    }
                    i = j + 1;
                } else if i + 2 < n && c[i + 2] == '\'' {
                    i += 3;
                } else {
                    i += 1;
                    while i < n && is_ident(c[i]) {
                        i += 1;
                    }
                }
                last_significant = vec!['\''];
                continue;
            }
            '(' | '[' | '{' => stack.push(ch),
            ')' | ']' | '}' => {
                let open = match ch {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.pop() != Some(open) {
                    return Completeness::Invalid;
                }
            }
            _ => {}
        }
        if !ch.is_whitespace() {
            if last_significant.len() >= 2 {
                last_significant.remove(0);
            }
            last_significant.push(ch);
        }
        i += 1;
    }
    if !stack.is_empty() {
        return Completeness::Incomplete(indent(stack.len()));
    }
    let tail: String = last_significant.iter().collect();
    let last = last_significant.last().copied().unwrap_or(' ');
    let continues = tail.ends_with("->")
        || tail.ends_with("=>")
        || tail.ends_with("::")
        || tail.ends_with("&&")
        || tail.ends_with("||")
        || matches!(
            last,
            '=' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<' | ',' | '.' | '!' | '@'
        );
    if continues && !tail.ends_with("..") {
        return Completeness::Incomplete(INDENT.to_string());
    }
    Completeness::Complete
}

/// The indent for the next line at bracket depth `depth`; a hostile request
/// nests millions deep, and the indent stays a line's worth.
fn indent(depth: usize) -> String {
    const MAX_DEPTH: usize = 32;
    INDENT.repeat(depth.min(MAX_DEPTH))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inc(code: &str) -> bool {
        matches!(check(code), Completeness::Incomplete(_))
    }

    #[test]
    fn complete_code() {
        for code in [
            "1 + 1",
            "let x = 1;",
            "fn f() -> i32 { 1 }",
            "let s = \"a { b\";",
            "let c = '{';",
            "fn f<'a>(x: &'a str) -> &'a str { x }",
            "let r = r#\"raw \" { \"#;",
            "// a comment with (\nlet y = 2;",
            "/* block ( */ 3",
            ":dep regex",
            "%timeit 1 + 1",
            "x?",
            "0..10",
            "",
        ] {
            assert_eq!(check(code), Completeness::Complete, "{code:?}");
        }
    }

    #[test]
    fn deep_nesting_has_a_bounded_indent() {
        let code = "(".repeat(1 << 20);
        let Completeness::Incomplete(indent) = check(&code) else {
            panic!("open brackets are incomplete");
        };
        assert_eq!(indent.len(), 32 * INDENT.len());
        assert_eq!(check(&")".repeat(1 << 20)), Completeness::Invalid);
    }

    #[test]
    fn incomplete_code() {
        assert_eq!(check("fn f() {"), Completeness::Incomplete("    ".into()));
        assert_eq!(
            check("fn f() {\n    if x {"),
            Completeness::Incomplete("        ".into())
        );
        for code in [
            "let s = \"abc",
            "let v = vec![1,",
            "let x = 1 +",
            "let y =",
            "/* open",
            "let r = r#\"x",
            "x.iter().map(|v| v * 2).",
        ] {
            assert!(inc(code), "{code:?}");
        }
    }

    #[test]
    fn invalid_code() {
        for code in [")", "let x = (1];", "fn f() { }}", "let c = '\\n;"] {
            assert_eq!(check(code), Completeness::Invalid, "{code:?}");
        }
    }
}
