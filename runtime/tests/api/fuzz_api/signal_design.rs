//! Rows for `cp::signal`'s designs and conversions: windows, IIR and FIR
//! designs, order selection, filter forms, frequency responses, and the
//! name parsers. Most take host numbers, drawn from the case (orders from
//! 0 to absurd, edges out of (0, 1), NaN and ±inf ripples).

use super::check::{run_table, Row};
use super::derive::{band, coefficients, complexes, count, floats, pick, sections, size};
use crate::rows;
use cuprite::signal::{
    self as s, windows as w, BandType, BesselNorm, Detrend, Filter, FilterForm, FirwinOptions,
    FreqzOptions, IirOptions, IirType, Pairing, Window, WorN,
};

const NAMES: [&str; 12] = [
    "hann",
    "kaiser",
    "general_gaussian",
    "triang",
    "",
    "boxcar",
    "lowpass",
    "bandstop",
    "sos",
    "zpk",
    "linear",
    "chebwin",
];

fn iir_options(g: &super::strategies::Built) -> IirOptions {
    IirOptions {
        btype: pick(
            g.axis as i64,
            &[
                BandType::Lowpass,
                BandType::Highpass,
                BandType::Bandpass,
                BandType::Bandstop,
            ],
        ),
        analog: g.n == 7,
        output: pick(g.n, &[FilterForm::Ba, FilterForm::Zpk, FilterForm::Sos]),
        fs: (g.n % 4 == 1).then_some(g.scalar),
    }
}

fn iir_type(i: i64) -> IirType {
    pick(
        i,
        &[
            IirType::Butter,
            IirType::Cheby1,
            IirType::Cheby2,
            IirType::Ellip,
            IirType::Bessel(BesselNorm::Delay),
        ],
    )
}

fn freqz_options(g: &super::strategies::Built) -> FreqzOptions {
    FreqzOptions {
        wor_n: if g.flag {
            WorN::Count(size(g.n))
        } else {
            WorN::Freqs(floats(&g.b))
        },
        whole: g.axis > 0,
        fs: pick(g.n, &[2.0 * std::f64::consts::PI, g.scalar]),
        include_nyquist: g.axis % 2 == 0,
    }
}

/// The three forms of the case's designed filter, as text (they are host
/// values, the same on every device).
fn forms(f: &Filter) -> String {
    format!("{:?} {:?} {:?}", f.ba(), f.zpk(), f.sos())
}

/// An order and its band edges, as the order functions return them.
type Order = cuprite::Result<(usize, Vec<f64>)>;
/// An order-selection function (`buttord`, ...).
type OrderFn = fn(&[f64], &[f64], f64, f64, bool, Option<f64>) -> Order;

fn order(g: &super::strategies::Built, f: OrderFn) -> Order {
    let (wp, ws) = if g.flag {
        (vec![0.2, 0.3], vec![0.1, 0.4])
    } else {
        (vec![0.2], band(g))
    };
    f(
        &wp,
        &ws,
        g.scalar.abs().min(3.0),
        pick(g.n, &[40.0, g.scalar, 0.5]),
        g.n == 7,
        (g.axis == 1).then_some(g.scalar),
    )
}

