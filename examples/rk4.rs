//! Fits the stiffness and damping of an oscillator to an observed position by differentiating a
//! fourth-order Runge-Kutta integrator with `ad`: the gradient of the final position with respect
//! to the parameters and the initial state, in reverse mode (one sweep) and checked against
//! forward mode (one sweep per input), then Gauss-Newton steps that recover the parameters from
//! observed positions.
//!
//! Run it with `cargo run --release --example rk4`.

use ad::differentiable;

/// The damped oscillator x'' = -k x - c x' as a first-order system in the state (x, v).
#[differentiable]
fn deriv(s: [f64; 2], k: f64, c: f64) -> [f64; 2] {
    [s[1], -k * s[0] - c * s[1]]
}

/// Position after `steps` classical RK4 steps of size `dt` from (x0, v0).
#[differentiable]
fn final_position(k: f64, c: f64, x0: f64, v0: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut s = [x0, v0];
    for _ in 0..steps {
        let k1 = deriv(s, k, c);
        let k2 = deriv([s[0] + 0.5 * dt * k1[0], s[1] + 0.5 * dt * k1[1]], k, c);
        let k3 = deriv([s[0] + 0.5 * dt * k2[0], s[1] + 0.5 * dt * k2[1]], k, c);
        let k4 = deriv([s[0] + dt * k3[0], s[1] + dt * k3[1]], k, c);
        for i in 0..2 {
            s[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    s[0]
}

fn main() {
    let steps = 1_000;
    let (k, c, x0, v0) = (4.0, 0.3, 1.0, 0.0);
    let (x, grad) = ad::value_and_grad(final_position, (k, c, x0, v0, steps));
    let (gk, gc, gx0, gv0, _) = grad;
    println!("x(t = 10) = {x:.9}");
    println!(
        "reverse mode: dx/dk = {gk:.9}, dx/dc = {gc:.9}, dx/dx0 = {gx0:.9}, dx/dv0 = {gv0:.9}"
    );

    let none = ad::NoTangent;
    let (_, fk) = ad::jvp(
        final_position,
        (k, c, x0, v0, steps),
        (1.0, 0.0, 0.0, 0.0, none),
    );
    let (_, fc) = ad::jvp(
        final_position,
        (k, c, x0, v0, steps),
        (0.0, 1.0, 0.0, 0.0, none),
    );
    println!("forward mode: dx/dk = {fk:.9}, dx/dc = {fc:.9}");

    // Recover (k, c) from positions observed at eight times, by Gauss-Newton on the residuals.
    let truth = (2.5, 0.4);
    let horizons = [150, 300, 450, 600, 750, 900, 1_050, 1_200];
    let observed = horizons.map(|n| final_position(truth.0, truth.1, x0, v0, n));
    let (mut k, mut c) = (3.0, 0.2);
    for iteration in 0..8 {
        let mut jtj = [[0.0; 2]; 2];
        let mut jtr = [0.0; 2];
        let mut cost = 0.0;
        for (n, y) in horizons.iter().zip(observed) {
            let (x, (gk, gc, _, _, _)) = ad::value_and_grad(final_position, (k, c, x0, v0, *n));
            let r = x - y;
            cost += r * r;
            let j = [gk, gc];
            for a in 0..2 {
                jtr[a] += j[a] * r;
                for b in 0..2 {
                    jtj[a][b] += j[a] * j[b];
                }
            }
        }
        println!("iteration {iteration}: k = {k:.6}, c = {c:.6}, squared residual = {cost:.3e}");
        let det = jtj[0][0] * jtj[1][1] - jtj[0][1] * jtj[1][0];
        k -= (jtj[1][1] * jtr[0] - jtj[0][1] * jtr[1]) / det;
        c -= (jtj[0][0] * jtr[1] - jtj[1][0] * jtr[0]) / det;
    }
    println!(
        "recovered k = {k:.6}, c = {c:.6}; the truth is k = {}, c = {}",
        truth.0, truth.1
    );
}
