//! The rules of tafl games: board, move generation, captures, game end,
//! notation and perft. Knows nothing of search or protocols.

pub mod game;
pub mod notation;
pub mod options;
pub mod otn;
pub mod perft;
pub mod position;
pub mod tables;
pub mod types;

pub use game::{Game, MoveFailure, StartPoint};
pub use notation::{parse_record, Setup};
pub use options::{Preset, RuleOptions, Rules};
pub use position::{MoveList, Outcome, Position, Reason};
pub use types::{Bitboard, Move, Piece, Side, Square};
