//! The built-in provider `codex`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_codex::provider());
