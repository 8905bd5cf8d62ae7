//! The benchmark problems: each as `ad` differentiates it (`#[differentiable]`, on slices and
//! arrays) and as a generic function over [`Real`](crate::real::Real) for the primal baseline
//! and the peers.

pub mod ba;
pub mod dispatch;
pub mod generic;
pub mod gmm;
pub mod mlp;
pub mod mlp_struct;
pub mod rk4;
pub mod rosenbrock;
