//! The dataset's competition index with the real binary: a continued run that reads
//! only the last month writes the bytes a run reading everything writes; a correction
//! in an earlier month is still found and replayed; an index that no longer matches
//! the files, or none at all, is not trusted and the run hashes everything as before.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, ok, read};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bridgehcp::store::index::FILE;

/// The files two runs on the same inputs write byte for byte alike (all but
/// `run.json`, whose timings and data path differ).
const OUTPUTS: [&str; 12] = [
    "applied.parquet",
    "board_scores.parquet",
    "changes.parquet",
    "corrections.csv",
    "handicaps.parquet",
    "non_members.csv",
    "quarantine.csv",
    "ranking.csv",
    "ranking.parquet",
    "ranking_published.csv",
    "standings.parquet",
    "unrated.csv",
];

fn same_outputs(a: &Path, b: &Path) {
    for name in OUTPUTS {
        let (x, y) = (a.join(name), b.join(name));
        assert_eq!(x.exists(), y.exists(), "{name}");
        if x.exists() {
            assert!(read(&x) == read(&y), "{name} differs");
        }
    }
}

/// A federation of four months written as `sample --by-month` writes it (with its
/// index), and the month partitions it holds.
fn federation(dir: &Path) -> (PathBuf, Vec<String>) {
    let fed = dir.join("fed");
    ok(&bridgehcp(
        &[
            "sample",
            "--members",
            "120",
            "--months",
            "4",
            "--by-month",
            "--seed",
            "5",
            "--out",
            "fed",
        ],
        dir,
    ));
    let months: BTreeSet<String> = std::fs::read_dir(fed.join("competitions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_prefix("month=").map(str::to_owned))
        .collect();
    assert_eq!(months.len(), 4, "{months:?}");
    assert!(fed.join(FILE).exists());
    (fed, months.into_iter().collect())
}

/// The last day of month `2026-03`.
fn month_end(month: &str) -> String {
    let first = chrono::NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").unwrap();
    let next = first + chrono::Months::new(1);
    (next - chrono::Days::new(1)).to_string()
}

/// A copy of the dataset `from` (its files, not its index) at `to`.
fn copy_without_index(from: &Path, to: &Path) {
    for entry in walk(from) {
        let relative = entry.strip_prefix(from).unwrap();
        if relative == Path::new(FILE) {
            continue;
        }
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// `run --data DATA --out OUT`, with `--until` or `--state`; stdout and stderr.
fn run(dir: &Path, data: &Path, out: &str, extra: &[&str]) -> (String, String) {
    let mut args = vec!["run", "--data", data.to_str().unwrap(), "--out", out];
    args.extend(extra);
    let output = bridgehcp(&args, dir);
    let stdout = ok(&output);
    (stdout, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn continuing_with_the_index_gives_the_bytes_of_a_run_without_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, months) = federation(dir);
    let plain = dir.join("plain");
    copy_without_index(&fed, &plain);
    let until = month_end(&months[2]);
    run(dir, &fed, "state", &["--until", &until]);

    let (indexed, note) = run(dir, &fed, "indexed", &["--state", "state"]);
    assert!(
        indexed.contains("as the dataset's index showed: rows read of 1 of 4 months only"),
        "{indexed}"
    );
    assert!(!note.contains("note:"), "{note}");

    let (hashed, note) = run(dir, &plain, "hashed", &["--state", "state"]);
    assert!(!hashed.contains("index showed"), "{hashed}");
    assert!(
        note.contains(
            "the dataset has no competition_index.parquet, so every competition is read and hashed"
        ),
        "{note}"
    );
    same_outputs(&dir.join("indexed"), &dir.join("hashed"));

    // `bridgehcp index` writes the same index as the writer kept month by month, and
    // the run then reads one month there too.
    let stdout = ok(&bridgehcp(&["index", "plain"], dir));
    assert!(stdout.contains("competitions in"), "{stdout}");
    assert!(read(&plain.join(FILE)) == read(&fed.join(FILE)));
    let (again, _) = run(dir, &plain, "again", &["--state", "state"]);
    assert!(again.contains("rows read of 1 of 4 months only"), "{again}");
    same_outputs(&dir.join("indexed"), &dir.join("again"));
}

/// Swaps two entrants' reported scores in the first competition of `month` that has
/// two different ones, and writes that month again as the importer does (the index
/// kept in the same commit); the competition's id.
fn correct_a_result(fed: &Path, month: &str) -> String {
    let mut dataset = bridgehcp::store::table::read_dataset(fed).unwrap();
    let in_month = |date: chrono::NaiveDate| date.format("%Y-%m").to_string() == month;
    let ids: Vec<String> = dataset
        .competitions
        .iter()
        .filter(|c| in_month(c.date))
        .map(|c| c.competition_id.clone())
        .collect();
    let (id, a, b) = ids
        .iter()
        .find_map(|id| {
            let rows: Vec<usize> = (0..dataset.results.len())
                .filter(|&r| &dataset.results[r].competition_id == id)
                .collect();
            let (&a, rest) = rows.split_first()?;
            let b = *rest
                .iter()
                .find(|&&b| dataset.results[b].score != dataset.results[a].score)?;
            Some((id.clone(), a, b))
        })
        .expect("a competition with reported results");
    let score = dataset.results[a].score;
    dataset.results[a].score = dataset.results[b].score;
    dataset.results[b].score = score;
    bridgehcp::store::writer::write_months(
        &dataset,
        fed,
        &BTreeSet::from([month.to_owned()]),
        false,
        bridgehcp::store::files::Commit::default(),
    )
    .unwrap();
    id
}

#[test]
fn a_correction_in_an_earlier_month_is_found_through_the_index_and_a_stale_index_is_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, months) = federation(dir);
    let until = month_end(&months[2]);
    run(dir, &fed, "state", &["--until", &until]);
    let before = read(&fed.join(FILE));

    let corrected = correct_a_result(&fed, &months[0]);
    assert!(
        read(&fed.join(FILE)) != before,
        "the index follows the data"
    );
    let (indexed, note) = run(dir, &fed, "indexed", &["--state", "state"]);
    assert!(
        indexed.contains("so the whole history was replayed from the start")
            && indexed.contains(&format!("changed: `{corrected}`")),
        "{indexed}"
    );
    assert!(!indexed.contains("index showed"), "{indexed}");
    assert!(!note.contains("note:"), "{note}");

    // The same data with no index, and with the index of the data before the
    // correction: both hashed, the same outputs.
    let plain = dir.join("plain");
    copy_without_index(&fed, &plain);
    let (hashed, _) = run(dir, &plain, "hashed", &["--state", "state"]);
    assert!(
        hashed.contains(&format!("changed: `{corrected}`")),
        "{hashed}"
    );
    same_outputs(&dir.join("indexed"), &dir.join("hashed"));

    let stale = dir.join("stale");
    copy_without_index(&fed, &stale);
    std::fs::write(stale.join(FILE), &before).unwrap();
    let (rehashed, note) = run(dir, &stale, "rehashed", &["--state", "state"]);
    assert!(
        note.contains(&format!(
            "/month={}/part-0.parquet is not the file",
            months[0]
        )) && note.contains("was built from, so every competition is read and hashed"),
        "{note}"
    );
    assert!(
        rehashed.contains(&format!("changed: `{corrected}`")),
        "{rehashed}"
    );
    same_outputs(&dir.join("indexed"), &dir.join("rehashed"));
}

/// A continued run takes the competitions of the months it leaves unread from the
/// index, not from their `competitions` rows. An earlier month's `competitions` file
/// edited after the index was written (a competition moved to another session) makes
/// the index stale: the run reads and hashes every competition and finds the edit.
#[test]
fn an_unread_months_competitions_edited_since_the_index_are_read_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, months) = federation(dir);
    let until = month_end(&months[2]);
    run(dir, &fed, "state", &["--until", &until]);
    let before = read(&fed.join(FILE));

    let mut dataset = bridgehcp::store::table::read_dataset(&fed).unwrap();
    let first = dataset
        .competitions
        .iter_mut()
        .find(|c| c.date.format("%Y-%m").to_string() == months[0])
        .expect("a competition in the first month");
    first.session += 10;
    let moved = first.competition_id.clone();
    bridgehcp::store::writer::write_months(
        &dataset,
        &fed,
        &BTreeSet::from([months[0].clone()]),
        false,
        bridgehcp::store::files::Commit::default(),
    )
    .unwrap();
    std::fs::write(fed.join(FILE), &before).unwrap();

    let (rehashed, note) = run(dir, &fed, "rehashed", &["--state", "state"]);
    assert!(
        note.contains(&format!("competitions/month={}/part-0.parquet", months[0]))
            && note.contains("is not the file competition_index.parquet was built from"),
        "{note}"
    );
    assert!(!rehashed.contains("index showed"), "{rehashed}");
    assert!(
        rehashed.contains("so the whole history was replayed from the start")
            && rehashed.contains(&format!("changed: `{moved}`")),
        "{rehashed}"
    );
}

