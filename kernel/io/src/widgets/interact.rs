//! `interact`: controls for a function's arguments and an output area that
//! shows its value (anything with a rich display: an array, a plot, a table,
//! `cp::Text`), redrawn whenever a control moves.
//!
//! ```no_run
//! use cuprite_kernel_io::cp;
//! // One control per argument, chosen by its type (f64: a slider over 0..1).
//! let ui = cp::widgets::interact(|a: f64, n: i64| cp::Text(format!("{}", a * n as f64)))?;
//! // Or with the controls given (the closure's argument types are the controls' values).
//! use cp::widgets::{FloatSlider, IntSlider};
//! let ui = cp::widgets::interact_with(
//!     (FloatSlider::new(0.0, 10.0)?.description("a"), IntSlider::new(1, 5)?.description("n")),
//!     |a: f64, n: i64| cp::Text(format!("{}", a * n as f64)),
//! );
//! # Ok::<(), cuprite::Error>(())
//! ```

use super::{Checkbox, Dropdown, FloatSlider, IntSlider, Output, Text, VBox, Widget};
use cuprite_display::RichDisplay;
use std::sync::{Arc, Mutex};

/// A widget whose value can be an argument of an interactive function.
pub trait Control: Widget + Clone + Send + 'static {
    /// The argument type.
    type Value;
    /// The current value.
    fn current(&self) -> Self::Value;
    /// Runs `f` after each change the user makes.
    fn on_change(&self, f: Box<dyn FnMut() + Send>);
}

macro_rules! control {
    ($t:ty, $v:ty, $get:ident) => {
        impl Control for $t {
            type Value = $v;
            fn current(&self) -> $v {
                self.$get()
            }
            fn on_change(&self, mut f: Box<dyn FnMut() + Send>) {
                self.observe(move |_| f());
            }
        }
    };
}

control!(IntSlider, i64, get);
control!(FloatSlider, f64, get);
control!(Checkbox, bool, get);
control!(Text, String, get);
control!(Dropdown, String, get);

/// An argument type with a default control: `f64` a slider over 0 to 1
/// (at 0.5), `i64` a slider over 0 to 10 (at 5), `bool` a checkbox, `String`
/// a text box.
pub trait DefaultControl: Sized {
    /// The control.
    type Control: Control<Value = Self>;
    /// The control, labelled `label`.
    fn control(label: &str) -> cuprite::Result<Self::Control>;
}

impl DefaultControl for f64 {
    type Control = FloatSlider;
    fn control(label: &str) -> cuprite::Result<FloatSlider> {
        Ok(FloatSlider::new(0.0, 1.0)?
            .step(0.01)?
            .value(0.5)
            .description(label))
    }
}

impl DefaultControl for i64 {
    type Control = IntSlider;
    fn control(label: &str) -> cuprite::Result<IntSlider> {
        Ok(IntSlider::new(0, 10)?.value(5).description(label))
    }
}

impl DefaultControl for bool {
    type Control = Checkbox;
    fn control(label: &str) -> cuprite::Result<Checkbox> {
        Ok(Checkbox::new(false).description(label))
    }
}

impl DefaultControl for String {
    type Control = Text;
    fn control(label: &str) -> cuprite::Result<Text> {
        Ok(Text::new("").description(label))
    }
}

/// A function that [`interact_with`] can drive from the controls `C` (a tuple).
pub trait Interactive<C> {
    /// The controls above an output area showing the function's value.
    fn bind(self, controls: C) -> VBox;
}

/// A function whose argument types all have a [`DefaultControl`]; `Args` is
/// the tuple of those types.
pub trait InteractDefault<Args> {
    /// [`Interactive::bind`] with the default controls, labelled `x0`, `x1`, ...
    fn bind_default(self) -> cuprite::Result<VBox>;
}

macro_rules! arity {
    ($($c:ident $a:ident $i:tt),+) => {
        impl<F, R, $($c: Control),+> Interactive<($($c,)+)> for F
        where
            F: FnMut($($c::Value),+) -> R + Send + 'static,
            R: RichDisplay,
        {
            fn bind(self, controls: ($($c,)+)) -> VBox {
                let output = Output::new();
                let f = Arc::new(Mutex::new(self));
                let redraw = {
                    let controls = controls.clone();
                    let output = output.clone();
                    move || {
                        let mut f = f.lock().unwrap_or_else(|e| e.into_inner());
                        let value = (*f)($(controls.$i.current()),+);
                        output.show(&value);
                    }
                };
                redraw();
                $(
                    let again = redraw.clone();
                    controls.$i.on_change(Box::new(again));
                )+
                VBox::new()$(.child(&controls.$i))+.child(&output)
            }
        }

        impl<F, R, $($a: DefaultControl),+> InteractDefault<($($a,)+)> for F
        where
            F: FnMut($($a),+) -> R + Send + 'static,
            R: RichDisplay,
            $($a::Control: Control<Value = $a>),+
        {
            fn bind_default(self) -> cuprite::Result<VBox> {
                let controls = ($($a::control(concat!("x", stringify!($i)))?,)+);
                Ok(self.bind(controls))
            }
        }
    };
}

arity!(C0 A0 0);
arity!(C0 A0 0, C1 A1 1);
arity!(C0 A0 0, C1 A1 1, C2 A2 2);
arity!(C0 A0 0, C1 A1 1, C2 A2 2, C3 A3 3);

/// Controls for `f`'s arguments, chosen by type ([`DefaultControl`]), above
/// an output area that shows `f`'s value and is redrawn whenever one moves.
pub fn interact<Args, F: InteractDefault<Args>>(f: F) -> cuprite::Result<VBox> {
    f.bind_default()
}

/// As [`interact`], with the controls given as a tuple (one per argument).
pub fn interact_with<C, F: Interactive<C>>(controls: C, f: F) -> VBox {
    f.bind(controls)
}
