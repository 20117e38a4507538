//! The local HTTP server: loopback only, a fixed set of routes, the Host header
//! checked on every request, uploads capped. Requests are answered on [`WORKERS`]
//! threads, so that a slow upload or conversion does not hold up the page, and a
//! handler that panics ends only its own request.

use crate::data::ViewModel;
use crate::{page, ViewError};
use gom_import::source::ImportOptions;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response, StatusCode};

/// The default upload cap: 256 MiB.
pub const DEFAULT_MAX_UPLOAD: usize = 256 << 20;

/// Threads answering requests: this many slow uploads at once can keep the page
/// waiting, fewer cannot.
pub const WORKERS: usize = 4;

/// How the server is started.
#[derive(Debug, Clone)]
pub struct Config {
    /// The port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// The largest upload accepted, in bytes.
    pub max_upload: usize,
    /// How uploads are converted.
    pub options: ImportOptions,
    /// Accept `POST /api/report` from the page's test mode (for the browser tests).
    pub accept_reports: bool,
    /// A script served as `/test.js`, which the page runs in its test mode (the
    /// browser tests' own code; `None` outside them).
    pub test_script: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            port: 0,
            max_upload: DEFAULT_MAX_UPLOAD,
            options: ImportOptions::default(),
            accept_reports: false,
            test_script: None,
        }
    }
}

/// Everything the request handler shares.
struct State {
    models: Mutex<Vec<Arc<ViewModel>>>,
    reports: Mutex<Vec<String>>,
    report_ready: Condvar,
    config: Config,
    port: u16,
    /// The page, filled in once at the start ([`page::served`]).
    index_html: String,
}

/// A running viewer server; [`ViewServer::stop`] ends it.
pub struct ViewServer {
    server: Arc<tiny_http::Server>,
    state: Arc<State>,
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

type Reply = Response<std::io::Cursor<Vec<u8>>>;

impl ViewServer {
    /// Starts serving `models` on 127.0.0.1 on [`WORKERS`] threads of its own.
    pub fn start(models: Vec<ViewModel>, config: Config) -> Result<ViewServer, ViewError> {
        let index_html = page::served()?;
        let server = tiny_http::Server::http(("127.0.0.1", config.port)).map_err(|source| {
            ViewError::Bind {
                address: format!("127.0.0.1:{}", config.port),
                source,
            }
        })?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| ViewError::Bind {
                address: format!("127.0.0.1:{}", config.port),
                source: "not an IP address".into(),
            })?;
        let server = Arc::new(server);
        let state = Arc::new(State {
            models: Mutex::new(models.into_iter().map(Arc::new).collect()),
            reports: Mutex::new(Vec::new()),
            report_ready: Condvar::new(),
            config,
            port,
            index_html,
        });
        let stopping = Arc::new(AtomicBool::new(false));
        let threads = (0..WORKERS)
            .map(|_| {
                let (s, st, stop) = (
                    Arc::clone(&server),
                    Arc::clone(&state),
                    Arc::clone(&stopping),
                );
                std::thread::spawn(move || serve(&s, &stop, |request| handle(&st, request)))
            })
            .collect();
        Ok(ViewServer {
            server,
            state,
            stopping,
            threads,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.state.port
    }

    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.state.port)
    }

    /// Waits up to `timeout` for the next report the page's test mode posts.
    pub fn next_report(&self, timeout: Duration) -> Option<String> {
        let guard = lock(&self.state.reports);
        let (mut guard, _) = self
            .state
            .report_ready
            .wait_timeout_while(guard, timeout, |r| r.is_empty())
            .ok()?;
        (!guard.is_empty()).then(|| guard.remove(0))
    }

