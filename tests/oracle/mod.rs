//! The table of functions and oracles shared by the forward and reverse oracle tests
//! (`test_oracle_forward.rs` and `test_oracle_reverse.rs`), with the sampler and tolerances both
//! use.
//!
//! Each `#[ad::differentiable]` function under test is followed by its oracle, the same function
//! written a second time over `num_dual::Dual64` (forward-mode dual numbers, with their own
//! derivative rules); the primitives num-dual lacks are built from their definitions first (see
//! `test_oracle_forward.rs` for the list). Points come from a splitmix64 generator ([`Rng`],
//! [`samples`], [`samples32`]) with the seeds fixed by each test, so both files check the same
//! functions at the same points. The last section holds the one-primitive functions whose
//! conventions at kinks and jumps both files check exactly. What is asserted, and why each
//! tolerance is what it is, is in the module docs of the two test files.

// Each test binary uses a different subset of this module (the forward test has no use for some
// items the reverse test needs, and the other way round), so the rest is dead code in it.
#![allow(dead_code)]

use num_dual::{Dual64, DualNum};
use std::f64::consts::{PI, TAU};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

pub type D = Dual64;

/// Samples per test.
pub const N: usize = 200;
/// Tangents and adjoints against the oracle, and the two modes against each other: relative with
/// an absolute floor of 1 (see the module docs of the two test files).
pub const DER_TOL: f64 = 1e-12;
/// f32 functions against the f64 oracle, and the two f32 modes against each other. f32 has
/// eps = 1.19e-7; a function of some ten operations with condition numbers up to about 10
/// accumulates up to about 1e-6 of relative error, so 1e-5 (about 80 ulps) is a safe bound for
/// correct code and still 5 orders of magnitude below the O(1) error of a wrong rule. The oracle
/// runs in f64 at the f32 inputs, which are exactly representable, so it is the exact derivative
/// for this purpose.
pub const F32_TOL: f64 = 1e-5;

/// splitmix64: a small, well-mixed, deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// Uniform in lo..=hi.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next_u64() % span) as i32
    }
}

/// `N` points of the box `ranges` where `ok` holds, each with a tangent direction: the first `K`
/// directions are the unit vectors, the others uniform in [-1, 1]^K.
pub fn samples<const K: usize>(
    seed: u64,
    ranges: [(f64, f64); K],
    ok: impl Fn([f64; K]) -> bool,
) -> Vec<([f64; K], [f64; K])> {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(N);
    let mut tries = 0;
    while out.len() < N {
        tries += 1;
        assert!(
            tries < 100 * N,
            "the domain predicate rejects almost every point"
        );
        let p = ranges.map(|(lo, hi)| rng.range(lo, hi));
        if !ok(p) {
            continue;
        }
        let i = out.len();
        let dir = if i < K {
            std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 })
        } else {
            std::array::from_fn(|_| rng.range(-1.0, 1.0))
        };
        out.push((p, dir));
    }
    out
}

/// Like [`samples`], rounded to f32. The f64 oracle runs at the rounded (exact) values.
pub fn samples32<const K: usize>(
    seed: u64,
    ranges: [(f64, f64); K],
    ok: impl Fn([f64; K]) -> bool,
) -> Vec<([f32; K], [f32; K])> {
    samples(seed, ranges, ok)
        .into_iter()
        .map(|(p, d)| (p.map(|v| v as f32), d.map(|v| v as f32)))
        .collect()
}

/// Distance of `v` from the nearest multiple of `step`, relative to `step`.
pub fn off_grid(v: f64, step: f64) -> f64 {
    let q = v / step;
    (q - q.round()).abs()
}

/// `a` and `b` agree to `tol` relative to the larger, with an absolute floor of `tol` (see the
/// module docs of the two test files).
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1_f64.max(a.abs()).max(b.abs())
}

/// A constant of the oracle.
pub fn c(v: f64) -> D {
    D::from_re(v)
}

// Oracle versions of the primitives num-dual lacks, from their definitions.

