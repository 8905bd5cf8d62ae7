//! The benchmark problems with all their methods, ready for the harness.

use crate::data::Rng;
use crate::harness::Case;
use crate::peers::{
    AdTraitFn, ad_trait_jacobian, dual_jacobian, dual_jvp, fd_jacobian, fd_jvp, one, relative_error,
};
use crate::problems::ba::{Observation, ba_generic, ba_residual, observations};
use crate::problems::gmm::{Gmm, gmm_gradient, gmm_objective, gmm_slices};
use crate::problems::mlp::{Mlp, mlp_loss, mlp_slices};
use crate::problems::rk4::{rk4_generic, rk4_oscillator, rk4_oscillator_inline};
use crate::problems::rosenbrock::{
    rosenbrock, rosenbrock_generic, rosenbrock_gradient, rosenbrock_slice,
};
use crate::real::Adr;
use ad::{Const, NoTangent};
use std::hint::black_box;

/// A way of computing a problem's value or derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// The function on `f64` slices (BA: arrays; RK4: scalars), the same source as the
    /// `#[differentiable]` one: the baseline of every ratio.
    Primal,
    /// The generic version at `T = f64`: the code that num-dual and ad_trait run, on `f64`.
    PrimalGeneric,
    /// The `#[differentiable]` function itself, called directly with its `Vec` or array
    /// arguments (a `Vec` is cloned per call, as `ad`'s entry points need it by value).
    PrimalAd,
    AdJvp,
    AdGrad,
    /// BA only: the Jacobian in forward mode, one JVP per input.
    AdJacFwd,
    /// RK4 only: the JVP of the variant with the acceleration written inline.
    AdJvpInline,
    /// RK4 only: the gradient of the variant with the acceleration written inline.
    AdGradInline,
    Hand,
    NdJvp,
    NdGrad,
    AdTrait,
    FdJvp,
    FdGrad,
}

impl Method {
    pub const ALL: [Method; 14] = [
        Method::Primal,
        Method::PrimalGeneric,
        Method::PrimalAd,
        Method::AdJvp,
        Method::AdGrad,
        Method::AdJacFwd,
        Method::AdJvpInline,
        Method::AdGradInline,
        Method::Hand,
        Method::NdJvp,
        Method::NdGrad,
        Method::AdTrait,
        Method::FdJvp,
        Method::FdGrad,
    ];

    /// A short label, for table headers and the command line.
    pub fn key(self) -> &'static str {
        match self {
            Method::Primal => "primal",
            Method::PrimalGeneric => "primal-generic",
            Method::PrimalAd => "primal-ad",
            Method::AdJvp => "ad-jvp",
            Method::AdGrad => "ad-grad",
            Method::AdJacFwd => "ad-jac-fwd",
            Method::AdJvpInline => "ad-jvp-inline",
            Method::AdGradInline => "ad-grad-inline",
            Method::Hand => "hand",
            Method::NdJvp => "nd-jvp",
            Method::NdGrad => "nd-grad",
            Method::AdTrait => "ad_trait",
            Method::FdJvp => "fd-jvp",
            Method::FdGrad => "fd-grad",
        }
    }

    /// What the method computes, for the detailed tables.
    pub fn describe(self) -> &'static str {
        match self {
            Method::Primal => "primal, on slices (the baseline)",
            Method::PrimalGeneric => "primal, the generic version at f64 (what the peers run)",
            Method::PrimalAd => "primal, the #[differentiable] fn itself",
            Method::AdJvp => "ad JVP, one direction",
            Method::AdGrad => "ad reverse mode: gradient (BA: Jacobian by vjp + 2 pullbacks)",
            Method::AdJacFwd => "ad forward mode: Jacobian by 15 JVPs",
            Method::AdJvpInline => "ad JVP, acceleration written inline",
            Method::AdGradInline => "ad gradient, acceleration written inline",
            Method::Hand => "hand-written gradient",
            Method::NdJvp => "num-dual JVP, one direction",
            Method::NdGrad => "num-dual gradient/Jacobian, one JVP per input",
            Method::AdTrait => "ad_trait reverse mode (adr), gradient/Jacobian",
            Method::FdJvp => "finite differences, one direction (central, 2 evaluations)",
            Method::FdGrad => "finite differences, gradient/Jacobian (forward, n + 1 evaluations)",
        }
    }
}

