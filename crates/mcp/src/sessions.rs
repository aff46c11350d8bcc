//! The Streamable HTTP server's sessions, bounded: rmcp's
//! [`LocalSessionManager`] keeps every session until its client closes it
//! or it has been idle for its keep-alive (five minutes), so a client that
//! opens sessions in a loop would grow the server without end. Past
//! [`MAX_SESSIONS`], `initialize` is refused (HTTP 500, the message saying
//! why) until sessions close or time out; the sessions open are served as
//! before.

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId,
};

/// The most sessions open at once.
pub(crate) const MAX_SESSIONS: usize = 256;

/// [`LocalSessionManager`] with at most `max` sessions.
#[derive(Debug)]
pub(crate) struct Capped {
    inner: LocalSessionManager,
    max: usize,
}

impl Capped {
    pub(crate) fn new(max: usize) -> Capped {
        Capped {
            inner: LocalSessionManager::default(),
            max,
        }
    }
}

/// Why a session was refused, or the inner manager's error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// As many sessions as allowed are open.
    #[error(
        "{0} sessions are open, the most this server keeps: close one (DELETE with its Mcp-Session-Id) or wait for an idle one to time out"
    )]
    Full(usize),
    /// rmcp's.
    #[error(transparent)]
    Inner(#[from] LocalSessionManagerError),
}

impl SessionManager for Capped {
    type Error = Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Error> {
        // Checked and created under separate locks: two `initialize` at
        // once may both pass, so the bound holds to within the requests in
        // flight (each of which is bounded by the connections).
        let open = self.inner.sessions.read().await.len();
        if open >= self.max {
            return Err(Error::Full(open));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Error> {
        Ok(self.inner.restore_session(id).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_past_the_bound_are_refused_and_closing_one_makes_room() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("a runtime: {e}"));
        runtime.block_on(async {
            let capped = Capped::new(2);
            let (first, _a) = capped
                .create_session()
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            let _b = capped
                .create_session()
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            match capped.create_session().await {
                Err(Error::Full(2)) => {}
                Err(e) => panic!("refused for another reason: {e}"),
                Ok(_) => panic!("a third session past a bound of two"),
            }
            capped
                .close_session(&first)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(capped.create_session().await.is_ok(), "room again");
        });
    }
}
