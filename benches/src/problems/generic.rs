//! The benchmark problems written generically over `num_traits::Float`, as generic numerics code
//! is written, from the same source as their `f64` versions (`rosenbrock.rs`, `gmm.rs`) but for
//! the types: the derivative of a generic function at `f64` should cost what the monomorphic
//! one costs.

use ad::{Const, differentiable};
use num_traits::{Float, FromPrimitive};
use std::iter::Sum;
use std::ops::AddAssign;

/// [`rosenbrock`](super::rosenbrock::rosenbrock), generic.
#[differentiable]
pub fn rosenbrock_t<T: Float + FromPrimitive + AddAssign>(x: &[T]) -> T {
    let n = x.len();
    let one = T::one();
    let hundred = T::from_f64(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..n - 1 {
        let a = one - x[i];
        let b = x[i + 1] - x[i] * x[i];
        s += a * a + hundred * b * b;
    }
    s
}

/// [`gmm_objective`](super::gmm::gmm_objective), generic.
#[differentiable]
pub fn gmm_objective_t<T: Float + FromPrimitive + AddAssign>(
    alphas: &[T],
    means: &[T],
    icf: &[T],
    x: Const<&[T]>,
    gamma: Const<T>,
    m: Const<T>,
) -> T {
    let half = T::from_f64(0.5).unwrap();
    let k = alphas.len();
    let d = means.len() / k;
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut sum_qs = vec![T::zero(); k];
    let mut qdiags = vec![T::zero(); k * d];
    for c in 0..k {
        let mut s = T::zero();
        for j in 0..d {
            let q = icf[c * icf_sz + j];
            s += q;
            qdiags[c * d + j] = q.exp();
        }
        sum_qs[c] = s;
    }
    let mut xc = vec![T::zero(); d];
    let mut qxc = vec![T::zero(); d];
    let mut main_term = vec![T::zero(); k];
    let mut slse = T::zero();
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = x[i * d + j] - means[c * d + j];
            }
            for j in 0..d {
                qxc[j] = qdiags[c * d + j] * xc[j];
            }
            let mut idx = c * icf_sz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += icf[idx] * xc[a];
                    idx += 1;
                }
            }
            let mut sq = T::zero();
            for j in 0..d {
                sq += qxc[j] * qxc[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - half * sq;
        }
        let mut mx = main_term[0];
        for c in 1..k {
            mx = mx.max(main_term[c]);
        }
        let mut se = T::zero();
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        slse += mx + se.ln();
    }
    let mut amx = alphas[0];
    for c in 1..k {
        amx = amx.max(alphas[c]);
    }
    let mut ase = T::zero();
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = amx + ase.ln();
    let mut prior = T::zero();
    for c in 0..k {
        let mut fro = T::zero();
        for j in 0..d {
            fro += qdiags[c * d + j] * qdiags[c * d + j];
        }
        for j in d..icf_sz {
            fro += icf[c * icf_sz + j] * icf[c * icf_sz + j];
        }
        prior += half * gamma.0 * gamma.0 * fro - m.0 * sum_qs[c];
    }
    slse - T::from_usize(n).unwrap() * lse_alphas + prior
}

/// argmin's `rosenbrock` (`argmin_testfunctions` 0.3.0, MIT OR Apache-2.0), as its crate writes
/// it: a call of `rosenbrock_ab` with `a = 1`, `b = 100`, which sums an iterator chain.
#[differentiable]
pub fn argmin_rosenbrock<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    argmin_rosenbrock_ab(
        param,
        T::from_f64(1.0).unwrap(),
        T::from_f64(100.0).unwrap(),
    )
}

/// argmin's `rosenbrock_ab`, as written.
#[differentiable]
pub fn argmin_rosenbrock_ab<T>(param: &[T], a: T, b: T) -> T
where
    T: Float + FromPrimitive + Sum,
{
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .sum()
}

/// argmin's `rosenbrock` with the same arithmetic as [`argmin_rosenbrock`] (`powi(2)`, `a` and
/// `b` passed to a callee as arguments, so the callee computes their adjoints too), its chain
/// written as the indexed loop a careful person writes: what the chain's lowering is measured
/// against.
#[differentiable]
pub fn argmin_rosenbrock_loop<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + AddAssign,
{
    argmin_rosenbrock_ab_loop(
        param,
        T::from_f64(1.0).unwrap(),
        T::from_f64(100.0).unwrap(),
    )
}

/// [`argmin_rosenbrock_ab`] as an indexed loop.
#[differentiable]
pub fn argmin_rosenbrock_ab_loop<T>(param: &[T], a: T, b: T) -> T
where
    T: Float + FromPrimitive + AddAssign,
{
    let mut s = T::zero();
    for i in 0..param.len() - 1 {
        let (xi, xi1) = (param[i], param[i + 1]);
        s += (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2);
    }
    s
}

/// A short function of an array, for a const length: its primal starts with the test of the
/// flag by which an instantiation registers its derivatives at its first call.
#[ad::differentiable]
pub fn short_n<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i].sin();
    }
    s
}

/// The same for the length 4, registered at link time.
#[ad::differentiable]
pub fn short_4(x: [f64; 4]) -> f64 {
    let mut s = 0.0;
    for i in 0..4 {
        s += x[i] * x[i].sin();
    }
    s
}
