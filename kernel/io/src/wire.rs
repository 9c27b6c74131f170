//! The wire formats shared by the cell process and the kernel.
//!
//! Cell process → kernel, on the Unix socket: frames `[kind: u8][len: u32 LE][payload]`.
//! Kernel → cell process, on the same socket: text lines ([`command`]).
//!
//! Inside the cell process, frames travel in-band in the stdout stream as
//! `ESC` + nonce + kind + 8 hex digits of length + payload, so that they keep
//! their order with the text around them; [`StdoutParser`] takes them out.

/// Frame kinds.
pub mod kind {
    /// First frame on a connection: `token\npid`.
    pub const HELLO: u8 = b'H';
    /// Text written to stdout.
    pub const STDOUT: u8 = b'O';
    /// Text written to stderr.
    pub const STDERR: u8 = b'E';
    /// An iopub message: `{"msg_type": ..., "content": {...}}`.
    pub const MESSAGE: u8 = b'M';
    /// A panic: `{"message", "location", "thread", "cell" (on the cell's thread), "backtrace"}`.
    pub const PANIC: u8 = b'P';
    /// The start of a timed region: `{"wall_ns", "user_ns", "sys_ns"}`.
    pub const MARK: u8 = b'T';
    /// The cell finished running (evcxr's completion marker): [`MARK`]'s payload
    /// plus `gpu`, the pools of the GPUs the process has opened.
    pub const COMPLETE: u8 = b'C';
    /// The cell's main thread panicked (evcxr caught it).
    pub const PANICKED: u8 = b'!';
    /// A `?` in the cell returned an error (evcxr printed it on stderr).
    pub const USER_ERROR: u8 = b'?';
    /// Answer to a flush request: payload is the request's sequence number.
    pub const SYNCED: u8 = b'S';
    /// A comm message ([`command::COMM`](super::command::COMM)) was handled
    /// (its callbacks ran): payload is its sequence number.
    pub const COMM_DONE: u8 = b'W';
}

/// Commands from the kernel to the cell process (one per line).
pub mod command {
    /// `F<seq>`: flush stdout and stderr, then answer with a `SYNCED` frame.
    pub const FLUSH: u8 = b'F';
    /// `I`: clear the interrupt flag (a new cell starts).
    pub const CLEAR_INTERRUPT: u8 = b'I';
    /// `D<hex path>`: change the working directory (`%cd` in the kernel).
    pub const CHDIR: u8 = b'D';
    /// `V<hex name>=<hex value>`: set an environment variable (`%env` in the kernel).
    pub const SET_ENV: u8 = b'V';
    /// `W<seq>:<hex json>`: a comm message from the front end for a widget of
    /// this process (`{"comm_id", "method": "msg"|"close", "data"}`); answered
    /// with a [`kind::COMM_DONE`](super::kind::COMM_DONE) frame once handled.
    pub const COMM: u8 = b'W';
}

/// Bytes as lowercase hex digits: paths and values in command lines, which
/// may hold newlines or any other byte.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes [`to_hex`] wrote; None for anything else.
pub fn from_hex(hex: &[u8]) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks(2)
        .map(|pair| {
            let digit = |c: u8| (c as char).to_digit(16);
            Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect()
}

/// First bytes of an in-band frame.
pub const ESC: &[u8; 2] = b"\x1b\x1d";
/// Length of the nonce that follows [`ESC`].
pub const NONCE_LEN: usize = 16;
const HEADER_LEN: usize = 2 + NONCE_LEN + 1 + 8;

/// The header of an in-band frame.
pub fn inband_header(nonce: &[u8], kind: u8, len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    h.extend_from_slice(ESC);
    h.extend_from_slice(nonce);
    h.push(kind);
    h.extend_from_slice(format!("{:08x}", len as u32).as_bytes());
    h
}

/// Encodes a socket frame.
pub fn encode_frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 5);
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Reads one socket frame; `Ok(None)` at end of stream.
pub fn read_frame(r: &mut impl std::io::Read) -> std::io::Result<Option<(u8, Vec<u8>)>> {
    let mut head = [0u8; 5];
    let mut got = 0;
    while got < head.len() {
        match r.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    Ok(Some((head[0], payload)))
}

/// What the stdout parser found, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// User text, to publish as stdout.
    Text(Vec<u8>),
    /// One of evcxr's protocol lines, to hand on to evcxr.
    Evcxr(Vec<u8>),
    /// An in-band frame.
    Frame(u8, Vec<u8>),
}

