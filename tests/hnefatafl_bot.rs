//! `konakis hnefatafl-bot` against a scripted fake of the hnefatafl-copenhagen
//! server (6.4.1's text protocol, lines as the real server sends them):
//! login errors, a login retried after `logged_in_already`, both roles on
//! both boards, a refused move, a dropped connection resumed with
//! `resume_game_json`, the end of a game, and the defenders' forbidden
//! repetitions.

use konakis::play::{accept_draw, should_resign};
use konakis::protocol::hnefatafl_bot::{
    parse_resumed, Bot, BotSettings, Clock, GameOffer, GameReport, Mode, ServerLine,
    PROTOCOL_VERSION,
};
use konakis::rules::{Game, Move, Preset, Rules, Side, Square};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One connection seen from the fake server.
struct Peer {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Peer {
    fn accept(listener: &TcpListener) -> Peer {
        let (s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Peer {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }
    fn send(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
    }
    fn line(&mut self) -> String {
        let mut l = String::new();
        let n = self.reader.read_line(&mut l).unwrap();
        assert!(n > 0, "the bot closed the connection");
        l.trim_end().to_string()
    }
    /// Reads lines until one starts with `prefix`.
    fn expect(&mut self, prefix: &str) -> String {
        loop {
            let l = self.line();
            if l.starts_with(prefix) {
                return l;
            }
        }
    }
    /// The login line; answers `answer`.
    fn login(&mut self, answer: &str) -> String {
        let l = self.line();
        assert!(l.starts_with(PROTOCOL_VERSION), "login line: {l}");
        self.send(answer);
        l
    }
    /// The bot's move line `game <id> play <role> <from> <to>`, as a move.
    fn bot_move(&mut self, id: u128, role: &str, size: usize) -> Move {
        let l = self.expect(&format!("game {id} play {role} "));
        let w: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(w.len(), 6, "move line: {l}");
        let from = Square::parse(w[4], size).unwrap();
        let to = Square::parse(w[5], size).unwrap();
        Move::new(from, to)
    }
}

fn settings(port: u16, mode: Mode) -> BotSettings {
    BotSettings {
        port,
        nodes: Some(1500),
        hash_mib: 8,
        backoff: Duration::from_millis(10),
        reconnects: 3,
        ..BotSettings::new("127.0.0.1", "ai-konakis", "pw", mode)
    }
}

fn offer(role: Side, board: usize) -> Mode {
    Mode::Create(GameOffer {
        role,
        board,
        clock: Clock::Fischer {
            ms: 60_000,
            add_s: 1,
        },
        rated: false,
    })
}

type BotThread = thread::JoinHandle<Result<Vec<GameReport>, String>>;
type LogLines = Arc<Mutex<Vec<String>>>;

/// Runs the bot in a thread; its log lines are collected.
fn start_bot(s: BotSettings) -> (BotThread, LogLines) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l2 = log.clone();
    let h = thread::spawn(move || {
        let mut f = |line: &str| l2.lock().unwrap().push(line.to_string());
        Bot::new(s, &mut f)?.run()
    });
    (h, log)
}

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

/// The server's side of a posted game up to `= join_game`.
fn post_and_start(p: &mut Peer, id: u128, attacker: &str, defender: &str, board: usize) {
    let l = p.expect("new_game ");
    let json: serde_json::Value = serde_json::from_str(&l["new_game ".len()..]).unwrap();
    assert_eq!(json["board_size"], board);
    p.send(&format!("= new_game {id}"));
    p.send(&format!("= challenge_requested {id}"));
    assert_eq!(p.expect("join_game "), format!("join_game {id}"));
    p.send(&format!(
        "= join_game {attacker} {defender} unrated fischer 60000 1 {board}"
    ));
}

/// The server plays its side's first legal move.
fn server_move(p: &mut Peer, game: &mut Game, id: u128, role: &str) {
    let mv = game.legal_moves()[0];
    game.play(mv).unwrap();
    p.send(&format!("game {id} play {role} {} {}", mv.from(), mv.to()));
}

/// The server's `= resume_game_json` line for a game on 11x11 (the
/// JSON the real server sends, its fields in its order).
fn resume_line(id: u128, bot_attacks: bool, moves: &[Move], clock_ms: Option<[i64; 2]>) -> String {
    let (attackers, defenders) = if bot_attacks {
        ("ai-konakis", "human")
    } else {
        ("human", "ai-konakis")
    };
    let moves: Vec<String> = moves
        .iter()
        .map(|m| format!("{}-{}", m.from(), m.to()))
        .collect();
    let json = serde_json::json!({
        "id": id,
        "attackers": attackers,
        "defenders": defenders,
        "dim": 11,
        "start": "",
        "time_control": clock_ms.map(|_| serde_json::json!({"main_time_seconds": 60, "increment_length": 1})),
        "time_remaining_ms": clock_ms.map(|[a, d]| serde_json::json!({"attackers": a, "defenders": d, "last_move": "2026-12-01T00:00:00Z"})),
        "moves": moves.join(" "),
        "rated": false,
        "messages": [],
    });
    format!("= resume_game_json {json}")
}

#[test]
fn login_refusals_are_clear_errors() {
    for (answer, expected) in [
        ("? login wrong_version", "wrong_version"),
        (
            "? login multiple_possible_errors wrong_password",
            "wrong_password",
        ),
    ] {
        let (l, port) = listener();
        let (bot, _) = start_bot(settings(port, offer(Side::Attackers, 11)));
        let mut p = Peer::accept(&l);
        p.login(answer);
        let err = bot.join().unwrap().unwrap_err();
        assert!(err.contains(expected), "{err}");
        if expected == "wrong_version" {
            assert!(err.contains(PROTOCOL_VERSION), "{err}");
        }
    }
}

/// A login refused for now (`logged_in_already`) is retried on a new
/// connection; then the bot posts a game as attacker, moves first, and
/// stops at `game_over` with the result.
#[test]
fn retries_the_login_then_plays_attackers_to_game_over() {
    let (l, port) = listener();
    let mut s = settings(port, offer(Side::Attackers, 11));
    s.create_account = true;
    let (bot, _) = start_bot(s);
    let mut p = Peer::accept(&l);
    let first = p.login("? login multiple_possible_errors logged_in_already");
    assert!(first.contains(" create_account ai-konakis pw"), "{first}");
    drop(p);
    let mut p = Peer::accept(&l);
    let second = p.login("= login");
    assert!(second.contains(" login ai-konakis pw"), "{second}");
    p.send("version 6.4.1");
    post_and_start(&mut p, 5, "ai-konakis", "human", 11);
    p.send("game 5 generate_move attacker");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg11));
    for _ in 0..3 {
        let mv = p.bot_move(5, "attacker", 11);
        game.play(mv).expect("the bot's move is legal");
        p.send("= game");
        p.send(r#"= game_time {"id":5,"attacker_ms_left":59000,"defender_ms_left":60000}"#);
        server_move(&mut p, &mut game, 5, "defender");
        p.send("game 5 generate_move attacker");
    }
    p.bot_move(5, "attacker", 11);
    p.send("= game_over 5 defender_wins");
    let reports = bot.join().unwrap().unwrap();
    assert_eq!(
        reports,
        vec![GameReport {
            id: 5,
            ours: Side::Attackers,
            winner: Some(Side::Defenders),
            plies: 7,
        }]
    );
}

/// Joining a posted 7x7 game as the defenders, who move first there.
#[test]
fn joins_a_brandubh_game_as_defenders() {
    let (l, port) = listener();
    let (bot, log) = start_bot(settings(port, Mode::Join { id: 9 }));
    let mut p = Peer::accept(&l);
    p.login("= login");
    assert_eq!(p.expect("join_game_pending"), "join_game_pending 9");
    p.send("= join_game_pending 9");
    p.send("= join_game human ai-konakis unrated fischer 60000 1 7");
    p.send("game 9 generate_move defender");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg7));
    for _ in 0..4 {
        let mv = p.bot_move(9, "defender", 7);
        game.play(mv).expect("the bot's move is legal");
        if game.outcome().is_some() {
            break;
        }
        server_move(&mut p, &mut game, 9, "attacker");
        if game.outcome().is_some() {
            break;
        }
        p.send("game 9 generate_move defender");
    }
    p.send("= game_over 9 attacker_wins");
    let reports = bot.join().unwrap().unwrap();
    assert_eq!(reports[0].ours, Side::Defenders);
    assert_eq!(reports[0].winner, Some(Side::Attackers));
    let log = log.lock().unwrap().join("\n");
    assert!(log.contains("7x7"), "{log}");
}

