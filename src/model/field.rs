//! Sums and means over a field that do not depend on the order of the entrants.
//!
//! Floating-point addition is not associative, so a plain sum of the same handicaps in
//! another row order can differ in the last bit, and a replay of thousands of competitions
//! would then drift apart between runs. Sorting before summing makes every field mean a
//! function of the field as a set; compensated summation keeps it accurate.

/// The sum of `values`, the same for every order of the same values.
///
/// ```
/// use bridgehcp::model::field::sum;
/// assert_eq!(sum([0.1, 1e16, 0.2, -1e16]), sum([-1e16, 0.2, 1e16, 0.1]));
/// ```
pub fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().collect();
    sum_mut(&mut v)
}

/// [`sum`] of a slice it may reorder, without a copy: the same value, bit for bit.
///
/// ```
/// use bridgehcp::model::field::{sum, sum_mut};
/// let mut v = [0.1, 1e16, 0.2, -1e16];
/// assert_eq!(sum_mut(&mut v), sum([-1e16, 0.2, 1e16, 0.1]));
/// ```
pub fn sum_mut(values: &mut [f64]) -> f64 {
    match values {
        // A pair's two handicaps, summed at every rating: one comparison puts them in
        // the order the sort gives (equal under `total_cmp` means the same bits).
        [a, b] => {
            if a.total_cmp(b).is_gt() {
                std::mem::swap(a, b);
            }
        }
        _ => values.sort_unstable_by(f64::total_cmp),
    }
    compensated(values)
}

/// Neumaier's compensated summation, in the order given.
fn compensated(values: &[f64]) -> f64 {
    let mut total = 0.0_f64;
    let mut compensation = 0.0_f64;
    for &x in values.iter() {
        let t = total + x;
        if total.abs() >= x.abs() {
            compensation += (total - t) + x;
        } else {
            compensation += (x - t) + total;
        }
        total = t;
    }
    total + compensation
}

/// The mean of `values`, `None` when there are none.
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len() as f64;
    Some(sum_mut(&mut v) / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sum_ignores_order(mut v in proptest::collection::vec(-60.0f64..60.0, 0..40), seed in 0u64..1000) {
            let before = sum(v.clone());
            // A deterministic shuffle.
            let n = v.len();
            for i in 0..n {
                let j = ((seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64)) % (n as u64)) as usize;
                v.swap(i, j);
            }
            prop_assert_eq!(before.to_bits(), sum(v).to_bits());
        }
    }

    proptest! {
        /// Two values are put in the order the sort gives, so their sum has its bits:
        /// the compensated sum of the pair sorted by `total_cmp`, in either order.
        #[test]
        fn a_pair_is_summed_as_the_sorted_pair(
            a in prop_oneof![-60.0f64..60.0, Just(0.0), Just(-0.0), Just(1e16), Just(-1e16)],
            b in prop_oneof![-60.0f64..60.0, Just(0.0), Just(-0.0), Just(0.1), Just(-1e16)],
        ) {
            let mut sorted = [a, b];
            sorted.sort_unstable_by(f64::total_cmp);
            let by_sort = compensated(&sorted);
            prop_assert_eq!(sum_mut(&mut [a, b]).to_bits(), by_sort.to_bits());
            prop_assert_eq!(sum_mut(&mut [b, a]).to_bits(), by_sort.to_bits());
        }
    }

    #[test]
    fn mean_of_nothing_is_none() {
        assert_eq!(mean(Vec::new()), None);
        assert_eq!(mean([1.0, 2.0, 6.0]), Some(3.0));
    }
}
