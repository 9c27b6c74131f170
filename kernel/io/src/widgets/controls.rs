//! The controls: sliders, a dropdown, a checkbox, a button and a text box.
//! Each is a handle to its model (clones share it); builder methods set
//! state, `get`/`set` read and change the value, `observe` runs a callback
//! after each change the user makes.

use super::{object as state, Model, Widget};
use cuprite::{Error, Result};
use cuprite_display::{MimeBundle, RichDisplay};
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn one(key: &str, value: impl Into<Value>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), value.into());
    m
}

/// The style models' states, as ipywidgets 8 makes them.
fn description_style() -> Map<String, Value> {
    state(json!({"description_width": ""}))
}

macro_rules! widget_common {
    ($t:ident, $label:literal) => {
        impl Widget for $t {
            fn model(&self) -> &Arc<Model> {
                &self.model
            }
        }

        impl $t {
            /// The label shown beside the control.
            pub fn description(self, text: &str) -> Self {
                self.model.set(one("description", text));
                self
            }

            /// Greys the control out (true) or enables it.
            pub fn disabled(self, disabled: bool) -> Self {
                self.model.set(one("disabled", disabled));
                self
            }
        }

        impl RichDisplay for $t {
            fn bundle(&self) -> MimeBundle {
                self.model.view_bundle(format!(
                    "{}(description={:?}, value={})",
                    $label,
                    self.model.get("description").as_str().unwrap_or(""),
                    self.model.get("value")
                ))
            }
        }
    };
}

macro_rules! slider {
    ($t:ident, $label:literal, $num:ty, $model:literal, $format:literal, $step:expr, $as:ident) => {
        #[doc = concat!("A slider over `", stringify!($num), "` values (ipywidgets' `", $label, "`).")]
        #[derive(Clone)]
        pub struct $t {
            model: Arc<Model>,
        }

        widget_common!($t, $label);

        impl $t {
            /// A slider from `min` to `max` (inclusive), at `min`.
            pub fn new(min: $num, max: $num) -> Result<$t> {
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(min <= max) {
                    return Err(Error::invalid(
                        concat!("widgets::", $label),
                        format!("min {min} must not exceed max {max}"),
                    ));
                }
                let model = Model::open_dom(
                    $model,
                    Some((
                        "SliderStyleModel",
                        state(json!({"description_width": "", "handle_color": null})),
                    )),
                    state(json!({
                        "value": min, "min": min, "max": max, "step": $step,
                        "description": "", "description_allow_html": false,
                        "disabled": false, "continuous_update": true,
                        "orientation": "horizontal", "readout": true,
                        "readout_format": $format, "behavior": "drag-tap",
                        "_dom_classes": [], "tabbable": null, "tooltip": null,
                    })),
                );
                Ok($t { model })
            }

            /// Starts at `v` (kept within the range, as ipywidgets does).
            pub fn value(self, v: $num) -> Self {
                self.set(v);
                self
            }

            /// The step between values (positive).
            pub fn step(self, step: $num) -> Result<Self> {
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(step > (0 as $num)) {
                    return Err(Error::invalid(
                        concat!("widgets::", $label),
                        format!("step must be positive, not {step}"),
                    ));
                }
                self.model.set(one("step", step));
                Ok(self)
            }

            /// The current value.
            pub fn get(&self) -> $num {
                self.model.get("value").$as().unwrap_or_default() as $num
            }

            /// Moves the slider to `v` (kept within the range).
            pub fn set(&self, v: $num) {
                let min = self.model.get("min").$as().unwrap_or_default() as $num;
                let max = self.model.get("max").$as().unwrap_or_default() as $num;
                let v = if v < min { min } else if v > max { max } else { v };
                self.model.set(one("value", v));
            }

            /// Runs `f(value)` after each move the user makes.
            pub fn observe(&self, mut f: impl FnMut($num) + Send + 'static) {
                self.model.observe_any(move |key, v| {
                    if key == "value" {
                        f(v.$as().unwrap_or_default() as $num)
                    }
                });
            }
        }
    };
}

slider!(
    IntSlider,
    "IntSlider",
    i64,
    "IntSliderModel",
    "d",
    1,
    as_i64
);
slider!(
    FloatSlider,
    "FloatSlider",
    f64,
    "FloatSliderModel",
    ".2f",
    0.1,
    as_f64
);

/// A drop-down list of labels (ipywidgets' `Dropdown`).
#[derive(Clone)]
pub struct Dropdown {
    model: Arc<Model>,
}

widget_common!(Dropdown, "Dropdown");

impl Dropdown {
    /// A list of `options`, the first one chosen.
    pub fn new<S: Into<String>>(options: impl IntoIterator<Item = S>) -> Result<Dropdown> {
        let labels: Vec<String> = options.into_iter().map(Into::into).collect();
        if labels.is_empty() {
            return Err(Error::invalid(
                "widgets::Dropdown",
                "it needs at least one option",
            ));
        }
        let model = Model::open_dom(
            "DropdownModel",
            Some(("DescriptionStyleModel", description_style())),
            state(json!({
                "_options_labels": labels, "index": 0, "description": "",
                "description_allow_html": false, "disabled": false,
                "_dom_classes": [], "tabbable": null, "tooltip": null,
            })),
        );
        Ok(Dropdown { model })
    }

