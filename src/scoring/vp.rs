//! Victory points: an IMP margin converted to a share of 20.
//!
//! Scales published as tables (the ABF Swiss pairs scales of the Swiss pairs regulations) are data, kept in
//! `data/vp/` and embedded, so that a new scale is a new file rather than new code. The
//! WBF continuous scale is built for any match length with the procedure the WBF
//! publishes, so its tables never need to be copied. Values are kept in hundredths of a
//! VP, which makes the published two-decimal figures exact.

use std::sync::OnceLock;

use crate::error::{InputError, Location};

/// A VP scale: the winner's VPs for each whole IMP margin, in hundredths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VpScale {
    /// Winner's hundredths of a VP for margin 0, 1, 2, ...; the last entry also covers
    /// every larger margin.
    winner: Vec<u32>,
    /// Margins the source did not print, filled in by linear interpolation.
    interpolated: Vec<usize>,
}

/// Full VPs of a match, in hundredths.
const TOTAL: u32 = 2000;

impl VpScale {
    /// The two sides' VPs for an IMP margin (negative when the first side lost).
    ///
    /// ```
    /// use bridgehcp::scoring::vp::abf_swiss_pairs;
    /// let scale = abf_swiss_pairs(8).unwrap().unwrap();
    /// assert_eq!(scale.vp(-12), (5.42, 14.58));
    /// ```
    pub fn vp(&self, margin: i32) -> (f64, f64) {
        let index = (margin.unsigned_abs() as usize).min(self.winner.len().saturating_sub(1));
        let win = self.winner.get(index).copied().unwrap_or(TOTAL / 2);
        let (a, b) = if margin < 0 {
            (TOTAL - win, win)
        } else {
            (win, TOTAL - win)
        };
        (f64::from(a) / 100.0, f64::from(b) / 100.0)
    }

    /// The smallest margin that earns the full 20 VPs.
    pub fn blitz(&self) -> usize {
        self.winner.len().saturating_sub(1)
    }

    /// Margins that the source table did not print (see [`VpScale::parse`]).
    pub fn interpolated_margins(&self) -> &[usize] {
        &self.interpolated
    }

    /// Parses a scale file: `#` comments, a header `imp_margin,winner_vp,loser_vp`, then
    /// rows from margin 0 upwards with the two VPs adding to 20 and the winner's VPs never
    /// falling. A margin the source skipped (the Swiss pairs regulations' 9-board table prints no row for
    /// 16 and 17) gets the linear interpolation of its neighbours, rounded half up to
    /// hundredths, and is listed by [`VpScale::interpolated_margins`].
    pub fn parse(file: &str, text: &str) -> Result<VpScale, InputError> {
        let mut winner: Vec<u32> = Vec::new();
        let mut interpolated = Vec::new();
        let mut header_seen = false;
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            let here = |column: &str| Location::file(file).row(line_no).column(column);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                if line != "imp_margin,winner_vp,loser_vp" {
                    return Err(InputError::new(
                        Location::file(file).row(line_no),
                        "expected the header `imp_margin,winner_vp,loser_vp`",
                    ));
                }
                header_seen = true;
                continue;
            }
            let (margin, win) = scale_row(file, line_no, line, winner.len())?;
            if winner.last().is_some_and(|&previous| previous > win) {
                return Err(InputError::new(
                    here("winner_vp"),
                    "the winner's VPs must not fall as the margin grows",
                ));
            }
            if let Some(&previous) = winner.last() {
                let from = winner.len() - 1;
                let span = (margin - from) as u32;
                for gap in 1..span {
                    // previous + (win − previous)·gap/span, half up, in integers.
                    let value = previous + (2 * (win - previous) * gap + span) / (2 * span);
                    winner.push(value);
                    interpolated.push(from + gap as usize);
                }
            }
            winner.push(win);
        }
        if winner.is_empty() {
            return Err(InputError::new(
                Location::file(file),
                "the scale has no rows",
            ));
        }
        Ok(VpScale {
            winner,
            interpolated,
        })
    }
}

