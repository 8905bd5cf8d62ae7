//! Whole numerical programs, written as ordinary Rust under `#[differentiable]`, differentiated in
//! both modes and checked against an independent oracle: Horner's rule, dot product and norm, a
//! matrix-vector product, softmax cross-entropy, an RK4 integrator, a two-layer perceptron, the
//! GMM objective and the bundle-adjustment residual of `BENCHMARKS.md`, and f32 versions of
//! Horner, dot and norm.
//!
//! The oracle of each program is a second implementation over `num_dual::Dual64` (forward-mode
//! dual numbers with their own derivative rules), written independently and where possible by a
//! different algorithm (explicit powers instead of Horner's rule, an explicit triangular matrix
//! for GMM, nested `Vec`s for the perceptron). A partial derivative of the oracle is one dual
//! evaluation with a unit tangent on one input; a directional derivative is one evaluation with
//! the direction as the tangent. The RK4 integrator and the small-angle branch of BA are also
//! checked against central finite differences.
//!
//! At every point these are asserted:
//! - the value from `ad::jvp`, `ad::value_and_grad` and `ad::vjp` is bit-identical to calling the
//!   function itself;
//! - the value agrees with the oracle's to [`VAL_TOL`] (the oracle computes it by other
//!   expressions, so some ulps apart);
//! - the tangent along every unit vector and along random directions in [-1, 1]^n agrees with the
//!   oracle's, the gradient (or each pullback of a vector result at unit and random cotangents)
//!   agrees with the oracle's Jacobian, and `grad . v` agrees with `jvp(v)`, all to a tolerance
//!   relative to the larger magnitude with an absolute floor of 1 ([`close`]). The floor makes the
//!   bound absolute near zero, where a derivative that cancels to about 0 cannot be relatively
//!   accurate. Each program's tolerance is justified where it is used: it is rounding (some ulps
//!   per operation, times the number of operations summed and a modest condition number) with a
//!   margin, while a wrong rule (a missing factor, a wrong sign, an adjoint sent to the wrong
//!   element or dropped where a value is used twice) is off by O(1);
//! - every gradient has the length of its input.
//!
//! Every float argument gets an adjoint, also those that are data to the program (the data points
//! of GMM and of the perceptron, the BA feature); they are checked too.

// The programs index on purpose: they are written the way numerical code is, and `vec!` literals
// are part of what is tested.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use ad::differentiable;
use num_dual::{Dual64, DualNum};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

type D = Dual64;

/// Values against the oracle, which computes them by other expressions over at most a few hundred
/// operations on O(1..100) numbers: some ulps of the largest term each, far below 1e-12 with the
/// floor of 1.
const VAL_TOL: f64 = 1e-12;

/// The default derivative tolerance, for the short programs (a few dozen operations per partial,
/// condition numbers about 10): their derivatives agree with the oracle's to some ulps, that is
/// below 1e-14, so 1e-12 leaves a margin of 100 and is still 12 orders of magnitude below the
/// O(1) error of a wrong rule.
const DER_TOL: f64 = 1e-12;

/// f32 programs against the f64 oracle at the same (exactly representable) inputs. f32 has
/// eps = 1.19e-7 (unit roundoff 6e-8). The f32 inputs and directions are chosen so that the
/// values, the partials and the directions are all positive and no sum cancels, so each result
/// (Horner's rule of at most 8 coefficients, dot products of at most 12 terms, and their
/// derivatives) is within about `2 n` roundoffs relative of the exact one, at most about 1.5e-6
/// (seen up to 2.5e-7); 1e-5 holds that with a margin, and a wrong rule is still off by O(1).
const F32_TOL: f64 = 1e-5;

fn c(v: f64) -> D {
    D::from_re(v)
}

/// `a` and `b` agree to `tol` relative to the larger, with an absolute floor of `tol`.
fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1_f64.max(a.abs()).max(b.abs())
}

fn inner(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants), the top 53 bits as the
/// uniform sample.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Standard normal, by Box-Muller.
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit(); // in (0, 1]
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.range(lo, hi)).collect()
    }

    fn normals(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.normal()).collect()
    }

    /// Uniform in [lo, hi), rounded to f32 (so exactly representable in both types).
    fn vec32(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.range(lo, hi) as f32 as f64).collect()
    }
}

/// The unit vectors of R^n, then `extra` random directions in [-1, 1]^n.
fn directions(n: usize, extra: usize, rng: &mut Lcg) -> Vec<Vec<f64>> {
    let mut out: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    out.extend((0..extra).map(|_| rng.vec(n, -1.0, 1.0)));
    out
}

/// The unit vectors of R^n, then `extra` random directions in [0, 1]^n rounded to f32, so the
/// f32 program and the f64 oracle take the same direction, and a tangent of a function whose
/// partials are all positive sums positive terms ([`F32_TOL`]).
fn directions32(n: usize, extra: usize, rng: &mut Lcg) -> Vec<Vec<f64>> {
    let mut out = directions(n, 0, rng);
    out.extend((0..extra).map(|_| rng.vec32(n, 0.0, 1.0)));
    out
}

/// The flat vector `p` cut into consecutive pieces of the given lengths.
fn split<const K: usize>(p: &[f64], sizes: [usize; K]) -> [Vec<f64>; K] {
    assert_eq!(p.len(), sizes.iter().sum::<usize>());
    let mut at = 0;
    sizes.map(|n| {
        at += n;
        p[at - n..at].to_vec()
    })
}

fn to32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

fn to64(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

/// The oracle at `p + eps v`: values and directional derivatives of every output.
fn oracle_along(oracle: &dyn Fn(&[D]) -> Vec<D>, p: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let args: Vec<D> = p.iter().zip(v).map(|(&a, &t)| D::new(a, t)).collect();
    let out = oracle(&args);
    (
        out.iter().map(|d| d.re).collect(),
        out.iter().map(|d| d.eps).collect(),
    )
}

/// The oracle's Jacobian, `jac[o][k]` = d output o / d input k, one dual evaluation per input.
fn oracle_jacobian(oracle: &dyn Fn(&[D]) -> Vec<D>, p: &[f64]) -> Vec<Vec<f64>> {
    let n = p.len();
    let cols: Vec<Vec<f64>> = directions(n, 0, &mut Lcg(0))
        .iter()
        .map(|e| oracle_along(oracle, p, e).1)
        .collect();
    let m = oracle(&p.iter().map(|&a| c(a)).collect::<Vec<_>>()).len();
    (0..m)
        .map(|o| (0..n).map(|k| cols[k][o]).collect())
        .collect()
}

/// Tolerances of one check: values against the oracle, derivatives against the oracle and
/// between the two modes.
#[derive(Clone, Copy)]
struct Tol {
    val: f64,
    der: f64,
}

const F64: Tol = Tol {
    val: VAL_TOL,
    der: DER_TOL,
};

const F32: Tol = Tol {
    val: F32_TOL,
    der: F32_TOL,
};

type Flat<'a> = &'a dyn Fn(&[f64]) -> f64;
type FlatJvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);
type FlatGrad<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);