/// The shipped sample written in month partitions into `dir/fed` (the writer keeps
/// the index), and the sample as read.
fn partitioned(dir: &Path) -> (PathBuf, bridgehcp::dataset::Dataset) {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample");
    let dataset = bridgehcp::store::table::read_dataset(&sample).unwrap_or_else(|e| panic!("{e}"));
    let fed = dir.join("fed");
    bridgehcp::store::writer::write_months(
        &dataset,
        &fed,
        &BTreeSet::new(),
        true,
        bridgehcp::store::files::Commit::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (fed, dataset)
}

#[test]
fn the_index_holds_the_hashes_a_full_read_takes() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (fed, dataset) = partitioned(tmp.path());
    let index = bridgehcp::store::index::load_checked(&fed)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|why| panic!("{why}"));
    // Every competition of the sample, with the hash the run takes of the rows it
    // reads from the partitions, and its rows counted.
    let read = bridgehcp::store::table::read_dataset(&fed).unwrap_or_else(|e| panic!("{e}"));
    let hashes = bridgehcp::pipeline::ledger::competition_hashes(&read);
    assert_eq!(index.competitions.len(), dataset.competitions.len());
    for c in &index.competitions {
        assert_eq!(
            c.sha256.as_ref(),
            hashes.get(&c.competition_id),
            "{}",
            c.competition_id
        );
        let boards = read
            .boards
            .iter()
            .filter(|b| b.competition_id == c.competition_id)
            .count();
        assert_eq!(c.boards, boards as u64);
        assert_eq!(c.month, c.date.format("%Y-%m").to_string());
    }
    // Four tables' files, each month's.
    let months: BTreeSet<&str> = index
        .competitions
        .iter()
        .map(|c| c.month.as_str())
        .collect();
    assert!(index.files.len() >= 2 * months.len());
    // Built from scratch: the same index, the same bytes.
    let before = std::fs::read(fed.join(FILE)).unwrap_or_default();
    assert_eq!(
        bridgehcp::store::index::build(&fed, None).ok().as_ref(),
        Some(&index)
    );
    bridgehcp::store::index::reindex(&fed).unwrap_or_else(|e| panic!("{e}"));
    assert!(std::fs::read(fed.join(FILE)).unwrap_or_default() == before);
}

