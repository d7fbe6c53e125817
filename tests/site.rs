//! `bridgehcp publish` on the shipped sample: the site a federation puts online.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test fails loudly by design

mod common;
use common::{bridgehcp, csv_dataset, ok, sample, text};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use bridgehcp::report::run_tables::{read_members, read_text_table};

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The site's record of what its pages are made from (not a page).
const MANIFEST: &str = "site-manifest.tsv";

/// The pages under `site` (every file but the record), by path.
fn pages_of(site: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = files(site);
    out.remove(MANIFEST);
    out
}

/// The count of pages a publication's summary says were made.
fn made(stdout: &str) -> usize {
    let (before, _) = stdout.split_once(" made, ").unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// The `href` values of a page.
fn hrefs(page: &str) -> Vec<String> {
    page.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// `relative` from the page at `from` (both from the site's root), resolved.
fn resolve(from: &str, relative: &str) -> String {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in relative.split('#').next().unwrap_or_default().split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            part => parts.push(part),
        }
    }
    parts.join("/")
}

/// The sample run (with its month's report) and its site, in `dir`.
fn published(dir: &Path) -> (PathBuf, String) {
    let data = sample();
    ok(&bridgehcp(
        &["run", "--data", data.to_str().unwrap(), "--out", "out"],
        dir,
    ));
    ok(&bridgehcp(&["report", "--out-dir", "out"], dir));
    let stdout = ok(&bridgehcp(
        &["publish", "--out-dir", "out", "--site", "site"],
        dir,
    ));
    (dir.join("site"), stdout)
}

#[test]
fn every_published_member_has_a_page_from_the_front_page_with_the_handicap() {
    let dir = tempfile::tempdir().unwrap();
    let (site, stdout) = published(dir.path());
    let pages = pages_of(&site);
    assert!(stdout.contains("0 unchanged, 0 removed"), "{stdout}");
    assert_eq!(made(&stdout), pages.len());
    assert!(
        stdout.contains(&format!("{} written", pages.len())),
        "{stdout}"
    );
    let front = text(&site.join("index.html"));
    let linked: BTreeSet<String> = hrefs(&front).into_iter().collect();
    let (header, rows) = read_text_table(&dir.path().join("out/ranking_published.csv"))
        .unwrap()
        .unwrap();
    let id_at = header.iter().position(|h| h == "member_id").unwrap();
    let handicaps: BTreeMap<i64, f64> = read_members(&dir.path().join("out/handicaps.parquet"))
        .unwrap()
        .into_iter()
        .map(|m| (m.member_id, m.handicap))
        .collect();
    // The sample's published ranking: 297 members (at least 100 rated boards).
    assert_eq!(rows.len(), 297);
    for row in &rows {
        let id: i64 = row[id_at].parse().unwrap();
        let address = format!("members/{id}.html");
        assert!(
            linked.contains(&address),
            "{address} is not linked from the front page"
        );
        let page = text(&site.join(&address));
        let shown = format!("Handicap <strong>{:.2}</strong>", handicaps[&id]);
        assert!(page.contains(&shown), "{address} does not show {shown}");
    }
    // The first line of the sample's ranking, as ranking_published.csv prints it.
    assert!(front.contains("<a href=\"members/100083.html\">Margareta Svensson</a>"));
    let member = text(&site.join("members/100083.html"));
    assert!(member.contains("Handicap <strong>-6.87</strong>"));
    assert!(member.contains("<h2>Partners played with most</h2>"));
    assert!(
        member.contains("<figcaption>The handicap went from 2.05 before 2024-11-14 to -6.87 after")
    );
    // The page lists the last year's competitions and links to each earlier year's page,
    // which lists that year's: the first competition, 2024-11-14, is on the 2024 page.
    assert!(member.contains("<a href=\"../members/100083/2024.html\">2024</a>"));
    assert!(member.contains("<a href=\"../members/100083/2025.html\">2025</a>"));
    assert!(!member.contains("<td>2024-11-14</td>"));
    let year = text(&site.join("members/100083/2024.html"));
    assert!(year.contains("<td>2024-11-14</td>"));
    assert!(year.contains("<a href=\"../../members/100083.html\">Margareta Svensson</a>"));
    assert!(!year.contains("<td>2025-"));
}

