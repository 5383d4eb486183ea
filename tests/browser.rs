//! The browser board as a person uses it: Debian's Chromium, headless,
//! driven through ChromeDriver (WebDriver) with real clicks. It loads the
//! page, plays a move by clicking and sees Konakis' reply on the board,
//! starts an analysis and sees a line and an arrow, imports a short game,
//! reviews it and sees the graph. Screenshots go to `target/browser-test/`
//! (and to `$KONAKIS_SCREENSHOTS` when set: `docs/img` for the README).
//!
//! Needs `chromium` and `chromedriver` (`apt install chromium
//! chromium-driver`; `.ci/run` installs them). Without them the test says
//! so and passes, unless `KONAKIS_REQUIRE_BROWSER=1` (set by `.ci/run`).

mod common;

use common::server::Server;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A real Copenhagen game of 22 plies (the same as tests/serve.rs).
const REAL_GAME: &str = "k8-h8 f4-b4 k4-c4xb4 g5-i5 a8-c8 g7-g8 g11-g9 i5-i8xh8 h1-h5 h6-h9 g1-i1 f8-f9xg9 d1-d3 g6-g3 j6-j2 f6-j6 f10-j10 i8-i11 b6-b10 j6-j9 j10-j11xi11 j9-j10";

fn find_program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(env) {
        return Some(PathBuf::from(p));
    }
    for dir in std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .chain(["/usr/bin", "/usr/lib/chromium"])
    {
        for name in names {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Runs `script` (a JS expression's body: `return …`) until it gives a
/// truthy value, and returns it.
async fn wait_for(client: &Client, what: &str, script: &str, seconds: u64) -> Value {
    let end = Instant::now() + Duration::from_secs(seconds);
    loop {
        let v = js(client, script).await;
        let truthy = match &v {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            return v;
        }
        if Instant::now() > end {
            let status = client
                .execute("return document.getElementById('status').textContent + ' | ' + document.getElementById('message').textContent", vec![])
                .await
                .unwrap_or(Value::Null);
            panic!("timed out after {seconds} s waiting for {what}; page says {status}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn shot(client: &Client, name: &str) {
    let png = client.screenshot().await.expect("screenshot");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../browser-test");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    std::fs::write(dir.join(name), &png).expect("write screenshot");
    if let Ok(extra) = std::env::var("KONAKIS_SCREENSHOTS") {
        std::fs::create_dir_all(&extra).expect("screenshot folder");
        std::fs::write(Path::new(&extra).join(name), &png).expect("write screenshot");
    }
}

/// Clicks the element `css` finds. The board is drawn anew on every
/// change, so an element found just before a redraw is found again.
async fn click(client: &Client, css: &str) {
    let mut tries = 0;
    loop {
        let result = match client.find(Locator::Css(css)).await {
            Ok(element) => element.click().await,
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => return,
            Err(e) if tries < 20 => {
                let _ = e;
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("click {css}: {e}"),
        }
    }
}

/// Runs `script`. A question the page asked ("sets this game aside…")
/// that a step answers yes to on purpose is accepted by the session's
/// prompt handler, which ChromeDriver reports as an error once: the
/// script is then run again.
async fn js(client: &Client, script: &str) -> Value {
    match client.execute(script, vec![]).await {
        Ok(v) => v,
        Err(e) if e.is_unexpected_alert_open() => {
            client.execute(script, vec![]).await.expect("script runs")
        }
        Err(e) => panic!("script runs: {e}"),
    }
}

#[tokio::test]
async fn a_person_plays_analyses_and_reviews_in_chromium() {
    let required = std::env::var("KONAKIS_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let chromium = find_program(
        "KONAKIS_CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    );
    let chromedriver = find_program("KONAKIS_CHROMEDRIVER", &["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        assert!(
            !required,
            "KONAKIS_REQUIRE_BROWSER=1 but chromium or chromedriver is missing"
        );
        eprintln!("SKIPPED: the browser test needs chromium and chromedriver (apt install chromium chromium-driver)");
        return;
    };
    let server = Server::start(&["--threads", "1"]);
    let port = free_port();
    let _driver = Driver(
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver"),
    );
    let profile = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("chromium-profile-{}", std::process::id()));
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-quic",
                "--no-first-run", "--disable-sync", "--window-size=1400,1000",
                format!("--user-data-dir={}", profile.display()),
            ],
        },
        // "A new game" mid-game asks first: the steps that do it on purpose
        // are answered yes; the rules-change step answers by hand.
        "unhandledPromptBehavior": "accept",
    });
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(caps.as_object().expect("an object").clone());
    let webdriver = format!("http://127.0.0.1:{port}");
    let client = {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            match builder.connect(&webdriver).await {
                Ok(c) => break c,
                Err(e) if Instant::now() < end => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("cannot start a Chromium session: {e}"),
            }
        }
    };

    // The page loads and draws the Copenhagen board: 24 attackers, 12
    // defenders and the king.
    client.goto(&server.url).await.expect("open the page");
    wait_for(
        &client,
        "the board",
        "return document.querySelectorAll('#board g.piece').length === 37",
        20,
    )
    .await;
    let load = js(&client, "const n = performance.getEntriesByType('navigation')[0]; return {load: n.loadEventEnd, ready: window.konakisMetrics.ready}").await;
    println!(
        "page: load event {} ms, board drawn {} ms after navigation start",
        load["load"], load["ready"]
    );
    shot(&client, "board.png").await;

    // A game against Konakis, which plays the defenders at 0.3 s a move.
    js(&client, "document.getElementById('opponent').value = 'engine-defenders'; document.getElementById('time-kind').value = 'movetime'; document.getElementById('movetime').value = '0.3';").await;
    click(&client, "#start-game").await;
    wait_for(
        &client,
        "a new game",
        "return document.getElementById('status').textContent.includes('your move')",
        10,
    )
    .await;
    // An illegal attempt does nothing and says why.
    click(&client, "g.piece[data-square='d1']").await;
    wait_for(
        &client,
        "d1's destinations",
        "return document.querySelectorAll('#board .dest').length > 0",
        5,
    )
    .await;
    click(&client, "rect[data-square='d8']").await;
    let why = wait_for(
        &client,
        "a reason",
        "return document.getElementById('message').textContent",
        5,
    )
    .await;
    assert!(why.as_str().unwrap().contains("in the way"), "{why}");
    assert_eq!(
        js(
            &client,
            "return document.querySelectorAll('#moves .mv').length"
        )
        .await,
        json!(0)
    );
    // A legal move by two clicks, then Konakis' reply on the board.
    click(&client, "g.piece[data-square='d1']").await;
    click(&client, "rect[data-square='d3']").await;
    wait_for(
        &client,
        "Konakis' reply",
        "return document.querySelectorAll('#moves .mv').length === 2",
        30,
    )
    .await;
    wait_for(
        &client,
        "the turn back",
        "return document.getElementById('status').textContent.includes('your move')",
        10,
    )
    .await;
    let reply = js(
        &client,
        "return document.querySelectorAll('#moves .mv')[1].textContent",
    )
    .await;
    let to = reply
        .as_str()
        .unwrap()
        .split('-')
        .nth(1)
        .unwrap()
        .split('x')
        .next()
        .unwrap()
        .to_string();
    let on_board = js(
        &client,
        &format!("return document.querySelector(\"g.piece[data-square='{to}']\").dataset.piece"),
    )
    .await;
    assert!(
        on_board == "defender" || on_board == "king",
        "the reply {reply} is not on the board: {on_board}"
    );
    assert!(
        js(
            &client,
            "return document.querySelector(\"g.piece[data-square='d3']\") !== null"
        )
        .await
            == json!(true)
    );
    shot(&client, "play.png").await;

    // A game on the clock, Konakis first (the attackers): both clocks show,
    // and after its move the person's clock runs.
    js(&client, "document.getElementById('opponent').value = 'engine-attackers'; document.getElementById('time-kind').value = 'clock'; document.getElementById('time-kind').dispatchEvent(new Event('change')); document.getElementById('clock-minutes').value = '0.5'; document.getElementById('clock-increment').value = '1';").await;
    click(&client, "#start-game").await;
    wait_for(&client, "Konakis' first move on the clock", "return document.querySelectorAll('#moves .mv').length === 1 && document.querySelector('.clock.running .who').textContent.startsWith('Defenders')", 30).await;
    let clocks = js(&client, "return [...document.querySelectorAll('.clock')].map(c => c.hidden ? 'hidden' : c.textContent)").await;
    println!("clocks: {clocks}");
    for c in clocks.as_array().unwrap() {
        assert!(c.as_str().unwrap().contains(":"), "{clocks}");
    }
    shot(&client, "clock.png").await;

    // Analysis: lines with scores, and arrows on the board.
    click(&client, "button[data-tab='analyse']").await;
    click(&client, "#analyse-toggle").await;
    wait_for(&client, "analysis lines", "return document.querySelectorAll('#lines tbody tr').length >= 3 && document.querySelectorAll('#board g.arrow').length >= 1", 30).await;
    // KONAKIS_ANALYSIS_SECONDS lengthens the analysis for measurements.
    let seconds = std::env::var("KONAKIS_ANALYSIS_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let m = js(&client, "const m = window.konakisMetrics; return {first: m.firstInfo, infos: m.infoEvents, seconds: (performance.now() - m.analyseClick) / 1000}").await;
    println!(
        "analysis: first info {} ms after the click; {} info updates in {:.1} s ({:.1} a second)",
        m["first"],
        m["infos"],
        m["seconds"].as_f64().unwrap(),
        m["infos"].as_f64().unwrap() / m["seconds"].as_f64().unwrap()
    );
    let first_line = js(
        &client,
        "return document.querySelector('#lines tbody tr td.pv').textContent",
    )
    .await;
    assert!(first_line.as_str().unwrap().contains('-'), "{first_line}");
    // Winning chances, not raw scores: on the bar and in the lines, with
    // the score in soldiers a hover away.
    let bar = js(&client, "return [document.getElementById('eval-text').textContent, document.getElementById('eval-bar').title]").await;
    assert!(bar[0].as_str().unwrap().ends_with('%'), "{bar}");
    assert!(bar[1].as_str().unwrap().contains("soldiers"), "{bar}");
    let chance = js(
        &client,
        "return document.querySelector('#lines tbody td.score').textContent",
    )
    .await;
    let chance = chance.as_str().unwrap();
    assert!(
        chance.starts_with("attackers ")
            || chance.starts_with("defenders ")
            || chance.starts_with("even "),
        "{chance}"
    );
    shot(&client, "analysis.png").await;
    // The Soldiers toggle shows scores instead, and back.
    click(&client, "#show-soldiers").await;
    wait_for(
        &client,
        "scores in soldiers",
        "const t = document.querySelector('#lines tbody td.score').textContent; return !t.includes('%') && /[0-9][.][0-9][0-9]|#/.test(t)",
        10,
    )
    .await;
    click(&client, "#show-soldiers").await;
    wait_for(
        &client,
        "chances again",
        "return document.querySelector('#lines tbody td.score').textContent.includes('%')",
        10,
    )
    .await;
    click(&client, "#analyse-toggle").await;

    // Import a short real game and review it.
    click(&client, "#import").await;
    js(
        &client,
        &format!("document.getElementById('import-text').value = '{REAL_GAME},2,2,White';"),
    )
    .await;
    click(&client, "#import-read").await;
    wait_for(&client, "the imported game", "return document.querySelectorAll('#moves .mv').length === 22 && !document.getElementById('import-dialog').open", 20).await;
    click(&client, "button[data-tab='review']").await;
    js(
        &client,
        "document.getElementById('review-limit').value = 'nodes:20000';",
    )
    .await;
    click(&client, "#nav-first").await;
    click(&client, "#review-start").await;
    wait_for(
        &client,
        "the review",
        "return !document.getElementById('review-summary').hidden",
        120,
    )
    .await;
    let points = js(
        &client,
        "return document.querySelectorAll('#graph .graph-point').length",
    )
    .await;
    assert_eq!(points, json!(23), "a point for every position");
    assert!(
        js(
            &client,
            "return document.querySelector('#graph .graph-line') !== null"
        )
        .await
            == json!(true)
    );
    let review = js(&client, "return window.konakisMetrics.lastReview").await;
    println!("review: {review}");
    let accuracy = js(
        &client,
        "return document.querySelector('#review-summary tbody tr').textContent",
    )
    .await;
    assert!(
        accuracy.as_str().unwrap().starts_with("Accuracy"),
        "{accuracy}"
    );
    // At a marked move, the better move is an arrow on the board, with its
    // line; "Retry this mistake" goes back to the position before it.
    let marks = js(
        &client,
        "return [...document.querySelectorAll('#review-marks li')].map(li => li.textContent)",
    )
    .await;
    println!("marks: {marks}");
    assert!(
        !marks.as_array().unwrap().is_empty(),
        "the game's blunder is marked"
    );
    click(&client, "#review-marks li").await;
    wait_for(&client, "the better move's arrow", "return document.querySelector('#board g.arrow.better') !== null && !document.getElementById('review-better').hidden", 5).await;
    shot(&client, "review-mistake.png").await;
    let marked_ply = js(
        &client,
        "return Number(document.querySelector('#moves .mv.current').dataset.ply)",
    )
    .await;
    click(&client, "#review-retry").await;
    wait_for(
        &client,
        "the retry",
        &format!("const c = document.querySelector('#moves .mv.current'); return !document.getElementById('retry-status').hidden && document.getElementById('retry-status').textContent.startsWith('Find a better move') && (c ? Number(c.dataset.ply) : 0) === {marked_ply} - 1"),
        5,
    )
    .await;
    // Playing the better move is recognised at once.
    let first_mark = marks[0].as_str().unwrap().to_string();
    let better = first_mark
        .rsplit("better ")
        .next()
        .unwrap()
        .trim()
        .to_string();
    let (from, to) = better.split_once('-').expect("a move");
    click(&client, &format!("g.piece[data-square='{from}']")).await;
    click(&client, &format!("rect[data-square='{to}']")).await;
    wait_for(
        &client,
        "the retry's verdict",
        "return document.getElementById('retry-status').textContent.startsWith('Yes')",
        10,
    )
    .await;
    // A click on the graph jumps to that position.
    click(&client, "#graph rect.graph-hit[data-ply='12']").await;
    wait_for(&client, "the jump", "const c = document.querySelector('#moves .mv.current'); return c && c.dataset.ply === '12'", 5).await;
    shot(&client, "review.png").await;

    lichess_habits(&client, &server).await;

    client.close().await.expect("close the browser");
    let _ = std::fs::remove_dir_all(&profile);
}

/// What a lichess player expects: the game survives a reload, a link opens
/// its position, a right-drag draws an arrow, a rules change mid-game asks
/// first, and on a phone the board stays in view.
async fn lichess_habits(client: &Client, server: &Server) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_RIGHT};
    // A study of a few moves, then a reload: the same moves, the same move shown.
    let moves_now =
        "return [...document.querySelectorAll('#moves .mv')].map(m => m.textContent).join(' ')";
    let before = js(client, moves_now).await;
    let current = js(
        client,
        "return document.querySelector('#moves .mv.current').dataset.ply",
    )
    .await;
    assert!(before.as_str().unwrap().split(' ').count() > 10, "{before}");
    tokio::time::sleep(Duration::from_millis(500)).await; // past the save's debounce
    client.refresh().await.expect("reload");
    wait_for(client, "the game after a reload", &format!("return document.querySelectorAll('#moves .mv').length > 10 && document.querySelector('#moves .mv.current') && document.querySelector('#moves .mv.current').dataset.ply === {current}"), 20).await;
    assert_eq!(
        js(client, moves_now).await,
        before,
        "the reload kept the game"
    );
    assert!(
        js(
            client,
            "return document.querySelectorAll('#review-marks li').length"
        )
        .await
        .as_u64()
        .unwrap()
            > 0,
        "the review survives a reload"
    );

    // A link names the line and the move shown: a new tab opens on it.
    let start = ureq_position(server, "brandubh", &[]);
    let first = start["legal"][0].as_str().unwrap().to_string();
    let next = ureq_position(server, "brandubh", &[&first]);
    let second = next["legal"][0].as_str().unwrap().to_string();
    let link = format!(
        "{}#variant=brandubh&moves={first},{second}&ply=1",
        server.url
    );
    client.goto(&link).await.expect("open the link");
    wait_for(client, "the linked position", "return document.querySelectorAll('#board g.piece').length > 0 && document.querySelectorAll('#board rect.square').length === 49 && document.querySelectorAll('#moves .mv').length === 2 && document.querySelector('#moves .mv.current').dataset.ply === '1'", 20).await;
    let shared = js(client, "return location.hash").await;
    assert!(
        shared.as_str().unwrap().contains("variant=brandubh"),
        "{shared}"
    );

    // A right-drag from one square to another draws an arrow, on a
    // square a circle; neither moves a piece nor says "pick a piece".
    let square = |name: &str| format!("rect[data-square='{name}']");
    let from = client.find(Locator::Css(&square("a1"))).await.expect("a1");
    let to = client.find(Locator::Css(&square("c3"))).await.expect("c3");
    let drag = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: from.clone(),
            duration: None,
            x: 0,
            y: 0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_RIGHT,
        })
        .then(PointerAction::MoveToElement {
            element: to,
            duration: Some(Duration::from_millis(100)),
            x: 0,
            y: 0,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_RIGHT,
        })
        .then(PointerAction::MoveToElement {
            element: from,
            duration: None,
            x: 0,
            y: 0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_RIGHT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_RIGHT,
        });
    client.perform_actions(drag).await.expect("right-drag");
    wait_for(client, "a drawn arrow and circle", "return document.querySelector(\"#board g.shape.arrow.green[data-move='a1-c3']\") !== null && document.querySelector(\"#board circle.shape[data-square='a1']\") !== null", 5).await;
    let said = js(
        client,
        "return document.getElementById('message').textContent",
    )
    .await;
    assert!(!said.as_str().unwrap().contains("Pick one"), "{said}");

    // Changing the rules with moves on the board asks first; no keeps them.
    js(client, "setTimeout(() => { const v = document.getElementById('variant'); v.value = 'tablut'; v.dispatchEvent(new Event('change')); }, 0)").await;
    let mut asked = None;
    for _ in 0..50 {
        if let Ok(text) = client.get_alert_text().await {
            asked = Some(text);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let asked = asked.expect("a question before the rules change");
    assert!(asked.contains("sets this game"), "{asked}");
    client.dismiss_alert().await.expect("answer no");
    assert_eq!(
        js(client, "return document.getElementById('variant').value").await,
        json!("brandubh")
    );
    assert_eq!(
        js(
            client,
            "return document.querySelectorAll('#moves .mv').length"
        )
        .await,
        json!(2)
    );

    // The board editor: a second king says it moved the king, "Copy this
    // position" copies the position being made, and it can be played.
    click(client, "button[data-tab='edit']").await;
    click(client, "#edit-clear").await;
    for (piece, at) in [
        ("king", "c3"),
        ("king", "e5"),
        ("attacker", "a2"),
        ("defender", "b2"),
    ] {
        click(client, &format!("#palette button[data-piece='{piece}']")).await;
        click(client, &square(at)).await;
    }
    let said = js(
        client,
        "return document.getElementById('message').textContent",
    )
    .await;
    assert!(
        said.as_str().unwrap().contains("it moved from c3 to e5"),
        "{said}"
    );
    click(client, "#record-copy").await;
    assert_eq!(
        js(
            client,
            "return document.getElementById('record-input').value"
        )
        .await,
        json!("/7/tT5/7/7/4K2/7/7/ d")
    );
    click(client, "#edit-done").await;
    wait_for(client, "the position set up", "return document.querySelectorAll('#board g.piece').length === 3 && document.getElementById('status').textContent.includes('Defenders to move')", 10).await;

    // On a phone (400x800) the whole board stays in view after a move.
    client.set_window_size(400, 800).await.expect("phone size");
    let copenhagen = format!("{}#variant=copenhagen", server.url);
    client.goto(&copenhagen).await.expect("open the page");
    wait_for(
        client,
        "the board",
        "return document.querySelectorAll('#board g.piece').length === 37",
        20,
    )
    .await;
    // Only the fragment changed: the page stays (on its Analyse tab) and
    // opens the linked game, as a link pasted into its address bar does.
    click(client, "button[data-tab='play']").await;
    js(
        client,
        "document.getElementById('opponent').value = 'people'",
    )
    .await;
    click(client, "#start-game").await;
    wait_for(
        client,
        "a game between people",
        "return document.getElementById('status').textContent.includes('Attackers to move')",
        10,
    )
    .await;
    // The button is below the board: WebDriver scrolled down to click it.
    js(client, "window.scrollTo(0, 0)").await;
    let in_view = "const r = document.getElementById('board').getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight && r.width > 300";
    for (from, to) in [("d1", "d3"), ("f4", "f3")] {
        click(client, &format!("g.piece[data-square='{from}']")).await;
        click(client, &square(to)).await;
        wait_for(
            client,
            "the move",
            &format!("return document.querySelector(\"g.piece[data-square='{to}']\") !== null"),
            5,
        )
        .await;
        let seen = js(client, in_view).await;
        let rect = js(client, "const r = document.getElementById('board').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight, window.scrollY]").await;
        assert_eq!(
            seen,
            json!(true),
            "the board left the screen after {from}-{to}: {rect}"
        );
    }
    shot(client, "phone.png").await;
}

/// `/api/position` of `variant` after `moves`, asked straight of the server.
fn ureq_position(server: &Server, variant: &str, moves: &[&str]) -> Value {
    common::server::post(
        &server.addr,
        "/api/position",
        &json!({ "variant": variant, "moves": moves }).to_string(),
    )
    .json()
}
