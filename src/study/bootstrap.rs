//! Intervals for a study's figures: a bootstrap over sessions.
//!
//! Two factor sets that differ by 0.01 in r may differ by chance alone: a club's year is a
//! few dozen evenings, and the entrants of one evening share its boards, its field and
//! its movement, so they are not independent. The unit that is independent is the
//! session, so the bootstrap draws whole sessions with replacement and recomputes every
//! figure from the drawn sessions. Every set and baseline is judged on the *same* draws,
//! so the difference between two of them has its own interval (a paired bootstrap): two
//! sets that both swing with a lucky evening cancel it out in their difference.
//!
//! Each session is reduced to its sums (`n`, Σx, Σy, Σx², Σy², Σxy), so a replicate costs
//! one pass over the sessions per track. The generator is SplitMix64 with a fixed seed,
//! written out here so that the intervals stay the same bytes whatever crate versions a
//! build resolves. Intervals are the 2.5 % and 97.5 % percentiles of the replicates.

use super::metrics;

/// Bootstrap replicates per study.
pub const REPLICATES: usize = 2000;
/// The generator's seed: fixed, so a study gives the same intervals every time.
pub const SEED: u64 = 0x5EED_2015_2016_0023;
/// The interval's lower and upper percentiles (a 95 % interval).
pub const LOW: f64 = 0.025;
pub const HIGH: f64 = 0.975;

/// SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of `xoshiro`).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`) by Lemire's multiply-shift, without division.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// The sums of one session's (expected, achieved) pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sums {
    pub n: f64,
    pub x: f64,
    pub y: f64,
    pub xx: f64,
    pub yy: f64,
    pub xy: f64,
}

impl Sums {
    pub fn of(pairs: impl IntoIterator<Item = (f64, f64)>) -> Sums {
        let mut s = Sums::default();
        for (x, y) in pairs {
            s.add(x, y);
        }
        s
    }

    pub fn add(&mut self, x: f64, y: f64) {
        self.n += 1.0;
        self.x += x;
        self.y += y;
        self.xx += x * x;
        self.yy += y * y;
        self.xy += x * y;
    }

    /// `self + k·other`: a session drawn `k` times.
    pub fn add_times(&mut self, other: &Sums, k: f64) {
        self.n += k * other.n;
        self.x += k * other.x;
        self.y += k * other.y;
        self.xx += k * other.xx;
        self.yy += k * other.yy;
        self.xy += k * other.xy;
    }

    fn as_array(&self) -> [f64; 6] {
        [self.n, self.x, self.y, self.xx, self.yy, self.xy]
    }

    fn from_array([n, x, y, xx, yy, xy]: [f64; 6]) -> Sums {
        Sums {
            n,
            x,
            y,
            xx,
            yy,
            xy,
        }
    }

    fn is_finite(&self) -> bool {
        self.as_array().iter().all(|v| v.is_finite())
    }

    fn centred(&self) -> Option<(f64, f64, f64)> {
        if self.n < 2.0 {
            return None;
        }
        let sxx = self.xx - self.x * self.x / self.n;
        let syy = self.yy - self.y * self.y / self.n;
        let sxy = self.xy - self.x * self.y / self.n;
        Some((sxx, syy, sxy))
    }