#[test]
fn the_site_links_only_to_itself_and_every_link_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let (site, _) = published(dir.path());
    let pages = pages_of(&site);
    assert!(pages.keys().any(|p| p.starts_with("clubs/")));
    assert!(pages.keys().any(|p| p.starts_with("competitions/")));
    assert!(pages.contains_key("clubs/bk-ekbacken.html"));
    assert!(pages.contains_key("competitions/K07-20241114-1.html"));
    assert!(pages.contains_key("report.html"));
    let mut links = 0;
    for (path, bytes) in &pages {
        let page = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "{path} names an outside address"
        );
        assert!(page.contains("<meta name=\"viewport\""), "{path}");
        for href in hrefs(&page) {
            let target = resolve(path, &href);
            assert!(pages.contains_key(&target), "{path}: {href} leads nowhere");
            links += 1;
        }
        if path != "report.html" {
            assert!(
                !page.contains("<th>"),
                "{path}: a table heading without its scope"
            );
        }
    }
    assert!(
        links > pages.len(),
        "{links} links in {} pages",
        pages.len()
    );
    let competition = text(&site.join("competitions/K07-20241114-1.html"));
    assert!(competition.contains("<th scope=\"col\">expected</th>"));
    assert!(competition.contains("../clubs/bk-ekbacken.html"));
}

#[test]
fn publishing_the_same_run_again_writes_nothing_and_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (site, _) = published(dir.path());
    let before = files(&site);
    let pages = pages_of(&site);
    let again = ok(&bridgehcp(
        &["publish", "--out-dir", "out", "--site", "site"],
        dir.path(),
    ));
    assert!(
        again.contains(&format!("0 written, {} unchanged, 0 removed", pages.len())),
        "{again}"
    );
    // Made again: the pages summed up by no digest (the front page, the report, the
    // clubs' and districts' pages, whose ranking tables show ranks any member's move
    // shifts), and one member's page, one member's earlier year and one competition's
    // page, checked against the bytes published before the record is trusted. Every
    // other page is kept unmade.
    let listing = |folder: &str| pages.keys().filter(|p| p.starts_with(folder)).count();
    assert_eq!(
        made(&again),
        2 + listing("clubs/") + listing("districts/") + 3,
        "{again}"
    );
    assert_eq!(files(&site), before);
    // A site made afresh elsewhere is the same bytes, its record included; made with
    // `--quiet`, nothing is printed.
    let quiet = ok(&bridgehcp(
        &["publish", "--out-dir", "out", "--site", "other", "--quiet"],
        dir.path(),
    ));
    assert_eq!(quiet, "");
    assert_eq!(files(&dir.path().join("other")), before);
    // A page changed by hand is put back, and only it is written.
    std::fs::write(site.join("members/100083.html"), "changed").unwrap();
    let third = ok(&bridgehcp(
        &["publish", "--out-dir", "out", "--site", "site"],
        dir.path(),
    ));
    assert!(third.contains("; 1 written,"), "{third}");
    assert_eq!(files(&site), before);
    // A record of another version of the program is not trusted: every page is made.
    let record = site.join(MANIFEST);
    let old = text(&record).replacen("# bridgehcp ", "# bridgehcp 0.0.0-", 1);
    std::fs::write(&record, old).unwrap();
    let fourth = ok(&bridgehcp(
        &["publish", "--out-dir", "out", "--site", "site"],
        dir.path(),
    ));
    assert_eq!(made(&fourth), pages.len(), "{fourth}");
    assert_eq!(files(&site), before);
}

#[test]
fn a_folder_holding_other_files_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let data = sample();
    ok(&bridgehcp(
        &["run", "--data", data.to_str().unwrap(), "--out", "out"],
        dir.path(),
    ));
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/minutes.txt"), "AGM").unwrap();
    let output = bridgehcp(
        &["publish", "--out-dir", "out", "--site", "docs"],
        dir.path(),
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("minutes.txt"), "{stderr}");
    assert_eq!(text(&dir.path().join("docs/minutes.txt")), "AGM");
}

