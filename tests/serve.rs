//! `konakis serve`'s HTTP API, as another program uses it: every endpoint,
//! a game played to its end, a search streamed to a legal move, bad input
//! answered 4xx with the server still answering, and foreign pages refused.

mod common;

use common::server::{cpu_seconds, get, next_event, open_events, post, request, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A real Copenhagen game (aagenielsen.dk, via ../shared/cases/real), won
/// by the defenders after 22 plies.
pub const REAL_GAME: &str = "k8-h8 f4-b4 k4-c4xb4 g5-i5 a8-c8 g7-g8 g11-g9 i5-i8xh8 h1-h5 h6-h9 g1-i1 f8-f9xg9 d1-d3 g6-g3 j6-j2 f6-j6 f10-j10 i8-i11 b6-b10 j6-j9 j10-j11xi11 j9-j10";

fn moves(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|m| m.split('x').next().unwrap().to_string())
        .collect()
}

#[test]
fn the_page_and_the_variants() {
    let server = Server::start(&["--threads", "1"]);
    let page = get(&server.addr, "/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains("<svg id=\"board\""));
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("default-src 'self'"));
    for asset in [
        "/app.js",
        "/board.js",
        "/api.js",
        "/tree.js",
        "/review.js",
        "/style.css",
        "/favicon.svg",
    ] {
        let a = get(&server.addr, asset);
        assert_eq!(a.status, 200, "{asset}");
        assert!(!a.body.is_empty(), "{asset}");
    }
    assert_eq!(get(&server.addr, "/nothing-here").status, 404);
    let missing = get(&server.addr, "/api/nothing");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"], "not-found");

    let v = get(&server.addr, "/api/variants").json();
    let list = v["variants"].as_array().unwrap();
    assert_eq!(list.len(), 11);
    let find = |name: &str| list.iter().find(|x| x["name"] == name).unwrap().clone();
    assert_eq!(find("copenhagen")["size"], 11);
    assert_eq!(find("copenhagen")["first"], "attackers");
    assert_eq!(find("brandubh")["size"], 7);
    assert_eq!(find("tablut")["size"], 9);
    assert_eq!(find("ashton")["first"], "defenders");
    assert_eq!(
        find("ashton")["marks"]["camps"].as_array().unwrap().len(),
        4
    );
    assert_eq!(find("copenhagen")["marks"]["throne"], "f6");
    assert_eq!(
        find("copenhagen")["sides"],
        json!(["attackers", "defenders"])
    );

    let info = get(&server.addr, "/api/info").json();
    assert_eq!(info["name"], "Konakis");
    assert_eq!(info["threads"], 1);
    assert_eq!(info["searching"], false);
}

#[test]
fn a_game_played_to_its_end() {
    let server = Server::start(&["--threads", "1"]);
    // The real game, move by move: each answer lists the next move as legal.
    let all = moves(REAL_GAME);
    for n in 0..all.len() {
        let body = json!({ "variant": "copenhagen", "moves": &all[..n] }).to_string();
        let pos = post(&server.addr, "/api/position", &body).json();
        let legal: Vec<&str> = pos["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert!(
            legal.contains(&all[n].as_str()),
            "ply {n}: {} not in {legal:?}",
            all[n]
        );
        assert_eq!(
            pos["side"],
            if n % 2 == 0 { "attackers" } else { "defenders" }
        );
        assert_eq!(pos["moves"].as_array().unwrap().len(), n);
        assert!(pos["result"].is_null());
    }
    let end = post(
        &server.addr,
        "/api/position",
        &json!({ "variant": "copenhagen", "moves": all }).to_string(),
    )
    .json();
    assert_eq!(end["moves"][2]["notation"], "k4-c4xb4");
    assert_eq!(end["moves"][2]["captured"], json!(["b4"]));
    assert_eq!(end["record"].as_str().unwrap().matches('/').count(), 12);

    // Every game reaches its end: first legal moves until the rules stop it.
    let mut played: Vec<String> = Vec::new();
    let result = loop {
        let body = json!({ "variant": "brandubh", "moves": played }).to_string();
        let pos = post(&server.addr, "/api/position", &body).json();
        if !pos["result"].is_null() {
            assert!(pos["legal"].as_array().unwrap().is_empty());
            break pos["result"].clone();
        }
        assert!(played.len() < 500, "no end after 500 plies");
        played.push(pos["legal"][0].as_str().unwrap().to_string());
    };
    assert!(result["text"].as_str().unwrap().len() > 5);

    // A won game: the king reaches a corner.
    let start = "/1K5/7/7/t6/7/7/3t3/ d";
    let pos = post(
        &server.addr,
        "/api/position",
        &json!({ "variant": "brandubh", "start": start, "moves": ["b1-a1"] }).to_string(),
    )
    .json();
    assert_eq!(pos["result"]["winner"], "defenders");
    assert_eq!(pos["result"]["reason"], "king-escaped");
    assert_eq!(pos["result"]["text"], "the defenders win: the king escaped");
    assert!(pos["legal"].as_array().unwrap().is_empty());
    assert_eq!(pos["start"], "/1K5/7/7/t6/7/7/3t3/ d 0 0");
}