/// A move the server refuses is taken back, the game is fetched again,
/// and another move is sent.
#[test]
fn a_refused_move_is_replaced_by_another() {
    let (l, port) = listener();
    let (bot, log) = start_bot(settings(port, offer(Side::Attackers, 11)));
    let mut p = Peer::accept(&l);
    p.login("= login");
    post_and_start(&mut p, 3, "ai-konakis", "human", 11);
    p.send("game 3 generate_move attacker");
    let first = p.bot_move(3, "attacker", 11);
    p.send("? game play: you already reached that position");
    assert_eq!(p.expect("resume_game_json"), "resume_game_json 3");
    p.send(&resume_line(3, true, &[], None));
    let second = p.bot_move(3, "attacker", 11);
    assert_ne!(first, second, "the refused move came again");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg11));
    game.play(second).expect("legal");
    p.send("= game_over 3 attacker_wins");
    let reports = bot.join().unwrap().unwrap();
    assert_eq!(reports[0].winner, Some(Side::Attackers));
    assert!(log
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("refused our move")));
}

/// The connection drops after our move; the bot logs in again, asks for
/// the game with `resume_game_json`, learns the move it missed and plays.
#[test]
fn resumes_the_game_after_a_dropped_connection() {
    let (l, port) = listener();
    let (bot, _) = start_bot(settings(port, offer(Side::Attackers, 11)));
    let mut p = Peer::accept(&l);
    p.login("= login");
    post_and_start(&mut p, 7, "ai-konakis", "human", 11);
    p.send("game 7 generate_move attacker");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg11));
    let mv = p.bot_move(7, "attacker", 11);
    game.play(mv).unwrap();
    drop(p);
    // The opponent moves while the bot is away.
    let reply = game.legal_moves()[0];
    game.play(reply).unwrap();
    let mut p = Peer::accept(&l);
    let again = p.login("= login");
    assert!(again.contains(" login "), "{again}");
    assert_eq!(p.expect("resume_game_json"), "resume_game_json 7");
    p.send(&resume_line(7, true, &[mv, reply], Some([55_000, 58_000])));
    let next = p.bot_move(7, "attacker", 11);
    game.play(next)
        .expect("the bot's move after resuming is legal");
    p.send("= game_over 7 attacker_wins");
    let reports = bot.join().unwrap().unwrap();
    assert_eq!(reports[0].plies, 3);
}

