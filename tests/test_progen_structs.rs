//! Programs with structs that the random program generator (`progen`) wrote and
//! `#[differentiable]` rejected though plain Rust compiles them (its README, "What it has
//! found", items 31 and 32), each with its derivative checked against the formula by hand:
//! the functions are a few exact operations, so the derivatives are compared exactly or to a
//! few ulps.

use ad::differentiable;

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Cell {
    x: f64,
    n: usize,
    inner: Inner,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Inner {
    w: f64,
}

#[differentiable]
impl Inner {
    fn scaled(&self, x: f64) -> f64 {
        self.w * x
    }
}

#[differentiable]
fn weigh(i: &Inner, x: f64) -> f64 {
    i.w * i.w * x
}

/// 31: integer arithmetic on an integer field where a value is taken.
#[differentiable]
fn next_cell(s: &Cell, x: f64) -> Cell {
    Cell {
        x: s.x * x,
        n: (s.n + 1) % 2,
        inner: Inner { w: x },
    }
}

#[differentiable]
fn parity_scaled(s: &Cell, x: f64) -> f64 {
    let k = ((s.n + 1) % 2) as f64;
    (k + 1.0) * s.x * x
}

/// 32: a `match` on an integer field.
#[differentiable]
fn by_count(s: &Cell, x: f64) -> f64 {
    match s.n {
        0 => s.x * x,
        1 | 2 => s.x + x,
        _ => x,
    }
}

/// 32: a nested field lent by reference, to a function and to a method by path.
#[differentiable]
fn nested_lent(s: &Cell, x: f64) -> f64 {
    weigh(&s.inner, x) + Inner::scaled(&s.inner, x)
}

fn cell(x: f64, n: usize, w: f64) -> Cell {
    Cell {
        x,
        n,
        inner: Inner { w },
    }
}

#[test]
fn integer_arithmetic_on_an_integer_field() {
    let s = cell(1.5, 0, 0.5);
    let (next, dn) = ad::jvp(
        next_cell,
        (&s, 2.0),
        (ad::Differentiable::zero_tangent(&s), 1.0),
    );
    assert_eq!((next.x, next.n, next.inner.w), (3.0, 1, 2.0));
    assert_eq!((dn.x, dn.inner.w), (1.5, 1.0));
    for n in [0, 1] {
        let s = cell(1.5, n, 0.5);
        // (k + 1) s.x x with k = (n + 1) % 2.
        let k = ((n + 1) % 2) as f64;
        let (gs, gx) = ad::grad(parity_scaled, (&s, 2.0));
        assert_eq!((gs.x, gx), ((k + 1.0) * 2.0, (k + 1.0) * 1.5));
    }
}

#[test]
fn a_match_on_an_integer_field() {
    for (n, dsx, dx) in [(0, 2.0, 1.5), (1, 1.0, 1.0), (2, 1.0, 1.0), (5, 0.0, 1.0)] {
        let s = cell(1.5, n, 0.5);
        let (gs, gx) = ad::grad(by_count, (&s, 2.0));
        assert_eq!((gs.x, gx), (dsx, dx), "n = {n}");
        let mut t = ad::Differentiable::zero_tangent(&s);
        t.x = 1.0;
        assert_eq!(ad::jvp(by_count, (&s, 2.0), (t, 1.0)).1, dsx + dx);
    }
}

#[test]
fn a_nested_field_lent_by_reference() {
    let s = cell(1.5, 3, 0.5);
    // w^2 x + w x: d/dw = 2 w x + x, d/dx = w^2 + w.
    let (gs, gx) = ad::grad(nested_lent, (&s, 2.0));
    assert_eq!(
        (gs.inner.w, gs.x, gx),
        (2.0 * 0.5 * 2.0 + 2.0, 0.0, 0.25 + 0.5)
    );
    let mut t = ad::Differentiable::zero_tangent(&s);
    t.inner.w = 1.0;
    assert_eq!(ad::jvp(nested_lent, (&s, 2.0), (t, 0.0)).1, 4.0);
}

/// A field lent by reference, then written: the reverse sweep sees the field as it was lent.
#[differentiable]
fn lent_then_written(x: f64) -> f64 {
    let mut c: Cell = Cell {
        x: 0.0,
        n: 1,
        inner: Inner { w: x },
    };
    let a = weigh(&c.inner, x);
    c.inner.w = 3.0 * x;
    a + weigh(&c.inner, 1.0) + c.inner.scaled(x)
}

#[test]
fn a_field_lent_by_reference_then_written() {
    for x in [-1.5, 0.5, 2.0] {
        // x^3 + 9 x^2 + 3 x^2: 3 x^2 + 24 x.
        let want = 3.0 * x * x + 24.0 * x;
        let (g,) = ad::grad(lent_then_written, (x,));
        let (_, t) = ad::jvp(lent_then_written, (x,), (1.0,));
        let (_, pullback) = ad::vjp(lent_then_written, (x,));
        for got in [g, t, pullback(1.0).0] {
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{got} vs {want}"
            );
        }
    }
}