/// A problem, its inputs and its methods.
pub trait Problem {
    /// The key on the command line.
    fn key(&self) -> String;
    /// The title in tables.
    fn title(&self) -> String;
    /// Checks that the methods agree; returns a line on what was compared, or panics.
    fn check(&self) -> String;
    /// The methods, ready to time.
    fn cases(&self) -> Vec<(Method, Case<'_>)>;
}

fn assert_close(what: &str, error: f64, tolerance: f64) {
    assert!(
        error <= tolerance,
        "{what}: relative difference {error:e} above {tolerance:e}"
    );
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------

/// The GMM objective, with its direction for JVPs.
pub struct GmmProblem {
    pub g: Gmm,
    pub p: Vec<f64>,
    pub dir: Vec<f64>,
    /// Whether to time the peers and finite differences (the d = 64 scaling check does not).
    pub peers: bool,
}

impl GmmProblem {
    pub fn new(d: usize, k: usize, n: usize, peers: bool) -> Self {
        let g = Gmm::new(d, k, n, 0x5EED_0002 + d as u64);
        let p = g.flat();
        let dir = Rng::new(0x5EED_0003).normals(p.len());
        GmmProblem { g, p, dir, peers }
    }

    fn split<'a>(&self, v: &'a [f64]) -> (&'a [f64], &'a [f64], &'a [f64]) {
        let (a, rest) = v.split_at(self.g.k);
        let (mu, icf) = rest.split_at(self.g.k * self.g.d);
        (a, mu, icf)
    }

    /// `ad`'s gradient, concatenated like the parameters.
    pub fn ad_gradient(&self) -> (f64, Vec<f64>) {
        let g = &self.g;
        let (v, (ga, gm, gi, _, _, _)) = ad::value_and_grad(
            gmm_objective,
            (
                &g.alphas[..],
                &g.means[..],
                &g.icf[..],
                Const(&g.x[..]),
                Const(g.gamma),
                Const(g.m),
            ),
        );
        let mut flat = ga;
        flat.extend_from_slice(&gm);
        flat.extend_from_slice(&gi);
        (v, flat)
    }

    /// The hand-written gradient into `out`, concatenated like the parameters; returns the
    /// value.
    pub fn hand_gradient(&self, out: &mut [f64]) -> f64 {
        let g = &self.g;
        let (ga, rest) = out.split_at_mut(g.k);
        let (gm, gi) = rest.split_at_mut(g.k * g.d);
        gmm_gradient(&g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m, ga, gm, gi)
    }
}

impl Problem for GmmProblem {
    fn key(&self) -> String {
        format!("gmm-d{}-k{}", self.g.d, self.g.k)
    }

    fn title(&self) -> String {
        format!(
            "GMM d = {}, K = {}, n = {} ({} parameters)",
            self.g.d,
            self.g.k,
            self.g.n,
            self.g.parameters()
        )
    }

