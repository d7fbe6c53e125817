//! Which pages a month could have changed, found without making any page.
//!
//! Summing up every page by what it shows still means building every member's statement
//! and every competition's players each month: five million statement lines and a million
//! standings lines, most of them last month's. What a page shows comes from a few places,
//! and each is summed up once here, where it is cheap to read, so that a page is made
//! only where one of them moved:
//!
//! * **A competition's key**: everything the run and the dataset hold of the competition
//!   itself: its standings rows (every field), its change rows (every field, in the
//!   file's order), what the run says of it (title, club, result unit, date), and where
//!   the dataset was read its row (the dataset's own encoding, every field but where it
//!   was read from) and its entrants' rows (players, printed names, team, direction,
//!   house, and the clubs printed).
//! * **A member's attributes**: what other pages show of a member: the name of
//!   `handicaps.parquet`, whether the member has a page (is on the published ranking),
//!   and the name the dataset's `members` table gives (the clubs' sheets print it).
//!
//! The site's record keeps both, as of the publication that made its pages. A
//! competition is *touched* when its key differs from the recorded one (new, changed, or
//! gone) or when one of its players (of its change rows or its entrants' rows) has
//! attributes other than those recorded. Then, value by value:
//!
//! * A **competition's page** shows its date, title, club and unit, its standings, per
//!   entrant the first change row's pair handicap, expected and achieved results, the
//!   players (member numbers from the entrants' rows or the change rows; their names from
//!   `handicaps.parquet`, else the printed names, else the number; a link where the
//!   member has a page), and the club's sheet (the dataset's row of the competition, the
//!   standings, each entrant's names from its row and the dataset's member names). Every
//!   one of these is in the competition's key or is a player's attribute, so the page is
//!   made only when the competition is touched; its key is what the record keeps for it.
//! * A **member's page** shows the ranking line (name, club, district, handicap, boards),
//!   the confidence figure, the handicap of `handicaps.parquet` and the run's mode
//!   (frozen or live), the year the run ends in, and per change row its competition's
//!   date, title, club, unit, the row's numbers, and the partner (a player of the same
//!   competition: number, name, link). The page's key sums up the first four and the
//!   list of the member's competitions, in order; every other value is of a competition
//!   the member played in, so the page is made when its key moved or one of those
//!   competitions is touched.
//! * A **member's earlier year** shows the member's number and name, the year, and the
//!   lines of that year's competitions: its key sums up those and the year's list of
//!   competitions, and it is made when that moved or one of the year's competitions is
//!   touched. In a frozen run a month's last line takes what the next month's opening
//!   handicap (or the current handicap) says, so there every competition of the member
//!   and the current handicap count for every year.
//!
//! Every page kept was made from the attributes recorded (it was made then, or none of
//! its players' attributes has moved since it was), so comparing with the record is
//! comparing with what the page shows. The templates themselves are covered by the
//! record's version and the check of one page of each kind made again
//! ([`super::write`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::BuildHasher;

use chrono::Datelike;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::data::{Ranked, SiteData, Standing};
use super::digest::{Feed, Record};
use crate::dataset::encoding;
use crate::report::run_tables::{ChangeRow, MemberRow};

/// The keys of a run's pages, and what is touched since the site's record.
#[derive(Default)]
pub struct Keys<'a> {
    competitions: FxHashMap<&'a str, String>,
    members: BTreeMap<i64, String>,
    handicaps: FxHashMap<i64, &'a MemberRow>,
    /// Per member, the key of the list of competitions of their change rows.
    lists: FxHashMap<i64, String>,
    /// The same per member and year.
    year_lists: FxHashMap<(i64, i32), String>,
    /// The competitions touched, the members with a change row in one, and the members
    /// and years with one.
    touched: FxHashSet<&'a str>,
    touched_members: FxHashSet<i64>,
    touched_years: FxHashSet<(i64, i32)>,
    frozen: bool,
    year: Option<i32>,
}

/// `s` to `out`, framed by its length.
fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// A number to `out` by its bits, or the mark of none.
fn put_num(out: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => {
            out.push(1);
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        None => out.push(0),
    }
}

/// An integer to `out`, or the mark of none.
fn put_int(out: &mut Vec<u8>, v: Option<i64>) {
    match v {
        Some(v) => {
            out.push(1);
            out.extend_from_slice(&v.to_le_bytes());
        }
        None => out.push(0),
    }
}

/// Every field of a change row but its competition (the row is fed to its
/// competition's key).
fn row_bytes(out: &mut Vec<u8>, r: &ChangeRow) {
    out.clear();
    put_int(out, Some(i64::from(r.date.num_days_from_ce())));
    put_int(out, Some(r.member_id));
    put_str(out, &r.entrant);
    for v in [r.handicap_before, r.pair_handicap, r.field_handicap] {
        put_num(out, Some(v));
    }
    put_num(out, r.partner_handicap());
    for v in [r.expected, r.achieved, r.delta, r.handicap_after] {
        put_num(out, Some(v));
    }
    put_int(out, Some(i64::from(r.n_b)));
    put_int(out, Some(i64::from(r.n_g)));
    put_str(out, r.status.as_str());
}