/// Splits the cell process's stdout stream into user text, evcxr protocol
/// lines (which start with `EVCXR_`) and in-band frames.
#[derive(Debug)]
pub struct StdoutParser {
    nonce: Vec<u8>,
    buf: Vec<u8>,
    in_content_block: bool,
}

const EVCXR_PREFIX: &[u8] = b"EVCXR_";

impl StdoutParser {
    /// A parser recognising frames with this nonce.
    pub fn new(nonce: &[u8]) -> StdoutParser {
        StdoutParser {
            nonce: nonce.to_vec(),
            buf: Vec::new(),
            in_content_block: false,
        }
    }

    /// Whether bytes are held back waiting for the rest of a marker or frame.
    pub fn has_pending(&self) -> bool {
        !self.buf.is_empty()
    }

    /// Adds bytes read from the stream and returns what can be decided now.
    /// With `force`, held-back bytes that do not complete are released as text.
    ///
    /// evcxr's protocol lines are recognised wherever `EVCXR_` appears, not
    /// only at line starts: text printed without a newline can be flushed
    /// just before evcxr's completion marker, and missing that marker would
    /// hang the session.
    pub fn feed(&mut self, bytes: &[u8], force: bool) -> Vec<Piece> {
        self.buf.extend_from_slice(bytes);
        let mut out: Vec<Piece> = Vec::new();
        let mut pos = 0;
        let buf = std::mem::take(&mut self.buf);
        loop {
            let rest = &buf[pos..];
            if rest.is_empty() {
                break;
            }
            if self.in_content_block {
                match find(rest, b"\n") {
                    Some(i) => {
                        let line = &rest[..=i];
                        if trim_eol(line) == b"EVCXR_END_CONTENT" {
                            self.in_content_block = false;
                        }
                        push_evcxr(&mut out, line);
                        pos += i + 1;
                        continue;
                    }
                    None => break,
                }
            }
            if rest[0] == ESC[0] {
                if rest.len() == 1 && !force {
                    break;
                }
                if rest.len() >= 2 && rest[1] == ESC[1] {
                    match self.try_frame(rest) {
                        FrameParse::Frame(kind, payload, used) => {
                            out.push(Piece::Frame(kind, payload));
                            pos += used;
                            continue;
                        }
                        FrameParse::NeedMore if !force => break,
                        _ => {}
                    }
                }
                push_text(&mut out, &rest[..1]);
                pos += 1;
                continue;
            }
            if rest.starts_with(EVCXR_PREFIX) {
                match find(rest, b"\n") {
                    Some(i) => {
                        let line = &rest[..=i];
                        if trim_eol(line).starts_with(b"EVCXR_BEGIN_CONTENT") {
                            self.in_content_block = true;
                        }
                        push_evcxr(&mut out, line);
                        pos += i + 1;
                        continue;
                    }
                    None if !force && rest.len() < 4096 => break,
                    None => {
                        push_text(&mut out, rest);
                        pos += rest.len();
                        continue;
                    }
                }
            }
            if !force && rest.len() < EVCXR_PREFIX.len() && EVCXR_PREFIX.starts_with(rest) {
                break;
            }
            // Plain text up to the end of the line, a frame or a marker.
            let mut end = rest.len();
            if let Some(n) = find(rest, b"\n") {
                end = end.min(n + 1);
            }
            if let Some(e) = find(&rest[1..], &ESC[..1]) {
                end = end.min(e + 1);
            }
            if let Some(m) = find(&rest[1..], EVCXR_PREFIX) {
                end = end.min(m + 1);
            }
            if end == rest.len() && !force {
                // Hold back a tail that may be the start of a marker.
                for k in (1..EVCXR_PREFIX.len()).rev() {
                    if rest.len() > k && rest.ends_with(&EVCXR_PREFIX[..k]) {
                        end = rest.len() - k;
                        break;
                    }
                }
            }
            push_text(&mut out, &rest[..end]);
            pos += end;
        }
        self.buf = buf[pos..].to_vec();
        out
    }

