//! One club's month of competitions.
//!
//! Each club spends a budget of player-sessions (its size times the configured rate) on
//! events drawn from the mix. Every event is reported either as board-level rows or as
//! results only; both kinds come from the same hidden strengths, so a model fitted on
//! either should find the same players strong.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{Datelike, NaiveDate};

use crate::dataset::{
    BoardResult, Competition, Dataset, Direction, Entrant, EntrantResult, Format, ScoringMethod,
};
use crate::model::{CalcMethod, FieldKind};
use crate::scoring::conventions::{DatumRounding, DatumTrim, ImpAggregate};
use crate::scoring::draw::{first_round, next_round, DrawEntry};

use super::federation::{Club, Federation};
use super::movements::{mitchell, round_robin, team_rounds, Movement};
use super::play::{deal, play, PlayModel};
use super::rng::Rng;

/// The kinds of event a club runs, in the order of [`super::EventMix`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pairs(ScoringMethod),
    Individual,
    TeamMatches,
    TeamCross,
    SwissCongress,
}

const KINDS: [Kind; 7] = [
    Kind::Pairs(ScoringMethod::Matchpoints),
    Kind::Pairs(ScoringMethod::CrossImps),
    Kind::Pairs(ScoringMethod::Butler),
    Kind::Individual,
    Kind::TeamMatches,
    Kind::TeamCross,
    Kind::SwissCongress,
];

/// The highest session number the data contract allows on one date.
const MAX_SESSION: i32 = 99;

/// Every day of `date`'s month, in order.
fn month_days(date: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    let first = date.with_day(1).unwrap_or(date);
    first
        .iter_days()
        .take_while(move |d| d.month() == first.month())
}

const CLASSES: [&str; 3] = ["championship", "novice", "open"];

pub struct MonthBuilder<'a> {
    fed: &'a Federation,
    club: &'a Club,
    rng: Rng,
    dates: Vec<NaiveDate>,
    next_date: usize,
    sessions: BTreeMap<NaiveDate, i32>,
    /// Set when no day of the month has room for another session.
    full: bool,
    /// Month index from the start of the period (skill and activity depend on it).
    month: u32,
    pub out: Dataset,
}

impl<'a> MonthBuilder<'a> {
    pub fn new(
        fed: &'a Federation,
        club: &'a Club,
        rng: Rng,
        dates: Vec<NaiveDate>,
        month: u32,
    ) -> Self {
        MonthBuilder {
            fed,
            club,
            rng,
            dates,
            next_date: 0,
            sessions: BTreeMap::new(),
            full: false,
            month,
            out: Dataset::default(),
        }
    }

    fn active(&self, person: usize) -> bool {
        self.fed.active(person, self.month)
    }

    /// Runs events until the month's budget of player-sessions is spent.
    pub fn run(mut self, budget: usize) -> Dataset {
        if self.dates.is_empty() {
            return self.out;
        }
        self.next_date = self.rng.below(self.dates.len());
        let mix = self.fed.config.mix.weights();
        let mut left = budget as i64;
        // A bound on attempts keeps a club too small for any event from looping.
        let mut attempts = 0;
        while left > 0 && attempts < 4 * budget + 8 && !self.full {
            attempts += 1;
            let mut index = self.rng.weighted(&mix).min(KINDS.len() - 1);
            // The draw's fallback for rounding is the last kind; a kind weighted 0 (Swiss
            // congresses, when a mix leaves them out) is never run.
            if mix[index] <= 0.0 {
                index = mix.iter().rposition(|w| *w > 0.0).unwrap_or(0);
            }
            let kind = KINDS[index];
            let used = match kind {
                Kind::Pairs(scoring) => self.pairs_event(scoring),
                Kind::Individual => self.individual_event(),
                Kind::TeamMatches => self.team_matches(),
                Kind::TeamCross => self.team_cross(),
                Kind::SwissCongress => self.swiss_congress(),
            };
            left -= used as i64;
        }
        self.out
    }

    /// The date of the next event and its first session number. The club's nights take
    /// turns; a night whose sessions would pass the data contract's 99 gives way to the
    /// next of the club's nights with room, then to any day of the month with room (a
    /// club of thousands of members plays every day). `None` when the month has no room
    /// left: the month's events stop there.
    fn take_date(&mut self, sessions: i32) -> Option<(NaiveDate, i32)> {
        let fits = |taken: &BTreeMap<NaiveDate, i32>, date: &NaiveDate| {
            taken.get(date).copied().unwrap_or(0) + sessions <= MAX_SESSION
        };
        let n = self.dates.len();
        let turn = self.next_date;
        self.next_date += 1;
        let night = (0..n)
            .map(|k| self.dates[(turn + k) % n])
            .find(|d| fits(&self.sessions, d));
        let date = night.or_else(|| {
            let first = self.dates.first()?;
            month_days(*first).find(|d| fits(&self.sessions, d))
        });
        let Some(date) = date else {
            self.full = true;
            return None;
        };
        let entry = self.sessions.entry(date).or_insert(0);
        let first = *entry + 1;
        *entry += sessions;
        Some((date, first))
    }