    fn check(&self) -> String {
        let g = &self.g;
        let (v, grad) = self.ad_gradient();
        let primal = g.at(&self.p);
        assert_close(
            "ad vs primal value",
            (v - primal).abs() / primal.abs(),
            1e-12,
        );
        let (a, mu, icf) = self.split(&self.p);
        assert_eq!(
            v.to_bits(),
            gmm_slices(a, mu, icf, &g.x, g.gamma, g.m).to_bits(),
            "slice primal"
        );
        let mut hand = vec![0.0; self.p.len()];
        let vh = self.hand_gradient(&mut hand);
        assert_close("hand-written value", (v - vh).abs() / v.abs(), 1e-12);
        assert_close("ad vs hand-written", relative_error(&grad, &hand), 1e-10);
        let (da, dm, di) = self.split(&self.dir);
        let (_, d) = ad::jvp(
            gmm_objective,
            (
                &g.alphas[..],
                &g.means[..],
                &g.icf[..],
                Const(&g.x[..]),
                Const(g.gamma),
                Const(g.m),
            ),
            (da, dm, di, NoTangent, NoTangent, NoTangent),
        );
        assert_close(
            "ad JVP vs gradient",
            (d - dot(&grad, &self.dir)).abs() / d.abs(),
            1e-9,
        );
        if !self.peers {
            return "ad gradient = hand-written, ad JVP = ad gradient . direction".into();
        }
        let mut buf = Vec::new();
        let [(_, dn)] = dual_jvp(|p| [g.at(p)], &self.p, &self.dir, &mut buf);
        assert_close("num-dual JVP", (d - dn).abs() / d.abs(), 1e-9);
        let f = AdTraitFn {
            f: |p: &[Adr]| vec![g.at(p)],
            inputs: self.p.len(),
            outputs: 1,
        };
        let mut gt = vec![0.0; self.p.len()];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&grad, &gt), 1e-9);
        "ad JVP = num-dual JVP = ad gradient . direction, ad gradient = ad_trait gradient = hand-written"
            .into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let g = &self.g;
        let p = &self.p;
        let dir = &self.dir;
        let (da, dm, di) = self.split(dir);
        let split = move |v| self.split(v);
        let mut cases = vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    let (a, mu, icf) = split(black_box(&p[..]));
                    black_box(gmm_slices(a, mu, icf, &g.x, g.gamma, g.m));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(g.at(black_box(&p[..])));
                }),
            ),
            (
                Method::PrimalAd,
                Case::new("primal-ad", move || {
                    black_box(gmm_objective(
                        black_box(&g.alphas[..]),
                        black_box(&g.means[..]),
                        black_box(&g.icf[..]),
                        Const(&g.x[..]),
                        Const(g.gamma),
                        Const(g.m),
                    ));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        gmm_objective,
                        (
                            black_box(&g.alphas[..]),
                            black_box(&g.means[..]),
                            black_box(&g.icf[..]),
                            Const(&g.x[..]),
                            Const(g.gamma),
                            Const(g.m),
                        ),
                        (da, dm, di, NoTangent, NoTangent, NoTangent),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(
                        gmm_objective,
                        (
                            black_box(&g.alphas[..]),
                            black_box(&g.means[..]),
                            black_box(&g.icf[..]),
                            Const(&g.x[..]),
                            Const(g.gamma),
                            Const(g.m),
                        ),
                    ));
                }),
            ),
            (Method::Hand, {
                let mut out = vec![0.0; p.len()];
                Case::new("hand", move || {
                    black_box(black_box(self).hand_gradient(&mut out));
                    black_box(&out);
                })
            }),
        ];
        if !self.peers {
            return cases;
        }
        cases.push((Method::NdJvp, {
            let mut buf = Vec::new();
            Case::new("nd-jvp", move || {
                black_box(dual_jvp(|q| [g.at(q)], black_box(p), dir, &mut buf));
            })
        }));
        cases.push((Method::NdGrad, {
            let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
            Case::new("nd-grad", move || {
                dual_jacobian(|q| [g.at(q)], black_box(p), &mut buf, &mut out);
                black_box(&out);
            })
        }));
        cases.push((Method::AdTrait, {
            let f = AdTraitFn {
                f: move |q: &[Adr]| vec![g.at(q)],
                inputs: p.len(),
                outputs: 1,
            };
            let mut out = vec![0.0; p.len()];
            Case::new("ad_trait", move || {
                black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                black_box(&out);
            })
        }));
        cases.push((Method::FdJvp, {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Case::new("fd-jvp", move || {
                black_box(fd_jvp(|q| [g.at(q)], black_box(p), dir, &mut a, &mut b));
            })
        }));
        cases.push((Method::FdGrad, {
            let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
            Case::new("fd-grad", move || {
                fd_jacobian(|q| [g.at(q)], black_box(p), &mut buf, &mut out);
                black_box(&out);
            })
        }));
        cases
    }
}

// ---------------------------------------------------------------------------------------------

/// Bundle adjustment: the 2 x 15 Jacobian block of each of a batch of observations.
pub struct Ba {
    pub obs: Vec<Observation>,
    pub dirs: Vec<[f64; 15]>,
}