/// A move the bot never heard (a lost line): asked to move while its game
/// has the other side to move, it fetches the game and then plays.
#[test]
fn a_missed_move_is_fetched_before_moving() {
    let (l, port) = listener();
    let (bot, log) = start_bot(settings(port, Mode::Join { id: 4 }));
    let mut p = Peer::accept(&l);
    p.login("= login");
    p.expect("join_game_pending");
    p.send("= join_game_pending 4");
    p.send("= join_game human ai-konakis unrated fischer 60000 1 11");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg11));
    let theirs = game.legal_moves()[0];
    game.play(theirs).unwrap();
    // The `game 4 play attacker …` line is lost; only the request comes.
    p.send("game 4 generate_move defender");
    assert_eq!(p.expect("resume_game_json"), "resume_game_json 4");
    p.send(&resume_line(4, false, &[theirs], None));
    let mv = p.bot_move(4, "defender", 11);
    game.play(mv).expect("legal after the resync");
    p.send("= game_over 4 defender_wins");
    bot.join().unwrap().unwrap();
    assert!(log
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("other side to move")));
}

/// Playing the defenders while the attackers shuffle one piece back and
/// forth: the fake server refuses (with the real server's words) any move
/// that recreates an earlier board, and none comes.
#[test]
fn the_defenders_never_recreate_a_board() {
    let (l, port) = listener();
    let (bot, _) = start_bot(settings(port, Mode::Join { id: 2 }));
    let mut p = Peer::accept(&l);
    p.login("= login");
    p.expect("join_game_pending");
    p.send("= join_game_pending 2");
    p.send("= join_game human ai-konakis unrated fischer 60000 1 11");
    let mut game = Game::new(Rules::preset(Preset::HnefataflOrg11));
    let shuffle = [
        Move::parse("a4-a3", 11).unwrap(),
        Move::parse("a3-a4", 11).unwrap(),
    ];
    let mut refused = 0;
    for ply in 0..16 {
        let ours = shuffle[ply % 2];
        if game.play(ours).is_err() || game.outcome().is_some() {
            break;
        }
        p.send(&format!(
            "game 2 play attacker {} {}",
            ours.from(),
            ours.to()
        ));
        p.send("game 2 generate_move defender");
        loop {
            let mv = p.bot_move(2, "defender", 11);
            match game.play(mv) {
                Ok(()) => break,
                Err(e) => {
                    assert!(e.contains("recreate"), "{e}");
                    refused += 1;
                    p.send("? game play: you already reached that position");
                    p.expect("resume_game_json");
                    p.send(&resume_line(2, false, game.moves(), None));
                }
            }
        }
        if game.outcome().is_some() {
            break;
        }
    }
    p.send("= game_over 2 defender_wins");
    bot.join().unwrap().unwrap();
    assert_eq!(refused, 0, "the bot sent a forbidden repetition");
}