    /// Pearson's r (as [`metrics::pearson`], from the sums).
    pub fn pearson(&self) -> Option<f64> {
        let (sxx, syy, sxy) = self.centred()?;
        (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
    }

    /// RMSE of achieved − expected (as [`metrics::rmse`]).
    pub fn rmse(&self) -> Option<f64> {
        (self.n > 0.0).then(|| {
            ((self.yy - 2.0 * self.xy + self.xx) / self.n)
                .max(0.0)
                .sqrt()
        })
    }

    /// Slope of achieved on expected (as [`metrics::slope`]).
    pub fn slope(&self) -> Option<f64> {
        let (sxx, _, sxy) = self.centred()?;
        (sxx > 0.0).then(|| sxy / sxx)
    }

    /// Mean of achieved − expected (as [`metrics::bias`]).
    pub fn bias(&self) -> Option<f64> {
        (self.n > 0.0).then(|| (self.y - self.x) / self.n)
    }

    /// The least-squares line `achieved ≈ a + b·expected`: `(a, b)`.
    pub fn line(&self) -> Option<(f64, f64)> {
        let b = self.slope()?;
        Some(((self.y - b * self.x) / self.n, b))
    }
}

/// A figure computed from a track's pooled sums.
pub type Figure = fn(&Sums) -> Option<f64>;

/// The figures with intervals, by the name of their `study.parquet` metric. Two
/// entries per track: the predictions as made, and recalibrated by the line fitted on
/// the burn-in (`rmse_calibrated`).
pub const FIGURES: [(&str, Figure, bool); 5] = [
    ("pearson_r", Sums::pearson, false),
    ("rmse", Sums::rmse, false),
    ("calibration_slope", Sums::slope, false),
    ("mean_bias", Sums::bias, false),
    ("rmse_calibrated", Sums::rmse, true),
];

/// One track's sessions: per session, the sums as predicted and as recalibrated.
#[derive(Debug, Clone, Default)]
pub struct TrackSessions {
    pub raw: Vec<Sums>,
    pub calibrated: Vec<Sums>,
}

impl TrackSessions {
    /// The sums of the drawn sessions, each as often as it was drawn.
    pub fn pooled(&self, counts: &[u32], calibrated: bool) -> Sums {
        let sessions = if calibrated {
            &self.calibrated
        } else {
            &self.raw
        };
        let mut total = Sums::default();
        for (s, &k) in sessions.iter().zip(counts) {
            if k > 0 {
                total.add_times(s, f64::from(k));
            }
        }
        total
    }
}

/// How many times each of `sessions` sessions is drawn in replicate `replicate`. Each
/// replicate has its own generator, seeded from `seed` and its number, so replicates can
/// be drawn in any order, on any thread, with the same result.
pub fn counts(sessions: usize, replicate: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64::new(seed ^ SplitMix64::new(replicate as u64).next_u64());
    let mut counts = vec![0u32; sessions];
    if sessions > 0 {
        for _ in 0..sessions {
            counts[rng.below(sessions)] += 1;
        }
    }
    counts
}

/// The figures of [`FIGURES`] of one track on one replicate's draws.
pub type Figures = [Option<f64>; FIGURES.len()];

/// Per replicate, per track: the figures of [`FIGURES`] on the replicate's draws. Every
/// track is judged on the same draws, so the difference of two tracks' figures in one
/// replicate is a draw of their paired difference.
pub fn replicates(
    tracks: &[TrackSessions],
    sessions: usize,
    replicates: usize,
    seed: u64,
) -> Vec<Vec<Figures>> {
    use rayon::prelude::*;
    let starts: Vec<usize> = (0..replicates).step_by(BLOCK).collect();
    starts
        .into_par_iter()
        .flat_map_iter(|start| {
            let block = start..(start + BLOCK).min(replicates);
            block_figures(tracks, sessions, block, seed)
        })
        .collect()
}

/// Replicates drawn together: the sessions' sums of every track are read once for the
/// block rather than once per replicate (with many sessions they do not fit in a cache,
/// and reading them was most of a bootstrap's time).
const BLOCK: usize = 16;

/// The figures of replicates `block`. Each replicate's totals add its drawn sessions in
/// session order, as [`TrackSessions::pooled`] does, so they are the same to the bit.
///
/// The totals are held a sum at a time across the block's replicates (`n` of all
/// sixteen, then `x` of all sixteen, ...), and a session not drawn by a replicate adds
/// `0 × its sum`, so that the loop over the replicates has no branch and runs as vector
/// arithmetic: about three times faster than adding each replicate's drawn sessions
/// alone. Adding a zero leaves a finite total as it was, to the bit (a total never
/// becomes −0: it starts at +0, and x + (−x) rounds to +0), so a block whose sessions'
/// sums are not all finite is pooled replicate by replicate instead.
fn block_figures(
    tracks: &[TrackSessions],
    sessions: usize,
    block: std::ops::Range<usize>,
    seed: u64,
) -> Vec<Vec<Figures>> {
    let finite = tracks
        .iter()
        .flat_map(|t| t.raw.iter().chain(&t.calibrated))
        .all(Sums::is_finite);
    let totals = if finite {
        block_totals(tracks, sessions, block.clone(), seed)
    } else {
        block
            .clone()
            .map(|replicate| {
                let draws = counts(sessions, replicate, seed);
                tracks
                    .iter()
                    .map(|t| [t.pooled(&draws, false), t.pooled(&draws, true)])
                    .collect()
            })
            .collect()
    };
    totals
        .iter()
        .map(|per_track| {
            per_track
                .iter()
                .map(|[raw, calibrated]| {
                    FIGURES.map(|(_, figure, on_calibrated)| {
                        figure(if on_calibrated { calibrated } else { raw })
                    })
                })
                .collect()
        })
        .collect()
}

/// Adds one session's sums, `drawn[r]` times, to each replicate `r`'s totals. Kept out
/// of line: inlined into its caller's loops, it was compiled a replicate at a time
/// rather than as vector arithmetic.
#[inline(never)]
fn add_drawn(totals: &mut [[f64; BLOCK]; 6], drawn: &[f64; BLOCK], sums: [f64; 6]) {
    for (total, v) in totals.iter_mut().zip(sums) {
        for r in 0..BLOCK {
            total[r] += drawn[r] * v;
        }
    }
}

/// Per replicate of `block`, per track: the pooled sums as drawn and as recalibrated,
/// with the replicates of the block added side by side (see [`block_figures`]).
fn block_totals(
    tracks: &[TrackSessions],
    sessions: usize,
    block: std::ops::Range<usize>,
    seed: u64,
) -> Vec<Vec<[Sums; 2]>> {
    // drawn[session][r]: how often replicate `block.start + r` drew `session`.
    let mut drawn = vec![[0.0f64; BLOCK]; sessions];
    for (r, replicate) in block.clone().enumerate() {
        for (session, k) in counts(sessions, replicate, seed).into_iter().enumerate() {
            drawn[session][r] = f64::from(k);
        }
    }
    // totals[track * 2 + calibrated][sum][r]
    let mut totals = vec![[[0.0f64; BLOCK]; 6]; tracks.len() * 2];
    for (session, k) in drawn.iter().enumerate() {
        for (t, track) in tracks.iter().enumerate() {
            for (kind, sums) in [&track.raw, &track.calibrated].into_iter().enumerate() {
                let Some(s) = sums.get(session) else {
                    continue;
                };
                add_drawn(&mut totals[t * 2 + kind], k, s.as_array());
            }
        }
    }
    (0..block.len())
        .map(|r| {
            (0..tracks.len())
                .map(|t| [0, 1].map(|kind| Sums::from_array(totals[t * 2 + kind].map(|v| v[r]))))
                .collect()
        })
        .collect()
}

/// The replicates' values of one track's figure (undefined ones left out).
pub fn values(replicates: &[Vec<Figures>], track: usize, figure: usize) -> Vec<f64> {
    replicates.iter().filter_map(|r| r[track][figure]).collect()
}

/// The replicates of `a − b` for one figure, on the same draws: paired. A replicate in
/// which either is undefined is left out.
pub fn paired_differences(
    replicates: &[Vec<Figures>],
    a: usize,
    b: usize,
    figure: usize,
) -> Vec<f64> {
    replicates
        .iter()
        .filter_map(|r| Some(r[a][figure]? - r[b][figure]?))
        .collect()
}

/// The 95 % percentile interval of `values` (`None` below 2 values).
pub fn interval(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    Some((
        metrics::quantile(values, LOW)?,
        metrics::quantile(values, HIGH)?,
    ))
}

/// Shares of `(estimate, truth, sd)` whose estimate lies within one and within two sd
/// of the truth: the coverage of a confidence figure. `None` without any.
pub fn coverage(items: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    if items.is_empty() {
        return None;
    }
    let n = items.len() as f64;
    let within = |k: f64| {
        items
            .iter()
            .filter(|(e, t, sd)| (e - t).abs() <= k * sd)
            .count() as f64
            / n
    };
    Some((within(1.0), within(2.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64, tol: f64) {
        match a {
            Some(a) => assert!((a - b).abs() < tol, "{a} vs {b}"),
            None => panic!("undefined, expected {b}"),
        }
    }

    const X: [f64; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
    const Y: [f64; 5] = [2.0, 4.0, 5.0, 4.0, 5.0];

    /// The sums give the figures of `metrics` on the same pairs (worked there by hand:
    /// r = 6/√60, RMSE √1.8, slope 0.6, bias 1).
    #[test]
    fn sums_give_the_hand_computed_figures() {
        let s = Sums::of(X.iter().copied().zip(Y.iter().copied()));
        close(s.pearson(), 6.0 / 60f64.sqrt(), 1e-12);
        close(s.rmse(), 1.8f64.sqrt(), 1e-12);
        close(s.slope(), 0.6, 1e-12);
        close(s.bias(), 1.0, 1e-12);
        // Line: b = 0.6, a = ȳ − b·x̄ = 4 − 0.6·3 = 2.2.
        let (a, b) = s.line().unwrap_or((f64::NAN, f64::NAN));
        assert!((a - 2.2).abs() < 1e-12 && (b - 0.6).abs() < 1e-12);
        assert_eq!(Sums::of([(1.0, 2.0)]).pearson(), None);
    }

    /// Drawing a session twice is the same as listing its pairs twice. Sessions
    /// A = {(1,2),(2,4)}, B = {(3,5)}, C = {(4,4),(5,5)}; counts (2, 0, 1) pool
    /// x = 1,2,1,2,4,5 and y = 2,4,2,4,4,5. By hand: x̄ = 15/6 = 2.5, ȳ = 21/6 = 3.5;
    /// deviations of x −1.5,−0.5,−1.5,−0.5,1.5,2.5 and of y −1.5,0.5,−1.5,0.5,0.5,1.5;
    /// Σdxdy = 2.25 − 0.25 + 2.25 − 0.25 + 0.75 + 3.75 = 8.5, Σdx² = 2.25·3 + 0.25·2 + 6.25
    /// = 13.5, Σdy² = 2.25·2 + 0.25·3 + 2.25 = 7.5: r = 8.5/√101.25 = 0.844737, slope
    /// 8.5/13.5 = 0.629630; squared errors 1,4,1,4,0,0: RMSE √(10/6) = 1.290994.
    #[test]
    fn pooled_draws_by_hand() {
        let t = TrackSessions {
            raw: vec![
                Sums::of([(1.0, 2.0), (2.0, 4.0)]),
                Sums::of([(3.0, 5.0)]),
                Sums::of([(4.0, 4.0), (5.0, 5.0)]),
            ],
            calibrated: Vec::new(),
        };
        let p = t.pooled(&[2, 0, 1], false);
        close(p.pearson(), 8.5 / 101.25f64.sqrt(), 1e-12);
        close(p.pearson(), 0.844737, 1e-6);
        close(p.slope(), 0.629630, 1e-6);
        close(p.rmse(), 1.290994, 1e-6);
        close(p.bias(), 1.0, 1e-12);
    }

    /// Two one-entrant sessions with biases 1 and 3: a replicate draws {1,1}, {1,3} or
    /// {3,3} with probabilities ¼, ½, ¼, so its bias is 1, 2 or 3 and the 95 % interval
    /// runs from 1 to 3; the difference with a track that always has bias 0 in both
    /// sessions is the same interval, the paired difference with itself is exactly 0.
    #[test]
    fn bootstrap_of_two_sessions_by_hand() {
        let a = TrackSessions {
            raw: vec![Sums::of([(0.0, 1.0)]), Sums::of([(0.0, 3.0)])],
            calibrated: vec![Sums::default(); 2],
        };
        let zero = TrackSessions {
            raw: vec![Sums::of([(0.0, 0.0)]), Sums::of([(5.0, 5.0)])],
            calibrated: vec![Sums::default(); 2],
        };
        let reps = replicates(&[a, zero], 2, REPLICATES, SEED);
        assert_eq!(reps.len(), REPLICATES);
        assert!((0..REPLICATES).all(|r| counts(2, r, SEED).iter().sum::<u32>() == 2));
        let bias = values(&reps, 0, 3);
        assert_eq!(bias.len(), REPLICATES);
        assert!(bias.iter().all(|b| [1.0, 2.0, 3.0].contains(b)));
        let middle = bias.iter().filter(|b| **b == 2.0).count() as f64 / REPLICATES as f64;
        assert!((middle - 0.5).abs() < 0.04, "{middle}");
        assert_eq!(interval(&bias), Some((1.0, 3.0)));
        assert_eq!(
            interval(&paired_differences(&reps, 0, 1, 3)),
            Some((1.0, 3.0))
        );
        assert!(paired_differences(&reps, 0, 0, 3).iter().all(|v| *v == 0.0));
        // One entrant per session has no r: left out, never NaN.
        assert!(values(&reps, 0, 0).is_empty());
        // Same seed, same draws, whatever the order they are drawn in.
        assert_eq!(counts(7, 5, SEED), counts(7, 5, SEED));
        assert_ne!(counts(7, 5, SEED), counts(7, 6, SEED));
    }

    /// The sums of three sessions (the pairs of `X` and `Y` split 2, 2, 1), pooled,
    /// give the figures the full-vector functions of [`crate::study::metrics`] give on
    /// all five pairs: r = 6/√60, RMSE = √1.8, slope 0.6, bias 1.
    #[test]
    fn pooled_session_sums_give_the_full_vector_figures() {
        use crate::study::metrics;
        let pairs: Vec<(f64, f64)> = X.iter().copied().zip(Y.iter().copied()).collect();
        let track = TrackSessions {
            raw: [&pairs[..2], &pairs[2..4], &pairs[4..]]
                .iter()
                .map(|p| Sums::of(p.iter().copied()))
                .collect(),
            calibrated: vec![Sums::default(); 3],
        };
        let pooled = track.pooled(&[1, 1, 1], false);
        let full = [
            (
                pooled.pearson(),
                metrics::pearson(&X, &Y),
                6.0 / 60f64.sqrt(),
            ),
            (pooled.rmse(), metrics::rmse(&X, &Y), 1.8f64.sqrt()),
            (pooled.slope(), metrics::slope(&X, &Y), 0.6),
            (pooled.bias(), metrics::bias(&X, &Y), 1.0),
        ];
        for (from_sums, from_vectors, by_hand) in full {
            close(from_sums, by_hand, 1e-12);
            close(from_vectors, by_hand, 1e-12);
        }
    }

    /// Replicates drawn a block at a time give, to the bit, each replicate's figures
    /// pooled on its own draws: 37 sessions of three tracks, 50 replicates (three full
    /// blocks and two over).
    /// Every replicate's figures, each replicate pooled alone by [`TrackSessions::pooled`].
    fn pooled_alone(tracks: &[TrackSessions], sessions: usize, reps: usize) -> Vec<Vec<Figures>> {
        (0..reps)
            .map(|r| {
                let draws = counts(sessions, r, SEED);
                tracks
                    .iter()
                    .map(|t| {
                        let (raw, calibrated) = (t.pooled(&draws, false), t.pooled(&draws, true));
                        FIGURES.map(|(_, figure, on_calibrated)| {
                            figure(if on_calibrated { &calibrated } else { &raw })
                        })
                    })
                    .collect()
            })
            .collect()
    }

    fn bits(reps: &[Vec<Figures>]) -> Vec<Vec<[Option<u64>; FIGURES.len()]>> {
        reps.iter()
            .map(|r| r.iter().map(|f| f.map(|v| v.map(f64::to_bits))).collect())
            .collect()
    }

    /// The replicates drawn a block at a time are those pooled one by one, to the bit
    /// (37 sessions, 50 replicates: three blocks and two over).
    #[test]
    fn blocks_of_replicates_give_each_replicate_pooled_alone() {
        let track = |shift: f64| TrackSessions {
            raw: (0..37)
                .map(|i| {
                    let i = f64::from(i);
                    Sums::of([(i * 0.37 + shift, i.sin()), (shift - i, (i * shift).cos())])
                })
                .collect(),
            calibrated: (0..37)
                .map(|i| Sums::of([(f64::from(i) / 7.0, shift * 1.1)]))
                .collect(),
        };
        let tracks = [track(0.5), track(-2.25), track(3.0)];
        let reps = replicates(&tracks, 37, 50, SEED);
        assert_eq!(reps.len(), 50);
        assert_eq!(bits(&reps), bits(&pooled_alone(&tracks, 37, 50)));
    }

    /// A session whose sums are not finite is not added by the replicates that did not
    /// draw it: those replicates' figures stay defined, as when pooled alone.
    #[test]
    fn a_session_not_finite_counts_only_where_drawn() {
        let mut raw: Vec<Sums> = (0..5)
            .map(|i| Sums::of([(f64::from(i), f64::from(i * i)), (1.0, -2.0)]))
            .collect();
        raw[3].xy = f64::INFINITY;
        let tracks = [TrackSessions {
            calibrated: raw.clone(),
            raw,
        }];
        let reps = replicates(&tracks, 5, 40, SEED);
        assert_eq!(bits(&reps), bits(&pooled_alone(&tracks, 5, 40)));
        let undrawn = (0..40).find(|&r| counts(5, r, SEED)[3] == 0);
        let r = undrawn.unwrap_or_else(|| panic!("some replicate leaves session 3 out"));
        assert!(reps[r][0][0].is_some_and(f64::is_finite));
    }

    proptest::proptest! {
        /// The replicates are the same bits on one thread and on three, whatever the
        /// sessions' sums.
        #[test]
        fn replicates_do_not_depend_on_the_thread_count(
            pairs in proptest::collection::vec((-30.0f64..30.0, -30.0f64..30.0), 2..60),
            tracks in 1usize..4,
        ) {
            let sessions = pairs.len() / 2;
            let all: Vec<TrackSessions> = (0..tracks)
                .map(|t| TrackSessions {
                    raw: pairs
                        .chunks(2)
                        .take(sessions)
                        .map(|c| Sums::of(c.iter().map(|(x, y)| (x + t as f64, *y))))
                        .collect(),
                    calibrated: vec![Sums::default(); sessions],
                })
                .collect();
            let on = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap_or_else(|e| panic!("{e}"));
                let reps = pool.install(|| replicates(&all, sessions, 40, SEED));
                reps.iter()
                    .flatten()
                    .map(|f| f.map(|v| v.map(f64::to_bits)))
                    .collect::<Vec<_>>()
            };
            proptest::prop_assert_eq!(on(1), on(3));
            let reps = replicates(&all, sessions, 40, SEED);
            proptest::prop_assert_eq!(bits(&reps), bits(&pooled_alone(&all, sessions, 40)));
        }
    }

    /// The interval is the 2.5 % and 97.5 % quantiles: of 0..=100 (101 values) they sit
    /// at positions 2.5 and 97.5, i.e. 2.5 and 97.5.
    #[test]
    fn interval_is_the_percentiles() {
        let v: Vec<f64> = (0..=100).rev().map(f64::from).collect();
        assert_eq!(interval(&v), Some((2.5, 97.5)));
        assert_eq!(interval(&[1.0]), None);
    }

    /// Errors/sd of 0.5, 1.5, 2.5 and 1.0 (exactly one sd counts as within): two of
    /// four within one sd, three of four within two.
    #[test]
    fn coverage_by_hand() {
        let items = [
            (10.0, 11.0, 2.0),
            (10.0, 7.0, 2.0),
            (0.0, 5.0, 2.0),
            (3.0, 4.0, 1.0),
        ];
        assert_eq!(coverage(&items), Some((0.5, 0.75)));
        assert_eq!(coverage(&[]), None);
    }

    #[test]
    fn draws_are_uniform_enough() {
        let mut rng = SplitMix64::new(1);
        let mut counts = [0usize; 4];
        for _ in 0..40_000 {
            counts[rng.below(4)] += 1;
        }
        assert!(counts.iter().all(|&c| (c as f64 - 10_000.0).abs() < 400.0));
    }
}
