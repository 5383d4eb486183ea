//! `konakis tablut-challenge` against an in-process fake of the Tablut
//! Challenge server: the framing (4-byte big-endian length + JSON), the
//! name first, states to both players with the mover's echo, end states, a
//! server that closes mid-game, and malformed JSON.

use konakis::protocol::tablut_challenge::{
    parse_state, play, read_message, write_message, ChallengeSettings, Ending,
};
use konakis::rules::{Game, Move, Preset, Rules, Side, Square};
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::thread;

fn board_json(game: &Game) -> Value {
    let pos = game.position();
    let setup = pos.setup(9);
    let rows: Vec<Value> = (0..9)
        .map(|r| {
            let cells: Vec<&str> = (0..9)
                .map(|f| {
                    let sq = Square::new(r, f);
                    if setup.attackers.has(sq) {
                        "BLACK"
                    } else if setup.defenders.has(sq) {
                        "WHITE"
                    } else if setup.king.has(sq) {
                        "KING"
                    } else if r == 4 && f == 4 {
                        "THRONE"
                    } else {
                        "EMPTY"
                    }
                })
                .collect();
            json!(cells)
        })
        .collect();
    json!(rows)
}

fn state(game: &Game, turn: &str) -> String {
    json!({ "board": board_json(game), "turn": turn }).to_string()
}

fn turn_of(game: &Game) -> &'static str {
    match game.outcome() {
        Some(o) => match o.winner {
            Some(Side::Defenders) => "WHITEWIN",
            Some(Side::Attackers) => "BLACKWIN",
            None => "DRAW",
        },
        None => match game.side_to_move() {
            Side::Defenders => "WHITE",
            Side::Attackers => "BLACK",
        },
    }
}

/// What the fake server does after `plies` plies.
#[derive(Clone, Copy)]
enum Finish {
    /// Sends this end state.
    Say(&'static str),
    /// Closes the connection.
    Close,
}

/// Serves one client: the server plays the other side's first legal move;
/// returns the client's moves.
fn serve(stream: TcpStream, client: Side, plies: usize, finish: Finish) -> Vec<Move> {
    let mut s = stream;
    let name = read_message(&mut s).unwrap().unwrap();
    assert!(serde_json::from_str::<Value>(&name).unwrap().is_string());
    let mut game = Game::new(Rules::preset(Preset::Ashton));
    let mut theirs = Vec::new();
    write_message(&mut s, &state(&game, turn_of(&game))).unwrap();
    for ply in 0..plies {
        if game.outcome().is_some() {
            return theirs;
        }
        if game.side_to_move() == client {
            let text = read_message(&mut s).unwrap().expect("a move");
            let v: Value = serde_json::from_str(&text).unwrap();
            let from = v["from"].as_str().unwrap();
            let to = v["to"].as_str().unwrap();
            let colour = if client == Side::Defenders {
                "WHITE"
            } else {
                "BLACK"
            };
            assert_eq!(v["turn"], colour, "{text}");
            let mv = Move::parse(&format!("{from}-{to}"), 9).unwrap();
            game.play(mv)
                .unwrap_or_else(|e| panic!("illegal move {text}: {e}"));
            theirs.push(mv);
        } else {
            let mv = game.legal_moves()[0];
            game.play(mv).unwrap();
        }
        // Both players get the new state; this one is the client's. After
        // the last ply the game ends there (or the server goes away).
        if ply + 1 < plies {
            write_message(&mut s, &state(&game, turn_of(&game))).unwrap();
        } else {
            match finish {
                Finish::Say(turn) => write_message(&mut s, &state(&game, turn)).unwrap(),
                Finish::Close => return theirs,
            }
        }
    }
    theirs
}

fn settings(side: Side, port: u16) -> ChallengeSettings {
    ChallengeSettings {
        timeout_s: 1,
        host: "127.0.0.1".into(),
        port: Some(port),
        hash_mib: 16,
        ..ChallengeSettings::new(side)
    }
}

/// Runs the client in-process against `serve`.
fn match_up(client: Side, plies: usize, finish: Finish) -> (Result<Ending, String>, Vec<Move>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        serve(stream, client, plies, finish)
    });
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let result = play(stream, &settings(client, port), |_| {});
    (result, server.join().unwrap())
}

#[test]
fn plays_either_colour_to_the_end_state() {
    for (client, end, expected) in [
        (Side::Defenders, "DRAW", Ending::Draw),
        (Side::Attackers, "WHITEWIN", Ending::WhiteWins),
        (Side::Defenders, "BLACKWIN", Ending::BlackWins),
    ] {
        let (result, moves) = match_up(client, 6, Finish::Say(end));
        assert_eq!(result, Ok(expected));
        assert_eq!(moves.len(), 3, "{client:?} moves every other ply");
    }
}

/// The real server closes every connection without a final state when a
/// player runs out of time: the game is over, and the client says so.
#[test]
fn a_server_that_closes_mid_game_ends_the_game() {
    let (result, _) = match_up(Side::Attackers, 3, Finish::Close);
    assert_eq!(result, Ok(Ending::Closed));
    assert!(Ending::Closed
        .describe(Side::Attackers)
        .contains("closed the connection"));
}

#[test]
fn results_are_described_from_our_side() {
    assert!(Ending::WhiteWins
        .describe(Side::Defenders)
        .contains("we won"));
    assert!(Ending::WhiteWins
        .describe(Side::Attackers)
        .contains("we lost"));
    assert!(Ending::Draw.describe(Side::Attackers).contains("a draw"));
}

#[test]
fn states_parse_and_bad_ones_are_named() {
    let game = Game::new(Rules::preset(Preset::Ashton));
    let s = parse_state(&state(&game, "WHITE")).unwrap();
    assert_eq!(
        s.record,
        "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
    );
    for (bad, says) in [
        ("{\"board\": [", "bad JSON"),
        ("{\"turn\": \"WHITE\"}", "board"),
        ("{\"board\": [], \"turn\": \"PURPLE\"}", "turn"),
        ("[1, 2]", "turn"),
    ] {
        let err = parse_state(bad).unwrap_err();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

/// The command line: malformed JSON from the server is a clear error and a
/// non-zero exit.
#[test]
fn the_command_exits_non_zero_on_malformed_json() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let _ = read_message(&mut s);
        write_message(&mut s, "{\"board\": [[\"EMPTY\"").unwrap();
        // Keep the socket open until the client has read it.
        let _ = read_message(&mut s);
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_konakis"))
        .args([
            "tablut-challenge",
            "--role",
            "black",
            "--server",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--timeout",
            "2",
        ])
        .output()
        .unwrap();
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad JSON"), "{err}");
}
