//! The built-in provider `pi`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_pi::pi_provider());
