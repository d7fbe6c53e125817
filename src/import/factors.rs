//! Reading a factor set's file.
//!
//! The model parses factor sets from text ([`FactorSet::from_toml_str`]) and never
//! touches files, so that it stays pure; reading the file an analyst passed with
//! `--factors` is the edge's job, like every other input.

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::FactorSet;

/// Reads and checks a factor set from a TOML file; errors name the file and the key.
pub fn load(path: impl AsRef<Path>) -> Result<FactorSet> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Config(format!(
            "cannot read the factor set file {} (--factors): {e}",
            path.display()
        ))
    })?;
    Ok(FactorSet::from_toml_str(
        &text,
        &path.display().to_string(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::factors::FSB_2007_TOML;

    #[test]
    fn load_reads_a_file_and_names_it_in_errors() {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let good = dir.path().join("copy.toml");
        let bad = dir.path().join("broken.toml");
        let write = |p: &Path, s: &str| {
            if let Err(e) = std::fs::write(p, s) {
                panic!("{e}");
            }
        };
        write(
            &good,
            &FSB_2007_TOML.replace("impact = 480.0", "impact = 960.0"),
        );
        write(&bad, &FSB_2007_TOML.replace("impact = 480.0", ""));
        match load(&good) {
            Ok(f) => assert_eq!(f.impact, 960.0),
            Err(e) => panic!("{e}"),
        }
        let msg = match load(&bad) {
            Err(Error::Config(m)) => m,
            other => panic!("expected a config error, got {other:?}"),
        };
        assert!(
            msg.contains("broken.toml") && msg.contains("impact"),
            "{msg}"
        );
    }
}
