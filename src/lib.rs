//! Konakis: a tafl engine. `rules` knows the game; `search` plays it;
//! `protocol` and `cli` talk to the world.

pub mod cli;
pub mod learn;
pub mod play;
pub mod protocol;
pub mod review;
pub mod rules;
pub mod runner;
pub mod search;
pub mod serve;
