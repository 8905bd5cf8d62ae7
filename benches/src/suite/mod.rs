//! The benchmark problems with all their methods, ready for the harness.

use crate::harness::Case;

mod ba;
mod gmm;
mod mlp;
mod mlp_struct;
mod rk4;
mod rosenbrock;

pub use ba::{Ba, ba_ad_forward, ba_ad_reverse};
pub use gmm::GmmProblem;
pub use mlp::MlpProblem;
pub use mlp_struct::MlpStructProblem;
pub use rk4::Rk4;
pub use rosenbrock::Rosenbrock;

/// A way of computing a problem's value or derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// The function on `f64` slices (BA: arrays; RK4: scalars), the same source as the
    /// `#[differentiable]` one: the baseline of every ratio.
    Primal,
    /// The generic version at `T = f64`: the code that num-dual and ad_trait run, on `f64`.
    PrimalGeneric,
    /// The `#[differentiable]` function itself, called directly with its `Vec` or array
    /// arguments (a `Vec` is cloned per call, as `ad`'s entry points need it by value).
    PrimalAd,
    AdJvp,
    AdGrad,
    /// BA only: the Jacobian in forward mode, one JVP per input.
    AdJacFwd,
    /// RK4 only: the JVP of the variant with the acceleration written inline.
    AdJvpInline,
    /// RK4 only: the gradient of the variant with the acceleration written inline.
    AdGradInline,
    /// Struct MLP only: the gradient of the same perceptron written on slices.
    AdGradSlices,
    Hand,
    NdJvp,
    NdGrad,
    AdTrait,
    FdJvp,
    FdGrad,
}

impl Method {
    pub const ALL: [Method; 15] = [
        Method::Primal,
        Method::PrimalGeneric,
        Method::PrimalAd,
        Method::AdJvp,
        Method::AdGrad,
        Method::AdJacFwd,
        Method::AdJvpInline,
        Method::AdGradInline,
        Method::AdGradSlices,
        Method::Hand,
        Method::NdJvp,
        Method::NdGrad,
        Method::AdTrait,
        Method::FdJvp,
        Method::FdGrad,
    ];

    /// A short label, for table headers and the command line.
    pub fn key(self) -> &'static str {
        match self {
            Method::Primal => "primal",
            Method::PrimalGeneric => "primal-generic",
            Method::PrimalAd => "primal-ad",
            Method::AdJvp => "ad-jvp",
            Method::AdGrad => "ad-grad",
            Method::AdJacFwd => "ad-jac-fwd",
            Method::AdJvpInline => "ad-jvp-inline",
            Method::AdGradInline => "ad-grad-inline",
            Method::AdGradSlices => "ad-grad-slices",
            Method::Hand => "hand",
            Method::NdJvp => "nd-jvp",
            Method::NdGrad => "nd-grad",
            Method::AdTrait => "ad_trait",
            Method::FdJvp => "fd-jvp",
            Method::FdGrad => "fd-grad",
        }
    }

    /// What the method computes, for the detailed tables.
    pub fn describe(self) -> &'static str {
        match self {
            Method::Primal => "primal, on slices (the baseline)",
            Method::PrimalGeneric => "primal, the generic version at f64 (what the peers run)",
            Method::PrimalAd => "primal, the #[differentiable] fn itself",
            Method::AdJvp => "ad JVP, one direction",
            Method::AdGrad => "ad reverse mode: gradient (BA: Jacobian by vjp + 2 pullbacks)",
            Method::AdJacFwd => "ad forward mode: Jacobian by 15 JVPs",
            Method::AdJvpInline => "ad JVP, acceleration written inline",
            Method::AdGradInline => "ad gradient, acceleration written inline",
            Method::AdGradSlices => "ad gradient of the same perceptron on slices",
            Method::Hand => "hand-written gradient",
            Method::NdJvp => "num-dual JVP, one direction",
            Method::NdGrad => "num-dual gradient/Jacobian, one JVP per input",
            Method::AdTrait => "ad_trait reverse mode (adr), gradient/Jacobian",
            Method::FdJvp => "finite differences, one direction (central, 2 evaluations)",
            Method::FdGrad => "finite differences, gradient/Jacobian (forward, n + 1 evaluations)",
        }
    }
}

/// A problem, its inputs and its methods.
pub trait Problem {
    /// The key on the command line.
    fn key(&self) -> String;
    /// The title in tables.
    fn title(&self) -> String;
    /// Checks that the methods agree; returns a line on what was compared, or panics.
    fn check(&self) -> String;
    /// The methods, ready to time.
    fn cases(&self) -> Vec<(Method, Case<'_>)>;
}

fn assert_close(what: &str, error: f64, tolerance: f64) {
    assert!(
        error <= tolerance,
        "{what}: relative difference {error:e} above {tolerance:e}"
    );
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
