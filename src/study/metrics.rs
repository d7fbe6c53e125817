//! The statistics of a study, as plain functions over slices.
//!
//! They are written out rather than taken from polars so that they can be checked against
//! numbers a person computes by hand (see the tests), and so that a study's figures do not
//! move when a dataframe library changes its defaults (ties in ranks, `n` or `n − 1`).
//! Every function returns `None` where the figure is undefined (fewer than two values, or
//! no spread), never `NaN`.

/// Pearson's correlation of `x` and `y` (pairs in order; the shorter slice sets the length).
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mx, my) = (mean(&x[..n])?, mean(&y[..n])?);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    Some(sxy / (sxx * syy).sqrt())
}

/// The arithmetic mean.
pub fn mean(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    Some(x.iter().sum::<f64>() / x.len() as f64)
}

/// Ranks from 1, ties sharing the mean of the ranks they span (the "fractional" ranking
/// Spearman's ρ needs).
pub fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        // Positions i..=j (0-based) hold ranks i+1..=j+1; their mean is (i + j)/2 + 1.
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation: Pearson's on fractional ranks, so ties are handled.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    pearson(&ranks(&x[..n]), &ranks(&y[..n]))
}

/// Root mean square of `achieved − expected`.
pub fn rmse(expected: &[f64], achieved: &[f64]) -> Option<f64> {
    let n = expected.len().min(achieved.len());
    if n == 0 {
        return None;
    }
    let ss: f64 = expected
        .iter()
        .zip(achieved)
        .map(|(e, a)| (a - e) * (a - e))
        .sum();
    Some((ss / n as f64).sqrt())
}

/// Mean of `achieved − expected`: positive when results beat the predictions on average.
pub fn bias(expected: &[f64], achieved: &[f64]) -> Option<f64> {
    let n = expected.len().min(achieved.len());
    if n == 0 {
        return None;
    }
    Some(
        expected
            .iter()
            .zip(achieved)
            .map(|(e, a)| a - e)
            .sum::<f64>()
            / n as f64,
    )
}

/// The least-squares slope of `achieved` on `expected`. 1 is a calibrated prediction;
/// below 1 the predictions spread the field too far apart, above 1 not far enough.
pub fn slope(expected: &[f64], achieved: &[f64]) -> Option<f64> {
    let n = expected.len().min(achieved.len());
    if n < 2 {
        return None;
    }
    let (me, ma) = (mean(&expected[..n])?, mean(&achieved[..n])?);
    let (mut sea, mut see) = (0.0, 0.0);
    for (e, a) in expected.iter().zip(achieved) {
        sea += (e - me) * (a - ma);
        see += (e - me) * (e - me);
    }
    if see <= 0.0 {
        return None;
    }
    Some(sea / see)
}

/// The `q`-quantile (0 ≤ q ≤ 1) with linear interpolation between order statistics (the
/// default of R, NumPy and polars: position `q·(n − 1)`).
pub fn quantile(x: &[f64], q: f64) -> Option<f64> {
    if x.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut sorted = x.to_vec();
    sorted.sort_by(f64::total_cmp);
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
}

/// How many of the `k` smallest values of `a` are among the `k` smallest of `b` (by the
/// same index). Ties are broken by index, so the count is deterministic.
pub fn top_k_overlap(a: &[f64], b: &[f64], k: usize) -> usize {
    let n = a.len().min(b.len());
    let top = |v: &[f64]| {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| v[i].total_cmp(&v[j]).then(i.cmp(&j)));
        order.truncate(k);
        order.sort_unstable();
        order
    };
    let (ta, tb) = (top(a), top(b));
    ta.iter().filter(|i| tb.binary_search(i).is_ok()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
    const Y: [f64; 5] = [2.0, 4.0, 5.0, 4.0, 5.0];

    fn close(a: Option<f64>, b: f64, tol: f64) {
        match a {
            Some(a) => assert!((a - b).abs() < tol, "{a} vs {b}"),
            None => panic!("undefined, expected {b}"),
        }
    }

    /// By hand: deviations of X are −2,−1,0,1,2 and of Y −2,0,1,0,1; Σdxdy = 6, Σdx² = 10,
    /// Σdy² = 6, so r = 6/√60 = 0.7745967.
    #[test]
    fn pearson_by_hand() {
        close(pearson(&X, &Y), 6.0 / 60f64.sqrt(), 1e-12);
        close(pearson(&X, &Y), 0.7745967, 1e-7);
        assert_eq!(pearson(&[1.0], &[2.0]), None);
        assert_eq!(pearson(&[1.0, 1.0], &[2.0, 3.0]), None);
    }

    /// Y has ties: 4 twice (ranks 2 and 3 → 2.5 each) and 5 twice (4 and 5 → 4.5). Rank
    /// deviations of Y: −2, −0.5, 1.5, −0.5, 1.5; Σ with X's = 7, Σ² = 9, ρ = 7/√90.
    #[test]
    fn spearman_with_ties_by_hand() {
        assert_eq!(ranks(&Y), vec![1.0, 2.5, 4.5, 2.5, 4.5]);
        close(spearman(&X, &Y), 7.0 / 90f64.sqrt(), 1e-12);
        close(spearman(&X, &Y), 0.7378648, 1e-7);
        // A monotone transformation leaves ρ at 1.
        let cubes: Vec<f64> = X.iter().map(|v| v * v * v).collect();
        close(spearman(&X, &cubes), 1.0, 1e-12);
    }

    /// Achieved − expected = 1, 2, 2, 0, 0: mean square 9/5, RMSE √1.8 = 1.3416408, bias
    /// 5/5 = 1, slope of Y on X 6/10 = 0.6.
    #[test]
    fn rmse_bias_and_slope_by_hand() {
        close(rmse(&X, &Y), 1.8f64.sqrt(), 1e-12);
        close(rmse(&X, &Y), 1.3416408, 1e-7);
        close(bias(&X, &Y), 1.0, 1e-12);
        close(slope(&X, &Y), 0.6, 1e-12);
        assert_eq!(slope(&[2.0, 2.0], &[1.0, 3.0]), None);
        assert_eq!(rmse(&[], &[]), None);
    }

    /// Positions q·(n−1) in 1..5: the median is 3, the quartiles 2 and 4, the 0.1 quantile
    /// 1 + 0.4·(2 − 1) = 1.4.
    #[test]
    fn quantiles_interpolate() {
        let shuffled = [4.0, 1.0, 5.0, 3.0, 2.0];
        close(quantile(&shuffled, 0.5), 3.0, 1e-12);
        close(quantile(&shuffled, 0.25), 2.0, 1e-12);
        close(quantile(&shuffled, 0.75), 4.0, 1e-12);
        close(quantile(&shuffled, 0.1), 1.4, 1e-12);
        close(quantile(&shuffled, 1.0), 5.0, 1e-12);
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn top_overlap_counts_shared_leaders() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 1.0, 4.0, 3.0];
        assert_eq!(top_k_overlap(&a, &b, 2), 2);
        let c = [4.0, 3.0, 2.0, 1.0];
        assert_eq!(top_k_overlap(&a, &c, 2), 0);
        assert_eq!(top_k_overlap(&a, &c, 10), 4);
    }
}