#[test]
fn a_month_published_over_the_last_writes_the_pages_of_those_who_played() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let data = sample();
    let data = data.to_str().unwrap();
    ok(&bridgehcp(
        &[
            "run",
            "--data",
            data,
            "--out",
            "09",
            "--until",
            "2026-09-30",
        ],
        cwd,
    ));
    ok(&bridgehcp(
        &[
            "run",
            "--data",
            data,
            "--out",
            "10",
            "--until",
            "2026-10-31",
            "--state",
            "09",
        ],
        cwd,
    ));
    ok(&bridgehcp(
        &["publish", "--out-dir", "09", "--site", "site"],
        cwd,
    ));
    let september = pages_of(&cwd.join("site"));
    let stdout = ok(&bridgehcp(
        &["publish", "--out-dir", "10", "--site", "site"],
        cwd,
    ));
    let october = pages_of(&cwd.join("site"));
    // The month published over the last is the site October's run makes afresh, to the
    // byte, its record included.
    ok(&bridgehcp(
        &["publish", "--out-dir", "10", "--site", "fresh"],
        cwd,
    ));
    assert_eq!(files(&cwd.join("site")), files(&cwd.join("fresh")));
    // On one worker thread or three, the same bytes.
    for threads in ["1", "3"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
            .args(["publish", "--out-dir", "10", "--site", threads])
            .env("RAYON_NUM_THREADS", threads)
            .current_dir(cwd)
            .output()
            .unwrap();
        ok(&output);
        assert_eq!(files(&cwd.join(threads)), files(&cwd.join("fresh")));
    }
    let changed: BTreeSet<&String> = october
        .iter()
        .filter(|(path, bytes)| september.get(*path) != Some(*bytes))
        .map(|(path, _)| path)
        .collect();
    assert!(
        stdout.contains(&format!(
            "{} written, {} unchanged, 0 removed",
            changed.len(),
            october.len() - changed.len()
        )),
        "{stdout}"
    );
    // The members whose pages changed are the ranked members who played in October, and
    // the competitions written are October's.
    let changes =
        bridgehcp::report::run_tables::read_changes(&cwd.join("10/changes.parquet")).unwrap();
    let october_start = chrono::NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
    let ranked: BTreeSet<i64> = {
        let (header, rows) = read_text_table(&cwd.join("10/ranking_published.csv"))
            .unwrap()
            .unwrap();
        let at = header.iter().position(|h| h == "member_id").unwrap();
        rows.iter().map(|r| r[at].parse().unwrap()).collect()
    };
    let played: BTreeSet<String> = changes
        .iter()
        .filter(|c| c.date >= october_start && ranked.contains(&c.member_id))
        .map(|c| format!("members/{}.html", c.member_id))
        .collect();
    let competitions: BTreeSet<String> = changes
        .iter()
        .filter(|c| c.date >= october_start)
        .map(|c| format!("competitions/{}.html", c.competition_id))
        .collect();
    let members_written: BTreeSet<String> = changed
        .iter()
        .filter(|p| p.starts_with("members/"))
        .map(|p| p.to_string())
        .collect();
    assert_eq!(members_written, played);
    let competitions_written: BTreeSet<String> = changed
        .iter()
        .filter(|p| p.starts_with("competitions/"))
        .map(|p| p.to_string())
        .collect();
    assert!(competitions.is_subset(&competitions_written));
    assert!(competitions_written
        .iter()
        .all(|p| !september.contains_key(p)));
    assert!(
        changed.len() < october.len() / 2,
        "{} of {}",
        changed.len(),
        october.len()
    );
    // Made: the members' and competitions' pages written, the pages summed up by no
    // digest (the front page, the clubs' and districts' pages), and the member's page,
    // member's earlier year and competition's page checked before the record is
    // trusted. No other page was made.
    let listing = |folder: &str| october.keys().filter(|p| p.starts_with(folder)).count();
    let others = 1 + listing("clubs/") + listing("districts/");
    assert_eq!(
        made(&stdout),
        members_written.len() + competitions_written.len() + others + 3,
        "{stdout}"
    );
    // The sample's October: its pages written and made, as a person can count them from
    // the files (the members who played, the month's competitions).
    assert_eq!(
        (members_written.len(), competitions_written.len(), others),
        (272, 26, 1 + 8 + 3),
        "{stdout}"
    );
}