#[test]
fn server_lines_parse() {
    assert_eq!(ServerLine::parse("= login"), ServerLine::LoggedIn);
    assert_eq!(
        ServerLine::parse("= join_game pa1 pb1 unrated fischer 300000 10 11"),
        ServerLine::JoinGame {
            attacker: "pa1".into(),
            defender: "pb1".into(),
            board: 11,
            clock: Clock::Fischer {
                ms: 300_000,
                add_s: 10
            },
        }
    );
    assert_eq!(
        ServerLine::parse("game 3 play attacker d1 d3"),
        ServerLine::Play {
            id: 3,
            side: Side::Attackers,
            from: "d1".into(),
            to: "d3".into()
        }
    );
    assert_eq!(
        ServerLine::parse("game 3 play attacker resigns "),
        ServerLine::Resign {
            id: 3,
            side: Side::Attackers
        }
    );
    assert_eq!(
        ServerLine::parse(
            r#"= game_time {"id":3,"attacker_ms_left":307751,"defender_ms_left":300000}"#
        ),
        ServerLine::GameTime([307_751, 300_000])
    );
    assert_eq!(
        ServerLine::parse("= game_over 3 defender_wins"),
        ServerLine::GameOver {
            id: 3,
            winner: Side::Defenders
        }
    );
    assert_eq!(
        ServerLine::parse("? game play: it isn't your turn"),
        ServerLine::Refused {
            command: "game".into(),
            why: "play: it isn't your turn".into()
        }
    );
    assert_eq!(ServerLine::parse("garbage \u{0} line"), ServerLine::Other);
    assert_eq!(ServerLine::parse(""), ServerLine::Other);
    assert_eq!(
        ServerLine::parse("game x play attacker d1 d3"),
        ServerLine::Other
    );
    let g = parse_resumed(r#"{"id":3,"attackers":"a","defenders":"b","dim":11,"start":"","time_control":null,"time_remaining_ms":{"attackers":1,"defenders":2,"last_move":"x"},"moves":"d1-d3 e5-e2 d3-d2xe2 ---","rated":false,"messages":[]}"#).unwrap();
    assert_eq!(g.moves.len(), 3);
    assert_eq!(g.moves[2], ("d3".to_string(), "d2".to_string()));
    assert_eq!(g.clock_ms, Some([1, 2]));
    assert!(parse_resumed("{not json").is_err());
}

#[test]
fn clocks_parse_and_policies_hold() {
    assert_eq!(
        "300000+10".parse::<Clock>(),
        Ok(Clock::Fischer {
            ms: 300_000,
            add_s: 10
        })
    );
    assert_eq!("untimed".parse::<Clock>(), Ok(Clock::Untimed));
    for bad in ["", "300000", "x+1", "0+5", "10+-1"] {
        assert!(bad.parse::<Clock>().is_err(), "{bad}");
    }
    assert!(should_resign(-29_990));
    assert!(!should_resign(-500));
    assert!(!accept_draw(None, 10, 141));
    assert!(!accept_draw(Some(50), 10, 141));
    assert!(accept_draw(Some(-400), 10, 141));
    assert!(accept_draw(Some(50), 135, 141));
    assert!(!accept_draw(Some(29_990), 135, 141));
}
