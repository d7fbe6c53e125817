//! A run definition: the settings a federation keeps for a run in `pipelines/`, read
//! as TOML, which the command line's flags override.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;

use crate::error::{Error, InputError, Location, Result};
use crate::pipeline::ledger::sha256;
use crate::pipeline::ranking::RankingGroup;
use crate::pipeline::Mode;

/// A run definition kept by a federation in `pipelines/`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDefinition {
    pub description: Option<String>,
    pub data: Option<PathBuf>,
    pub out: Option<PathBuf>,
    pub factors: Option<PathBuf>,
    pub mode: Option<String>,
    pub state: Option<PathBuf>,
    /// Stop at the first error instead of quarantining the competition.
    pub strict: Option<bool>,
    #[serde(default)]
    pub ranking: RankingDefinition,
    /// The published ranking's filters (`ranking_published.csv`).
    #[serde(default)]
    pub published: PublishedDefinition,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedDefinition {
    pub min_boards: Option<u64>,
    pub active_months: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingDefinition {
    pub min_boards: Option<u64>,
    pub active_months: Option<u32>,
    pub as_of: Option<NaiveDate>,
    pub by: Option<String>,
}

impl RunDefinition {
    pub fn load(path: &Path) -> Result<RunDefinition> {
        Self::load_hashed(path).map(|(definition, _)| definition)
    }

    /// The definition and the SHA-256 of its text, for the run's manifest.
    pub fn load_hashed(path: &Path) -> Result<(RunDefinition, String)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let definition = toml::from_str(&text)
            .map_err(|e| Error::Input(InputError::new(Location::file(path), e.to_string())))?;
        Ok((definition, sha256(text.as_bytes())))
    }
}

/// The sample federation: `data/sample` from the working folder, or from the source tree
/// the binary was built from.
pub fn sample_data() -> PathBuf {
    let local = PathBuf::from("data/sample");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample")
}

/// The mode a run definition names (`live` when it names none).
pub fn definition_mode(file: &Path, text: Option<&str>) -> Result<Mode> {
    text.map_or(Ok(Mode::Live), |text| {
        text.parse()
            .map_err(|e| Error::Input(InputError::new(Location::file(file).column("mode"), e)))
    })
}

/// The ranking group a run definition names, if any.
pub fn definition_group(file: &Path, text: Option<&str>) -> Result<Option<RankingGroup>> {
    match text {
        None => Ok(None),
        Some("club") => Ok(Some(RankingGroup::Club)),
        Some("district") => Ok(Some(RankingGroup::District)),
        Some(other) => Err(Error::Input(InputError::new(
            Location::file(file).column("ranking.by"),
            format!("unknown ranking group `{other}` (expected club or district)"),
        ))),
    }
}

/// A path a run definition names that does not exist, as an error that says how paths
/// in the definition are read and which flag overrides it.
pub fn missing_from_definition(
    definition: &Path,
    key: &str,
    flag: &str,
    path: Option<&Path>,
) -> Result<()> {
    let Some(path) = path.filter(|p| !p.exists()) else {
        return Ok(());
    };
    let here = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| ".".into());
    Err(Error::Input(InputError::new(
        Location::file(definition).column(key),
        format!(
            "`{}` does not exist: paths in a run definition are relative to the folder the command runs in ({here}); run it from the folder that holds `{}`, or pass {flag}",
            path.display(),
            path.display()
        ),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline;

    /// The published ranking's defaults are the shipped export definition's filters.
    #[test]
    fn the_published_defaults_are_the_export_definitions() -> Result<()> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/ranking-export.toml");
        let export = RunDefinition::load(&path)?;
        let defaults = pipeline::published_ranking();
        assert_eq!(export.ranking.min_boards, Some(defaults.min_boards));
        assert_eq!(export.ranking.active_months, defaults.active_months);
        assert_eq!(
            (defaults.min_boards, defaults.active_months),
            (100, Some(12))
        );
        Ok(())
    }
}