#[test]
fn a_search_streams_to_a_legal_best_move() {
    let server = Server::start(&["--threads", "1"]);
    let body = json!({ "variant": "copenhagen", "moves": ["d1-d3"], "depth": 5, "multipv": 2 })
        .to_string();
    let answer = post(&server.addr, "/api/analyse", &body);
    assert_eq!(answer.status, 200);
    assert!(answer
        .header("content-type")
        .unwrap()
        .starts_with("text/event-stream"));
    let events = answer.events();
    assert_eq!(events[0].0, "start");
    assert_eq!(events[0].1["side"], "defenders");
    assert_eq!(events[0].1["multipv"], 2);
    let infos: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "info")
        .map(|(_, d)| d)
        .collect();
    assert!(infos.iter().any(|d| d["multipv"] == 1));
    assert!(infos.iter().any(|d| d["multipv"] == 2));
    assert!(infos
        .iter()
        .all(|d| d["pv"].as_array().is_some() && d["score"].is_object()));
    let (name, best) = events.last().unwrap();
    assert_eq!(name, "bestmove");
    assert_eq!(best["depth"], 5);
    assert_eq!(best["stopped"], false);
    assert_eq!(best["lines"].as_array().unwrap().len(), 2);
    let pos = post(
        &server.addr,
        "/api/position",
        &json!({ "variant": "copenhagen", "moves": ["d1-d3"] }).to_string(),
    )
    .json();
    assert!(pos["legal"].as_array().unwrap().contains(&best["best"]));

    // With a clock, the engine decides; at a finished game there is no move.
    let clock = json!({ "variant": "brandubh", "clock": { "atime": 2000, "dtime": 2000, "ainc": 20, "dinc": 20 } });
    let events = post(&server.addr, "/api/analyse", &clock.to_string()).events();
    assert!(events.last().unwrap().1["best"].is_string());
    let over = json!({ "variant": "brandubh", "start": "/1K5/7/7/t6/7/7/3t3/ d", "moves": ["b1-a1"], "depth": 3 });
    let events = post(&server.addr, "/api/analyse", &over.to_string()).events();
    assert_eq!(events[0].1["result"], "defenders king-escaped");
    assert!(events.last().unwrap().1["best"].is_null());
}

/// Opens a search stream and returns the connection once its `start`
/// event has arrived, with that event's search id.
fn open_stream(addr: &str, body: &str) -> (BufReader<TcpStream>, u64) {
    let mut reader = open_events(addr, "/api/analyse", &[], body);
    loop {
        let (_, data) = next_event(&mut reader).expect("a start before the stream ended");
        if let Some(id) = data["search"].as_u64() {
            return (reader, id);
        }
    }
}

