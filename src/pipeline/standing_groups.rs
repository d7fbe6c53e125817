//! Standings encoded into `standings.parquet`'s row groups while a run from scratch
//! replays.
//!
//! A federation's history has millions of standings lines (7.7 million at 90 000
//! members and ten years), about 40 bytes each as columns, and nothing but the output
//! file needs them. A line is final once its competition is: a competition that is not
//! rated as soon as it is taken, a rated one once its month is replayed (the model may
//! refuse it, which leaves its lines out, and a handicap tournament's lines carry the
//! replay's adjusted results). So as the months are replayed, the final lines at the
//! front, those of refused competitions passed over, are encoded a full row group at a
//! time, exactly as the file written whole holds them, and only the encoded bytes are
//! kept (in the run's temporary file). The lines after them stay as columns until the
//! outputs are written, where the refused competitions' lines are taken out as before.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::Result;

use super::prepare::{PreparedCompetition, StandingLine, StandingTable};
use super::replay::{Adjusted, Failed};
use super::sealed::StandingCodec;
use super::spill::EncodedGroups;

/// The standings of a run that replays as it reads: the lines not yet sealed, and the
/// row groups sealed ahead of them.
#[derive(Debug)]
pub(super) struct StandingGroups<'c> {
    codec: &'c dyn StandingCodec,
    groups: EncodedGroups,
    /// Lines of the table before this one are final (their competitions replayed or
    /// not rated).
    final_end: usize,
    /// The final lines that are not of a refused competition: those a group takes.
    final_kept: usize,
    /// Lines taken off the front of the table so far: a position in `starts` less this
    /// is one in the table.
    base: usize,
    /// Where the lines of each rated competition not yet replayed start, in replay
    /// order (counted from the first line the run took).
    starts: VecDeque<usize>,
    /// The ids of the competitions the model refused.
    refused: FxHashSet<String>,
    /// The handicap tournaments' (expected, adjusted) results by competition id and
    /// entrant name, until their lines are sealed; later entries for the same name
    /// replace earlier ones, as the outputs look them up.
    adjusted: FxHashMap<String, FxHashMap<String, (f64, f64)>>,
    /// The replay's adjusted results and refusals looked at so far.
    seen: (usize, usize),
}

impl<'c> StandingGroups<'c> {
    pub fn new(codec: &'c dyn StandingCodec, groups: EncodedGroups) -> Self {
        StandingGroups {
            codec,
            groups,
            final_end: 0,
            final_kept: 0,
            base: 0,
            starts: VecDeque::new(),
            refused: FxHashSet::default(),
            adjusted: FxHashMap::default(),
            seen: (0, 0),
        }
    }

    /// Lines held as columns at most, besides those of a month not yet replayed.
    pub fn room(&self) -> usize {
        self.codec.rows_per_group().saturating_mul(2)
    }

    /// A rated competition was taken, its lines about to follow those of `table`.
    pub fn rated_taken(&mut self, table: &StandingTable) {
        self.starts.push_back(self.base + table.len());
    }

    /// The `replayed` rated competitions after those replayed before are replayed, with
    /// what the replay gave so far (`so_far`, of `competitions`): their lines, and the
    /// lines of the competitions not rated taken before the next rated one, are final;
    /// the full row groups at the front of `table` are sealed.
    pub fn replayed(
        &mut self,
        table: &mut StandingTable,
        replayed: usize,
        (adjusted, refused): (&[Adjusted], &[Failed]),
        competitions: &[PreparedCompetition],
    ) -> Result<()> {
        for _ in 0..replayed {
            self.starts.pop_front();
        }
        self.learn(adjusted, refused, competitions);
        let end = match self.starts.front() {
            Some(&start) => start.saturating_sub(self.base).min(table.len()),
            None => table.len(),
        };
        let newly = (self.final_end..end).filter(|&i| !self.is_refused(table.line(i)));
        self.final_kept += newly.count();
        self.final_end = self.final_end.max(end);
        let group = self.codec.rows_per_group().max(1);
        while self.final_kept >= group {
            self.seal_one(table, group)?;
        }
        Ok(())
    }

