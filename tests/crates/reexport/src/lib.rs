//! A crate that re-exports `ad` under its own path, as a framework built on `ad` would. Its
//! users name only this crate; `#[differentiable(crate = ...)]` and `#[custom_rule(crate = ...)]`
//! tell the macros where `ad` is.

pub mod math {
    pub use ad as autodiff;
}
