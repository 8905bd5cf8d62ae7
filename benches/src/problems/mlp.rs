//! A two-layer perceptron's loss: `h = tanh(W1 x + b1)`, `y_hat = W2 h + b2`, and the mean over
//! the batch of `0.5 |y_hat - y|^2`. Weights row-major: `W1` is H x I, `W2` is O x H.

use crate::data::Rng;
use crate::real::Real;
use ad::{Const, differentiable};

/// The loss as `ad` differentiates it, the data `x`, `y` held constant.
#[differentiable]
pub fn mlp_loss(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    x: Const<&[f64]>,
    y: Const<&[f64]>,
) -> f64 {
    let hn = b1.len();
    let on = b2.len();
    let inn = w1.len() / hn;
    let batch = y.len() / on;
    let mut h = vec![0.0; hn];
    let mut loss = 0.0;
    for s in 0..batch {
        for j in 0..hn {
            let mut z = b1[j];
            for i in 0..inn {
                z += w1[j * inn + i] * x[s * inn + i];
            }
            h[j] = z.tanh();
        }
        for o in 0..on {
            let mut z = b2[o];
            for j in 0..hn {
                z += w2[o * hn + j] * h[j];
            }
            let e = z - y[s * on + o];
            loss += 0.5 * e * e;
        }
    }
    loss / (batch as f64)
}

/// The primal baseline: the same source as [`mlp_loss`], on slices.
pub fn mlp_slices(w1: &[f64], b1: &[f64], w2: &[f64], b2: &[f64], x: &[f64], y: &[f64]) -> f64 {
    let hn = b1.len();
    let on = b2.len();
    let inn = w1.len() / hn;
    let batch = y.len() / on;
    let mut h = vec![0.0; hn];
    let mut loss = 0.0;
    for s in 0..batch {
        for j in 0..hn {
            let mut z = b1[j];
            for i in 0..inn {
                z += w1[j * inn + i] * x[s * inn + i];
            }
            h[j] = z.tanh();
        }
        for o in 0..on {
            let mut z = b2[o];
            for j in 0..hn {
                z += w2[o * hn + j] * h[j];
            }
            let e = z - y[s * on + o];
            loss += 0.5 * e * e;
        }
    }
    loss / (batch as f64)
}

/// The same loss over any scalar, with the data as constants.
pub fn mlp_generic<T: Real>(w1: &[T], b1: &[T], w2: &[T], b2: &[T], x: &[f64], y: &[f64]) -> T {
    let hn = b1.len();
    let on = b2.len();
    let inn = w1.len() / hn;
    let batch = y.len() / on;
    let mut h = vec![T::cst(0.0); hn];
    let mut loss = T::cst(0.0);
    for s in 0..batch {
        for j in 0..hn {
            let mut z = b1[j];
            for i in 0..inn {
                z += w1[j * inn + i] * x[s * inn + i];
            }
            h[j] = z.tanh();
        }
        for o in 0..on {
            let mut z = b2[o];
            for j in 0..hn {
                z += w2[o * hn + j] * h[j];
            }
            let e = z - y[s * on + o];
            loss += e * e * 0.5;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let bf = batch as f64;
    loss / bf
}

/// The inputs of the perceptron problem.
pub struct Mlp {
    pub inputs: usize,
    pub hidden: usize,
    pub outputs: usize,
    pub batch: usize,
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: Vec<f64>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

impl Mlp {
    pub fn new(inputs: usize, hidden: usize, outputs: usize, batch: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        #[allow(clippy::cast_precision_loss)]
        let s1 = 1.0 / (inputs as f64).sqrt();
        #[allow(clippy::cast_precision_loss)]
        let s2 = 1.0 / (hidden as f64).sqrt();
        let w1 = rng
            .normals(hidden * inputs)
            .iter()
            .map(|v| v * s1)
            .collect();
        let b1 = rng.normals(hidden).iter().map(|v| 0.1 * v).collect();
        let w2 = rng
            .normals(outputs * hidden)
            .iter()
            .map(|v| v * s2)
            .collect();
        let b2 = rng.normals(outputs).iter().map(|v| 0.1 * v).collect();
        let x = rng.normals(batch * inputs);
        let y = rng.normals(batch * outputs);
        Mlp {
            inputs,
            hidden,
            outputs,
            batch,
            w1,
            b1,
            w2,
            b2,
            x,
            y,
        }
    }

    pub fn parameters(&self) -> usize {
        self.w1.len() + self.b1.len() + self.w2.len() + self.b2.len()
    }

    pub fn flat(&self) -> Vec<f64> {
        let mut p = self.w1.clone();
        p.extend_from_slice(&self.b1);
        p.extend_from_slice(&self.w2);
        p.extend_from_slice(&self.b2);
        p
    }

    /// The loss at concatenated parameters `p`, over any scalar.
    pub fn at<T: Real>(&self, p: &[T]) -> T {
        let (w1, rest) = p.split_at(self.w1.len());
        let (b1, rest) = rest.split_at(self.hidden);
        let (w2, b2) = rest.split_at(self.w2.len());
        mlp_generic(w1, b1, w2, b2, &self.x, &self.y)
    }

    /// The hand-written gradient (backpropagation) into `g`, laid out as [`Mlp::flat`];
    /// `scratch` holds 2 H values.
    pub fn gradient(&self, p: &[f64], g: &mut [f64], scratch: &mut [f64]) -> f64 {
        let (inn, hn, on) = (self.inputs, self.hidden, self.outputs);
        let (w1, rest) = p.split_at(self.w1.len());
        let (b1, rest) = rest.split_at(hn);
        let (w2, b2) = rest.split_at(self.w2.len());
        g.fill(0.0);
        let (gw1, grest) = g.split_at_mut(self.w1.len());
        let (gb1, grest) = grest.split_at_mut(hn);
        let (gw2, gb2) = grest.split_at_mut(self.w2.len());
        let (h, dh) = scratch.split_at_mut(hn);
        #[allow(clippy::cast_precision_loss)]
        let scale = 1.0 / self.batch as f64;
        let mut loss = 0.0;
        for s in 0..self.batch {
            let xs = &self.x[s * inn..(s + 1) * inn];
            for j in 0..hn {
                let mut z = b1[j];
                for i in 0..inn {
                    z += w1[j * inn + i] * xs[i];
                }
                h[j] = z.tanh();
            }
            dh.fill(0.0);
            for o in 0..on {
                let mut z = b2[o];
                for j in 0..hn {
                    z += w2[o * hn + j] * h[j];
                }
                let e = z - self.y[s * on + o];
                loss += 0.5 * e * e;
                let de = e * scale;
                gb2[o] += de;
                for j in 0..hn {
                    gw2[o * hn + j] += de * h[j];
                    dh[j] += de * w2[o * hn + j];
                }
            }
            for j in 0..hn {
                let dz = dh[j] * (1.0 - h[j] * h[j]);
                gb1[j] += dz;
                for i in 0..inn {
                    gw1[j * inn + i] += dz * xs[i];
                }
            }
        }
        loss * scale
    }
}
