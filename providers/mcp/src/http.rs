//! MCP's Streamable HTTP transport, as a client, for `http://` URLs: each
//! message one `POST` (HTTP/1.1, `Connection: close`), the answer a JSON
//! body or a `text/event-stream` read until the awaited response arrives;
//! the `Mcp-Session-Id` and `MCP-Protocol-Version` headers kept from
//! `initialize`; a `DELETE` ends the session. Every read and write has the
//! call's deadline, headers and bodies are bounded, so a server that
//! stalls, floods or speaks no HTTP is a [`Fault`], never a hang.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::client::{Fault, MAX_LINE, PROTOCOL_VERSION, Session, clip, initialize_params};

/// The most header bytes taken.
const MAX_HEAD: usize = 64 << 10;

/// Where a server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    host: String,
    port: u16,
    path: String,
}

impl Url {
    pub(crate) fn parse(url: &str) -> Result<Url, String> {
        let rest = match url.strip_prefix("http://") {
            Some(rest) => rest,
            None if url.starts_with("https://") => {
                return Err(format!(
                    "{url}: https is not read yet (a loopback http:// URL, or \"command\" over stdio)"
                ));
            }
            None => return Err(format!("{url}: not an http:// URL")),
        };
        let (authority, path) = match rest.find('/') {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .map_err(|_| format!("{url}: {p:?} is no port"))?,
            ),
            _ => (authority, 80),
        };
        if host.is_empty() || host.contains(['@', ' ']) || path.contains([' ', '\r', '\n']) {
            return Err(format!("{url}: no host, or characters a URL cannot hold"));
        }
        Ok(Url {
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }

    fn addrs(&self) -> io::Result<Vec<SocketAddr>> {
        let host = self.host.trim_start_matches('[').trim_end_matches(']');
        Ok((host, self.port).to_socket_addrs()?.collect())
    }
}

/// A session with a server over Streamable HTTP.
pub(crate) struct Http {
    url: Url,
    session: Option<String>,
    protocol: Option<String>,
    next_id: u64,
    timeout: Duration,
    total: Duration,
    deadline: Instant,
}

impl Http {
    /// Initialises a session with the server at `url`.
    pub(crate) fn start(url: &str, timeout: Duration, total: Duration) -> Result<Http, Fault> {
        let url = Url::parse(url).map_err(Fault)?;
        let mut http = Http {
            url,
            session: None,
            protocol: None,
            next_id: 0,
            timeout,
            total,
            deadline: Instant::now() + total,
        };
        let result = http.request("initialize", initialize_params())?;
        http.protocol = Some(
            result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or(PROTOCOL_VERSION)
                .to_owned(),
        );
        http.post(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
            "notifications/initialized",
        )?;
        Ok(http)
    }

    fn until(&self) -> Instant {
        (Instant::now() + self.timeout).min(self.deadline)
    }

    fn late(&self, method: &str) -> Fault {
        late(method, self.deadline, self.timeout, self.total)
    }

    fn connect(&self, method: &str) -> Result<TcpStream, Fault> {
        let until = self.until();
        let addrs = self
            .url
            .addrs()
            .map_err(|e| Fault(format!("{method}: cannot resolve {}: {e}", self.url.host)))?;
        let mut last = None;
        for addr in addrs {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.late(method));
            }
            match TcpStream::connect_timeout(&addr, left) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(Fault(format!(
            "{method}: cannot connect to {}:{}{}",
            self.url.host,
            self.url.port,
            last.map(|e| format!(" ({e})")).unwrap_or_default()
        )))
    }

