//! MIME bundles: what a notebook receives for one displayed value.

use serde_json::{Map, Value};

/// The MIME type that every bundle carries.
pub const TEXT_PLAIN: &str = "text/plain";
/// HTML, for tables and reports.
pub const TEXT_HTML: &str = "text/html";
/// PNG images, base64-encoded in the bundle.
pub const IMAGE_PNG: &str = "image/png";
/// SVG images, as XML text.
pub const IMAGE_SVG: &str = "image/svg+xml";

/// The start marker of one MIME block in evcxr's stdout protocol.
pub const EVCXR_BEGIN: &str = "EVCXR_BEGIN_CONTENT";
/// The end marker of one MIME block in evcxr's stdout protocol.
pub const EVCXR_END: &str = "EVCXR_END_CONTENT";

/// An ordered map from MIME type to content, with per-MIME metadata
/// (Jupyter's `data` and `metadata`); `text/plain` is always present.
///
/// ```
/// use cuprite_display::MimeBundle;
/// let b = MimeBundle::new("3").with("text/html", "<b>3</b>");
/// assert_eq!(b.get("text/plain"), Some("3"));
/// assert_eq!(b.to_json()["data"]["text/html"], "<b>3</b>");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MimeBundle {
    data: Vec<(String, String)>,
    metadata: Map<String, Value>,
}

impl MimeBundle {
    /// A bundle holding only `text/plain`.
    pub fn new(text_plain: impl Into<String>) -> MimeBundle {
        MimeBundle {
            data: vec![(TEXT_PLAIN.to_string(), text_plain.into())],
            metadata: Map::new(),
        }
    }

    /// Adds (or replaces) the content for `mime`, keeping the first position it had.
    pub fn insert(&mut self, mime: impl Into<String>, content: impl Into<String>) {
        let mime = mime.into();
        let content = content.into();
        match self.data.iter_mut().find(|(m, _)| *m == mime) {
            Some(slot) => slot.1 = content,
            None => self.data.push((mime, content)),
        }
    }

    /// Builder form of [`MimeBundle::insert`].
    pub fn with(mut self, mime: impl Into<String>, content: impl Into<String>) -> MimeBundle {
        self.insert(mime, content);
        self
    }

    /// Removes the content for `mime` (`text/plain` cannot be removed); returns it.
    pub fn remove(&mut self, mime: &str) -> Option<String> {
        if mime == TEXT_PLAIN {
            return None;
        }
        let i = self.data.iter().position(|(m, _)| m == mime)?;
        self.metadata.remove(mime);
        Some(self.data.remove(i).1)
    }

    /// Sets the metadata of one MIME type (for images: `{"width": w, "height": h}`).
    pub fn set_metadata(&mut self, mime: impl Into<String>, value: Value) {
        self.metadata.insert(mime.into(), value);
    }

    /// Builder form of [`MimeBundle::set_metadata`].
    pub fn with_metadata(mut self, mime: impl Into<String>, value: Value) -> MimeBundle {
        self.set_metadata(mime, value);
        self
    }

    /// The content for `mime`, if present.
    pub fn get(&self, mime: &str) -> Option<&str> {
        self.data
            .iter()
            .find(|(m, _)| m == mime)
            .map(|(_, c)| c.as_str())
    }

    /// The `text/plain` content.
    pub fn text_plain(&self) -> &str {
        self.get(TEXT_PLAIN).unwrap_or_default()
    }

    /// True when the bundle has content for `mime`.
    pub fn contains(&self, mime: &str) -> bool {
        self.get(mime).is_some()
    }

    /// The MIME types in insertion order (`text/plain` first).
    pub fn mimes(&self) -> impl Iterator<Item = &str> {
        self.data.iter().map(|(m, _)| m.as_str())
    }

