//! From the competition's own scale to the model's unit.
//!
//! Clubs publish percentages, IMP totals summed or averaged over the comparisons, and
//! team matches as margins or as IMPs won; the model reads one figure per entrant:
//! percentage points over 50 for matchpoints, IMPs per board for the IMP scorings (per
//! comparison for cross-IMPs), a team's net margin per board. Every such conversion is
//! here, so the model never sees a program's convention.

use crate::dataset::{BoardRef, Competition, Entrant, EntrantResult, ScoringMethod};
use crate::error::InputError;
use crate::model::{CalcMethod, FieldKind};
use crate::scoring;
use crate::scoring::conventions::ImpAggregate;

/// The model's calculation method: matchpoints are topscore; cross-IMPs, butler, team
/// IMPs and Swiss pairs (its datum IMPs, never its VPs) are IMP events.
pub fn calc_method(scoring: ScoringMethod) -> CalcMethod {
    if scoring.is_imps() {
        CalcMethod::Imp
    } else {
        CalcMethod::Topscore
    }
}

/// The results the model reads from a scored competition. Summed cross-IMPs are scored
/// again averaged: the model's unit is IMPs per comparison, and dividing each board by
/// its own number of comparisons is exactly the averaged scale, while the standings keep
/// the program's sums. Anything else is `scored` as it is.
pub(super) fn model_results(
    competition: &Competition,
    entrants: &[&Entrant],
    board_rows: &[BoardRef<'_>],
    scored: Vec<EntrantResult>,
) -> Result<Vec<EntrantResult>, InputError> {
    if board_rows.is_empty() || !summed_cross_imps(competition) {
        return Ok(scored);
    }
    let mut averaged = competition.clone();
    averaged.conventions.imp_aggregate = ImpAggregate::Average;
    Ok(scoring::score_competition(&averaged, entrants, board_rows)?.results)
}

/// An entrant's result in the model's unit. `comparisons` divides reported summed
/// cross-IMPs (see [`cross_imp_comparisons`]); `against` is the opponent's result in a
/// team match, whose two scores give the margin.
pub(super) fn model_result(
    competition: &Competition,
    kind: FieldKind,
    result: &EntrantResult,
    against: Option<&EntrantResult>,
    comparisons: f64,
) -> Result<f64, InputError> {
    let at = || {
        result
            .origin
            .location()
            .competition(&competition.competition_id)
            .column("score")
    };
    let boards = f64::from(result.boards_played);
    let per_board = result.score / boards;
    let mut achieved = match competition.scoring {
        ScoringMethod::Matchpoints => result.score - 50.0,
        ScoringMethod::CrossImps => per_board / comparisons,
        ScoringMethod::Butler | ScoringMethod::TeamImps | ScoringMethod::SwissPairs => per_board,
    };
    // A team match's scores are net margins or IMPs won; the model wants the margin.
    if let (FieldKind::TeamMatch, Some(against)) = (kind, against) {
        let Some(margin) = scoring::team::net_margin(result.score, against.score) else {
            return Err(InputError::new(
                at(),
                format!(
                    "team match scores {} and {} are neither net margins (adding up to 0) nor IMPs won (both at least 0)",
                    result.score, against.score
                ),
            ));
        };
        achieved = margin / boards;
    }
    if !achieved.is_finite() {
        return Err(InputError::new(at(), "score must be a finite number"));
    }
    Ok(achieved)
}

fn summed_cross_imps(competition: &Competition) -> bool {
    competition.scoring == ScoringMethod::CrossImps
        && competition.conventions.imp_aggregate == ImpAggregate::Sum
}

/// What reported summed cross-IMPs are divided by to reach IMPs per comparison. From board
/// rows the results are already scored averaged (see [`model_results`]), board by board,
/// so nothing is left to divide; from reported totals alone the comparisons per board are
/// not known, and a full field is assumed: one table fewer than the field.
pub(super) fn cross_imp_comparisons(
    competition: &Competition,
    from_board_rows: bool,
    entrants: usize,
    kind: FieldKind,
) -> f64 {
    if from_board_rows || !summed_cross_imps(competition) {
        return 1.0;
    }
    let per_table = if kind == FieldKind::Individual { 4 } else { 2 };
    ((entrants / per_table) as f64 - 1.0).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scoring_methods_map_to_calculation_methods() {
        assert_eq!(
            calc_method(ScoringMethod::Matchpoints),
            CalcMethod::Topscore
        );
        for s in [
            ScoringMethod::CrossImps,
            ScoringMethod::Butler,
            ScoringMethod::TeamImps,
            ScoringMethod::SwissPairs,
        ] {
            assert_eq!(calc_method(s), CalcMethod::Imp);
        }
        assert_eq!(FieldKind::TeamMatch.players_per_entrant(), 4);
        assert_eq!(FieldKind::Individual.players_per_entrant(), 1);
        assert_eq!(FieldKind::PairsDatum.players_per_entrant(), 2);
    }
}