/// Every field of a standings row.
fn standing_bytes(out: &mut Vec<u8>, s: &Standing) {
    out.clear();
    put_str(out, &s.entrant);
    put_int(out, s.rank.map(i64::from));
    match &s.direction {
        Some(d) => put_str(out, d),
        None => out.push(0xff),
    }
    for v in [s.score(), s.percent()] {
        put_num(out, v);
    }
    put_int(out, s.boards.map(i64::from));
    for v in [s.handicap_expected(), s.handicap_result(), s.vp()] {
        put_num(out, v);
    }
}

impl<'a> Keys<'a> {
    /// The keys of `data`'s pages, and what is touched since `record` (everything when
    /// the record holds nothing).
    pub fn new(data: &'a SiteData, record: &Record) -> Self {
        // The keys digest different rows: the competitions', the members' lists and the
        // members' attributes are made side by side.
        let (competitions, ((lists, year_lists), members)) = rayon::join(
            || competition_keys(data),
            || rayon::join(|| member_lists(data), || member_attributes(data)),
        );
        let mut keys = Keys {
            competitions,
            members,
            handicaps: data
                .tables
                .members
                .iter()
                .map(|m| (m.member_id, m))
                .collect(),
            lists,
            year_lists,
            frozen: data.tables.frozen,
            year: data.year,
            ..Keys::default()
        };
        keys.touch(data, record);
        keys.touch_members(data);
        keys
    }

    /// The competitions touched since `record`.
    fn touch(&mut self, data: &'a SiteData, record: &Record) {
        let moved: FxHashSet<i64> = {
            let ids: BTreeSet<i64> = (self.members.keys())
                .chain(record.members.keys())
                .copied()
                .collect();
            let moved = |id: &i64| self.members.get(id) != record.members.get(id);
            ids.into_iter().filter(moved).collect()
        };
        for (id, key) in &self.competitions {
            if record.competitions.get(*id) != Some(key) {
                self.touched.insert(id);
            }
        }
        if moved.is_empty() {
            return;
        }
        for row in &data.tables.changes {
            if moved.contains(&row.member_id) {
                self.touched.insert(&row.competition_id);
            }
        }
        let entrants = data.sheets.iter().flat_map(|s| s.entrants.each_players());
        for (competition, players) in entrants {
            if players.iter().flatten().any(|p| moved.contains(p)) {
                // Only a competition with a key can have a page.
                if let Some((id, _)) = self.competitions.get_key_value(competition) {
                    self.touched.insert(id);
                }
            }
        }
    }

    /// The members (and years) with a change row in a touched competition.
    fn touch_members(&mut self, data: &SiteData) {
        for row in &data.tables.changes {
            if self.touched.contains(&*row.competition_id) {
                self.touched_members.insert(row.member_id);
                self.touched_years.insert((row.member_id, row.date.year()));
            }
        }
    }

    /// The key of a member's page, and whether it is touched.
    pub fn member(&self, r: &Ranked, sd: Option<f64>) -> (String, bool) {
        let mut f = Feed::default();
        f.str("member").int(r.member_id).str(&r.name).str(&r.club);
        f.str(&r.district)
            .str(&r.handicap)
            .str(&r.boards)
            .opt_num(sd);
        self.feed_handicap(&mut f, r.member_id);
        f.opt_int(self.year.map(i64::from));
        f.opt_str(self.lists.get(&r.member_id).map(String::as_str));
        let touched = self.touched_members.contains(&r.member_id);
        (f.finish(), touched)
    }

    /// The key of a member's page of an earlier year, and whether it is touched.
    pub fn member_year(&self, r: &Ranked, year: i32) -> (String, bool) {
        let mut f = Feed::default();
        f.str("member year").int(r.member_id).str(&r.name);
        f.int(i64::from(year)).flag(self.frozen);
        let list = self.year_lists.get(&(r.member_id, year));
        f.opt_str(list.map(String::as_str));
        if self.frozen {
            self.feed_handicap(&mut f, r.member_id);
            f.opt_str(self.lists.get(&r.member_id).map(String::as_str));
            return (f.finish(), self.touched_members.contains(&r.member_id));
        }
        (
            f.finish(),
            self.touched_years.contains(&(r.member_id, year)),
        )
    }

    /// What a statement takes from `handicaps.parquet`, and the run's mode.
    fn feed_handicap(&self, f: &mut Feed, member_id: i64) {
        let m = self.handicaps.get(&member_id);
        f.flag(self.frozen).flag(m.is_some());
        if let Some(m) = m {
            f.opt_str(m.name.as_deref()).opt_str(m.club.as_deref());
            f.num(m.handicap);
        }
    }