    fn competition(
        &mut self,
        id: String,
        (date, session): (NaiveDate, i32),
        format: Format,
        scoring: ScoringMethod,
        boards: u32,
        title: &str,
    ) -> Competition {
        let fed = self.fed;
        let cfg = &fed.config;
        let mut c = Competition::new(id, date, format, scoring);
        c.session = session;
        c.boards = Some(boards);
        c.title = Some(format!("{} – {}", self.club.name, title));
        c.club = Some(self.club.name.clone());
        c.conventions = self.club.conventions;
        c.rated = !self.rng.chance(cfg.unrated_share);
        if self.rng.chance(cfg.class_share) {
            c.class = Some(CLASSES[self.rng.below(CLASSES.len())].to_string());
        }
        c
    }

    /// A person not yet in `used`: a non-member, a foreign guest or any member.
    fn substitute(&mut self, used: &HashSet<usize>) -> Option<usize> {
        let fed = self.fed;
        for _ in 0..8 {
            let pool = match self.rng.weighted(&[0.4, 0.15, 0.45]) {
                0 => &fed.non_members,
                1 => &fed.foreign,
                _ => &fed.all_members,
            };
            if pool.is_empty() {
                continue;
            }
            let p = pool[self.rng.below(pool.len())];
            if !used.contains(&p) && self.active(p) {
                return Some(p);
            }
        }
        None
    }

    /// Replaces each player with a substitute at the configured rate.
    fn with_substitutes(&mut self, players: &mut [usize], used: &mut HashSet<usize>) {
        let rate = self.fed.config.substitute_rate;
        for slot in players.iter_mut() {
            if self.rng.chance(rate) {
                if let Some(sub) = self.substitute(used) {
                    used.insert(sub);
                    *slot = sub;
                }
            }
        }
    }

    /// Up to `n` partnerships: the club's own first, then visiting partnerships, then
    /// pairs made up of substitutes. Every player appears once.
    fn partnerships(&mut self, n: usize, used: &mut HashSet<usize>) -> Vec<[usize; 2]> {
        let own = &self.club.partnerships;
        let mut chosen: Vec<[usize; 2]> = sample_distinct(&mut self.rng, own.len(), n)
            .into_iter()
            .filter_map(|i| own.get(i).copied())
            .filter(|p| !used.contains(&p[0]) && !used.contains(&p[1]))
            .filter(|p| self.active(p[0]) && self.active(p[1]))
            .collect();
        for p in &chosen {
            used.extend(p.iter().copied());
        }
        self.mix_partners(&mut chosen);
        let mut tries = 0;
        while chosen.len() < n && tries < 4 * n + 8 {
            tries += 1;
            let all = &self.fed.all_partnerships;
            let visiting = if all.is_empty() || self.rng.chance(0.3) {
                None
            } else {
                all.get(self.rng.below(all.len())).copied()
            };
            let pair = match visiting {
                Some(p)
                    if !used.contains(&p[0])
                        && !used.contains(&p[1])
                        && self.active(p[0])
                        && self.active(p[1]) =>
                {
                    p
                }
                _ => {
                    let Some(a) = self.substitute(used) else {
                        continue;
                    };
                    used.insert(a);
                    let Some(b) = self.substitute(used) else {
                        used.remove(&a);
                        continue;
                    };
                    [a, b]
                }
            };
            used.extend(pair.iter().copied());
            chosen.push(pair);
        }
        for pair in &mut chosen {
            self.with_substitutes(pair, used);
        }
        chosen
    }

    /// In a drifting federation, partnerships are not always regular: each plays
    /// together with the configured chance, and the second players of the others are
    /// shuffled among them. Without drift nothing is drawn, so the sample is unchanged.
    fn mix_partners(&mut self, pairs: &mut [[usize; 2]]) {
        let Some(regular) = self.fed.config.drift.as_ref().map(|d| d.regular_partner) else {
            return;
        };
        let loose: Vec<usize> = (0..pairs.len())
            .filter(|_| !self.rng.chance(regular))
            .collect();
        let mut seconds: Vec<usize> = loose.iter().map(|&i| pairs[i][1]).collect();
        self.rng.shuffle(&mut seconds);
        for (&i, p) in loose.iter().zip(seconds) {
            pairs[i][1] = p;
        }
    }

    fn pair_level(&self, pair: &[usize; 2]) -> f64 {
        (self.fed.level_at(pair[0], self.month) + self.fed.level_at(pair[1], self.month)) / 2.0
    }