#[test]
fn an_index_that_does_not_match_its_files_is_not_used() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (fed, _) = partitioned(tmp.path());
    let why = |fed: &Path| match bridgehcp::store::index::load_checked(fed) {
        Ok(Err(why)) => why,
        Ok(Ok(_)) => "used".to_owned(),
        Err(e) => format!("error {e}"),
    };
    let index = fed.join(FILE);
    let good = std::fs::read(&index).unwrap_or_default();

    // A file added to a month.
    let month = std::fs::read_dir(fed.join("boards"))
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.path())
        .next()
        .unwrap_or_else(|| panic!("no board month"));
    let extra = month.join("part-1.parquet");
    std::fs::copy(month.join("part-0.parquet"), &extra).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        why(&fed).contains("data files, the dataset holds"),
        "{}",
        why(&fed)
    );
    std::fs::remove_file(&extra).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(why(&fed), "used");

    // A file whose bytes changed, its size kept.
    let file = month.join("part-0.parquet");
    let bytes = std::fs::read(&file).unwrap_or_default();
    let mut changed = bytes.clone();
    let middle = changed.len() / 2;
    changed[middle] ^= 1;
    std::fs::write(&file, &changed).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        why(&fed)
            .ends_with("part-0.parquet is not the file competition_index.parquet was built from"),
        "{}",
        why(&fed)
    );
    std::fs::write(&file, &bytes).unwrap_or_else(|e| panic!("{e}"));

    // A damaged index, and none.
    std::fs::write(&index, &good[..good.len() / 2]).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        why(&fed).starts_with("competition_index.parquet cannot be read"),
        "{}",
        why(&fed)
    );
    std::fs::remove_file(&index).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(why(&fed), "the dataset has no competition_index.parquet");
}

