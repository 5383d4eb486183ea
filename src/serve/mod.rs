//! `konakis serve`: a tafl board in the browser. A small HTTP server
//! (axum on a single-threaded tokio runtime, so the cores stay with the
//! search) serves the page and its assets, embedded in the binary, and a
//! JSON API that other programs may use too (`docs/http-api.md`).
//!
//! Like every front end it only parses and formats: games are built by the
//! rules library's [`Game`](crate::rules::Game) (the code
//! `Engine::set_position` runs) and searches run on one shared
//! [`Engine`](crate::search::Engine) (`analysis.rs`), whose streams are
//! Server-Sent Events.
//!
//! Safety: it binds to 127.0.0.1 unless told otherwise, and on any other
//! address every request must carry a token (printed in the URL at start);
//! every request's `Host` must name this server (a guard against DNS
//! rebinding), and every request that changes state (any `POST`) must come
//! from the page's own origin when it names one. Connections are capped in
//! number and in the time their headers and bodies may take; bodies,
//! games, MultiPV, time and depth are capped; bad input gets a 4xx with a
//! JSON error. Clients share the cores by the rules in `hub.rs`.

mod analysis;
mod api;
mod assets;
mod hub;
mod review;

use crate::search::Engine;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderValue, Method, Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// What `konakis serve` was asked for.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub host: String,
    pub port: u16,
    pub threads: usize,
    pub hash_mib: usize,
    /// Open the page in the desktop's browser once listening.
    pub open: bool,
    pub token: TokenChoice,
    /// How long a client may take to send a request's headers (and how
    /// long an idle kept-alive connection stays open).
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
}

/// Whether requests must carry a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenChoice {
    /// None on loopback; one made up at start on any other address.
    Default,
    /// This one, on any address.
    Given(String),
    /// None: refused unless the address is loopback.
    None,
}

/// The largest request body, but for imports.
pub const MAX_BODY: usize = 256 * 1024;
/// The largest import (a file of many games).
pub const MAX_IMPORT_BODY: usize = 8 * 1024 * 1024;
/// The most threads that wait on the engine or parse bodies at once.
pub const MAX_BLOCKING_THREADS: usize = 32;
/// The most connections served at once; more wait to be accepted.
pub const MAX_CONNECTIONS: usize = 512;
/// The longest request target and the most header bytes answered with a
/// JSON error; hyper closes connections whose head passes `MAX_HEAD`.
const MAX_URI: usize = 8 * 1024;
const MAX_HEADER_BYTES: usize = 32 * 1024;
const MAX_HEAD: usize = 64 * 1024;
/// The cookie that carries the token once the page was opened with it.
const TOKEN_COOKIE: &str = "konakis_token";

/// What every handler shares: the one engine and who may call.
#[derive(Clone)]
pub(crate) struct AppState {
    hub: Arc<hub::Hub>,
    guard: Arc<HostGuard>,
    /// The token every request must carry, if any.
    token: Option<Arc<str>>,
    body_timeout: Duration,
}

/// Compares secrets in a time that does not depend on where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Where a request carries a token: `Authorization: Bearer`, the cookie,
/// or `?token=` (which the page's first load has).
fn token_of(request: &Request<Body>) -> Option<(String, bool)> {
    let headers = request.headers();
    if let Some(bearer) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        return Some((bearer.trim().to_string(), false));
    }
    if let Some(query) = request.uri().query() {
        if let Some(t) = query.split('&').find_map(|p| p.strip_prefix("token=")) {
            return Some((t.to_string(), true));
        }
    }
    api::cookie(headers, TOKEN_COOKIE).map(|t| (t, false))
}

/// A fresh random token or client id: 128 bits in hex.
fn random_hex() -> String {
    use rand::Rng;
    let bits: u128 = rand::thread_rng().gen();
    format!("{bits:032x}")
}

/// Which `Host` and `Origin` headers name this server.
#[derive(Debug)]
struct HostGuard {
    port: u16,
}

impl HostGuard {
    /// Whether a `Host` header names this server: `localhost` or any IP
    /// literal (a page cannot rebind a literal address to another origin:
    /// only names are rebound), with this server's port.
    fn allows_host(&self, value: &str) -> bool {
        let value = value.trim().to_ascii_lowercase();
        let (name, port) = match value.rsplit_once(':') {
            // `[::1]:8080`, `localhost:8080`; a bare IPv6 literal has no port.
            Some((n, p)) if !n.is_empty() && (n.ends_with(']') || !n.contains(':')) => {
                (n.to_string(), p.parse::<u16>().ok())
            }
            _ => (value.clone(), Some(80)),
        };
        if port != Some(self.port) {
            return false;
        }
        let bare = name.trim_start_matches('[').trim_end_matches(']');
        name == "localhost" || bare.parse::<IpAddr>().is_ok()
    }

    /// Whether an `Origin` header is this server's own page: the scheme
    /// `http` and the very `Host` the request was sent to.
    fn allows_origin(&self, origin: &str, host: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|o| o.eq_ignore_ascii_case(host.trim()))
    }
}