    fn pairs_event(&mut self, scoring: ScoringMethod) -> usize {
        let fed = self.fed;
        let cfg = &fed.config;
        let target = self.rng.range(6, 22);
        let cap = (self.club.partnerships.len() + 3).max(3);
        let mut used = HashSet::new();
        let pairs = self.partnerships(target.min(cap), &mut used);
        let n = pairs.len();
        // Three pairs leave one table and a sit-out: every board would be played once,
        // with nothing to compare it with.
        if n < 4 {
            return 1;
        }
        let board_level = self.rng.chance(cfg.board_level_share);
        let handicap = self.rng.chance(cfg.handicap_event_share);
        let two_sessions = self.rng.chance(cfg.double_session_share);
        let sessions = if two_sessions { 2 } else { 1 };
        let Some((date, first_session)) = self.take_date(sessions) else {
            return 0;
        };
        let title = match (scoring, handicap) {
            (_, true) => "handicap pairs",
            (ScoringMethod::Matchpoints, _) => "pairs",
            (ScoringMethod::CrossImps, _) => "IMP pairs",
            _ => "butler pairs",
        };
        for s in 0..sessions {
            let session = first_session + s;
            let id = format!("{}-{}-{}", self.club.code, date.format("%Y%m%d"), session);
            // Big fields play a Mitchell; small ones a complete round robin.
            let (movement, phantom) = if n > 14 {
                let tables = n.div_ceil(2);
                let m = mitchell(tables);
                (m, (n % 2 == 1).then_some(2 * tables - 1))
            } else {
                let m = round_robin(n);
                (m, (n % 2 == 1).then_some(n))
            };
            let mitchell_field = n > 14;
            let per_round = (26.0 / f64::from(movement.rounds)).round().clamp(2.0, 8.0) as u32;
            let boards = movement.board_sets as u32 * per_round;
            let mut comp = self.competition(
                id.clone(),
                (date, session),
                Format::Pairs,
                scoring,
                boards,
                title,
            );
            comp.handicap_event = handicap;
            // Which partnership holds each movement position.
            let seat_of: Vec<Option<usize>> = (0..movement.pairs)
                .map(|p| (Some(p) != phantom && p < n).then_some(p))
                .collect();
            let ns_pairs = mitchell_field.then_some(movement.pairs / 2);
            self.seat_pairs(&id, &pairs, &seat_of, ns_pairs);
            let levels: Vec<Option<f64>> = seat_of
                .iter()
                .map(|w| w.and_then(|i| pairs.get(i)).map(|p| self.pair_level(p)))
                .collect();
            if board_level {
                let movement = match phantom {
                    Some(p) => movement.without_pair(p),
                    None => movement,
                };
                self.board_rows(&id, &movement, per_round, &levels, true);
            } else {
                // With a phantom every pair (in a Mitchell, every N/S pair) sits out once.
                let per_pair = per_round * (movement.rounds - u32::from(phantom.is_some()));
                let entrants: Vec<(String, f64)> = levels
                    .iter()
                    .enumerate()
                    .filter_map(|(pos, l)| l.map(|l| ((pos + 1).to_string(), l)))
                    .collect();
                self.pair_results(&comp, &entrants, per_pair.min(boards));
            }
            self.out.competitions.push(comp);
        }
        2 * n * sessions as usize
    }

    /// The entrants of a pairs movement, numbered by position; in a Mitchell the first
    /// `ns_pairs` positions sit N/S.
    fn seat_pairs(
        &mut self,
        id: &str,
        pairs: &[[usize; 2]],
        seat_of: &[Option<usize>],
        ns_pairs: Option<usize>,
    ) {
        for (pos, who) in seat_of.iter().enumerate() {
            if let Some(i) = who {
                let mut e = Entrant::new(id.to_string(), (pos + 1).to_string());
                e.players[0] = Some(self.fed.id(pairs[*i][0]));
                e.players[1] = Some(self.fed.id(pairs[*i][1]));
                if let Some(ns_pairs) = ns_pairs {
                    e.direction = Some(if pos < ns_pairs {
                        Direction::NS
                    } else {
                        Direction::EW
                    });
                }
                self.out.entrants.push(e);
            }
        }
    }

    /// Board rows of a pairs movement; `levels` is each position's pair strength.
    fn board_rows(
        &mut self,
        id: &str,
        movement: &Movement,
        per_round: u32,
        levels: &[Option<f64>],
        allow_adjusted: bool,
    ) {
        let model = self.fed.config.play.clone();
        for set in 0..movement.board_sets {
            for k in 0..per_round {
                let board = set as u32 * per_round + k + 1;
                let d = deal(&mut self.rng);
                for s in movement.seatings.iter().filter(|s| s.board_set == set) {
                    let (Some(Some(ns)), Some(Some(ew))) = (levels.get(s.ns), levels.get(s.ew))
                    else {
                        continue;
                    };
                    let r = play(&mut self.rng, &model, &d, *ns, *ew, allow_adjusted);
                    self.out.boards.push(BoardResult {
                        competition_id: id.to_string().into(),
                        board,
                        ns: Some((s.ns + 1).to_string().into()),
                        ew: Some((s.ew + 1).to_string().into()),
                        contract: r.contract.map(Into::into),
                        declarer: r.declarer.map(Into::into),
                        tricks: r.tricks,
                        adjusted: r.adjusted.map(Into::into),
                        round: Some(s.round),
                        table: Some(s.table),
                        ..BoardResult::default()
                    });
                }
            }
        }
    }

