//! The checks shared by the control-flow tests (`test_break_continue.rs`, `test_loop_value.rs`,
//! `test_return_in_loop.rs`, `test_match.rs`).
//!
//! Each function under test is written a second time over `num_dual::Dual64`, forward-mode dual
//! numbers with their own derivative rules: the oracle. The oracle takes its branches on the real
//! parts, which it computes with the very same `f64` operations as the primal, so both take the
//! same path through every `break`, `continue`, `return` and `match` arm.
//!
//! At every point, for every float argument, [`Seen::check`] asserts:
//! - the values from `ad::jvp`, `ad::value_and_grad` and `ad::vjp` are bit-identical to calling
//!   the function itself (the generated code evaluates the primal with the same expressions);
//! - the oracle's value agrees with the primal to [`TOL`] (it is the same arithmetic, written a
//!   second time, so this checks that the oracle follows the same path);
//! - the forward-mode tangent (`ad::jvp` along the unit vector), the reverse-mode adjoint from
//!   both sweeps in one call (`ad::value_and_grad`) and the one from the split sweeps through the
//!   tape (`ad::vjp`) agree with the oracle's derivative to [`TOL`].
//!
//! [`TOL`] is 1e-12 relative, with an absolute floor of 1: the functions are at most some
//! hundred correctly rounded operations on O(1)-conditioned values, so correct derivatives differ
//! from the oracle's (which may associate sums differently) by a few hundred ulps at most,
//! about 1e-13; a wrong derivative (an iteration replayed twice or skipped, a record popped
//! from the wrong iteration, a missing adjoint) is off by O(1) or more.

#![allow(dead_code, unused_macros)]

pub use num_dual::{Dual64, DualNum};

pub type D = Dual64;

/// See the module docs.
pub const TOL: f64 = 1e-12;

/// `a` and `b` agree to `tol` relative to the larger, with an absolute floor of `tol`.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1_f64.max(a.abs()).max(b.abs())
}

/// A constant of the oracle.
pub fn c(v: f64) -> D {
    D::from_re(v)
}

/// One evaluation of a function with `K` float arguments, seen every way `ad` computes it.
pub struct Seen<const K: usize> {
    /// The function called directly.
    pub primal: f64,
    /// `ad::jvp` along each unit vector: (value, tangent).
    pub jvp: [(f64, f64); K],
    /// `ad::value_and_grad`: both sweeps in one call.
    pub grad: (f64, [f64; K]),
    /// `ad::vjp` and its pullback at 1: the reverse sweep replays the tape the forward sweep left.
    pub vjp: (f64, [f64; K]),
    /// The dual-number oracle seeded along each unit vector.
    pub oracle: [D; K],
}

impl<const K: usize> Seen<K> {
    #[track_caller]
    pub fn check(&self, what: &str) {
        let p = self.primal;
        let same = |v: f64, how: &str| {
            assert_eq!(
                v.to_bits(),
                p.to_bits(),
                "{what}: {how} value {v} is not the primal {p}"
            );
        };
        same(self.grad.0, "value_and_grad");
        same(self.vjp.0, "vjp");
        for i in 0..K {
            let want = self.oracle[i];
            same(self.jvp[i].0, "jvp");
            assert!(
                close(want.re, p, TOL),
                "{what}: oracle value {} differs from the primal {p}",
                want.re
            );
            let d = want.eps;
            let (t, g, b) = (self.jvp[i].1, self.grad.1[i], self.vjp.1[i]);
            assert!(close(t, d, TOL), "{what}: jvp d/dx{i} = {t}, oracle {d}");
            assert!(
                close(g, d, TOL),
                "{what}: value_and_grad d/dx{i} = {g}, oracle {d}"
            );
            assert!(close(b, d, TOL), "{what}: vjp d/dx{i} = {b}, oracle {d}");
        }
    }
}

/// `seen1!(f, f_d, x, n..)`: `f(x: f64, n..)` with further arguments without a derivative, and its
/// oracle `f_d(x: D, n..)`.
macro_rules! seen1 {
    ($f:path, $oracle:path, $x:expr $(, $n:expr)*) => {{
        let x: f64 = $x;
        let primal = $f(x $(, $n)*);
        let jvp = ad::jvp($f, (x, $($n,)*), (1.0, $({ let _ = &$n; ad::NoTangent },)*));
        let (gv, g) = ad::value_and_grad($f, (x, $($n,)*));
        let (pv, pullback) = ad::vjp($f, (x, $($n,)*));
        let p = pullback(1.0);
        $crate::dual_check::Seen::<1> {
            primal,
            jvp: [jvp],
            grad: (gv, [g.0]),
            vjp: (pv, [p.0]),
            oracle: [$oracle($crate::dual_check::D::new(x, 1.0) $(, $n)*)],
        }
    }};
}

/// `seen2!(f, f_d, x, y, n..)`: `f(x: f64, y: f64, n..)` and its oracle `f_d(x: D, y: D, n..)`.
macro_rules! seen2 {
    ($f:path, $oracle:path, $x:expr, $y:expr $(, $n:expr)*) => {{
        use $crate::dual_check::D;
        let (x, y): (f64, f64) = ($x, $y);
        let primal = $f(x, y $(, $n)*);
        let jx = ad::jvp($f, (x, y, $($n,)*), (1.0, 0.0, $({ let _ = &$n; ad::NoTangent },)*));
        let jy = ad::jvp($f, (x, y, $($n,)*), (0.0, 1.0, $({ let _ = &$n; ad::NoTangent },)*));
        let (gv, g) = ad::value_and_grad($f, (x, y, $($n,)*));
        let (pv, pullback) = ad::vjp($f, (x, y, $($n,)*));
        let p = pullback(1.0);
        $crate::dual_check::Seen::<2> {
            primal,
            jvp: [jx, jy],
            grad: (gv, [g.0, g.1]),
            vjp: (pv, [p.0, p.1]),
            oracle: [
                $oracle(D::new(x, 1.0), D::new(y, 0.0) $(, $n)*),
                $oracle(D::new(x, 0.0), D::new(y, 1.0) $(, $n)*),
            ],
        }
    }};
}

/// `count` evenly spaced points from `lo` to `hi`, both included.
pub fn grid(lo: f64, hi: f64, count: usize) -> impl Iterator<Item = f64> {
    (0..count).map(move |i| lo + (hi - lo) * i as f64 / (count - 1) as f64)
}