/// Checks a program with a scalar result, its float inputs flattened into `p`: `primal` calls the
/// function itself, `jvp` calls `ad::jvp` at `p` along a direction, `grad` calls
/// `ad::value_and_grad` and flattens the gradient, `oracle` is the dual-number implementation.
/// Along `dirs` (the unit vectors first) the tangents are checked against the oracle and against
/// the gradient; the gradient against the oracle's partials.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn check_scalar(
    name: &str,
    p: &[f64],
    dirs: &[Vec<f64>],
    tol: Tol,
    primal: Flat,
    jvp: FlatJvp,
    grad: FlatGrad,
    oracle: &dyn Fn(&[D]) -> D,
) {
    let oracle = |a: &[D]| vec![oracle(a)];
    let y = primal(p);
    let (want_y, _) = oracle_along(&oracle, p, &vec![0.0; p.len()]);
    assert!(
        close(y, want_y[0], tol.val),
        "{name}: value {y:e}, oracle {:e}",
        want_y[0]
    );

    let (gy, g) = grad(p);
    assert_eq!(
        gy.to_bits(),
        y.to_bits(),
        "{name}: value_and_grad value {gy:e} differs from the function's own {y:e}"
    );
    assert_eq!(g.len(), p.len(), "{name}: the gradient's length");
    let jac = oracle_jacobian(&oracle, p);
    for k in 0..p.len() {
        assert!(
            close(g[k], jac[0][k], tol.der),
            "{name}: adjoint {k} is {:e}, oracle {:e}",
            g[k],
            jac[0][k]
        );
    }

    for (i, v) in dirs.iter().enumerate() {
        let (jy, t) = jvp(p, v);
        assert_eq!(
            jy.to_bits(),
            y.to_bits(),
            "{name}: jvp value {jy:e} differs from the function's own {y:e}"
        );
        let want = oracle_along(&oracle, p, v).1[0];
        assert!(
            close(t, want, tol.der),
            "{name}: tangent along direction {i} is {t:e}, oracle {want:e}"
        );
        let gv = inner(&g, v);
        assert!(
            close(gv, t, tol.der),
            "{name}: grad . v = {gv:e} but jvp(v) = {t:e} (direction {i})"
        );
    }
}

type FlatVec<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;
type FlatVecJvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);
type FlatVjp<'a> = &'a dyn Fn(&[f64], &[Vec<f64>]) -> (Vec<f64>, Vec<Vec<f64>>);

/// Checks a program with a vector result of `m` elements: `vjp` calls `ad::vjp` at `p` and its
/// pullback at each cotangent given (flattening the adjoints). The cotangents are the unit vectors
/// of R^m (each a row of the Jacobian) and two random ones, each checked against `w^T J` of
/// the oracle; the pullback is called twice at the last one and must give the same adjoints bit
/// for bit. The jvp along `dirs` is checked against the oracle's directional derivative.
#[allow(clippy::too_many_arguments)]
#[track_caller]
fn check_vector(
    name: &str,
    p: &[f64],
    dirs: &[Vec<f64>],
    tol: Tol,
    rng: &mut Lcg,
    primal: FlatVec,
    jvp: FlatVecJvp,
    vjp: FlatVjp,
    oracle: &dyn Fn(&[D]) -> Vec<D>,
) {
    let y = primal(p);
    let m = y.len();
    let (want_y, _) = oracle_along(oracle, p, &vec![0.0; p.len()]);
    assert_eq!(want_y.len(), m, "{name}: the oracle's result length");
    for o in 0..m {
        assert!(
            close(y[o], want_y[o], tol.val),
            "{name}: value {o} is {:e}, oracle {:e}",
            y[o],
            want_y[o]
        );
    }

    let jac = oracle_jacobian(oracle, p);
    let mut ws = directions(m, 2, rng);
    ws.push(ws.last().unwrap().clone());
    let (vy, adjoints) = vjp(p, &ws);
    assert_eq!(vy.len(), m, "{name}: the vjp value's length");
    for o in 0..m {
        assert_eq!(
            vy[o].to_bits(),
            y[o].to_bits(),
            "{name}: vjp value {o} is {:e}, the function's own {:e}",
            vy[o],
            y[o]
        );
    }
    for (w, adj) in ws.iter().zip(&adjoints) {
        assert_eq!(adj.len(), p.len(), "{name}: the adjoints' length");
        for k in 0..p.len() {
            let want: f64 = (0..m).map(|o| w[o] * jac[o][k]).sum();
            assert!(
                close(adj[k], want, tol.der),
                "{name}: adjoint {k} at cotangent {w:?} is {:e}, oracle {want:e}",
                adj[k]
            );
        }
    }
    let (last, again) = (&adjoints[ws.len() - 1], &adjoints[ws.len() - 2]);
    assert!(
        last.iter()
            .zip(again)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{name}: the pullback called twice with the same cotangent gave different adjoints"
    );

    for (i, v) in dirs.iter().enumerate() {
        let (jy, t) = jvp(p, v);
        assert_eq!(t.len(), m, "{name}: the tangent's length");
        let want = oracle_along(oracle, p, v).1;
        for o in 0..m {
            assert_eq!(
                jy[o].to_bits(),
                y[o].to_bits(),
                "{name}: jvp value {o} differs from the function's own"
            );
            assert!(
                close(t[o], want[o], tol.der),
                "{name}: tangent {o} along direction {i} is {:e}, oracle {:e}",
                t[o],
                want[o]
            );
        }
        // The defining identity of the adjoint, at the random cotangents.
        for (w, adj) in ws.iter().zip(&adjoints).skip(m) {
            let (lhs, rhs) = (inner(adj, v), inner(w, &t));
            assert!(
                close(lhs, rhs, tol.der),
                "{name}: pullback(w) . v = {lhs:e} but w . jvp(v) = {rhs:e}"
            );
        }
    }
}

/// Central difference of `f` at `p` along coordinate `k`, with the step `h` relative to the
/// coordinate (at least `h` absolute).
fn central_difference(f: &dyn Fn(&[f64]) -> f64, p: &[f64], k: usize, h: f64) -> f64 {
    let step = h * p[k].abs().max(1.0);
    let (mut hi, mut lo) = (p.to_vec(), p.to_vec());
    hi[k] += step;
    lo[k] -= step;
    (f(&hi) - f(&lo)) / (hi[k] - lo[k])
}

// ---------------------------------------------------------------------------------------------
// 1. Horner's rule
// ---------------------------------------------------------------------------------------------

/// p(x) = sum_i coeffs[i] x^i by Horner's rule, from the highest coefficient down.
#[differentiable]
fn horner(coeffs: Vec<f64>, x: f64) -> f64 {
    let mut acc = 0.0;
    for i in (0..coeffs.len()).rev() {
        acc = acc * x + coeffs[i];
    }
    acc
}

/// The oracle: the sum of explicit powers, another algorithm.
fn horner_oracle(coeffs: &[D], x: D) -> D {
    let mut s = c(0.0);
    for (i, &a) in coeffs.iter().enumerate() {
        s += a * x.powi(i as i32);
    }
    s
}

/// Horner's rule in f32.
#[differentiable]
fn horner32(coeffs: Vec<f32>, x: f32) -> f32 {
    let n = coeffs.len();
    let mut acc = 0.0;
    for i in (0..n).rev() {
        acc = acc * x + coeffs[i];
    }
    acc
}

/// d p / d coeffs[i] = x^i and d p / dx = p'(x), the inputs flattened as (coeffs, x), for 0, 1,
/// 2, 5 and 8 coefficients at three points each; coefficients in [-1, 1] and |x| < 1.3, so the
/// terms stay below 1.3^7 ~ 6 and the polynomial's condition is modest: [`DER_TOL`] holds.
#[test]
fn horner_both_modes() {
    let mut rng = Lcg(1);
    for n in [0, 1, 2, 5, 8] {
        for _ in 0..3 {
            let mut p = rng.vec(n, -1.0, 1.0);
            p.push(rng.range(-1.3, 1.3));
            let dirs = directions(n + 1, 3, &mut rng);
            check_scalar(
                "horner",
                &p,
                &dirs,
                F64,
                &|p| horner(p[..n].to_vec(), p[n]),
                &|p, v| ad::jvp(horner, (p[..n].to_vec(), p[n]), (v[..n].to_vec(), v[n])),
                &|p| {
                    let (y, (gc, gx)) = ad::value_and_grad(horner, (p[..n].to_vec(), p[n]));
                    (y, [gc, vec![gx]].concat())
                },
                &|a| horner_oracle(&a[..n], a[n]),
            );
        }
    }
}

