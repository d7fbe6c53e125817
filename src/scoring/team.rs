//! Team-match IMPs: the same board in two rooms, with the teams' seats swapped.
//!
//! A team's result on a board is what its two pairs scored together, so the only
//! comparison is between the rooms: the IMPs of the difference of the N/S scores.

use crate::scoring::imps::imps;

/// IMPs on one board to the team that sat N/S in the first room (and E/W in the other).
///
/// ```
/// use bridgehcp::scoring::team::board_imps;
/// // 4S made, 420, in one room; 4S one down, −50, in the other: 470 → 10 IMPs.
/// assert_eq!(board_imps(420, -50), 10);
/// assert_eq!(board_imps(-50, 420), -10);
/// ```
pub fn board_imps(first_room_ns: i32, second_room_ns: i32) -> i32 {
    imps(first_room_ns - second_room_ns)
}

/// Net IMPs of a match to the team N/S in the first room, from each board's two N/S scores.
pub fn match_imps(boards: &[(i32, i32)]) -> i32 {
    boards.iter().map(|&(a, b)| board_imps(a, b)).sum()
}

/// A team's net margin in a match from the two teams' reported `score`s.
///
/// Clubs report a team match either as net margins (+12 and −12, as the scoring stage
/// writes it) or as the IMPs each team won (45 and 33). The two readings cannot be
/// confused: IMPs won are never negative, so two scores that add up to zero are margins
/// (or a 0–0 draw, the same either way), and two non-negative scores are IMPs won.
/// Anything else (−3 and 5) fits neither and is `None`.
///
/// ```
/// use bridgehcp::scoring::team::net_margin;
/// assert_eq!(net_margin(12.0, -12.0), Some(12.0));
/// assert_eq!(net_margin(45.0, 33.0), Some(12.0));
/// assert_eq!(net_margin(0.0, 0.0), Some(0.0));
/// assert_eq!(net_margin(-3.0, 5.0), None);
/// ```
pub fn net_margin(own: f64, other: f64) -> Option<f64> {
    if (own + other).abs() < 1e-9 {
        Some(own)
    } else if own >= 0.0 && other >= 0.0 {
        Some(own - other)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3NT vulnerable made (600) against 3NT one down (−100): 700 → 12; a flat 420: 0;
    /// 1NT +90 against 2S by E/W made (−110): 200 → 5.
    #[test]
    fn match_total() {
        assert_eq!(match_imps(&[(600, -100), (420, 420), (90, -110)]), 17);
        assert_eq!(match_imps(&[(-100, 600), (420, 420), (-110, 90)]), -17);
    }
}
