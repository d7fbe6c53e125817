//! What a table produced: a real score, or an artificial one awarded by the director.
//!
//! Artificial scores must stay out of the comparisons between real results, yet each
//! side still gets its share, so every scoring needs to tell the two apart before it
//! compares anything.
//!
//! A director may also award an artificial score to one side only while the table's
//! score stands for the other (Ruter prints `A=` for N/S and `+0` for E/W): that score
//! still takes part in the field's comparisons, so it is a third kind of outcome, written
//! in `adjusted` as a pair of side codes with `S` for the side that keeps the score
//! (`A=/S`, `S/A-`, `A50/S`) and the score in `ns_score`.

/// One table's result on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The N/S score.
    Score(i32),
    /// An artificial score: each side's percentage of the top.
    Artificial { ns_percent: u8, ew_percent: u8 },
    /// The N/S score `score` stays in the comparisons, but the side with a percentage is
    /// given that share of the top instead of what the score earns it.
    Split {
        score: i32,
        ns_percent: Option<u8>,
        ew_percent: Option<u8>,
    },
}

impl Outcome {
    /// The N/S score that takes part in the comparisons, if any.
    pub fn score(self) -> Option<i32> {
        match self {
            Outcome::Score(s) | Outcome::Split { score: s, .. } => Some(s),
            Outcome::Artificial { .. } => None,
        }
    }

    /// The artificial share of each side (N/S, E/W), `None` for a side that gets what its
    /// score earns.
    pub fn artificial_shares(self) -> (Option<u8>, Option<u8>) {
        match self {
            Outcome::Score(_) => (None, None),
            Outcome::Artificial {
                ns_percent,
                ew_percent,
            } => (Some(ns_percent), Some(ew_percent)),
            Outcome::Split {
                ns_percent,
                ew_percent,
                ..
            } => (ns_percent, ew_percent),
        }
    }
}

/// One side's share in a split code: a Ruter code or `A` and a percentage (`A50`).
fn side_percent(code: &str) -> Option<u8> {
    ruter_percent(code).or_else(|| {
        code.strip_prefix('A')
            .filter(|digits| {
                (1..=3).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit())
            })
            .and_then(|digits| digits.parse().ok())
            .filter(|&p| p <= 100)
    })
}