/// Horner in f32: coefficients in [0.5, 1.5] and x in [0, 1], so every term is positive and no
/// sum cancels ([`F32_TOL`]).
#[test]
fn horner_f32_both_modes() {
    let mut rng = Lcg(2);
    for n in [1, 4, 8] {
        for _ in 0..3 {
            let mut p = rng.vec32(n, 0.5, 1.5);
            p.push(rng.range(0.0, 1.0) as f32 as f64);
            let dirs = directions32(n + 1, 3, &mut rng);
            let args = |p: &[f64]| (to32(&p[..n]), p[n] as f32);
            check_scalar(
                "horner32",
                &p,
                &dirs,
                F32,
                &|p| {
                    let (a, x) = args(p);
                    f64::from(horner32(a, x))
                },
                &|p, v| {
                    let (a, x) = args(p);
                    let (y, t) = ad::jvp(horner32, (a, x), (to32(&v[..n]), v[n] as f32));
                    (f64::from(y), f64::from(t))
                },
                &|p| {
                    let (y, (gc, gx)) = ad::value_and_grad(horner32, args(p));
                    (f64::from(y), [to64(&gc), vec![f64::from(gx)]].concat())
                },
                &|a| horner_oracle(&a[..n], a[n]),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Dot product and Euclidean norm
// ---------------------------------------------------------------------------------------------

/// a . b over `zip`.
#[differentiable]
fn dot(a: Vec<f64>, b: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter()) {
        s += x * y;
    }
    s
}

/// |v| by indexing.
#[differentiable]
fn norm(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

/// |a - b|: a local `vec!` written by index and passed to another differentiable function.
#[differentiable]
fn distance(a: Vec<f64>, b: Vec<f64>) -> f64 {
    let mut d = vec![0.0; a.len()];
    for i in 0..a.len() {
        d[i] = a[i] - b[i];
    }
    norm(d)
}

/// a . b over `enumerate`, reading `b` by index.
#[differentiable]
fn dot_enumerate(a: Vec<f64>, b: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (i, &x) in a.iter().enumerate() {
        s += x * b[i];
    }
    s
}

/// (|v|, v / |v|): a tuple of a scalar and a `Vec`.
#[differentiable]
fn normalize(v: Vec<f64>) -> (f64, Vec<f64>) {
    let mut s = 0.0;
    for &x in &v {
        s += x * x;
    }
    let r = s.sqrt();
    let mut u = vec![0.0; v.len()];
    for i in 0..v.len() {
        u[i] = v[i] / r;
    }
    (r, u)
}

#[differentiable]
fn dot32(a: Vec<f32>, b: Vec<f32>) -> f32 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b.iter()) {
        s += x * y;
    }
    s
}

#[differentiable]
fn norm32(v: Vec<f32>) -> f32 {
    let mut s = 0.0;
    for &x in &v {
        s += x * x;
    }
    s.sqrt()
}

fn dot_oracle(a: &[D], b: &[D]) -> D {
    a.iter().zip(b).fold(c(0.0), |s, (&x, &y)| s + x * y)
}

fn norm_oracle(v: &[D]) -> D {
    dot_oracle(v, v).sqrt()
}

/// d(a . b) = (b, a); d|v| = v / |v|; d|a - b| = (u, -u) with u the unit vector along a - b.
/// Entries in [-1, 1], n <= 9: sums of at most 9 products of magnitude <= 1 ([`DER_TOL`]).
#[test]
fn dot_and_norm_both_modes() {
    let mut rng = Lcg(3);
    for n in [1, 3, 9] {
        let p = rng.vec(2 * n, -1.0, 1.0);
        let dirs = directions(2 * n, 3, &mut rng);
        let ab = |p: &[f64]| split(p, [n, n]);
        check_scalar(
            "dot",
            &p,
            &dirs,
            F64,
            &|p| {
                let [a, b] = ab(p);
                dot(a, b)
            },
            &|p, v| {
                let ([a, b], [da, db]) = (ab(p), ab(v));
                ad::jvp(dot, (a, b), (da, db))
            },
            &|p| {
                let [a, b] = ab(p);
                let (y, (ga, gb)) = ad::value_and_grad(dot, (a, b));
                (y, [ga, gb].concat())
            },
            &|p| dot_oracle(&p[..n], &p[n..]),
        );
        check_scalar(
            "dot_enumerate",
            &p,
            &dirs,
            F64,
            &|p| {
                let [a, b] = ab(p);
                dot_enumerate(a, b)
            },
            &|p, v| {
                let ([a, b], [da, db]) = (ab(p), ab(v));
                ad::jvp(dot_enumerate, (a, b), (da, db))
            },
            &|p| {
                let [a, b] = ab(p);
                let (y, (ga, gb)) = ad::value_and_grad(dot_enumerate, (a, b));
                (y, [ga, gb].concat())
            },
            &|p| dot_oracle(&p[..n], &p[n..]),
        );
        check_scalar(
            "distance",
            &p,
            &dirs,
            F64,
            &|p| {
                let [a, b] = ab(p);
                distance(a, b)
            },
            &|p, v| {
                let ([a, b], [da, db]) = (ab(p), ab(v));
                ad::jvp(distance, (a, b), (da, db))
            },
            &|p| {
                let [a, b] = ab(p);
                let (y, (ga, gb)) = ad::value_and_grad(distance, (a, b));
                (y, [ga, gb].concat())
            },
            &|p| {
                let d: Vec<D> = (0..n).map(|i| p[i] - p[n + i]).collect();
                norm_oracle(&d)
            },
        );
        let p = &p[..n];
        check_scalar(
            "norm",
            p,
            &directions(n, 3, &mut rng),
            F64,
            &|p| norm(p.to_vec()),
            &|p, v| ad::jvp(norm, (p.to_vec(),), (v.to_vec(),)),
            &|p| {
                let (y, (g,)) = ad::value_and_grad(norm, (p.to_vec(),));
                (y, g)
            },
            &|p| norm_oracle(p),
        );
        check_vector(
            "normalize",
            p,
            &directions(n, 3, &mut rng),
            F64,
            &mut rng,
            &|p| {
                let (r, u) = normalize(p.to_vec());
                [vec![r], u].concat()
            },
            &|p, v| {
                let ((r, u), (dr, du)) = ad::jvp(normalize, (p.to_vec(),), (v.to_vec(),));
                ([vec![r], u].concat(), [vec![dr], du].concat())
            },
            &|p, ws| {
                let ((r, u), pullback) = ad::vjp(normalize, (p.to_vec(),));
                let adj = ws
                    .iter()
                    .map(|w| pullback((w[0], w[1..].to_vec())).0)
                    .collect();
                ([vec![r], u].concat(), adj)
            },
            &|p| {
                let r = norm_oracle(p);
                [vec![r], p.iter().map(|&x| x / r).collect()].concat()
            },
        );
    }
}

/// The f32 versions, entries in [0.1, 1] so no sum cancels ([`F32_TOL`]).
#[test]
fn dot_and_norm_f32_both_modes() {
    let mut rng = Lcg(4);
    for n in [1, 4, 12] {
        let p = rng.vec32(2 * n, 0.1, 1.0);
        let dirs = directions32(2 * n, 3, &mut rng);
        let ab = |p: &[f64]| {
            let [a, b] = split(p, [n, n]);
            (to32(&a), to32(&b))
        };
        check_scalar(
            "dot32",
            &p,
            &dirs,
            F32,
            &|p| {
                let (a, b) = ab(p);
                f64::from(dot32(a, b))
            },
            &|p, v| {
                let (y, t) = ad::jvp(dot32, ab(p), ab(v));
                (f64::from(y), f64::from(t))
            },
            &|p| {
                let (y, (ga, gb)) = ad::value_and_grad(dot32, ab(p));
                (f64::from(y), [to64(&ga), to64(&gb)].concat())
            },
            &|p| dot_oracle(&p[..n], &p[n..]),
        );
        let p = &p[..n];
        check_scalar(
            "norm32",
            p,
            &directions32(n, 3, &mut rng),
            F32,
            &|p| f64::from(norm32(to32(p))),
            &|p, v| {
                let (y, t) = ad::jvp(norm32, (to32(p),), (to32(v),));
                (f64::from(y), f64::from(t))
            },
            &|p| {
                let (y, (g,)) = ad::value_and_grad(norm32, (to32(p),));
                (f64::from(y), to64(&g))
            },
            &|p| norm_oracle(p),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Matrix-vector product
// ---------------------------------------------------------------------------------------------

/// y = A x, A row-major with `x.len()` columns.
#[differentiable]
fn matvec(a: Vec<f64>, x: Vec<f64>) -> Vec<f64> {
    let n = x.len();
    let m = a.len() / n;
    let mut y = vec![0.0; m];
    for i in 0..m {
        for j in 0..n {
            y[i] += a[i * n + j] * x[j];
        }
    }
    y
}

/// y = A x, the inner loop over `x.iter().enumerate()`.
#[differentiable]
fn matvec_enumerate(a: Vec<f64>, x: Vec<f64>) -> Vec<f64> {
    let n = x.len();
    let m = a.len() / n;
    let mut y = vec![0.0; m];
    for i in 0..m {
        for (j, &xj) in x.iter().enumerate() {
            y[i] += a[i * n + j] * xj;
        }
    }
    y
}

/// The oracle, with the matrix as rows.
fn matvec_oracle(a: &[D], x: &[D], m: usize) -> Vec<D> {
    a.chunks(a.len() / m)
        .map(|row| dot_oracle(row, x))
        .collect()
}

/// The Jacobian of A x w.r.t. (A, x) is (I (x) x^T, A): pullbacks at the unit cotangents (its
/// rows), at random cotangents (w^T J), and tangents along every unit vector and random
/// directions, against the oracle. Entries in [-1, 1], at most 5 products per sum
/// ([`DER_TOL`]).
#[test]
fn matvec_both_modes() {
    let mut rng = Lcg(5);
    for (m, n) in [(1, 1), (3, 4), (4, 2)] {
        let p = rng.vec(m * n + n, -1.0, 1.0);
        let dirs = directions(p.len(), 3, &mut rng);
        let ax = |p: &[f64]| split(p, [m * n, n]);
        check_vector(
            "matvec",
            &p,
            &dirs,
            F64,
            &mut rng,
            &|p| {
                let [a, x] = ax(p);
                matvec(a, x)
            },
            &|p, v| {
                let ([a, x], [da, dx]) = (ax(p), ax(v));
                ad::jvp(matvec, (a, x), (da, dx))
            },
            &|p, ws| {
                let [a, x] = ax(p);
                let (y, pullback) = ad::vjp(matvec, (a, x));
                let adj = ws
                    .iter()
                    .map(|w| {
                        let (ga, gx) = pullback(w.clone());
                        [ga, gx].concat()
                    })
                    .collect();
                (y, adj)
            },
            &|p| matvec_oracle(&p[..m * n], &p[m * n..], m),
        );
        check_vector(
            "matvec_enumerate",
            &p,
            &dirs,
            F64,
            &mut rng,
            &|p| {
                let [a, x] = ax(p);
                matvec_enumerate(a, x)
            },
            &|p, v| {
                let ([a, x], [da, dx]) = (ax(p), ax(v));
                ad::jvp(matvec_enumerate, (a, x), (da, dx))
            },
            &|p, ws| {
                let [a, x] = ax(p);
                let (y, pullback) = ad::vjp(matvec_enumerate, (a, x));
                let adj = ws
                    .iter()
                    .map(|w| {
                        let (ga, gx) = pullback(w.clone());
                        [ga, gx].concat()
                    })
                    .collect();
                (y, adj)
            },
            &|p| matvec_oracle(&p[..m * n], &p[m * n..], m),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Softmax cross-entropy
// ---------------------------------------------------------------------------------------------

/// -ln softmax(logits)[class], shifted by the largest logit so no exponential overflows.
#[differentiable]
fn softmax_cross_entropy(logits: Vec<f64>, class: usize) -> f64 {
    let mut top = logits[0];
    for i in 1..logits.len() {
        top = top.max(logits[i]);
    }
    let mut s = 0.0;
    for &z in &logits {
        s += (z - top).exp();
    }
    top + s.ln() - logits[class]
}

/// The probabilities softmax(logits), the largest logit taken over `for &z in &logits` and the
/// normaliser by `iter().sum()`.
#[differentiable]
fn softmax(logits: Vec<f64>) -> Vec<f64> {
    let mut top = logits[0];
    for &z in &logits {
        top = top.max(z);
    }
    let mut e = vec![0.0; logits.len()];
    for i in 0..logits.len() {
        e[i] = (logits[i] - top).exp();
    }
    let s: f64 = e.iter().sum();
    let mut p = vec![0.0; e.len()];
    for i in 0..e.len() {
        p[i] = e[i] / s;
    }
    p
}

fn softmax_oracle(z: &[D]) -> Vec<D> {
    let top = z.iter().fold(z[0], |m, &v| if v.re > m.re { v } else { m });
    let e: Vec<D> = z.iter().map(|&v| (v - top).exp()).collect();
    let s = e.iter().fold(c(0.0), |s, &v| s + v);
    e.iter().map(|&v| v / s).collect()
}

fn softmax_cross_entropy_oracle(z: &[D], class: usize) -> D {
    let top = z.iter().fold(z[0], |m, &v| if v.re > m.re { v } else { m });
    let s = z.iter().fold(c(0.0), |s, &v| s + (v - top).exp());
    top + s.ln() - z[class]
}

/// The gradient in closed form, softmax(z) - onehot(class), computed in plain f64.
fn softmax_cross_entropy_gradient(z: &[f64], class: usize) -> Vec<f64> {
    let top = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - top).exp()).collect();
    let s: f64 = e.iter().sum();
    (0..z.len())
        .map(|i| e[i] / s - if i == class { 1.0 } else { 0.0 })
        .collect()
}

/// Against the dual oracle at random logits in [-3, 3] ([`DER_TOL`]: the derivatives are
/// probabilities, each a few roundings), and against the closed form softmax - onehot also at
/// logits in the thousands (where unshifted exponentials overflow) and with the largest logit
/// tied, where the shift's own derivative (1 - sum softmax = 0) must cancel whatever share of
/// it `max` gives each tied logit.
#[test]
fn softmax_cross_entropy_both_modes() {
    let mut rng = Lcg(6);
    for n in [1, 2, 5, 10] {
        for class in [0, n / 2, n - 1] {
            let p = rng.vec(n, -3.0, 3.0);
            let dirs = directions(n, 3, &mut rng);
            check_scalar(
                "softmax_cross_entropy",
                &p,
                &dirs,
                F64,
                &|p| softmax_cross_entropy(p.to_vec(), class),
                &|p, v| {
                    ad::jvp(
                        softmax_cross_entropy,
                        (p.to_vec(), class),
                        (v.to_vec(), ad::NoTangent),
                    )
                },
                &|p| {
                    let (y, (g, _)) =
                        ad::value_and_grad(softmax_cross_entropy, (p.to_vec(), class));
                    (y, g)
                },
                &|p| softmax_cross_entropy_oracle(p, class),
            );
        }
    }
    for n in [1, 3, 6] {
        let p = rng.vec(n, -3.0, 3.0);
        let dirs = directions(n, 3, &mut rng);
        check_vector(
            "softmax",
            &p,
            &dirs,
            F64,
            &mut rng,
            &|p| softmax(p.to_vec()),
            &|p, v| ad::jvp(softmax, (p.to_vec(),), (v.to_vec(),)),
            &|p, ws| {
                let (y, pullback) = ad::vjp(softmax, (p.to_vec(),));
                (y, ws.iter().map(|w| pullback(w.clone()).0).collect())
            },
            &softmax_oracle,
        );
    }
    let cases: [(Vec<f64>, usize); 3] = [
        (vec![1000.0, 1001.5, 999.0, 1001.0], 2),
        (vec![0.5, 2.0, -1.0, 2.0], 0),
        (vec![2.0, 2.0, 2.0], 1),
    ];
    for (z, class) in cases {
        let want = softmax_cross_entropy_gradient(&z, class);
        let (y, (g, _)) = ad::value_and_grad(softmax_cross_entropy, (z.clone(), class));
        assert_eq!(
            y.to_bits(),
            softmax_cross_entropy(z.clone(), class).to_bits()
        );
        assert!(y.is_finite());
        for i in 0..z.len() {
            assert!(
                close(g[i], want[i], DER_TOL),
                "{z:?}: adjoint {i} {:e}, want {:e}",
                g[i],
                want[i]
            );
            let mut e = vec![0.0; z.len()];
            e[i] = 1.0;
            let (_, t) = ad::jvp(
                softmax_cross_entropy,
                (z.clone(), class),
                (e, ad::NoTangent),
            );
            assert!(
                close(t, want[i], DER_TOL),
                "{z:?}: tangent {i} {t:e}, want {:e}",
                want[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. RK4 integrator of a damped oscillator
// ---------------------------------------------------------------------------------------------

/// The right-hand side of x'' = -k x - c x' as a first-order system in s = (x, x').
#[differentiable]
fn deriv(s: [f64; 2], k: f64, c: f64) -> [f64; 2] {
    [s[1], -k * s[0] - c * s[1]]
}

/// The position after `steps` classical Runge-Kutta steps of size 0.01 from `s0`.
#[differentiable]
fn rk4_position(s0: [f64; 2], k: f64, c: f64, steps: usize) -> f64 {
    let h = 0.01;
    let mut s = s0;
    for _ in 0..steps {
        let k1 = deriv(s, k, c);
        let k2 = deriv([s[0] + 0.5 * h * k1[0], s[1] + 0.5 * h * k1[1]], k, c);
        let k3 = deriv([s[0] + 0.5 * h * k2[0], s[1] + 0.5 * h * k2[1]], k, c);
        let k4 = deriv([s[0] + h * k3[0], s[1] + h * k3[1]], k, c);
        for i in 0..2 {
            s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    s[0]
}

/// The state after integrating to `t_end`: a `while` loop on a float condition, the state
/// replaced as a whole array each step, and the final state (an array) as the result.
#[differentiable]
fn rk4_state(s0: [f64; 2], k: f64, c: f64, t_end: f64) -> [f64; 2] {
    let h = 0.01;
    let mut s = s0;
    let mut t = 0.0;
    while t < t_end - 0.5 * h {
        let k1 = deriv(s, k, c);
        let k2 = deriv([s[0] + 0.5 * h * k1[0], s[1] + 0.5 * h * k1[1]], k, c);
        let k3 = deriv([s[0] + 0.5 * h * k2[0], s[1] + 0.5 * h * k2[1]], k, c);
        let k4 = deriv([s[0] + h * k3[0], s[1] + h * k3[1]], k, c);
        s = [
            s[0] + h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            s[1] + h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ];
        t += h;
    }
    s
}

fn deriv_oracle(s: [D; 2], k: D, c: D) -> [D; 2] {
    [s[1], -k * s[0] - c * s[1]]
}

fn rk4_oracle_step(mut s: [D; 2], k: D, c: D, h: f64) -> [D; 2] {
    let k1 = deriv_oracle(s, k, c);
    let k2 = deriv_oracle([s[0] + k1[0] * (0.5 * h), s[1] + k1[1] * (0.5 * h)], k, c);
    let k3 = deriv_oracle([s[0] + k2[0] * (0.5 * h), s[1] + k2[1] * (0.5 * h)], k, c);
    let k4 = deriv_oracle([s[0] + k3[0] * h, s[1] + k3[1] * h], k, c);
    for i in 0..2 {
        s[i] += (k1[i] + k2[i] * 2.0 + k3[i] * 2.0 + k4[i]) * (h / 6.0);
    }
    s
}

fn rk4_oracle(s0: [D; 2], k: D, c: D, steps: usize) -> D {
    let mut s = s0;
    for _ in 0..steps {
        s = rk4_oracle_step(s, k, c, 0.01);
    }
    s[0]
}

/// [`rk4_oracle`] until `t_end`, with the final state: `t_end` only decides the number of steps,
/// a piecewise-constant function of it, so its derivative is 0.
fn rk4_state_oracle(s0: [D; 2], k: D, c: D, t_end: D) -> Vec<D> {
    let h = 0.01;
    let mut s = s0;
    let mut t = 0.0;
    while t < t_end.re - 0.5 * h {
        s = rk4_oracle_step(s, k, c, h);
        t += h;
    }
    s.to_vec()
}

const RK4_STEPS: usize = 1000;

/// The RK4 programs against the oracle (see [`rk4_oscillator_both_modes`]).
const RK4: Tol = Tol {
    val: VAL_TOL,
    der: 1e-11,
};

/// d x(T) / d(x0, v0, k, c) after 1,000 steps (T = 10), with `deriv` called 4,000 times.
/// Against the dual oracle to 1e-11 ([`RK4`]): each partial is a sum over 4,000 chained
/// evaluations, and the reverse sweep accumulates it in the opposite order to the oracle's, so
/// rounding grows with the step count (about sqrt(4000) to 4000 ulps of partials of size up to
/// about 10, so below 1e-11; seen up to 2e-15); a wrong rule is still off by O(1). Also against
/// central finite differences with the step 1e-6 relative: the map is smooth (linear in the state, entire in k and c) with third
/// derivatives of about (T / (2 sqrt k))^3 ~ 20, so truncation is about h^2 * 20 / 6 ~ 1e-11,
/// and rounding about (error of the value, ~1e-13) / h ~ 1e-7, so 1e-6 holds.
#[test]
fn rk4_oscillator_both_modes() {
    let points = [
        [1.0, 0.0, 4.0, 0.3],
        [-0.4, 1.2, 2.5, 0.05],
        [0.7, -0.5, 9.0, 1.1],
    ];
    let mut rng = Lcg(7);
    for p in points {
        let dirs = directions(4, 3, &mut rng);
        let primal = |p: &[f64]| rk4_position([p[0], p[1]], p[2], p[3], RK4_STEPS);
        check_scalar(
            "rk4",
            &p,
            &dirs,
            RK4,
            &primal,
            &|p, v| {
                ad::jvp(
                    rk4_position,
                    ([p[0], p[1]], p[2], p[3], RK4_STEPS),
                    ([v[0], v[1]], v[2], v[3], ad::NoTangent),
                )
            },
            &|p| {
                let (y, (gs, gk, gc, _)) =
                    ad::value_and_grad(rk4_position, ([p[0], p[1]], p[2], p[3], RK4_STEPS));
                (y, vec![gs[0], gs[1], gk, gc])
            },
            &|p| rk4_oracle([p[0], p[1]], p[2], p[3], RK4_STEPS),
        );
        let (_, (gs, gk, gc, _)) =
            ad::value_and_grad(rk4_position, ([p[0], p[1]], p[2], p[3], RK4_STEPS));
        for (k, g) in [gs[0], gs[1], gk, gc].into_iter().enumerate() {
            let fd = central_difference(&primal, &p, k, 1e-6);
            assert!(
                close(g, fd, 1e-6),
                "rk4 at {p:?}: adjoint {k} is {g:e}, finite difference {fd:e}"
            );
        }
    }
}

/// The final state (x, v) at t_end = 10 and 3.3 w.r.t. (x0, v0, k, c, t_end), through the `while`
/// version: pullbacks at both unit cotangents and random ones, tangents along every unit vector,
/// against the oracle to [`RK4`]. The derivative w.r.t. t_end, which only enters the loop's
/// condition, is 0 in both modes.
#[test]
fn rk4_state_while_loop_both_modes() {
    let points = [[1.0, 0.0, 4.0, 0.3, 10.0], [-0.4, 1.2, 2.5, 0.05, 3.3]];
    let mut rng = Lcg(11);
    for p in points {
        let dirs = directions(5, 3, &mut rng);
        let args = |p: &[f64]| ([p[0], p[1]], p[2], p[3], p[4]);
        check_vector(
            "rk4_state",
            &p,
            &dirs,
            RK4,
            &mut rng,
            &|p| {
                let (s0, k, c, t) = args(p);
                rk4_state(s0, k, c, t).to_vec()
            },
            &|p, v| {
                let (y, t) = ad::jvp(rk4_state, args(p), args(v));
                (y.to_vec(), t.to_vec())
            },
            &|p, ws| {
                let (y, pullback) = ad::vjp(rk4_state, args(p));
                let adj = ws
                    .iter()
                    .map(|w| {
                        let (gs, gk, gc, gt) = pullback([w[0], w[1]]);
                        vec![gs[0], gs[1], gk, gc, gt]
                    })
                    .collect();
                (y.to_vec(), adj)
            },
            &|p| rk4_state_oracle([p[0], p[1]], p[2], p[3], p[4]),
        );
        let (_, pullback) = ad::vjp(rk4_state, args(&p));
        assert_eq!(pullback([1.0, 1.0]).3, 0.0);
        assert_eq!(
            ad::jvp(rk4_state, args(&p), ([0.0; 2], 0.0, 0.0, 1.0)).1,
            [0.0; 2]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Two-layer perceptron
// ---------------------------------------------------------------------------------------------

/// The squared error of a perceptron with one tanh hidden layer, summed over a data set:
/// `w1` is hidden x in and `w2` out x hidden, both row-major; `xs` holds the inputs (samples x
/// in) and `ys` the targets (samples x out).
#[differentiable]
fn mlp_loss(
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: Vec<f64>,
    xs: Vec<f64>,
    ys: Vec<f64>,
) -> f64 {
    let n_hidden = b1.len();
    let n_out = b2.len();
    let n_in = w1.len() / n_hidden;
    let n_samples = xs.len() / n_in;
    let mut loss = 0.0;
    for s in 0..n_samples {
        let mut h = vec![0.0; n_hidden];
        for i in 0..n_hidden {
            let mut z = b1[i];
            for j in 0..n_in {
                z += w1[i * n_in + j] * xs[s * n_in + j];
            }
            h[i] = z.tanh();
        }
        for o in 0..n_out {
            let mut z = b2[o];
            for i in 0..n_hidden {
                z += w2[o * n_hidden + i] * h[i];
            }
            let e = z - ys[s * n_out + o];
            loss += e * e;
        }
    }
    loss
}

/// The oracle, with the weights as nested rows and each layer as a map over rows.
#[allow(clippy::too_many_arguments)]
fn mlp_loss_oracle(
    w1: &[D],
    b1: &[D],
    w2: &[D],
    b2: &[D],
    xs: &[D],
    ys: &[D],
    n_in: usize,
    n_out: usize,
) -> D {
    let layer = |w: &[D], b: &[D], input: &[D]| -> Vec<D> {
        w.chunks(input.len())
            .zip(b)
            .map(|(row, &bias)| dot_oracle(row, input) + bias)
            .collect()
    };
    let mut loss = c(0.0);
    for (x, y) in xs.chunks(n_in).zip(ys.chunks(n_out)) {
        let h: Vec<D> = layer(w1, b1, x).iter().map(|z| z.tanh()).collect();
        let out = layer(w2, b2, &h);
        for (o, t) in out.iter().zip(y) {
            loss += (*o - *t).powi(2);
        }
    }
    loss
}

/// The gradient w.r.t. every weight and bias (and, since they are `Vec<f64>` parameters, the
/// data), 3 inputs, 4 hidden units, 2 outputs, 5 samples: 26 weights and 25 data values, every
/// unit direction and 3 random ones. Each partial sums 5 samples of products of a few
/// factors of size about 1 through tanh (Lipschitz 1): tens of roundings of O(1) terms,
/// so [`DER_TOL`] holds.
#[test]
fn mlp_both_modes() {
    let (n_in, n_hidden, n_out, n_samples) = (3, 4, 2, 5);
    let sizes = [
        n_hidden * n_in,
        n_hidden,
        n_out * n_hidden,
        n_out,
        n_samples * n_in,
        n_samples * n_out,
    ];
    let mut rng = Lcg(8);
    for _ in 0..2 {
        let p = rng.vec(sizes.iter().sum(), -1.0, 1.0);
        let dirs = directions(p.len(), 3, &mut rng);
        check_scalar(
            "mlp",
            &p,
            &dirs,
            F64,
            &|p| {
                let [w1, b1, w2, b2, xs, ys] = split(p, sizes);
                mlp_loss(w1, b1, w2, b2, xs, ys)
            },
            &|p, v| {
                let [w1, b1, w2, b2, xs, ys] = split(p, sizes);
                let [dw1, db1, dw2, db2, dxs, dys] = split(v, sizes);
                ad::jvp(
                    mlp_loss,
                    (w1, b1, w2, b2, xs, ys),
                    (dw1, db1, dw2, db2, dxs, dys),
                )
            },
            &|p| {
                let [w1, b1, w2, b2, xs, ys] = split(p, sizes);
                let (y, g) = ad::value_and_grad(mlp_loss, (w1, b1, w2, b2, xs, ys));
                (y, [g.0, g.1, g.2, g.3, g.4, g.5].concat())
            },
            &|p| {
                let [w1, b1, w2, b2, xs, ys] = split_d(p, sizes);
                mlp_loss_oracle(&w1, &b1, &w2, &b2, &xs, &ys, n_in, n_out)
            },
        );
    }
}

/// [`split`] for dual numbers.
fn split_d<const K: usize>(p: &[D], sizes: [usize; K]) -> [Vec<D>; K] {
    assert_eq!(p.len(), sizes.iter().sum::<usize>());
    let mut at = 0;
    sizes.map(|n| {
        at += n;
        p[at - n..at].to_vec()
    })
}

// ---------------------------------------------------------------------------------------------
// 7. GMM objective (BENCHMARKS.md)
// ---------------------------------------------------------------------------------------------

/// ln sum exp(v), shifted by max(v).
#[differentiable]
fn logsumexp(v: Vec<f64>) -> f64 {
    let mut top = v[0];
    for i in 1..v.len() {
        top = top.max(v[i]);
    }
    let mut s = 0.0;
    for &x in &v {
        s += (x - top).exp();
    }
    top + s.ln()
}

/// The GMM log-likelihood objective of ADBench as `BENCHMARKS.md` defines it, without the
/// constant term (`-n d/2 ln 2pi` and the Wishart normaliser do not depend on the inputs).
/// `alphas` has K entries, `means` K x d, `icf` K x d(d+1)/2 (per component the d log-diagonal
/// entries q, then the strictly-lower entries l of Q column by column), `x` n x d.
#[differentiable]
#[allow(
    clippy::manual_memcpy,
    reason = "`copy_from_slice` is outside the macro's language; see the copy of `alphas` at the end"
)]
fn gmm_objective(
    alphas: Vec<f64>,
    means: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
    gamma: f64,
    m: i32,
    d: usize,
) -> f64 {
    let k_count = alphas.len();
    let n = x.len() / d;
    let icf_sz = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k_count];
    for k in 0..k_count {
        for j in 0..d {
            sum_qs[k] += icf[k * icf_sz + j];
        }
    }
    let mut slse = 0.0;
    for i in 0..n {
        let mut beta = vec![0.0; k_count];
        for k in 0..k_count {
            // Q_k (x_i - mu_k): the diagonal exp(q), then the strictly-lower l column by column.
            let mut qx = vec![0.0; d];
            for j in 0..d {
                qx[j] = icf[k * icf_sz + j].exp() * (x[i * d + j] - means[k * d + j]);
            }
            let mut idx = k * icf_sz + d;
            for a in 0..d {
                let za = x[i * d + a] - means[k * d + a];
                for b in a + 1..d {
                    qx[b] += icf[idx] * za;
                    idx += 1;
                }
            }
            let mut sq = 0.0;
            for &q in &qx {
                sq += q * q;
            }
            beta[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
        }
        slse += logsumexp(beta);
    }
    let mut prior = 0.0;
    for k in 0..k_count {
        let mut frobenius = 0.0;
        for j in 0..d {
            let e = icf[k * icf_sz + j].exp();
            frobenius += e * e;
        }
        for j in d..icf_sz {
            let l = icf[k * icf_sz + j];
            frobenius += l * l;
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_qs[k];
    }
    slse - n as f64 * logsumexp(alphas) + prior
}

fn logsumexp_oracle(v: &[D]) -> D {
    let top = v.iter().fold(v[0], |m, &x| if x.re > m.re { x } else { m });
    top + v.iter().fold(c(0.0), |s, &x| s + (x - top).exp()).ln()
}

/// The oracle: Q_k built as an explicit lower-triangular d x d matrix, the products by rows.
fn gmm_oracle(alphas: &[D], means: &[D], icf: &[D], x: &[D], gamma: D, m: i32, d: usize) -> D {
    let k_count = alphas.len();
    let icf_sz = d * (d + 1) / 2;
    let qs: Vec<Vec<Vec<D>>> = icf
        .chunks(icf_sz)
        .map(|p| {
            let mut q = vec![vec![c(0.0); d]; d];
            for j in 0..d {
                q[j][j] = p[j].exp();
            }
            let mut l = p[d..].iter();
            for col in 0..d {
                for row in col + 1..d {
                    q[row][col] = *l.next().unwrap();
                }
            }
            q
        })
        .collect();
    let sum_q = |k: usize| {
        icf[k * icf_sz..k * icf_sz + d]
            .iter()
            .fold(c(0.0), |s, &v| s + v)
    };
    let mut total = c(0.0);
    for xi in x.chunks(d) {
        let beta: Vec<D> = (0..k_count)
            .map(|k| {
                let z: Vec<D> = (0..d).map(|j| xi[j] - means[k * d + j]).collect();
                let qz: Vec<D> = qs[k].iter().map(|row| dot_oracle(row, &z)).collect();
                alphas[k] + sum_q(k) - dot_oracle(&qz, &qz) * 0.5
            })
            .collect();
        total += logsumexp_oracle(&beta);
    }
    total -= logsumexp_oracle(alphas) * (x.len() / d) as f64;
    for k in 0..k_count {
        let frobenius = qs[k].iter().flatten().fold(c(0.0), |s, &v| s + v * v);
        total += gamma * gamma * frobenius * 0.5 - sum_q(k) * f64::from(m);
    }
    total
}

/// The gradient w.r.t. alpha, means and icf (and, as `f64` parameters, the data x and gamma) at
/// d = 2 K = 3 n = 10 and d = 3 K = 2 n = 5, with data as ADBench makes it (alpha, q, l, x
/// standard normal, means uniform in [0, 1]), with gamma = 1, m = 0 as there and with gamma =
/// 1.3, m = 2 so the prior's terms count; every unit direction (up to 41) and 3 random ones. The
/// objective is some hundreds of operations whose terms reach tens (|Q z|^2 with exp(q) up to
/// e^2 or so); each partial sums at most n K = 30 such terms, so rounding stays some ulps of 100
/// relative to results of size 10 to 100, below 1e-13 (seen up to 3e-15): 1e-11 is safe, and 11
/// orders of magnitude below a wrong rule's error.
#[test]
fn gmm_both_modes() {
    let mut rng = Lcg(9);
    for (d, k_count, n) in [(2, 3, 10), (3, 2, 5)] {
        for (gamma, m) in [(1.0, 0), (1.3, 2)] {
            let icf_sz = d * (d + 1) / 2;
            let sizes = [k_count, k_count * d, k_count * icf_sz, n * d, 1];
            let mut p = rng.normals(k_count);
            p.extend(rng.vec(k_count * d, 0.0, 1.0));
            p.extend(rng.normals(k_count * icf_sz + n * d));
            p.push(gamma);
            let dirs = directions(p.len(), 3, &mut rng);
            check_scalar(
                "gmm",
                &p,
                &dirs,
                Tol {
                    val: VAL_TOL,
                    der: 1e-11,
                },
                &|p| {
                    let [a, mu, q, x, g] = split(p, sizes);
                    gmm_objective(a, mu, q, x, g[0], m, d)
                },
                &|p, v| {
                    let [a, mu, q, x, g] = split(p, sizes);
                    let [da, dmu, dq, dx, dg] = split(v, sizes);
                    ad::jvp(
                        gmm_objective,
                        (a, mu, q, x, g[0], m, d),
                        (da, dmu, dq, dx, dg[0], ad::NoTangent, ad::NoTangent),
                    )
                },
                &|p| {
                    let [a, mu, q, x, g] = split(p, sizes);
                    let (y, (ga, gmu, gq, gx, gg, _, _)) =
                        ad::value_and_grad(gmm_objective, (a, mu, q, x, g[0], m, d));
                    (y, [ga, gmu, gq, gx, vec![gg]].concat())
                },
                &|p| {
                    let [a, mu, q, x, g] = split_d(p, sizes);
                    gmm_oracle(&a, &mu, &q, &x, g[0], m, d)
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Bundle-adjustment residual (BENCHMARKS.md)
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Rotates `p` by the angle-axis vector `r` (Rodrigues' formula), with ADBench's first-order
/// branch `p + r x p` where |r| = 0.
#[differentiable]
fn rodrigues(r: [f64; 3], p: [f64; 3]) -> [f64; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let cos = theta.cos();
        let sin = theta.sin();
        let w = [r[0] / theta, r[1] / theta, r[2] / theta];
        let wxp = cross(w, p);
        let tmp = (1.0 - cos) * (w[0] * p[0] + w[1] * p[1] + w[2] * p[2]);
        [
            p[0] * cos + wxp[0] * sin + w[0] * tmp,
            p[1] * cos + wxp[1] * sin + w[1] * tmp,
            p[2] * cos + wxp[2] * sin + w[2] * tmp,
        ]
    } else {
        let rxp = cross(r, p);
        [p[0] + rxp[0], p[1] + rxp[1], p[2] + rxp[2]]
    }
}

/// [`rodrigues`] written with an early return for the small-angle branch, the axis by compound
/// division of a copy of `r`, and the result written element by element.
#[differentiable]
fn rodrigues_early_return(r: [f64; 3], p: [f64; 3]) -> [f64; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta == 0.0 {
        let rxp = cross(r, p);
        return [p[0] + rxp[0], p[1] + rxp[1], p[2] + rxp[2]];
    }
    let theta = sqtheta.sqrt();
    let (sin, cos) = (theta.sin(), theta.cos());
    let mut w = r;
    for i in 0..3 {
        w[i] /= theta;
    }
    let wxp = cross(w, p);
    let tmp = (1.0 - cos) * (w[0] * p[0] + w[1] * p[1] + w[2] * p[2]);
    let mut out = [0.0; 3];
    for i in 0..3 {
        out[i] = p[i] * cos + wxp[i] * sin + w[i] * tmp;
    }
    out
}

/// The weighted reprojection error of point `x` in camera `cam` = (r, C, f, u0, v0, k1, k2).
#[differentiable]
fn ba_residual(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xc = rodrigues([cam[0], cam[1], cam[2]], xo);
    let u = [xc[0] / xc[2], xc[1] / xc[2]];
    let s = u[0] * u[0] + u[1] * u[1];
    let distortion = 1.0 + cam[9] * s + cam[10] * s * s;
    [
        w * (cam[6] * u[0] * distortion + cam[7] - feat[0]),
        w * (cam[6] * u[1] * distortion + cam[8] - feat[1]),
    ]
}

/// The oracle of [`rodrigues`], ADBench's `rodrigues_rotate_point` over dual numbers.
fn rodrigues_oracle(r: [D; 3], p: [D; 3]) -> [D; 3] {
    let cross = |a: [D; 3], b: [D; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot3 = |a: [D; 3], b: [D; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let sqtheta = dot3(r, r);
    if sqtheta.re != 0.0 {
        let theta = sqtheta.sqrt();
        let (sin, cos) = theta.sin_cos();
        let axis = r.map(|v| v / theta);
        let axp = cross(axis, p);
        let tmp = (-cos + 1.0) * dot3(axis, p);
        std::array::from_fn(|i| p[i] * cos + axp[i] * sin + axis[i] * tmp)
    } else {
        let rxp = cross(r, p);
        std::array::from_fn(|i| p[i] + rxp[i])
    }
}

/// The oracle, ADBench's `computeReprojError` over dual numbers.
fn ba_oracle(cam: &[D], x: &[D], w: D, feat: &[D]) -> Vec<D> {
    let r = [cam[0], cam[1], cam[2]];
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xc = rodrigues_oracle(r, xo);
    let u = [xc[0] / xc[2], xc[1] / xc[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = cam[9] * rsq + cam[10] * rsq * rsq + 1.0;
    vec![
        (u[0] * l * cam[6] + cam[7] - feat[0]) * w,
        (u[1] * l * cam[6] + cam[8] - feat[1]) * w,
    ]
}

fn ba_args(p: &[f64]) -> ([f64; 11], [f64; 3], f64, [f64; 2]) {
    let [cam, x, w, feat] = split(p, [11, 3, 1, 2]);
    (
        cam.try_into().unwrap(),
        x.try_into().unwrap(),
        w[0],
        feat.try_into().unwrap(),
    )
}

/// A camera and point like ADBench's BA data: a rotation of up to 0.35 rad (or none), the point
/// some units in front of the camera, focal length a few hundred, small distortion.
fn ba_point(rng: &mut Lcg, rotation: bool) -> Vec<f64> {
    let mut p = Vec::with_capacity(17);
    for _ in 0..3 {
        p.push(if rotation { rng.range(-0.2, 0.2) } else { 0.0 });
    }
    p.extend(rng.vec(3, -0.5, 0.5)); // C
    p.push(rng.range(300.0, 600.0)); // f
    p.extend(rng.vec(2, -2.0, 2.0)); // u0, v0
    p.extend(rng.vec(2, -0.1, 0.1)); // k1, k2
    p.extend(rng.vec(2, -1.0, 1.0)); // X: x, y
    p.push(rng.range(4.0, 8.0)); // X: z, in front of the camera
    p.push(rng.range(0.5, 2.0)); // w
    p.extend(rng.vec(2, -100.0, 100.0)); // feat
    p
}

/// The 2 x 15 Jacobian block of BA (cam, X, w; and the feature, whose block is -w I) in reverse
/// mode (a pullback per row and at random cotangents) and in forward mode (a jvp along every
/// unit vector and random directions), against the oracle, at random cameras and at cameras with
/// r = 0 exactly, which take the small-angle branch. The residuals and partials reach some
/// hundreds (the focal length times coordinates of about 0.3), each a chain of some 50
/// operations, so rounding is some ulps relative to results of that size (seen up to 8e-15);
/// [`DER_TOL`] holds with a margin.
///
/// At r = 0 the branch's derivative w.r.t. r is also that of the rotation itself (Rodrigues'
/// formula is p + r x p + O(|r|^2)), so the jacobian's r columns there are checked against
/// central differences of the residual with a step 1e-6, which leave the branch: truncation is
/// about h^2 |f'''| ~ 1e-12 * 1e4 = 1e-8 relative to partials of size 1e3, and rounding about
/// eps |f| / h ~ 1e-16 * 1e3 / 1e-6 = 1e-7, including the cancellation of 1 - cos(1e-6); so 1e-6
/// relative (with the floor of 1) holds.
#[test]
fn ba_jacobian_both_modes() {
    let mut rng = Lcg(10);
    for rotation in [true, false] {
        for _ in 0..3 {
            let p = ba_point(&mut rng, rotation);
            let dirs = directions(p.len(), 3, &mut rng);
            check_vector(
                if rotation { "ba" } else { "ba small-angle" },
                &p,
                &dirs,
                F64,
                &mut rng,
                &|p| {
                    let (cam, x, w, feat) = ba_args(p);
                    ba_residual(cam, x, w, feat).to_vec()
                },
                &|p, v| {
                    let (y, t) = ad::jvp(ba_residual, ba_args(p), ba_args(v));
                    (y.to_vec(), t.to_vec())
                },
                &|p, ws| {
                    let (y, pullback) = ad::vjp(ba_residual, ba_args(p));
                    let adj = ws
                        .iter()
                        .map(|w| {
                            let (gcam, gx, gw, gfeat) = pullback([w[0], w[1]]);
                            [&gcam[..], &gx[..], &[gw], &gfeat[..]].concat()
                        })
                        .collect();
                    (y.to_vec(), adj)
                },
                &|p| ba_oracle(&p[..11], &p[11..14], p[14], &p[15..]),
            );
            if !rotation {
                let (_, pullback) = ad::vjp(ba_residual, ba_args(&p));
                for row in 0..2 {
                    let (gcam, ..) = pullback(if row == 0 { [1.0, 0.0] } else { [0.0, 1.0] });
                    let f = |q: &[f64]| {
                        let (cam, x, w, feat) = ba_args(q);
                        ba_residual(cam, x, w, feat)[row]
                    };
                    for k in 0..3 {
                        let fd = central_difference(&f, &p, k, 1e-6);
                        assert!(
                            close(gcam[k], fd, 1e-6),
                            "ba at r = 0: d e{row} / d r{k} is {:e}, finite difference {fd:e}",
                            gcam[k]
                        );
                    }
                }
            }
        }
    }
}

/// Both spellings of Rodrigues' rotation (`if`/`else` returning arrays, and an early return)
/// against the oracle, in both modes, at random rotations and at r = 0 exactly: rotations of
/// size <= 0.35 rad and points in [-2, 2]^3, a few dozen operations ([`DER_TOL`]).
#[test]
fn rodrigues_both_spellings_both_modes() {
    let mut rng = Lcg(12);
    for rotation in [true, false] {
        for _ in 0..3 {
            let mut p = if rotation {
                rng.vec(3, -0.2, 0.2)
            } else {
                vec![0.0; 3]
            };
            p.extend(rng.vec(3, -2.0, 2.0));
            let dirs = directions(6, 3, &mut rng);
            let args = |p: &[f64]| ([p[0], p[1], p[2]], [p[3], p[4], p[5]]);
            for name in ["rodrigues", "rodrigues_early_return"] {
                check_vector(
                    name,
                    &p,
                    &dirs,
                    F64,
                    &mut rng,
                    &|p| {
                        let (r, x) = args(p);
                        if name == "rodrigues" {
                            rodrigues(r, x).to_vec()
                        } else {
                            rodrigues_early_return(r, x).to_vec()
                        }
                    },
                    &|p, v| {
                        let (y, t) = if name == "rodrigues" {
                            ad::jvp(rodrigues, args(p), args(v))
                        } else {
                            ad::jvp(rodrigues_early_return, args(p), args(v))
                        };
                        (y.to_vec(), t.to_vec())
                    },
                    &|p, ws| {
                        let adjoints = |pullback: &dyn Fn([f64; 3]) -> ([f64; 3], [f64; 3])| {
                            ws.iter()
                                .map(|w| {
                                    let (gr, gx) = pullback([w[0], w[1], w[2]]);
                                    [gr, gx].concat()
                                })
                                .collect()
                        };
                        if name == "rodrigues" {
                            let (y, pullback) = ad::vjp(rodrigues, args(p));
                            (y.to_vec(), adjoints(&pullback))
                        } else {
                            let (y, pullback) = ad::vjp(rodrigues_early_return, args(p));
                            (y.to_vec(), adjoints(&pullback))
                        }
                    },
                    &|p| rodrigues_oracle([p[0], p[1], p[2]], [p[3], p[4], p[5]]).to_vec(),
                );
            }
        }
    }
}
