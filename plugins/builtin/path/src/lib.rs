//! The built-in provider `path`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_pi::path_provider());
