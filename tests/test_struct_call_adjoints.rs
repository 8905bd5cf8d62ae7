//! A struct passed by reference to a call (`self.layers[l].apply(..)`, `f(&s)`) gets the
//! adjoint its caller holds for it so far moved into the call and back: the callee adds its own
//! to it (`__private::DupRef`, `Function::__backward_seeded`). Adversarial for that: a field's
//! element passed to several calls of one sample, a local passed twice to one call, a callee
//! that does not use the struct, one that rebinds it, a receiver taken by value, and a reverse
//! rule registered at run time serving the call (the seed then comes back untouched, and the
//! rule's adjoint is added to it). Checked with `jvp`, `value_and_grad` and `vjp` against
//! central finite differences (`tests/fd_check/mod.rs` says why its tolerance separates
//! rounding from a wrong derivative).

#![allow(clippy::needless_range_loop)]

use ad::{Const, differentiable};

#[macro_use]
mod fd_check;

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
impl Layer {
    /// `tanh(w . x + b)`.
    fn unit(&self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for i in 0..self.w.len() {
            z += self.w[i] * x[i];
        }
        z.tanh()
    }

    /// Does not read the layer.
    fn ignore(&self, x: &[f64]) -> f64 {
        x[0] * x[0]
    }

    /// Takes the layer by value.
    fn owned(self, s: f64) -> f64 {
        self.b * s + self.w[0] * self.w[1]
    }
}

/// Reads its argument, then rebinds a copy of it: the derivative works on a copy.
#[differentiable]
fn rebinds(l: &Layer, t: f64) -> f64 {
    let mut m = l.clone();
    m.b = m.b * t + l.w[0];
    m.b * m.w[1]
}

/// Two layers passed to one call, the same local twice.
#[differentiable]
fn pair(a: &Layer, b: &Layer) -> f64 {
    a.b * b.w[0] + a.w[1] * b.b
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

#[differentiable]
impl Net {
    /// Each layer reached several times a sample: through the field's element, through a
    /// local copy, with a call that ignores it, by value, and by a function that rebinds it.
    fn score(&self, xs: Const<&[f64]>) -> f64 {
        let d = self.layers[0].w.len();
        let mut total = 0.0;
        let mut x = vec![0.0; d];
        for s in 0..xs.len() / d {
            for i in 0..d {
                x[i] = xs[s * d + i];
            }
            for l in 0..self.layers.len() {
                let h = self.layers[l].unit(&x);
                let again = self.layers[l].unit(&x);
                total += h * again + self.layers[l].ignore(&x);
                x[0] = h;
            }
            let first: Layer = self.layers[0].clone();
            let second: Layer = self.layers[1].clone();
            total += pair(&first, &first) + rebinds(&second, x[0]);
            total += first.owned(x[1]);
        }
        total
    }
}

const D: usize = 3;
const L: usize = 2;

fn net_of(p: &[f64]) -> Net {
    Net {
        layers: (0..L)
            .map(|l| Layer {
                w: p[l * (D + 1)..l * (D + 1) + D].to_vec(),
                b: p[l * (D + 1) + D],
            })
            .collect(),
    }
}

fn flat(t: &NetTangent) -> Vec<f64> {
    t.layers
        .iter()
        .flat_map(|l| l.w.iter().copied().chain([l.b]))
        .collect()
}

fn tangent_of(d: &[f64]) -> NetTangent {
    NetTangent {
        layers: (0..L)
            .map(|l| Layer {
                w: d[l * (D + 1)..l * (D + 1) + D].to_vec(),
                b: d[l * (D + 1) + D],
            })
            .collect(),
    }
}

const XS: [f64; 6] = [0.7, -1.1, 0.4, -0.3, 0.9, 0.2];
const P: [f64; 8] = [0.9, 0.2, -0.3, 0.1, -1.4, 0.6, 0.8, -0.2];

fn check_score(name: &str) {
    let data = || Const(&XS[..]);
    fd_check::check(
        name,
        &P,
        &|p| net_of(p).score(data()),
        &|p| flat(&ad::value_and_grad(Net::score, (&net_of(p), data())).1.0),
        &|p| flat(&(ad::vjp(Net::score, (&net_of(p), data())).1)(1.0).0),
        &|p, d| {
            ad::jvp(
                Net::score,
                (&net_of(p), data()),
                (tangent_of(d), ad::NoTangent),
            )
            .1
        },
    );
}

/// The generated derivatives, then reverse and forward rules for `Layer::unit` registered at
/// run time, serving the calls from the next derivative on: the seed comes back from a call
/// the rule serves untouched, and the rule's adjoint is added to it. The rules are the exact
/// derivative, so the same finite differences check them; they count their calls, so the test
/// knows they ran. Dropping their guards restores the generated derivatives. (One test: the
/// registry is the program's.)
#[test]
fn calls_add_into_the_adjoint_their_caller_holds_with_and_without_rules() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    check_score("Net::score");
    let reverse = ad::rules::register_reverse(
        Layer::unit,
        |l: &Layer, x: ad::Dup<f64>, y: f64, y_bar: f64| {
            CALLS.fetch_add(1, Ordering::Relaxed);
            let dz = (1.0 - y * y) * y_bar;
            for i in 0..l.w.len() {
                x.adjoint[i] += l.w[i] * dz;
            }
            (
                Layer {
                    w: x.value.iter().map(|xi| xi * dz).collect(),
                    b: dz,
                },
                ad::NoTangent,
            )
        },
    );
    let forward = ad::rules::register_forward(
        Layer::unit,
        |l: &Layer, dl: Layer, x: &[f64], dx: &[f64]| {
            let mut z = l.b;
            let mut dz = dl.b;
            for i in 0..l.w.len() {
                z += l.w[i] * x[i];
                dz += dl.w[i] * x[i] + l.w[i] * dx[i];
            }
            let y = z.tanh();
            (y, (1.0 - y * y) * dz)
        },
    );
    check_score("Net::score with rules for Layer::unit");
    assert!(
        CALLS.load(Ordering::Relaxed) > 0,
        "the reverse rule served no call"
    );
    drop((reverse, forward));
    check_score("Net::score after the rules' guards are dropped");
}