impl Ba {
    pub fn new(count: usize) -> Self {
        let obs = observations(count, 0x5EED_0004);
        let mut rng = Rng::new(0x5EED_0005);
        let dirs = (0..count)
            .map(|_| core::array::from_fn(|_| rng.normal()))
            .collect();
        Ba { obs, dirs }
    }
}

/// Splits a 15-vector into `ba_residual`'s argument shapes.
fn ba_parts(p: &[f64; 15]) -> ([f64; 11], [f64; 3], f64) {
    let mut cam = [0.0; 11];
    cam.copy_from_slice(&p[..11]);
    (cam, [p[11], p[12], p[13]], p[14])
}

/// `ad`'s reverse-mode Jacobian of one observation, row-major.
pub fn ba_ad_reverse(o: &Observation) -> [f64; 30] {
    let (_, pullback) = ad::vjp(ba_residual, (o.cam, o.x, o.w, Const(o.feat)));
    let mut out = [0.0; 30];
    for r in 0..2 {
        let mut seed = [0.0; 2];
        seed[r] = 1.0;
        let (gc, gx, gw, _) = pullback(seed);
        out[r * 15..r * 15 + 11].copy_from_slice(&gc);
        out[r * 15 + 11..r * 15 + 14].copy_from_slice(&gx);
        out[r * 15 + 14] = gw;
    }
    out
}

/// `ad`'s forward-mode Jacobian of one observation (15 JVPs), row-major.
pub fn ba_ad_forward(o: &Observation) -> [f64; 30] {
    let mut out = [0.0; 30];
    for i in 0..15 {
        let mut e = [0.0; 15];
        e[i] = 1.0;
        let (dc, dx, dw) = ba_parts(&e);
        let (_, t) = ad::jvp(
            ba_residual,
            (o.cam, o.x, o.w, Const(o.feat)),
            (dc, dx, dw, NoTangent),
        );
        out[i] = t[0];
        out[15 + i] = t[1];
    }
    out
}

impl Problem for Ba {
    fn key(&self) -> String {
        "ba".into()
    }

    fn title(&self) -> String {
        format!(
            "BA, 2 x 15 Jacobian block (times per observation, batch of {})",
            self.obs.len()
        )
    }

    fn check(&self) -> String {
        let mut buf = Vec::new();
        for o in &self.obs {
            let p = o.flat();
            let rev = ba_ad_reverse(o);
            let fwd = ba_ad_forward(o);
            assert_close(
                "ad reverse vs forward Jacobian",
                relative_error(&rev, &fwd),
                1e-12,
            );
            let mut nd = [0.0; 30];
            dual_jacobian(|q| o.at(q), &p, &mut buf, &mut nd);
            assert_close("ad vs num-dual Jacobian", relative_error(&rev, &nd), 1e-12);
            let f = AdTraitFn {
                f: |q: &[Adr]| o.at(q).to_vec(),
                inputs: 15,
                outputs: 2,
            };
            let mut adt = [0.0; 30];
            ad_trait_jacobian(&f, &p, &mut adt);
            assert_close("ad vs ad_trait Jacobian", relative_error(&rev, &adt), 1e-12);
        }
        "ad reverse Jacobian = ad forward = num-dual = ad_trait, per observation".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let obs = &self.obs;
        let dirs = &self.dirs;
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    for o in black_box(obs) {
                        black_box(ba_residual(o.cam, o.x, o.w, Const(o.feat)));
                    }
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    for o in black_box(obs) {
                        black_box(ba_generic(&o.cam, &o.x, o.w, o.feat));
                    }
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        let (dc, dx, dw) = ba_parts(d);
                        black_box(ad::jvp(
                            ba_residual,
                            (o.cam, o.x, o.w, Const(o.feat)),
                            (dc, dx, dw, NoTangent),
                        ));
                    }
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    for o in black_box(obs) {
                        black_box(ba_ad_reverse(o));
                    }
                }),
            ),
            (
                Method::AdJacFwd,
                Case::new("ad-jac-fwd", move || {
                    for o in black_box(obs) {
                        black_box(ba_ad_forward(o));
                    }
                }),
            ),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        black_box(dual_jvp(|q| o.at(q), &o.flat(), d, &mut buf));
                    }
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 30]);
                Case::new("nd-grad", move || {
                    for o in black_box(obs) {
                        dual_jacobian(|q| o.at(q), &o.flat(), &mut buf, &mut out);
                        black_box(&out);
                    }
                })
            }),
            (Method::AdTrait, {
                let mut out = [0.0; 30];
                Case::new("ad_trait", move || {
                    for o in black_box(obs) {
                        let f = AdTraitFn {
                            f: |q: &[Adr]| o.at(q).to_vec(),
                            inputs: 15,
                            outputs: 2,
                        };
                        black_box(ad_trait_jacobian(&f, &o.flat(), &mut out));
                        black_box(&out);
                    }
                })
            }),
            (Method::FdJvp, {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    for (o, d) in black_box(obs).iter().zip(dirs) {
                        black_box(fd_jvp(|q| o.at(q), &o.flat(), d, &mut a, &mut b));
                    }
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 30]);
                Case::new("fd-grad", move || {
                    for o in black_box(obs) {
                        fd_jacobian(|q| o.at(q), &o.flat(), &mut buf, &mut out);
                        black_box(&out);
                    }
                })
            }),
        ]
    }
}