pub fn design() -> Vec<Row> {
    rows![
        "from_name" => |g| Window::from_name(pick(g.n, &NAMES), &floats(&g.a)[..count(g.axis as i64).min(2).min(g.a.size())]).map(|w| format!("{w:?}")),
        "get_window" => |g| s::get_window(pick(g.n, &[Window::Hann, Window::Kaiser(g.scalar), Window::Chebwin(g.scalar), Window::Dpss(g.scalar), Window::Tukey(g.scalar)]), size(g.axis as i64), g.flag),
        "hann" => |g| s::hann(size(g.n), g.flag),
        "hanning" => |g| s::hanning(size(g.n)),
        "boxcar" => |g| w::boxcar(size(g.n), g.flag),
        "bartlett" => |g| w::bartlett(size(g.n), g.flag),
        "hamming" => |g| w::hamming(size(g.n), g.flag),
        "blackman" => |g| w::blackman(size(g.n), g.flag),
        "blackmanharris" => |g| w::blackmanharris(size(g.n), g.flag),
        "kaiser" => |g| w::kaiser(size(g.n), g.scalar, g.flag),
        "tukey" => |g| w::tukey(size(g.n), g.scalar, g.flag),
        "gaussian" => |g| w::gaussian(size(g.n), g.scalar, g.flag),
        "general_gaussian" => |g| w::general_gaussian(size(g.n), g.scalar, 1.0, g.flag),
        "chebwin" => |g| w::chebwin(size(g.n), g.scalar, g.flag),
        "dpss" => |g| w::dpss(size(g.n), g.scalar, g.flag),
        "butter" => |g| s::butter(size(g.n), &band(g), iir_options(g)).map(|f| forms(&f)),
        "cheby1" => |g| s::cheby1(size(g.n), g.scalar, &band(g), iir_options(g)).map(|f| forms(&f)),
        "cheby2" => |g| s::cheby2(size(g.n), g.scalar, &band(g), iir_options(g)).map(|f| forms(&f)),
        "ellip" => |g| s::ellip(size(g.n), 1.0, g.scalar, &band(g), iir_options(g)).map(|f| forms(&f)),
        "bessel" => |g| s::bessel(size(g.n), &band(g), pick(g.axis as i64, &[BesselNorm::Phase, BesselNorm::Delay, BesselNorm::Mag]), iir_options(g)).map(|f| forms(&f)),
        "iirfilter" => |g| s::iirfilter(size(g.n), &band(g), Some(g.scalar), g.flag.then_some(40.0), iir_type(g.axis as i64), iir_options(g)).map(|f| forms(&f)),
        "iirnotch" => |g| s::iirnotch(pick(g.n, &[0.1, g.scalar, 0.0, 60.0]), g.scalar, pick(g.axis as i64, &[2.0, g.scalar, 0.0, 200.0])).map(|ba| format!("{ba:?}")),
        "iirpeak" => |g| s::iirpeak(pick(g.axis as i64, &[0.3, g.scalar, 1.0]), pick(g.n, &[30.0, g.scalar, 0.0]), 2.0).map(|ba| format!("{ba:?}")),
        "buttord" => |g| order(g, s::buttord).map(|o| format!("{o:?}")),
        "cheb1ord" => |g| order(g, s::cheb1ord).map(|o| format!("{o:?}")),
        "cheb2ord" => |g| order(g, s::cheb2ord).map(|o| format!("{o:?}")),
        "ellipord" => |g| order(g, s::ellipord).map(|o| format!("{o:?}")),
        "iirdesign" => |g| { let (wp, ws) = if g.flag { (vec![0.2, 0.3], band(g)) } else { (band(g), vec![0.3]) }; s::iirdesign(&wp, &ws, 1.0, pick(g.n, &[40.0, g.scalar]), iir_type(g.axis as i64), iir_options(g)).map(|f| forms(&f)) },
        "ba" => |g| s::butter(count(g.n).min(6), &band(g), IirOptions { output: FilterForm::Sos, ..iir_options(g) }).and_then(|f| f.ba()).map(|ba| format!("{ba:?}")),
        "zpk" => |g| s::cheby1(count(g.n).min(6), 1.0, &band(g), IirOptions { output: FilterForm::Ba, ..iir_options(g) }).and_then(|f| f.zpk()).map(|z| format!("{z:?}")),
        "sos" => |g| s::cheby2(count(g.n).min(6), 40.0, &band(g), IirOptions { output: FilterForm::Zpk, ..iir_options(g) }).and_then(|f| f.sos()).map(|z| format!("{z:?}")),
        "to_arrays" => |g| { let (b, a) = coefficients(g); s::Ba { b, a }.to_arrays() },
        "to_array" => |g| s::Sos { sections: sections(g) }.to_array(),
        "tf2zpk" => |g| { let (b, a) = coefficients(g); s::tf2zpk(&b, &a).map(|z| format!("{z:?}")) },
        "zpk2tf" => |g| s::zpk2tf(&complexes(&g.a), &complexes(&g.b), g.scalar).map(|z| format!("{z:?}")),
        "tf2sos" => |g| { let (b, a) = coefficients(g); s::tf2sos(&b, &a, g.flag.then_some(Pairing::KeepOdd), g.n == 3).map(|z| format!("{z:?}")) },
        "sos2tf" => |g| s::sos2tf(&sections(g)).map(|z| format!("{z:?}")),
        "sos2zpk" => |g| s::sos2zpk(&sections(g)).map(|z| format!("{z:?}")),
        "zpk2sos" => |g| s::zpk2sos(&complexes(&g.a), &complexes(&g.b), g.scalar, Some(pick(g.n, &[Pairing::Nearest, Pairing::KeepOdd, Pairing::Minimal])), g.flag).map(|z| format!("{z:?}")),
        "freqz" => |g| { let (b, a) = coefficients(g); s::freqz(&b, &a, freqz_options(g)) },
        "sosfreqz" => |g| s::sosfreqz(&sections(g), freqz_options(g)),
        "group_delay" => |g| { let (b, a) = coefficients(g); s::group_delay(&b, &a, freqz_options(g)) },
        "firwin" => |g| s::firwin(size(g.n), &band(g), FirwinOptions { pass_zero: g.flag, fs: pick(g.axis as i64, &[2.0, g.scalar]), window: pick(g.n, &[Window::Hamming, Window::Kaiser(g.scalar), Window::Boxcar]), ..FirwinOptions::default() }),
        "savgol_coeffs" => |g| s::savgol_coeffs(size(g.n), count(g.axis as i64), count(g.n) / 3, g.scalar, g.flag.then_some(g.scalar), g.flag).map(|c| format!("{c:?}")),
        "parse(detrend)" => |g| Detrend::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
        "parse(band)" => |g| BandType::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
        "parse(form)" => |g| FilterForm::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
        "parse(mode)" => |g| s::Mode::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
        "parse(method)" => |g| s::Method::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
        "parse(boundary)" => |g| s::Boundary::parse(pick(g.n, &NAMES)).map(|v| format!("{v:?}")),
    ]
}

#[test]
fn signal_designs() {
    run_table("signal designs", design());
}
