//! What a table produced: a real score, or an artificial one awarded by the director.
//!
//! Artificial scores must stay out of the comparisons between real results, yet each
//! side still gets its share, so every scoring needs to tell the two apart before it
//! compares anything.

/// One table's result on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The N/S score.
    Score(i32),
    /// An artificial score: each side's percentage of the top.
    Artificial { ns_percent: u8, ew_percent: u8 },
}

impl Outcome {
    pub fn score(self) -> Option<i32> {
        match self {
            Outcome::Score(s) => Some(s),
            Outcome::Artificial { .. } => None,
        }
    }
}

/// Ruter's one-sided codes: average plus, average, average minus.
fn ruter_percent(code: &str) -> Option<u8> {
    match code {
        "A+" => Some(60),
        "A=" => Some(50),
        "A-" => Some(40),
        _ => None,
    }
}

/// Parses an artificial-score code: `A6040`, `A5050`, `A4060`, `A6060`, `A4040`
/// (N/S share first), Ruter's `A+`, `A=`, `A-` (the same share for both sides) or a
/// pair of Ruter codes `A+/A-` (N/S first).
///
/// ```
/// use bridgehcp::scoring::outcome::{parse_artificial, Outcome};
/// assert_eq!(parse_artificial("A6040"), Ok(Outcome::Artificial { ns_percent: 60, ew_percent: 40 }));
/// assert_eq!(parse_artificial("A+"), Ok(Outcome::Artificial { ns_percent: 60, ew_percent: 60 }));
/// ```
pub fn parse_artificial(code: &str) -> Result<Outcome, String> {
    let trimmed = code.trim().to_ascii_uppercase();
    let pair = match trimmed.as_str() {
        "A6040" => Some((60, 40)),
        "A5050" => Some((50, 50)),
        "A4060" => Some((40, 60)),
        "A6060" => Some((60, 60)),
        "A4040" => Some((40, 40)),
        other => match other.split_once('/') {
            Some((ns, ew)) => ruter_percent(ns).zip(ruter_percent(ew)),
            None => ruter_percent(other).map(|p| (p, p)),
        },
    };
    pair.map(|(ns_percent, ew_percent)| Outcome::Artificial {
        ns_percent,
        ew_percent,
    })
    .ok_or_else(|| {
        format!(
            "unknown artificial score `{code}` (expected A6040, A5050, A4060, A6060, A4040, A+, A=, A- or a pair such as A+/A-)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        let a = |ns, ew| {
            Ok(Outcome::Artificial {
                ns_percent: ns,
                ew_percent: ew,
            })
        };
        assert_eq!(parse_artificial("A5050"), a(50, 50));
        assert_eq!(parse_artificial("A4060"), a(40, 60));
        assert_eq!(parse_artificial("a6060"), a(60, 60));
        assert_eq!(parse_artificial("A4040"), a(40, 40));
        assert_eq!(parse_artificial("A="), a(50, 50));
        assert_eq!(parse_artificial("A-"), a(40, 40));
        assert_eq!(parse_artificial("A+/A-"), a(60, 40));
        for bad in ["A7030", "A", "A+/", "60/40", ""] {
            assert!(parse_artificial(bad).is_err(), "{bad}");
        }
    }
}
