//! The IMP scale of Law 78B.
//!
//! Every IMP scoring (across the field, against a datum, team matches, four and five
//! pairs) turns a point difference into IMPs through this one table, so that a
//! correction here reaches all of them. A datum need not be a whole number, so the scale
//! also takes real differences: the bounds are inclusive upper limits.

/// Upper bound of the difference for 0, 1, ... 23 IMPs; 4000 or more gives 24.
pub const IMP_BOUNDS: [i32; 24] = [
    10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090, 1290, 1490, 1740,
    1990, 2240, 2490, 2990, 3490, 3990,
];

/// IMPs for a point difference, negative for a negative difference.
///
/// ```
/// use bridgehcp::scoring::imps::imps;
/// assert_eq!(imps(30), 1);
/// assert_eq!(imps(-620), -12);
/// ```
pub fn imps(difference: i32) -> i32 {
    // Whole differences are found among the bounds by halving, in integers: every
    // cross-IMP comparison comes here.
    let magnitude = difference.unsigned_abs();
    let imps = IMP_BOUNDS.partition_point(|&bound| bound.unsigned_abs() < magnitude) as i32;
    if difference < 0 {
        -imps
    } else {
        imps
    }
}

/// IMPs for a real difference (a score against a fractional datum).
pub fn imps_f64(difference: f64) -> i32 {
    let magnitude = difference.abs();
    let imps = IMP_BOUNDS
        .iter()
        .position(|&bound| magnitude <= f64::from(bound))
        .unwrap_or(IMP_BOUNDS.len()) as i32;
    if difference < 0.0 {
        -imps
    } else {
        imps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole differences found by halving in integers give what the real scale gives,
    /// for every difference two table scores can make and at the ends of `i32`.
    #[test]
    fn whole_differences_read_as_the_real_scale_reads_them() {
        for d in (-15_200..=15_200).chain([i32::MIN, i32::MIN + 1, i32::MAX]) {
            assert_eq!(imps(d), imps_f64(f64::from(d)), "{d}");
        }
        assert_eq!((imps(10), imps(11), imps(3990), imps(3991)), (0, 1, 23, 24));
        assert_eq!((imps(-10), imps(-11), imps(i32::MIN)), (0, -1, -24));
    }

    /// Law 78B's table: every band's lowest and highest difference.
    #[test]
    fn law_78b_bands() {
        let bands: [(i32, i32, i32); 25] = [
            (0, 10, 0),
            (20, 40, 1),
            (50, 80, 2),
            (90, 120, 3),
            (130, 160, 4),
            (170, 210, 5),
            (220, 260, 6),
            (270, 310, 7),
            (320, 360, 8),
            (370, 420, 9),
            (430, 490, 10),
            (500, 590, 11),
            (600, 740, 12),
            (750, 890, 13),
            (900, 1090, 14),
            (1100, 1290, 15),
            (1300, 1490, 16),
            (1500, 1740, 17),
            (1750, 1990, 18),
            (2000, 2240, 19),
            (2250, 2490, 20),
            (2500, 2990, 21),
            (3000, 3490, 22),
            (3500, 3990, 23),
            (4000, 7600, 24),
        ];
        for (low, high, expected) in bands {
            assert_eq!(imps(low), expected, "{low}");
            assert_eq!(imps(high), expected, "{high}");
            assert_eq!(imps(-low), -expected, "-{low}");
            assert_eq!(imps(-high), -expected, "-{high}");
        }
    }

    /// The four-and-five-pairs sheets: table 1 at -420 and table 2 at -450 differ by +30, 1 IMP.
    #[test]
    fn seed_003_difference() {
        assert_eq!(imps(-420 - (-450)), 1);
    }

    #[test]
    fn fractional_differences() {
        assert_eq!(imps_f64(10.0), 0);
        assert_eq!(imps_f64(10.5), 1);
        assert_eq!(imps_f64(-3990.1), -24);
    }

    proptest::proptest! {
        #[test]
        fn symmetric_and_monotone(d in -8000i32..8000) {
            proptest::prop_assert_eq!(imps(-d), -imps(d));
            proptest::prop_assert!(imps(d + 10) >= imps(d));
        }
    }
}