    /// `(mime, content)` pairs in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.data.iter().map(|(m, c)| (m.as_str(), c.as_str()))
    }

    /// The metadata of one MIME type, if any was set.
    pub fn metadata_for(&self, mime: &str) -> Option<&Value> {
        self.metadata.get(mime)
    }

    /// Total bytes of content (all MIME types).
    pub fn content_len(&self) -> usize {
        self.data.iter().map(|(_, c)| c.len()).sum()
    }

    /// Jupyter's `data` object: `{"text/plain": "...", "text/html": "..."}`.
    pub fn data_json(&self) -> Value {
        Value::Object(
            self.data
                .iter()
                .map(|(m, c)| (m.clone(), Value::String(c.clone())))
                .collect(),
        )
    }

    /// Jupyter's `metadata` object: `{"image/png": {"width": 640, "height": 480}}`.
    pub fn metadata_json(&self) -> Value {
        Value::Object(self.metadata.clone())
    }

    /// `{"data": {...}, "metadata": {...}}`, the content of a `display_data` or
    /// `execute_result` message (without `transient` and `execution_count`).
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("data".into(), self.data_json());
        o.insert("metadata".into(), self.metadata_json());
        Value::Object(o)
    }

    /// The bundle in evcxr's stdout protocol: one
    /// `EVCXR_BEGIN_CONTENT <mime>\n<content>\nEVCXR_END_CONTENT\n` block per MIME type.
    pub fn to_evcxr(&self) -> String {
        let mut out = String::with_capacity(self.content_len() + 64 * self.data.len());
        for (mime, content) in &self.data {
            out.push_str(EVCXR_BEGIN);
            out.push(' ');
            out.push_str(mime);
            out.push('\n');
            for (i, line) in content.split('\n').enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                // A content line equal to the end marker would end the block early.
                if line.trim_end() == EVCXR_END {
                    out.push(' ');
                }
                out.push_str(line);
            }
            out.push('\n');
            out.push_str(EVCXR_END);
            out.push('\n');
        }
        out
    }
}

/// A value that can show itself in a notebook as a MIME bundle.
pub trait RichDisplay {
    /// The bundle to send; it always holds `text/plain`.
    fn bundle(&self) -> MimeBundle;

    /// For a value that is an error (`Err(e)` of a `cuprite::Result`): its
    /// name and message (`("ShapeError", "reshape: ...")`). A cell ending in
    /// such a value fails with this error in the kernel instead of showing it.
    fn error(&self) -> Option<(String, String)> {
        None
    }
}

impl<T: RichDisplay + ?Sized> RichDisplay for &T {
    fn bundle(&self) -> MimeBundle {
        (**self).bundle()
    }
    fn error(&self) -> Option<(String, String)> {
        (**self).error()
    }
}

impl<T: RichDisplay + ?Sized> RichDisplay for Box<T> {
    fn bundle(&self) -> MimeBundle {
        (**self).bundle()
    }
    fn error(&self) -> Option<(String, String)> {
        (**self).error()
    }
}

impl RichDisplay for MimeBundle {
    fn bundle(&self) -> MimeBundle {
        self.clone()
    }
}

/// HTML content with a plain-text fallback.
#[derive(Debug, Clone, PartialEq)]
pub struct Html {
    /// The HTML shown by notebooks.
    pub html: String,
    /// What terminals and plain-text front ends show.
    pub text: String,
}

impl Html {
    /// HTML with the plain text that terminals show instead.
    pub fn new(html: impl Into<String>, text: impl Into<String>) -> Html {
        Html {
            html: html.into(),
            text: text.into(),
        }
    }
}

impl RichDisplay for Html {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.text.clone()).with(TEXT_HTML, self.html.clone())
    }
}

/// Plain text, shown as is.
#[derive(Debug, Clone, PartialEq)]
pub struct Text(pub String);

impl RichDisplay for Text {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.0.clone())
    }
}

/// Markdown, rendered by the notebook (with the source as plain text).
#[derive(Debug, Clone, PartialEq)]
pub struct Markdown(pub String);

impl RichDisplay for Markdown {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.0.clone()).with("text/markdown", self.0.clone())
    }
}

/// A PNG image (encoded bytes) with its pixel size.
#[derive(Debug, Clone, PartialEq)]
pub struct Png {
    /// The encoded PNG file.
    pub bytes: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl RichDisplay for Png {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(format!(
            "<PNG image {}x{}, {} bytes>",
            self.width,
            self.height,
            self.bytes.len()
        ))
        .with(IMAGE_PNG, base64_encode(&self.bytes))
        .with_metadata(IMAGE_PNG, image_size_metadata(self.width, self.height))
    }
}

/// An SVG image.
#[derive(Debug, Clone, PartialEq)]
pub struct Svg(pub String);

impl RichDisplay for Svg {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(format!("<SVG image, {} bytes>", self.0.len()))
            .with(IMAGE_SVG, self.0.clone())
    }
}

/// Standard base64 (with padding), as Jupyter expects for binary MIME types.
pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `{"width": w, "height": h}`, the metadata Jupyter reads for image sizes.
pub fn image_size_metadata(width: u32, height: u32) -> Value {
    serde_json::json!({ "width": width, "height": height })
}