/// A dataset of one file per table without an index: a continued run reads it whole
/// and hashes it as before, without a note (with an index it would read it whole too).
#[test]
fn a_dataset_in_single_files_is_hashed_without_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let sample = common::sample();
    run(dir, &sample, "sept", &["--until", "2026-09-30"]);
    let (stdout, note) = run(dir, &sample, "oct", &["--state", "sept"]);
    assert!(!stdout.contains("index showed"), "{stdout}");
    assert!(!note.contains(FILE), "{note}");
}

/// `run.json`'s dataset hash (`inputs.data.sha256`).
fn dataset_hash(out: &Path) -> String {
    let manifest: serde_json::Value = serde_json::from_slice(&read(&out.join("run.json"))).unwrap();
    manifest["inputs"]["data"]["sha256"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Each competition's hash in `applied.parquet`, by id.
fn ledger_hashes(out: &Path) -> std::collections::BTreeMap<String, String> {
    use bridgehcp::store::columns::{read_parquet, strs};
    let path = out.join("applied.parquet");
    let df = read_parquet(&path).unwrap();
    let ids = strs(&df, &path, "competition_id").unwrap();
    let hashes = strs(&df, &path, "sha256").unwrap();
    ids.into_iter()
        .zip(hashes)
        .filter_map(|(id, hash)| Some((id?, hash?)))
        .collect()
}

/// A run from scratch on a dataset whose index matches its files takes the
/// competitions' hashes from the index instead of hashing their rows again: the same
/// ledger and dataset hash as a run that hashes every row (no index, or one a flipped
/// byte made stale, which the run says), and, to show where the hash comes from, the
/// hash an index vouches for is the one the ledger records.
#[test]
fn a_run_takes_the_hashes_the_index_vouches_for() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, months) = federation(dir);
    let plain = dir.join("plain");
    copy_without_index(&fed, &plain);

    let (_, note) = run(dir, &fed, "indexed", &[]);
    assert!(!note.contains("note:"), "{note}");
    let (_, note) = run(dir, &plain, "hashed", &[]);
    assert!(!note.contains("note:"), "{note}");
    let (indexed, hashed) = (dir.join("indexed"), dir.join("hashed"));
    same_outputs(&indexed, &hashed);
    assert!(read(&indexed.join("applied.parquet")) == read(&hashed.join("applied.parquet")));
    assert_eq!(dataset_hash(&indexed), dataset_hash(&hashed));
    assert_eq!(dataset_hash(&indexed).len(), 64);
    let applied = ledger_hashes(&indexed);
    assert!(applied.len() > 20, "{}", applied.len());

    // One bit of the writer's name in a boards file's footer flipped: the rows read
    // the same, but the index no longer vouches for the file; the run says so and
    // hashes every competition, to the same ledger.
    let stale = dir.join("stale");
    copy_without_index(&fed, &stale);
    std::fs::copy(fed.join(FILE), stale.join(FILE)).unwrap();
    let relative = format!("boards/month={}/part-0.parquet", months[1]);
    let file = stale.join(&relative);
    let mut bytes = read(&file);
    let at = bytes
        .windows(6)
        .rposition(|w| w == b"Polars")
        .expect("the writer's name in the footer");
    bytes[at] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let (_, note) = run(dir, &stale, "stale-out", &[]);
    assert!(
        note.contains(&format!(
            "note: {relative} is not the file competition_index.parquet was built from, so every competition's rows are hashed for the ledger"
        )),
        "{note}"
    );
    let stale_out = dir.join("stale-out");
    same_outputs(&indexed, &stale_out);
    assert_eq!(dataset_hash(&stale_out), dataset_hash(&hashed));

    // An index whose files match but which says another hash for one competition:
    // the run records the index's hash, so it did not hash that competition's rows.
    use bridgehcp::store::index as dataset_index;
    let vouching = dir.join("vouching");
    copy_without_index(&fed, &vouching);
    let mut index = dataset_index::load_checked(&fed).unwrap().unwrap();
    let (id, real) = applied.iter().next().unwrap();
    let listed = index
        .competitions
        .iter_mut()
        .find(|c| &c.competition_id == id)
        .unwrap();
    assert_eq!(listed.sha256.as_ref(), Some(real));
    let vouched = "ab".repeat(32);
    listed.sha256 = Some(vouched.clone());
    dataset_index::write(&vouching, &index).unwrap();
    run(dir, &vouching, "vouched-out", &[]);
    let taken = ledger_hashes(&dir.join("vouched-out"));
    assert_eq!(taken[id], vouched);
    assert_eq!(taken.len(), applied.len());
    assert_eq!(
        taken
            .iter()
            .filter(|(other, hash)| applied[*other] != **hash)
            .count(),
        1
    );
    assert_ne!(
        dataset_hash(&dir.join("vouched-out")),
        dataset_hash(&hashed)
    );
}

