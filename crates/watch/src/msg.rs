//! The one message type of the watcher's thread, in its own file so that
//! the watches that send it and the worker that receives it need not import
//! each other.

/// What the watcher's thread receives.
pub(crate) enum Msg {
    /// From a native or polling watcher.
    Fs(notify::Result<notify::Event>),
    /// The watcher is dropped.
    Stop,
}
