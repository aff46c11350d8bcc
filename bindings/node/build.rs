//! napi-build: the link arguments a Node add-on needs on each platform
//! (on macOS `-undefined dynamic_lookup`; nothing on Linux).

fn main() {
    napi_build::setup();
}