fn bucket(x: f64) -> i32 {
    (x * 4.0) as i32
}

/// A `match` whose integer patterns tell that its subject, a call the macro cannot see the
/// type of, is an integer: no derivative passes through it (a compile error before).
#[differentiable]
fn by_bucket(x: f64) -> f64 {
    match bucket(x) {
        0 => x,
        1..=3 => x * x,
        _ => 2.0 * x,
    }
}

#[test]
fn a_match_on_an_integer_call_result() {
    for (x, want) in [(0.1, 1.0), (0.5, 1.0), (1.5, 2.0)] {
        assert_eq!(ad::grad(by_bucket, (x,)).0, want, "x = {x}");
        assert_eq!(ad::jvp(by_bucket, (x,), (1.0,)).1, want);
    }
}

/// Integer subjects that read a mutable view and call a method: the view and the method call
/// stay what they are in the derivative (E0425 and "cannot keep this as it is", found by the
/// generator while the change above was made).
#[differentiable]
fn view_and_method_subjects(y: &mut [f64], s: &Cell, x: f64) -> f64 {
    let row = &mut y[0..2];
    row[0] = x;
    let a = match ((row[0].abs() * 2.0) as usize) % 3 {
        0 => x,
        _ => x * x,
    };
    let b = match (s.inner.scaled(x).abs() as usize) % 2 {
        0 => s.x,
        _ => 2.0 * s.x,
    };
    a + b
}

#[test]
fn integer_subjects_that_read_a_view_and_call_a_method() {
    // x = 0.25: row[0] 0.25 gives 0 (a = x); s.inner.scaled(x) = 0.5 x gives 0 (b = s.x).
    // x = 1.25: 2 (a = x^2); 0.625 gives 0 (b = s.x).
    for (x, dx) in [(0.25, 1.0), (1.25, 2.5)] {
        let s = cell(1.5, 0, 0.5);
        let mut y = [0.0; 2];
        let mut y_bar = [0.0; 2];
        let (_, (_, gs, gx)) = ad::vjp_into(
            view_and_method_subjects,
            (&mut y[..], &s, x),
            (&mut y_bar[..], (), ()),
            1.0,
        );
        assert_eq!((gs.x, gs.inner.w, gx), (1.0, 0.0, dx), "x = {x}");
    }
}

/// 23: a method called with `.` in a condition, on and with values bound without `mut`,
/// which nothing can change ("cannot keep this as it is: it may change `x`" before).
#[differentiable]
fn method_in_condition(s: &Cell, x: f64) -> f64 {
    if x < s.inner.scaled(x) {
        s.x * x
    } else {
        assert!(x >= s.inner.scaled(x), "{}", s.inner.scaled(x));
        s.x + x
    }
}

#[test]
fn a_method_called_in_a_condition() {
    // w = 2: x < 2x for x > 0.
    let s = cell(1.5, 0, 2.0);
    for (x, dsx, dx) in [(0.5, 0.5, 1.5), (-0.5, 1.0, 1.0)] {
        let (gs, gx) = ad::grad(method_in_condition, (&s, x));
        assert_eq!((gs.x, gs.inner.w, gx), (dsx, 0.0, dx), "x = {x}");
    }
}

#[differentiable]
fn first_plus(v: Vec<f64>, x: f64) -> f64 {
    v[0] + x
}

/// 26: `vec![..]` in a condition and in `assert!` (the message of 23 before).
#[differentiable]
fn vec_in_condition(x: f64) -> f64 {
    assert!(first_plus(vec![1.0], x) > -100.0);
    if x < first_plus(vec![1.0], 2.0) {
        x * x
    } else {
        x
    }
}

#[test]
fn a_vec_built_in_a_condition() {
    for (x, dx) in [(1.0, 2.0), (4.0, 1.0)] {
        assert_eq!(ad::grad(vec_in_condition, (x,)).0, dx);
        assert_eq!(ad::jvp(vec_in_condition, (x,), (1.0,)).1, dx);
    }
}

/// 23: the condition reads a mutable local, which the method call cannot change: only the root
/// of a method's receiver may change.
#[differentiable]
fn mutable_local_in_condition(s: &Cell, x: f64) -> f64 {
    let mut y = x;
    y *= 2.0;
    if y < s.inner.scaled(y) { y } else { -y }
}

