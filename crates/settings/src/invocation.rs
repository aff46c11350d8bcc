//! The invocation settings: `skills.arguments` and `skills.visibility`
//! (pi: top-level `arguments` and `visibility`).
//!
//! `visibility` is read as each value's layer set it (figment tags every
//! value with its layer), from every layer and from the trusted layers
//! alone, so that the rule of `skillpipe_core::visibility` can keep a
//! project file from loosening what the trusted layers say.

use figment::Figment;
use figment::value::Value as FigmentValue;
use skillpipe_core::arguments::Arguments;
use skillpipe_core::types::Visibility;
use skillpipe_core::visibility::{Rule, Rules};

use crate::error::{SettingsError, origin_of};
use crate::figment_error::figment_error;
use crate::layer::LayerKind;
use crate::settings::Settings;

/// Where a shape has its invocation settings (its table in `musepi.rs`,
/// `pi.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InvocationKeys {
    /// `arguments`: how `/skill:name args` passes its arguments.
    pub(crate) arguments: &'static str,
    /// `visibility`: skill-name globs to a visibility.
    pub(crate) visibility: &'static str,
}

/// The expected value of a visibility entry, for errors.
const EXPECTED: &str = "\"on\", \"name-only\", \"user-only\" or \"off\"";

/// Fills `arguments` and `visibility`.
pub(crate) fn fill(
    full: &Figment,
    trusted: &Figment,
    keys: InvocationKeys,
    settings: &mut Settings,
) -> Result<(), SettingsError> {
    let InvocationKeys {
        arguments,
        visibility,
    } = keys;
    if full.find_value(arguments).is_ok() {
        settings.arguments = full
            .extract_inner::<Arguments>(arguments)
            .map_err(|e| figment_error(full, e))?;
    }
    settings.visibility = Rules {
        all: rules(full, visibility, true)?,
        trusted: rules(trusted, visibility, false)?,
    };
    Ok(())
}

/// The merged entries of `key` in `stack`, each with its layer. A value
/// that is not a visibility is a settings error when `strict` (the merged
/// stack: what is in effect), else left out (the trusted stack: a bad
/// value there that a project file replaced is not in effect).
fn rules(stack: &Figment, key: &str, strict: bool) -> Result<Vec<Rule>, SettingsError> {
    let Ok(value) = stack.find_value(key) else {
        return Ok(Vec::new());
    };
    let origin = |v: &FigmentValue| {
        stack
            .get_metadata(v.tag())
            .map(|m| (origin_of(m), m.name == LayerKind::Project.label()))
    };
    let Some(dict) = value.as_dict() else {
        return match strict {
            true => Err(SettingsError::Value {
                key: key.to_owned(),
                origin: origin(&value).map_or_else(|| "settings".to_owned(), |o| o.0),
                expected: format!("an object from skill-name globs to {EXPECTED}"),
                found: found(&value),
            }),
            false => Ok(Vec::new()),
        };
    };
    let mut out = Vec::with_capacity(dict.len());
    for (pattern, v) in dict {
        let (layer, project) = origin(v).unwrap_or_else(|| ("settings".to_owned(), false));
        let Some(visibility) = v.as_str().and_then(Visibility::parse) else {
            if strict {
                return Err(SettingsError::Value {
                    key: format!("{key}.{pattern}"),
                    origin: layer,
                    expected: EXPECTED.to_owned(),
                    found: found(v),
                });
            }
            continue;
        };
        out.push(Rule {
            pattern: pattern.clone(),
            visibility,
            layer,
            project,
        });
    }
    Ok(out)
}

/// A value as an error shows it.
fn found(v: &FigmentValue) -> String {
    v.to_actual().to_string()
}
