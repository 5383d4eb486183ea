//! Konakis: a tafl engine. The layers, each using only those above it:
//!
//! - [`rules`]: the board, move generation, captures, game ends, rule
//!   presets and options, notation, perft. Knows nothing of search.
//! - [`search`]: evaluation (hand-made, learned weights, NNUE), the
//!   transposition table, the alpha-beta search with Lazy SMP, time
//!   management, scores and winning chances, and the [`search::Engine`]
//!   every front end drives.
//! - [`play`]: how a player answers a host: clocks to search limits,
//!   refused moves, resignation and draw policy.
//! - [`review`]: a game judged move by move by winning chances.
//! - [`runner`]: engine-versus-engine matches, game records and their
//!   import, tuning.
//! - [`learn`]: data generation and training of the evaluations and the
//!   WDL model.
//! - Front ends, which only parse and format: [`protocol`] (tei, OTEP,
//!   the Tablut Challenge and hnefatafl.org clients), [`serve`] (the board
//!   in the browser and its HTTP API) and [`cli`] (the command line).

/// The engine's name, as every front end introduces it.
pub const ENGINE_NAME: &str = "Konakis";

pub mod cli;
pub mod learn;
pub mod play;
pub mod protocol;
pub mod records;
pub mod review;
pub mod rules;
pub mod runner;
pub mod search;
pub mod serve;