/// `hypot(a, b) = sqrt(a^2 + b^2)`. The value is `f64::hypot`'s, because `sqrt(a^2 + b^2)` is
/// some ulps off it and a few such terms that cancel leave more than the forward test's value
/// tolerance (`VAL_TOL` = 1e-15 in `test_oracle_forward.rs`); the derivative is num-dual's chain
/// rule through `sqrt`, `(a da + b db) / sqrt(a^2 + b^2)`.
pub fn hyp(a: D, b: D) -> D {
    D::new(a.re.hypot(b.re), (a * a + b * b).sqrt().eps)
}

/// `a % b = a - b q`, `q = trunc(a / b)` an integer, locally constant away from the jumps.
pub fn rem_d(a: D, b: D) -> D {
    let q = (a.re / b.re).trunc();
    a - b * q
}

pub fn abs_d(x: D) -> D {
    if x.re > 0.0 {
        x
    } else if x.re < 0.0 {
        -x
    } else {
        c(0.0)
    }
}

pub fn max_d(a: D, b: D) -> D {
    if a.re > b.re { a } else { b }
}

pub fn min_d(a: D, b: D) -> D {
    if a.re < b.re { a } else { b }
}

pub fn clamp_d(x: D, lo: D, hi: D) -> D {
    if x.re < lo.re {
        lo
    } else if x.re > hi.re {
        hi
    } else {
        x
    }
}

pub fn floor_d(x: D) -> D {
    c(x.re.floor())
}

pub fn ceil_d(x: D) -> D {
    c(x.re.ceil())
}

/// `fract(x) = x - trunc(x)`.
pub fn fract_d(x: D) -> D {
    x - c(x.re.trunc())
}

/// `copysign(x, s) = |x| sign(s)`: the sign of `s` is locally constant away from 0.
pub fn copysign_d(x: D, s: D) -> D {
    abs_d(x) * if s.re < 0.0 { -1.0 } else { 1.0 }
}

// ---------------------------------------------------------------------------------------------
// Functions under test, each with its oracle
// ---------------------------------------------------------------------------------------------

#[ad::differentiable]
pub fn arith(x: f64, y: f64) -> f64 {
    let a = x * y + 3.0 * x - y / (1.0 + x * x);
    -a + x / y - (2.5 - y) * -x
}

pub fn arith_d(x: D, y: D) -> D {
    let a = x * y + x * 3.0 - y / (x * x + 1.0);
    -a + x / y - (c(2.5) - y) * -x
}

#[ad::differentiable]
pub fn remainder(x: f64, y: f64) -> f64 {
    x % y + x % 1.5 + 7.25 % y
}

pub fn remainder_d(x: D, y: D) -> D {
    rem_d(x, y) + rem_d(x, c(1.5)) + rem_d(c(7.25), y)
}

#[ad::differentiable]
pub fn scaled_by_int(x: f64, n: i32) -> f64 {
    let k = n as f64;
    let m = n * n + 1;
    k * x * x + x / m as f64
}

pub fn scaled_by_int_d(x: D, n: i32) -> D {
    x * f64::from(n) * x + x / f64::from(n * n + 1)
}

#[ad::differentiable]
pub fn via_f32(x: f64, y: f32) -> f64 {
    let a = x as f32;
    let b = (a * y).sin();
    b as f64 * x + y as f64
}

pub fn via_f32_d(x: D, y: D) -> D {
    (x * y).sin() * x + y
}

#[ad::differentiable]
pub fn roots(x: f64) -> f64 {
    x.sqrt() * x.cbrt() + (-x).cbrt() / (1.0 + x.sqrt())
}

pub fn roots_d(x: D) -> D {
    x.sqrt() * x.cbrt() + (-x).cbrt() / (x.sqrt() + 1.0)
}

#[ad::differentiable]
pub fn exps(x: f64) -> f64 {
    x.exp() - 2.0 * x.exp2() + (0.5 * x).exp_m1() * x
}

pub fn exps_d(x: D) -> D {
    x.exp() - x.exp2() * 2.0 + (x * 0.5).exp_m1() * x
}

