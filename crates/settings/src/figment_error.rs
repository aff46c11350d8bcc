//! What a figment error (a value of the wrong type, too large, missing)
//! says to the user: the key as written, the file, variable or flag it
//! came from, and the value described as that file would write it.

use figment::{Figment, Metadata, Source};

use crate::error::{SettingsError, origin_of};
use crate::file::read_settings_file;

pub(crate) fn figment_error(figment: &Figment, err: figment::Error) -> SettingsError {
    use figment::error::{Actual, Kind};
    let key = dotted(&err.path);
    let meta = err
        .metadata
        .as_ref()
        .or_else(|| figment.find_metadata(&err.path.join(".")));
    let origin = meta.map_or_else(|| "settings".to_owned(), origin_of);
    let value = |expected: String, found: String| SettingsError::Value {
        key: key.clone(),
        origin: origin.clone(),
        expected,
        found,
    };
    let too_large = |value: String, max: u128| SettingsError::TooLarge {
        key: key.clone(),
        origin: origin.clone(),
        value,
        max: max.to_string(),
    };
    match &err.kind {
        Kind::InvalidType(actual, expected) | Kind::InvalidValue(actual, expected) => {
            match (actual, int_max(expected)) {
                (Actual::Unsigned(n), Some(max)) if *n > max => too_large(n.to_string(), max),
                // A JSON integer too large for any integer type was read as
                // a float: say it as written.
                (Actual::Float(f), Some(max)) if f.fract() == 0.0 && *f > max as f64 => {
                    too_large(written_integer(meta, *f), max)
                }
                _ => value(plain_expected(&err.path, expected), found(actual)),
            }
        }
        // A list where a table of settings belongs (serde reads a struct
        // from a sequence too, and counts its elements).
        Kind::InvalidLength(_, expected) => {
            value(plain_expected(&err.path, expected), "an array".to_owned())
        }
        Kind::USizeOutOfRange(n) => too_large(n.to_string(), usize::MAX as u128),
        Kind::ISizeOutOfRange(n) => value(
            "a non-negative integer".to_owned(),
            format!("the number {n}"),
        ),
        Kind::MissingField(field) => SettingsError::Other(format!(
            "setting `{}` is missing (from {origin})",
            if key.is_empty() {
                field.to_string()
            } else {
                format!("{key}.{field}")
            }
        )),
        Kind::Unsupported(actual) | Kind::UnsupportedKey(actual, _) => {
            SettingsError::Other(format!(
                "setting `{key}` from {origin}: {} is not supported here",
                found(actual)
            ))
        }
        _ => SettingsError::Other(format!("setting `{key}` from {origin}: {}", err.kind)),
    }
}

/// A figment key path as the user writes it: `skills.ignoredSkills[0]`.
fn dotted(path: &[String]) -> String {
    let mut out = String::new();
    // figment's own field of a relative path (`___figment_relative_path`)
    // is no key of the user's.
    for part in path.iter().filter(|p| !p.starts_with("___figment")) {
        if !out.is_empty() && !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(part);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// The largest value of the unsigned integer type serde expected, if it
/// expected one.
fn int_max(serde_expected: &str) -> Option<u128> {
    Some(match serde_expected {
        "u8" => u8::MAX.into(),
        "u16" => u16::MAX.into(),
        "u32" => u32::MAX.into(),
        "u64" => u64::MAX.into(),
        "usize" => usize::MAX as u128,
        _ => return None,
    })
}

/// What the user wrote for an integer too large to be read as one (serde
/// reads it as a float): the digits in the file or `--set` flag that give
/// this value, else the value's digits.
fn written_integer(meta: Option<&Metadata>, value: f64) -> String {
    let text = match meta.and_then(|m| m.source.as_ref()) {
        Some(Source::File(path)) => read_settings_file(path).ok(),
        Some(Source::Custom(name)) => Some(name.clone()),
        _ => None,
    };
    text.as_deref()
        .into_iter()
        .flat_map(|t| t.split(|c: char| !c.is_ascii_digit()))
        .find(|digits| digits.len() > 15 && digits.parse::<f64>().ok() == Some(value))
        .map_or_else(|| format!("{value:.0}"), str::to_owned)
}

/// What serde expected, as a settings file would say it.
fn plain_expected(path: &[String], serde_expected: &str) -> String {
    match serde_expected {
        "a sequence" => "an array".to_owned(),
        "a map" => "a table/object".to_owned(),
        "a boolean" | "a string" => serde_expected.to_owned(),
        "a borrowed string" | "a char" => "a string".to_owned(),
        "path string" => "a path (a string)".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "an integer".to_owned(),
        other if int_max(other).is_some() || other == "u128" => "a non-negative integer".to_owned(),
        // A derived struct (`struct ScanLimits with 4 elements`): a table
        // of the settings under this key.
        other if other.starts_with("struct ") => match path.last().map(String::as_str) {
            Some("skills") => "a table/object of skill settings".to_owned(),
            Some("scan") => "a table/object of scan bounds".to_owned(),
            Some("plugins") => "a table/object of plugin settings".to_owned(),
            _ => "a table/object of settings".to_owned(),
        },
        other => other.to_owned(),
    }
}

/// What a value of the wrong type was, as the user wrote it.
fn found(actual: &figment::error::Actual) -> String {
    use figment::error::Actual;
    match actual {
        Actual::Bool(b) => format!("the boolean {b}"),
        Actual::Unsigned(n) => format!("the number {n}"),
        Actual::Signed(n) => format!("the number {n}"),
        // `5.0` stays `5.0`: an integer was expected.
        Actual::Float(f) => format!("the number {f:?}"),
        Actual::Char(c) => format!("a string {:?}", c.to_string()),
        Actual::Str(s) => format!("a string {s:?}"),
        Actual::Unit | Actual::Option => "null".to_owned(),
        Actual::Seq => "an array".to_owned(),
        Actual::Map => "a table/object".to_owned(),
        Actual::Bytes(_) => "bytes".to_owned(),
        _ => "a value of another kind".to_owned(),
    }
}

/// A JSON value of the wrong type, described the same way.
pub(crate) fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("a string {s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "a table/object".to_owned(),
    }
}