/// Runs `publish` of `out` into `site`, stopped at `point` and killed there.
fn publish_killed_at(point: &str, out: &str, site: &str, cwd: &Path) {
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bridgehcp"))
        .args(["publish", "--out-dir", out, "--site", site])
        .env("BRIDGEHCP_TEST_PAUSE_AT", point)
        .current_dir(cwd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        if line.contains(&format!("paused at {point}")) {
            child.kill().unwrap();
            child.wait().unwrap();
            return;
        }
        seen.push(line);
    }
    child.wait().unwrap();
    panic!("`publish` never paused at {point}: {seen:?}");
}

#[test]
fn a_month_killed_while_it_is_published_is_finished_by_the_next_publish() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let data = sample();
    let data = data.to_str().unwrap();
    let run = |out: &str, until: &str, state: Option<&str>| {
        let mut args = vec!["run", "--data", data, "--out", out, "--until", until];
        args.extend(state.map(|s| ["--state", s]).into_iter().flatten());
        ok(&bridgehcp(&args, cwd));
    };
    run("09", "2026-09-30", None);
    run("10", "2026-10-31", Some("09"));
    ok(&bridgehcp(
        &["publish", "--out-dir", "10", "--site", "fresh"],
        cwd,
    ));
    let october = files(&cwd.join("fresh"));
    ok(&bridgehcp(
        &["publish", "--out-dir", "09", "--site", "site"],
        cwd,
    ));
    let september = files(&cwd.join("site"));
    let site = cwd.join("site");
    let hidden =
        |files: &BTreeMap<String, Vec<u8>>| files.keys().filter(|p| p.contains(".tmp-")).count();
    // Killed with October's pages written beside September's: the site is September's,
    // with hidden files the next publication removes.
    publish_killed_at("written", "10", "site", cwd);
    let killed = files(&site);
    assert!(hidden(&killed) > 0);
    let visible: BTreeMap<String, Vec<u8>> = killed
        .into_iter()
        .filter(|(p, _)| !p.contains(".tmp-"))
        .collect();
    assert_eq!(visible, september);
    // Killed once the first page was renamed into place: the journal lists the rest,
    // and the next publication (of any run) carries it out before its own.
    publish_killed_at("replacing", "10", "site", cwd);
    let journal = text(&site.join("site-journal.tsv"));
    assert!(journal.contains("+\tsite-manifest.tsv\n"), "{journal}");
    assert_ne!(files(&site), september);
    let stdout = ok(&bridgehcp(
        &["publish", "--out-dir", "10", "--site", "site"],
        cwd,
    ));
    assert!(stdout.contains("0 written,"), "{stdout}");
    assert_eq!(files(&site), october);
}

#[test]
fn each_competition_page_holds_the_clubs_result_sheet_as_score_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let (site, _) = published(dir.path());
    let data = sample();
    ok(&bridgehcp(
        &["score", "--data", data.to_str().unwrap(), "--out", "scored"],
        dir.path(),
    ));
    let printed = text(&dir.path().join("scored/results.html"));
    let (mut sheets, mut handicap_events) = (0, 0);
    // A handicap tournament's tables, each with its note (two for a two-winner movement).
    let note = "A handicap tournament";
    let handicap_in_printed = printed.matches(note).count();
    for (path, bytes) in pages_of(&site) {
        if !path.starts_with("competitions/") {
            continue;
        }
        let page = String::from_utf8(bytes).unwrap();
        let (_, rest) = page
            .split_once("<h2>The club's result sheet</h2>")
            .unwrap_or_else(|| panic!("{path} has no result sheet"));
        let (_, rest) = rest.split_once("<div class=\"wide\">").unwrap();
        let (sheet, _) = rest.split_once("</div>").unwrap();
        // The page's tables are those of results.html, their headings a level down and
        // their column headings marked as such.
        let as_printed = sheet
            .replace("<h3>", "<h2>")
            .replace("</h3>", "</h2>")
            .replace("<th scope=\"col\">", "<th>");
        sheets += 1;
        // A handicap tournament's results are from the run's handicaps: `score`, which
        // replays nothing, takes them from the dataset's starting handicaps instead.
        if sheet.contains(note) {
            handicap_events += sheet.matches(note).count();
            continue;
        }
        assert!(printed.contains(&as_printed), "{path}: {sheet}");
    }
    assert_eq!((sheets, handicap_events), (736, handicap_in_printed));
    // The sample's first competition, as BK Ekbacken's program printed it that night.
    let page = text(&site.join("competitions/K07-20241114-1.html"));
    assert!(page.contains(
        "<h3>2024-11-14 — BK Ekbacken – pairs, BK Ekbacken</h3><table><tr><th scope=\"col\">rank</th>"
    ));
    assert!(page.contains(
        "<tr><td class=n>1</td><td>11</td><td>Erik Johansson – Margareta Svensson</td><td class=n>74.15</td><td class=n>74.15</td><td class=n>26</td></tr>"
    ));
}

