//! The benchmark problems: each as `ad` differentiates it (`#[differentiable]`, taking `Vec`s or
//! arrays because slice parameters are not supported yet) and as a generic function over
//! [`Real`](crate::real::Real) for the primal baseline and the peers.

pub mod ba;
pub mod dispatch;
pub mod gmm;
pub mod mlp;
pub mod rk4;
pub mod rosenbrock;
