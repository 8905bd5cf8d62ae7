//! Fields of a struct parameter read through its reference (`&self`), indexed in loops: their
//! adjoints are buffers taken out of the struct's adjoint where the reverse sweep starts and
//! added back where it ends (`reverse/dense.rs`). Adversarial for that: the same field also read
//! whole, an element read in a branch, the struct passed on to a method that buffers the same
//! field in its own call, and a loop with a branch around its records (the room it makes on
//! the tape counts both sides). Checked with `jvp`, `value_and_grad` and `vjp` against central
//! finite differences (`tests/fd_check/mod.rs` says why its tolerance separates rounding from a
//! wrong derivative).

#![allow(clippy::needless_range_loop)]

use ad::{Const, differentiable};

#[macro_use]
mod fd_check;

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Lin {
    w: Vec<f64>,
    b: Vec<f64>,
    n: usize,
}

#[differentiable]
impl Lin {
    /// `w` read by index in a loop and whole (a copy), `b` by index in a branch of the loop and
    /// once more outside it, and a method of the same struct called with it.
    fn mixed(&self, x: Const<&[f64]>) -> f64 {
        let mut s = 0.0;
        for i in 0..self.n {
            let mut z = self.b[i];
            for j in 0..self.n {
                z += self.w[i * self.n + j] * x[j];
            }
            if z > 0.0 {
                s += z.tanh() * self.b[i];
            } else {
                s += (0.5 * z).exp() - 1.0;
            }
        }
        let w = self.w.clone();
        s + w[1] * w[2] + self.b[0] * self.w[3] + self.energy()
    }

    /// The same field buffered again, in a call of its own.
    fn energy(&self) -> f64 {
        let mut e = 0.0;
        for k in 0..self.w.len() {
            e += 0.25 * self.w[k] * self.w[k];
        }
        e
    }
}

const N: usize = 3;

fn lin_of(p: &[f64]) -> Lin {
    Lin {
        w: p[..N * N].to_vec(),
        b: p[N * N..].to_vec(),
        n: N,
    }
}

fn flat(t: &LinTangent) -> Vec<f64> {
    t.w.iter().chain(&t.b).copied().collect()
}

fn tangent_of(d: &[f64]) -> LinTangent {
    LinTangent {
        w: d[..N * N].to_vec(),
        b: d[N * N..].to_vec(),
        n: ad::NoTangent,
    }
}

#[test]
fn field_buffers_meet_whole_reads_branches_and_calls() {
    let x = [0.7, -1.1, 0.4];
    // Both sides of the branch are taken: rows with positive and negative sums.
    let p: Vec<f64> = vec![
        0.9, 0.2, -0.3, -1.4, 0.6, 0.8, 0.1, -0.5, 1.2, 0.3, -0.2, 0.05,
    ];
    let data = || Const(&x[..]);
    fd_check::check(
        "Lin::mixed",
        &p,
        &|p| lin_of(p).mixed(data()),
        &|p| flat(&ad::value_and_grad(Lin::mixed, (&lin_of(p), data())).1.0),
        &|p| flat(&(ad::vjp(Lin::mixed, (&lin_of(p), data())).1)(1.0).0),
        &|p, d| {
            ad::jvp(
                Lin::mixed,
                (&lin_of(p), data()),
                (tangent_of(d), ad::NoTangent),
            )
            .1
        },
    );
}

/// A loop whose branches push records of different sizes and whose inner loop carries a float:
/// it makes room at the start of each iteration for the larger side and the decision.
#[differentiable]
fn branchy(x: &[f64], d: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() / d {
        let mut z = 0.0;
        for j in 0..d {
            z += x[i * d + j] * x[j];
        }
        if z > 0.1 {
            total += z.tanh();
        } else if z < -0.1 {
            total += (z * z).sin() * z.exp();
        } else {
            total += z;
        }
    }
    total
}
probe!(
    branches_in_a_loop_with_room,
    branchy,
    [
        0.3, -1.2, 0.8, 2.0, 0.7, -0.4, 0.05, 0.02, -0.01, -0.9, 0.5, -1.3
    ],
    3
);

/// A loop with no inner loop, a running sum and a branch inside an inner branch: the room is
/// made once, before the loop.
#[differentiable]
fn nested_branches(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        if x[i] > 0.0 {
            if x[i] > 1.0 {
                s += x[i].sqrt() * x[i];
            } else {
                s -= x[i].exp();
            }
        }
    }
    s
}
probe!(
    nested_branches_in_a_loop_with_room,
    nested_branches,
    [0.3, -1.2, 1.8, 2.0, 0.7, -0.4]
);