#[test]
fn two_clubs_at_one_address_stop_the_publication_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    csv_dataset(cwd, b"member_id,name\n1,A\n2,B\n3,C\n4,D\n");
    std::fs::write(
        cwd.join("data/competitions.csv"),
        "competition_id,date,format,scoring,boards,club\n\
         c1,2026-01-05,pairs,matchpoints,24,BK Syd\n\
         c2,2026-01-12,pairs,matchpoints,24,BK-Syd\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("data/entrants.csv"),
        "competition_id,entrant,player1,player2\nc1,1,1,2\nc1,2,3,4\nc2,1,1,2\nc2,2,3,4\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("data/results.csv"),
        "competition_id,entrant,boards_played,score\nc1,1,24,55\nc1,2,24,45\nc2,1,24,48\nc2,2,24,52\n",
    )
    .unwrap();
    ok(&bridgehcp(&["run", "--data", "data", "--out", "out"], cwd));
    let output = bridgehcp(&["publish", "--out-dir", "out", "--site", "site"], cwd);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "club `BK Syd` and club `BK-Syd` would both have the address clubs/bk-syd.html on the site"
        ),
        "{stderr}"
    );
    assert!(!cwd.join("site").exists());
}

/// A Chromium that runs headless, when one is installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let names = [
        "chromium-headless-shell",
        "chromium",
        "chromium-browser",
        "google-chrome",
    ];
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// The page at `address` as the browser holds it once its script has run.
fn dom(browser: &Path, address: &str) -> String {
    let output = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            address,
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The member pages linked from the ranking's rows the filter leaves shown.
fn shown_members(page: &str) -> Vec<String> {
    page.split("<tr data-club=")
        .skip(1)
        .filter(|row| !row.split('>').next().unwrap_or_default().contains("hidden"))
        .filter_map(|row| hrefs(row).into_iter().find(|h| h.starts_with("members/")))
        .collect()
}

#[test]
fn in_a_browser_the_ranking_filters_and_links_lead_to_a_member_and_back() {
    let Some(browser) = chromium() else {
        eprintln!("no Chromium installed (chromium, chromium-headless-shell): the browser test is skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (site, _) = published(dir.path());
    let site = site.canonicalize().unwrap();
    let front = format!("file://{}", site.join("index.html").display());
    // Without a filter the script shows every line and says so.
    let all = dom(&browser, &front);
    assert!(
        all.contains(">297 of 297 shown</output>"),
        "the filter did not run"
    );
    assert_eq!(shown_members(&all).len(), 297);
    // By a club: BK Ekbacken has 28 members on the sample's published ranking.
    let club = dom(&browser, &format!("{front}?club=BK%20Ekbacken"));
    assert!(club.contains(">28 of 297 shown</output>"));
    assert_eq!(shown_members(&club).len(), 28);
    // By a club and a name: one Svensson at BK Ekbacken.
    let named = dom(
        &browser,
        &format!("{front}?club=BK%20Ekbacken&name=svensson"),
    );
    assert_eq!(shown_members(&named), ["members/100083.html"]);
    // The link leads to her page, and its way back to the ranking.
    let member = dom(
        &browser,
        &format!("file://{}", site.join("members/100083.html").display()),
    );
    assert!(member.contains("Handicap <strong>-6.87</strong>"));
    assert!(member.contains("<svg"));
    let back = hrefs(&member)
        .into_iter()
        .find(|h| h.ends_with("index.html"))
        .unwrap();
    assert_eq!(resolve("members/100083.html", &back), "index.html");
}