/// A writer refreshing the index of the next version takes the digests of the files
/// it kept (hard links) from the version before's index, but not of a file edited in
/// place after that index was written: the refreshed index still matches its files.
#[test]
fn a_refreshed_index_hashes_again_a_kept_file_edited_since() {
    use bridgehcp::store::index as dataset_index;
    let tmp = tempfile::tempdir().unwrap();
    let (fed, _) = partitioned(tmp.path());
    let before = dataset_index::load_checked(&fed).unwrap().unwrap();

    let next = tmp.path().join("next");
    std::fs::create_dir(&next).unwrap();
    let no_index = |relative: &Path| relative == Path::new(FILE);
    bridgehcp::store::commit::link_tree(&fed, &next, &no_index).unwrap();
    dataset_index::refresh(&next, &fed).unwrap();
    assert_eq!(dataset_index::load_checked(&next).unwrap().unwrap(), before);

    // One bit of the writer's name flipped in a kept file, through its other link.
    let month = std::fs::read_dir(fed.join("boards"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .unwrap();
    let file = month.join("part-0.parquet");
    let mut bytes = read(&file);
    let at = bytes.windows(6).rposition(|w| w == b"Polars").unwrap();
    bytes[at] ^= 0x20;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes))
        .unwrap();
    let kept = next.join(file.strip_prefix(&fed).unwrap());
    assert!(read(&kept) == bytes, "the same file under both names");
    dataset_index::refresh(&next, &fed).unwrap();
    let refreshed = dataset_index::load_checked(&next).unwrap().unwrap();
    assert_ne!(refreshed.files, before.files);
    assert_eq!(refreshed.competitions, before.competitions);
}

/// A federation of four months written as `sample` writes it without `--by-month`
/// (one file per table, with its index), and its months.
fn one_file_federation(dir: &Path) -> (PathBuf, Vec<String>) {
    let fed = dir.join("one");
    ok(&bridgehcp(
        &[
            "sample",
            "--members",
            "120",
            "--months",
            "4",
            "--seed",
            "5",
            "--out",
            "one",
        ],
        dir,
    ));
    let dataset = bridgehcp::store::table::read_dataset(&fed).unwrap();
    let months: BTreeSet<String> = dataset
        .competitions
        .iter()
        .map(|c| c.date.format("%Y-%m").to_string())
        .collect();
    assert_eq!(months.len(), 4, "{months:?}");
    (fed, months.into_iter().collect())
}