/// A tuple struct, its own tangent: its fields are places as named fields are.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Pair(Vec<f64>, f64);

/// A tuple struct's field indexed, read and written, by value.
#[differentiable]
fn pair_by_value(mut p: Pair, x: f64) -> f64 {
    p.0[1] = x * p.0[0];
    p.0[2] *= p.1;
    let mut s = 0.0;
    for i in 0..p.0.len() {
        s += p.0[i] * p.0[i];
    }
    s + p.0[0] * p.1
}

#[differentiable]
impl Pair {
    /// A tuple struct's field indexed through the reference (its adjoint a field buffer).
    fn weighted(&self, x: Const<&[f64]>) -> f64 {
        let mut s = 0.0;
        for i in 0..self.0.len() {
            s += self.0[i] * x[i];
        }
        s * self.1
    }
}

fn pair_of(p: &[f64]) -> Pair {
    Pair(p[..3].to_vec(), p[3])
}

fn pair_flat(t: &Pair) -> Vec<f64> {
    t.0.iter().copied().chain([t.1]).collect()
}

#[test]
fn tuple_struct_fields_indexed_in_place() {
    let q = [0.9, -0.4, 1.3, 0.7];
    let x = 1.7;
    fd_check::check(
        "pair_by_value",
        &q,
        &|q| pair_by_value(pair_of(q), x),
        &|q| pair_flat(&ad::value_and_grad(pair_by_value, (pair_of(q), x)).1.0),
        &|q| pair_flat(&(ad::vjp(pair_by_value, (pair_of(q), x)).1)(1.0).0),
        &|q, d| ad::jvp(pair_by_value, (pair_of(q), x), (pair_of(d), 0.0)).1,
    );
    let xs = [0.5, -1.5, 2.0];
    let data = || Const(&xs[..]);
    fd_check::check(
        "Pair::weighted",
        &q,
        &|q| pair_of(q).weighted(data()),
        &|q| {
            pair_flat(
                &ad::value_and_grad(Pair::weighted, (&pair_of(q), data()))
                    .1
                    .0,
            )
        },
        &|q| pair_flat(&(ad::vjp(Pair::weighted, (&pair_of(q), data())).1)(1.0).0),
        &|q, d| {
            ad::jvp(
                Pair::weighted,
                (&pair_of(q), data()),
                (pair_of(d), ad::NoTangent),
            )
            .1
        },
    );
}

/// A tuple struct holding another struct.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Wrap(Pair, f64);

#[differentiable]
fn pair_norm(p: &Pair, k: f64) -> f64 {
    k * (p.0[0] * p.0[0] + p.1 * p.1)
}

/// A tuple struct's field that is a struct, lent by reference (`&w.0`) and the receiver of a
/// method (`w.0.weighted(..)`): its type named through the derive by its position, as a named
/// field's is (found by the program generator once it made tuple structs).
#[differentiable]
fn wrapped(w: &Wrap, xs: Const<&[f64]>) -> f64 {
    let local = Wrap(Pair(vec![w.1, w.0.1, 1.0], 0.5), w.1);
    pair_norm(&w.0, w.1) + w.0.weighted(xs) + local.0.weighted(xs) * pair_norm(&local.0, 2.0)
}

fn wrap_of(p: &[f64]) -> Wrap {
    Wrap(pair_of(&p[..4]), p[4])
}

fn wrap_tangent(d: &[f64]) -> WrapTangent {
    WrapTangent(pair_of(&d[..4]), d[4])
}

fn wrap_flat(t: &WrapTangent) -> Vec<f64> {
    let mut v = pair_flat(&t.0);
    v.push(t.1);
    v
}

#[test]
fn tuple_struct_fields_lent_and_called_on() {
    let q = [0.9, -0.4, 1.3, 0.7, 0.6];
    let xs = [0.5, -1.5, 2.0];
    let data = || Const(&xs[..]);
    fd_check::check(
        "wrapped",
        &q,
        &|q| wrapped(&wrap_of(q), data()),
        &|q| wrap_flat(&ad::value_and_grad(wrapped, (&wrap_of(q), data())).1.0),
        &|q| wrap_flat(&(ad::vjp(wrapped, (&wrap_of(q), data())).1)(1.0).0),
        &|q, d| {
            ad::jvp(
                wrapped,
                (&wrap_of(q), data()),
                (wrap_tangent(d), ad::NoTangent),
            )
            .1
        },
    );
}