    fn try_frame(&self, rest: &[u8]) -> FrameParse {
        let have = rest.len().min(HEADER_LEN);
        let nonce_end = 2 + NONCE_LEN;
        // Reject as soon as the bytes seen so far cannot be our header.
        let seen_nonce = &rest[2.min(have)..nonce_end.min(have)];
        if !self.nonce.starts_with(seen_nonce) || self.nonce.len() != NONCE_LEN {
            return FrameParse::NotFrame;
        }
        if rest.len() < HEADER_LEN {
            return FrameParse::NeedMore;
        }
        let kind = rest[nonce_end];
        let Some(len) = std::str::from_utf8(&rest[nonce_end + 1..HEADER_LEN])
            .ok()
            .and_then(|s| usize::from_str_radix(s, 16).ok())
        else {
            return FrameParse::NotFrame;
        };
        if rest.len() < HEADER_LEN + len {
            return FrameParse::NeedMore;
        }
        FrameParse::Frame(
            kind,
            rest[HEADER_LEN..HEADER_LEN + len].to_vec(),
            HEADER_LEN + len,
        )
    }
}

enum FrameParse {
    Frame(u8, Vec<u8>, usize),
    NeedMore,
    NotFrame,
}

fn push_text(out: &mut Vec<Piece>, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    if let Some(Piece::Text(t)) = out.last_mut() {
        t.extend_from_slice(bytes);
    } else {
        out.push(Piece::Text(bytes.to_vec()));
    }
}

/// One protocol line per piece, so that the forwarder sees each marker.
fn push_evcxr(out: &mut Vec<Piece>, bytes: &[u8]) {
    out.push(Piece::Evcxr(bytes.to_vec()));
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() == 1 {
        return hay.iter().position(|&b| b == needle[0]);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A JSON string literal for `s`.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A MIME bundle being built: `Bundle::new().text("x").html("<b>x</b>")`.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    data: Vec<(String, String)>,
    metadata: Vec<(String, String)>,
    display_id: Option<String>,
}

impl Bundle {
    /// An empty bundle.
    pub fn new() -> Bundle {
        Bundle::default()
    }

    /// Adds a textual MIME type (the content becomes a JSON string).
    pub fn mime(mut self, mime: &str, content: &str) -> Bundle {
        self.data.push((mime.to_string(), json_string(content)));
        self
    }

    /// Adds a MIME type whose content is already JSON (for `application/json` and the like).
    pub fn mime_json(mut self, mime: &str, json: &str) -> Bundle {
        self.data.push((mime.to_string(), json.to_string()));
        self
    }

    /// Adds `text/plain`.
    pub fn text(self, text: &str) -> Bundle {
        self.mime("text/plain", text)
    }

    /// Adds `text/html`.
    pub fn html(self, html: &str) -> Bundle {
        self.mime("text/html", html)
    }

    /// Adds `image/png` (base64 text) with an optional size hint.
    pub fn png_base64(mut self, base64: &str, size: Option<(u32, u32)>) -> Bundle {
        if let Some((w, h)) = size {
            self.metadata.push((
                "image/png".into(),
                format!("{{\"width\":{w},\"height\":{h}}}"),
            ));
        }
        self.mime("image/png", base64)
    }

    /// Names the output so that it can be updated later.
    pub fn display_id(mut self, id: &str) -> Bundle {
        self.display_id = Some(id.to_string());
        self
    }

    /// The display id, if any.
    pub fn id(&self) -> Option<&str> {
        self.display_id.as_deref()
    }

    /// The `text/plain` part, unescaped, if any.
    pub fn plain_text(&self) -> Option<String> {
        self.data
            .iter()
            .find(|(m, _)| m == "text/plain")
            .map(|(_, v)| unescape_json_string(v))
    }

    /// The `data` object as JSON.
    pub fn data_json(&self) -> String {
        object_json(&self.data)
    }

    /// The `metadata` object as JSON.
    pub fn metadata_json(&self) -> String {
        object_json(&self.metadata)
    }
}

fn object_json(entries: &[(String, String)]) -> String {
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{v}", json_string(k)))
        .collect();
    format!("{{{}}}", body.join(","))
}

fn unescape_json_string(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Formats a duration in seconds with three significant digits and a unit.
pub fn format_seconds(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    if v >= 100.0 {
        format!("{v:.0} {unit}")
    } else if v >= 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.2} {unit}")
    }
}