    /// Stops accepting requests and waits for the handler threads to finish.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        for _ in &self.threads {
            self.server.unblock();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for ViewServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Hands each request `server` receives to `handler` until `stopping` is set (and the
/// server unblocked). A handler that panics ends only its request: tiny_http answers
/// a request dropped unanswered with 500, and the loop goes on.
fn serve(server: &tiny_http::Server, stopping: &AtomicBool, handler: impl Fn(Request)) {
    while !stopping.load(Ordering::SeqCst) {
        if let Ok(request) = server.recv() {
            let _ = catch_unwind(AssertUnwindSafe(|| handler(request)));
        }
    }
}

/// The data behind `mutex`, also after a handler panicked while holding it: every
/// critical section leaves it whole (a push, a read).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Answers one request; a failure to send the answer only ends that connection.
fn handle(state: &State, mut request: Request) {
    let reply = if !host_is_ours(&request, state.port) {
        text(
            403,
            "this viewer answers only requests for 127.0.0.1 or localhost on its port",
        )
    } else {
        route(state, &mut request)
    };
    let _ = respond_closing(request, reply);
}

/// Sends `reply` with `Connection: close`, so that the client closes the connection
/// once answered. tiny_http serves each connection on a thread of its own and, when
/// several connections arrive at once, may queue one until one of its threads'
/// connections ends; a browser keeps its connections open between requests, so a
/// page's script could wait behind them for minutes. tiny_http drops a `Connection`
/// header from a [`Response`], hence the head written here.
fn respond_closing(request: Request, reply: Reply) -> std::io::Result<()> {
    let head_only = *request.method() == Method::Head;
    let status = reply.status_code();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        status.0,
        status.default_reason_phrase()
    );
    for h in reply.headers() {
        head += &format!("{h}\r\n");
    }
    let body = reply.into_reader().into_inner();
    head += &format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut out = request.into_writer();
    out.write_all(head.as_bytes())?;
    if !head_only {
        out.write_all(&body)?;
    }
    out.flush()
}

/// Whether the Host header names this server (a page of another site that resolves
/// its own name to 127.0.0.1 sends its name: refused, no DNS rebinding).
fn host_is_ours(request: &Request, port: u16) -> bool {
    let hosts: Vec<&str> = request
        .headers()
        .iter()
        .filter(|h| h.field.equiv("Host"))
        .map(|h| h.value.as_str())
        .collect();
    let [host] = hosts.as_slice() else {
        return false;
    };
    *host == format!("127.0.0.1:{port}") || *host == format!("localhost:{port}")
}

fn route(state: &State, request: &mut Request) -> Reply {
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    match (request.method(), segments.as_slice()) {
        (Method::Get, [""]) => asset(&state.index_html, "text/html; charset=utf-8"),
        (Method::Get, ["viewer.js"]) => asset(page::VIEWER_JS, "text/javascript; charset=utf-8"),
        (Method::Get, ["morph.js"]) => asset(page::MORPH_JS, "text/javascript; charset=utf-8"),
        (Method::Get, ["dq.js"]) => asset(page::DQ_JS, "text/javascript; charset=utf-8"),
        (Method::Get, ["events.js"]) => asset(page::EVENTS_JS, "text/javascript; charset=utf-8"),
        (Method::Get, ["style.css"]) => asset(page::STYLE_CSS, "text/css; charset=utf-8"),
        (Method::Get, ["favicon.ico"]) => Response::from_data(Vec::new()).with_status_code(204),
        (Method::Get, ["test.js"]) => match &state.config.test_script {
            Some(script) => asset(script, "text/javascript; charset=utf-8"),
            None => not_found(),
        },
        (Method::Get, ["api", "models"]) => models_list(state),
        (Method::Get, ["api", "model", i, rest @ ..]) => match model(state, i) {
            Some(m) => model_route(&m, rest, query),
            None => not_found(),
        },
        (Method::Post, ["api", "upload"]) => upload(state, request, query),
        (Method::Post, ["api", "report"]) if state.config.accept_reports => report(state, request),
        (Method::Get | Method::Post, _) => not_found(),
        _ => text(405, "only GET and POST are answered"),
    }
}

fn model_route(m: &ViewModel, rest: &[&str], query: &str) -> Reply {
    match rest {
        [] => json(200, m.manifest()),
        ["geometry"] => bytes(m.geometry().to_vec(), "application/octet-stream"),
        ["texture", t] => match index(t).and_then(|t| m.texture(t)) {
            Some((b, mime)) => bytes(b.to_vec(), mime),
            None => not_found(),
        },
        ["clip", c, "baked"] => match index(c).filter(|&c| c < m.clip_count()) {
            Some(c) => match m.baked(c) {
                Ok(b) => bytes(b.to_vec(), "application/octet-stream"),
                Err(e) => error(500, &e.to_string()),
            },
            None => not_found(),
        },
        ["clip", c, "bounds"] => match index(c).filter(|&c| c < m.clip_count()) {
            Some(c) => match m.clip_bounds(c) {
                Ok(b) => json(200, &serde_json::json!(b)),
                Err(e) => error(500, &e.to_string()),
            },
            None => not_found(),
        },
        ["pose"] => pose(m, query),
        _ => not_found(),
    }
}

/// `pose?clip=C&t=T`: one pose record at exactly `T` seconds of clip `C` (its index),
/// the bind pose without `clip`.
fn pose(m: &ViewModel, query: &str) -> Reply {
    let clip = match param(query, "clip") {
        Some(c) => match index(&c).filter(|&c| c < m.clip_count()) {
            Some(c) => Some(c),
            None => return error(404, &format!("no clip {c}")),
        },
        None => None,
    };
    let t = match param(query, "t").map(|t| t.parse::<f32>()) {
        None => 0.0,
        Some(Ok(t)) if t.is_finite() => t,
        Some(_) => return error(400, "t must be a finite number of seconds"),
    };
    match m.pose_at(clip, t) {
        Ok(b) => bytes(b, "application/octet-stream"),
        Err(e) => error(500, &e),
    }
}

fn models_list(state: &State) -> Reply {
    let models = lock(&state.models);
    let list: Vec<serde_json::Value> = models
        .iter()
        .enumerate()
        .map(|(i, m)| serde_json::json!({ "index": i, "name": m.name }))
        .collect();
    json(200, &serde_json::Value::Array(list))
}

fn model(state: &State, i: &str) -> Option<Arc<ViewModel>> {
    let i = index(i)?;
    lock(&state.models).get(i).cloned()
}

/// `POST /api/upload?name=FILE`: the body is the file; converted and added to the list.
fn upload(state: &State, request: &mut Request, query: &str) -> Reply {
    let cap = state.config.max_upload;
    if request.body_length().is_some_and(|n| n > cap) {
        return too_large(cap);
    }
    let mut body = Vec::new();
    if let Err(e) = request
        .as_reader()
        .take(cap as u64 + 1)
        .read_to_end(&mut body)
    {
        return error(400, &format!("the upload could not be read: {e}"));
    }
    if body.len() > cap {
        return too_large(cap);
    }
    let name = param(query, "name").unwrap_or_default();
    match crate::load::load_upload(&name, &body, &state.config.options) {
        Ok(model) => {
            let mut models = lock(&state.models);
            models.push(Arc::new(model));
            json(
                200,
                &serde_json::json!({ "index": models.len() - 1, "name": models.last().map(|m| m.name.clone()) }),
            )
        }
        Err(e) => error(422, &e.to_string()),
    }
}

fn too_large(cap: usize) -> Reply {
    error(
        413,
        &format!("the upload is larger than this viewer accepts ({cap} bytes)"),
    )
    .with_header(header("Connection", "close"))
}

fn report(state: &State, request: &mut Request) -> Reply {
    let mut body = String::new();
    let limit = state.config.max_upload as u64;
    if request
        .as_reader()
        .take(limit)
        .read_to_string(&mut body)
        .is_err()
    {
        return error(400, "the report is not UTF-8 text");
    }
    lock(&state.reports).push(body);
    state.report_ready.notify_all();
    text(200, "ok")
}

/// A decimal index with no sign, spaces or leading `+`.
fn index(s: &str) -> Option<usize> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The percent-decoded value of `key` in a query string. Hand-written: a dozen lines
/// against a URL crate for one field.
fn param(query: &str, key: &str) -> Option<String> {
    let raw = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)?
        .1;
    let mut out = Vec::with_capacity(raw.len());
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|_| Header::from_bytes("X-Invalid", "1").expect("a valid header"))
}

