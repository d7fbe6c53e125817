//! Reading the victory-point scale a competition names (`competitions.vp_scale`): a
//! file in the dataset folder, or one of the scales the binary carries from `data/vp/`.

use std::path::Path;
use std::sync::Arc;

use crate::dataset::vp_scale::RoundScale;
use crate::error::{InputError, Location};
use crate::scoring::vp::{abf_swiss_pairs, VpScale};

/// The scale a `competitions.vp_scale` cell names: a file at that path relative to the
/// dataset folder `dir`, or else one of the scales of `data/vp/` by its name (with or
/// without `.csv`), taken up to its blitz.
pub fn resolve(dir: &Path, name: &str) -> Result<Arc<RoundScale>, InputError> {
    let path = dir.join(name);
    if path.is_file() {
        let bytes = crate::import::published::read_export(&path)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            InputError::new(Location::file(&path), "the VP scale is not UTF-8 text")
        })?;
        return RoundScale::parse(&path, &text).map(Arc::new);
    }
    let stem = name.trim_start_matches("data/vp/").trim_end_matches(".csv");
    let boards = match stem {
        "abf_swiss_pairs_8_boards" => Some(8),
        "abf_swiss_pairs_9_boards" => Some(9),
        _ => None,
    };
    if let Some(scale) = boards.map(abf_swiss_pairs).transpose()?.flatten() {
        return from_match_scale(scale).map(Arc::new);
    }
    Err(InputError::new(
        Location::file(dir).column("vp_scale"),
        format!(
            "VP scale `{name}`: no such file in the dataset folder ({}) and no scale of that name in data/vp/ (abf_swiss_pairs_8_boards, abf_swiss_pairs_9_boards)",
            path.display()
        ),
    ))
}

/// A match scale (winner's and loser's VPs per margin, adding to 20) as a round scale.
fn from_match_scale(scale: &VpScale) -> Result<RoundScale, InputError> {
    let rows = (0..=scale.blitz())
        .map(|margin| scale.vp(i32::try_from(margin).unwrap_or(i32::MAX)))
        .collect();
    RoundScale::new(rows).map_err(|rule| InputError::new(Location::default(), rule))
}
