//! Rows for `cp::stats`: descriptive statistics, hypothesis tests, ranks,
//! the kernel density estimate and the distributions (built with hostile
//! parameters, then evaluated on the case's array).

use super::check::{run_table, Row};
use super::derive::{count, flat, pick};
use crate::rows;
use cuprite::random::default_rng;
use cuprite::stats::{
    self as st, Alternative, Bandwidth, Binom, Continuous, Discrete, GaussianKde, Geom, Nbinom,
    Norm, Poisson, RankMethod,
};

fn axis(g: &super::strategies::Built) -> Option<isize> {
    g.flag.then_some(g.axis)
}

fn alternative(i: i64) -> Alternative {
    pick(
        i,
        &[
            Alternative::TwoSided,
            Alternative::Less,
            Alternative::Greater,
        ],
    )
}

fn kde(g: &super::strategies::Built) -> cuprite::Result<GaussianKde> {
    let bw = pick(
        g.n,
        &[
            Bandwidth::Scott,
            Bandwidth::Silverman,
            Bandwidth::Factor(g.scalar),
        ],
    );
    GaussianKde::new(&g.a, bw)
}

pub fn stats() -> Vec<Row> {
    rows![
        "skew" => |g| st::skew(&g.a, axis(g), g.n % 2 == 0),
        "kurtosis" => |g| st::kurtosis(&g.a, axis(g), g.flag, g.n % 2 == 0),
        "zscore" => |g| st::zscore(&g.a, axis(g), count(g.n)),
        "sem" => |g| st::sem(&g.a, axis(g), count(g.n)),
        "iqr" => |g| st::iqr(&g.a, axis(g)),
        "entropy" => |g| st::entropy(&g.a, g.flag.then_some(&g.b), (g.n > 0).then_some(g.scalar), g.axis),
        "describe" => |g| st::describe(&g.a, axis(g), count(g.n), g.flag).map(|d| vec![d.minmax.0, d.minmax.1, d.mean, d.variance, d.skewness, d.kurtosis]),
        "mode(stats)" => |g| st::mode(&g.a, axis(g)).map(|m| vec![m.mode, m.count]),
        "ttest_1samp" => |g| st::ttest_1samp(&g.a, g.scalar, g.axis, alternative(g.n)).map(|t| vec![t.statistic, t.pvalue]),
        "ttest_ind" => |g| st::ttest_ind(&g.a, &g.b, g.axis, g.flag, alternative(g.n)).map(|t| vec![t.statistic, t.pvalue]),
        "pearsonr" => |g| st::pearsonr(&flat(&g.a), &flat(&g.b), alternative(g.n)).map(|t| vec![t.statistic, t.pvalue]),
        "spearmanr" => |g| st::spearmanr(&g.a, &g.b, alternative(g.n)).map(|t| vec![t.statistic, t.pvalue]),
        "kendalltau" => |g| st::kendalltau(&flat(&g.a), &flat(&g.b), alternative(g.n)).map(|t| vec![t.statistic, t.pvalue]),
        "linregress" => |g| st::linregress(&flat(&g.a), &flat(&g.b)).map(|r| vec![r.slope, r.intercept, r.rvalue, r.pvalue, r.stderr, r.intercept_stderr]),
        "rankdata" => |g| st::rankdata(&g.a, pick(g.n, &[RankMethod::Average, RankMethod::Min, RankMethod::Max, RankMethod::Dense, RankMethod::Ordinal]), axis(g)),
        "evaluate" => |g| kde(g)?.evaluate(&g.b),
        "pdf" => |g| kde(g)?.pdf(&g.b),
        "factor" => |g| { let k = kde(g)?; Ok(vec![cuprite::asarray(vec![k.factor()])?, k.covariance().clone()]) },
        "covariance" => |g| Ok(kde(g)?.covariance().clone()),
        "standard" => |g| { let n = Norm::standard(); Ok(vec![n.pdf(&g.a)?, n.cdf(&g.a)?, n.ppf(&g.a)?]) },
        "with_loc_scale" => |g| { let t = st::T::new(g.scalar)?.with_loc_scale(g.n as f64, g.scalar)?; Ok(vec![t.logpdf(&g.a)?, t.sf(&g.a)?, t.isf(&g.b)?]) },
        "with_loc_scale(gamma)" => |g| { let d = st::Gamma::new(pick(g.n, &[0.5, 2.0, g.scalar]))?.with_loc_scale(0.0, pick(g.axis as i64, &[1.0, g.scalar]))?; Ok(vec![d.cdf(&g.a)?, d.ppf(&g.b)?]) },
        "with_loc" => |g| { let d = Poisson::new(g.scalar)?.with_loc(g.n as f64)?; Ok(vec![d.pmf(&g.a)?, d.cdf(&g.a)?, d.ppf(&g.b)?]) },
        "with_loc(binom)" => |g| { let d = Binom::new(g.n as f64, g.scalar)?.with_loc(1.0)?; Ok(vec![d.logpmf(&g.a)?, d.sf(&g.a)?]) },
        "with_loc(nbinom)" => |g| { let d = Nbinom::new(g.n as f64, 0.5)?.with_loc(g.scalar)?; Ok(vec![d.cdf(&g.a)?, d.ppf(&g.b)?]) },
        "with_loc(geom)" => |g| { let d = Geom::new(g.scalar)?.with_loc(0.0)?; Ok(vec![d.pmf(&g.a)?, d.logcdf(&g.a)?]) },
        "rvs" => |g| { let mut rng = default_rng(g.n as u64); let d = st::Beta::new(g.scalar, 2.0)?; d.rvs(&mut rng, g.b.shape().to_vec()) },
    ]
}

#[test]
fn stats_functions() {
    run_table("stats", stats());
}
