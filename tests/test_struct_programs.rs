//! Real programs written with structs and methods, against the same programs written over
//! dual numbers (tolerance 1e-12 relative, `tests/dual_check/mod.rs` says why).
//!
//! - A pinhole camera (`struct Camera` with a `project` method) and the residual of bundle
//!   adjustment written with it: an angle-axis rotation (Rodrigues' formula), a translation, a
//!   perspective division and a two-term radial distortion.
//! - A Kalman filter on a state struct (position and velocity, their covariance): `predict`
//!   (by reference) and `update` (by value) steps chained over a series of measurements, and
//!   the negative log-likelihood of the measurements, differentiated with respect to the noise
//!   parameters and the initial state.
//! - A two-layer perceptron `struct Mlp { layers: Vec<Layer> }` whose layers' methods are
//!   called on `self.layers[l]`, weights read in place (`self.w[o * self.n_in + i]`), trained
//!   a few steps by gradient descent on the gradient `ad` gives: at every step the gradient
//!   agrees with the oracle's, and the loss falls.
//! - A chain of springs between masses: `impl Energy for Spring` (a trait's method), summed
//!   by a function generic over the trait (`fn total_energy<E: Energy>(items: &[E])`, its
//!   `s.energy()` the call of `<E as Energy>::energy`) over a `Vec<Spring>` the body builds from
//!   the masses' positions.

// The layers index their weights as numerics code does.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, c, close};

#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct Camera {
    rotation: [f64; 3],
    translation: [f64; 3],
    focal: f64,
    k1: f64,
    k2: f64,
}

#[ad::differentiable]
impl Camera {
    /// The point rotated by the camera's angle-axis rotation (Rodrigues' formula).
    fn rotate(&self, p: [f64; 3]) -> [f64; 3] {
        let w = self.rotation;
        let theta = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let k = [w[0] / theta, w[1] / theta, w[2] / theta];
        let (s, co) = (theta.sin(), theta.cos());
        let cross = [
            k[1] * p[2] - k[2] * p[1],
            k[2] * p[0] - k[0] * p[2],
            k[0] * p[1] - k[1] * p[0],
        ];
        let dot = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
        [
            p[0] * co + cross[0] * s + k[0] * dot * (1.0 - co),
            p[1] * co + cross[1] * s + k[1] * dot * (1.0 - co),
            p[2] * co + cross[2] * s + k[2] * dot * (1.0 - co),
        ]
    }

    /// The pixel the point projects to.
    fn project(&self, p: [f64; 3]) -> [f64; 2] {
        let r = self.rotate(p);
        let t = self.translation;
        let q = [r[0] + t[0], r[1] + t[1], r[2] + t[2]];
        let (u, v) = (-q[0] / q[2], -q[1] / q[2]);
        let r2 = u * u + v * v;
        let distortion = 1.0 + self.k1 * r2 + self.k2 * r2 * r2;
        [self.focal * distortion * u, self.focal * distortion * v]
    }
}

/// Bundle adjustment's residual: the projection against the observation.
#[ad::differentiable]
fn residual(camera: &Camera, point: [f64; 3], observed: [f64; 2]) -> f64 {
    let pixel = camera.project(point);
    let (du, dv) = (pixel[0] - observed[0], pixel[1] - observed[1]);
    du * du + dv * dv
}

// The oracle, over dual numbers, on the camera's floats `rotation translation focal k1 k2`.
fn rotate_d(w: [D; 3], p: [D; 3]) -> [D; 3] {
    let theta = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    let k = [w[0] / theta, w[1] / theta, w[2] / theta];
    let (s, co) = (theta.sin(), theta.cos());
    let cross = [
        k[1] * p[2] - k[2] * p[1],
        k[2] * p[0] - k[0] * p[2],
        k[0] * p[1] - k[1] * p[0],
    ];
    let dot = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
    std::array::from_fn(|i| p[i] * co + cross[i] * s + k[i] * dot * (c(1.0) - co))
}

