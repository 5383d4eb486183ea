//! The page and its assets, compiled into the binary: no network, no
//! separate build step, nothing to install beside `konakis`.

use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

/// Path, content type and bytes of every file the page needs.
const FILES: &[(&str, &str, &str)] = &[
    (
        "/index.html",
        "text/html; charset=utf-8",
        include_str!("web/index.html"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("web/style.css"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("web/app.js"),
    ),
    (
        "/board.js",
        "text/javascript; charset=utf-8",
        include_str!("web/board.js"),
    ),
    (
        "/api.js",
        "text/javascript; charset=utf-8",
        include_str!("web/api.js"),
    ),
    (
        "/tree.js",
        "text/javascript; charset=utf-8",
        include_str!("web/tree.js"),
    ),
    (
        "/review.js",
        "text/javascript; charset=utf-8",
        include_str!("web/review.js"),
    ),
    (
        "/persist.js",
        "text/javascript; charset=utf-8",
        include_str!("web/persist.js"),
    ),
    (
        "/sound.js",
        "text/javascript; charset=utf-8",
        include_str!("web/sound.js"),
    ),
    (
        "/clock.js",
        "text/javascript; charset=utf-8",
        include_str!("web/clock.js"),
    ),
    (
        "/records.js",
        "text/javascript; charset=utf-8",
        include_str!("web/records.js"),
    ),
    (
        "/editor.js",
        "text/javascript; charset=utf-8",
        include_str!("web/editor.js"),
    ),
    (
        "/movelist.js",
        "text/javascript; charset=utf-8",
        include_str!("web/movelist.js"),
    ),
    (
        "/analysis.js",
        "text/javascript; charset=utf-8",
        include_str!("web/analysis.js"),
    ),
    (
        "/reviewpanel.js",
        "text/javascript; charset=utf-8",
        include_str!("web/reviewpanel.js"),
    ),
    (
        "/dom.js",
        "text/javascript; charset=utf-8",
        include_str!("web/dom.js"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("web/favicon.svg"),
    ),
];

/// The page may load only from this server and may not be framed.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// Serves a file of the page (`/` is the page itself).
pub async fn serve(method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return super::api::method_not_allowed(method).await.into_response();
    }
    let path = match uri.path() {
        "/" | "" => "/index.html",
        "/favicon.ico" => "/favicon.svg",
        p => p,
    };
    match FILES.iter().find(|(p, _, _)| *p == path) {
        Some((_, kind, body)) => (
            [
                (header::CONTENT_TYPE, *kind),
                (header::CACHE_CONTROL, "no-cache"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::CONTENT_SECURITY_POLICY, CSP),
                (header::REFERRER_POLICY, "no-referrer"),
            ],
            *body,
        )
            .into_response(),
        None => super::api::ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            "no such page: the board is at /",
        )
        .into_response(),
    }
}
