//! The perceptron written with structs (`Net` of `Layer`s, methods), against the same
//! perceptron on slices and its hand-written gradient: what organising a model in structs
//! costs the gradient.

use super::{Method, Problem, assert_close};
use crate::harness::Case;
use crate::peers::relative_error;
use crate::problems::mlp::{Mlp, mlp_loss};
use crate::problems::mlp_struct::{Net, flat};
use ad::{Const, NoTangent};
use std::hint::black_box;

/// The perceptron of `MlpProblem`, with the same weights, as a `Net`.
pub struct MlpStructProblem {
    pub m: Mlp,
    pub net: Net,
    pub p: Vec<f64>,
}

impl MlpStructProblem {
    pub fn new(inputs: usize, hidden: usize, outputs: usize, batch: usize) -> Self {
        let m = Mlp::new(inputs, hidden, outputs, batch, 0x5EED_0006);
        let net = Net::of(&m);
        let p = m.flat();
        MlpStructProblem { m, net, p }
    }
}

impl Problem for MlpStructProblem {
    fn key(&self) -> String {
        "mlp-struct".into()
    }

    fn title(&self) -> String {
        let m = &self.m;
        format!(
            "The perceptron {} -> {} (tanh) -> {}, batch {}, as a struct of layers with methods",
            m.inputs, m.hidden, m.outputs, m.batch
        )
    }

    fn check(&self) -> String {
        let m = &self.m;
        let data = (Const(&m.x[..]), Const(&m.y[..]));
        let (v, (g, _, _)) = ad::value_and_grad(Net::loss, (&self.net, data.0, data.1));
        let grad = flat(&g);
        let mut hand = vec![0.0; self.p.len()];
        let mut scratch = vec![0.0; 2 * m.hidden];
        let vh = m.gradient(&self.p, &mut hand, &mut scratch);
        assert_close(
            "struct vs hand-written value",
            (v - vh).abs() / vh.abs(),
            1e-12,
        );
        assert_close(
            "struct vs hand-written",
            relative_error(&grad, &hand),
            1e-12,
        );
        let (_, pullback) = ad::vjp(Net::loss, (&self.net, data.0, data.1));
        let (p, _, _) = pullback(1.0);
        assert_close(
            "struct vjp vs hand-written",
            relative_error(&flat(&p), &hand),
            1e-12,
        );
        "ad gradient of the struct = hand-written".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let m = &self.m;
        let net = &self.net;
        let p = &self.p;
        let data = move || (Const(black_box(&m.x[..])), Const(black_box(&m.y[..])));
        let slices = move || {
            let (x, y) = data();
            (
                black_box(&m.w1[..]),
                black_box(&m.b1[..]),
                black_box(&m.w2[..]),
                black_box(&m.b2[..]),
                x,
                y,
            )
        };
        let tangent = ad::Differentiable::zero_tangent(net);
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    let (x, y) = data();
                    black_box(black_box(net).loss(x, y));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    let (x, y) = data();
                    black_box(ad::jvp(
                        Net::loss,
                        (black_box(net), x, y),
                        (tangent.clone(), NoTangent, NoTangent),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    let (x, y) = data();
                    black_box(ad::value_and_grad(Net::loss, (black_box(net), x, y)));
                }),
            ),
            (
                Method::AdGradSlices,
                Case::new("ad-grad-slices", move || {
                    black_box(ad::value_and_grad(mlp_loss, slices()));
                }),
            ),
            (Method::Hand, {
                let (mut g, mut scratch) = (vec![0.0; p.len()], vec![0.0; 2 * m.hidden]);
                Case::new("hand", move || {
                    black_box(m.gradient(black_box(p), &mut g, &mut scratch));
                    black_box(&g);
                })
            }),
        ]
    }
}
