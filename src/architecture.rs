//! The dependency rule between the top-level modules, checked on the source.
//!
//! The stages only stay usable on their own (the model checked against its
//! worked numbers, scoring against published results, the pipeline without files) if
//! dependencies run one way: `cli → job → {study, site} → report → store → {pipeline,
//! import, synth} → scoring → {dataset, quarantine} → error → model`. The jobs, one per
//! command, sit under the command line so that a test can run a command's whole
//! protocol (locks, recovery, work, write) without parsing flags. The pipeline and the
//! importers sit side by side and may not use each other: the pipeline touches no
//! files, and what an importer checks it checks with `scoring`. The store, which owns
//! the dataset on disk, sits above both: its index hashes competitions the way a run
//! does, and its tables are held to the importers' checks, while neither the pipeline
//! nor an importer ever opens a file of the dataset itself. Rust allows cycles between
//! modules of one crate, so nothing but this test stops one from coming back. It reads
//! every `crate::` path in the code (doc comments and `//` comments left out) and fails
//! on any edge that points up the list, naming the file and the path. Inside a module
//! it fails on a loop between its files (`a.rs` uses `b.rs`, which uses `a.rs`), which
//! would leave no file a reader can understand first. It also keeps the crates that
//! belong at the edges (polars, clap, indicatif) out of the model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules from the bottom up: a module may use only modules listed
/// before it (modules on the same level may not use each other).
const LAYERS: &[&[&str]] = &[
    &["model"],
    &["error"],
    &["dataset", "quarantine"],
    &["scoring"],
    &["pipeline", "import", "synth"],
    &["store"],
    &["report"],
    &["study", "site"],
    &["job", "memory"],
    &["cli"],
];

/// Crates that only the edges may use, and the modules that may use them.
const EDGE_CRATES: &[(&str, &[&str])] = &[
    (
        "polars",
        &["error", "import", "store", "report", "study", "cli"],
    ),
    ("clap", &["cli"]),
    ("indicatif", &["cli"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of each top-level module: `src/NAME.rs` and everything under `src/NAME/`.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for layer in LAYERS {
        for &name in *layer {
            let mut files = Vec::new();
            let file = src().join(format!("{name}.rs"));
            if file.exists() {
                files.push(file);
            }
            rust_files(&src().join(name), &mut files);
            modules.insert(name.to_string(), files);
        }
    }
    modules
}

/// The code of a file without comments (line comments, doc comments, block comments),
/// so that a doc link or an example does not count as a dependency.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after_ident = out.chars().next_back().is_some_and(is_ident);
        let skip = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else if !after_ident && (rest.starts_with("r#\"") || rest.starts_with("r\"")) {
            // A raw string: up to the quote followed by as many `#` as opened it.
            let hashes = rest[1..].chars().take_while(|&c| c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            rest[body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len())
        } else if c == '"' {
            string_end(rest)
        } else if c == '\'' {
            char_literal_end(rest).unwrap_or(1)
        } else {
            0
        };
        if skip > 0 {
            if c == '"' || c == 'r' {
                out.push_str("\"\"");
            }
            rest = &rest[skip..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The length of the string literal at the start of `text`.
fn string_end(text: &str) -> usize {
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return i + 1,
            _ => {}
        }
    }
    text.len()
}

/// The length of the character literal at the start of `text` (`'a'`, `'\''`), or
/// `None` for a lifetime.
fn char_literal_end(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().skip(1);
    match chars.next()? {
        (_, '\\') => {
            chars.next()?;
            chars.find(|&(_, c)| c == '\'').map(|(i, _)| i + 1)
        }
        (_, _) => match chars.next()? {
            (i, '\'') => Some(i + 1),
            _ => None,
        },
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The top-level modules a piece of code names through `crate::`, including the
/// grouped form `crate::{a::X, b}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` (macros) is the crate root too; `foo_crate::` is not ours.
        if before.is_some_and(is_ident) {
            continue;
        }
        let rest_trimmed = rest.trim_start();
        if let Some(group) = rest_trimmed.strip_prefix('{') {
            // Top-level names of a group: split on commas at depth 0.
            let mut depth = 0usize;
            let mut start = 0usize;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.insert(first_ident(&group[start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(first_ident(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(first_ident(rest_trimmed));
        }
    }
    names.remove("");
    names
}

fn first_ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|&c| is_ident(c))
        .collect()
}

/// Names that `lib.rs` re-exports at the crate root, mapped to their module
/// (`crate::Error` is `error`).
fn root_reexports() -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let text = std::fs::read_to_string(src().join("lib.rs")).unwrap_or_default();
    for line in code_of(&text).lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = first_ident(rest);
        if let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) {
            for name in rest[open + 1..close].split(',') {
                map.insert(first_ident(name), module.clone());
            }
        } else if let Some(name) = rest.trim_end_matches(';').rsplit("::").next() {
            map.insert(first_ident(name), module.clone());
        }
    }
    map
}

/// Module → (used module → the first file that uses it).
fn dependencies() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let reexports = root_reexports();
    let mut graph = BTreeMap::new();
    for (module, files) in modules() {
        let mut uses: BTreeMap<String, PathBuf> = BTreeMap::new();
        for file in files {
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => panic!("{}: {e}", file.display()),
            };
            for name in crate_paths(&code_of(&text)) {
                let target = if layer_of(&name).is_some() {
                    name
                } else if let Some(m) = reexports.get(&name) {
                    m.clone()
                } else {
                    continue; // a macro exported at the root, such as `string_enum!`
                };
                if target != module {
                    uses.entry(target).or_insert_with(|| file.clone());
                }
            }
        }
        graph.insert(module, uses);
    }
    graph
}

/// A cycle through `start`, if there is one.
fn cycle_from(
    graph: &BTreeMap<String, BTreeMap<String, PathBuf>>,
    start: &str,
) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeMap<String, PathBuf>>,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let Some(last) = path.last().cloned() else {
            return false;
        };
        for next in graph.get(&last).map(|m| m.keys()).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(graph, start, &mut path, &mut seen).then_some(path)
}

