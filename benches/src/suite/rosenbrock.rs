//! Rosenbrock in n variables, with its methods.

use super::{Method, Problem, assert_close, dot};
use crate::data::Rng;
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, one, relative_error,
};
use crate::problems::rosenbrock::{
    rosenbrock, rosenbrock_generic, rosenbrock_gradient, rosenbrock_slice,
};
use crate::real::Adr;
use std::hint::black_box;

/// Rosenbrock in n variables.
pub struct Rosenbrock {
    pub x: Vec<f64>,
    pub dir: Vec<f64>,
    /// Whether to time the methods that scale with n times the primal (num-dual's gradient,
    /// finite differences' gradient).
    pub full: bool,
    /// Whether to time the peers at all (the scaling study does not).
    pub peers: bool,
}

impl Rosenbrock {
    pub fn new(n: usize, full: bool, peers: bool) -> Self {
        let mut rng = Rng::new(0x5EED_0001);
        let x = rng.normals(n).iter().map(|v| 0.5 * v).collect();
        let dir = rng.normals(n);
        Rosenbrock {
            x,
            dir,
            full,
            peers,
        }
    }
}

impl Problem for Rosenbrock {
    fn key(&self) -> String {
        format!("rosenbrock-{}", self.x.len())
    }

    fn title(&self) -> String {
        format!("Rosenbrock, n = {}", self.x.len())
    }

    fn check(&self) -> String {
        let n = self.x.len();
        let (v, (g,)) = ad::value_and_grad(rosenbrock, (&self.x[..],));
        let mut hand = vec![0.0; n];
        let vh = rosenbrock_gradient(&self.x, &mut hand);
        assert_close("ad vs primal value", (v - vh).abs() / vh.abs(), 1e-12);
        assert_eq!(
            v.to_bits(),
            rosenbrock_slice(&self.x).to_bits(),
            "slice primal"
        );
        assert_close("ad vs hand-written", relative_error(&g, &hand), 1e-12);
        let (_, d) = ad::jvp(rosenbrock, (&self.x[..],), (&self.dir[..],));
        assert_close(
            "ad JVP vs gradient",
            (d - dot(&g, &self.dir)).abs() / d.abs(),
            1e-10,
        );
        if self.peers && n <= 10_000 {
            let mut buf = Vec::new();
            let [(_, dn)] = dual_jvp(one(rosenbrock_generic), &self.x, &self.dir, &mut buf);
            assert_close("num-dual JVP", (d - dn).abs() / d.abs(), 1e-10);
            let f = AdTraitFn {
                f: |p: &[Adr]| vec![rosenbrock_generic(p)],
                inputs: n,
                outputs: 1,
            };
            let mut gt = vec![0.0; n];
            ad_trait_jacobian(&f, &self.x, &mut gt);
            assert_close("ad_trait gradient", relative_error(&g, &gt), 1e-12);
        }
        "ad gradient = hand-written, ad JVP = num-dual JVP, ad_trait gradient = ad".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let n = self.x.len();
        let x = &self.x;
        let dir = &self.dir;
        let mut cases = vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    black_box(rosenbrock_slice(black_box(&x[..])));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(rosenbrock_generic(black_box(&x[..])));
                }),
            ),
            (
                Method::PrimalAd,
                Case::new("primal-ad", move || {
                    black_box(rosenbrock(black_box(&x[..])));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(rosenbrock, (black_box(&x[..]),), (&dir[..],)));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(rosenbrock, (black_box(&x[..]),)));
                }),
            ),
            (Method::Hand, {
                let mut g = vec![0.0; n];
                Case::new("hand", move || {
                    black_box(rosenbrock_gradient(black_box(x), &mut g));
                    black_box(&g);
                })
            }),
        ];
        if !self.peers {
            return cases;
        }
        cases.push((Method::NdJvp, {
            let mut buf = Vec::new();
            Case::new("nd-jvp", move || {
                black_box(dual_jvp(
                    one(rosenbrock_generic),
                    black_box(x),
                    dir,
                    &mut buf,
                ));
            })
        }));
        cases.push((Method::AdTrait, {
            let f = AdTraitFn {
                f: |p: &[Adr]| vec![rosenbrock_generic(p)],
                inputs: n,
                outputs: 1,
            };
            let mut g = vec![0.0; n];
            Case::new("ad_trait", move || {
                black_box(ad_trait_jacobian(&f, black_box(x), &mut g));
                black_box(&g);
            })
        }));
        cases.push((Method::FdJvp, {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Case::new("fd-jvp", move || {
                black_box(fd_jvp(
                    |p| [rosenbrock_generic(p)],
                    black_box(x),
                    dir,
                    &mut a,
                    &mut b,
                ));
            })
        }));
        if self.full {
            cases.push((Method::NdGrad, {
                let (mut buf, mut g) = (Vec::new(), vec![0.0; n]);
                Case::new("nd-grad", move || {
                    dual_jacobian(one(rosenbrock_generic), black_box(x), &mut buf, &mut g);
                    black_box(&g);
                })
            }));
            cases.push((Method::FdGrad, {
                let (mut buf, mut g) = (Vec::new(), vec![0.0; n]);
                Case::new("fd-grad", move || {
                    fd_jacobian(|p| [rosenbrock_generic(p)], black_box(x), &mut buf, &mut g);
                    black_box(&g);
                })
            }));
        }
        cases
    }
}