fn residual_d(cam: [D; 9], p: [D; 3], observed: [f64; 2]) -> D {
    let r = rotate_d([cam[0], cam[1], cam[2]], p);
    let q = [r[0] + cam[3], r[1] + cam[4], r[2] + cam[5]];
    let (u, v) = (-q[0] / q[2], -q[1] / q[2]);
    let r2 = u * u + v * v;
    let distortion = c(1.0) + cam[7] * r2 + cam[8] * r2 * r2;
    let du = cam[6] * distortion * u - c(observed[0]);
    let dv = cam[6] * distortion * v - c(observed[1]);
    du * du + dv * dv
}

fn camera(v: [f64; 9]) -> Camera {
    Camera {
        rotation: [v[0], v[1], v[2]],
        translation: [v[3], v[4], v[5]],
        focal: v[6],
        k1: v[7],
        k2: v[8],
    }
}

fn camera_floats(t: &Camera) -> [f64; 9] {
    let (r, t0) = (t.rotation, t.translation);
    [r[0], r[1], r[2], t0[0], t0[1], t0[2], t.focal, t.k1, t.k2]
}

#[test]
fn the_residual_of_bundle_adjustment_with_a_camera_struct() {
    let cams = [
        [0.1, -0.2, 0.05, 0.3, -0.1, -4.0, 800.0, 1e-3, 1e-6],
        [-0.3, 0.4, 0.2, -0.5, 0.2, -6.0, 650.0, -2e-3, 3e-6],
    ];
    let points = [[0.5, -0.3, 1.2], [-1.0, 0.8, 0.4]];
    let observed = [12.0, -30.0];
    for v in cams {
        for point in points {
            let cam = camera(v);
            let value = residual(&cam, point, observed);
            let (gv, (gc, gp, _)) = ad::value_and_grad(residual, (&cam, point, observed));
            let (_, pullback) = ad::vjp(residual, (&cam, point, observed));
            let (pc, pp, _) = pullback(1.0);
            assert_eq!(gv.to_bits(), value.to_bits());
            let (gc, pc) = (camera_floats(&gc), camera_floats(&pc));
            // Along each camera coordinate, then each point coordinate.
            for i in 0..12 {
                let seed = |j: usize| if i == j { 1.0 } else { 0.0 };
                let cd: [D; 9] = std::array::from_fn(|j| D::new(v[j], seed(j)));
                let pd: [D; 3] = std::array::from_fn(|j| D::new(point[j], seed(j + 9)));
                let want = residual_d(cd, pd, observed);
                assert!(close(want.re, value, TOL));
                let dcam: [f64; 9] = std::array::from_fn(seed);
                let dp: [f64; 3] = std::array::from_fn(|j| seed(j + 9));
                let (_, t) = ad::jvp(
                    residual,
                    (&cam, point, observed),
                    (camera(dcam), dp, [0.0; 2]),
                );
                let (g, p) = if i < 9 {
                    (gc[i], pc[i])
                } else {
                    (gp[i - 9], pp[i - 9])
                };
                for (how, got) in [("jvp", t), ("grad", g), ("vjp", p)] {
                    assert!(
                        close(got, want.eps, TOL),
                        "{how} d/d{i} = {got}, oracle {}",
                        want.eps
                    );
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, ad::Differentiable)]
struct State {
    x: [f64; 2],
    p: [[f64; 2]; 2],
}

#[ad::differentiable]
impl State {
    /// A constant-velocity step of `dt` with process noise `q`.
    fn predict(&self, dt: f64, q: f64) -> State {
        let [x0, x1] = self.x;
        let [[p00, p01], [p10, p11]] = self.p;
        State {
            x: [x0 + dt * x1, x1],
            p: [
                [
                    p00 + dt * (p10 + p01) + dt * dt * p11 + q * dt * dt * dt / 3.0,
                    p01 + dt * p11 + q * dt * dt / 2.0,
                ],
                [p10 + dt * p11 + q * dt * dt / 2.0, p11 + q * dt],
            ],
        }
    }

    /// The innovation's variance for a measurement of the position with noise `r`.
    fn innovation_variance(&self, r: f64) -> f64 {
        let [[p00, _], _] = self.p;
        p00 + r
    }

    /// The state after measuring position `z` with noise `r`.
    fn update(self, z: f64, r: f64) -> State {
        let s = self.innovation_variance(r);
        let [x0, x1] = self.x;
        let [[p00, p01], [p10, p11]] = self.p;
        let (k0, k1) = (p00 / s, p10 / s);
        let y = z - x0;
        State {
            x: [x0 + k0 * y, x1 + k1 * y],
            p: [
                [(1.0 - k0) * p00, (1.0 - k0) * p01],
                [p10 - k1 * p00, p11 - k1 * p01],
            ],
        }
    }
}

/// The negative log-likelihood (up to a constant) of the measurements `zs`, taken `dt` apart.
#[ad::differentiable]
fn kalman_nll(start: &State, zs: &[f64], dt: f64, q: f64, r: f64) -> f64 {
    let mut state: State = *start;
    let mut nll = 0.0;
    for z in zs.iter() {
        let predicted: State = state.predict(dt, q);
        let s = predicted.innovation_variance(r);
        let x = predicted.x;
        let y = *z - x[0];
        nll += 0.5 * (s.ln() + y * y / s);
        state = predicted.update(*z, r);
    }
    nll
}

/// The oracle: the same filter over dual numbers, the state as `x0 x1 p00 p01 p10 p11`.
fn kalman_nll_d(start: [D; 6], zs: &[f64], dt: D, q: D, r: D) -> D {
    let (mut x, mut p) = (
        [start[0], start[1]],
        [[start[2], start[3]], [start[4], start[5]]],
    );
    let mut nll = c(0.0);
    let three = c(3.0);
    let two = c(2.0);
    for &z in zs {
        let pp = [
            [
                p[0][0] + dt * (p[1][0] + p[0][1]) + dt * dt * p[1][1] + q * dt * dt * dt / three,
                p[0][1] + dt * p[1][1] + q * dt * dt / two,
            ],
            [p[1][0] + dt * p[1][1] + q * dt * dt / two, p[1][1] + q * dt],
        ];
        let xp = [x[0] + dt * x[1], x[1]];
        let s = pp[0][0] + r;
        let y = c(z) - xp[0];
        nll += c(0.5) * (s.ln() + y * y / s);
        let (k0, k1) = (pp[0][0] / s, pp[1][0] / s);
        x = [xp[0] + k0 * y, xp[1] + k1 * y];
        p = [
            [(c(1.0) - k0) * pp[0][0], (c(1.0) - k0) * pp[0][1]],
            [pp[1][0] - k1 * pp[0][0], pp[1][1] - k1 * pp[0][1]],
        ];
    }
    nll
}

#[test]
fn a_kalman_filter_on_a_state_struct() {
    let zs = [0.1, 0.35, 0.52, 0.9, 1.05, 1.4, 1.62, 2.0];
    let start = State {
        x: [0.0, 0.2],
        p: [[1.0, 0.1], [0.1, 0.5]],
    };
    let floats = |s: &State| [s.x[0], s.x[1], s.p[0][0], s.p[0][1], s.p[1][0], s.p[1][1]];
    let v0 = floats(&start);
    for (dt, q, r) in [(0.25, 0.05, 0.02), (0.5, 0.3, 0.1)] {
        let value = kalman_nll(&start, &zs, dt, q, r);
        let (gv, (gs, _, gdt, gq, gr)) =
            ad::value_and_grad(kalman_nll, (&start, &zs[..], dt, q, r));
        let (_, pullback) = ad::vjp(kalman_nll, (&start, &zs[..], dt, q, r));
        let (ps, _, pdt, pq, pr) = pullback(1.0);
        assert_eq!(gv.to_bits(), value.to_bits());
        let (grad, pulled) = (floats(&gs), floats(&ps));
        // Along each coordinate of the start, then dt, q and r.
        for i in 0..9 {
            let seed = |j: usize| if i == j { 1.0 } else { 0.0 };
            let sd: [D; 6] = std::array::from_fn(|j| D::new(v0[j], seed(j)));
            let want = kalman_nll_d(
                sd,
                &zs,
                D::new(dt, seed(6)),
                D::new(q, seed(7)),
                D::new(r, seed(8)),
            );
            assert!(close(want.re, value, TOL));
            let ds = State {
                x: [seed(0), seed(1)],
                p: [[seed(2), seed(3)], [seed(4), seed(5)]],
            };
            let zero = [0.0; 8];
            let (_, t) = ad::jvp(
                kalman_nll,
                (&start, &zs[..], dt, q, r),
                (ds, &zero[..], seed(6), seed(7), seed(8)),
            );
            let (g, p) = match i {
                0..6 => (grad[i], pulled[i]),
                6 => (gdt, pdt),
                7 => (gq, pq),
                _ => (gr, pr),
            };
            for (how, got) in [("jvp", t), ("grad", g), ("vjp", p)] {
                assert!(
                    close(got, want.eps, TOL),
                    "{how} d/d{i} = {got}, oracle {}",
                    want.eps
                );
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: Vec<f64>,
    n_in: usize,
    n_out: usize,
}

#[ad::differentiable]
impl Layer {
    /// `tanh(W x + b)`, or `W x + b` for the output layer.
    fn apply(&self, x: &[f64], squash: bool) -> Vec<f64> {
        let mut y = vec![0.0; self.n_out];
        for o in 0..self.n_out {
            let mut s = self.b[o];
            for i in 0..self.n_in {
                s += self.w[o * self.n_in + i] * x[i];
            }
            y[o] = if squash { s.tanh() } else { s };
        }
        y
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Mlp {
    layers: Vec<Layer>,
}

#[ad::differentiable]
impl Mlp {
    fn predict(&self, x: &[f64]) -> Vec<f64> {
        let last = self.layers.len() - 1;
        let mut h = self.layers[0].apply(x, last > 0);
        for l in 1..self.layers.len() {
            h = self.layers[l].apply(&h, l < last);
        }
        h
    }

    /// The mean squared error over a data set of `n` points of `dim` inputs each.
    fn loss(&self, xs: &[f64], ys: &[f64], dim: usize) -> f64 {
        let n = ys.len();
        let mut total = 0.0;
        for k in 0..n {
            let y = self.predict(&xs[k * dim..(k + 1) * dim]);
            let d = y[0] - ys[k];
            total += d * d;
        }
        total / n as f64
    }
}

/// The oracle's perceptron: the weights and biases of each layer in order, flat.
fn mlp_loss_d(params: &[D], shapes: &[(usize, usize)], xs: &[f64], ys: &[f64], dim: usize) -> D {
    let mut total = c(0.0);
    for (k, &target) in ys.iter().enumerate() {
        let mut h: Vec<D> = xs[k * dim..(k + 1) * dim].iter().map(|&x| c(x)).collect();
        let mut at = 0;
        for (l, &(n_in, n_out)) in shapes.iter().enumerate() {
            let (w, b) = (
                &params[at..at + n_in * n_out],
                &params[at + n_in * n_out..at + n_in * n_out + n_out],
            );
            at += n_in * n_out + n_out;
            h = (0..n_out)
                .map(|o| {
                    let s = (0..n_in).fold(b[o], |s, i| s + w[o * n_in + i] * h[i]);
                    if l + 1 < shapes.len() { s.tanh() } else { s }
                })
                .collect();
        }
        let d = h[0] - c(target);
        total += d * d;
    }
    total / c(ys.len() as f64)
}

fn mlp_params(m: &Mlp) -> Vec<f64> {
    m.layers
        .iter()
        .flat_map(|l| l.w.iter().chain(&l.b).copied())
        .collect()
}

fn mlp_tangent_floats(t: &MlpTangent) -> Vec<f64> {
    t.layers
        .iter()
        .flat_map(|l| l.w.iter().chain(&l.b).copied())
        .collect()
}

#[test]
fn a_perceptron_of_layer_structs_trained_by_gradient_descent() {
    let shapes = [(2, 5), (5, 1)];
    let mut mlp = Mlp {
        layers: shapes
            .iter()
            .enumerate()
            .map(|(l, &(n_in, n_out))| Layer {
                w: (0..n_in * n_out)
                    .map(|k| ((k + 7 * l) as f64 * 0.9).sin() * 0.6)
                    .collect(),
                b: (0..n_out).map(|k| ((k + l) as f64).cos() * 0.1).collect(),
                n_in,
                n_out,
            })
            .collect(),
    };
    // y = sin(x0) + x0 x1 on a grid.
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..4 {
        for j in 0..3 {
            let (a, b) = (i as f64 * 0.5 - 0.75, j as f64 * 0.6 - 0.6);
            xs.extend([a, b]);
            ys.push(a.sin() + a * b);
        }
    }
    let mut losses = Vec::new();
    for _step in 0..4 {
        let value = mlp.loss(&xs, &ys, 2);
        losses.push(value);
        let (gv, (g, _, _, _)) = ad::value_and_grad(Mlp::loss, (&mlp, &xs[..], &ys[..], 2));
        let (p, _, _, _) = ad::vjp(Mlp::loss, (&mlp, &xs[..], &ys[..], 2)).1(1.0);
        assert_eq!(gv.to_bits(), value.to_bits());
        let (g, p) = (mlp_tangent_floats(&g), mlp_tangent_floats(&p));
        let params = mlp_params(&mlp);
        assert_eq!(g.len(), params.len());
        for i in 0..params.len() {
            let seeded: Vec<D> = params
                .iter()
                .enumerate()
                .map(|(j, &v)| D::new(v, if i == j { 1.0 } else { 0.0 }))
                .collect();
            let want = mlp_loss_d(&seeded, &shapes, &xs, &ys, 2);
            assert!(close(want.re, value, TOL));
            let mut t = ad::Differentiable::zero_tangent(&mlp);
            let mut k = i;
            for layer in &mut t.layers {
                let (nw, nb) = (layer.w.len(), layer.b.len());
                if k < nw {
                    layer.w[k] = 1.0;
                    break;
                } else if k < nw + nb {
                    layer.b[k - nw] = 1.0;
                    break;
                }
                k -= nw + nb;
            }
            let (_, jv) = ad::jvp(
                Mlp::loss,
                (&mlp, &xs[..], &ys[..], 2),
                (t, &[0.0; 24][..], &[0.0; 12][..], ad::NoTangent),
            );
            for (how, got) in [("jvp", jv), ("grad", g[i]), ("vjp", p[i])] {
                assert!(
                    close(got, want.eps, TOL),
                    "{how} d/d{i} = {got}, oracle {}",
                    want.eps
                );
            }
        }
        // A step of gradient descent, layer by layer.
        let (_, (g, _, _, _)) = ad::value_and_grad(Mlp::loss, (&mlp, &xs[..], &ys[..], 2));
        for (layer, grad) in mlp.layers.iter_mut().zip(&g.layers) {
            for (w, gw) in layer.w.iter_mut().zip(&grad.w) {
                *w -= 0.3 * gw;
            }
            for (b, gb) in layer.b.iter_mut().zip(&grad.b) {
                *b -= 0.3 * gb;
            }
        }
    }
    assert!(
        losses.windows(2).all(|w| w[1] < w[0]),
        "the loss falls: {losses:?}"
    );
}

trait Energy {
    fn energy(&self) -> f64;
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Spring {
    k: f64,
    rest: f64,
    from: f64,
    to: f64,
}

#[ad::differentiable]
impl Energy for Spring {
    fn energy(&self) -> f64 {
        let stretch = (self.to - self.from).abs() - self.rest;
        0.5 * self.k * stretch * stretch
    }
}

/// Generic over the element: each instantiation (`total_energy::<Spring>`) registers its
/// derivatives at its first call.
#[ad::differentiable]
fn total_energy<E: Energy>(items: &[E]) -> f64 {
    let mut e = 0.0;
    for s in items.iter() {
        e += s.energy();
    }
    e
}

/// Masses at `xs` joined by springs of stiffness `k (1 + i / 2)` and rest length `rest`, the
/// last mass also pulled by gravity `g`.
#[ad::differentiable]
fn chain_energy(xs: &[f64], k: f64, rest: f64, g: f64) -> f64 {
    let n = xs.len();
    // Typed, so that the call below names `total_energy::<Spring>` (else: a turbofish).
    let mut springs: Vec<Spring> = vec![
        Spring {
            k,
            rest,
            from: 0.0,
            to: 0.0,
        };
        n - 1
    ];
    for i in 0..n - 1 {
        springs[i] = Spring {
            k: k * (1.0 + i as f64 / 2.0),
            rest,
            from: xs[i],
            to: xs[i + 1],
        };
    }
    total_energy(&springs) + g * xs[n - 1]
}

fn chain_energy_d(xs: &[D], k: D, rest: D, g: D) -> D {
    let mut e = c(0.0);
    for i in 0..xs.len() - 1 {
        let d = xs[i + 1] - xs[i];
        let stretch = if d.re < 0.0 { -d } else { d } - rest;
        e += c(0.5) * (k * c(1.0 + i as f64 / 2.0)) * stretch * stretch;
    }
    e + g * xs[xs.len() - 1]
}

#[test]
fn a_spring_chain_summed_through_a_trait_method() {
    let xs = [0.0, 1.3, 2.1, 3.9, 4.4];
    let (k, rest, g) = (2.5, 1.0, 0.8);
    let value = chain_energy(&xs, k, rest, g);
    let (gv, (gx, gk, gr, gg)) = ad::value_and_grad(chain_energy, (&xs[..], k, rest, g));
    let (px, pk, pr, pg) = ad::vjp(chain_energy, (&xs[..], k, rest, g)).1(1.0);
    assert_eq!(gv.to_bits(), value.to_bits());
    for i in 0..xs.len() + 3 {
        let seed = |j: usize| if i == j { 1.0 } else { 0.0 };
        let xd: Vec<D> = xs
            .iter()
            .enumerate()
            .map(|(j, &x)| D::new(x, seed(j)))
            .collect();
        let n = xs.len();
        let want = chain_energy_d(
            &xd,
            D::new(k, seed(n)),
            D::new(rest, seed(n + 1)),
            D::new(g, seed(n + 2)),
        );
        assert!(close(want.re, value, TOL));
        let dx: Vec<f64> = (0..n).map(seed).collect();
        let (_, t) = ad::jvp(
            chain_energy,
            (&xs[..], k, rest, g),
            (&dx[..], seed(n), seed(n + 1), seed(n + 2)),
        );
        let (gi, pi) = match i {
            i if i < n => (gx[i], px[i]),
            i if i == n => (gk, pk),
            i if i == n + 1 => (gr, pr),
            _ => (gg, pg),
        };
        for (how, got) in [("jvp", t), ("grad", gi), ("vjp", pi)] {
            assert!(
                close(got, want.eps, TOL),
                "{how} d/d{i} = {got}, oracle {}",
                want.eps
            );
        }
    }
}