#[ad::differentiable]
pub fn logs(x: f64) -> f64 {
    x.ln() + x.ln_1p() * 2.0 - x.log2() * x + x.log10() / 3.0
}

pub fn logs_d(x: D) -> D {
    x.ln() + x.ln_1p() * 2.0 - x.log2() * x + x.log10() / 3.0
}

#[ad::differentiable]
pub fn log_base(x: f64, b: f64) -> f64 {
    x.log(b) + 3.0_f64.log(b) * x + x.log(10.0)
}

pub fn log_base_d(x: D, b: D) -> D {
    x.ln() / b.ln() + c(3.0_f64.ln()) / b.ln() * x + x.log(10.0)
}

#[ad::differentiable]
pub fn powers(x: f64, n: i32) -> f64 {
    x.powi(n) + x.powi(3) - 2.0 * x.powi(-2) + x.powi(0)
}

pub fn powers_d(x: D, n: i32) -> D {
    x.powi(n) + x.powi(3) - x.powi(-2) * 2.0 + x.powi(0)
}

#[ad::differentiable]
pub fn powers_real(x: f64, p: f64) -> f64 {
    x.powf(p) + x.powf(2.5) - 2.0_f64.powf(p) * x
}

pub fn powers_real_d(x: D, p: D) -> D {
    x.powd(p) + x.powf(2.5) - c(2.0).powd(p) * x
}

#[ad::differentiable]
pub fn trig(x: f64) -> f64 {
    x.sin() * x.cos() + (0.5 * x).tan()
}

pub fn trig_d(x: D) -> D {
    x.sin() * x.cos() + (x * 0.5).tan()
}

#[ad::differentiable]
pub fn inverse_trig(x: f64) -> f64 {
    x.asin() + 2.0 * x.acos() - (3.0 * x).atan()
}

pub fn inverse_trig_d(x: D) -> D {
    x.asin() + x.acos() * 2.0 - (x * 3.0).atan()
}

#[ad::differentiable]
pub fn angle(y: f64, x: f64) -> f64 {
    y.atan2(x) + (2.0 * y).atan2(1.0) + 0.5_f64.atan2(x)
}

pub fn angle_d(y: D, x: D) -> D {
    y.atan2(x) + (y * 2.0).atan2(c(1.0)) + c(0.5).atan2(x)
}

#[ad::differentiable]
pub fn hyperbolic(x: f64) -> f64 {
    x.sinh() - 0.5 * x.cosh() + (2.0 * x).tanh() * x
}

pub fn hyperbolic_d(x: D) -> D {
    x.sinh() - x.cosh() * 0.5 + (x * 2.0).tanh() * x
}

#[ad::differentiable]
pub fn inverse_hyperbolic(x: f64) -> f64 {
    x.asinh() + x.acosh() * 2.0 - (1.0 / x).atanh()
}

pub fn inverse_hyperbolic_d(x: D) -> D {
    x.asinh() + x.acosh() * 2.0 - x.recip().atanh()
}

#[ad::differentiable]
pub fn hypotenuse(a: f64, b: f64) -> f64 {
    a.hypot(b) + (2.0 * a).hypot(1.0) - 3.0_f64.hypot(b)
}

pub fn hypotenuse_d(a: D, b: D) -> D {
    hyp(a, b) + hyp(a * 2.0, c(1.0)) - hyp(c(3.0), b)
}

#[ad::differentiable]
pub fn magnitude(x: f64) -> f64 {
    x.abs() * 2.0 + (x * x - 1.0).abs().sqrt() + x.recip()
}

pub fn magnitude_d(x: D) -> D {
    abs_d(x) * 2.0 + abs_d(x * x - 1.0).sqrt() + x.recip()
}

#[ad::differentiable]
pub fn steps(x: f64) -> f64 {
    x.floor() + x.ceil() * 2.0 + x.round() - x.round_ties_even() + x.trunc() * 3.0 + x.signum()
}

pub fn steps_value(x: f64) -> f64 {
    x.floor() + x.ceil() * 2.0 + x.round() - x.round_ties_even() + x.trunc() * 3.0 + x.signum()
}

