//! Input history, persisted per user (JSON lines in the data directory) and
//! queried the three ways Jupyter asks: tail, range and search.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

/// One executed cell.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub session: u32,
    pub line: u32,
    pub input: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// The history store.
pub struct History {
    path: Option<PathBuf>,
    entries: Vec<Entry>,
    /// This kernel's session number (one more than any stored).
    pub session: u32,
}

/// How many entries are kept in memory and in the file.
const KEEP: usize = 10_000;
/// The longest search pattern (bytes) matched.
const MAX_PATTERN: usize = 4096;

impl History {
    /// Loads the history at `path` (None: in memory only).
    pub fn load(path: Option<PathBuf>) -> History {
        let mut entries: Vec<Entry> = Vec::new();
        if let Some(p) = &path {
            if let Ok(text) = std::fs::read_to_string(p) {
                entries = text
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect();
                if entries.len() > KEEP {
                    entries.drain(..entries.len() - KEEP);
                    // Rewrite the file without the oldest entries.
                    let mut out = String::new();
                    for e in &entries {
                        out += &serde_json::to_string(e).unwrap_or_default();
                        out.push('\n');
                    }
                    let _ = std::fs::write(p, out);
                }
            }
        }
        // The file is read as found: a session number at u32::MAX stays there.
        let session = entries
            .iter()
            .map(|e| e.session)
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        History {
            path,
            entries,
            session,
        }
    }

    /// Records a cell of this session.
    pub fn add(&mut self, line: u32, input: &str, output: Option<String>) {
        let e = Entry {
            session: self.session,
            line,
            input: input.to_string(),
            output,
        };
        if let Some(p) = &self.path {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
            {
                let _ = writeln!(f, "{}", serde_json::to_string(&e).unwrap_or_default());
            }
        }
        self.entries.push(e);
    }

    /// Answers a `history_request` (its content); returns the `history` list.
    pub fn query(&self, req: &Value) -> Vec<Value> {
        let output = req["output"].as_bool().unwrap_or(false);
        let n = req["n"].as_i64().filter(|&n| n > 0).map(|n| n as usize);
        let picked: Vec<&Entry> = match req["hist_access_type"].as_str().unwrap_or("tail") {
            "range" => {
                let raw = req["session"].as_i64().unwrap_or(0);
                // 0 (or absent) is this session; negative counts back from it.
                let session = if raw <= 0 {
                    (self.session as i64).saturating_add(raw)
                } else {
                    raw
                };
                let start = req["start"].as_i64().unwrap_or(0);
                let stop = req["stop"].as_i64().filter(|&s| s > 0);
                self.entries
                    .iter()
                    .filter(|e| e.session as i64 == session)
                    .filter(|e| e.line as i64 >= start && stop.is_none_or(|s| (e.line as i64) < s))
                    .collect()
            }
            "search" => {
                let pattern = req["pattern"].as_str().unwrap_or("*");
                if pattern.len() > MAX_PATTERN {
                    // Matching costs pattern × history: a pattern of megabytes
                    // would hold the shell for minutes. None is typed that long.
                    return Vec::new();
                }
                let unique = req["unique"].as_bool().unwrap_or(false);
                let mut hits: Vec<&Entry> = self
                    .entries
                    .iter()
                    .filter(|e| glob(pattern, &e.input))
                    .collect();
                if unique {
                    // Keep the latest occurrence of each input.
                    let mut seen = std::collections::HashSet::new();
                    let mut kept: Vec<&Entry> = hits
                        .iter()
                        .rev()
                        .filter(|e| seen.insert(e.input.as_str()))
                        .copied()
                        .collect();
                    kept.reverse();
                    hits = kept;
                }
                if let Some(n) = n {
                    let skip = hits.len().saturating_sub(n);
                    hits.drain(..skip);
                }
                hits
            }
            _ => {
                let n = n.unwrap_or(10);
                let skip = self.entries.len().saturating_sub(n);
                self.entries[skip..].iter().collect()
            }
        };
        picked
            .into_iter()
            .map(|e| {
                if output {
                    json!([e.session, e.line, [e.input, e.output]])
                } else {
                    json!([e.session, e.line, e.input])
                }
            })
            .collect()
    }
}

