//! How well two runs agree: for every (algorithm, workload) both measured, is
//! the second run's headline median inside the first run's interval, or within
//! [`AGREEMENT_TOLERANCE`] of its median?
//!
//! This is the reproducibility check the README quotes (`timerbench agreement
//! BASE NEW`): two default runs of the same commit on a quiet machine should
//! agree on at least 90% of cells. It reads only the `all` rows of each run's
//! `throughput.csv`, checking their schema version, and refuses runs that are
//! not comparable (another seed, scale or driver).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::output::{METADATA_FILE, SCHEMA_VERSION, THROUGHPUT_FILE};

/// How far a median may stray from the other run's and still agree, when it is
/// outside that run's interval.
pub const AGREEMENT_TOLERANCE: f64 = 0.10;

/// The columns of an `all` row that the check needs.
#[derive(Debug, Deserialize)]
struct HeadlineRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    operation: String,
    median_ns: Option<f64>,
    ci_low_ns: Option<f64>,
    ci_high_ns: Option<f64>,
}

/// The settings two runs must share to be compared.
#[derive(Debug, Deserialize, PartialEq)]
struct RunSettings {
    seed: u64,
    scale: String,
    driver: String,
}

/// One cell's agreement.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// The algorithm.
    pub algorithm: String,
    /// The workload.
    pub workload: String,
    /// The first run's median and interval.
    pub base: (f64, f64, f64),
    /// The second run's median.
    pub new: f64,
    /// Whether they agree.
    pub agrees: bool,
}

/// Whether `new` agrees with a first run's `median` and interval `low..=high`.
pub fn agrees(median: f64, low: f64, high: f64, new: f64) -> bool {
    (low..=high).contains(&new) || (new / median - 1.0).abs() <= AGREEMENT_TOLERANCE
}

/// Every cell measured in both runs, with its agreement.
pub fn agreement(base: &Path, new: &Path) -> Result<Vec<Agreement>> {
    let (base_settings, new_settings) = (settings(base)?, settings(new)?);
    if base_settings != new_settings {
        bail!(
            "the runs are not comparable: {} has seed {}, scale {}, driver {}, and {} has seed {}, scale {}, driver {}",
            base.display(),
            base_settings.seed,
            base_settings.scale,
            base_settings.driver,
            new.display(),
            new_settings.seed,
            new_settings.scale,
            new_settings.driver
        );
    }
    let base_rows = headlines(base)?;
    let new_rows = headlines(new)?;
    let mut cells = Vec::new();
    for (key, &(median, low, high)) in &base_rows {
        if let Some(&(new_median, _, _)) = new_rows.get(key) {
            cells.push(Agreement {
                algorithm: key.0.clone(),
                workload: key.1.clone(),
                base: (median, low, high),
                new: new_median,
                agrees: agrees(median, low, high, new_median),
            });
        }
    }
    Ok(cells)
}

fn settings(dir: &Path) -> Result<RunSettings> {
    read_metadata(dir, "seed, scale and driver")
}

/// The fields `T` reads of `dir`'s `metadata.json`; `fields` names them for
/// the error when they are missing.
pub(crate) fn read_metadata<T: DeserializeOwned>(dir: &Path, fields: &str) -> Result<T> {
    let path = dir.join(METADATA_FILE);
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} has no {fields}: not a timerbench run", path.display()))
}

/// Calls `keep` with every row of the CSV file `path`, read as `T` (`what`
/// names the kind of row for errors), after checking each row's schema
/// version (`version` reads it) against the one this timerbench writes.
pub(crate) fn read_rows<T: DeserializeOwned>(
    path: &Path,
    what: &str,
    version: fn(&T) -> u32,
    mut keep: impl FnMut(T),
) -> Result<()> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    for (line, row) in reader.deserialize::<T>().enumerate() {
        let row = row.with_context(|| {
            format!(
                "{} line {}: not a schema {SCHEMA_VERSION} {what} row",
                path.display(),
                line + 2
            )
        })?;
        if version(&row) != SCHEMA_VERSION {
            bail!(
                "{} line {}: schema_version {} where this timerbench reads {SCHEMA_VERSION}",
                path.display(),
                line + 2,
                version(&row)
            );
        }
        keep(row);
    }
    Ok(())
}

/// (algorithm, workload) -> (median, interval low, interval high).
type Headlines = BTreeMap<(String, String), (f64, f64, f64)>;

/// The `all` rows of `dir`'s `throughput.csv`.
fn headlines(dir: &Path) -> Result<Headlines> {
    let mut rows = BTreeMap::new();
    let path = dir.join(THROUGHPUT_FILE);
    read_rows(
        &path,
        "throughput",
        |row: &HeadlineRow| row.schema_version,
        |row| {
            if let ("all", Some(median), Some(low), Some(high)) = (
                row.operation.as_str(),
                row.median_ns,
                row.ci_low_ns,
                row.ci_high_ns,
            ) {
                rows.insert((row.algorithm, row.workload), (median, low, high));
            }
        },
    )?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_interval_or_within_ten_percent() {
        assert!(agrees(100.0, 90.0, 120.0, 119.0), "inside the interval");
        assert!(agrees(100.0, 99.0, 101.0, 109.0), "within 10%");
        assert!(agrees(100.0, 99.0, 101.0, 91.0), "within 10% below");
        assert!(!agrees(100.0, 99.0, 101.0, 111.0), "outside both");
        assert!(!agrees(100.0, 95.0, 105.0, 85.0), "outside both, below");
    }
}
