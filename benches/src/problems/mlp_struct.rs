//! The perceptron of `mlp.rs` written with structs, as a user organises a model: a `Net` of
//! `Layer`s, each with its weights, biases and sizes, and methods. Same arithmetic, same
//! weights: its gradient is compared with the slice version's and with the hand-written one.

use crate::problems::mlp::Mlp;
use ad::{Const, differentiable};

/// One layer: `W` row-major, `outputs` x `inputs`.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
    pub inputs: usize,
    pub outputs: usize,
}

#[differentiable]
impl Layer {
    /// `tanh(W x + b)`, or `W x + b` without `squash`.
    pub fn apply(&self, x: &[f64], squash: bool) -> Vec<f64> {
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

/// The network: hidden layers with `tanh`, the last one linear.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Net {
    pub layers: Vec<Layer>,
    pub inputs: usize,
    pub outputs: usize,
}

#[differentiable]
impl Net {
    /// The mean over the batch of `0.5 |net(x) - y|^2`.
    pub fn loss(&self, x: Const<&[f64]>, y: Const<&[f64]>) -> f64 {
        let (inputs, outputs): (usize, usize) = (self.inputs, self.outputs);
        let batch = y.len() / outputs;
        let last = self.layers.len() - 1;
        let mut loss = 0.0;
        let mut xs = vec![0.0; inputs];
        for s in 0..batch {
            for i in 0..inputs {
                xs[i] = x[s * inputs + i];
            }
            let mut h = self.layers[0].apply(&xs, last > 0);
            for l in 1..self.layers.len() {
                h = self.layers[l].apply(&h, l < last);
            }
            for o in 0..outputs {
                let e = h[o] - y[s * outputs + o];
                loss += 0.5 * e * e;
            }
        }
        loss / (batch as f64)
    }
}

impl Net {
    /// The network with the slice perceptron's weights.
    pub fn of(m: &Mlp) -> Net {
        Net {
            layers: vec![
                Layer {
                    w: m.w1.clone(),
                    b: m.b1.clone(),
                    inputs: m.inputs,
                    outputs: m.hidden,
                },
                Layer {
                    w: m.w2.clone(),
                    b: m.b2.clone(),
                    inputs: m.hidden,
                    outputs: m.outputs,
                },
            ],
            inputs: m.inputs,
            outputs: m.outputs,
        }
    }
}

/// A gradient of the network laid out as `Mlp::flat`.
pub fn flat(g: &NetTangent) -> Vec<f64> {
    g.layers
        .iter()
        .flat_map(|l| l.w.iter().chain(&l.b).copied())
        .collect()
}