    /// The key of a competition's page, and whether it is touched.
    pub fn competition(&self, id: &str) -> (String, bool) {
        let key = self.competitions.get(id).cloned().unwrap_or_default();
        (key, self.touched.contains(id))
    }

    /// The record's lines of the competitions' keys and the members' attributes.
    pub fn record(&self) -> Record {
        Record {
            pages: BTreeMap::new(),
            competitions: (self.competitions.iter())
                .map(|(id, key)| (id.to_string(), key.clone()))
                .collect(),
            members: self.members.clone(),
        }
    }
}

/// Per member, and per member and year, a key of the competitions of their change rows.
type Lists = (FxHashMap<i64, String>, FxHashMap<(i64, i32), String>);

/// The keys of the members' lists of competitions, and of each year's.
fn member_lists(data: &SiteData) -> Lists {
    let mut lists: FxHashMap<i64, Feed> = FxHashMap::default();
    let mut years: FxHashMap<(i64, i32), Feed> = FxHashMap::default();
    for row in &data.tables.changes {
        lists
            .entry(row.member_id)
            .or_default()
            .str(&row.competition_id);
        let at = (row.member_id, row.date.year());
        years.entry(at).or_default().str(&row.competition_id);
    }
    (
        lists.into_iter().map(|(k, f)| (k, f.finish())).collect(),
        years.into_iter().map(|(k, f)| (k, f.finish())).collect(),
    )
}

/// Every competition's key (of those with a page, a change row, or a dataset row).
///
/// What the run says of the competitions is fed a shard of them at a time, the shards
/// side by side; a competition's digest is fed in the same order whichever shard feeds
/// it, so the keys do not depend on the shards. The dataset's rows follow, read once.
fn competition_keys(data: &SiteData) -> FxHashMap<&str, String> {
    const SHARDS: u64 = 2;
    let shard_of = |id: &str| rustc_hash::FxBuildHasher.hash_one(id) % SHARDS;
    let mut feeds = (0..SHARDS)
        .into_par_iter()
        .map(|shard| run_feeds(data, |id| shard_of(id) == shard))
        .reduce(FxHashMap::default, |mut all, part| {
            all.extend(part);
            all
        });
    if let Some(source) = &data.sheets {
        for (id, c) in &source.competitions {
            let f = feeds.entry(id).or_default();
            f.str("sheet").bytes(&encoding::competition(c));
        }
        // An entrant row names a competition of the dataset (the reader refuses one that
        // does not), so its competition has a key by now.
        for e in source.entrants.each_row() {
            let Some(f) = feeds.get_mut(e.competition_id.as_str()) else {
                continue;
            };
            f.str("entrant").bytes(&encoding::entrant(&e));
            for club in &e.clubs {
                f.opt_str(club.as_deref());
            }
        }
    }
    feeds
        .into_par_iter()
        .map(|(id, f)| (id, f.finish()))
        .collect()
}

/// The digests, as far as the run's files go, of the competitions `mine` takes: their
/// pages' facts, what the run says of them and their change rows.
fn run_feeds(data: &SiteData, mine: impl Fn(&str) -> bool) -> FxHashMap<&str, Feed> {
    let mut feeds: FxHashMap<&str, Feed> = FxHashMap::default();
    let mut buffer = Vec::with_capacity(256);
    for (id, c) in data.competitions.iter().filter(|(id, _)| mine(id)) {
        let f = feeds.entry(id).or_default();
        f.str("page")
            .opt_int(c.date.map(|d| i64::from(d.num_days_from_ce())));
        f.opt_str(c.title.as_deref())
            .opt_str(c.club.as_deref())
            .flag(c.imps);
        f.int(c.standings.len() as i64);
        for s in &c.standings {
            standing_bytes(&mut buffer, s);
            f.bytes(&buffer);
        }
    }
    for (id, info) in data.tables.competitions.iter().filter(|(id, _)| mine(id)) {
        let f = feeds.entry(id).or_default();
        f.str("info").opt_str(info.title.as_deref());
        f.opt_str(info.club.as_deref()).flag(info.imps);
    }
    for row in data
        .tables
        .changes
        .iter()
        .filter(|r| mine(&r.competition_id))
    {
        row_bytes(&mut buffer, row);
        feeds.entry(&row.competition_id).or_default().bytes(&buffer);
    }
    feeds
}