    /// Takes in the adjusted results and refusals the replay gave since the last look.
    fn learn(
        &mut self,
        adjusted: &[Adjusted],
        refused: &[Failed],
        competitions: &[PreparedCompetition],
    ) {
        for a in adjusted.get(self.seen.0..).unwrap_or_default() {
            let Some(c) = competitions.get(a.competition) else {
                continue;
            };
            if let Some(name) = c.entrant_names.get(a.entrant) {
                let of = self.adjusted.entry(c.competition_id.clone()).or_default();
                of.insert(name.to_owned(), (a.expected, a.adjusted));
            }
        }
        for f in refused.get(self.seen.1..).unwrap_or_default() {
            if let Some(c) = competitions.get(f.competition) {
                self.refused.insert(c.competition_id.clone());
            }
        }
        self.seen = (adjusted.len(), refused.len());
    }

    fn is_refused(&self, line: StandingLine<'_>) -> bool {
        !self.refused.is_empty() && self.refused.contains(line.competition_id)
    }

    /// Seals the first `group` final lines that are not of a refused competition, and
    /// drops them (and the refused lines among them) from the front of `table`.
    fn seal_one(&mut self, table: &mut StandingTable, group: usize) -> Result<()> {
        let mut lines = StandingTable::default();
        let mut handicap = Vec::with_capacity(group);
        let mut at = 0;
        while lines.len() < group && at < self.final_end {
            let line = table.line(at);
            at += 1;
            if self.is_refused(line) {
                continue;
            }
            let of = self.adjusted.get(line.competition_id);
            handicap.push(of.and_then(|of| of.get(line.entrant)).copied());
            lines.push(line);
        }
        // The competitions whose lines are all sealed need their results no more.
        let next = (at < table.len()).then(|| table.line(at).competition_id);
        if !self.adjusted.is_empty() {
            let mut before = None;
            for i in 0..at {
                let id = table.line(i).competition_id;
                if Some(id) != next && Some(id) != before {
                    self.adjusted.remove(id);
                }
                before = Some(id);
            }
        }
        *table = table.after(at, self.room());
        self.final_end -= at;
        self.final_kept -= lines.len();
        self.base += at;
        let rows = lines.len();
        let job = self.codec.seal(lines, handicap)?;
        self.groups.push(rows, job)
    }