/// Glob matching as IPython's history search does it (`*`, `?`, `[abc]`), on the whole input.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    fn class(p: &[char], c: char) -> Option<(bool, usize)> {
        // p starts after '['; returns (matched, length of the class incl. ']')
        let mut i = 0;
        let negate = matches!(p.first(), Some('!') | Some('^'));
        if negate {
            i += 1;
        }
        let mut matched = false;
        let mut first = true;
        while i < p.len() {
            if p[i] == ']' && !first {
                return Some((matched != negate, i + 1));
            }
            if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
                if p[i] <= c && c <= p[i + 2] {
                    matched = true;
                }
                i += 3;
            } else {
                if p[i] == c {
                    matched = true;
                }
                i += 1;
            }
            first = false;
        }
        None
    }
    fn go(p: &[char], t: &[char]) -> bool {
        let (mut pi, mut ti) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            if pi < p.len() {
                match p[pi] {
                    '*' => {
                        star = Some((pi, ti));
                        pi += 1;
                        continue;
                    }
                    '?' => {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                    '[' => {
                        if let Some((ok, len)) = class(&p[pi + 1..], t[ti]) {
                            if ok {
                                pi += 1 + len;
                                ti += 1;
                                continue;
                            }
                        } else if t[ti] == '[' {
                            pi += 1;
                            ti += 1;
                            continue;
                        }
                    }
                    c if c == t[ti] => {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            }
        }
        while pi < p.len() && p[pi] == '*' {
            pi += 1;
        }
        pi == p.len()
    }
    go(&p, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> History {
        let mut h = History::load(None);
        h.session = 3;
        h.add(1, "let a = 1;", None);
        h.add(2, "a + 1", Some("2".into()));
        h.add(3, "a + 1", Some("2".into()));
        h.add(4, "println!(\"x\")", None);
        h
    }

    #[test]
    fn tail_range_search() {
        let h = store();
        let t = h.query(&json!({"hist_access_type": "tail", "n": 2, "output": false}));
        assert_eq!(
            t,
            vec![json!([3, 3, "a + 1"]), json!([3, 4, "println!(\"x\")"])]
        );
        let t = h.query(&json!({"hist_access_type": "tail", "n": 1, "output": true}));
        assert_eq!(t, vec![json!([3, 4, ["println!(\"x\")", null]])]);
        let r = h.query(&json!({"hist_access_type": "range", "session": 3, "start": 2, "stop": 3, "output": false}));
        assert_eq!(r, vec![json!([3, 2, "a + 1"])]);
        let r = h.query(&json!({"hist_access_type": "range", "session": 0, "start": 1, "stop": 0, "output": false}));
        assert_eq!(r.len(), 4);
        let s = h.query(&json!({"hist_access_type": "search", "pattern": "a*", "output": false}));
        assert_eq!(s.len(), 2);
        let s = h.query(&json!({"hist_access_type": "search", "pattern": "a*", "unique": true, "output": false}));
        assert_eq!(s, vec![json!([3, 3, "a + 1"])]);
        let s = h
            .query(&json!({"hist_access_type": "search", "pattern": "*", "n": 3, "output": false}));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn hostile_queries_answer() {
        let mut h = History::load(None);
        h.add(1, "1 + 1", None);
        for req in [
            json!({"hist_access_type": "range", "session": i64::MIN, "start": i64::MIN, "stop": i64::MAX}),
            json!({"hist_access_type": "range", "session": i64::MAX, "n": i64::MIN}),
            json!({"hist_access_type": "search", "pattern": "*".repeat(MAX_PATTERN + 1)}),
            json!({"hist_access_type": "search", "pattern": "[", "n": u64::MAX}),
            json!({"hist_access_type": ["tail"], "n": -5}),
        ] {
            let _ = h.query(&req);
        }
        assert_eq!(
            h.query(&json!({"hist_access_type": "search", "pattern": "1*"}))
                .len(),
            1
        );
    }

    #[test]
    fn globs() {
        assert!(glob("a*", "a + 1"));
        assert!(glob("*+*", "a + 1"));
        assert!(glob("?+?", "a+1"));
        assert!(!glob("a", "ab"));
        assert!(glob("[ab]x", "bx"));
        assert!(!glob("[!ab]x", "bx"));
        assert!(glob("1[0-9]", "17"));
        assert!(glob("*", ""));
    }

    #[test]
    fn persists_and_numbers_sessions() {
        let p =
            std::env::temp_dir().join(format!("cuprite-history-test-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let mut h = History::load(Some(p.clone()));
        assert_eq!(h.session, 1);
        h.add(1, "1 + 1", Some("2".into()));
        let h2 = History::load(Some(p.clone()));
        assert_eq!(h2.session, 2);
        assert_eq!(
            h2.query(&json!({"hist_access_type": "tail", "n": 5, "output": false})),
            vec![json!([1, 1, "1 + 1"])]
        );
        std::fs::remove_file(&p).unwrap();
    }
}
