//! What a run says when it ends: what it applied, what not and why, and the warnings
//! and errors a scheduled run must not hide.

use crate::pipeline::RunSummary;
use crate::report::run_folder;

use super::RunPlan;

/// The end-of-run summary: what was applied, what was not and why, and where the
/// outputs are.
pub fn summary_text(plan: &RunPlan, summary: &RunSummary) -> String {
    use crate::report::count;
    let not_applied = not_applied(summary);
    let replayed = match &summary.replayed {
        Some(reason) => format!(
            "{} ({}), so the whole history was replayed from the start, correcting {} (see corrections.csv): ",
            if reason.from_another_version() {
                "the previous run's state cannot be continued as it is"
            } else {
                "the dataset no longer matches what the previous run applied"
            },
            reason.describe(),
            count(summary.members_corrected, "member's handicap", "members' handicaps")
        ),
        None => String::new(),
    };
    let published = &plan.settings.published;
    format!(
        "bridgehcp run on {}: {replayed}{} applied{}, {} moved, {}; last competition {}; {:.2} s (reading {:.2}, hashing {:.2}, scoring {:.2}, replay {:.2}, writing {:.2})\n  \
{} ranked, {} on the published ranking (ranking_published.csv: at least {} rated boards{}); {} provisional (fewer boards); {} in rated competitions taken by non-members (they count in the field, nobody moves for them); outputs in {}",
        plan.data.display(),
        count(summary.competitions_applied, "competition", "competitions"),
        if not_applied.is_empty() {
            String::new()
        } else {
            format!(" ({})", not_applied.join(", "))
        },
        count(summary.members_moved, "member", "members"),
        count(summary.changes, "player change", "player changes"),
        summary
            .last_date
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into()),
        summary.elapsed.as_secs_f64(),
        summary.reading.as_secs_f64(),
        summary.hashing.as_secs_f64(),
        summary.scoring.as_secs_f64(),
        summary.replaying.as_secs_f64(),
        summary.writing.as_secs_f64(),
        count(summary.members_ranked, "member", "members"),
        summary.members_published,
        published.min_boards,
        published
            .active_months
            .map(|m| format!(", active in the last {}", count(m as usize, "month", "months")))
            .unwrap_or_default(),
        count(summary.members_provisional, "handicap", "handicaps"),
        count(summary.non_member_places, "place", "places"),
        plan.out.display()
    )
}

/// What the run did not apply, and why: the summary's parenthesis after the count of
/// competitions applied.
fn not_applied(summary: &RunSummary) -> Vec<String> {
    use crate::report::count;
    let mut not_applied = Vec::new();
    if summary.competitions_skipped > 0 {
        let index = match summary.months_read {
            Some((read, months)) => format!(
                ", as the dataset's index showed: rows read of {read} of {} only",
                count(months, "month", "months")
            ),
            None => String::new(),
        };
        not_applied.push(format!(
            "{} already applied by the previous run and unchanged{index}",
            summary.competitions_skipped
        ));
    }
    if summary.competitions_not_rated > 0 {
        not_applied.push(format!(
            "{} scored but marked not rated (`rated` false)",
            summary.competitions_not_rated
        ));
    }
    if summary.competitions_unrated > 0 {
        not_applied.push(format!(
            "{} could not be rated (see unrated.csv)",
            summary.competitions_unrated
        ));
    }
    if summary.competitions_quarantined > 0 {
        not_applied.push(format!(
            "{} left out because {} a rule (see quarantine.csv)",
            summary.competitions_quarantined,
            if summary.competitions_quarantined == 1 {
                "it breaks"
            } else {
                "they break"
            }
        ));
    }
    not_applied
}

/// The warning for a ranking nobody qualified for, naming the filters that left it
/// empty; `None` when somebody is ranked.
pub fn empty_ranking_warning(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    if summary.members_ranked > 0 {
        return None;
    }
    let ranking = &plan.settings.ranking;
    let mut filters = vec![format!("at least {} rated boards", ranking.min_boards)];
    if let Some(months) = ranking.active_months {
        filters.push(format!(
            "a competition in the {months} months before {}",
            ranking
                .as_of
                .or(summary.last_date)
                .map(|d| d.to_string())
                .unwrap_or_else(|| "the last competition".into())
        ));
    }
    Some(format!(
        "warning: the ranking is empty: no member has {} (see --min-boards, --active-months, --as-of); {} is written with no rows",
        filters.join(" and "),
        plan.out.join(run_folder::RANKING_CSV).display()
    ))
}

/// The exit code of a run in which every competition was quarantined.
pub const ALL_QUARANTINED_EXIT: u8 = 2;

/// The error for a run in which every competition it read broke a rule, so that
/// nothing was rated: the outputs (with `quarantine.csv`) are written, but a scheduled
/// run must not report success. `None` when something was rated, or nothing read.
pub fn all_quarantined_error(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    let taken = summary.competitions_applied
        + summary.competitions_unrated
        + summary.competitions_skipped
        + summary.competitions_corrected;
    (summary.competitions_quarantined > 0 && taken == 0).then(|| {
        format!(
            "error: every competition ({}) was quarantined, so nobody's handicap moved; the reasons are in {} (exit code {ALL_QUARANTINED_EXIT})",
            summary.competitions_quarantined,
            plan.out.join(run_folder::QUARANTINE).display()
        )
    })
}

/// The summary's line on player numbers the run rated as non-members because `members`
/// does not have them; `None` when there were none.
pub fn non_members_note(plan: &RunPlan, summary: &RunSummary) -> Option<String> {
    (summary.non_members_seen > 0).then(|| {
        format!(
            "{} player numbers are not in `members` and were rated as non-members (nobody's handicap moves for them); each is listed with its competitions and entrants in {}",
            summary.non_members_seen,
            plan.out.join(run_folder::NON_MEMBERS).display()
        )
    })
}
