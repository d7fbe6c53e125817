//! Factor sets derived on the command line: `--set key=value` and `--sweep key=v1,v2`.
//!
//! An analyst trying `impact = 240` should not copy a TOML file and remember to rename
//! it. A derived set is the base set with some keys replaced, checked by the same parser
//! as a file (so an unknown key or a bad value is the same error), named after what
//! changed (`fsb-2007+impact=240`), and identified by a hash of its full contents, so two
//! sets with the same name but different constants can never be confused in a table.

use crate::error::Error;
use crate::model::FactorSet;

/// A factor set entering a study, with the name and hash it is reported under.
#[derive(Debug, Clone, PartialEq)]
pub struct StudySet {
    pub factors: FactorSet,
    /// 16 hex digits of the FNV-1a hash of the set's canonical TOML.
    pub hash: String,
    /// The overrides when derived (`impact=240`), empty for a set read from a file.
    pub overrides: Vec<(String, String)>,
}

impl StudySet {
    pub fn new(factors: FactorSet) -> Result<StudySet, Error> {
        let hash = factor_hash(&factors)?;
        Ok(StudySet {
            factors,
            hash,
            overrides: Vec::new(),
        })
    }

    pub fn name(&self) -> &str {
        &self.factors.name
    }
}

/// The canonical TOML text of a set (keys in declaration order, as serde writes them).
pub fn canonical_toml(factors: &FactorSet) -> Result<String, Error> {
    toml::to_string(factors)
        .map_err(|e| Error::Config(format!("factor set `{}`: {e}", factors.name)))
}

/// FNV-1a (64 bit) of the canonical TOML, as 16 hex digits. Not cryptographic: it tells
/// sets apart in a report, it does not defend against forgery.
pub fn factor_hash(factors: &FactorSet) -> Result<String, Error> {
    let text = canonical_toml(factors)?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(format!("{h:016x}"))
}

/// Parses `key=value` (the value in TOML syntax; a bare word is taken as a string).
pub fn parse_assignment(text: &str) -> Result<(String, String), Error> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() && !value.trim().is_empty() => {
            Ok((key.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(Error::Config(format!(
            "`{text}`: expected KEY=VALUE, for example impact=240 or methods.topscore.c_b=2.5"
        ))),
    }
}

fn toml_value(key: &str, value: &str) -> Result<toml::Value, Error> {
    match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut table) => table
            .remove("v")
            .ok_or_else(|| Error::Config(format!("key `{key}`: no value in `{value}`"))),
        // A bare word (`guest_methods` aside, only `name` takes text) is a string.
        Err(_) => Ok(toml::Value::String(value.to_string())),
    }
}

/// The base set with `overrides` applied, renamed `base+key=value+…` (or the `name` the
/// overrides give), and checked like a file. `origin` names the set in error messages.
pub fn derive(base: &StudySet, overrides: &[(String, String)]) -> Result<StudySet, Error> {
    let mut root = toml::Value::try_from(&base.factors)
        .map_err(|e| Error::Config(format!("factor set `{}`: {e}", base.name())))?;
    let mut renamed = false;
    for (key, value) in overrides {
        let parts: Vec<&str> = key.split('.').collect();
        let mut node = &mut root;
        for (depth, part) in parts.iter().enumerate() {
            let table = node.as_table_mut().ok_or_else(|| {
                Error::Config(format!(
                    "key `{key}`: `{}` is not a table",
                    parts[..depth].join(".")
                ))
            })?;
            if depth + 1 == parts.len() {
                table.insert((*part).to_string(), toml_value(key, value)?);
                break;
            }
            node = table
                .entry((*part).to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        }
        renamed |= key == "name";
    }
    if !renamed {
        let suffix: Vec<String> = overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let name = format!("{}+{}", base.name(), suffix.join("+"));
        if let Some(table) = root.as_table_mut() {
            table.insert("name".into(), toml::Value::String(name));
        }
    }
    let text = toml::to_string(&root)
        .map_err(|e| Error::Config(format!("factor set `{}`: {e}", base.name())))?;
    let origin = format!("{} with {}", base.name(), describe(overrides));
    let factors = FactorSet::from_toml_str(&text, &origin)?;
    let mut set = StudySet::new(factors)?;
    set.overrides = base.overrides.clone();
    set.overrides.extend(overrides.iter().cloned());
    Ok(set)
}

fn describe(overrides: &[(String, String)]) -> String {
    overrides
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--set` text: one or more `key=value` separated by `;` (one derived set).
pub fn parse_set(text: &str) -> Result<Vec<(String, String)>, Error> {
    text.split(';')
        .filter(|part| !part.trim().is_empty())
        .map(parse_assignment)
        .collect()
}

/// `--sweep` text: `key=v1,v2,…`, one derived set per value.
pub fn parse_sweep(text: &str) -> Result<Vec<Vec<(String, String)>>, Error> {
    let (key, values) = parse_assignment(text)?;
    let values: Vec<&str> = values
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect();
    if values.is_empty() {
        return Err(Error::Config(format!(
            "`{text}`: expected KEY=V1,V2,…, for example impact=240,480,960"
        )));
    }
    Ok(values
        .into_iter()
        .map(|v| vec![(key.clone(), v.to_string())])
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> StudySet {
        match StudySet::new(FactorSet::default()) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    fn ok<T>(r: Result<T, Error>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn an_override_renames_and_rehashes() {
        let b = base();
        let d = ok(derive(&b, &ok(parse_set("impact=240"))));
        assert_eq!(d.factors.impact, 240.0);
        assert_eq!(d.name(), "fsb-2007+impact=240");
        assert_ne!(d.hash, b.hash);
        assert_eq!(d.hash.len(), 16);
        // Everything else is the base set's.
        let mut back = d.factors.clone();
        back.impact = 480.0;
        back.name = "fsb-2007".into();
        assert_eq!(back, b.factors);
        // Same contents, same hash; the hash does not depend on the run.
        assert_eq!(ok(factor_hash(&d.factors)), d.hash);
    }

    #[test]
    fn nested_and_optional_keys() {
        let d = ok(derive(
            &base(),
            &ok(parse_set("methods.topscore.c_b=2.5; floor=0")),
        ));
        assert_eq!(d.factors.methods.topscore.c_b, 2.5);
        assert_eq!(d.factors.floor, Some(0.0));
        assert_eq!(d.name(), "fsb-2007+methods.topscore.c_b=2.5+floor=0");
    }

    #[test]
    fn sweeps_give_one_set_per_value() {
        let sweep = ok(parse_sweep("impact=240, 960"));
        assert_eq!(sweep.len(), 2);
        let names: Vec<String> = sweep
            .iter()
            .map(|o| ok(derive(&base(), o)).name().to_string())
            .collect();
        assert_eq!(names, ["fsb-2007+impact=240", "fsb-2007+impact=960"]);
    }

    #[test]
    fn bad_overrides_name_the_key() {
        let msg = |r: Result<StudySet, Error>| match r {
            Err(e) => e.to_string(),
            Ok(s) => panic!("accepted {}", s.name()),
        };
        let m = msg(derive(&base(), &[("impakt".into(), "1".into())]));
        assert!(m.contains("impakt"), "{m}");
        let m = msg(derive(&base(), &[("impact".into(), "-3".into())]));
        assert!(m.contains("impact") && m.contains("above 0"), "{m}");
        let m = msg(derive(&base(), &[("cap.x".into(), "1".into())]));
        assert!(m.contains("cap.x"), "{m}");
        assert!(parse_set("impact").is_err());
        assert!(parse_sweep("impact=").is_err());
    }
}