fn bytes(body: Vec<u8>, mime: &str) -> Reply {
    Response::from_data(body)
        .with_header(header("Content-Type", mime))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
}

fn asset(body: &str, mime: &str) -> Reply {
    bytes(body.as_bytes().to_vec(), mime).with_header(header(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; script-src 'self'; style-src 'self'",
    ))
}

fn json(status: u16, value: &serde_json::Value) -> Reply {
    bytes(
        value.to_string().into_bytes(),
        "application/json; charset=utf-8",
    )
    .with_status_code(StatusCode(status))
}

fn error(status: u16, message: &str) -> Reply {
    json(status, &serde_json::json!({ "error": message }))
}

fn text(status: u16, message: &str) -> Reply {
    bytes(message.as_bytes().to_vec(), "text/plain; charset=utf-8")
        .with_status_code(StatusCode(status))
}

fn not_found() -> Reply {
    text(404, "not found")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// One `GET path` on a fresh connection to `port`; the status line's code.
    fn get(port: u16, path: &str) -> u16 {
        let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            c,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        let _ = c.read_to_string(&mut answer);
        answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }

    #[test]
    fn a_handler_that_panics_ends_its_request_and_serving_goes_on() {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let stopping = Arc::new(AtomicBool::new(false));
        let (s, stop) = (Arc::clone(&server), Arc::clone(&stopping));
        // One thread only: were the panic to end it, nothing would answer again.
        let thread = std::thread::spawn(move || {
            serve(&s, &stop, |request| {
                assert!(request.url() != "/boom", "a handler's bug");
                let _ = request.respond(Response::empty(200));
            })
        });
        assert_eq!(get(port, "/boom"), 500);
        assert_eq!(get(port, "/fine"), 200);
        assert_eq!(get(port, "/boom"), 500);
        assert_eq!(get(port, "/fine"), 200);
        stopping.store(true, Ordering::SeqCst);
        server.unblock();
        thread.join().unwrap();
    }

    #[test]
    fn a_poisoned_lock_still_gives_its_data() {
        let m = Arc::new(Mutex::new(vec![1]));
        let m2 = Arc::clone(&m);
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("poison");
        })
        .join();
        assert!(m.is_poisoned());
        lock(&m).push(2);
        assert_eq!(*lock(&m), vec![1, 2]);
    }
}
