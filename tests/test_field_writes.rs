//! Elements of a struct's fields written in place (`s.w[i] = ..`, `self.x[i] += ..`, nested
//! `s.at.w[i]`), in both modes, in loops and branches and in `&mut self` methods, against the
//! same code written over dual numbers (tolerance 1e-12 relative, `tests/dual_check/mod.rs`
//! says why).

// Index loops are the spelling under test, and the oracle is written like the code it checks.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

#[macro_use]
mod dual_check;

use dual_check::{D, DualNum, TOL, close, grid};

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Particles {
    x: Vec<f64>,
    v: Vec<f64>,
    k: [f64; 2],
    n: usize,
}

#[ad::differentiable]
impl Particles {
    /// Symplectic Euler steps of springs of stiffness `k[0]`, damped by `k[1]`; returns the
    /// energy after.
    fn step(&mut self, dt: f64) -> f64 {
        for i in 0..self.n {
            self.v[i] -= dt * (self.k[0] * self.x[i] + self.k[1] * self.v[i]);
            self.x[i] += dt * self.v[i];
        }
        self.k[1] *= 0.5;
        let mut e = 0.0;
        for i in 0..self.n {
            e += 0.5 * (self.v[i] * self.v[i] + self.k[0] * self.x[i] * self.x[i]);
        }
        e
    }
}

/// The oracle: `step` over dual numbers, state `x v k`.
fn step_d(x: &mut [D], v: &mut [D], k: &mut [D; 2], dt: D) -> D {
    for i in 0..x.len() {
        v[i] = v[i] - dt * (k[0] * x[i] + k[1] * v[i]);
        x[i] = x[i] + dt * v[i];
    }
    k[1] = k[1] * 0.5;
    let mut e = D::from(0.0);
    for i in 0..x.len() {
        e += (v[i] * v[i] + k[0] * x[i] * x[i]) * 0.5;
    }
    e
}

fn floats(p: &ParticlesTangent) -> Vec<f64> {
    p.x.iter().chain(&p.v).chain(&p.k).copied().collect()
}