    /// One message; the response with `id`, if one is awaited.
    fn post(
        &mut self,
        message: &Value,
        id: Option<u64>,
        method: &str,
    ) -> Result<Option<Value>, Fault> {
        let body = message.to_string();
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.url.path,
            self.url.host,
            self.url.port,
            body.len()
        );
        self.headers(&mut head);
        head.push_str("\r\n");
        let until = self.until();
        let stream = self.connect(method)?;
        let (deadline, timeout, total) = (self.deadline, self.timeout, self.total);
        let io_fault = |e: io::Error| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                late(method, deadline, timeout, total)
            }
            _ => Fault(format!("{method}: {e}")),
        };
        let mut stream = Deadline { stream, until };
        stream.arm().map_err(io_fault)?;
        stream
            .stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.stream.write_all(body.as_bytes()))
            .map_err(io_fault)?;
        let mut reader = BufReader::new(stream);
        let response = read_head(&mut reader).map_err(|e| match e {
            HeadError::Io(e) => io_fault(e),
            HeadError::Bad(why) => Fault(format!("{method}: {why}")),
        })?;
        if let Some(session) = response.header("mcp-session-id")
            && self.session.is_none()
            && session.len() <= 1024
        {
            self.session = Some(session.to_owned());
        }
        if response.status == 202 || (id.is_none() && (200..300).contains(&response.status)) {
            return Ok(None);
        }
        let mut body: Box<dyn Read> = match (response.chunked(), response.length()) {
            (true, _) => Box::new(Chunked::new(reader)),
            (false, Some(n)) => Box::new(reader.take(n)),
            (false, None) => Box::new(reader),
        };
        if !(200..300).contains(&response.status) {
            let mut start = Vec::new();
            let _ = body.by_ref().take(300).read_to_end(&mut start);
            return Err(Fault(format!(
                "{method}: HTTP {} {}",
                response.status,
                clip(String::from_utf8_lossy(&start).trim())
            )));
        }
        let want = id.map(|id| json!(id));
        let kind = response
            .header("content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        if kind.starts_with("text/event-stream") {
            return events(BufReader::new(body), want.as_ref())
                .map_err(|e| match e {
                    HeadError::Io(e) => io_fault(e),
                    HeadError::Bad(why) => Fault(format!("{method}: {why}")),
                })?
                .map(Some)
                .ok_or_else(|| {
                    Fault(format!(
                        "{method}: the event stream ended without the answer"
                    ))
                });
        }
        let mut bytes = Vec::new();
        body.take(MAX_LINE as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(io_fault)?;
        if bytes.len() > MAX_LINE {
            return Err(Fault(format!(
                "{method}: an answer over {} MiB",
                MAX_LINE >> 20
            )));
        }
        let value: Value = serde_json::from_slice(&bytes).map_err(|_| {
            Fault(format!(
                "{method}: the answer is no JSON: {:?}",
                clip(&String::from_utf8_lossy(&bytes[..bytes.len().min(80)]))
            ))
        })?;
        let found = match value {
            Value::Array(all) => all.into_iter().find(|m| Some(&m["id"]) == want.as_ref()),
            one => Some(one),
        };
        Ok(found)
    }

    fn headers(&self, head: &mut String) {
        if let Some(s) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
        }
        if let Some(p) = &self.protocol {
            head.push_str(&format!("MCP-Protocol-Version: {p}\r\n"));
        }
    }
}

impl Session for Http {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Fault> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = self
            .post(&message, Some(id), method)?
            .ok_or_else(|| Fault(format!("{method}: no answer")))?;
        crate::client::result_of(method, &answer)
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        // Ends the session (best effort, briefly).
        let Some(session) = &self.session else { return };
        let Ok(addrs) = self.url.addrs() else { return };
        let Some(addr) = addrs.first() else { return };
        let Ok(mut s) = TcpStream::connect_timeout(addr, Duration::from_millis(200)) else {
            return;
        };
        let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
        let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
        let head = format!(
            "DELETE {} HTTP/1.1\r\nHost: {}:{}\r\nMcp-Session-Id: {session}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.url.path, self.url.host, self.url.port
        );
        if s.write_all(head.as_bytes()).is_ok() {
            let _ = s.read(&mut [0u8; 256]);
        }
    }
}

fn late(method: &str, deadline: Instant, timeout: Duration, total: Duration) -> Fault {
    match Instant::now() >= deadline {
        true => Fault(format!(
            "{method}: the session went past its {} s",
            total.as_secs()
        )),
        false => Fault(format!("{method}: no answer in {} ms", timeout.as_millis())),
    }
}

/// A stream whose every read and write waits at most until `until`.
struct Deadline {
    stream: TcpStream,
    until: Instant,
}

impl Deadline {
    fn arm(&self) -> io::Result<()> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.set_write_timeout(Some(left))
    }
}

impl Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        self.stream.read(buf)
    }
}

enum HeadError {
    Io(io::Error),
    Bad(String),
}

impl From<io::Error> for HeadError {
    fn from(e: io::Error) -> Self {
        HeadError::Io(e)
    }
}

struct Head {
    status: u16,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    }

    fn length(&self) -> Option<u64> {
        self.header("content-length")
            .and_then(|v| v.trim().parse().ok())
    }
}