/// The statistics `%timeit` reports.
#[derive(Debug, Clone)]
pub struct TimeitReport {
    /// Seconds per loop, median over runs.
    pub median: f64,
    /// Standard deviation over runs.
    pub std_dev: f64,
    /// Fastest run (per loop).
    pub min: f64,
    /// Slowest run (per loop).
    pub max: f64,
    /// Runs measured.
    pub runs: usize,
    /// Loops per run.
    pub loops: u64,
}

impl TimeitReport {
    /// Statistics of per-loop times (seconds) from each run.
    pub fn new(per_loop: &[f64], loops: u64) -> TimeitReport {
        let mut v: Vec<f64> = per_loop.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => v[n / 2],
            _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        };
        let mean = if n > 0 {
            v.iter().sum::<f64>() / n as f64
        } else {
            0.0
        };
        let var = if n > 1 {
            v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        TimeitReport {
            median,
            std_dev: var.sqrt(),
            min: v.first().copied().unwrap_or(0.0),
            max: v.last().copied().unwrap_or(0.0),
            runs: n,
            loops,
        }
    }

    /// One line of text, IPython style.
    pub fn text(&self) -> String {
        format!(
            "{} ± {} per loop (median ± std. dev. of {} run{}, {} loop{} each; min {}, max {}; CPU wall time)",
            format_seconds(self.median),
            format_seconds(self.std_dev),
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.loops,
            if self.loops == 1 { "" } else { "s" },
            format_seconds(self.min),
            format_seconds(self.max),
        )
    }

    /// A small HTML table.
    pub fn html(&self) -> String {
        format!(
            "<table class=\"cuprite-timeit\"><tr><th>median</th><th>std. dev.</th><th>min</th><th>max</th><th>runs</th><th>loops/run</th></tr>\
             <tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></table>",
            format_seconds(self.median),
            format_seconds(self.std_dev),
            format_seconds(self.min),
            format_seconds(self.max),
            self.runs,
            self.loops
        )
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn hex_round_trips_any_bytes() {
        let bytes = b"/tmp/a dir\n\x00\xff=";
        assert_eq!(
            from_hex(to_hex(bytes).as_bytes()).as_deref(),
            Some(&bytes[..])
        );
        assert_eq!(to_hex(b"A\n"), "410a");
        assert_eq!(from_hex(b"4"), None);
        assert_eq!(from_hex(b"zz"), None);
    }

    use super::*;

    const NONCE: &[u8] = b"0123456789abcdef";

    fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = inband_header(NONCE, kind, payload.len());
        v.extend_from_slice(payload);
        v
    }