// ---------------------------------------------------------------------------------------------

/// The two-layer perceptron's loss.
pub struct MlpProblem {
    pub m: Mlp,
    pub p: Vec<f64>,
    pub dir: Vec<f64>,
}

impl MlpProblem {
    pub fn new(inputs: usize, hidden: usize, outputs: usize, batch: usize) -> Self {
        let m = Mlp::new(inputs, hidden, outputs, batch, 0x5EED_0006);
        let p = m.flat();
        let dir = Rng::new(0x5EED_0007).normals(p.len());
        MlpProblem { m, p, dir }
    }

    fn split<'a>(&self, v: &'a [f64]) -> [&'a [f64]; 4] {
        let (w1, rest) = v.split_at(self.m.w1.len());
        let (b1, rest) = rest.split_at(self.m.hidden);
        let (w2, b2) = rest.split_at(self.m.w2.len());
        [w1, b1, w2, b2]
    }
}

impl Problem for MlpProblem {
    fn key(&self) -> String {
        "mlp".into()
    }

    fn title(&self) -> String {
        let m = &self.m;
        format!(
            "Two-layer perceptron {} -> {} (tanh) -> {}, batch {} ({} parameters)",
            m.inputs,
            m.hidden,
            m.outputs,
            m.batch,
            m.parameters()
        )
    }