    /// Reported results of a field scored as one: percentages averaging 50 for
    /// matchpoints, IMP totals summing to zero for IMPs across the field, near zero for
    /// butler. Each entrant's expectation is the model's: its strength against the mean
    /// of the others.
    fn pair_results(&mut self, comp: &Competition, entrants: &[(String, f64)], boards_played: u32) {
        let n = entrants.len();
        if n < 2 {
            return;
        }
        let total: f64 = entrants.iter().map(|e| e.1).sum();
        let b = f64::from(boards_played);
        let individual = comp.format == Format::Individual;
        let factors = &self.fed.config.factors;
        let mut scores: Vec<f64> = entrants
            .iter()
            .map(|(_, level)| {
                let others = (total - level) / (n as f64 - 1.0);
                let gap = others - level;
                match comp.scoring {
                    ScoringMethod::Matchpoints => {
                        let kind = if individual {
                            FieldKind::Individual
                        } else {
                            FieldKind::Pairs
                        };
                        gap / factors.expected_divisor(CalcMethod::Topscore, kind)
                            + 6.0 * self.rng.normal()
                    }
                    _ => b * gap / factors.methods.imp.c_b + 2.0 * b.sqrt() * self.rng.normal(),
                }
            })
            .collect();
        let mean = scores.iter().sum::<f64>() / n as f64;
        for s in &mut scores {
            *s -= mean;
        }
        let (decimals, sum_factor) = match comp.scoring {
            ScoringMethod::Matchpoints => {
                // Keep every percentage inside 5..95 by shrinking towards 50, which keeps
                // the mean at 50.
                let widest = scores.iter().fold(0.0f64, |w, s| w.max(s.abs()));
                if widest > 45.0 {
                    for s in &mut scores {
                        *s *= 45.0 / widest;
                    }
                }
                (100.0, 1.0)
            }
            ScoringMethod::Butler | ScoringMethod::SwissPairs => (1.0, 1.0),
            _ => {
                let comparisons = (n as f64 / 2.0 - 1.0).max(1.0);
                match comp.conventions.imp_aggregate {
                    ImpAggregate::Sum => (10.0, comparisons),
                    ImpAggregate::Average => (100.0, 1.0),
                }
            }
        };
        for ((entrant, _), s) in entrants.iter().zip(scores) {
            let value = match comp.scoring {
                ScoringMethod::Matchpoints => 50.0 + s,
                _ => s * sum_factor,
            };
            self.out.results.push(EntrantResult {
                competition_id: comp.competition_id.clone(),
                entrant: entrant.clone(),
                boards_played,
                score: (value * decimals).round() / decimals,
                opponent: None,
                origin: Default::default(),
            });
        }
    }

    /// A one-day Swiss pairs congress (the Swiss pairs regulations): seven 8-board matches, six of nine
    /// boards for an entry under twelve, every table of a round playing the same boards.
    /// Round 1 is seated at random, later rounds are drawn from the standings so far
    /// (the same draw `bridgehcp draw` gives); an odd entry's last pair is the house
    /// pair. Should the draw find no round without a repeat, the event ends after the
    /// rounds played.
    fn swiss_congress(&mut self) -> usize {
        let fed = self.fed;
        let cfg = &fed.config;
        let target = self.rng.range(8, 27);
        let cap = (self.club.partnerships.len() + 6).max(8);
        let mut used = HashSet::new();
        let pairs = self.partnerships(target.min(cap), &mut used);
        let n = pairs.len();
        if n < 8 {
            return 1;
        }
        let (rounds, per_round) = if n < 12 { (6u32, 9u32) } else { (7, 8) };
        let board_level = self.rng.chance(cfg.board_level_share);
        let Some((date, session)) = self.take_date(1) else {
            return 0;
        };
        let id = format!("{}-{}-{}", self.club.code, date.format("%Y%m%d"), session);
        let mut comp = self.competition(
            id.clone(),
            (date, session),
            Format::Pairs,
            ScoringMethod::SwissPairs,
            rounds * per_round,
            "Swiss pairs congress",
        );
        comp.conventions.datum_trim = DatumTrim::TenPercent;
        comp.conventions.datum_rounding = DatumRounding::None;
        let mut entrants = Vec::with_capacity(n);
        for (i, pair) in pairs.iter().enumerate() {
            let mut e = Entrant::new(id.clone(), (i + 1).to_string());
            e.players[0] = Some(fed.id(pair[0]));
            e.players[1] = Some(fed.id(pair[1]));
            e.house = n % 2 == 1 && i + 1 == n;
            entrants.push(e);
        }
        let levels: Vec<f64> = pairs.iter().map(|p| self.pair_level(p)).collect();
        if board_level {
            let played = self.swiss_rounds(&comp, &entrants, &levels, rounds, per_round);
            comp.boards = Some(played * per_round);
            if played == 0 {
                return 1;
            }
        } else {
            let field: Vec<(String, f64)> = entrants
                .iter()
                .zip(&levels)
                .map(|(e, l)| (e.entrant.clone(), *l))
                .collect();
            self.pair_results(&comp, &field, rounds * per_round);
        }
        self.out.entrants.extend(entrants);
        self.out.competitions.push(comp);
        4 * n
    }