#[test]
fn a_mutable_local_read_beside_a_method_call_in_a_condition() {
    // w = 0.5: y < y / 2 for y < 0.
    let s = cell(1.5, 0, 0.5);
    for (x, dx) in [(-1.0, 2.0), (1.0, -2.0)] {
        assert_eq!(ad::grad(mutable_local_in_condition, (&s, x)).1, dx);
        assert_eq!(
            ad::jvp(
                mutable_local_in_condition,
                (&s, x),
                (ad::Differentiable::zero_tangent(&s), 1.0)
            )
            .1,
            dx
        );
    }
}

/// 23, found again by the long run: a method called with `.` in a condition on a struct bound
/// by a `let` without a type and without `mut`, which nothing can change.
#[differentiable]
fn untyped_receiver_in_condition(x: f64) -> f64 {
    let st = Inner { w: x };
    if st.scaled(0.5) > 0.25 { st.w * x } else { x }
}

#[test]
fn a_method_of_an_untyped_let_called_in_a_condition() {
    // 0.5 x > 0.25 for x > 0.5: x^2 there, x below.
    for (x, dx) in [(1.0, 2.0), (0.25, 1.0)] {
        assert_eq!(ad::grad(untyped_receiver_in_condition, (x,)).0, dx);
        assert_eq!(ad::jvp(untyped_receiver_in_condition, (x,), (1.0,)).1, dx);
    }
}

/// 34: a `Vec` field's element passed to a call in a statement that reads the struct again
/// (kept as written, here in a comparison): the field was copied in place of the struct, and
/// a `Vec` field was moved out of it instead of cloned.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Holder {
    x: f64,
    v: Vec<f64>,
}

#[differentiable]
impl Holder {
    fn times(&self, a: f64, flag: bool) -> f64 {
        if flag { self.x * a } else { a }
    }

    fn element_and_reread(self, x: f64) -> f64 {
        Holder::times(
            &self,
            self.v[1] * x,
            0.5_f64.total_cmp(&self.times(0.5, true)) == std::cmp::Ordering::Less,
        )
    }
}

#[test]
fn a_vec_field_element_beside_a_read_of_the_struct() {
    // x = 2 > 0.5 takes the product: f = x_s * v1 * x, so df/dx_s = v1 x, df/dv1 = x_s x,
    // df/dx = x_s v1.
    let h = Holder {
        x: 2.0,
        v: vec![0.5, 3.0],
    };
    let x = 1.5;
    let (gh, gx) = ad::grad(Holder::element_and_reread, (h.clone(), x));
    assert_eq!((gh.x, gh.v.clone(), gx), (4.5, vec![0.0, 3.0], 6.0));
    let dh = Holder {
        x: 1.0,
        v: vec![0.0, 1.0],
    };
    // Along (dx_s, dv1, dx) = (1, 1, 1): 4.5 + 3 + 6.
    assert_eq!(
        ad::jvp(Holder::element_and_reread, (h, x), (dh, 1.0)).1,
        13.5
    );
}

#[differentiable]
fn weigh_owned(i: Inner, x: f64) -> f64 {
    i.w * i.w * x
}

/// 35: a struct's field set after a call, in a function with an item of its own: the item
/// left every adjoint untyped, and the reverse sweep read a field of the struct's adjoint
/// before anything told its type (E0282). With a `const` item, and with a type item, which
/// still leaves the declared types unwritten.
// The field set last is the construct found: it is not read again.
#[allow(unused_assignments)]
#[differentiable]
fn set_after_call(mut s: Cell, x: f64) -> f64 {
    const HALF: f64 = 0.5;
    let t: f64 = weigh_owned(Inner { w: s.x }, x);
    s.x = HALF;
    t * x
}

#[allow(unused_assignments)]
#[differentiable]
fn set_after_call_with_a_type_item(mut s: Cell, x: f64) -> f64 {
    #[allow(dead_code)]
    struct Marker;
    let _ = Marker;
    let t: f64 = weigh_owned(Inner { w: s.x }, x);
    s.x = 0.5;
    t * x
}

#[test]
fn a_field_set_after_a_call_beside_an_item() {
    // f = s.x^2 x^2 (the field set after the call is not read again): df/ds.x = 2 s.x x^2,
    // df/dx = 2 s.x^2 x.
    let (sx, x) = (1.5, 2.0);
    let s = cell(sx, 3, 0.25);
    for f in [set_after_call, set_after_call_with_a_type_item] {
        let (gs, gx) = ad::grad(f, (s.clone(), x));
        assert_eq!(
            (gs.x, gs.inner.w, gx),
            (2.0 * sx * x * x, 0.0, 2.0 * sx * sx * x)
        );
        let ds = CellTangent {
            x: 1.0,
            n: ad::NoTangent,
            inner: Inner { w: 0.0 },
        };
        assert_eq!(ad::jvp(f, (s.clone(), x), (ds, 0.0)).1, 2.0 * sx * x * x);
    }
}
