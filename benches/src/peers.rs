//! The peers' derivatives and finite differences, over any function written generically with
//! [`Real`]: num-dual's `Dual64` (forward mode), ad_trait's `adr` (reverse mode), and
//! differences of the `f64` instance.

use crate::real::{Adr, Real};
use ad_trait::differentiable_function::{
    DerivativeMethodTrait, DifferentiableFunctionTrait, ReverseAD,
};
use ad_trait::reverse_ad::adr::adr;
use num_dual::Dual64;

/// The relative step of finite differences: about the square root of the unit round-off for
/// forward differences, its cube root for central ones.
const H_FORWARD: f64 = 1.5e-8;
const H_CENTRAL: f64 = 6e-6;

/// One directional derivative with num-dual: the inputs become duals with the direction as
/// their derivative part.
pub fn dual_jvp<const M: usize>(
    f: impl Fn(&[Dual64]) -> [Dual64; M],
    x: &[f64],
    dir: &[f64],
    buffer: &mut Vec<Dual64>,
) -> [(f64, f64); M] {
    buffer.clear();
    buffer.extend(x.iter().zip(dir).map(|(&v, &d)| Dual64::new(v, d)));
    f(buffer).map(|y| (y.re, y.eps))
}

/// The Jacobian (M rows, `x.len()` columns, row-major in `out`) with num-dual: one directional
/// derivative per input.
pub fn dual_jacobian<const M: usize>(
    f: impl Fn(&[Dual64]) -> [Dual64; M],
    x: &[f64],
    buffer: &mut Vec<Dual64>,
    out: &mut [f64],
) {
    let n = x.len();
    buffer.clear();
    buffer.extend(x.iter().map(|&v| Dual64::from_re(v)));
    for i in 0..n {
        buffer[i].eps = 1.0;
        let y = f(buffer);
        buffer[i].eps = 0.0;
        for (r, yr) in y.iter().enumerate() {
            out[r * n + i] = yr.eps;
        }
    }
}

/// A function for ad_trait, which wants a type implementing its trait: the closure sees the
/// inputs as [`Adr`].
pub struct AdTraitFn<F> {
    pub f: F,
    pub inputs: usize,
    pub outputs: usize,
}

impl<F: Fn(&[Adr]) -> Vec<Adr>> DifferentiableFunctionTrait<adr> for AdTraitFn<F> {
    const NAME: &'static str = "benchmark";

    fn call(&self, inputs: &[adr], _freeze: bool) -> Vec<adr> {
        let wrapped: Vec<Adr> = inputs.iter().map(|&v| Adr(v)).collect();
        (self.f)(&wrapped).into_iter().map(|v| v.0).collect()
    }

    fn num_inputs(&self) -> usize {
        self.inputs
    }

    fn num_outputs(&self) -> usize {
        self.outputs
    }
}

/// ad_trait's reverse-mode Jacobian (a gradient for one output), row-major into `out`; returns
/// the first output's value.
pub fn ad_trait_jacobian<F: Fn(&[Adr]) -> Vec<Adr>>(
    f: &AdTraitFn<F>,
    x: &[f64],
    out: &mut [f64],
) -> f64 {
    let (value, jacobian) = ReverseAD::new().derivative(x, f);
    for r in 0..jacobian.nrows() {
        for c in 0..jacobian.ncols() {
            out[r * jacobian.ncols() + c] = jacobian[(r, c)];
        }
    }
    value[0]
}

/// A central difference along `dir`; `a`, `b` are scratch buffers.
pub fn fd_jvp<const M: usize>(
    f: impl Fn(&[f64]) -> [f64; M],
    x: &[f64],
    dir: &[f64],
    a: &mut Vec<f64>,
    b: &mut Vec<f64>,
) -> [f64; M] {
    let scale = x.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let h = H_CENTRAL * scale;
    a.clear();
    a.extend(x.iter().zip(dir).map(|(v, d)| v + h * d));
    b.clear();
    b.extend(x.iter().zip(dir).map(|(v, d)| v - h * d));
    let (fa, fb) = (f(a), f(b));
    core::array::from_fn(|r| (fa[r] - fb[r]) / (2.0 * h))
}

/// The Jacobian by forward differences (`x.len() + 1` evaluations), row-major into `out`.
pub fn fd_jacobian<const M: usize>(
    f: impl Fn(&[f64]) -> [f64; M],
    x: &[f64],
    buffer: &mut Vec<f64>,
    out: &mut [f64],
) {
    let n = x.len();
    buffer.clear();
    buffer.extend_from_slice(x);
    let f0 = f(buffer);
    for i in 0..n {
        let h = H_FORWARD * x[i].abs().max(1.0);
        buffer[i] = x[i] + h;
        let fi = f(buffer);
        buffer[i] = x[i];
        for r in 0..M {
            out[r * n + i] = (fi[r] - f0[r]) / h;
        }
    }
}

/// The largest difference between two vectors, relative to the larger of their largest
/// magnitudes.
pub fn relative_error(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "compared vectors differ in length");
    let scale = a
        .iter()
        .chain(b)
        .fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// Wraps a scalar function into the one-output form the helpers above take.
pub fn one<T: Real>(f: impl Fn(&[T]) -> T) -> impl Fn(&[T]) -> [T; 1] {
    move |x| [f(x)]
}
