//! Benchmarks of `ad` against the primal, hand-written derivatives, num-dual, ad_trait and
//! finite differences. See `docs/PERFORMANCE.md` in the repository for the results and the
//! command that regenerates them.

// The problems index with computed indices on purpose: that is the code `ad` differentiates,
// written as ADBench writes it.
#![allow(clippy::needless_range_loop)]

pub mod data;
pub mod harness;
pub mod peers;
pub mod problems;
pub mod real;
pub mod suite;
