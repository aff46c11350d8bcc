//! The built-in provider `claude-plugins`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_claude_plugins::provider());