#[test]
fn no_cycle_between_top_level_modules() {
    let graph = dependencies();
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, module) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| {
                    let file = &graph[&w[0]][&w[1]];
                    format!("{} -> {} ({})", w[0], w[1], file.display())
                })
                .collect();
            panic!(
                "a dependency cycle between top-level modules:\n  {}",
                steps.join("\n  ")
            );
        }
    }
}

/// The files of one top-level module as a graph: each child of `src/NAME/` (a file
/// `x.rs` with its folder `x/`) → the siblings it names, through `super::`,
/// `crate::NAME::` or a grandchild's `super::super::`, with the first file that does.
/// `mod.rs`, which declares and re-exports every child, is left out: a loop through it
/// is how a module is put together, not a tangle.
fn file_graph(module: &str) -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let root = src().join(module);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let child_of = |file: &Path| -> Option<(String, usize)> {
        let rel = file.strip_prefix(&root).ok()?;
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let first = parts.first()?.clone();
        (first != "mod").then_some((first, parts.len()))
    };
    let children: BTreeSet<String> = files
        .iter()
        .filter_map(|f| child_of(f))
        .map(|c| c.0)
        .collect();
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for file in &files {
        let Some((child, depth)) = child_of(file) else {
            continue;
        };
        // Paths from the crate root are renamed first, so that `crate::scoring::x` in
        // `report/` is not taken for a sibling `report/scoring.rs`.
        let code = code_of(&std::fs::read_to_string(file).unwrap_or_default())
            .replace("crate::", "crate_root::");
        // `super::` from `x.rs` names a sibling; from `x/y.rs`, `super::super::` does
        // (and `x/mod.rs` counts as `x.rs`).
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let up = if is_mod { depth - 1 } else { depth };
        let sibling_prefix = format!("{}::", vec!["super"; up.max(1)].join("::"));
        let prefixes = [sibling_prefix, format!("crate_root::{module}::")];
        let mut names = BTreeSet::new();
        for prefix in &prefixes {
            let rewritten = code.replace(prefix.as_str(), "crate::");
            names.extend(crate_paths(&rewritten));
        }
        let entry = graph.entry(child.clone()).or_default();
        for name in names {
            if name != child && children.contains(&name) {
                entry.entry(name).or_insert_with(|| file.clone());
            }
        }
    }
    graph
}

#[test]
fn no_loop_between_the_files_of_a_module() {
    let mut loops = Vec::new();
    for layer in LAYERS {
        for &module in *layer {
            let graph = file_graph(module);
            let mut reported = BTreeSet::new();
            for child in graph.keys() {
                let Some(cycle) = cycle_from(&graph, child) else {
                    continue;
                };
                let mut key: Vec<String> = cycle[1..].to_vec();
                key.sort();
                if !reported.insert(key) {
                    continue;
                }
                let steps: Vec<String> = cycle
                    .windows(2)
                    .map(|w| format!("{} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]].display()))
                    .collect();
                loops.push(format!("in {module}:\n  {}", steps.join("\n  ")));
            }
        }
    }
    assert!(
        loops.is_empty(),
        "a loop between the files of a module:\n{}",
        loops.join("\n")
    );
}

#[test]
fn dependencies_run_down_the_layers() {
    let mut wrong = Vec::new();
    for (module, uses) in dependencies() {
        let Some(level) = layer_of(&module) else {
            continue;
        };
        for (used, file) in uses {
            if layer_of(&used).is_some_and(|l| l >= level) {
                wrong.push(format!(
                    "{module} uses {used} ({}); allowed: modules below it in {LAYERS:?}",
                    file.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_top_level_module_is_in_a_layer() {
    let text = std::fs::read_to_string(src().join("lib.rs")).unwrap_or_default();
    for line in code_of(&text).lines() {
        if let Some(rest) = line.trim().strip_prefix("pub mod ") {
            let name = first_ident(rest);
            assert!(
                layer_of(&name).is_some(),
                "module `{name}` is not in the LAYERS of src/architecture.rs"
            );
        }
    }
}

#[test]
fn edge_crates_stay_at_the_edges() {
    let mut wrong = Vec::new();
    for (module, files) in modules() {
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap_or_default());
            for (krate, allowed) in EDGE_CRATES {
                if allowed.contains(&module.as_str()) {
                    continue;
                }
                let named = code.match_indices(krate).any(|(i, _)| {
                    let before = code[..i].chars().next_back();
                    let after = &code[i + krate.len()..];
                    !before.is_some_and(|c| is_ident(c) || c == ':')
                        && (after.starts_with("::") || after.starts_with(';'))
                });
                if named {
                    wrong.push(format!("{} uses {krate}", file.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_model_stands_alone() {
    let graph = dependencies();
    let uses: Vec<String> = graph["model"]
        .iter()
        .map(|(m, f)| format!("{m} ({})", f.display()))
        .collect();
    assert!(
        uses.is_empty(),
        "the model must use nothing else in the crate, found: {}",
        uses.join(", ")
    );
}

#[test]
fn the_parser_reads_grouped_and_plain_paths() {
    let code = code_of(
        "use crate::{dataset::{A, B}, error};\n/// crate::report\nlet x = crate::scoring::f(\"crate::cli\"); // crate::synth\n$crate::import::x; my_crate::pipeline::y;\nlet q = '\"'; fn f<'a>(s: &'a str) { r#\"crate::model\"#; }",
    );
    let names: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(names, ["dataset", "error", "import", "scoring"]);
}
