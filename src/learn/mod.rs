//! Learning the evaluation from Konakis's own games: training data
//! (`data`), self-play data generation (`datagen`) and Texel tuning
//! (`tune`). Built on the engine API and the rules.

pub mod data;
pub mod datagen;
pub mod tune;
