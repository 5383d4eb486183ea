//! Whole games as text: the match runner's one-line records
//! ([`game::GameRecord`], with their results and why they ended) and the
//! one reader of game files of every kind ([`import`]: runner records,
//! OpenTafl records, the comma-separated games people played, move
//! lists). The runner writes them, the server imports and exports them,
//! learning reads them; none of those owns them.

pub mod game;
pub mod import;
