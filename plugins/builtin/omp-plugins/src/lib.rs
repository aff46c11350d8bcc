//! The built-in provider `omp-plugins`, exported as a plugin (see `plugins/builtin/README.md`).

skillpipe_plugin_sdk::export_provider!(skillpipe_provider_omp_plugins::provider());