#[test]
fn elements_of_fields_written_in_a_mut_self_method() {
    for a in grid(-1.0, 1.0, 3) {
        let p0 = Particles {
            x: vec![a, 0.5, -0.25],
            v: vec![0.1, -0.2, 0.3 * a],
            k: [2.0, 0.3],
            n: 3,
        };
        let dt = 0.1;
        let mut after = p0.clone();
        let e = after.step(dt);
        let mut p = p0.clone();
        let (ge, (gp, gdt)) = ad::value_and_grad(Particles::step, (&mut p, dt));
        assert_eq!((ge.to_bits(), &p), (e.to_bits(), &after));
        let g: Vec<f64> = floats(&gp).into_iter().chain([gdt]).collect();
        let inputs: Vec<f64> =
            p0.x.iter()
                .chain(&p0.v)
                .chain(&p0.k)
                .copied()
                .chain([dt])
                .collect();
        for j in 0..inputs.len() {
            let seed = |i: usize| D::new(inputs[i], if i == j { 1.0 } else { 0.0 });
            let mut x: Vec<D> = (0..3).map(seed).collect();
            let mut v: Vec<D> = (3..6).map(seed).collect();
            let mut k = [seed(6), seed(7)];
            let want = step_d(&mut x, &mut v, &mut k, seed(8));
            assert!(close(want.re, e, TOL));
            assert!(
                close(g[j], want.eps, TOL),
                "grad d/d{j} = {}, oracle {}",
                g[j],
                want.eps
            );
            // Forward mode along the same unit vector: the result and the state after.
            let u = |i: usize| if i == j { 1.0 } else { 0.0 };
            let mut t = ParticlesTangent {
                x: (0..3).map(u).collect(),
                v: (3..6).map(u).collect(),
                k: [u(6), u(7)],
                n: ad::NoTangent,
            };
            let mut q = p0.clone();
            let (_, de) = ad::jvp(Particles::step, (&mut q, dt), (&mut t, u(8)));
            assert!(close(de, want.eps, TOL), "jvp d/d{j}");
            for (got, want) in floats(&t).into_iter().zip(x.iter().chain(&v).chain(&k)) {
                assert!(close(got, want.eps, TOL), "jvp state along {j}");
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Inner {
    w: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Outer {
    at: Inner,
    c: f64,
}

/// Writes through a nested field, in a branch, read back and overwritten.
#[ad::differentiable]
fn nested(x: f64, y: f64) -> f64 {
    let mut s: Outer = Outer {
        at: Inner { w: vec![x, y, 1.0] },
        c: y,
    };
    s.at.w[2] = s.at.w[0] * s.at.w[1];
    if x > 0.0 {
        s.at.w[0] += s.c * s.c;
    } else {
        s.at.w[0] = 3.0;
    }
    s.at.w[1] *= s.at.w[1];
    s.at.w[0] * s.at.w[1] + s.at.w[2].sin()
}

fn nested_d(x: D, y: D) -> D {
    let mut w = [x, y, D::from(1.0)];
    w[2] = w[0] * w[1];
    if x.re > 0.0 {
        w[0] += y * y;
    } else {
        w[0] = D::from(3.0);
    }
    w[1] = w[1] * w[1];
    w[0] * w[1] + DualNum::sin(&w[2])
}

#[test]
fn elements_of_a_nested_field_written_and_read_back() {
    for x in grid(-1.0, 1.5, 4) {
        for y in grid(-0.5, 0.75, 3) {
            let (gx, gy) = ad::grad(nested, (x, y));
            let (_, pullback) = ad::vjp(nested, (x, y));
            let (px, py) = pullback(1.0);
            let (_, tx) = ad::jvp(nested, (x, y), (1.0, 0.0));
            let (_, ty) = ad::jvp(nested, (x, y), (0.0, 1.0));
            let wx = nested_d(D::new(x, 1.0), D::from(y)).eps;
            let wy = nested_d(D::from(x), D::new(y, 1.0)).eps;
            for (got, want) in [(gx, wx), (px, wx), (tx, wx), (gy, wy), (py, wy), (ty, wy)] {
                assert!(close(got, want, TOL), "{got} vs {want} at ({x}, {y})");
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Wave {
    w: Vec<f64>,
    c: f64,
}

#[ad::differentiable]
impl Wave {
    fn energy(&self) -> f64 {
        let mut e = 0.0;
        for i in 0..self.w.len() {
            e += self.w[i] * self.w[i];
        }
        e * self.c
    }
}

/// Each element replaced by a nonlinear function of itself, three times over: the reverse
/// sweep needs every value the element held. The struct by value, changed and returned, and
/// read through a method in between.
#[ad::differentiable]
fn relaxed(mut s: Wave) -> Wave {
    for _ in 0..3 {
        for i in 0..s.w.len() {
            s.w[i] = (s.w[i] * s.c).sin();
        }
        s.c = s.energy().sqrt();
    }
    s
}

fn relaxed_d(w: &mut [D], c: &mut D) {
    for _ in 0..3 {
        for e in w.iter_mut() {
            *e = DualNum::sin(&(*e * *c));
        }
        let energy = w.iter().fold(D::from(0.0), |a, e| a + *e * *e) * *c;
        *c = DualNum::sqrt(&energy);
    }
}

#[test]
fn an_element_replaced_by_a_function_of_itself_in_loops() {
    let s = Wave {
        w: vec![0.3, -0.6, 0.9],
        c: 1.2,
    };
    let inputs = [0.3, -0.6, 0.9, 1.2];
    // The adjoint of the result: weights on w and c.
    let bar = Wave {
        w: vec![1.0, -2.0, 0.5],
        c: 0.25,
    };
    let (value, pullback) = ad::vjp(relaxed, (s.clone(),));
    assert_eq!(value, relaxed(s.clone()));
    let (g,) = pullback(bar.clone());
    let g: Vec<f64> = g.w.iter().copied().chain([g.c]).collect();
    for j in 0..4 {
        let seed = |i: usize| D::new(inputs[i], if i == j { 1.0 } else { 0.0 });
        let mut w: Vec<D> = (0..3).map(seed).collect();
        let mut c = seed(3);
        relaxed_d(&mut w, &mut c);
        let want = (0..3).map(|i| bar.w[i] * w[i].eps).sum::<f64>() + bar.c * c.eps;
        assert!(
            close(g[j], want, TOL),
            "vjp d/d{j} = {}, oracle {want}",
            g[j]
        );
        let u = |i: usize| if i == j { 1.0 } else { 0.0 };
        let (_, t) = ad::jvp(
            relaxed,
            (s.clone(),),
            (Wave {
                w: (0..3).map(u).collect(),
                c: u(3),
            },),
        );
        for i in 0..3 {
            assert!(close(t.w[i], w[i].eps, TOL), "jvp w[{i}] along {j}");
        }
        assert!(close(t.c, c.eps, TOL), "jvp c along {j}");
    }
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

/// What the error for `n.layers[0].w[0] = ..` says to write: the element copied, changed and
/// put back.
#[ad::differentiable]
fn put_back(mut n: Net, x: f64) -> f64 {
    let mut e = n.layers[1].clone();
    e.w[0] = x * e.b;
    n.layers[1] = e;
    let (first, second) = (n.layers[0].clone(), n.layers[1].clone());
    second.w[0] * first.w[1] + second.w[1]
}

#[test]
fn an_element_of_a_sequence_of_structs_changed_and_put_back() {
    let n = Net {
        layers: vec![
            Layer {
                w: vec![1.0, 2.0],
                b: 0.5,
            },
            Layer {
                w: vec![3.0, 4.0],
                b: 1.5,
            },
        ],
    };
    // x b1 w01 + w11: d/dx = b1 w01 = 3, d/db1 = x w01, d/dw01 = x b1, d/dw11 = 1; w10 unused.
    let x = 2.0;
    let (gn, gx) = ad::grad(put_back, (n.clone(), x));
    assert_eq!(gx, 3.0);
    assert_eq!(
        gn.layers[0],
        Layer {
            w: vec![0.0, 3.0],
            b: 0.0
        }
    );
    assert_eq!(
        gn.layers[1],
        Layer {
            w: vec![0.0, 1.0],
            b: 4.0
        }
    );
    let mut t = ad::Differentiable::zero_tangent(&n);
    t.layers[1].b = 1.0;
    assert_eq!(ad::jvp(put_back, (n, x), (t, 1.0)).1, 3.0 + 4.0);
}

/// Fields read through elements of a field (`n.layers[l].w[j]`), of a parameter by reference
/// and of a local, in loops.
#[ad::differentiable]
fn nested_reads(n: &Net, x: f64) -> f64 {
    let mut s = 0.0;
    for l in 0..n.layers.len() {
        for j in 0..n.layers[l].w.len() {
            s += (n.layers[l].w[j] * x + n.layers[l].b).tanh();
        }
    }
    let copy: Net = n.clone();
    s * copy.layers[1].w[0]
}

/// A network of two layers of 3 and 2 weights, the same in the tests below.
fn two_layers() -> Net {
    Net {
        layers: vec![
            Layer {
                w: vec![0.5, -1.0, 0.25],
                b: 0.1,
            },
            Layer {
                w: vec![2.0, 0.75],
                b: -0.3,
            },
        ],
    }
}

/// The floats of layers (a network's or its tangent's) in order: each layer's weights, then
/// its bias.
fn floats_of(layers: &[Layer]) -> Vec<f64> {
    layers
        .iter()
        .flat_map(|l| l.w.iter().copied().chain([l.b]))
        .collect()
}

/// The tangent of `two_layers` along its float `k` (none for `k` past them).
fn unit_of_two_layers(k: usize) -> NetTangent {
    let u = |i: usize| if i == k { 1.0 } else { 0.0 };
    NetTangent {
        layers: vec![
            Layer {
                w: vec![u(0), u(1), u(2)],
                b: u(3),
            },
            Layer {
                w: vec![u(4), u(5)],
                b: u(6),
            },
        ],
    }
}

/// `two_layers` over dual numbers, seeded along its float `k`.
fn two_layers_d(flat: &[f64], k: usize) -> Vec<(Vec<D>, D)> {
    let seed = |i: usize| D::new(flat[i], if i == k { 1.0 } else { 0.0 });
    vec![
        (vec![seed(0), seed(1), seed(2)], seed(3)),
        (vec![seed(4), seed(5)], seed(6)),
    ]
}

fn nested_reads_d(layers: &[(Vec<D>, D)], x: D) -> D {
    let mut s = D::from(0.0);
    for (w, b) in layers {
        for wj in w {
            s += DualNum::tanh(&(*wj * x + *b));
        }
    }
    s * layers[1].0[0]
}

#[test]
fn fields_read_through_elements_of_a_field() {
    let n = two_layers();
    let flat = floats_of(&n.layers);
    for x in grid(-1.0, 1.0, 3) {
        let (gn, gx) = ad::grad(nested_reads, (&n, x));
        let (_, pullback) = ad::vjp(nested_reads, (&n, x));
        let (pn, px) = pullback(1.0);
        let (g, p) = (floats_of(&gn.layers), floats_of(&pn.layers));
        for k in 0..8 {
            let u = |i: usize| if i == k { 1.0 } else { 0.0 };
            let want = nested_reads_d(&two_layers_d(&flat, k), D::new(x, u(7))).eps;
            let (got, pulled) = if k == 7 { (gx, px) } else { (g[k], p[k]) };
            assert!(close(got, want, TOL), "grad d/d{k} = {got}, oracle {want}");
            assert!(close(pulled, want, TOL), "vjp d/d{k}");
            let (_, jv) = ad::jvp(nested_reads, (&n, x), (unit_of_two_layers(k), u(7)));
            assert!(close(jv, want, TOL), "jvp d/d{k}");
        }
    }
}

/// Elements of fields written through elements of a field (`n.layers[l].w[j] -= ..`), and
/// fields of the elements (`n.layers[l].b = ..`, `*=`): a step of gradient descent on a
/// network inside the function, then its loss.
#[ad::differentiable]
fn stepped_loss(mut n: Net, x: f64, rate: f64) -> f64 {
    for l in 0..n.layers.len() {
        for j in 0..n.layers[l].w.len() {
            let g = (n.layers[l].w[j] * x).cos() * x;
            n.layers[l].w[j] -= rate * g;
        }
        n.layers[l].w[1] *= 0.5;
        n.layers[l].b = n.layers[l].b * x;
        n.layers[l].b *= 0.5 + n.layers[l].w[1];
        n.layers[l].w[0] = n.layers[l].w[0] * n.layers[l].b;
    }
    let mut s = 0.0;
    for l in 0..n.layers.len() {
        for j in 0..n.layers[l].w.len() {
            s += (n.layers[l].w[j] * x).sin() + n.layers[l].b;
        }
    }
    s
}

fn stepped_loss_d(layers: &mut [(Vec<D>, D)], x: D, rate: D) -> D {
    for (w, b) in layers.iter_mut() {
        for wj in w.iter_mut() {
            let g = DualNum::cos(&(*wj * x)) * x;
            *wj = *wj - rate * g;
        }
        w[1] = w[1] * 0.5;
        *b = *b * x;
        *b = *b * (w[1] + 0.5);
        w[0] = w[0] * *b;
    }
    let mut s = D::from(0.0);
    for (w, b) in layers.iter() {
        for wj in w {
            s += DualNum::sin(&(*wj * x)) + *b;
        }
    }
    s
}

#[test]
fn elements_written_through_elements_of_a_field() {
    let n = two_layers();
    let flat = floats_of(&n.layers);
    let (x, rate) = (0.7, 0.1);
    let (gn, gx, grate) = ad::grad(stepped_loss, (n.clone(), x, rate));
    let g: Vec<f64> = floats_of(&gn.layers)
        .into_iter()
        .chain([gx, grate])
        .collect();
    for k in 0..9 {
        let u = |i: usize| if i == k { 1.0 } else { 0.0 };
        let mut layers = two_layers_d(&flat, k);
        let want = stepped_loss_d(&mut layers, D::new(x, u(7)), D::new(rate, u(8)));
        let (got, want_eps) = (g[k], want.eps);
        assert!(
            close(got, want_eps, TOL),
            "grad d/d{k} = {got}, oracle {want_eps}"
        );
        let tangents = (unit_of_two_layers(k), u(7), u(8));
        let (v, jv) = ad::jvp(stepped_loss, (n.clone(), x, rate), tangents);
        assert!(close(v, want.re, TOL));
        assert!(
            close(jv, want_eps, TOL),
            "jvp d/d{k} = {jv}, oracle {want_eps}"
        );
    }
}