#[ad::differentiable]
pub fn stepped_slope(x: f64) -> f64 {
    x.floor() * x + x.fract() * x.ceil()
}

pub fn stepped_slope_d(x: D) -> D {
    floor_d(x) * x + fract_d(x) * ceil_d(x)
}

#[ad::differentiable]
pub fn fused(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c) + a.mul_add(2.0, 1.0) * 2.0_f64.mul_add(b, c)
}

pub fn fused_d(a: D, b: D, cc: D) -> D {
    a.mul_add(b, cc) + a.mul_add(c(2.0), c(1.0)) * c(2.0).mul_add(b, cc)
}

#[ad::differentiable]
pub fn extremes(x: f64, y: f64) -> f64 {
    x.max(y) * 2.0 + x.min(y) - x.max(0.5 * y) * x.min(1.0)
}

pub fn extremes_d(x: D, y: D) -> D {
    max_d(x, y) * 2.0 + min_d(x, y) - max_d(x, y * 0.5) * min_d(x, c(1.0))
}

#[ad::differentiable]
pub fn clamped(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi) * x + (2.0 * x).clamp(-1.0, 1.0)
}

pub fn clamped_d(x: D, lo: D, hi: D) -> D {
    clamp_d(x, lo, hi) * x + clamp_d(x * 2.0, c(-1.0), c(1.0))
}

#[ad::differentiable]
pub fn with_sign(x: f64, s: f64) -> f64 {
    x.copysign(s) * 2.0 + s.copysign(x) * x + x.copysign(-1.0)
}

pub fn with_sign_d(x: D, s: D) -> D {
    copysign_d(x, s) * 2.0 + copysign_d(s, x) * x + copysign_d(x, c(-1.0))
}

#[ad::differentiable]
pub fn angles(x: f64) -> f64 {
    x.to_degrees() / 90.0 + x.to_radians().sin() * 60.0
}

pub fn angles_d(x: D) -> D {
    x * (180.0 / PI) / 90.0 + (x * (PI / 180.0)).sin() * 60.0
}

#[ad::differentiable]
pub fn ufcs(x: f64, y: f64) -> f64 {
    f64::sqrt(x) + f64::max(x, y) - f64::min(x, 2.0) * f64::atan2(y, x)
        + f64::hypot(x, y)
        + f64::powi(x, 3)
        + f64::mul_add(x, y, 1.0)
        + f64::clamp(y, -0.5, 0.5)
        + f64::exp(-x)
        + f64::powf(x, y)
        + f64::abs(y)
}

pub fn ufcs_d(x: D, y: D) -> D {
    x.sqrt() + max_d(x, y) - min_d(x, c(2.0)) * y.atan2(x)
        + hyp(x, y)
        + x.powi(3)
        + x.mul_add(y, c(1.0))
        + clamp_d(y, c(-0.5), c(0.5))
        + (-x).exp()
        + x.powd(y)
        + abs_d(y)
}

#[ad::differentiable]
pub fn constants(x: f64) -> f64 {
    std::f64::consts::PI * x * x + core::f64::consts::E.powf(x) - TAU.recip() * x
        + f64::EPSILON
        + std::f64::consts::SQRT_2
}

pub fn constants_d(x: D) -> D {
    x * PI * x + c(std::f64::consts::E).powd(x) - x * TAU.recip()
        + f64::EPSILON
        + std::f64::consts::SQRT_2
}

#[ad::differentiable]
pub fn accumulate(x: f64, y: f64) -> f64 {
    let a: f64 = x * y;
    let mut acc = a;
    acc += x;
    acc *= y;
    acc -= a.sin();
    acc /= 1.0 + x * x;
    acc %= 4.0;
    let n: i32 = 2;
    let mut k = n;
    k += 1;
    acc += x.powi(k);
    acc
}

pub fn accumulate_d(x: D, y: D) -> D {
    let a = x * y;
    let mut acc = a;
    acc += x;
    acc *= y;
    acc -= a.sin();
    acc /= x * x + 1.0;
    acc = rem_d(acc, c(4.0));
    acc += x.powi(3);
    acc
}

