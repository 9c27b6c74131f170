//! Kernel templates: CUDA source in `.cu` files with `@NAME@` placeholders,
//! filled in by the generator that owns the template. Lines that start with
//! `@IF_NAME@` are kept only when the flag `NAME` is on, so optional parts
//! of a kernel stay readable in the `.cu` file.

/// `template` with every `@KEY@` replaced by its value and every line
/// marked `@IF_FLAG@` kept (without the mark) when `FLAG` is in `on`, else
/// dropped. A placeholder left unfilled is a bug in the generator: debug
/// builds and the template tests catch it.
pub(crate) fn render(template: &str, values: &[(&str, &str)], on: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    for line in template.lines() {
        let line = match line.trim_start().strip_prefix("@IF_") {
            Some(rest) => match rest.split_once('@') {
                Some((flag, kept)) if on.contains(&flag) => kept,
                Some(_) => continue,
                None => line,
            },
            None => line,
        };
        fill_line(line, values, &mut out);
        out.push('\n');
    }
    debug_assert!(
        unfilled(&out).is_none(),
        "template placeholder {:?} left unfilled",
        unfilled(&out)
    );
    out
}

/// [`render`] for generators that build their values as owned strings.
pub(crate) fn render_owned(template: &str, values: &[(&str, String)], on: &[&str]) -> String {
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    render(template, &values, on)
}

fn fill_line(line: &str, values: &[(&str, &str)], out: &mut String) {
    let mut rest = line;
    while let Some(start) = rest.find('@') {
        let after = &rest[start + 1..];
        let (key, closed) = placeholder(after);
        let key_len = key.len();
        match values.iter().find(|(k, _)| *k == key) {
            Some((_, v)) if closed && key_len > 0 => {
                out.push_str(&rest[..start]);
                out.push_str(v);
                rest = &after[key_len + 1..];
            }
            _ => {
                out.push_str(&rest[..=start]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

/// The name that starts `after` (the text after an `@`: capitals, digits
/// and `_`) and whether an `@` closes it.
fn placeholder(after: &str) -> (&str, bool) {
    let len = after
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(after.len());
    (&after[..len], after[len..].starts_with('@'))
}

/// The first `@NAME@` placeholder left in `source`, if any.
pub(crate) fn unfilled(source: &str) -> Option<String> {
    let mut rest = source;
    while let Some(start) = rest.find('@') {
        let after = &rest[start + 1..];
        let (key, closed) = placeholder(after);
        if !key.is_empty() && closed {
            return Some(key.to_string());
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_placeholders_and_keeps_flagged_lines() {
        let t = "a @X@ b @Y@\n@IF_CARRY@keep @X@\n  @IF_OTHER@drop\nmail@host";
        let s = render(t, &[("X", "1"), ("Y", "two")], &["CARRY"]);
        assert_eq!(s, "a 1 b two\nkeep 1\nmail@host\n");
        let s = render("@IF_CARRY@x\ny", &[], &[]);
        assert_eq!(s, "y\n");
    }

    #[test]
    fn finds_unfilled_placeholders() {
        assert_eq!(unfilled("x @TILE@ y"), Some("TILE".into()));
        assert_eq!(unfilled("a@b.c @ d"), None);
    }
}