    /// The sealed groups, once every one is encoded.
    pub fn finish(mut self) -> Result<EncodedGroups> {
        self.groups.finish()?;
        Ok(self.groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CalcMethod, CompetitionInput, FieldKind, ModelError};
    use std::sync::{Arc, Mutex};

    /// A sealed line: its competition, entrant and handicap tournament result.
    type Sealed = (String, String, Option<(f64, f64)>);

    /// Seals a group as the count of its lines, and keeps them.
    #[derive(Debug, Default)]
    struct Lines {
        rows: usize,
        sealed: Arc<Mutex<Vec<Vec<Sealed>>>>,
    }

    impl StandingCodec for Lines {
        fn rows_per_group(&self) -> usize {
            self.rows
        }

        fn seal(
            &self,
            lines: StandingTable,
            handicap: Vec<Option<(f64, f64)>>,
        ) -> Result<super::super::spill::SealJob> {
            let group = lines.iter().zip(handicap);
            let group = group.map(|(l, h)| (l.competition_id.to_owned(), l.entrant.to_owned(), h));
            let text = format!("{} lines", lines.len());
            self.sealed
                .lock()
                .map_err(|_| crate::error::Error::Config("lock".into()))?
                .push(group.collect());
            Ok(Box::new(move || Ok(text.into_bytes())))
        }
    }

    fn line<'a>(competition_id: &'a str, entrant: &'a str) -> StandingLine<'a> {
        StandingLine {
            competition_id,
            entrant,
            score: 1.0,
            percent: None,
            boards_played: 24,
            rank: 1,
            direction: None,
            vp: None,
            house: false,
            rounds: (),
        }
    }

    fn rated(id: &str, names: &[&str]) -> PreparedCompetition {
        PreparedCompetition {
            competition_id: id.into(),
            date: chrono::NaiveDate::default(),
            session: 1,
            handicap_event: false,
            input: CompetitionInput {
                n_boards: 24,
                method: CalcMethod::Topscore,
                kind: FieldKind::Pairs,
                weight_multiplier: 1.0,
                entrants: Vec::new(),
            },
            seats: Vec::new(),
            entrant_names: names.iter().copied().collect(),
            rated_members: Vec::new(),
            split_by_direction: false,
            non_members: Vec::new(),
            origin: Default::default(),
            packed: None,
        }
    }

    /// Groups of three over: `a` rated (2 lines), `b` not rated (2), `c` rated and
    /// refused (2), `d` a rated handicap tournament (3, its second entrant's result
    /// given twice, the later one counting), `e` rated and not yet replayed (2). The
    /// groups sealed are the lines without `c`'s, three at a time, as far as `d`; the
    /// table keeps the rest, `c`'s lines among them for the outputs to take out.
    #[test]
    fn final_lines_are_sealed_a_group_at_a_time_without_the_refused() -> Result<()> {
        let codec = Lines {
            rows: 3,
            ..Lines::default()
        };
        let mut groups = StandingGroups::new(&codec, EncodedGroups::new("standings", None));
        let comps = [
            rated("a", &["1", "2"]),
            rated("c", &["1", "2"]),
            rated("d", &["1", "2", "3"]),
            rated("e", &["1", "2"]),
        ];
        let mut table = StandingTable::default();
        let take = |groups: &mut StandingGroups, table: &mut StandingTable, id, n, rated| {
            if rated {
                groups.rated_taken(table);
            }
            for name in ["1", "2", "3"].into_iter().take(n) {
                table.push(line(id, name));
            }
        };
        take(&mut groups, &mut table, "a", 2, true);
        take(&mut groups, &mut table, "b", 2, false);
        take(&mut groups, &mut table, "c", 2, true);
        take(&mut groups, &mut table, "d", 3, true);
        let refused = [Failed {
            competition: 1,
            error: ModelError::TooFewEntrants { found: 1 },
        }];
        // `a` replayed: its lines and `b`'s are final, a group is sealed.
        groups.replayed(&mut table, 1, (&[], &[]), &comps)?;
        assert_eq!(codec.sealed.lock().map(|s| s.len()).unwrap_or(9), 1);
        assert_eq!(table.len(), 6);
        take(&mut groups, &mut table, "e", 2, true);
        let adjusted = |entrant, expected: f64| Adjusted {
            competition: 2,
            entrant,
            adjusted: 1.5,
            expected,
        };
        let results = [adjusted(1, 10.0), adjusted(0, 20.0), adjusted(1, 30.0)];
        groups.replayed(&mut table, 2, (&results, &refused), &comps)?;
        let sealed = codec.sealed.lock().map(|s| s.clone()).unwrap_or_default();
        let ids: Vec<Vec<(&str, &str)>> = sealed
            .iter()
            .map(|g| g.iter().map(|(c, e, _)| (c.as_str(), e.as_str())).collect())
            .collect();
        assert_eq!(
            ids,
            [
                vec![("a", "1"), ("a", "2"), ("b", "1")],
                vec![("b", "2"), ("d", "1"), ("d", "2")]
            ]
        );
        let handicap: Vec<Option<(f64, f64)>> = sealed[1].iter().map(|l| l.2).collect();
        assert_eq!(handicap, [None, Some((20.0, 1.5)), Some((30.0, 1.5))]);
        let rest: Vec<(&str, &str)> = table
            .iter()
            .map(|l| (l.competition_id, l.entrant))
            .collect();
        assert_eq!(rest, [("d", "3"), ("e", "1"), ("e", "2")]);
        let encoded = groups.finish()?;
        assert_eq!(encoded.rows(), 6);
        let bytes = encoded.bytes().collect::<Result<Vec<_>>>()?;
        assert_eq!(
            bytes.iter().map(|b| b.to_vec()).collect::<Vec<_>>(),
            [b"3 lines".to_vec(), b"3 lines".to_vec()]
        );
        Ok(())
    }
}