/// `acc` of [`accumulate`] just before `%= 4.0`, to keep away from the value's jumps.
pub fn accumulate_before_rem(x: f64, y: f64) -> f64 {
    ((x * y + x) * y - (x * y).sin()) / (1.0 + x * x)
}

#[ad::differentiable]
pub fn branches(x: f64, y: f64) -> f64 {
    let mut r = y;
    if x > 0.0 {
        r *= x;
    } else {
        r = -x * r.cos();
    }
    if y > 1.0 {
        r += y.ln();
    }
    let s = if x > y {
        x - y
    } else if x < -y {
        (x + y).exp()
    } else {
        x * y
    };
    r + s
}

pub fn branches_d(x: D, y: D) -> D {
    let mut r = y;
    if x.re > 0.0 {
        r *= x;
    } else {
        r = -x * r.cos();
    }
    if y.re > 1.0 {
        r += y.ln();
    }
    let s = if x.re > y.re {
        x - y
    } else if x.re < -y.re {
        (x + y).exp()
    } else {
        x * y
    };
    r + s
}

#[ad::differentiable]
#[allow(
    clippy::needless_late_init,
    reason = "a `let` initialised later in each branch is the construct under test"
)]
pub fn early_return(x: f64, y: f64) -> f64 {
    if x < -1.0 {
        return x * y;
    }
    let r: f64;
    if y > 0.0 {
        r = y.sqrt();
    } else {
        r = (-y).sqrt() * x;
    }
    r + x
}

pub fn early_return_d(x: D, y: D) -> D {
    if x.re < -1.0 {
        return x * y;
    }
    let r = if y.re > 0.0 {
        y.sqrt()
    } else {
        (-y).sqrt() * x
    };
    r + x
}

#[ad::differentiable]
pub fn polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

pub fn polar_d(x: D, y: D) -> (D, D) {
    (hyp(x, y), y.atan2(x))
}

#[ad::differentiable]
pub fn split(x: f64) -> (f64, i32, f64) {
    let k = x.floor() as i32;
    (x - k as f64, k, x * x)
}

#[ad::differentiable]
pub fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

pub fn softplus_d(x: D) -> D {
    (x.exp() + 1.0).ln()
}

#[ad::differentiable]
pub fn composed(x: f64, y: f64) -> f64 {
    let (r, t) = polar(x, y);
    softplus(x * y) + r * t.cos() + scaled_by_int(y, 3) * softplus(softplus(x))
}

pub fn composed_d(x: D, y: D) -> D {
    let (r, t) = polar_d(x, y);
    softplus_d(x * y) + r * t.cos() + scaled_by_int_d(y, 3) * softplus_d(softplus_d(x))
}

#[ad::differentiable]
pub fn int_branch(x: f64, k: i32) -> f64 {
    if k % 2 == 0 { x.powi(k) } else { x * k as f64 }
}

pub fn int_branch_d(x: D, k: i32) -> D {
    if k % 2 == 0 {
        x.powi(k)
    } else {
        x * f64::from(k)
    }
}

#[ad::differentiable]
pub fn smooth32(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.exp() / (1.0 + y * y) - (x * x + 1.0).ln() * y.cos() + x.tanh()
}

pub fn smooth32_d(x: D, y: D) -> D {
    (x * y).sin() + x.exp() / (y * y + 1.0) - (x * x + 1.0).ln() * y.cos() + x.tanh()
}

#[ad::differentiable]
pub fn powers32(x: f32, p: f32, n: i32) -> f32 {
    x.powf(p) + x.sqrt() * x.cbrt() - x.powi(3) + f32::hypot(x, p) + x.powi(n) * n as f32
}

pub fn powers32_d(x: D, p: D, n: i32) -> D {
    x.powd(p) + x.sqrt() * x.cbrt() - x.powi(3) + hyp(x, p) + x.powi(n) * f64::from(n)
}

#[ad::differentiable]
pub fn piecewise32(x: f32, y: f32) -> f32 {
    x.max(y) - f32::min(x, 0.5) + x.clamp(-1.0, 1.0) * y.abs() + x.floor() + y.fract()
}

