//! The serialized IR that an SCU package carries in `model/module.json` (the module the emulated
//! device and the runtime run on the reference interpreter).
//!
//! JSON, written and read on a grown stack and with no recursion limit on reading: the nesting
//! depth is the program's (an `else if` chain of N arms nests N blocks; a 10,000-arm chain builds),
//! and neither the stack nor serde_json's default limit of 128 levels may refuse a valid program.

use crate::program::Module;

/// Why a model could not be written or read.
#[derive(Debug, thiserror::Error)]
#[error("model/module.json: {0}")]
pub struct ModelError(#[from] serde_json::Error);

/// The module as the package's `model/module.json` holds it (one line of JSON).
pub fn to_json(module: &Module) -> Result<String, ModelError> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::new(&mut out);
    serde::Serialize::serialize(module, serde_stacker::Serializer::new(&mut ser))?;
    // serde_json writes UTF-8 only.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The module of a package's `model/module.json` text.
pub fn from_json(text: &str) -> Result<Module, ModelError> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let module = serde::Deserialize::deserialize(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_round_trips_and_bad_text_is_an_error() {
        let module = Module::default();
        let text = to_json(&module).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(from_json(&text).ok(), Some(module));
        assert!(from_json("{").is_err());
        assert!(from_json(&format!("{text} x")).is_err());
    }
}