    /// The board rows of a Swiss pairs congress, round by round; returns the rounds
    /// played.
    fn swiss_rounds(
        &mut self,
        comp: &Competition,
        entrants: &[Entrant],
        levels: &[f64],
        rounds: u32,
        per_round: u32,
    ) -> u32 {
        let model = self.fed.config.play.clone();
        let names: Vec<String> = entrants.iter().map(|e| e.entrant.clone()).collect();
        let level_of = |name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .and_then(|i| levels.get(i))
                .copied()
                .unwrap_or(0.0)
        };
        let mut rows: Vec<BoardResult> = Vec::new();
        let mut met: BTreeSet<(String, String)> = BTreeSet::new();
        let mut played = 0;
        for round in 1..=rounds {
            let tables = if round == 1 {
                first_round(&names, self.rng.next_u64())
            } else {
                let Ok(scored) = crate::scoring::score_competition(comp, entrants, &rows) else {
                    break;
                };
                let standings = DrawEntry::from_standings(&scored.standings);
                next_round(&standings, &met)
            };
            let Ok(tables) = tables else {
                break;
            };
            for k in 0..per_round {
                let board = (round - 1) * per_round + k + 1;
                let d = deal(&mut self.rng);
                for t in &tables {
                    let r = play(
                        &mut self.rng,
                        &model,
                        &d,
                        level_of(&t.ns),
                        level_of(&t.ew),
                        false,
                    );
                    rows.push(BoardResult {
                        competition_id: comp.competition_id.as_str().into(),
                        board,
                        ns: Some(t.ns.as_str().into()),
                        ew: Some(t.ew.as_str().into()),
                        contract: r.contract.map(Into::into),
                        declarer: r.declarer.map(Into::into),
                        tricks: r.tricks,
                        adjusted: r.adjusted.map(Into::into),
                        round: Some(round),
                        table: Some(t.table),
                        ..BoardResult::default()
                    });
                }
            }
            for t in &tables {
                met.insert((t.ns.clone(), t.ew.clone()));
            }
            played = round;
        }
        self.out.boards.extend(rows);
        played
    }

    fn individual_event(&mut self) -> usize {
        let fed = self.fed;
        let cfg = &fed.config;
        let tables = self
            .rng
            .range(2, 5)
            .min((self.club.members.len() / 4).max(2));
        let mut used = HashSet::new();
        let mut players: Vec<usize> =
            sample_distinct(&mut self.rng, self.club.members.len(), 4 * tables)
                .into_iter()
                .filter_map(|i| self.club.members.get(i).copied())
                .filter(|&p| self.active(p))
                .collect();
        used.extend(players.iter().copied());
        while players.len() < 4 * tables {
            match self.substitute(&used) {
                Some(p) => {
                    used.insert(p);
                    players.push(p);
                }
                None => break,
            }
        }
        self.with_substitutes(&mut players, &mut used);
        let tables = players.len() / 4;
        if tables < 2 {
            return 1;
        }
        players.truncate(4 * tables);
        let rounds = self.rng.range(6, 8) as u32;
        let per_round = (24.0 / f64::from(rounds)).round().clamp(2.0, 4.0) as u32;
        let boards = rounds * per_round;
        let Some((date, session)) = self.take_date(1) else {
            return 0;
        };
        let id = format!("{}-{}-{}", self.club.code, date.format("%Y%m%d"), session);
        let comp = self.competition(
            id.clone(),
            (date, session),
            Format::Individual,
            ScoringMethod::Matchpoints,
            boards,
            "individual",
        );
        for (i, p) in players.iter().enumerate() {
            let mut e = Entrant::new(id.clone(), (i + 1).to_string());
            e.players[0] = Some(self.fed.id(*p));
            self.out.entrants.push(e);
        }
        if self.rng.chance(cfg.board_level_share) {
            self.individual_boards(&id, &players, rounds, per_round);
        } else {
            let entrants: Vec<(String, f64)> = players
                .iter()
                .enumerate()
                .map(|(i, p)| ((i + 1).to_string(), self.fed.level_at(*p, self.month)))
                .collect();
            self.pair_results(&comp, &entrants, boards);
        }
        self.out.competitions.push(comp);
        players.len()
    }

    /// An individual's board rows: a new seating each round, so that partners change.
    fn individual_boards(&mut self, id: &str, players: &[usize], rounds: u32, per_round: u32) {
        let model = self.fed.config.play.clone();
        let tables = players.len() / 4;
        let mut order: Vec<usize> = (0..players.len()).collect();
        for round in 0..rounds {
            // A new seating each round, so that partners change.
            self.rng.shuffle(&mut order);
            let deals: Vec<_> = (0..per_round).map(|_| deal(&mut self.rng)).collect();
            for t in 0..tables {
                let seat = |k: usize| order[4 * t + k];
                let (n, e, s, w) = (seat(0), seat(1), seat(2), seat(3));
                let ns = (self.fed.level_at(players[n], self.month)
                    + self.fed.level_at(players[s], self.month))
                    / 2.0;
                let ew = (self.fed.level_at(players[e], self.month)
                    + self.fed.level_at(players[w], self.month))
                    / 2.0;
                for (k, d) in deals.iter().enumerate() {
                    let r = play(&mut self.rng, &model, d, ns, ew, true);
                    self.out.boards.push(BoardResult {
                        competition_id: id.into(),
                        board: round * per_round + k as u32 + 1,
                        contract: r.contract.map(Into::into),
                        declarer: r.declarer.map(Into::into),
                        tricks: r.tricks,
                        adjusted: r.adjusted.map(Into::into),
                        north: Some((n + 1).to_string().into()),
                        south: Some((s + 1).to_string().into()),
                        east: Some((e + 1).to_string().into()),
                        west: Some((w + 1).to_string().into()),
                        round: Some(round + 1),
                        table: Some(t as u32 + 1),
                        ..BoardResult::default()
                    });
                }
            }
        }
    }

    /// Up to `n` teams of four: the club's own teams, then teams of substitutes.
    fn teams(&mut self, n: usize, used: &mut HashSet<usize>) -> Vec<[usize; 4]> {
        let own = &self.club.teams;
        let mut teams: Vec<[usize; 4]> = sample_distinct(&mut self.rng, own.len(), n)
            .into_iter()
            .filter_map(|i| own.get(i).copied())
            .filter(|t| t.iter().all(|&p| self.active(p)))
            .collect();
        for t in &teams {
            used.extend(t.iter().copied());
        }
        while teams.len() < n {
            let pairs = self.partnerships(2, used);
            if pairs.len() < 2 {
                break;
            }
            teams.push([pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1]]);
        }
        for t in &mut teams {
            self.with_substitutes(t, used);
        }
        teams
    }

    fn team_matches(&mut self) -> usize {
        let fed = self.fed;
        let cfg = &fed.config;
        let want = self.rng.range(4, 6).min((self.club.teams.len() + 1).max(2));
        let mut used = HashSet::new();
        let teams = self.teams(want, &mut used);
        if teams.len() < 2 {
            return 1;
        }
        let board_level = self.rng.chance(cfg.board_level_share);
        let rounds = team_rounds(teams.len());
        let per_match = if teams.len() >= 5 { 8 } else { 12 };
        let class = self.rng.chance(0.5).then(|| "league".to_string());
        let Some((date, first_session)) = self.take_date(rounds.len() as i32) else {
            return 0;
        };
        let model = cfg.play.clone();
        for (r, matches) in rounds.iter().enumerate() {
            let session = first_session + r as i32;
            for (m, &(a, b)) in matches.iter().enumerate() {
                let id = format!(
                    "{}-{}-{}-M{}",
                    self.club.code,
                    date.format("%Y%m%d"),
                    session,
                    m + 1
                );
                let mut comp = self.competition(
                    id.clone(),
                    (date, session),
                    Format::Teams,
                    ScoringMethod::TeamImps,
                    per_match,
                    &format!("team league round {}", r + 1),
                );
                if comp.class.is_none() {
                    comp.class.clone_from(&class);
                }
                let names = [format!("T{}", a + 1), format!("T{}", b + 1)];
                for (k, t) in [a, b].into_iter().enumerate() {
                    let mut e = Entrant::new(id.clone(), names[k].clone());
                    for (slot, p) in teams[t].iter().enumerate() {
                        e.players[slot] = Some(self.fed.id(*p));
                    }
                    self.out.entrants.push(e);
                }
                let lv = |t: usize, half: usize| {
                    (self.fed.level_at(teams[t][2 * half], self.month)
                        + self.fed.level_at(teams[t][2 * half + 1], self.month))
                        / 2.0
                };
                let (a1, a2, b1, b2) = (lv(a, 0), lv(a, 1), lv(b, 0), lv(b, 1));
                let levels = [a1, a2, b1, b2];
                if board_level {
                    self.match_boards(&id, &names, r as u32 + 1, per_match, levels, &model);
                } else {
                    self.match_results(&id, &names, per_match, levels);
                }
                self.out.competitions.push(comp);
            }
        }
        rounds.iter().map(|r| 8 * r.len()).sum()
    }

    /// A match's board rows: the open room seats A's first pair N/S against B's second
    /// pair, the closed room B's first pair N/S against A's second pair. `levels` are
    /// A's first and second pair's, then B's.
    fn match_boards(
        &mut self,
        id: &str,
        names: &[String; 2],
        round: u32,
        per_match: u32,
        levels: [f64; 4],
        model: &PlayModel,
    ) {
        let [a1, a2, b1, b2] = levels;
        for board in 1..=per_match {
            let d = deal(&mut self.rng);
            for (room, table, ns, ew, ns_lv, ew_lv) in [
                ("open", 1, &names[0], &names[1], a1, b2),
                ("closed", 2, &names[1], &names[0], b1, a2),
            ] {
                let res = play(&mut self.rng, model, &d, ns_lv, ew_lv, false);
                self.out.boards.push(BoardResult {
                    competition_id: id.into(),
                    board,
                    ns: Some(ns.as_str().into()),
                    ew: Some(ew.as_str().into()),
                    contract: res.contract.map(Into::into),
                    declarer: res.declarer.map(Into::into),
                    tricks: res.tricks,
                    round: Some(round),
                    table: Some(table),
                    room: Some(room.to_string().into()),
                    ..BoardResult::default()
                });
            }
        }
    }

    /// A match's reported scores: net IMPs follow the model's expectation for the match;
    /// each team's reported score is the IMPs it won.
    fn match_results(&mut self, id: &str, names: &[String; 2], per_match: u32, levels: [f64; 4]) {
        let [a1, a2, b1, b2] = levels;
        let nb = f64::from(per_match);
        let net = nb * ((b1 + b2) - (a1 + a2)) / self.fed.config.factors.methods.imp.c_b
            + 3.0 * nb.sqrt() * self.rng.normal();
        let base = (1.8 * nb + 2.0 * self.rng.normal()).max(net.abs() / 2.0 + 1.0);
        let won = [
            (base + net / 2.0).round().max(0.0),
            (base - net / 2.0).round().max(0.0),
        ];
        for k in 0..2 {
            self.out.results.push(EntrantResult {
                competition_id: id.to_string(),
                entrant: names[k].clone(),
                boards_played: per_match,
                score: won[k],
                opponent: Some(names[1 - k].clone()),
                origin: Default::default(),
            });
        }
    }

    /// A team event whose pairs are scored across the field: one competition per round,
    /// each team's first pair sits N/S and its second pair E/W, and every table plays the
    /// same boards.
    fn team_cross(&mut self) -> usize {
        let fed = self.fed;
        let cfg = &fed.config;
        let want = 2 * self.rng.range(2, 4);
        let want = want.min((self.club.teams.len() + 2).max(4));
        let mut used = HashSet::new();
        let teams = self.teams(want, &mut used);
        if teams.len() < 2 {
            return 1;
        }
        let board_level = self.rng.chance(cfg.board_level_share);
        let rounds: Vec<Vec<(usize, usize)>> =
            team_rounds(teams.len()).into_iter().take(3).collect();
        let per_round = 8u32;
        let Some((date, first_session)) = self.take_date(rounds.len() as i32) else {
            return 0;
        };
        let model = cfg.play.clone();
        let mut spent = 0;
        for (r, matches) in rounds.iter().enumerate() {
            let session = first_session + r as i32;
            let id = format!("{}-{}-{}", self.club.code, date.format("%Y%m%d"), session);
            let comp = self.competition(
                id.clone(),
                (date, session),
                Format::Teams,
                ScoringMethod::CrossImps,
                per_round,
                &format!("team pairs round {}", r + 1),
            );
            let seated = self.seat_cross(&teams, matches);
            self.cross_entrants(&id, &teams, &seated);
            spent += 2 * seated.len();
            if board_level {
                self.cross_boards(&id, &seated, r as u32 + 1, per_round, &model);
            } else {
                self.cross_results(&id, &seated, per_round);
            }
            self.out.competitions.push(comp);
        }
        spent
    }

    /// Every pair at a table of a round of cross-IMP team pairs: each team's first pair
    /// sits N/S against the other team's second pair.
    fn seat_cross(&self, teams: &[[usize; 4]], matches: &[(usize, usize)]) -> Vec<Seated> {
        let pair_name = |t: usize, half: usize| (2 * t + half + 1).to_string();
        let mut seated: Vec<Seated> = Vec::new();
        for &(a, b) in matches {
            for (home, away) in [(a, b), (b, a)] {
                let lv = |t: usize, half: usize| {
                    (self.fed.level_at(teams[t][2 * half], self.month)
                        + self.fed.level_at(teams[t][2 * half + 1], self.month))
                        / 2.0
                };
                seated.push((
                    pair_name(home, 0),
                    lv(home, 0),
                    pair_name(away, 1),
                    Direction::NS,
                ));
                seated.push((
                    pair_name(away, 1),
                    lv(away, 1),
                    pair_name(home, 0),
                    Direction::EW,
                ));
            }
        }
        seated
    }

    /// The entrants of a round of cross-IMP team pairs, with their team and direction.
    fn cross_entrants(&mut self, id: &str, teams: &[[usize; 4]], seated: &[Seated]) {
        for (name, _, _, dir) in seated {
            let Ok(n) = name.parse::<usize>() else {
                continue;
            };
            let t = (n - 1) / 2;
            let half = (n - 1) % 2;
            let mut e = Entrant::new(id.to_string(), name.clone());
            e.players[0] = Some(self.fed.id(teams[t][2 * half]));
            e.players[1] = Some(self.fed.id(teams[t][2 * half + 1]));
            e.team = Some(format!("T{}", t + 1));
            e.direction = Some(*dir);
            self.out.entrants.push(e);
        }
    }

    /// A round's board rows: every table plays the same boards.
    fn cross_boards(
        &mut self,
        id: &str,
        seated: &[Seated],
        round: u32,
        per_round: u32,
        model: &PlayModel,
    ) {
        let deals: Vec<_> = (0..per_round).map(|_| deal(&mut self.rng)).collect();
        let tables: Vec<&Seated> = seated.iter().filter(|s| s.3 == Direction::NS).collect();
        for (k, d) in deals.iter().enumerate() {
            for (t, ns) in tables.iter().enumerate() {
                let ew_level = seated.iter().find(|s| s.0 == ns.2).map_or(ns.1, |s| s.1);
                let res = play(&mut self.rng, model, d, ns.1, ew_level, false);
                self.out.boards.push(BoardResult {
                    competition_id: id.into(),
                    board: k as u32 + 1,
                    ns: Some(ns.0.as_str().into()),
                    ew: Some(ns.2.as_str().into()),
                    contract: res.contract.map(Into::into),
                    declarer: res.declarer.map(Into::into),
                    tricks: res.tricks,
                    round: Some(round),
                    table: Some(t as u32 + 1),
                    ..BoardResult::default()
                });
            }
        }
    }

    /// A round's reported scores: per direction, IMPs across the field sum to zero.
    fn cross_results(&mut self, id: &str, seated: &[Seated], per_round: u32) {
        for dir in [Direction::NS, Direction::EW] {
            let side: Vec<&Seated> = seated.iter().filter(|s| s.3 == dir).collect();
            let nb = f64::from(per_round);
            let raw: Vec<f64> = side
                .iter()
                .map(|s| {
                    let opp = seated.iter().find(|o| o.0 == s.2).map_or(s.1, |o| o.1);
                    nb * (opp - s.1) / self.fed.config.factors.methods.imp.c_b
                        + 2.0 * nb.sqrt() * self.rng.normal()
                })
                .collect();
            let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
            for (s, x) in side.iter().zip(raw) {
                self.out.results.push(EntrantResult {
                    competition_id: id.to_string(),
                    entrant: s.0.clone(),
                    boards_played: per_round,
                    score: ((x - mean) * 100.0).round() / 100.0,
                    opponent: Some(s.2.clone()),
                    origin: Default::default(),
                });
            }
        }
    }
}