/// Reads a stream to its `bestmove` event.
fn read_to_bestmove(reader: &mut BufReader<TcpStream>) -> Value {
    let mut line = String::new();
    let mut last = None;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return last.expect("a bestmove before the end");
        }
        if line.starts_with("event: bestmove") {
            last = Some(Value::Null);
        } else if last == Some(Value::Null) {
            if let Some(data) = line.trim().strip_prefix("data:") {
                return serde_json::from_str(data.trim()).unwrap();
            }
        }
    }
}

fn searching(addr: &str) -> bool {
    get(addr, "/api/info").json()["searching"] == true
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn one_engine_one_search_at_a_time() {
    let server = Server::start(&["--threads", "1"]);
    let infinite = json!({ "variant": "tablut", "infinite": true, "multipv": 1 }).to_string();
    // A newer search stops the older one, whose stream ends with its move.
    let (mut first, first_id) = open_stream(&server.addr, &infinite);
    let second = json!({ "variant": "tablut", "moves": ["e2-d2"], "depth": 3 }).to_string();
    let events = post(&server.addr, "/api/analyse", &second).events();
    assert_eq!(events.last().unwrap().0, "bestmove");
    let older = read_to_bestmove(&mut first);
    assert_eq!(older["search"], first_id);
    assert_eq!(older["stopped"], true);
    assert!(older["best"].is_string());
    // The answer comes before the search threads have all unwound.
    wait_until("the searches end", || !searching(&server.addr));

    // /api/stop ends an infinite search (only the one it names).
    let (mut stream, id) = open_stream(&server.addr, &infinite);
    let other = post(
        &server.addr,
        "/api/stop",
        &json!({ "search": id + 100 }).to_string(),
    )
    .json();
    assert_eq!(other["stopped"], false);
    assert!(searching(&server.addr));
    let stopped = post(
        &server.addr,
        "/api/stop",
        &json!({ "search": id }).to_string(),
    )
    .json();
    assert_eq!(stopped["stopped"], true);
    assert_eq!(read_to_bestmove(&mut stream)["stopped"], true);

    // A client that goes away (a closed tab) stops its search.
    let (stream, _) = open_stream(&server.addr, &infinite);
    assert!(searching(&server.addr));
    drop(stream);
    wait_until("the search of a closed stream stops", || {
        !searching(&server.addr)
    });
}

#[test]
fn a_review_streams_every_position_and_gives_the_same_verdicts_twice() {
    let server = Server::start(&["--threads", "2"]);
    let body =
        json!({ "variant": "copenhagen", "moves": moves(REAL_GAME), "nodes": 5000 }).to_string();
    let run = || {
        let events = post(&server.addr, "/api/review", &body).events();
        assert_eq!(events[0].0, "start");
        assert_eq!(events[0].1["positions"], 23);
        assert_eq!(events[0].1["repeatable"], true);
        let positions: Vec<&Value> = events
            .iter()
            .filter(|(n, _)| n == "position")
            .map(|(_, d)| d)
            .collect();
        assert_eq!(positions.len(), 23);
        for p in &positions {
            let wdl: u64 = p["wdl"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .sum();
            assert_eq!(wdl, 1000, "{p}");
        }
        let (name, review) = events.last().unwrap();
        assert_eq!(name, "review");
        assert_eq!(review["moves"].as_array().unwrap().len(), 22);
        review.clone()
    };
    let (a, b) = (run(), run());
    let verdicts = |r: &Value| -> Vec<(Value, Value, Value)> {
        r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["mark"].clone(), m["loss"].clone(), m["better"].clone()))
            .collect()
    };
    assert_eq!(verdicts(&a), verdicts(&b));
    assert_eq!(a["sides"], b["sides"]);
    // A part of the game: from move 20, two moves judged.
    let from =
        json!({ "variant": "copenhagen", "moves": moves(REAL_GAME), "nodes": 5000, "from": 20 })
            .to_string();
    let events = post(&server.addr, "/api/review", &from).events();
    let review = &events.last().unwrap().1;
    assert_eq!(review["moves"][0]["index"], 21);
    assert_eq!(review["moves"][1], a["moves"][21]);
    // Bad budgets are refused before anything runs.
    for bad in [
        json!({ "variant": "copenhagen", "nodes": 0 }),
        json!({ "variant": "copenhagen", "depth": 31 }),
        json!({ "variant": "copenhagen", "nodes": 10, "depth": 3 }),
        json!({ "variant": "copenhagen", "moves": ["d1-d3"], "from": 2 }),
        json!({ "variant": "copenhagen", "budget": "nodes:10" }),
    ] {
        let answer = post(&server.addr, "/api/review", &bad.to_string());
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
        assert!(answer.json()["error"].is_string());
    }
}

