//! Competitions left out of a run because something in them is wrong.
//!
//! A federation's monthly run must not stop because one club sent one broken session:
//! a competition with any error (a bad cell, a rule its rows break, a scoring or model
//! rule it cannot meet) is left out whole, nobody's handicap moves for it, and it is
//! listed with its reasons in `quarantine.csv`. What cannot be pinned on one
//! competition stops the run instead, because it would make every competition wrong:
//! a missing table or column, a column of the wrong type, a broken `members` row
//! (a member plays in many competitions), a row whose `competition_id` is empty.
//!
//! `--strict` turns the first quarantinable error into a failure, so that a dataset can
//! be checked before it is published; the error is the same one the quarantine lists
//! first for the first competition in table order.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::error::InputError;

/// How errors that belong to one competition are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// Leave the competition out and list it.
    #[default]
    Quarantine,
    /// Stop at the first error.
    Strict,
}

impl OnError {
    /// The error that stops a strict command: the first reason of the first of
    /// `quarantined` (they are in replay order). `None` when not strict, or when
    /// nothing was left out. Every command that collects failures before deciding
    /// (scoring, preparing) asks this, so strict mode means the same everywhere.
    pub fn first_error(self, quarantined: &[Quarantined]) -> Option<InputError> {
        let first = quarantined.first().and_then(|q| q.reasons.first())?;
        (self == OnError::Strict).then(|| first.clone())
    }
}

/// A competition left out, with every reason found for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Quarantined {
    pub competition_id: String,
    /// The competition's date when its row could be read.
    pub date: Option<NaiveDate>,
    pub session: Option<i32>,
    pub reasons: Vec<InputError>,
}

/// The competitions left out so far, keyed by id; reasons in the order found.
#[derive(Debug, Clone, Default)]
pub struct Quarantine {
    on_error: OnError,
    by_id: BTreeMap<String, Quarantined>,
}

impl Quarantine {
    pub fn new(on_error: OnError) -> Self {
        Quarantine {
            on_error,
            by_id: BTreeMap::new(),
        }
    }

    pub fn on_error(&self) -> OnError {
        self.on_error
    }

    /// Records `error` against competition `id`; in strict mode returns it instead.
    pub fn add(&mut self, id: &str, error: InputError) -> Result<(), InputError> {
        if self.on_error == OnError::Strict {
            return Err(error);
        }
        self.by_id
            .entry(id.to_owned())
            .or_insert_with(|| Quarantined {
                competition_id: id.to_owned(),
                date: None,
                session: None,
                reasons: Vec::new(),
            })
            .reasons
            .push(error);
        Ok(())
    }

    /// Notes the date and session of a quarantined competition, for sorting and listing.
    pub fn date(&mut self, id: &str, date: NaiveDate, session: i32) {
        if let Some(entry) = self.by_id.get_mut(id) {
            entry.date.get_or_insert(date);
            entry.session.get_or_insert(session);
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Adds another stage's quarantine (a competition already listed gains the reasons).
    pub fn extend(&mut self, other: impl IntoIterator<Item = Quarantined>) {
        for item in other {
            match self.by_id.get_mut(&item.competition_id) {
                Some(entry) => {
                    entry.date = entry.date.or(item.date);
                    entry.session = entry.session.or(item.session);
                    entry.reasons.extend(item.reasons);
                }
                None => {
                    self.by_id.insert(item.competition_id.clone(), item);
                }
            }
        }
    }

    /// Keeps only the competitions `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&Quarantined) -> bool) {
        self.by_id.retain(|_, item| keep(item));
    }

    /// The quarantined competitions in replay order (date, session, id); those whose
    /// date is unknown (their row is broken or missing) come last, by id.
    pub fn into_sorted(self) -> Vec<Quarantined> {
        let mut items: Vec<Quarantined> = self.by_id.into_values().collect();
        items.sort_by(|a, b| {
            (a.date.is_none(), a.date, a.session, &a.competition_id).cmp(&(
                b.date.is_none(),
                b.date,
                b.session,
                &b.competition_id,
            ))
        });
        items
    }

    pub fn iter(&self) -> impl Iterator<Item = &Quarantined> {
        self.by_id.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn error(rule: &str) -> InputError {
        InputError::new(Location::file("results.csv").row(3), rule)
    }

    #[test]
    fn strict_mode_returns_the_first_error_and_keeps_nothing() {
        let mut q = Quarantine::new(OnError::Strict);
        assert_eq!(q.add("c1", error("bad")), Err(error("bad")));
        assert!(q.is_empty());
    }

    #[test]
    fn reasons_collect_per_competition_and_sort_in_replay_order() {
        let mut q = Quarantine::new(OnError::Quarantine);
        let day = |d| NaiveDate::from_ymd_opt(2026, 3, d).unwrap_or_default();
        assert_eq!(q.add("b", error("one")), Ok(()));
        assert_eq!(q.add("a", error("two")), Ok(()));
        assert_eq!(q.add("b", error("three")), Ok(()));
        assert_eq!(q.add("ghost", error("four")), Ok(()));
        q.date("a", day(9), 1);
        q.date("b", day(2), 1);
        let sorted = q.into_sorted();
        let ids: Vec<&str> = sorted.iter().map(|q| q.competition_id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "ghost"]);
        let rules: Vec<&str> = sorted[0].reasons.iter().map(|r| r.rule.as_str()).collect();
        assert_eq!(rules, ["one", "three"]);
    }
}