/// Every request passes here before any handler: its size, its `Host`,
/// its token and its origin are checked, its body is read within the
/// body timeout, and every answer is marked `nosniff`.
async fn guard_request(
    State(state): State<AppState>,
    request: Request<Body>,
    next: Next,
) -> Response {
    let mut response = match check_request(&state, request).await {
        Ok((request, set_cookies)) => {
            let mut response = next.run(request).await;
            for value in set_cookies {
                if let Ok(v) = HeaderValue::from_str(&value) {
                    response.headers_mut().append(header::SET_COOKIE, v);
                }
            }
            response
        }
        Err(e) => e.into_response(),
    };
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The checks of [`guard_request`]: the request with its body read, and
/// the cookies its answer sets (the token's, a new page's client id).
async fn check_request(
    state: &AppState,
    request: Request<Body>,
) -> Result<(Request<Body>, Vec<String>), api::ApiError> {
    if request.uri().to_string().len() > MAX_URI {
        return Err(api::ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri-too-long",
            format!("the request target is longer than {MAX_URI} bytes"),
        ));
    }
    let head_bytes: usize = request
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if head_bytes > MAX_HEADER_BYTES {
        return Err(api::ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers-too-large",
            format!("the request's headers are longer than {MAX_HEADER_BYTES} bytes"),
        ));
    }
    let headers = request.headers();
    let text = |name| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{fffd}").to_string())
    };
    let host = text(header::HOST).unwrap_or_default();
    if !state.guard.allows_host(&host) {
        return Err(api::ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden-host",
            format!("Host '{host}' does not name this server; open the page at the address `konakis serve` printed"),
        ));
    }
    let mut set_cookies = Vec::new();
    if let Some(token) = &state.token {
        match token_of(&request) {
            Some((given, from_query)) if same_secret(&given, token) => {
                if from_query {
                    set_cookies.push(format!(
                        "{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
                    ));
                }
            }
            _ => {
                return Err(api::ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "this server needs its token: open the URL `konakis serve` printed (it ends in ?token=…), or send `Authorization: Bearer <token>`",
                ))
            }
        }
    }
    let changes_state = request.method() != Method::GET && request.method() != Method::HEAD;
    let upgrade = headers.contains_key(header::UPGRADE);
    if changes_state || upgrade {
        if let Some(origin) = text(header::ORIGIN) {
            if !state.guard.allows_origin(&origin, &host) {
                return Err(api::ApiError::new(
                    StatusCode::FORBIDDEN,
                    "forbidden-origin",
                    format!("requests from the origin '{origin}' are refused"),
                ));
            }
        }
    }
    let page = matches!(request.uri().path(), "/" | "/index.html");
    if page && hub::client_of(headers).is_none() {
        set_cookies.push(format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            hub::CLIENT_COOKIE,
            random_hex()
        ));
    }
    let request = if changes_state {
        read_body(request, state.body_timeout).await?
    } else {
        request
    };
    Ok((request, set_cookies))
}

/// Reads a request's body within `timeout` and its size cap, so that no
/// handler waits on a slow or absent body.
async fn read_body(
    request: Request<Body>,
    timeout: Duration,
) -> Result<Request<Body>, api::ApiError> {
    let limit = if request.uri().path() == "/api/import" {
        MAX_IMPORT_BODY
    } else {
        MAX_BODY
    };
    let too_large = || {
        api::ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            format!("the request body is larger than {limit} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(api::ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body-timeout",
            format!(
                "the request body did not arrive within {} ms",
                timeout.as_millis()
            ),
        )),
        Ok(Err(e)) => {
            let length_limit = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            if length_limit {
                Err(too_large())
            } else {
                Err(api::ApiError::bad(
                    "bad-body",
                    format!("the request body could not be read: {e}"),
                ))
            }
        }
        Ok(Ok(bytes)) => Ok(Request::from_parts(parts, Body::from(bytes))),
    }
}

/// The routes: the page, its assets, and the API.
fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/info", get(analysis::info))
        .route("/api/variants", get(api::variants))
        .route("/api/position", post(api::position))
        .route("/api/analyse", post(analysis::analyse))
        .route("/api/stop", post(analysis::stop))
        .route("/api/review", post(review::review))
        .route("/api/export", post(api::export))
        .layer(DefaultBodyLimit::max(MAX_BODY));
    let import = Router::new()
        .route("/api/import", post(api::import))
        .layer(DefaultBodyLimit::max(MAX_IMPORT_BODY));
    Router::new()
        .merge(api)
        .merge(import)
        .route("/api/{*rest}", axum::routing::any(api::not_found))
        .fallback(assets::serve)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard_request,
        ))
        .with_state(state)
}