#[test]
fn a_review_ends_when_its_client_goes() {
    let server = Server::start(&["--threads", "2"]);
    let body = json!({ "variant": "copenhagen", "moves": moves(REAL_GAME), "nodes": 50_000_000 })
        .to_string();
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(
        stream,
        "POST /api/review HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    while !line.starts_with("event: start") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0);
    }
    std::thread::sleep(Duration::from_millis(300));
    drop(reader);
    drop(stream);
    let Some(before) = cpu_seconds(server.pid()) else {
        return;
    };
    // Its searchers stop within a poll or two of the stream's end.
    std::thread::sleep(Duration::from_millis(700));
    let settled = cpu_seconds(server.pid()).unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let idle = cpu_seconds(server.pid()).unwrap() - settled;
    assert!(
        idle < 0.3,
        "the server used {idle:.2} CPU s in a second after the client left (from {before:.2})"
    );
    // And the server still answers.
    assert_eq!(get(&server.addr, "/api/info").status, 200);
}

/// A client that goes away while its search is still starting (a tab that
/// aborts its fetch, `curl -m 0.1`) leaves no search behind, however early
/// it goes: the request owns the search from the moment it is accepted.
#[test]
fn an_analysis_dropped_while_it_starts_leaves_no_search() {
    let server = Server::start(&["--threads", "1", "--hash", "256"]);
    for (i, delay) in [0u64, 2, 5, 10, 20, 35, 50].into_iter().enumerate() {
        // A change of variant clears the 256 MiB table, so the search
        // takes a while to start.
        let variant = if i % 2 == 0 { "copenhagen" } else { "brandubh" };
        let body = json!({ "variant": variant, "infinite": true }).to_string();
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        write!(
            stream,
            "POST /api/analyse HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            server.addr,
            body.len()
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        drop(stream);
        wait_until(&format!("no search after a drop at {delay} ms"), || {
            !searching(&server.addr)
        });
    }
    // And the process is idle: no search runs unseen by /api/info.
    if let Some(before) = cpu_seconds(server.pid()) {
        std::thread::sleep(Duration::from_secs(1));
        let idle = cpu_seconds(server.pid()).unwrap() - before;
        assert!(idle < 0.3, "{idle:.2} CPU s in a second with no client");
    }
}

#[test]
fn bad_input_gets_4xx_and_the_server_carries_on() {
    let mut server = Server::start(&["--threads", "1"]);
    let addr = server.addr.clone();
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/api/position", "{not json".into(), 400, "bad-json"),
        ("/api/position", "[]".into(), 400, "bad-json"),
        ("/api/position", json!({ "variant": "chess" }).to_string(), 400, "unknown-variant"),
        ("/api/position", json!({ "variant": "tablut", "rules": { "KingArmed": "banana" } }).to_string(), 400, "bad-rules"),
        ("/api/position", json!({ "variant": "tablut", "rules": { "Gravity": "on" } }).to_string(), 400, "bad-rules"),
        ("/api/position", json!({ "variant": "tablut", "start": "/3t3/ a" }).to_string(), 400, "bad-start"),
        ("/api/position", json!({ "variant": "tablut", "start": "/13/13/13/13/13/13/13/13/13/13/13/13/13/ a" }).to_string(), 400, "bad-start"),
        ("/api/position", json!({ "variant": "tablut", "moves": ["e2-d2", "zz"] }).to_string(), 400, "illegal-move"),
        ("/api/position", json!({ "variant": "tablut", "moves": 5 }).to_string(), 400, "bad-json"),
        ("/api/position", json!({ "variant": "tablut", "movez": [] }).to_string(), 400, "bad-json"),
        ("/api/position", json!({ "variant": "tablut", "moves": vec!["e2-d2"; 5001] }).to_string(), 400, "too-many-moves"),
        ("/api/position", format!("{{\"variant\":\"tablut\",\"start\":\"{}\"}}", "x".repeat(300 * 1024)), 413, "body-too-large"),
        ("/api/analyse", json!({ "variant": "tablut" }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "depth": 0 }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "depth": 500 }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "movetime": 0 }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "movetime": 999_999_999u64 }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "infinite": true, "depth": 3 }).to_string(), 400, "bad-limit"),
        ("/api/analyse", json!({ "variant": "tablut", "depth": 3, "multipv": 9 }).to_string(), 400, "bad-multipv"),
        ("/api/analyse", json!({ "variant": "tablut", "depth": 3, "moves": ["a1-a2"] }).to_string(), 400, "illegal-move"),
        ("/api/stop", "{\"search\": \"x\"}".into(), 400, "bad-json"),
        ("/api/import", json!({ "text": "hello there" }).to_string(), 400, "bad-record"),
        ("/api/import", json!({ "text": "" }).to_string(), 400, "bad-record"),
        ("/api/import", json!({ "text": "d1-d3", "variant": "nope" }).to_string(), 400, "unknown-variant"),
        ("/api/export", json!({ "variant": "tablut", "format": "pgn" }).to_string(), 400, "bad-format"),
        ("/api/export", json!({ "variant": "tablut", "format": "konakis", "result": { "winner": null, "reason": "time" } }).to_string(), 400, "bad-result"),
    ];
    for (path, body, status, code) in cases {
        let a = post(&addr, path, &body);
        let shown = &body[..body.len().min(80)];
        assert_eq!(a.status, status, "{path} {shown}: {}", a.body);
        assert_eq!(a.json()["error"], code, "{path} {shown}");
        assert!(a.json()["message"].as_str().unwrap().len() > 3);
    }
    // An illegal move names its index and why.
    let a = post(
        &addr,
        "/api/position",
        &json!({ "variant": "tablut", "moves": ["e2-d2", "e5-e1"] }).to_string(),
    )
    .json();
    assert_eq!(a["move_index"], 1);
    assert_eq!(a["move"], "e5-e1");
    assert_eq!(a["why"], "the piece on e4 is in the way");
    let a = post(
        &addr,
        "/api/position",
        &json!({ "variant": "tablut", "moves": ["e3-f3"] }).to_string(),
    )
    .json();
    assert_eq!(
        a["why"],
        "it is the attackers' turn, and e3 holds a piece of the defenders"
    );
    // The wrong method, and a request cut off half-way.
    assert_eq!(get(&addr, "/api/position").status, 405);
    {
        let mut s = TcpStream::connect(&addr).unwrap();
        let _ = write!(
            s,
            "POST /api/position HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 100\r\n\r\n{{\"variant"
        );
    }
    assert!(server.alive());
    assert_eq!(get(&addr, "/api/variants").status, 200);
    let ok = post(
        &addr,
        "/api/position",
        &json!({ "variant": "tablut", "moves": ["e2-d2"] }).to_string(),
    );
    assert_eq!(ok.status, 200);
}

