//! A small MCP client over stdio: newline-delimited JSON-RPC to a child
//! process, every wait bounded.
//!
//! Providers are synchronous (a pipeline worker calls `scan_root`), so the
//! client is too: one thread reads the server's stdout into a channel, the
//! caller writes requests and waits on the channel with a deadline. Nothing
//! a server does (never answering, writing a line without end, writing
//! garbage, asking the client things, exiting) can hold a discovery past
//! its time-out or make it read without bound.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The protocol version asked for; servers of later versions answer with
/// theirs, which is accepted: only `skills/*` and `resources/read` are used.
pub(crate) const PROTOCOL_VERSION: &str = "2025-06-18";

/// The longest line read from a server: a 16 MiB file as base64 in a
/// JSON string, with room to spare.
pub(crate) const MAX_LINE: usize = 24 << 20;

/// Why a server could not be talked to. Its text is the end of a
/// diagnostic's message: "server `acme`: {fault}".
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault(pub(crate) String);

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn fault(text: impl Into<String>) -> Fault {
    Fault(text.into())
}

/// What the reading thread saw.
enum Event {
    Message(Value),
    /// A line that is no JSON (its first bytes).
    Garbage(String),
    TooLong,
    End,
    Failed(String),
}

/// How to start a server.
#[derive(Debug, Clone)]
pub(crate) struct Spawn<'a> {
    pub(crate) command: &'a str,
    pub(crate) args: &'a [String],
    pub(crate) env: &'a [(String, String)],
    pub(crate) cwd: &'a std::path::Path,
}

/// A session with a server, whatever its transport.
pub(crate) trait Session {
    /// One request and its result, or why there is none.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Fault>;
}

/// What `initialize` asks: this client, and SEP-2640's extension.
pub(crate) fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {
            "extensions": { "io.modelcontextprotocol/skills": {} }
        },
        "clientInfo": { "name": "skillpipe", "version": env!("CARGO_PKG_VERSION") }
    })
}

/// The result of a JSON-RPC answer, or its error as a [`Fault`].
pub(crate) fn result_of(method: &str, message: &Value) -> Result<Value, Fault> {
    if let Some(error) = message.get("error") {
        let text = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Err(fault(format!(
            "{method}: the server answered with an error: {}",
            clip(text)
        )));
    }
    match message.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(fault(format!(
            "{method}: an answer with neither result nor error"
        ))),
    }
}

impl Session for Client {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Fault> {
        self.call(method, params)
    }
}

/// A running server over stdio, and its session.
pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    next_id: u64,
    /// Each call's bound.
    timeout: Duration,
    /// The bound of the whole session (every call of one discovery).
    total: Duration,
    deadline: Instant,
    /// Whether the server ended: later calls fail at once.
    ended: Option<Fault>,
}

impl Client {
    /// Starts the server and initialises a session.
    pub(crate) fn start(
        spawn: &Spawn<'_>,
        timeout: Duration,
        total: Duration,
    ) -> Result<Client, Fault> {
        let mut command = Command::new(spawn.command);
        command
            .args(spawn.args)
            .envs(spawn.env.iter().map(|(k, v)| (k, v)))
            .current_dir(spawn.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command
            .spawn()
            .map_err(|e| fault(format!("cannot start `{}`: {e}", spawn.command)))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                end(&mut child);
                return Err(fault("no pipes to the server"));
            }
        };
        let (tx, events) = sync_channel(8);
        let reader = std::thread::Builder::new()
            .name("skillpipe-mcp-client".into())
            .spawn(move || read_lines(BufReader::with_capacity(1 << 16, stdout), &tx));
        if let Err(e) = reader {
            end(&mut child);
            return Err(fault(format!("cannot start a reader thread: {e}")));
        }
        let mut client = Client {
            child,
            stdin: Some(stdin),
            events,
            next_id: 0,
            timeout,
            total,
            deadline: Instant::now() + total,
            ended: None,
        };
        client.initialize()?;
        Ok(client)
    }

    fn initialize(&mut self) -> Result<(), Fault> {
        let result = self.call("initialize", initialize_params())?;
        if !result.is_object() {
            return Err(fault("initialize answered with no object"));
        }
        self.notify("notifications/initialized", json!({}))
    }

    fn write(&mut self, message: &Value) -> Result<(), Fault> {
        if let Some(f) = &self.ended {
            return Err(f.clone());
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(fault("the session is closed"));
        };
        let mut line = message.to_string();
        line.push('\n');
        match stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
        {
            Ok(()) => Ok(()),
            Err(e) => {
                let method = message
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("an answer")
                    .to_owned();
                Err(self.gone(&method, Some(&format!("it stopped reading: {e}"))))
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), Fault> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// One request and its result: a JSON-RPC error, a time-out, garbage or
    /// the server's end is a [`Fault`] naming the method.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, Fault> {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let until = (Instant::now() + self.timeout).min(self.deadline);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let event = match self.events.recv_timeout(left) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    let f = match Instant::now() >= self.deadline {
                        true => fault(format!(
                            "{method}: the session went past its {} s",
                            self.total.as_secs()
                        )),
                        false => fault(format!(
                            "{method}: no answer in {} ms",
                            self.timeout.as_millis()
                        )),
                    };
                    self.ended = Some(f.clone());
                    return Err(f);
                }
                Err(RecvTimeoutError::Disconnected) => Event::End,
            };
            let message = match event {
                Event::Message(m) => m,
                Event::Garbage(start) => {
                    let f = fault(format!(
                        "{method}: the server wrote a line that is no JSON: {start:?}"
                    ));
                    self.ended = Some(f.clone());
                    return Err(f);
                }
                Event::TooLong => {
                    let f = fault(format!(
                        "{method}: the server wrote a line over {} MiB",
                        MAX_LINE >> 20
                    ));
                    self.ended = Some(f.clone());
                    return Err(f);
                }
                Event::End => return Err(self.gone(method, None)),
                Event::Failed(e) => return Err(self.gone(method, Some(&e))),
            };
            // A request of the server's (sampling, roots, ping): answered, so
            // that it never waits on us.
            if let (Some(method_of), Some(their_id)) = (message.get("method"), message.get("id")) {
                let answer = match method_of.as_str() {
                    Some("ping") => json!({"jsonrpc": "2.0", "id": their_id, "result": {}}),
                    _ => json!({"jsonrpc": "2.0", "id": their_id,
                        "error": {"code": -32601, "message": "skillpipe's client offers no such method"}}),
                };
                self.write(&answer)?;
                continue;
            }
            if message.get("id") != Some(&json!(id)) {
                // A notification, or the answer to a request given up on.
                continue;
            }
            return result_of(method, &message);
        }
    }
}