/// A row of a scale file: its margin and the winner's VPs in hundredths. `next` is the
/// least margin the row may have (the margin after the last row read).
fn scale_row(
    file: &str,
    line_no: usize,
    line: &str,
    next: usize,
) -> Result<(usize, u32), InputError> {
    let here = |column: &str| Location::file(file).row(line_no).column(column);
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [margin, win, lose] = fields[..] else {
        return Err(InputError::new(
            Location::file(file).row(line_no),
            format!("expected 3 fields, found {}", fields.len()),
        ));
    };
    let margin: usize = margin
        .parse()
        .map_err(|_| InputError::new(here("imp_margin"), format!("`{margin}` is not a margin")))?;
    if margin < next || (next == 0 && margin != 0) {
        return Err(InputError::new(
            here("imp_margin"),
            format!(
                "margins must start at 0 and increase: expected {} or more",
                next
            ),
        ));
    }
    let win = hundredths(win)
        .ok_or_else(|| InputError::new(here("winner_vp"), format!("`{win}` is not a VP figure")))?;
    let lose = hundredths(lose)
        .ok_or_else(|| InputError::new(here("loser_vp"), format!("`{lose}` is not a VP figure")))?;
    if win + lose != TOTAL || win < lose {
        return Err(InputError::new(
            here("winner_vp"),
            "winner's and loser's VPs must add to 20 with the winner's not below 10",
        ));
    }
    Ok((margin, win))
}

/// `12.34` → 1234; at most two decimals, 0-20.
fn hundredths(text: &str) -> Option<u32> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 2 || whole.is_empty() || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = whole.parse().ok()?;
    let frac: u32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<2}").parse().ok()?
    };
    let value = whole.checked_mul(100)?.checked_add(frac)?;
    (value <= TOTAL).then_some(value)
}

const ABF_8: &str = include_str!("../../data/vp/abf_swiss_pairs_8_boards.csv");
const ABF_9: &str = include_str!("../../data/vp/abf_swiss_pairs_9_boards.csv");

/// The ABF Swiss pairs scale for 8- or 9-board matches (the Swiss pairs regulations); `Ok(None)` for other
/// match lengths. Parsed once.
pub fn abf_swiss_pairs(boards: u32) -> Result<Option<&'static VpScale>, InputError> {
    static EIGHT: OnceLock<Result<VpScale, InputError>> = OnceLock::new();
    static NINE: OnceLock<Result<VpScale, InputError>> = OnceLock::new();
    let cell = match boards {
        8 => EIGHT.get_or_init(|| VpScale::parse("data/vp/abf_swiss_pairs_8_boards.csv", ABF_8)),
        9 => NINE.get_or_init(|| VpScale::parse("data/vp/abf_swiss_pairs_9_boards.csv", ABF_9)),
        _ => return Ok(None),
    };
    cell.as_ref().map(Some).map_err(Clone::clone)
}

/// The WBF continuous formula before any rounding:
/// `10 + 10·(1 − τ^(3M/B)) / (1 − τ³)`, τ = (√5 − 1)/2, B = 15·√N, capped at 20.
pub fn wbf_continuous(margin: u32, boards: u32) -> f64 {
    let tau = (5f64.sqrt() - 1.0) / 2.0;
    let blitz = 15.0 * f64::from(boards).sqrt();
    let vp = 10.0 + 10.0 * (1.0 - tau.powf(3.0 * f64::from(margin) / blitz)) / (1.0 - tau.powi(3));
    vp.min(20.0)
}