/// A pair at a table of cross-IMP team pairs: its name, level, opponent's name and
/// direction.
type Seated = (String, f64, String, Direction);

/// `k` distinct indices below `len` (all of them, shuffled, when `k ≥ len`), in O(k)
/// expected time when `k` is small against `len` and O(len) otherwise.
fn sample_distinct(rng: &mut Rng, len: usize, k: usize) -> Vec<usize> {
    if 2 * k >= len {
        let mut all: Vec<usize> = (0..len).collect();
        rng.shuffle(&mut all);
        all.truncate(k);
        return all;
    }
    let mut out: Vec<usize> = Vec::with_capacity(k);
    while out.len() < k {
        let i = rng.below(len);
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::SynthConfig;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2024, 11, d).unwrap_or_default()
    }

    /// A club's nights fill up to session 99, then the next night takes the events, then
    /// the other days of the month in order; a month with no room left stops.
    #[test]
    fn sessions_stay_within_the_contract() {
        let config = SynthConfig {
            members: 4,
            clubs: 1,
            months: 1,
            ..SynthConfig::default()
        };
        let fed = Federation::new(&config);
        let club = &fed.clubs[0];
        let nights = vec![day(4), day(11)];
        let mut b = MonthBuilder::new(&fed, club, Rng::new(1), nights, 0);
        assert_eq!(b.take_date(1), Some((day(4), 1)));
        assert_eq!(b.take_date(3), Some((day(11), 1)));
        for _ in 0..48 {
            b.take_date(2);
        }
        // 4 November holds sessions 1 to 49, 11 November 1 to 51.
        assert_eq!(b.take_date(50), Some((day(4), 50)));
        assert_eq!(
            b.take_date(50),
            Some((day(1), 1)),
            "both nights full: 1 November"
        );
        assert_eq!(b.take_date(48), Some((day(11), 52)));
        assert_eq!(b.take_date(99), Some((day(2), 1)));
        for d in 3..=30 {
            if d != 4 && d != 11 {
                assert_eq!(b.take_date(99), Some((day(d), 1)));
            }
        }
        assert_eq!(b.take_date(1), Some((day(1), 51)));
        assert!(!b.full);
        assert_eq!(b.take_date(50), None, "no day has 50 sessions free");
        assert!(b.full);
    }
}
