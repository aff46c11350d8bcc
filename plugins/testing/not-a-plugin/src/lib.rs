//! Test fixture: a perfectly ordinary shared library that is not a skillpipe
//! plugin (no abi_stable root module). The host must refuse it with one
//! `plugin-error` ("not a skillpipe plugin").

/// Something for the library to contain.
pub fn answer() -> u32 {
    42
}