impl Client {
    /// The fault of a server whose output ended (or failed) before it
    /// answered `method`.
    fn gone(&mut self, method: &str, error: Option<&str>) -> Fault {
        // A moment for the exit status of a server that ended.
        let status = (0..20).find_map(|_| {
            let s = self.child.try_wait().ok().flatten();
            if s.is_none() {
                std::thread::sleep(Duration::from_millis(5));
            }
            s
        });
        let f = fault(match (status, error) {
            (Some(s), _) => format!("{method}: the server exited ({s}) before answering"),
            (None, Some(e)) => format!("{method}: the server's output failed ({e})"),
            (None, None) => format!("{method}: the server closed its output before answering"),
        });
        self.ended = Some(f.clone());
        f
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Closing stdin is how a stdio server is told to end (MCP's
        // lifecycle); one that does not within a moment is killed.
        drop(self.stdin.take());
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        end(&mut self.child);
    }
}

fn end(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The first bytes of a text, for a message.
pub(crate) fn clip(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Reads the server's lines until its output ends or the client is gone.
fn read_lines(mut out: impl BufRead, tx: &SyncSender<Event>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let event = match read_bounded_line(&mut out, &mut line, MAX_LINE) {
            Ok(Line::End) => Event::End,
            Ok(Line::TooLong) => Event::TooLong,
            Ok(Line::Read) => {
                let text = line.trim_ascii();
                if text.is_empty() {
                    continue;
                }
                match serde_json::from_slice::<Value>(text) {
                    Ok(v) => Event::Message(v),
                    Err(_) => {
                        Event::Garbage(clip(&String::from_utf8_lossy(&text[..text.len().min(80)])))
                    }
                }
            }
            Err(e) => Event::Failed(e.to_string()),
        };
        let last = matches!(event, Event::End | Event::Failed(_) | Event::TooLong);
        if tx.send(event).is_err() || last {
            return;
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Line {
    Read,
    TooLong,
    End,
}

/// One line into `buf` (without its `\n`), at most `max` bytes.
fn read_bounded_line(out: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    loop {
        let available = match out.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match buf.is_empty() {
                true => Line::End,
                false => Line::Read,
            });
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if buf.len() + take > max {
            return Ok(Line::TooLong);
        }
        buf.extend_from_slice(&available[..take]);
        out.consume(take + usize::from(done));
        if done {
            return Ok(Line::Read);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn lines_are_read_whole_and_bounded() {
        let mut input = io::Cursor::new(b"one\ntwo\r\nthree".to_vec());
        let mut buf = Vec::new();
        assert_eq!(
            read_bounded_line(&mut input, &mut buf, 10).unwrap(),
            Line::Read
        );
        assert_eq!(buf, b"one");
        buf.clear();
        assert_eq!(
            read_bounded_line(&mut input, &mut buf, 10).unwrap(),
            Line::Read
        );
        assert_eq!(buf, b"two\r");
        buf.clear();
        assert_eq!(
            read_bounded_line(&mut input, &mut buf, 10).unwrap(),
            Line::Read
        );
        assert_eq!(buf, b"three");
        buf.clear();
        assert_eq!(
            read_bounded_line(&mut input, &mut buf, 10).unwrap(),
            Line::End
        );

        let mut long = io::Cursor::new(vec![b'x'; 100]);
        buf.clear();
        assert_eq!(
            read_bounded_line(&mut long, &mut buf, 10).unwrap(),
            Line::TooLong
        );
        assert!(buf.len() <= 10);
    }

    #[test]
    fn clip_keeps_short_texts_and_cuts_long_ones_on_a_character() {
        assert_eq!(clip("short"), "short");
        let long = "é".repeat(300);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), 201);
        assert!(clipped.ends_with('…'));
    }
}