/// Starts the server and serves until the process ends. Prints the URL
/// (with the port the system chose for `--port 0`, and the token if one
/// is needed) once it listens.
pub fn run(config: &ServeConfig) -> Result<(), String> {
    let ip: IpAddr = match config.host.as_str() {
        "localhost" => IpAddr::from([127, 0, 0, 1]),
        other => other.parse().map_err(|_| {
            format!("--host '{other}' is not an IP address (say 127.0.0.1, 0.0.0.0 or ::1)")
        })?,
    };
    let token: Option<Arc<str>> = match (&config.token, ip.is_loopback()) {
        (TokenChoice::Given(t), _) if t.trim().is_empty() => {
            return Err("--token is empty".into());
        }
        (TokenChoice::Given(t), _) => Some(t.trim().into()),
        (TokenChoice::None, false) => {
            return Err(format!(
                "--no-token is refused on {ip}: anyone on the network could run searches on this machine; it is accepted only with a loopback --host"
            ));
        }
        (TokenChoice::None, true) | (TokenChoice::Default, true) => None,
        (TokenChoice::Default, false) => Some(random_hex().into()),
    };
    let mut engine = Engine::new();
    engine.set_threads(config.threads)?;
    engine.set_hash(config.hash_mib)?;
    // The blocking pool runs what waits on the engine or parses large
    // bodies: capped, and its idle threads go after a few seconds.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(MAX_BLOCKING_THREADS)
        .thread_keep_alive(Duration::from_secs(5))
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(ip, config.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", config.host, config.port))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let urls = urls(bound, token.as_deref());
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "konakis serve: listening on {}", urls[0].1);
            for (what, url) in &urls[1..] {
                let _ = writeln!(out, "  {what}: {url}");
            }
            let _ = writeln!(
                out,
                "Open it in a browser to play, analyse and review games; Ctrl-C stops the server."
            );
            let _ = out.flush();
        }
        if !bound.ip().is_loopback() {
            eprintln!(
                "konakis serve: warning: listening on {} is reachable from other machines; anyone with the token can run searches on this machine's cores",
                bound.ip()
            );
        }
        if config.open {
            open_browser(&urls[0].1);
        }
        let state = AppState {
            hub: Arc::new(hub::Hub::new(engine)),
            guard: Arc::new(HostGuard { port: bound.port() }),
            token,
            body_timeout: config.body_timeout,
        };
        serve_connections(listener, router(state), config.header_timeout).await;
        Ok(())
    })
}

/// The URLs to print: the first is the one to open here; with a wildcard
/// address, also this machine's address on its network (when it has one).
fn urls(bound: SocketAddr, token: Option<&str>) -> Vec<(&'static str, String)> {
    let query = token.map_or(String::new(), |t| format!("?token={t}"));
    let url = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => format!("http://[{v6}]:{}/{query}", bound.port()),
        IpAddr::V4(v4) => format!("http://{v4}:{}/{query}", bound.port()),
    };
    if !bound.ip().is_unspecified() {
        return vec![("", url(bound.ip()))];
    }
    let local = if bound.is_ipv4() {
        IpAddr::from([127, 0, 0, 1])
    } else {
        IpAddr::from(std::net::Ipv6Addr::LOCALHOST)
    };
    let mut list = vec![("", url(local)), ("on every interface", bound.to_string())];
    if let Some(lan) = network_address(bound.is_ipv4()) {
        list.push(("from other machines", url(lan)));
    }
    list
}

/// This machine's address on the network it would route to the internet
/// by (no packet is sent: a UDP socket's connect only picks a route).
fn network_address(v4: bool) -> Option<IpAddr> {
    let (any, far): (SocketAddr, SocketAddr) = if v4 {
        ("0.0.0.0:0".parse().ok()?, "192.0.2.1:9".parse().ok()?)
    } else {
        ("[::]:0".parse().ok()?, "[2001:db8::1]:9".parse().ok()?)
    };
    let socket = std::net::UdpSocket::bind(any).ok()?;
    socket.connect(far).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}

/// Accepts connections, at most [`MAX_CONNECTIONS`] at once, each served
/// by hyper with the header timeout; runs until the process ends.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    app: Router,
    header_timeout: Duration,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .max_buf_size(MAX_HEAD)
        .keep_alive(true);
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors, or a connection reset before it
                // was accepted: try again shortly.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
}

/// Asks the desktop to open `url`; says so if it cannot.
fn open_browser(url: &str) {
    let tries: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        &["explorer"]
    } else {
        &["xdg-open", "sensible-browser", "x-www-browser"]
    };
    for program in tries {
        if std::process::Command::new(program)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok()
        {
            return;
        }
    }
    eprintln!("konakis serve: could not open a browser; open {url} yourself");
}

#[cfg(test)]
mod tests {
    use super::HostGuard;

    #[test]
    fn hosts_and_origins() {
        let g = HostGuard { port: 8080 };
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "[::1]:8080",
            "192.168.1.5:8080",
        ] {
            assert!(g.allows_host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1:9090",
            "localhost",
            "",
            "127.0.0.1.evil.example:8080",
        ] {
            assert!(!g.allows_host(bad), "{bad}");
        }
        assert!(g.allows_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(!g.allows_origin("http://localhost:8080", "127.0.0.1:8080"));
        assert!(!g.allows_origin("https://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(!g.allows_origin("null", "127.0.0.1:8080"));
        let plain = HostGuard { port: 80 };
        assert!(plain.allows_host("localhost"));
        assert!(!plain.allows_host("tafl.lan"));
    }
}