pub fn piecewise32_d(x: D, y: D) -> D {
    max_d(x, y) - min_d(x, c(0.5))
        + clamp_d(x, c(-1.0), c(1.0)) * abs_d(y)
        + floor_d(x)
        + fract_d(y)
}

#[ad::differentiable]
pub fn many32(x: f32) -> f32 {
    let mut s = x.asin() + x.acos() + x.atan() + x.sinh() + x.cosh() + x.asinh();
    s += (1.0 + x).acosh() + x.atanh() + x.exp2() + x.exp_m1() + x.ln_1p();
    s += x.log2() + x.log10() + x.log(3.0) + x.tan() + x.recip();
    s += x.to_degrees() / 100.0 + x.to_radians() + x.ceil() + x.round() + x.trunc();
    s += x.signum() + x.copysign(-1.0) + x.mul_add(x, 1.0);
    s
}

pub fn many32_d(x: D) -> D {
    let mut s = x.asin() + x.acos() + x.atan() + x.sinh() + x.cosh() + x.asinh();
    s += (x + 1.0).acosh() + x.atanh() + x.exp2() + x.exp_m1() + x.ln_1p();
    s += x.log2() + x.log10() + x.ln() / 3.0_f64.ln() + x.tan() + x.recip();
    s +=
        x * (180.0 / PI) / 100.0 + x * (PI / 180.0) + ceil_d(x) + c(x.re.round()) + c(x.re.trunc());
    s += c(x.re.signum()) + copysign_d(x, c(-1.0)) + x.mul_add(x, c(1.0));
    s
}

#[ad::differentiable]
pub fn polar32(x: f32, y: f32) -> (f32, f32) {
    let mut r = x.hypot(y);
    if r > 1.0 {
        r = r.sqrt();
    }
    (r, y.atan2(x) * std::f32::consts::FRAC_1_PI)
}

pub fn polar32_d(x: D, y: D) -> (D, D) {
    let mut r = hyp(x, y);
    if r.re > 1.0 {
        r = r.sqrt();
    }
    (r, y.atan2(x) * std::f64::consts::FRAC_1_PI)
}

#[ad::differentiable]
pub fn caller32(x: f32, y: f32) -> f32 {
    let (r, t) = polar32(x, y);
    r * t + smooth32(x, r) - (x as f64 * 0.25) as f32
}

pub fn caller32_d(x: D, y: D) -> D {
    let (r, t) = polar32_d(x, y);
    r * t + smooth32_d(x, r) - x * 0.25
}

// ---------------------------------------------------------------------------------------------
// Conventions at kinks and jumps, exact values derived by hand
// ---------------------------------------------------------------------------------------------

#[ad::differentiable]
pub fn abs1(x: f64) -> f64 {
    x.abs()
}

#[ad::differentiable]
pub fn max2(a: f64, b: f64) -> f64 {
    a.max(b)
}

#[ad::differentiable]
pub fn min2(a: f64, b: f64) -> f64 {
    f64::min(a, b)
}

#[ad::differentiable]
pub fn clamp3(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}

#[ad::differentiable]
pub fn copysign2(x: f64, s: f64) -> f64 {
    x.copysign(s)
}

#[ad::differentiable]
pub fn hypot2(a: f64, b: f64) -> f64 {
    a.hypot(b)
}

#[ad::differentiable]
pub fn powi2(x: f64, n: i32) -> f64 {
    x.powi(n)
}

#[ad::differentiable]
pub fn powf2(x: f64, p: f64) -> f64 {
    x.powf(p)
}

#[ad::differentiable]
pub fn jumps(x: f64) -> (f64, f64, f64, f64, f64, f64, f64) {
    (
        x.floor(),
        x.ceil(),
        x.round(),
        x.round_ties_even(),
        x.trunc(),
        x.signum(),
        x.fract(),
    )
}

#[ad::differentiable]
pub fn max32(a: f32, b: f32) -> f32 {
    a.max(b)
}
