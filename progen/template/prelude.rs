// The fixed part of every generated crate: the oracle's helpers and the checks' arithmetic.
// Included as text by `src/harness/mod.rs`; this file is not compiled as part of progen.
#![allow(warnings)]

use num_dual::DualNum;
pub use pm::D;

/// Both derivatives are exact in f64 and differ only by rounding: each operation rounds to
/// 1.1e-16 relative, a generated function runs at most a few hundred operations on values
/// bounded by about 50 (the generator's caps), and the two modes (and num-dual) sum the same
/// products in other orders, so they agree to about (operations x condition x 1e-16), some
/// 1e-12 at most. 1e-9 relative to the largest magnitude involved (with a floor of 1, which
/// makes it absolute near zero, where a cancelled sum cannot be relatively accurate) leaves a
/// margin of 1000 over that, while a wrong derivative (a dropped term, a wrong sign, an
/// adjoint sent to the wrong element) is off by the size of a term.
pub const TOL: f64 = 1e-9;

/// Points closer than this to a kink or a step (relative to the operands' size) are skipped:
/// rounding may put ad and the oracle on its two sides, and a derivative there is a choice.
/// Values of the two agree to about 1e-13 relative, so 1e-7 is far on the safe side.
pub const MARGIN: f64 = 1e-7;

/// f32 functions are checked against num-dual's `Dual32`, in f32 as well: each operation
/// rounds to 6e-8 relative, so the same count of operations and condition as above gives
/// about 1e-4 at worst; 1e-3 leaves a margin of 10, and a wrong derivative is still off by
/// the size of a term.
pub const TOL32: f64 = 1e-3;

/// The values of an f32 function and its oracle agree to about 1e-5 relative.
pub const MARGIN32: f64 = 1e-3;

/// Values beyond this are an overflowing program, not a test.
pub const HUGE: f64 = 1e8;

/// A setting of the generated functions, chosen in their bodies from an integer and matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    A,
    B,
    C,
}

thread_local! {
    static CLOSEST: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::INFINITY) };
}

/// An f32 point at f64, for the oracle at f64 of an f32 check.
pub fn widen(v: &[f32]) -> Vec<f64> {
    v.iter().map(|x| *x as f64).collect()
}

pub fn reset() {
    CLOSEST.with(|m| m.set(f64::INFINITY));
}

/// The closest the last evaluation came to a kink or a step.
pub fn margin() -> f64 {
    CLOSEST.with(|m| m.get())
}

/// An exact tie is left out: it is structural (`x - x`, `floor` of an integer, the same
/// expression on both sides), both sides compute the same bits, and two expressions equal
/// everywhere have equal derivatives, so either side's derivative is right.
fn note(distance: f64, scale: f64) {
    if distance == 0.0 {
        return;
    }
    let r = distance.abs() / scale.abs().max(1.0);
    let r = if r.is_nan() { 0.0 } else { r };
    CLOSEST.with(|m| m.set(m.get().min(r)));
}

/// Distance to the nearest integer: where `floor`, `as usize`, `%` jump.
fn step(x: f64) {
    note(x - x.round(), 1.0);
}

