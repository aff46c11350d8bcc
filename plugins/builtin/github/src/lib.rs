//! The built-in provider `github`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_github::provider());
