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
