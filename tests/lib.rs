//! Workspace-level tests live in `tests/*.rs` beside this file.
