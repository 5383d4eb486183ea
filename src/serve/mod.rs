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
//! Safety: it binds to 127.0.0.1 unless told otherwise; every request's
//! `Host` must name this server (a guard against DNS rebinding), and every
//! request that changes state (any `POST`) must come from the page's own
//! origin when it names one; bodies, games, MultiPV, time and depth are
//! capped; bad input gets a 4xx with a JSON error.

mod analysis;
mod api;
mod assets;
mod review;

use crate::search::Engine;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, Method, Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// What `konakis serve` was asked for.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub host: String,
    pub port: u16,
    pub threads: usize,
    pub hash_mib: usize,
    /// Open the page in the desktop's browser once listening.
    pub open: bool,
}

/// The largest request body, but for imports.
pub const MAX_BODY: usize = 256 * 1024;
/// The largest import (a file of many games).
pub const MAX_IMPORT_BODY: usize = 8 * 1024 * 1024;

/// What every handler shares: the one engine and who may call.
#[derive(Clone)]
pub(crate) struct AppState {
    hub: Arc<analysis::Hub>,
    guard: Arc<HostGuard>,
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

/// Refuses requests that do not name this server, and state-changing
/// requests from another origin, before any handler sees them.
async fn check_origin(
    State(state): State<AppState>,
    request: Request<Body>,
    next: Next,
) -> Response {
    let headers = request.headers();
    let text = |name| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{fffd}").to_string())
    };
    let host = text(header::HOST).unwrap_or_default();
    if !state.guard.allows_host(&host) {
        return api::ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden-host",
            format!("Host '{host}' does not name this server; open the page at the address `konakis serve` printed"),
        )
        .into_response();
    }
    let changes_state = request.method() != Method::GET && request.method() != Method::HEAD;
    let upgrade = headers.contains_key(header::UPGRADE);
    if changes_state || upgrade {
        if let Some(origin) = text(header::ORIGIN) {
            if !state.guard.allows_origin(&origin, &host) {
                return api::ApiError::new(
                    StatusCode::FORBIDDEN,
                    "forbidden-origin",
                    format!("requests from the origin '{origin}' are refused"),
                )
                .into_response();
            }
        }
    }
    next.run(request).await
}

/// The routes: the page, its assets, and the API.
fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/info", get(api::info))
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
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            check_origin,
        ))
        .with_state(state)
}

/// Starts the server and serves until the process ends. Prints the URL
/// (with the port the system chose for `--port 0`) once it listens.
pub fn run(config: &ServeConfig) -> Result<(), String> {
    let mut engine = Engine::new();
    engine.set_threads(config.threads)?;
    engine.set_hash(config.hash_mib)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let ip: IpAddr = match config.host.as_str() {
            "localhost" => IpAddr::from([127, 0, 0, 1]),
            other => other.parse().map_err(|_| {
                format!("--host '{other}' is not an IP address (say 127.0.0.1, 0.0.0.0 or ::1)")
            })?,
        };
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(ip, config.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", config.host, config.port))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let state = AppState {
            hub: Arc::new(analysis::Hub::new(engine)),
            guard: Arc::new(HostGuard { port: bound.port() }),
        };
        let shown = match bound.ip() {
            ip if ip.is_unspecified() => format!("127.0.0.1:{}", bound.port()),
            IpAddr::V6(v6) => format!("[{v6}]:{}", bound.port()),
            IpAddr::V4(v4) => format!("{v4}:{}", bound.port()),
        };
        let url = format!("http://{shown}/");
        {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "konakis serve: listening on {url}");
            let _ = writeln!(
                out,
                "Open it in a browser to play, analyse and review games; Ctrl-C stops the server."
            );
            let _ = out.flush();
        }
        if config.open {
            open_browser(&url);
        }
        axum::serve(listener, router(state))
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
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