    /// Chooses the option labelled `label`.
    pub fn value(self, label: &str) -> Result<Self> {
        self.set(label)?;
        Ok(self)
    }

    /// The labels.
    pub fn options(&self) -> Vec<String> {
        self.model
            .get("_options_labels")
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The chosen label.
    pub fn get(&self) -> String {
        let i = self.index();
        self.options().get(i).cloned().unwrap_or_default()
    }

    /// The chosen option's position.
    pub fn index(&self) -> usize {
        self.model.get("index").as_u64().unwrap_or(0) as usize
    }

    /// Chooses the option labelled `label`; an error naming the options when there is none.
    pub fn set(&self, label: &str) -> Result<()> {
        let options = self.options();
        let Some(i) = options.iter().position(|o| o == label) else {
            return Err(Error::invalid(
                "widgets::Dropdown",
                format!("{label:?} is not one of the options {options:?}"),
            ));
        };
        self.model.set(one("index", i));
        Ok(())
    }

    /// Runs `f(label)` after each choice the user makes.
    pub fn observe(&self, mut f: impl FnMut(String) + Send + 'static) {
        let me = self.clone();
        self.model.observe_any(move |key, _| {
            if key == "index" {
                f(me.get())
            }
        });
    }
}

/// A checkbox (ipywidgets' `Checkbox`).
#[derive(Clone)]
pub struct Checkbox {
    model: Arc<Model>,
}

widget_common!(Checkbox, "Checkbox");

impl Checkbox {
    /// A checkbox, ticked when `value` is true.
    pub fn new(value: bool) -> Checkbox {
        let model = Model::open_dom(
            "CheckboxModel",
            Some((
                "CheckboxStyleModel",
                state(json!({"description_width": "", "background": null})),
            )),
            state(json!({
                "value": value, "indent": true, "description": "",
                "description_allow_html": false, "disabled": false,
                "_dom_classes": [], "tabbable": null, "tooltip": null,
            })),
        );
        Checkbox { model }
    }

    /// Whether it is ticked.
    pub fn get(&self) -> bool {
        self.model.get("value").as_bool().unwrap_or(false)
    }

    /// Ticks it (true) or clears it.
    pub fn set(&self, value: bool) {
        self.model.set(one("value", value));
    }

    /// Runs `f(ticked)` after each click.
    pub fn observe(&self, mut f: impl FnMut(bool) + Send + 'static) {
        self.model.observe_any(move |key, v| {
            if key == "value" {
                f(v.as_bool().unwrap_or(false))
            }
        });
    }
}

/// A text box (ipywidgets' `Text`).
#[derive(Clone)]
pub struct Text {
    model: Arc<Model>,
}

widget_common!(Text, "Text");

impl Text {
    /// A text box holding `value`.
    pub fn new(value: &str) -> Text {
        let model = Model::open_dom(
            "TextModel",
            Some((
                "TextStyleModel",
                state(json!({"description_width": "", "background": null,
                             "font_size": null, "text_color": null})),
            )),
            state(json!({
                "value": value, "placeholder": "", "continuous_update": true,
                "description": "", "description_allow_html": false, "disabled": false,
                "_dom_classes": [], "tabbable": null, "tooltip": null,
            })),
        );
        Text { model }
    }

    /// Grey text shown while the box is empty.
    pub fn placeholder(self, text: &str) -> Self {
        self.model.set(one("placeholder", text));
        self
    }

    /// The text.
    pub fn get(&self) -> String {
        self.model
            .get("value")
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Replaces the text.
    pub fn set(&self, value: &str) {
        self.model.set(one("value", value));
    }

    /// Runs `f(text)` after each edit.
    pub fn observe(&self, mut f: impl FnMut(String) + Send + 'static) {
        self.model.observe_any(move |key, v| {
            if key == "value" {
                f(v.as_str().unwrap_or_default().to_string())
            }
        });
    }
}

/// A button (ipywidgets' `Button`).
#[derive(Clone)]
pub struct Button {
    model: Arc<Model>,
}

impl Widget for Button {
    fn model(&self) -> &Arc<Model> {
        &self.model
    }
}

impl Button {
    /// A button labelled `label`.
    pub fn new(label: &str) -> Button {
        let model = Model::open_dom(
            "ButtonModel",
            Some((
                "ButtonStyleModel",
                state(
                    json!({"button_color": null, "font_family": null, "font_size": null,
                             "font_style": null, "font_variant": null, "font_weight": null,
                             "text_color": null, "text_decoration": null}),
                ),
            )),
            state(json!({
                "description": label, "button_style": "", "icon": "", "disabled": false,
                "_dom_classes": [], "tabbable": null, "tooltip": null,
            })),
        );
        Button { model }
    }

    /// Greys the button out (true) or enables it.
    pub fn disabled(self, disabled: bool) -> Self {
        self.model.set(one("disabled", disabled));
        self
    }

    /// Runs `f()` after each click.
    pub fn on_click(&self, mut f: impl FnMut() + Send + 'static) {
        self.model.on_message(move |content| {
            if content["event"] == "click" {
                f()
            }
        });
    }
}

impl RichDisplay for Button {
    fn bundle(&self) -> MimeBundle {
        self.model.view_bundle(format!(
            "Button(description={:?})",
            self.model.get("description").as_str().unwrap_or("")
        ))
    }
}