/// `sample` without `--by-month` writes the index of its one file per table, which a
/// run trusts: it takes the competitions' hashes from the index (an index saying
/// another hash for one competition puts that hash in the ledger) and writes the
/// bytes of a run of the same files without the index. `bridgehcp index` builds the
/// same index for them.
#[test]
fn a_one_file_sample_has_an_index_whose_hashes_a_run_takes() {
    use bridgehcp::store::index as dataset_index;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, _) = one_file_federation(dir);
    let index = dataset_index::load_checked(&fed).unwrap().unwrap();
    let files: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        files,
        [
            "competitions.parquet",
            "entrants.parquet",
            "results.parquet",
            "boards.parquet"
        ]
    );
    let plain = dir.join("plain");
    copy_without_index(&fed, &plain);

    let (_, note) = run(dir, &fed, "indexed", &[]);
    assert!(!note.contains("note:"), "{note}");
    let (_, note) = run(dir, &plain, "hashed", &[]);
    assert!(!note.contains("note:"), "{note}");
    let (indexed, hashed) = (dir.join("indexed"), dir.join("hashed"));
    same_outputs(&indexed, &hashed);
    assert_eq!(dataset_hash(&indexed), dataset_hash(&hashed));
    let applied = ledger_hashes(&indexed);
    assert!(applied.len() > 20, "{}", applied.len());
    // Every competition the ledger hashed is in the index, in the month of its date,
    // with that hash.
    for (id, hash) in &applied {
        let listed = index
            .competitions
            .iter()
            .find(|c| &c.competition_id == id)
            .unwrap();
        assert_eq!(listed.sha256.as_ref(), Some(hash), "{id}");
        assert_eq!(listed.month, listed.date.format("%Y-%m").to_string());
    }

    let vouching = dir.join("vouching");
    copy_without_index(&fed, &vouching);
    let mut changed = index.clone();
    let (id, _) = applied.iter().next().unwrap();
    let listed = changed
        .competitions
        .iter_mut()
        .find(|c| &c.competition_id == id)
        .unwrap();
    let vouched = "cd".repeat(32);
    listed.sha256 = Some(vouched.clone());
    dataset_index::write(&vouching, &changed).unwrap();
    run(dir, &vouching, "vouched-out", &[]);
    let taken = ledger_hashes(&dir.join("vouched-out"));
    assert_eq!(taken[id], vouched);
    assert_eq!(
        taken
            .iter()
            .filter(|(other, hash)| applied[*other] != **hash)
            .count(),
        1
    );

    let stdout = ok(&bridgehcp(&["index", "plain"], dir));
    assert!(
        stdout.contains(&format!("{} competitions in", index.competitions.len())),
        "{stdout}"
    );
    assert!(read(&plain.join(FILE)) == read(&fed.join(FILE)));
}

/// One bit of the writer's name in the footer of `boards.parquet` flipped after the
/// index was written: the rows read the same, but the index no longer vouches for the
/// file; a run says so, as for a month partition, and hashes every competition.
#[test]
fn a_one_file_index_whose_boards_file_changed_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, _) = one_file_federation(dir);
    run(dir, &fed, "indexed", &[]);
    let file = fed.join("boards.parquet");
    let mut bytes = read(&file);
    let at = bytes
        .windows(6)
        .rposition(|w| w == b"Polars")
        .expect("the writer's name in the footer");
    bytes[at] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let (_, note) = run(dir, &fed, "stale-out", &[]);
    assert!(
        note.contains(
            "note: boards.parquet is not the file competition_index.parquet was built from, so every competition's rows are hashed for the ledger; `bridgehcp index "
        ),
        "{note}"
    );
    same_outputs(&dir.join("indexed"), &dir.join("stale-out"));
}