/// The WBF scale for matches of `boards` boards, built as the WBF builds its tables:
/// each margin's value rounded half up to two decimals, then, while some step
/// `VP(M+1) − VP(M)` is larger than the step before it, 0.01 added to `VP(M)`.
pub fn wbf_scale(boards: u32) -> VpScale {
    let boards = boards.max(1);
    let mut winner: Vec<u32> = Vec::new();
    for margin in 0u32.. {
        // Half up; the tiny offset guards against 0.005 landing just below in binary.
        let value = (wbf_continuous(margin, boards) * 100.0 + 0.5 + 1e-9).floor() as u32;
        winner.push(value.min(TOTAL));
        if value >= TOTAL {
            break;
        }
    }
    loop {
        let mut changed = false;
        for m in 1..winner.len().saturating_sub(1) {
            let step_before = winner[m] - winner[m - 1];
            let step_after = winner[m + 1] - winner[m];
            if step_after > step_before {
                winner[m] += 1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    VpScale {
        winner,
        interpolated: Vec::new(),
    }
}

/// Match lengths whose WBF scale [`wbf_scale_shared`] keeps once built.
const SHARED_WBF_BOARDS: usize = 64;

/// The WBF scale for `boards` boards, built once per match length up to 64 boards and
/// shared from then on: a federation plays tens of thousands of team matches, nearly
/// all of a few lengths, and each build takes dozens of powers and a smoothing pass.
pub fn wbf_scale_shared(boards: u32) -> std::borrow::Cow<'static, VpScale> {
    static SCALES: [OnceLock<VpScale>; SHARED_WBF_BOARDS + 1] =
        [const { OnceLock::new() }; SHARED_WBF_BOARDS + 1];
    match SCALES.get(boards as usize) {
        Some(cell) => std::borrow::Cow::Borrowed(cell.get_or_init(|| wbf_scale(boards))),
        None => std::borrow::Cow::Owned(wbf_scale(boards)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abf(boards: u32) -> &'static VpScale {
        match abf_swiss_pairs(boards) {
            Ok(Some(scale)) => scale,
            other => panic!("embedded scale for {boards} boards: {other:?}"),
        }
    }

    /// The Swiss pairs regulations, Table 1 (8-board matches), every printed row.
    #[test]
    fn seed_002_table_1() {
        let winner = [
            10.00, 10.39, 10.78, 11.17, 11.56, 11.95, 12.34, 12.73, 13.12, 13.51, 13.90, 14.29,
            14.58, 14.87, 15.16, 15.45, 15.74, 16.03, 16.32, 16.61, 16.90, 17.19, 17.48, 17.76,
            18.04, 18.32, 18.60, 18.88, 19.16, 19.44, 19.72, 20.00,
        ];
        let scale = abf(8);
        for (margin, want) in winner.iter().enumerate() {
            let (w, l) = scale.vp(margin as i32);
            assert!(
                (w - want).abs() < 1e-9 && (l - (20.0 - want)).abs() < 1e-9,
                "{margin}"
            );
        }
        assert_eq!(scale.blitz(), 31);
        assert_eq!(scale.vp(45), (20.0, 0.0));
        assert_eq!(scale.vp(-16), (4.26, 15.74));
    }

    /// The Swiss pairs regulations, Table 2 (9-board matches), every printed row. The regulations print no row for
    /// margins 16 and 17; between 15 (15.25) and 18 (16.00) the scale rises 0.25 per IMP,
    /// so they come out 15.50 and 15.75, flagged as interpolated.
    #[test]
    fn seed_002_table_2() {
        let printed = [
            (0, 10.00),
            (1, 10.36),
            (2, 10.72),
            (3, 11.08),
            (4, 11.44),
            (5, 11.80),
            (6, 12.16),
            (7, 12.52),
            (8, 12.88),
            (9, 13.24),
            (10, 13.60),
            (11, 13.95),
            (12, 14.30),
            (13, 14.65),
            (14, 15.00),
            (15, 15.25),
            (18, 16.00),
            (19, 16.25),
            (20, 16.50),
            (21, 16.75),
            (22, 17.00),
            (23, 17.25),
            (24, 17.50),
            (25, 17.75),
            (26, 18.00),
            (27, 18.25),
            (28, 18.50),
            (29, 18.75),
            (30, 19.00),
            (31, 19.25),
            (32, 19.50),
            (33, 19.75),
            (34, 20.00),
        ];
        let scale = abf(9);
        for (margin, want) in printed {
            let (w, l) = scale.vp(margin);
            assert!(
                (w - want).abs() < 1e-9 && (l - (20.0 - want)).abs() < 1e-9,
                "{margin}"
            );
        }
        assert_eq!(scale.vp(16), (15.5, 4.5));
        assert_eq!(scale.vp(17), (15.75, 4.25));
        assert_eq!(scale.interpolated_margins(), &[16, 17]);
        assert!(abf(8).interpolated_margins().is_empty());
        assert_eq!(scale.blitz(), 34);
    }

    #[test]
    fn abf_only_for_8_and_9_boards() {
        assert_eq!(abf_swiss_pairs(7), Ok(None));
    }

    /// WBF values worked by hand from the formula (τ = 0.6180340, 1 − τ³ = 0.7639320,
    /// ln τ = −0.4812118):
    /// * 16 boards, B = 60. M = 1: τ^0.05 = e^−0.0240606 = 0.9762266, (1 − 0.9762266)/
    ///   0.7639320 = 0.0311199 → 10.311 → 10.31. M = 10: τ^0.5 = 0.7861514,
    ///   0.2138486/0.7639320 = 0.2799314 → 12.799 → 12.80. M = 60 (the blitz): 20.00.
    /// * 8 boards, B = 42.4264. M = 1: τ^0.0707107 = e^−0.0340269 = 0.9665455,
    ///   0.0334545/0.7639320 = 0.0437924 → 10.438 → 10.44.
    #[test]
    fn wbf_hand_computed_values() {
        let s16 = wbf_scale(16);
        assert_eq!(s16.vp(1).0, 10.31);
        assert_eq!(s16.vp(10).0, 12.80);
        assert_eq!(s16.vp(60), (20.0, 0.0));
        assert_eq!(s16.blitz(), 60);
        assert_eq!(wbf_scale(8).vp(1).0, 10.44);
        assert!((wbf_continuous(10, 16) - 12.799314).abs() < 1e-5);
    }

    /// The shared scale is the one built for that length, at every length, shared
    /// or not (0 and 1 board build the 1-board scale).
    #[test]
    fn shared_wbf_scales_are_the_built_ones() {
        for boards in [0, 1, 2, 8, 12, 16, 24, 64, 65, 200] {
            assert_eq!(*wbf_scale_shared(boards), wbf_scale(boards), "{boards}");
            assert_eq!(
                *wbf_scale_shared(boards),
                wbf_scale(boards),
                "{boards} again"
            );
        }
        assert_eq!(wbf_scale_shared(16).vp(10), wbf_scale(16).vp(10));
    }

    /// The published tables never give an extra IMP more than the one before it.
    #[test]
    fn wbf_steps_never_grow() {
        for boards in [4, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64] {
            let w = &wbf_scale(boards).winner;
            for m in 1..w.len() - 1 {
                assert!(
                    w[m + 1] - w[m] <= w[m] - w[m - 1],
                    "{boards} boards, margin {m}"
                );
            }
            assert_eq!(w.first(), Some(&1000));
            assert_eq!(w.last(), Some(&2000));
        }
    }

    #[test]
    fn bad_scale_files_are_reported_with_line_and_column() {
        let err = VpScale::parse(
            "x.csv",
            "imp_margin,winner_vp,loser_vp\n0,10.00,10.00\n1,10.50,9.40\n",
        )
        .unwrap_err();
        assert_eq!(err.location.row, Some(3));
        assert_eq!(err.location.column.as_deref(), Some("winner_vp"));
        let err = VpScale::parse(
            "x.csv",
            "imp_margin,winner_vp,loser_vp\n0,10.00,10.00\n0,11,9\n",
        )
        .unwrap_err();
        assert_eq!(err.location.column.as_deref(), Some("imp_margin"));
        assert!(VpScale::parse("x.csv", "margin,vp\n").is_err());
        assert!(
            VpScale::parse("x.csv", "imp_margin,winner_vp,loser_vp\n0,10.001,9.999\n").is_err()
        );
    }
}
