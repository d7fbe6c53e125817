//! `bridgehcp import`: club scoring programs' exports to a dataset.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// PBN 2.x (Ruter and other programs), ISO-8859-1 or UTF-8.
    Pbn,
    /// USEBIO 1.2 XML (Compscore and other programs).
    Usebio,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  bridgehcp import pbn results/*.pbn --out fed/\n  \
bridgehcp import usebio monday.xml tuesday.xml --out club/"
)]
pub struct ImportArgs {
    /// The exports' format.
    #[arg(value_enum)]
    pub format: ExportFormat,
    /// Export files; each holds one competition.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Dataset folder to write.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn execute(args: &ImportArgs) -> Result<usize> {
    let mut fragments = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let fragment = match args.format {
            ExportFormat::Pbn => crate::import::pbn::parse(file)?,
            ExportFormat::Usebio => crate::import::usebio::parse(file)?,
        };
        fragments.push(fragment.dataset);
    }
    let dataset = crate::import::merge(fragments)?;
    crate::import::validate::validate(&dataset)?;
    crate::report::write_dataset(&dataset, &args.out)?;
    Ok(dataset.competitions.len())
}