    fn check(&self) -> String {
        let m = &self.m;
        let (v, (g1, gb1, g2, gb2, _, _)) = ad::value_and_grad(
            mlp_loss,
            (
                &m.w1[..],
                &m.b1[..],
                &m.w2[..],
                &m.b2[..],
                Const(&m.x[..]),
                Const(&m.y[..]),
            ),
        );
        let mut grad = g1;
        grad.extend_from_slice(&gb1);
        grad.extend_from_slice(&g2);
        grad.extend_from_slice(&gb2);
        let mut hand = vec![0.0; self.p.len()];
        let mut scratch = vec![0.0; 2 * m.hidden];
        let vh = m.gradient(&self.p, &mut hand, &mut scratch);
        assert_close("ad vs hand-written value", (v - vh).abs() / vh.abs(), 1e-12);
        let [w1, b1, w2, b2] = self.split(&self.p);
        assert_eq!(
            v.to_bits(),
            mlp_slices(w1, b1, w2, b2, &m.x, &m.y).to_bits(),
            "slice primal"
        );
        assert_close("ad vs hand-written", relative_error(&grad, &hand), 1e-12);
        let [w1, b1, w2, b2] = self.split(&self.dir);
        let (_, d) = ad::jvp(
            mlp_loss,
            (
                &m.w1[..],
                &m.b1[..],
                &m.w2[..],
                &m.b2[..],
                Const(&m.x[..]),
                Const(&m.y[..]),
            ),
            (w1, b1, w2, b2, NoTangent, NoTangent),
        );
        let mut buf = Vec::new();
        let [(_, dn)] = dual_jvp(|q| [m.at(q)], &self.p, &self.dir, &mut buf);
        assert_close("ad vs num-dual JVP", (d - dn).abs() / d.abs(), 1e-10);
        let f = AdTraitFn {
            f: |q: &[Adr]| vec![m.at(q)],
            inputs: self.p.len(),
            outputs: 1,
        };
        let mut gt = vec![0.0; self.p.len()];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&grad, &gt), 1e-12);
        "ad gradient = hand-written = ad_trait, ad JVP = num-dual JVP".into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let m = &self.m;
        let p = &self.p;
        let dir = &self.dir;
        let [dw1, db1, dw2, db2] = self.split(dir);
        let split = move |v| self.split(v);

        let args = move || {
            (
                black_box(&m.w1[..]),
                black_box(&m.b1[..]),
                black_box(&m.w2[..]),
                black_box(&m.b2[..]),
                Const(&m.x[..]),
                Const(&m.y[..]),
            )
        };
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    let [w1, b1, w2, b2] = split(black_box(&p[..]));
                    black_box(mlp_slices(w1, b1, w2, b2, &m.x, &m.y));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(m.at(black_box(&p[..])));
                }),
            ),
            (
                Method::PrimalAd,
                Case::new("primal-ad", move || {
                    let (a, b, c, d, e, f) = args();
                    black_box(mlp_loss(a, b, c, d, e, f));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        mlp_loss,
                        args(),
                        (dw1, db1, dw2, db2, NoTangent, NoTangent),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(mlp_loss, args()));
                }),
            ),
            (Method::Hand, {
                let (mut g, mut scratch) = (vec![0.0; p.len()], vec![0.0; 2 * m.hidden]);
                Case::new("hand", move || {
                    black_box(m.gradient(black_box(p), &mut g, &mut scratch));
                    black_box(&g);
                })
            }),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    black_box(dual_jvp(|q| [m.at(q)], black_box(p), dir, &mut buf));
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
                Case::new("nd-grad", move || {
                    dual_jacobian(|q| [m.at(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
            (Method::AdTrait, {
                let f = AdTraitFn {
                    f: move |q: &[Adr]| vec![m.at(q)],
                    inputs: p.len(),
                    outputs: 1,
                };
                let mut out = vec![0.0; p.len()];
                Case::new("ad_trait", move || {
                    black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                    black_box(&out);
                })
            }),
            (Method::FdJvp, {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    black_box(fd_jvp(|q| [m.at(q)], black_box(p), dir, &mut a, &mut b));
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), vec![0.0; p.len()]);
                Case::new("fd-grad", move || {
                    fd_jacobian(|q| [m.at(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
        ]
    }
}

// ---------------------------------------------------------------------------------------------

/// RK4 of the damped oscillator.
pub struct Rk4 {
    pub p: [f64; 4],
    pub dir: [f64; 4],
}

impl Rk4 {
    pub fn new() -> Self {
        Rk4 {
            p: [1.0, 0.0, 0.3, 4.0],
            dir: [0.3, -0.2, 0.5, 0.1],
        }
    }
}

impl Default for Rk4 {
    fn default() -> Self {
        Rk4::new()
    }
}

impl Problem for Rk4 {
    fn key(&self) -> String {
        "rk4".into()
    }

    fn title(&self) -> String {
        "RK4, damped oscillator, 1,000 steps (4 inputs)".into()
    }

    fn check(&self) -> String {
        let [a, b, c, d] = self.p;
        let [da, db, dc, dd] = self.dir;
        let (v, g) = ad::value_and_grad(rk4_oscillator, (a, b, c, d));
        let (vi, gi) = ad::value_and_grad(rk4_oscillator_inline, (a, b, c, d));
        let g = [g.0, g.1, g.2, g.3];
        let gi = [gi.0, gi.1, gi.2, gi.3];
        assert_close("value", (v - rk4_generic(&self.p)).abs() / v.abs(), 1e-12);
        assert_close("inline value", (v - vi).abs() / v.abs(), 1e-12);
        assert_close("call vs inline gradient", relative_error(&g, &gi), 1e-12);
        let mut buf = Vec::new();
        let mut nd = [0.0; 4];
        dual_jacobian(one(rk4_generic), &self.p, &mut buf, &mut nd);
        assert_close("ad vs num-dual gradient", relative_error(&g, &nd), 1e-11);
        let (_, t) = ad::jvp(rk4_oscillator, (a, b, c, d), (da, db, dc, dd));
        assert_close(
            "ad JVP vs gradient",
            (t - dot(&g, &self.dir)).abs() / t.abs(),
            1e-11,
        );
        let f = AdTraitFn {
            f: |q: &[Adr]| vec![rk4_generic(q)],
            inputs: 4,
            outputs: 1,
        };
        let mut gt = [0.0; 4];
        ad_trait_jacobian(&f, &self.p, &mut gt);
        assert_close("ad_trait gradient", relative_error(&g, &gt), 1e-11);
        "ad gradient (with calls and inline) = num-dual = ad_trait; ad JVP = gradient . direction"
            .into()
    }

    fn cases(&self) -> Vec<(Method, Case<'_>)> {
        let p = &self.p;
        let dir = &self.dir;
        let [a, b, c, d] = self.p;
        let [da, db, dc, dd] = self.dir;
        vec![
            (
                Method::Primal,
                Case::new("primal", move || {
                    black_box(rk4_oscillator(black_box(a), b, c, d));
                }),
            ),
            (
                Method::PrimalGeneric,
                Case::new("primal-generic", move || {
                    black_box(rk4_generic(black_box(&p[..])));
                }),
            ),
            (
                Method::AdJvp,
                Case::new("ad-jvp", move || {
                    black_box(ad::jvp(
                        rk4_oscillator,
                        (black_box(a), b, c, d),
                        (da, db, dc, dd),
                    ));
                }),
            ),
            (
                Method::AdGrad,
                Case::new("ad-grad", move || {
                    black_box(ad::value_and_grad(rk4_oscillator, (black_box(a), b, c, d)));
                }),
            ),
            (
                Method::AdJvpInline,
                Case::new("ad-jvp-inline", move || {
                    black_box(ad::jvp(
                        rk4_oscillator_inline,
                        (black_box(a), b, c, d),
                        (da, db, dc, dd),
                    ));
                }),
            ),
            (
                Method::AdGradInline,
                Case::new("ad-grad-inline", move || {
                    black_box(ad::value_and_grad(
                        rk4_oscillator_inline,
                        (black_box(a), b, c, d),
                    ));
                }),
            ),
            (Method::NdJvp, {
                let mut buf = Vec::new();
                Case::new("nd-jvp", move || {
                    black_box(dual_jvp(one(rk4_generic), black_box(p), dir, &mut buf));
                })
            }),
            (Method::NdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 4]);
                Case::new("nd-grad", move || {
                    dual_jacobian(one(rk4_generic), black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
            (Method::AdTrait, {
                let f = AdTraitFn {
                    f: |q: &[Adr]| vec![rk4_generic(q)],
                    inputs: 4,
                    outputs: 1,
                };
                let mut out = [0.0; 4];
                Case::new("ad_trait", move || {
                    black_box(ad_trait_jacobian(&f, black_box(p), &mut out));
                    black_box(&out);
                })
            }),
            (Method::FdJvp, {
                let (mut x, mut y) = (Vec::new(), Vec::new());
                Case::new("fd-jvp", move || {
                    black_box(fd_jvp(
                        |q| [rk4_generic(q)],
                        black_box(p),
                        dir,
                        &mut x,
                        &mut y,
                    ));
                })
            }),
            (Method::FdGrad, {
                let (mut buf, mut out) = (Vec::new(), [0.0; 4]);
                Case::new("fd-grad", move || {
                    fd_jacobian(|q| [rk4_generic(q)], black_box(p), &mut buf, &mut out);
                    black_box(&out);
                })
            }),
        ]
    }
}