/// A continued run on a dataset of one file per table reads it whole (no month can be
/// read alone) with the index's hashes: the bytes of the same run without the index.
/// A board row changed in an earlier month, with the index of the files before, makes
/// the index stale: the run says so, hashes every competition and finds the change.
#[test]
fn a_continued_run_on_one_file_per_table_reads_it_whole_and_finds_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, months) = one_file_federation(dir);
    run(dir, &fed, "state", &["--until", &month_end(&months[2])]);
    let (indexed, note) = run(dir, &fed, "indexed", &["--state", "state"]);
    assert!(!indexed.contains("index showed"), "{indexed}");
    assert!(!note.contains("note:"), "{note}");
    let plain = dir.join("plain");
    copy_without_index(&fed, &plain);
    let (hashed, _) = run(dir, &plain, "hashed", &["--state", "state"]);
    assert!(!hashed.contains("replayed from the start"), "{hashed}");
    same_outputs(&dir.join("indexed"), &dir.join("hashed"));

    let mut dataset = bridgehcp::store::table::read_dataset(&fed).unwrap();
    let first = dataset
        .competitions
        .iter()
        .find(|c| {
            c.date.format("%Y-%m").to_string() == months[0]
                && dataset
                    .boards
                    .iter()
                    .any(|b| *b.competition_id == *c.competition_id)
        })
        .expect("a competition with board rows in the first month")
        .competition_id
        .clone();
    let row = dataset
        .boards
        .iter_mut()
        .find(|b| *b.competition_id == *first)
        .unwrap();
    row.table = Some(row.table.unwrap_or(0) + 50);
    let edited = dir.join("edited");
    bridgehcp::store::write_dataset(&dataset, &edited).unwrap();
    // Only the boards file is the edited one.
    for name in [
        "competitions.parquet",
        "entrants.parquet",
        "results.parquet",
        FILE,
    ] {
        std::fs::copy(fed.join(name), edited.join(name)).unwrap();
    }
    let (rehashed, note) = run(dir, &edited, "rehashed", &["--state", "state"]);
    assert!(
        note.contains("note: boards.parquet is not the file competition_index.parquet was built from, so every competition is read and hashed"),
        "{note}"
    );
    assert!(
        rehashed.contains("so the whole history was replayed from the start")
            && rehashed.contains(&format!("changed: `{first}`")),
        "{rehashed}"
    );
}

/// An index is of one layout: tables in month partitions beside a table in one file
/// have none, and `bridgehcp index` says why.
#[test]
fn a_mix_of_layouts_has_no_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (fed, _) = partitioned(dir);
    let boards = bridgehcp::store::table::read_dataset(&fed).unwrap();
    std::fs::remove_dir_all(fed.join("boards")).unwrap();
    let only_boards = bridgehcp::dataset::Dataset {
        boards: boards.boards,
        ..Default::default()
    };
    let single = dir.join("single");
    bridgehcp::store::write_dataset(&only_boards, &single).unwrap();
    std::fs::copy(single.join("boards.parquet"), fed.join("boards.parquet")).unwrap();
    let output = bridgehcp(&["index", "fed"], dir);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no index can be built: competitions/month=")
            && stderr.contains("is in month partitions but boards.parquet is one file: an index needs every table in month partitions, or every table in one file"),
        "{stderr}"
    );
}

/// `index` writes only beside a dataset's tables: before, `index DIR` wrote an empty
/// index into any folder (even `/etc`) and exited 0.
#[test]
fn index_refuses_a_folder_that_is_not_a_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("notes.txt"), "x").unwrap();
    let output = bridgehcp(&["index", "home"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("home is not a dataset folder: it holds no `members`, `competitions`, `entrants` table (members.parquet, members.csv or a folder members/; competitions.parquet, competitions.csv or a folder competitions/; entrants.parquet, entrants.csv or a folder entrants/), as every dataset does; nothing was written"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["notes.txt"]);
    let output = bridgehcp(&["index", "nowhere"], dir.path());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("nowhere: no such dataset folder"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!dir.path().join("nowhere").exists());
}
