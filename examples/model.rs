//! Trains a small neural network written as structs: a `Net` of `Layer`s with methods, the
//! gradient of its loss from `ad`'s reverse mode (a `NetTangent`, the shape of the network),
//! and a step of gradient descent with `AddTangent::add_tangent`. Prints the loss falling.
//!
//! Run it with `cargo run --release --example model`.

// The layers index their weights as numerics code does.
#![allow(clippy::needless_range_loop)]

use ad::{AddTangent, Const};

/// One layer: `W` row-major, `outputs` x `inputs`.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: Vec<f64>,
    inputs: usize,
    outputs: usize,
}

#[ad::differentiable]
impl Layer {
    /// `tanh(W x + b)`, or `W x + b` for the output layer.
    fn apply(&self, x: &[f64], squash: bool) -> Vec<f64> {
        let mut y = vec![0.0; self.outputs];
        for o in 0..self.outputs {
            let mut z = self.b[o];
            for i in 0..self.inputs {
                z += self.w[o * self.inputs + i] * x[i];
            }
            y[o] = if squash { z.tanh() } else { z };
        }
        y
    }
}

/// Hidden layers with `tanh`, the last one linear.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

#[ad::differentiable]
impl Net {
    fn predict(&self, x: &[f64]) -> Vec<f64> {
        let last = self.layers.len() - 1;
        let mut h = self.layers[0].apply(x, last > 0);
        for l in 1..self.layers.len() {
            h = self.layers[l].apply(&h, l < last);
        }
        h
    }

    /// The mean squared error over the points `xs` (two inputs each) and targets `ys`.
    fn loss(&self, xs: Const<&[f64]>, ys: Const<&[f64]>) -> f64 {
        let n = ys.len();
        let mut point = vec![0.0; 2];
        let mut total = 0.0;
        for k in 0..n {
            point[0] = xs[2 * k];
            point[1] = xs[2 * k + 1];
            let y = self.predict(&point);
            let e = y[0] - ys[k];
            total += e * e;
        }
        total / n as f64
    }
}

impl Net {
    /// Layers of the given widths, with small weights from a fixed sequence.
    fn new(widths: &[usize]) -> Net {
        let mut seed = 0.5_f64;
        let mut next = move || {
            seed = (seed * 997.0 + 0.123).fract();
            seed - 0.5
        };
        let layers = widths
            .windows(2)
            .map(|w| Layer {
                w: (0..w[0] * w[1]).map(|_| next()).collect(),
                b: vec![0.0; w[1]],
                inputs: w[0],
                outputs: w[1],
            })
            .collect();
        Net { layers }
    }
}

fn main() {
    // The data: y = sin(2 a) + a b on a grid over [-1, 1]^2.
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..8 {
        for j in 0..8 {
            let (a, b) = (i as f64 / 3.5 - 1.0, j as f64 / 3.5 - 1.0);
            xs.extend([a, b]);
            ys.push((2.0 * a).sin() + a * b);
        }
    }
    let mut net = Net::new(&[2, 16, 1]);
    let (rate, steps) = (0.2, 3_000);
    for step in 0..=steps {
        let (loss, (grad, _, _)) =
            ad::value_and_grad(Net::loss, (&net, Const(&xs[..]), Const(&ys[..])));
        if step % 500 == 0 {
            println!("step {step:>5}: loss {loss:.6}");
        }
        // The gradient has the network's shape: one step of gradient descent on every weight.
        net.add_tangent(&grad, -rate);
    }
    let fit = net.predict(&[0.5, -0.5])[0];
    println!(
        "at (0.5, -0.5): {fit:.4}, target {:.4}",
        (1.0_f64).sin() - 0.25
    );
}