/// One line of at most `max` bytes, without its line end.
fn line(reader: &mut impl BufRead, max: usize) -> Result<Option<String>, HeadError> {
    let mut buf = Vec::new();
    let n = reader
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > max {
        return Err(HeadError::Bad(format!("a line over {max} bytes")));
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

fn read_head(reader: &mut impl BufRead) -> Result<Head, HeadError> {
    let status_line = line(reader, MAX_HEAD)?.ok_or_else(|| {
        HeadError::Bad("the server closed the connection without answering".into())
    })?;
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|r| r.get(2..5))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| HeadError::Bad(format!("no HTTP answer: {:?}", clip(&status_line))))?;
    let mut headers = Vec::new();
    let mut size = status_line.len();
    while let Some(l) = line(reader, MAX_HEAD)? {
        if l.is_empty() {
            break;
        }
        size += l.len();
        if size > MAX_HEAD || headers.len() > 200 {
            return Err(HeadError::Bad("headers over 64 KiB".into()));
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    Ok(Head { status, headers })
}

/// The events of a `text/event-stream` until the response with `want`
/// (JSON-RPC messages in `data:` lines; others passed over).
fn events(mut reader: impl BufRead, want: Option<&Value>) -> Result<Option<Value>, HeadError> {
    let mut data = String::new();
    loop {
        let Some(l) = line(&mut reader, MAX_LINE)? else {
            return Ok(None);
        };
        if l.is_empty() {
            if !data.is_empty() {
                if let Ok(message) = serde_json::from_str::<Value>(&data) {
                    let answer = message.get("result").is_some() || message.get("error").is_some();
                    if answer && message.get("id") == want {
                        return Ok(Some(message));
                    }
                }
                data.clear();
            }
            continue;
        }
        if let Some(rest) = l.strip_prefix("data:") {
            if data.len() + rest.len() > MAX_LINE {
                return Err(HeadError::Bad(format!(
                    "an event over {} MiB",
                    MAX_LINE >> 20
                )));
            }
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
}

/// `Transfer-Encoding: chunked`, decoded.
struct Chunked<R> {
    inner: R,
    left: u64,
    done: bool,
}

impl<R: BufRead> Chunked<R> {
    fn new(inner: R) -> Self {
        Chunked {
            inner,
            left: 0,
            done: false,
        }
    }
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_owned());
            let size = match line(&mut self.inner, 1024) {
                Ok(Some(l)) => l,
                Ok(None) => return Ok(0),
                Err(HeadError::Io(e)) => return Err(e),
                Err(HeadError::Bad(_)) => return Err(bad("a chunk size line over 1 KiB")),
            };
            let size = size.split(';').next().unwrap_or("").trim();
            let size = u64::from_str_radix(size, 16)
                .map_err(|_| bad("a chunk size that is no hex number"))?;
            if size == 0 {
                self.done = true;
                return Ok(0);
            }
            self.left = size;
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Ok(0);
        }
        self.left -= n as u64;
        if self.left == 0 {
            // The CRLF after the chunk.
            let _ = line(&mut self.inner, 2);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn urls_are_read_or_refused_with_the_reason() {
        assert_eq!(
            Url::parse("http://127.0.0.1:8080/mcp").unwrap(),
            Url {
                host: "127.0.0.1".into(),
                port: 8080,
                path: "/mcp".into()
            }
        );
        assert_eq!(Url::parse("http://[::1]:9/x").unwrap().host, "[::1]");
        assert_eq!(Url::parse("http://localhost").unwrap().port, 80);
        assert!(Url::parse("https://x/mcp").unwrap_err().contains("https"));
        assert!(Url::parse("ftp://x").unwrap_err().contains("not an http"));
        assert!(
            Url::parse("http://h:99999/")
                .unwrap_err()
                .contains("no port")
        );
        assert!(Url::parse("http://u@h/").is_err());
    }

    #[test]
    fn chunked_bodies_and_event_streams_are_decoded() {
        let mut body = Vec::new();
        for part in ["data: {", "\"id\":1,\"result\":{\"ok\":1}}\n\n"] {
            body.extend_from_slice(format!("{:x}\r\n{part}\r\n", part.len()).as_bytes());
        }
        body.extend_from_slice(b"0\r\n\r\n");
        let decoded = BufReader::new(Chunked::new(&body[..]));
        let got = events(decoded, Some(&json!(1))).ok().flatten().unwrap();
        assert_eq!(got["result"]["ok"], 1);
        // Another id's answer, and a notification, are passed over.
        let stream = b"data: {\"method\":\"x\"}\n\ndata: {\"id\":2,\"result\":{}}\n\ndata: {\"id\":1,\"result\":{\"n\":3}}\n\n";
        let got = events(&stream[..], Some(&json!(1))).ok().flatten().unwrap();
        assert_eq!(got["result"]["n"], 3);
        assert!(
            events(&b"data: {\"id\":2,\"result\":{}}\n\n"[..], Some(&json!(1)))
                .ok()
                .flatten()
                .is_none()
        );
    }

    #[test]
    fn heads_are_bounded() {
        let mut ok = &b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"[..];
        let head = read_head(&mut ok).ok().unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-type"), Some("text/event-stream"));
        let mut garbage = &b"SSH-2.0-OpenSSH\r\n"[..];
        assert!(matches!(read_head(&mut garbage), Err(HeadError::Bad(_))));
        let huge = format!(
            "HTTP/1.1 200 OK\r\nX: {}\r\n\r\n",
            "y".repeat(MAX_HEAD + 10)
        );
        assert!(matches!(
            read_head(&mut huge.as_bytes()),
            Err(HeadError::Bad(_))
        ));
    }
}