/// Parses the `adjusted` code of a row together with its `ns_score`: a split code
/// (`A=/S`, `S/A-`, `A40/S`; `S` marks the side that keeps the score) needs the score,
/// any other code is an artificial score as read by [`parse_artificial`].
///
/// ```
/// use bridgehcp::scoring::outcome::{parse_adjusted, Outcome};
/// assert_eq!(
///     parse_adjusted("A=/S", Some(0)),
///     Ok(Outcome::Split { score: 0, ns_percent: Some(50), ew_percent: None })
/// );
/// assert!(parse_adjusted("A=/S", None).is_err());
/// ```
pub fn parse_adjusted(code: &str, ns_score: Option<i32>) -> Result<Outcome, String> {
    let trimmed = code.trim().to_ascii_uppercase();
    let split = trimmed
        .split_once('/')
        .filter(|(ns, ew)| *ns == "S" || *ew == "S");
    let Some((ns, ew)) = split else {
        return parse_artificial(code);
    };
    let side = |text: &str| -> Result<Option<u8>, String> {
        if text == "S" {
            return Ok(None);
        }
        side_percent(text).map(Some).ok_or_else(|| {
            format!("unknown side code `{text}` in split score `{code}` (expected A+, A=, A-, A and a percentage, or S)")
        })
    };
    let (ns_percent, ew_percent) = (side(ns)?, side(ew)?);
    if ns_percent.is_none() && ew_percent.is_none() {
        return Err(format!(
            "split score `{code}` gives neither side an artificial score"
        ));
    }
    let score = ns_score.ok_or_else(|| {
        format!("split score `{code}` keeps the table's score for one side, but the row has no ns_score")
    })?;
    Ok(Outcome::Split {
        score,
        ns_percent,
        ew_percent,
    })
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

/// Parses an artificial-score code, N/S share first: `A` and two two-digit percentages
/// (`A6040`, `A5050`, `A6050`, `A4050`, `A7525`, ...), Ruter's `A+`, `A=`, `A-` (the same
/// share for both sides), or a pair of side codes `NS/EW`, each a Ruter code or `A` and
/// a percentage (`A+/A-`, `A60/A50`, `A100/A0`).
///
/// ```
/// use bridgehcp::scoring::outcome::{parse_artificial, Outcome};
/// assert_eq!(parse_artificial("A6040"), Ok(Outcome::Artificial { ns_percent: 60, ew_percent: 40 }));
/// assert_eq!(parse_artificial("A6050"), Ok(Outcome::Artificial { ns_percent: 60, ew_percent: 50 }));
/// assert_eq!(parse_artificial("A+"), Ok(Outcome::Artificial { ns_percent: 60, ew_percent: 60 }));
/// assert_eq!(parse_artificial("A=/A100"), Ok(Outcome::Artificial { ns_percent: 50, ew_percent: 100 }));
/// ```
pub fn parse_artificial(code: &str) -> Result<Outcome, String> {
    let trimmed = code.trim().to_ascii_uppercase();
    let four_digits = trimmed
        .strip_prefix('A')
        .filter(|d| d.len() == 4 && d.chars().all(|c| c.is_ascii_digit()))
        .and_then(|d| Some((d.get(..2)?.parse().ok()?, d.get(2..)?.parse().ok()?)));
    let pair = four_digits.or_else(|| match trimmed.split_once('/') {
        Some((ns, ew)) => side_percent(ns).zip(side_percent(ew)),
        None => ruter_percent(&trimmed).map(|p| (p, p)),
    });
    pair.map(|(ns_percent, ew_percent)| Outcome::Artificial {
        ns_percent,
        ew_percent,
    })
    .ok_or_else(|| {
        format!(
            "unknown artificial score `{code}` (expected A and each side's percentage such as A6040 or A6050, A+, A=, A-, or a pair of side codes such as A+/A- or A60/A50)"
        )
    })
}

/// The canonical `adjusted` code of an artificial score with these shares: `A6050`, or
/// `A100/A0` when a share has three digits.
pub fn artificial_code(ns_percent: u8, ew_percent: u8) -> String {
    if ns_percent < 100 && ew_percent < 100 {
        format!("A{ns_percent:02}{ew_percent:02}")
    } else {
        format!("A{ns_percent}/A{ew_percent}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn canonical_codes_read_back() {
        for (ns, ew) in [(60, 40), (5, 95), (75, 25), (100, 0), (0, 100)] {
            let code = artificial_code(ns, ew);
            assert_eq!(
                parse_artificial(&code),
                Ok(Outcome::Artificial {
                    ns_percent: ns,
                    ew_percent: ew
                }),
                "{code}"
            );
        }
        assert_eq!(artificial_code(5, 95), "A0595");
    }

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
        assert_eq!(parse_artificial("A6050"), a(60, 50));
        assert_eq!(parse_artificial("A4050"), a(40, 50));
        assert_eq!(parse_artificial("A5040"), a(50, 40));
        assert_eq!(parse_artificial("A7525"), a(75, 25));
        assert_eq!(parse_artificial("A60/A50"), a(60, 50));
        assert_eq!(parse_artificial("A=/A+"), a(50, 60));
        assert_eq!(parse_artificial("A100/A0"), a(100, 0));
        for bad in [
            "A", "A+/", "60/40", "", "A605", "A60400", "A101/A0", "AX050", "A+/S",
        ] {
            assert!(parse_artificial(bad).is_err(), "{bad}");
        }
    }

    /// Ruter's board 11 of 2016-08-10: `A=` for N/S 6, E/W 10 keeps the score 0.
    #[test]
    fn split_codes() {
        let split = |ns, ew| {
            Ok(Outcome::Split {
                score: 0,
                ns_percent: ns,
                ew_percent: ew,
            })
        };
        assert_eq!(parse_adjusted("A=/S", Some(0)), split(Some(50), None));
        assert_eq!(parse_adjusted("s/a-", Some(0)), split(None, Some(40)));
        assert_eq!(parse_adjusted("A60/S", Some(0)), split(Some(60), None));
        assert_eq!(
            parse_adjusted("A6040", Some(0)),
            parse_artificial("A6040"),
            "plain codes ignore the score"
        );
        assert!(parse_adjusted("S/S", Some(0)).is_err());
        assert!(parse_adjusted("A=/S", None).is_err());
        assert!(parse_adjusted("A7X/S", Some(0)).is_err());
        assert!(parse_adjusted("A101/S", Some(0)).is_err());
        let shares = parse_adjusted("A=/S", Some(0)).map(Outcome::artificial_shares);
        assert_eq!(shares, Ok((Some(50), None)));
        assert_eq!(
            parse_adjusted("A=/S", Some(0)).map(Outcome::score),
            Ok(Some(0))
        );
    }
}