    fn feed_all(chunks: &[&[u8]]) -> Vec<Piece> {
        let mut p = StdoutParser::new(NONCE);
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.feed(c, false));
        }
        out.extend(p.feed(b"", true));
        merge(out)
    }

    fn merge(pieces: Vec<Piece>) -> Vec<Piece> {
        let mut out: Vec<Piece> = Vec::new();
        for p in pieces {
            match (out.last_mut(), p) {
                (Some(Piece::Text(a)), Piece::Text(b)) => a.extend(b),
                (Some(Piece::Evcxr(a)), Piece::Evcxr(b)) => a.extend(b),
                (_, p) => out.push(p),
            }
        }
        out
    }

    #[test]
    fn text_and_markers_are_separated() {
        let out = feed_all(&[b"hello\nEVCXR_EXECUTION_COMPLETE\nmore"]);
        assert_eq!(
            out,
            vec![
                Piece::Text(b"hello\n".to_vec()),
                Piece::Evcxr(b"EVCXR_EXECUTION_COMPLETE\n".to_vec()),
                Piece::Text(b"more".to_vec()),
            ]
        );
    }

    #[test]
    fn partial_text_is_released_at_once() {
        let mut p = StdoutParser::new(NONCE);
        assert_eq!(p.feed(b"50%", false), vec![Piece::Text(b"50%".to_vec())]);
        assert_eq!(p.feed(b" 60%", false), vec![Piece::Text(b" 60%".to_vec())]);
        assert!(!p.has_pending());
    }

    #[test]
    fn marker_prefix_is_held_until_decided() {
        let mut p = StdoutParser::new(NONCE);
        assert_eq!(p.feed(b"EVC", false), vec![]);
        assert!(p.has_pending());
        assert_eq!(
            p.feed(b"XR_PANIC_NOTIFICATION\nx", false),
            vec![
                Piece::Evcxr(b"EVCXR_PANIC_NOTIFICATION\n".to_vec()),
                Piece::Text(b"x".to_vec())
            ]
        );
        let mut p = StdoutParser::new(NONCE);
        assert_eq!(p.feed(b"EV", false), vec![]);
        assert_eq!(p.feed(b"", true), vec![Piece::Text(b"EV".to_vec())]);
    }

    #[test]
    fn markers_after_partial_text() {
        let out = feed_all(&[b"50%EVCXR_EXECUTION_COMPLETE\n"]);
        assert_eq!(
            out,
            vec![
                Piece::Text(b"50%".to_vec()),
                Piece::Evcxr(b"EVCXR_EXECUTION_COMPLETE\n".to_vec())
            ]
        );
        let mut p = StdoutParser::new(NONCE);
        assert_eq!(p.feed(b"50%EVC", false), vec![Piece::Text(b"50%".to_vec())]);
        assert_eq!(
            p.feed(b"XR_ERROR_OCCURRED\n", false),
            vec![Piece::Evcxr(b"EVCXR_ERROR_OCCURRED\n".to_vec())]
        );
    }

    #[test]
    fn content_blocks_pass_whole() {
        let out = feed_all(&[
            b"EVCXR_BEGIN_CONTENT text/plain\nline 1\n",
            b"EVCXR_X not a marker inside\nEVCXR_END_CONTENT\nafter\n",
        ]);
        assert_eq!(
            out,
            vec![
                Piece::Evcxr(
                    b"EVCXR_BEGIN_CONTENT text/plain\nline 1\nEVCXR_X not a marker inside\nEVCXR_END_CONTENT\n"
                        .to_vec()
                ),
                Piece::Text(b"after\n".to_vec()),
            ]
        );
    }

    #[test]
    fn frames_keep_their_place_even_split() {
        let f = frame(kind::MESSAGE, b"{\"a\":\n1}");
        let mut stream = b"before ".to_vec();
        stream.extend_from_slice(&f);
        stream.extend_from_slice(b"after\n");
        // Every split point gives the same result.
        for cut in 0..stream.len() {
            let out = feed_all(&[&stream[..cut], &stream[cut..]]);
            assert_eq!(
                out,
                vec![
                    Piece::Text(b"before ".to_vec()),
                    Piece::Frame(kind::MESSAGE, b"{\"a\":\n1}".to_vec()),
                    Piece::Text(b"after\n".to_vec()),
                ],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn foreign_escape_is_text() {
        let mut stream = b"\x1b\x1dXXXXXXXXXXXXXXXXM00000001z".to_vec();
        stream.extend_from_slice(b"\n");
        let out = feed_all(&[&stream]);
        assert_eq!(out, vec![Piece::Text(stream.clone())]);
        let out = feed_all(&[b"\x1b[31mred\x1b[0m\n"]);
        assert_eq!(out, vec![Piece::Text(b"\x1b[31mred\x1b[0m\n".to_vec())]);
    }

    #[test]
    fn socket_frames_round_trip() {
        let mut bytes = encode_frame(kind::STDOUT, b"abc");
        bytes.extend(encode_frame(kind::SYNCED, b""));
        let mut r = &bytes[..];
        assert_eq!(
            read_frame(&mut r).unwrap(),
            Some((kind::STDOUT, b"abc".to_vec()))
        );
        assert_eq!(read_frame(&mut r).unwrap(), Some((kind::SYNCED, vec![])));
        assert_eq!(read_frame(&mut r).unwrap(), None);
    }

    #[test]
    fn json_strings_escape() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        let b = Bundle::new().text("x\ny").html("<b>");
        assert_eq!(
            b.data_json(),
            "{\"text/plain\":\"x\\ny\",\"text/html\":\"<b>\"}"
        );
        assert_eq!(b.plain_text().as_deref(), Some("x\ny"));
    }

    #[test]
    fn timeit_statistics() {
        // median of [1, 2, 3, 4] is 2.5; sample std. dev. is sqrt(5/3)
        let r = TimeitReport::new(&[4.0, 1.0, 3.0, 2.0], 10);
        assert_eq!(r.median, 2.5);
        assert!((r.std_dev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((r.min, r.max, r.runs, r.loops), (1.0, 4.0, 4, 10));
        assert_eq!(format_seconds(0.0123), "12.3 ms");
        assert_eq!(format_seconds(2.5e-7), "250 ns");
    }
}
