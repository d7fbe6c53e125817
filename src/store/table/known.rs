//! The columns each table may have, so that a misspelt one is caught.
//!
//! Unknown columns are ignored (a dataset may carry an analyst's own), but an optional
//! column spelt slightly wrong (`start_handicp`) would be ignored too, and its values
//! silently lost: twenty intended start handicaps replaced by the default. So a column
//! that is not the table's but is within a couple of typing slips of one that is breaks
//! a rule, and the message names the column meant.

use crate::error::{InputError, Location};

use super::locate::Frame;

/// Columns every imported table may carry.
const SOURCES: [&str; 2] = ["source_file", "source_line"];

/// The columns the contract gives `table`, or `None` for a name that is not a table.
fn known(table: &str) -> Option<&'static [&'static str]> {
    Some(match table {
        "members" => &[
            "member_id",
            "name",
            "club",
            "district",
            "masterpoints",
            "start_handicap",
            "kind",
        ],
        "competitions" => &[
            "competition_id",
            "date",
            "session",
            "format",
            "scoring",
            "boards",
            "rated",
            "handicap_event",
            "title",
            "club",
            "class",
            "mp_scale",
            "imp_aggregate",
            "datum_trim",
            "datum_rounding",
            "bye_score",
            "neuberg",
            "tie_break",
            "travellers",
            "artificial_imps",
            "vp_scale",
        ],
        "entrants" => &[
            "competition_id",
            "entrant",
            "player1",
            "player2",
            "player3",
            "player4",
            "player1_name",
            "player2_name",
            "player3_name",
            "player4_name",
            "team",
            "direction",
        ],
        "results" => &[
            "competition_id",
            "entrant",
            "boards_played",
            "score",
            "opponent",
        ],
        "boards" => &[
            "competition_id",
            "board",
            "ns",
            "ew",
            "contract",
            "declarer",
            "tricks",
            "ns_score",
            "adjusted",
            "north",
            "south",
            "east",
            "west",
            "round",
            "session",
            "table",
            "room",
            "ns_penalty",
            "ew_penalty",
        ],
        _ => return None,
    })
}

/// Edits (insert, delete, replace one character, swap two neighbours) from `a` to `b`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The known column `name` is most likely a slip for, if any: the same name in other
/// case or spacing, or one or two edits away (one for short names).
pub(super) fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    // No column name is longer than 20 characters: a longer one (a 10 MB header cell)
    // is no slip, and is not compared character by character.
    if name.len() > 64 {
        return None;
    }
    let folded = name.trim().to_lowercase().replace([' ', '-'], "_");
    let allowed = if folded.chars().count() >= 6 { 2 } else { 1 };
    known
        .iter()
        .map(|k| (distance(&folded, k), *k))
        .filter(|(d, _)| *d <= allowed)
        .min()
        .map(|(_, k)| k)
}

/// Refuses a column of `frame` that is not one of `table`'s but nearly is, naming the
/// file, the column and the column meant.
pub(super) fn check_columns(frame: &Frame, table: &str) -> Result<(), InputError> {
    let Some(columns) = known(table) else {
        return Ok(());
    };
    for column in frame.df.get_column_names() {
        let name = column.as_str();
        if columns.contains(&name) || SOURCES.contains(&name) {
            continue;
        }
        if let Some(meant) = nearest(name, columns) {
            return Err(InputError::new(
                Location::file(frame.path.to_path_buf()).column(name),
                format!(
                    "`{name}` is not a column of `{table}`; did you mean `{meant}`? (otherwise its values would be ignored; rename the column)"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_point_to_the_column_meant() {
        let members = known("members").unwrap_or_default();
        assert_eq!(nearest("start_handicp", members), Some("start_handicap"));
        assert_eq!(nearest("Start Handicap", members), Some("start_handicap"));
        assert_eq!(nearest("nmae", members), Some("name"));
        assert_eq!(nearest("notes", members), None);
        assert_eq!(nearest("month", members), None);
        assert_eq!(nearest(&"7".repeat(10 * 1024 * 1024), members), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("nmae", "name"), 1);
    }
}