/// The oracle's helpers over dual numbers of one float type: `pm` for f64, `pm32` for f32.
macro_rules! helpers {
    ($m:ident, $D:ty, $F:ident) => {
        pub mod $m {
            use super::{note, step};
            use num_dual::DualNum;
            pub use super::{margin, reset};
            pub type D = $D;
            pub type F = $F;

            pub fn lit(x: F) -> D {
                D::from_re(x)
            }

            fn cmp(a: D, b: D) {
                note((a.re - b.re) as f64, a.re.abs().max(b.re.abs()) as f64);
            }
            pub fn lt(a: D, b: D) -> bool {
                cmp(a, b);
                a.re < b.re
            }
            pub fn le(a: D, b: D) -> bool {
                cmp(a, b);
                a.re <= b.re
            }
            pub fn gt(a: D, b: D) -> bool {
                cmp(a, b);
                a.re > b.re
            }
            pub fn ge(a: D, b: D) -> bool {
                cmp(a, b);
                a.re >= b.re
            }
            /// The order of two items for `max_by` and `min_by`.
            pub fn order(a: &D, b: &D) -> std::cmp::Ordering {
                cmp(*a, *b);
                a.re.partial_cmp(&b.re).unwrap()
            }
            pub fn total_lt(a: D, b: D) -> bool {
                cmp(a, b);
                a.re.total_cmp(&b.re) == std::cmp::Ordering::Less
            }

            pub fn abs(x: D) -> D {
                note(x.re as f64, 1.0);
                if x.re < 0.0 { -x } else { x }
            }
            pub fn signum(x: D) -> D {
                note(x.re as f64, 1.0);
                lit(x.re.signum())
            }
            pub fn floor(x: D) -> D {
                step(x.re as f64);
                lit(x.re.floor())
            }
            pub fn ceil(x: D) -> D {
                step(x.re as f64);
                lit(x.re.ceil())
            }
            pub fn trunc(x: D) -> D {
                step(x.re as f64);
                lit(x.re.trunc())
            }
            pub fn round(x: D) -> D {
                step(x.re as f64 - 0.5);
                lit(x.re.round())
            }
            pub fn round_ties_even(x: D) -> D {
                step(x.re as f64 - 0.5);
                lit(x.re.round_ties_even())
            }
            pub fn fract(x: D) -> D {
                step(x.re as f64);
                D::new(x.re.fract(), x.eps)
            }
            pub fn min(a: D, b: D) -> D {
                cmp(a, b);
                if a.re <= b.re { a } else { b }
            }
            pub fn max(a: D, b: D) -> D {
                cmp(a, b);
                if a.re >= b.re { a } else { b }
            }
            pub fn clamp(x: D, lo: F, hi: F) -> D {
                cmp(x, lit(lo));
                cmp(x, lit(hi));
                if x.re < lo {
                    lit(lo)
                } else if x.re > hi {
                    lit(hi)
                } else {
                    x
                }
            }
            /// |a| with the sign of b, by the sign bits as the float's own: copysign(x, -0.0)
            /// is negative.
            pub fn copysign(a: D, b: D) -> D {
                note(a.re as f64, 1.0);
                note(b.re as f64, 1.0);
                if a.re.is_sign_negative() == b.re.is_sign_negative() { a } else { -a }
            }
            // The values below are the float's own, so that ties fall the same way in ad and
            // here.
            pub fn hypot(a: D, b: D) -> D {
                let h = a.re.hypot(b.re);
                D::new(h, (a.re * a.eps + b.re * b.eps) / h)
            }
            pub fn to_degrees(x: D) -> D {
                D::new(x.re.to_degrees(), x.eps * (180.0 / std::$F::consts::PI))
            }
            pub fn to_radians(x: D) -> D {
                D::new(x.re.to_radians(), x.eps * (std::$F::consts::PI / 180.0))
            }
            pub fn mul_add(a: D, b: D, c: D) -> D {
                D::new(a.re.mul_add(b.re, c.re), a.eps * b.re + a.re * b.eps + c.eps)
            }
            /// x^y for x > 0.
            pub fn powf(x: D, y: D) -> D {
                let p = x.re.powf(y.re);
                D::new(p, p * (y.eps * x.re.ln() + y.re * x.eps / x.re))
            }
            pub fn rem(a: D, m: F) -> D {
                step((a.re / m) as f64);
                D::new(a.re % m, a.eps)
            }
            pub fn to_usize(x: D) -> usize {
                step(x.re as f64);
                x.re as usize
            }

            pub fn duals(x: &[F], t: &[F]) -> Vec<D> {
                x.iter().zip(t).map(|(&x, &t)| D::new(x, t)).collect()
            }
            pub fn consts(x: &[F]) -> Vec<D> {
                x.iter().map(|&x| D::from_re(x)).collect()
            }
            pub fn dual_arr<const N: usize>(x: [F; N], t: [F; N]) -> [D; N] {
                std::array::from_fn(|k| D::new(x[k], t[k]))
            }
            pub fn arr<const N: usize>(x: &[F]) -> [F; N] {
                std::array::from_fn(|k| x[k])
            }
            /// The sum of products and the sum of their magnitudes, in f64.
            pub fn dot(a: &[F], b: &[F]) -> (f64, f64) {
                assert_eq!(a.len(), b.len(), "an adjoint of the wrong length");
                a.iter().zip(b).fold((0.0, 0.0), |(s, m), (&x, &y)| {
                    let p = x as f64 * y as f64;
                    (s + p, m + p.abs())
                })
            }
            pub fn dot_eps(a: &[F], b: &[D]) -> (f64, f64) {
                let e: Vec<F> = b.iter().map(|d| d.eps).collect();
                dot(a, &e)
            }
            pub fn fine(xs: &[D]) -> bool {
                xs.iter().all(|d| {
                    d.re.is_finite()
                        && d.eps.is_finite()
                        && (d.re as f64).abs() < super::HUGE
                        && (d.eps as f64).abs() < super::HUGE
                })
            }
            pub fn same_values(ck: &mut super::Check, what: &str, a: &[F], o: &[D]) {
                for k in 0..o.len() {
                    ck.same(&format!("{what}[{k}] value"), a[k], o[k].re, 1.0);
                }
            }
            /// As `same_slice`, with the oracle at f64 as the reference (see `Check::same_ref`).
            pub fn same_slice_ref(
                ck: &mut super::Check,
                what: &str,
                a: &[F],
                da: &[F],
                o: &[D],
                reference: &[num_dual::Dual64],
            ) {
                for k in 0..o.len() {
                    let r = &reference[k];
                    ck.same_ref(&format!("{what}[{k}] value"), a[k], o[k].re, r.re, 1.0);
                    ck.same_ref(&format!("{what}[{k}] tangent"), da[k], o[k].eps, r.eps, 1.0);
                }
            }
            pub fn same_slice(ck: &mut super::Check, what: &str, a: &[F], da: &[F], o: &[D]) {
                for k in 0..o.len() {
                    ck.same(&format!("{what}[{k}] value"), a[k], o[k].re, 1.0);
                    ck.same(&format!("{what}[{k}] tangent"), da[k], o[k].eps, 1.0);
                }
            }
            /// The value of an `Option` as a slice of none or one, for `dot`.
            pub fn opt(o: Option<F>) -> Vec<F> {
                o.into_iter().collect()
            }
            /// An `Option` argument: `Some` at two points out of three.
            pub fn float_opt(ck: &mut super::Check) -> Option<F> {
                if ck.index(2) > 0 { Some(ck.float() as F) } else { None }
            }
            pub fn float(ck: &mut super::Check) -> F {
                ck.float() as F
            }
            pub fn floats(ck: &mut super::Check, n: usize) -> Vec<F> {
                (0..n).map(|_| ck.float() as F).collect()
            }
        }
    };
}