#[test]
fn other_pages_and_other_hosts_are_refused() {
    let server = Server::start(&["--threads", "1"]);
    let addr = &server.addr;
    let body = json!({ "variant": "tablut" }).to_string();
    let json_type = ("Content-Type", "application/json");
    let foreign = request(
        addr,
        "POST",
        "/api/position",
        &[json_type, ("Origin", "http://evil.example")],
        &body,
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(foreign.json()["error"], "forbidden-origin");
    let search = json!({ "variant": "tablut", "infinite": true }).to_string();
    let foreign = request(
        addr,
        "POST",
        "/api/analyse",
        &[json_type, ("Origin", "null")],
        &search,
    );
    assert_eq!(foreign.status, 403);
    assert!(!searching(addr));
    let upgrade = request(
        addr,
        "GET",
        "/api/variants",
        &[
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Origin", "http://evil.example"),
        ],
        "",
    );
    assert_eq!(upgrade.status, 403);
    // DNS rebinding: a name that is not this server's.
    let rebound = request(addr, "GET", "/", &[("Host", "evil.example")], "");
    assert_eq!(rebound.status, 403);
    assert_eq!(rebound.json()["error"], "forbidden-host");
    let port = addr.rsplit(':').next().unwrap();
    let rebound = request(
        addr,
        "GET",
        "/api/variants",
        &[("Host", &format!("evil.example:{port}"))],
        "",
    );
    assert_eq!(rebound.status, 403);
    // The page's own origin, and localhost, are served.
    let own = format!("http://{addr}");
    let same = request(
        addr,
        "POST",
        "/api/position",
        &[json_type, ("Origin", &own)],
        &body,
    );
    assert_eq!(same.status, 200);
    let local = request(
        addr,
        "GET",
        "/api/variants",
        &[("Host", &format!("localhost:{port}"))],
        "",
    );
    assert_eq!(local.status, 200);
}

#[test]
fn games_import_and_export() {
    let server = Server::start(&["--threads", "1"]);
    let addr = &server.addr;
    // People's comma-separated games: no variant named, so one is found.
    let csv = format!("{REAL_GAME},2,2,White\nd1-d3 e5-e2,0,0,Ongoing\n");
    let read = post(
        addr,
        "/api/import",
        &json!({ "text": csv, "variant": "tablut" }).to_string(),
    )
    .json();
    assert_eq!(read["format"], "csv");
    let games = read["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["variant"], "copenhagen");
    assert_eq!(games[0]["guessed"], true);
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 22);
    assert_eq!(games[0]["recorded"]["winner"], "defenders");

    // Export as a runner record and as OpenTafl, and read both back.
    let spec = json!({ "variant": "copenhagen", "moves": moves(REAL_GAME), "format": "konakis", "attackers": "Ann Smith", "defenders": "Konakis" });
    let record = post(addr, "/api/export", &spec.to_string()).json();
    let line = record["text"].as_str().unwrap();
    assert!(
        line.starts_with("konakis-game 1 | game 1 | variant copenhagen | rules - | start"),
        "{line}"
    );
    assert!(
        line.contains("attackers Ann_Smith") && line.contains("result draw unfinished"),
        "{line}"
    );
    let back = post(addr, "/api/import", &json!({ "text": line }).to_string()).json();
    assert_eq!(back["format"], "konakis");
    assert_eq!(back["games"][0]["moves"], json!(moves(REAL_GAME)));
    assert_eq!(back["games"][0]["guessed"], false);
    assert!(back["games"][0]["recorded"].is_null());

    let mut otg = spec.clone();
    otg["format"] = json!("opentafl");
    let otg = post(addr, "/api/export", &otg.to_string()).json();
    let text = otg["text"].as_str().unwrap();
    assert!(
        text.contains("[result:?]") && text.contains("dim:11") && text.contains("1. k8-h8 f4-b4"),
        "{text}"
    );
    let back = post(addr, "/api/import", &json!({ "text": text }).to_string()).json();
    assert_eq!(back["format"], "opentafl");
    assert_eq!(back["games"][0]["variant"], "copenhagen");
    assert_eq!(back["games"][0]["moves"], json!(moves(REAL_GAME)));

    // A game lost on time keeps its result; changed rules travel along.
    let timed = json!({ "variant": "brandubh", "rules": { "KingArmed": "false" }, "moves": ["d6-f6"], "format": "konakis", "result": { "winner": "attackers", "reason": "time" } });
    let line = post(addr, "/api/export", &timed.to_string()).json()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        line.contains("rules KingArmed=false") && line.contains("result attackers time"),
        "{line}"
    );
    let back = post(addr, "/api/import", &json!({ "text": line }).to_string()).json();
    assert_eq!(back["games"][0]["rules"], json!({ "KingArmed": "false" }));
    assert_eq!(back["games"][0]["recorded"]["reason"], "time");

    // An OpenTafl record of a real file's shape, with its comments.
    let opentafl = "[date:2017.04.15]\n[result:-1]\n[compiler:OpenTafl]\n[rules:dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n1. d7-f7 d5-f5\n[|]\n\n2. d6-e6 Kd4-d5\n";
    let read = post(
        addr,
        "/api/import",
        &json!({ "text": opentafl }).to_string(),
    )
    .json();
    assert_eq!(
        read["games"][0]["moves"],
        json!(["d7-f7", "d5-f5", "d6-e6", "d4-d5"])
    );
    assert_eq!(read["games"][0]["recorded"]["winner"], "defenders");

    // 13x13 is refused with a reason.
    let big = "[rules:dim:13 name:Big start:/5ttt5/6t6/13/13/13/t11t/tt4K5tt/t11t/13/13/13/6t6/5ttt5/]\n1. f1-f2\n";
    let refused = post(addr, "/api/import", &json!({ "text": big }).to_string());
    assert_eq!(refused.status, 400);
    assert!(
        refused.json()["message"].as_str().unwrap().contains("11"),
        "{}",
        refused.body
    );
}