/// Every member's attributes as other pages show them: the name of `handicaps.parquet`,
/// whether the member has a page, the dataset's name.
fn member_attributes(data: &SiteData) -> BTreeMap<i64, String> {
    let ranked = data.ranked_ids();
    let names: HashMap<i64, &str> = data.tables.names();
    let dataset: HashMap<i64, Option<&str>> = (data.sheets.iter())
        .flat_map(|s| &s.members)
        .map(|m| (m.member_id, m.name.as_deref()))
        .collect();
    let ids: BTreeSet<i64> = (ranked.iter().copied())
        .chain(data.tables.members.iter().map(|m| m.member_id))
        .chain(dataset.keys().copied())
        .collect();
    ids.into_iter()
        .map(|id| {
            let mut f = Feed::default();
            f.opt_str(names.get(&id).copied())
                .flag(ranked.contains(&id));
            f.flag(dataset.contains_key(&id));
            f.opt_str(dataset.get(&id).copied().flatten());
            (id, f.finish())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::run_tables::ChangeStatus;
    use crate::site::data::Competition;
    use chrono::NaiveDate;

    fn row(competition: &str, year: i32, member_id: i64, delta: f64) -> ChangeRow {
        ChangeRow {
            competition_id: competition.into(),
            date: NaiveDate::from_ymd_opt(year, 3, 1).unwrap_or_default(),
            member_id,
            entrant: "1".into(),
            handicap_before: 20.0,
            partner: 22.0,
            has_partner: true,
            pair_handicap: 21.0,
            field_handicap: 21.0,
            expected: 0.0,
            achieved: 1.0,
            n_b: 24,
            n_g: 24,
            delta,
            handicap_after: 20.0 + delta,
            status: ChangeStatus::Member,
        }
    }

    fn ranked(member_id: i64) -> Ranked {
        Ranked {
            rank: member_id.to_string(),
            member_id,
            name: format!("Player {member_id}"),
            club: "BK Syd".to_owned(),
            district: String::new(),
            handicap: "20.00".to_owned(),
            boards: "120".to_owned(),
        }
    }

    /// Members 1 and 2 played c1 in 2026 (the run's year), 3 and 4 played c2 in 2025.
    fn data() -> SiteData {
        let mut data = SiteData {
            ranked: (1..=4).map(ranked).collect(),
            year: Some(2026),
            ..SiteData::default()
        };
        data.tables.changes = vec![
            row("c2", 2025, 3, -0.5),
            row("c2", 2025, 4, -0.5),
            row("c1", 2026, 1, 0.25),
            row("c1", 2026, 2, 0.25),
        ];
        data.tables.members = (1..=4)
            .map(|member_id| MemberRow {
                member_id,
                name: Some(format!("Player {member_id}")),
                club: Some("BK Syd".to_owned()),
                handicap: 20.0,
                boards: 120,
                competitions: 1,
                last_played: None,
            })
            .collect();
        for id in ["c1", "c2"] {
            data.competitions
                .insert(id.to_owned(), Competition::default());
        }
        data
    }

    /// What is touched in `data` since the record of `before`: the competitions, the
    /// members' pages and member 3's page of 2025.
    fn touched(before: &SiteData, data: &SiteData) -> (Vec<&'static str>, Vec<i64>, bool) {
        let record = Keys::new(before, &Record::default()).record();
        let keys = Keys::new(data, &record);
        let competitions = ["c1", "c2"];
        let competitions = competitions.into_iter().filter(|c| keys.competition(c).1);
        let members = data.ranked.iter().filter(|r| keys.member(r, None).1);
        let year = data.ranked.iter().find(|r| r.member_id == 3);
        (
            competitions.collect(),
            members.map(|r| r.member_id).collect(),
            year.is_some_and(|r| keys.member_year(r, 2025).1),
        )
    }

    #[test]
    fn a_page_is_touched_by_what_it_shows_and_by_nothing_else() {
        let before = data();
        assert_eq!(touched(&before, &data()), (vec![], vec![], false));
        // A partner renamed: the competition they played and their partner's page (the
        // partner's own page by its key: its ranking line is unchanged here).
        let mut renamed = data();
        renamed.tables.members[1].name = Some("Bo Lund".to_owned());
        assert_eq!(touched(&before, &renamed), (vec!["c1"], vec![1, 2], false));
        // A member of 2025 off the ranking: no page to link to from 2025's lines.
        let mut unranked = data();
        unranked.ranked.retain(|r| r.member_id != 4);
        assert_eq!(touched(&before, &unranked), (vec!["c2"], vec![3], true));
        // A change row of 2025 corrected: its competition, and the pages and 2025 pages
        // of both its players.
        let mut corrected = data();
        corrected.tables.changes[0].delta = -0.75;
        assert_eq!(touched(&before, &corrected), (vec!["c2"], vec![3, 4], true));
        // A new month's competition: only the members who played it.
        let mut month = data();
        month.tables.changes.push(row("c3", 2026, 2, 0.5));
        month
            .competitions
            .insert("c3".to_owned(), Competition::default());
        assert_eq!(touched(&before, &month), (vec![], vec![2], false));
    }
}