helpers!(pm, num_dual::Dual64, f64);
helpers!(pm32, num_dual::Dual32, f32);

/// The checks of one function: its points, and what disagreed.
pub struct Check {
    pub name: &'static str,
    state: u64,
    tol: f64,
    margin: f64,
    pub failures: usize,
    pub skipped: usize,
    pub points: usize,
}

impl Check {
    pub fn new(name: &'static str, seed: u64) -> Check {
        Check {
            name,
            state: seed,
            tol: TOL,
            margin: MARGIN,
            failures: 0,
            skipped: 0,
            points: 0,
        }
    }
    fn next(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A coordinate of a point or a direction, in [-2, 2].
    pub fn float(&mut self) -> f64 {
        4.0 * self.next() - 2.0
    }
    pub fn floats(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.float()).collect()
    }
    pub fn index(&mut self, hi: usize) -> usize {
        ((self.next() * (hi + 1) as f64) as usize).min(hi)
    }
    /// The checks of an f32 function.
    pub fn single(&mut self) {
        self.tol = TOL32;
        self.margin = MARGIN32;
    }
    /// Whether the oracle's evaluation is a fair test: far from kinks, finite and not huge.
    pub fn usable(&mut self, fine: bool) -> bool {
        if margin() > self.margin && fine {
            self.points += 1;
            true
        } else {
            self.skipped += 1;
            if std::env::var_os("PROGEN_VERBOSE").is_some() {
                println!("SKIP {} margin {:e} fine {fine}", self.name, margin());
            }
            false
        }
    }
    /// `a` (from ad, in f32) against `b` (the oracle in f32) as `same` does, and where that
    /// fails against `reference`, the oracle's at f64 from the same point: `a` passes if it is
    /// no further from the reference than four times the f32 oracle is (and the tolerance).
    /// A program whose condition is worse than `TOL32` assumes (a tangent 1e4 times its value,
    /// say) rounds both f32 evaluations off the exact derivative by about as much: seen with
    /// tangents 1.4e-3 apart relative, each 4e-4 and 1e-3 from the f64 one. A wrong derivative
    /// is off by a term in f32 and at f64 alike, and still fails.
    pub fn same_ref(
        &mut self,
        what: &str,
        a: impl Into<f64>,
        b: impl Into<f64>,
        reference: f64,
        scale: impl Into<f64>,
    ) {
        let (a, b, scale) = (a.into(), b.into(), scale.into());
        let bound = self.tol * scale.abs().max(a.abs()).max(b.abs()).max(1.0);
        let ok = (a - b).abs() <= bound || (a - reference).abs() <= 4.0 * (b - reference).abs() + bound;
        if !ok {
            self.failures += 1;
            println!("MISMATCH {} {what}: ad {a:e}, oracle {b:e}, oracle at f64 {reference:e}", self.name);
        }
    }
    /// `a` (from ad) against `b`, to the tolerance relative to the larger of them and `scale`.
    pub fn same(&mut self, what: &str, a: impl Into<f64>, b: impl Into<f64>, scale: impl Into<f64>) {
        let (a, b, scale) = (a.into(), b.into(), scale.into());
        let ok = (a - b).abs() <= self.tol * scale.abs().max(a.abs()).max(b.abs()).max(1.0);
        if !ok {
            self.failures += 1;
            println!("MISMATCH {} {what}: ad {a:e}, oracle {b:e}", self.name);
        }
    }
}