/// The first 100 plies of a real Copenhagen game (line 43 of
/// ../shared/cases/real/copenhagen.csv), for the review timing.
const GAME_100: &str = "h1-h3 f4-i4 k8-i8 g5-g2 e1-e2 g2-j2 f2-i2 g6-g3 f1-f3 g7-g3 k4-k2 i4-i3 a4-i4 g3-k3 i2-k2 k3-j3 k2-j2 j3-g3 f3-d3 f5-j5 k7-i7 f6-f2 k5-k3 f2-f1 g1-i1 e5-b5 i4-b4 j5-b5 b6-b9 f1-e1 e2-c2 b5-c5 d3-c3 h6-h1 f10-c10 e1-f1 h11-h3 g3-g2 h3-h2 f7-f2 c3-e3 f1-e1 g11-g4 e6-e4 i7-f7 e1-e2 k3-c3 c5-i5 g4-i4 i5-g5 c2-d2 g5-g7 a6-c6 d6-h6 a8-e8 g7-g8 c6-e6 h6-h7 a7-d7 h7-h3 a5-d5 h3-k3 i4-i2 f2-f1 b4-d4 f1-e1 d7-f7 e4-f4 d4-e4 f4-f3 c3-e3 g8-g3 i8-g8 k3-h3 b9-b2 g2-h2 f7-f4 h3-h5 d5-g5 h2-h3 i2-f2 g3-g2 f4-f1 e2-f2 e3-f3 h3-h4 k6-k3 h4-f4 f1-g1 f2-f3 d11-d3 f4-f8 g5-g3 f3-f7 d3-d7 f7-k7 g8-k8 k7-j7 k8-j8 f8-f9";

/// Times a review as the page runs it (`/api/review`, every position
/// searched on its own) of a 100-ply Copenhagen game at 20,000 and 100,000
/// nodes a position, with one thread and with every core. A measurement,
/// not a check: `cargo test --release --test serve -- --ignored
/// --nocapture review_timing` (figures in docs/results/serve.md).
#[test]
#[ignore]
fn review_timing() {
    let all = moves(GAME_100);
    assert_eq!(all.len(), 100);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1];
    if cores > 1 {
        counts.push(cores);
    }
    for threads in counts {
        let server = Server::start(&["--threads", &threads.to_string()]);
        for nodes in [20_000, 100_000] {
            let started = Instant::now();
            let body =
                json!({ "variant": "copenhagen", "moves": &all, "nodes": nodes }).to_string();
            let events = post(&server.addr, "/api/review", &body).events();
            let (name, _) = events.last().unwrap();
            assert_eq!(name, "review");
            let secs = started.elapsed().as_secs_f64();
            println!(
                "review of 101 positions at {nodes} nodes each, {threads} searcher(s): {secs:.1} s"
            );
        }
    }
}
