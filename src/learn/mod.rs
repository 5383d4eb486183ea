//! Learning the evaluation from Konakis's own games: training data
//! (`data`), self-play data generation (`datagen`) and Texel tuning
//! (`tune`), the NNUE trainer (`train`) and a check of any evaluation against the
//! winners of games people played (`predict`), and the fit of the win–draw–loss
//! model to games with their results (`wdl`). Built on the engine API and the rules.

pub mod data;
pub mod datagen;
pub mod predict;
pub mod train;
pub mod tune;
pub mod wdl;
