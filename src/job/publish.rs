//! `publish`: the federation's static site, from a run's folder.

use std::path::PathBuf;

use crate::error::Result;
use crate::scoring::progress::Progress;
use crate::site::{self, Summary};

/// Which run is published, from which dataset, into which folder.
#[derive(Debug, Clone)]
pub struct PublishPlan {
    /// The run's output folder.
    pub out_dir: PathBuf,
    /// The dataset (`None`: the one the run's `run.json` names).
    pub data: Option<PathBuf>,
    /// The site's folder, replaced whole.
    pub site: PathBuf,
    /// The federation's name on the front page.
    pub title: String,
}

/// Makes the site and writes it: the run folder (and the dataset, when named) held
/// shared while they are read, the site's folder exclusively while it is replaced.
/// `progress` hears of each stage and of the pages as they are made.
pub fn execute(plan: &PublishPlan, progress: &dyn Progress) -> Result<Summary> {
    let mut folders = super::Folders::new().read_run(&plan.out_dir)?;
    if let Some(data) = &plan.data {
        folders = folders.read_dataset(data)?;
    }
    let _locks = folders.write_into(&plan.site).lock()?;
    site::publish(
        &plan.out_dir,
        plan.data.as_deref(),
        &plan.site,
        &plan.title,
        super::hooks::test_commit(),
        progress,
    )
}
