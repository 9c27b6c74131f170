//! Widgets that hold others: an output area and horizontal and vertical boxes.

use super::{object, reference, Model, Widget};
use cuprite_display::{MimeBundle, RichDisplay};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// An output area whose content the kernel replaces (ipywidgets' `Output`):
/// where [`interact`](super::interact) draws, and where a callback can show
/// plots and tables.
#[derive(Clone)]
pub struct Output {
    model: Arc<Model>,
}

impl Widget for Output {
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
}

impl Default for Output {
    fn default() -> Self {
        Output::new()
    }
}

impl Output {
    /// An empty output area.
    pub fn new() -> Output {
        let mut state = Map::new();
        state.insert("outputs".into(), json!([]));
        state.insert("msg_id".into(), json!(""));
        state.insert("_dom_classes".into(), json!([]));
        state.insert("tabbable".into(), Value::Null);
        state.insert("tooltip".into(), Value::Null);
        Output {
            model: Model::open_dom("OutputModel", None, state),
        }
    }

    /// Replaces what the area shows by `value`.
    pub fn show(&self, value: &impl RichDisplay) {
        self.set_outputs(vec![display_output(&value.bundle())]);
    }

    /// Adds `value` below what the area shows.
    pub fn append(&self, value: &impl RichDisplay) {
        let mut outputs = self.outputs();
        outputs.push(display_output(&value.bundle()));
        self.set_outputs(outputs);
    }

    /// Adds text below what the area shows, as printed output.
    pub fn append_text(&self, text: &str) {
        let mut outputs = self.outputs();
        outputs.push(json!({"output_type": "stream", "name": "stdout", "text": text}));
        self.set_outputs(outputs);
    }

    /// Empties the area.
    pub fn clear(&self) {
        self.set_outputs(Vec::new());
    }

    fn outputs(&self) -> Vec<Value> {
        self.model
            .get("outputs")
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn set_outputs(&self, outputs: Vec<Value>) {
        let mut change = Map::new();
        change.insert("outputs".into(), Value::Array(outputs));
        self.model.set(change);
    }
}

/// One display as an output of the area (nbformat's `display_data`); JSON
/// MIME types as objects, as the front end wants them.
fn display_output(bundle: &MimeBundle) -> Value {
    let data: Map<String, Value> = bundle
        .iter()
        .map(|(mime, content)| {
            let value = if mime.contains("json") {
                serde_json::from_str(content).unwrap_or_else(|_| Value::String(content.into()))
            } else {
                Value::String(content.into())
            };
            (mime.to_string(), value)
        })
        .collect();
    json!({"output_type": "display_data", "data": data, "metadata": bundle.metadata_json()})
}

impl RichDisplay for Output {
    fn bundle(&self) -> MimeBundle {
        self.model
            .view_bundle(format!("Output({} outputs)", self.outputs().len()))
    }
}

macro_rules! boxes {
    ($t:ident, $model:literal, $what:literal) => {
        #[doc = concat!("Widgets laid out ", $what, ".")]
        #[derive(Clone)]
        pub struct $t {
            model: Arc<Model>,
        }

        impl Widget for $t {
            fn model(&self) -> &Arc<Model> {
                &self.model
            }
        }

        impl Default for $t {
            fn default() -> Self {
                $t::new()
            }
        }

        impl $t {
            /// An empty box.
            pub fn new() -> $t {
                let state = object(json!({"children": [], "box_style": "", "_dom_classes": [],
                                          "tabbable": null, "tooltip": null}));
                $t {
                    model: Model::open_dom($model, None, state),
                }
            }

            /// Adds `child` after the widgets already in the box.
            pub fn child(self, child: &impl Widget) -> Self {
                let mut children = self
                    .model
                    .get("children")
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                children.push(reference(child.model()));
                let mut change = Map::new();
                change.insert("children".into(), Value::Array(children));
                self.model.set(change);
                self
            }

            /// How many widgets the box holds.
            pub fn len(&self) -> usize {
                self.model
                    .get("children")
                    .as_array()
                    .map_or(0, Vec::len)
            }

            /// Whether the box holds no widget.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }

        impl RichDisplay for $t {
            fn bundle(&self) -> MimeBundle {
                self.model.view_bundle(format!(
                    "{}({} widgets)",
                    stringify!($t),
                    self.len()
                ))
            }
        }
    };
}

boxes!(HBox, "HBoxModel", "side by side");
boxes!(VBox, "VBoxModel", "one above the other");
