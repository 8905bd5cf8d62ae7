//! Hard cases for slices, outputs, calls, arrays and rules, in both modes, against
//! central finite differences (h = 1e-6, tolerance 1e-6 relative on O(1)-scaled smooth
//! functions) and closed forms.

// The cases are spelled as the shapes under test, not as idiomatic Rust.
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::manual_memcpy,
    clippy::assign_op_pattern
)]

use ad::differentiable;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

fn fd_at(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut hi, mut lo) = (x.to_vec(), x.to_vec());
    hi[i] += h;
    lo[i] -= h;
    (f(&hi) - f(&lo)) / (2.0 * h)
}

fn fd_grad(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len()).map(|i| fd_at(f, x, i)).collect()
}

fn assert_all_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for i in 0..got.len() {
        assert!(
            close(got[i], want[i], tol),
            "{what}[{i}]: got {} want {} (all: {got:?} vs {want:?})",
            got[i],
            want[i]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 1. A callee reads an output the caller wrote; the caller then overwrites that output.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn sumsq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn write_read_overwrite(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] * 2.0;
    }
    let a = sumsq(y);
    for i in 0..x.len() {
        y[i] = y[i] * 3.0 + 1.0;
    }
    a
}

#[test]
fn callee_reads_output_later_overwritten_reverse() {
    let x = [0.5, -1.0, 0.25];
    let mut y = [0.0; 3];
    let mut x_bar = [0.0; 3];
    let mut y_bar = [0.0; 3];
    let (v, _) = ad::vjp_into(
        write_read_overwrite,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        1.0,
    );
    assert!(close(v, 4.0 * (0.25 + 1.0 + 0.0625), 1e-15));
    // d/dx_i sum (2 x_i)^2 = 8 x_i
    let want: Vec<f64> = x.iter().map(|x| 8.0 * x).collect();
    assert_all_close("x_bar", &x_bar, &want, 1e-12);
}

#[test]
fn callee_reads_output_later_overwritten_forward() {
    let x = [0.5, -1.0, 0.25];
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (mut y, mut dy) = ([0.0; 3], [0.0; 3]);
        let (_, d) = ad::jvp(
            write_read_overwrite,
            (&x[..], &mut y[..]),
            (&e[..], &mut dy[..]),
        );
        assert!(close(d, 8.0 * x[i], 1e-12), "forward {i}: {d}");
        for k in 0..3 {
            assert_eq!(dy[k], if k == i { 6.0 } else { 0.0 });
        }
    }
}

/// The same, inside a loop: each iteration writes one element, calls the reader, and a later
/// iteration changes what the earlier call read.
#[differentiable]
fn reader_in_loop(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] = 0.0;
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        y[i] = x[i].sin();
        t += sumsq(y);
    }
    t
}

fn reader_in_loop_value(x: &[f64]) -> f64 {
    let mut y = vec![0.0; x.len()];
    reader_in_loop(x, &mut y)
}

#[test]
fn callee_reads_output_in_a_loop_reverse_and_forward() {
    let x = [0.3, -0.6, 1.1];
    let fd = fd_grad(&reader_in_loop_value, &x);
    let mut y = [0.0; 3];
    let (mut x_bar, mut y_bar) = ([0.0; 3], [0.0; 3]);
    ad::vjp_into(
        reader_in_loop,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        1.0,
    );
    assert_all_close("reverse", &x_bar, &fd, 1e-6);
    assert_eq!(y_bar, [0.0; 3], "output adjoint not consumed");
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (mut y, mut dy) = ([0.0; 3], [0.0; 3]);
        let (_, d) = ad::jvp(reader_in_loop, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        assert!(close(d, fd[i], 1e-6), "forward {i}: {d} vs {}", fd[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 2. An output written in one loop, read and overwritten in later loops (also `+=` with a
//    neighbour), with non-zero incoming output adjoints and pre-filled input buffers.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn three_loops(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i].sin();
    }
    for i in 0..y.len() {
        y[i] = y[i] * y[i] + x[i];
    }
    for i in 1..y.len() {
        y[i] += y[i - 1] * 0.5;
    }
    let mut t = 0.0;
    for i in 0..y.len() {
        t += y[i] * x[i];
    }
    t
}

#[test]
fn output_rewritten_across_loops_with_incoming_adjoints() {
    let x = [0.3, -0.7, 1.2, 0.4];
    let w = [0.5, -1.5, 2.0, 0.75]; // incoming adjoint of y
    let s = 1.3; // incoming adjoint of the result
    let objective = |z: &[f64]| {
        let mut y = [0.0; 4];
        let t = three_loops(z, &mut y);
        s * t + (0..4).map(|k| w[k] * y[k]).sum::<f64>()
    };
    let fd = fd_grad(&objective, &x);
    let prefill = [10.0, 20.0, 30.0, 40.0];
    let mut x_bar = prefill;
    let mut y_bar = w;
    let mut y = [0.0; 4];
    let (v, _) = ad::vjp_into(
        three_loops,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        s,
    );
    let mut y_ref = [0.0; 4];
    assert_eq!(v, three_loops(&x, &mut y_ref));
    assert_eq!(y, y_ref);
    assert_eq!(y_bar, [0.0; 4], "output adjoint not consumed");
    let got: Vec<f64> = (0..4).map(|k| x_bar[k] - prefill[k]).collect();
    assert_all_close("x_bar - prefill", &got, &fd, 1e-6);

    // Forward mode with the output's tangent buffer full of garbage: it must be overwritten.
    for i in 0..4 {
        let mut e = [0.0; 4];
        e[i] = 1.0;
        let mut y = [0.0; 4];
        let mut dy = [f64::NAN, 1e300, -7.0, 3.0];
        let (_, d) = ad::jvp(three_loops, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        let dobj = s * d + (0..4).map(|k| w[k] * dy[k]).sum::<f64>();
        assert!(
            close(dobj, fd[i], 1e-6),
            "forward {i}: {dobj} vs {} (dy {dy:?})",
            fd[i]
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 3. A callee that accumulates into an output (`+=`), called twice; the caller reads after.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn accum(x: &[f64], y: &mut [f64]) {
    for i in 0..x.len() {
        y[i] += x[i] * x[i];
    }
}

#[differentiable]
fn accum_twice(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i];
    }
    accum(x, y);
    accum(x, y);
    let mut t = 0.0;
    for i in 0..y.len() {
        t += y[i].sin();
    }
    t
}

#[test]
fn callee_accumulating_into_an_output() {
    let x = [0.3, -0.5, 0.9];
    let w = [0.2, 0.0, -1.0];
    let objective = |z: &[f64]| {
        let mut y = [0.0; 3];
        let t = accum_twice(z, &mut y);
        t + (0..3).map(|k| w[k] * y[k]).sum::<f64>()
    };
    let fd = fd_grad(&objective, &x);
    let mut y = [0.0; 3];
    let (mut x_bar, mut y_bar) = ([0.0; 3], w);
    ad::vjp_into(
        accum_twice,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        1.0,
    );
    assert_all_close("reverse", &x_bar, &fd, 1e-6);
    assert_eq!(y_bar, [0.0; 3]);
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let mut y = [0.0; 3];
        let mut dy = [99.0; 3];
        let (_, d) = ad::jvp(accum_twice, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        let dobj = d + (0..3).map(|k| w[k] * dy[k]).sum::<f64>();
        assert!(close(dobj, fd[i], 1e-6), "forward {i}: {dobj} vs {}", fd[i]);
    }
}

// The callee alone through vjp_into: `+=` keeps the old value's adjoint (not consumed).
#[test]
fn accumulating_callee_alone_passes_adjoint_through() {
    let x = [0.3, -0.5];
    let mut y = [1.0, 2.0];
    let (mut x_bar, mut y_bar) = ([0.0; 2], [1.0, 1.0]);
    ad::vjp_into(
        accum,
        (&x[..], &mut y[..]),
        (&mut x_bar[..], &mut y_bar[..]),
        ad::NoTangent,
    );
    assert_eq!(y, [1.09, 2.25]);
    assert_all_close("x_bar", &x_bar, &[0.6, -1.0], 1e-15);
    // y_new = y_old + x^2: the adjoint of the old contents is the incoming one. Under the
    // documented convention the buffer then holds the adjoint of the input contents.
    assert_eq!(y_bar, [1.0, 1.0], "adjoint of the initial contents");
}

// ---------------------------------------------------------------------------------------------
// 4. The same input slice passed twice to a generated callee.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn wdot(v: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += w[i] * v[i] * v[i];
    }
    s
}

#[differentiable]
fn self_wdot(p: &[f64]) -> f64 {
    wdot(p, p) + p[0]
}

#[test]
fn same_slice_twice_to_generated_callee() {
    let p = [0.4, -1.3, 0.8];
    // sum p^3 + p0: 3 p^2 + [1,0,0]
    let want = [3.0 * 0.16 + 1.0, 3.0 * 1.69, 3.0 * 0.64];
    let (gp,) = ad::grad(self_wdot, (&p[..],));
    assert_all_close("reverse", &gp, &want, 1e-12);
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (_, d) = ad::jvp(self_wdot, (&p[..],), (&e[..],));
        assert!(close(d, want[i], 1e-12), "forward {i}: {d}");
    }
}

// ---------------------------------------------------------------------------------------------
// 5. A slice parameter passed to a callee inside a loop, the callee indexing it.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn pair(v: &[f64], i: usize) -> f64 {
    v[i] * v[(i + 1) % v.len()]
}

#[differentiable]
fn ring(v: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += (pair(v, i) * c).sin() + v[i];
    }
    s
}

#[test]
fn slice_to_callee_in_a_loop() {
    let v = [0.3, -0.8, 1.1, 0.5];
    let c = 0.7;
    let f = |z: &[f64]| ring(&z[..4], z[4]);
    let z = [0.3, -0.8, 1.1, 0.5, 0.7];
    let fd = fd_grad(&f, &z);
    let (gv, gc) = ad::grad(ring, (&v[..], c));
    assert_all_close("gv", &gv, &fd[..4], 1e-6);
    assert!(close(gc, fd[4], 1e-6));
    for i in 0..4 {
        let mut e = [0.0; 4];
        e[i] = 1.0;
        let (_, d) = ad::jvp(ring, (&v[..], c), (&e[..], 0.0));
        assert!(close(d, fd[i], 1e-6), "forward {i}: {d} vs {}", fd[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 6. A returned tuple together with `&mut` outputs, and f32 outputs.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn tuple_and_output(x: &[f64], a: f64, y: &mut [f64]) -> (f64, f64) {
    let mut s = 0.0;
    for i in 0..x.len() {
        y[i] = a * x[i];
        s += y[i] * y[i];
    }
    (s, a * s)
}

#[test]
fn tuple_result_and_outputs() {
    let x = [0.2, -0.4];
    let a = 1.5;
    let (wb0, wb1) = (0.7, -0.3);
    let w = [2.0, -1.0];
    let obj = |z: &[f64]| {
        let mut y = [0.0; 2];
        let (s, t) = tuple_and_output(&z[..2], z[2], &mut y);
        wb0 * s + wb1 * t + w[0] * y[0] + w[1] * y[1]
    };
    let z = [0.2, -0.4, 1.5];
    let fd = fd_grad(&obj, &z);
    let mut y = [0.0; 2];
    let (mut xb, mut yb) = ([0.0; 2], w);
    let (_, (_, ab, _)) = ad::vjp_into(
        tuple_and_output,
        (&x[..], a, &mut y[..]),
        (&mut xb[..], (), &mut yb[..]),
        (wb0, wb1),
    );
    assert_all_close("xb", &xb, &fd[..2], 1e-6);
    assert!(close(ab, fd[2], 1e-6), "{ab} vs {}", fd[2]);
}

#[differentiable]
fn scale32(x: &[f32], k: f32, y: &mut [f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() {
        y[i] = k * x[i] * x[i];
        s += y[i];
    }
    s
}

#[test]
fn f32_outputs() {
    let x = [0.5f32, -1.5];
    let k = 2.0f32;
    let mut y = [0.0f32; 2];
    let (mut xb, mut yb) = ([0.0f32; 2], [1.0f32, 0.5]);
    let (v, (_, kb, _)) = ad::vjp_into(
        scale32,
        (&x[..], k, &mut y[..]),
        (&mut xb[..], (), &mut yb[..]),
        1.0f32,
    );
    assert_eq!(v, 2.0 * 0.25 + 2.0 * 2.25);
    // obj = sum y (1 + w): d/dx_i = 2 k x_i (1 + w_i), d/dk = sum x^2 (1 + w)
    assert!((xb[0] - 2.0 * 2.0 * 0.5 * 2.0).abs() < 1e-5);
    assert!((xb[1] - 2.0 * 2.0 * -1.5 * 1.5).abs() < 1e-5);
    assert!((kb - (0.25 * 2.0 + 2.25 * 1.5)).abs() < 1e-5);
    assert_eq!(yb, [0.0; 2]);
    let mut dy = [5.0f32; 2];
    let (_, d) = ad::jvp(
        scale32,
        (&x[..], k, &mut y[..]),
        (&[0.0f32; 2][..], 1.0, &mut dy[..]),
    );
    assert!((d - 2.5).abs() < 1e-5);
    assert!((dy[0] - 0.25).abs() < 1e-6 && (dy[1] - 2.25).abs() < 1e-6);
}

// ---------------------------------------------------------------------------------------------
// 7. Empty slices.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn empty_ok(x: &[f64], c: f64, y: &mut [f64]) -> f64 {
    let mut s = c * c;
    for i in 0..x.len() {
        y[i] = x[i] * c;
        s += y[i];
    }
    let t: f64 = x.iter().sum();
    s + t + sumsq(x)
}

#[test]
fn empty_slices() {
    let x: [f64; 0] = [];
    let mut y: [f64; 0] = [];
    let (v, (gx, gc, gy)) = ad::value_and_grad(empty_ok, (&x[..], 3.0, &mut y[..]));
    assert_eq!(v, 9.0);
    assert!(gx.is_empty() && gy.is_empty());
    assert_eq!(gc, 6.0);
    let mut dy: [f64; 0] = [];
    let (_, d) = ad::jvp(
        empty_ok,
        (&x[..], 3.0, &mut y[..]),
        (&x[..], 1.0, &mut dy[..]),
    );
    assert_eq!(d, 6.0);
}

// ---------------------------------------------------------------------------------------------
// 8. A `Vec` local built and passed by value to a callee inside a loop.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn vnorm(v: Vec<f64>, k: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * k;
    }
    s
}

#[differentiable]
fn vec_in_loop(x: f64, y: f64) -> f64 {
    let mut t = 0.0;
    for i in 0..4 {
        let fi = i as f64;
        let v = vec![x * fi, y + fi, x * y];
        t += vnorm(v, fi + x).sqrt();
    }
    t
}

#[test]
fn vec_local_passed_by_value_in_a_loop() {
    let f = |z: &[f64]| vec_in_loop(z[0], z[1]);
    let z = [0.7, -0.4];
    let fd = fd_grad(&f, &z);
    let (gx, gy) = ad::grad(vec_in_loop, (z[0], z[1]));
    assert_all_close("reverse", &[gx, gy], &fd, 1e-6);
    let (_, d) = ad::jvp(vec_in_loop, (z[0], z[1]), (1.0, 0.0));
    assert!(close(d, fd[0], 1e-6));
}

/// A `Vec` local mutated between calls that take a copy each.
#[differentiable]
fn vec_mutated_between_calls(x: Vec<f64>) -> f64 {
    let mut t = 0.0;
    for k in 0..3 {
        let mut v = vec![0.0; x.len()];
        for i in 0..x.len() {
            v[i] = x[i] * (k as f64 + 1.0);
        }
        v[0] = v[0] * v[1];
        t += vnorm(v, 1.0);
    }
    t
}

#[test]
fn vec_mutated_between_calls_matches_fd() {
    let x = vec![0.3, -0.9, 0.5];
    let f = |z: &[f64]| vec_mutated_between_calls(z.to_vec());
    let fd = fd_grad(&f, &x);
    let (g,) = ad::grad(vec_mutated_between_calls, (x.clone(),));
    assert_all_close("reverse", &g, &fd, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// 9. `iter().sum()` over a `&mut` output, after writes and before overwrites.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn sum_of_output(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    let s: f64 = y.iter().sum();
    for i in 0..x.len() {
        y[i] = s * x[i];
    }
    let t: f64 = y.iter().sum();
    s * t
}

#[test]
fn sum_over_an_output() {
    let x = [0.5, -0.25, 1.5];
    let w = [0.3, 0.1, -0.2];
    let obj = |z: &[f64]| {
        let mut y = [0.0; 3];
        let r = sum_of_output(z, &mut y);
        r + (0..3).map(|k| w[k] * y[k]).sum::<f64>()
    };
    let fd = fd_grad(&obj, &x);
    let mut y = [0.0; 3];
    let (mut xb, mut yb) = ([0.0; 3], w);
    ad::vjp_into(
        sum_of_output,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    assert_all_close("reverse", &xb, &fd, 1e-6);
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (mut y, mut dy) = ([0.0; 3], [-3.0; 3]);
        let (_, d) = ad::jvp(sum_of_output, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        let dobj = d + (0..3).map(|k| w[k] * dy[k]).sum::<f64>();
        assert!(close(dobj, fd[i], 1e-6), "forward {i}: {dobj} vs {}", fd[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 10. Run-time reverse rule of a slice function, called from a generated caller; the entry
//     point cache with rules registered after a first gradient.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn cube_sum(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * a[i] * a[i];
    }
    s
}

#[differentiable]
fn uses_cube_sum(p: &[f64], k: f64) -> f64 {
    k * cube_sum(p) + p[1]
}

#[test]
fn runtime_reverse_rule_on_a_slice_function() {
    let p = [0.5, -1.0, 2.0];
    let exact: Vec<f64> = p.iter().map(|x| 3.0 * x * x).collect();
    // Before any rule: the generated derivative.
    let (g0,) = ad::grad(cube_sum, (&p[..],));
    assert_all_close("generated", &g0, &exact, 1e-12);
    let (gp0, gk0) = ad::grad(uses_cube_sum, (&p[..], 2.0));
    assert!(close(gk0, 0.125 - 1.0 + 8.0, 1e-12));
    assert_all_close("caller generated", &gp0, &[1.5, 7.0, 24.0], 1e-12);

    // A deliberately wrong rule (10 a_i) so that its use is visible.
    let guard = ad::rules::register_reverse(
        cube_sum,
        |a: ad::Dup<f64>, _v: f64, bar: f64| -> ad::NoTangent {
            for i in 0..a.value.len() {
                a.adjoint[i] += 10.0 * a.value[i] * bar;
            }
            ad::NoTangent
        },
    );
    let (g1,) = ad::grad(cube_sum, (&p[..],));
    assert_all_close(
        "entry point after registering",
        &g1,
        &[5.0, -10.0, 20.0],
        1e-12,
    );
    let (gp1, _) = ad::grad(uses_cube_sum, (&p[..], 2.0));
    assert_all_close(
        "caller after registering",
        &gp1,
        &[10.0, -20.0 + 1.0, 40.0],
        1e-12,
    );
    // Forward mode would convert the run-time reverse rule (it comes before the generated
    // derivative), which cannot be done for slices: an error says so, not a silent mix.
    let r = ad::try_jvp(cube_sum, (&p[..],), (&[1.0, 0.0, 0.0][..],));
    assert!(
        matches!(r, Err(ad::Error::NotConvertible { .. })),
        "jvp of cube_sum with a run-time reverse rule: {r:?}"
    );
    drop(guard);
    let (g2,) = ad::grad(cube_sum, (&p[..],));
    assert_all_close("entry point after drop", &g2, &exact, 1e-12);
    let (gp2, _) = ad::grad(uses_cube_sum, (&p[..], 2.0));
    assert_all_close("caller after drop", &gp2, &[1.5, 7.0, 24.0], 1e-12);
}

/// A reverse rule that reads the argument's values: used by a caller that overwrites the
/// output it lent before the reverse sweep.
#[differentiable]
fn quad_sum(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * a[i];
    }
    s
}

#[differentiable]
fn lends_then_overwrites(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] + 1.0;
    }
    let q = quad_sum(y);
    for i in 0..x.len() {
        y[i] = 0.0;
    }
    q
}

#[test]
fn runtime_rule_sees_values_of_lent_output() {
    let x = [0.5, -2.0];
    let guard = ad::rules::register_reverse(
        quad_sum,
        |a: ad::Dup<f64>, _v: f64, bar: f64| -> ad::NoTangent {
            for i in 0..a.value.len() {
                a.adjoint[i] += 2.0 * a.value[i] * bar;
            }
            ad::NoTangent
        },
    );
    let mut y = [0.0; 2];
    let (mut xb, mut yb) = ([0.0; 2], [0.0; 2]);
    ad::vjp_into(
        lends_then_overwrites,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    drop(guard);
    // d/dx sum (x+1)^2 = 2 (x + 1)
    assert_all_close("x_bar", &xb, &[3.0, -2.0], 1e-12);
}

// ---------------------------------------------------------------------------------------------
// 11. A generated caller of a slice function that has only a forward rule.
// ---------------------------------------------------------------------------------------------

fn first_only(a: &[f64]) -> f64 {
    a[0] * 2.0
}

#[ad::custom_rule(forward, of = first_only)]
fn first_only_jvp(a: &[f64], da: &[f64]) -> (f64, f64) {
    (a[0] * 2.0, 2.0 * da[0])
}

#[differentiable]
fn calls_first_only(p: &[f64], k: f64) -> f64 {
    k * first_only(p)
}

#[test]
fn gradient_through_forward_only_slice_rule_is_an_error() {
    let p = [1.5, 2.0];
    let r = ad::try_value_and_grad(calls_first_only, (&p[..], 3.0));
    match r {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains("first_only"), "{msg}");
        }
        Ok((v, g)) => panic!("expected an error, got {v} and {g:?}"),
    }
    // And the forward mode works.
    let (_, d) = ad::jvp(calls_first_only, (&p[..], 3.0), (&[1.0, 0.0][..], 0.0));
    assert_eq!(d, 6.0);
}

// ---------------------------------------------------------------------------------------------
// 12. A callee that writes its output only partially, and a caller that lends a sub-written
//     output to a callee writing it with `=`.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn write_first(x: &[f64], y: &mut [f64]) {
    y[0] = x[0] * x[1];
}

#[differentiable]
fn partial_writes(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] = x[i].exp();
    }
    write_first(x, y);
    let mut t = 0.0;
    for i in 0..y.len() {
        t += y[i] * y[i];
    }
    t
}

#[test]
fn callee_overwrites_part_of_an_output() {
    let x = [0.3, -0.2, 0.6];
    let w = [1.0, -2.0, 0.5];
    let obj = |z: &[f64]| {
        let mut y = [0.0; 3];
        let r = partial_writes(z, &mut y);
        r + (0..3).map(|k| w[k] * y[k]).sum::<f64>()
    };
    let fd = fd_grad(&obj, &x);
    let mut y = [0.0; 3];
    let (mut xb, mut yb) = ([0.0; 3], w);
    ad::vjp_into(
        partial_writes,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    assert_all_close("reverse", &xb, &fd, 1e-6);
    assert_eq!(yb, [0.0; 3]);
    for i in 0..3 {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (mut y, mut dy) = ([0.0; 3], [7.0; 3]);
        let (_, d) = ad::jvp(partial_writes, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        let dobj = d + (0..3).map(|k| w[k] * dy[k]).sum::<f64>();
        assert!(close(dobj, fd[i], 1e-6), "forward {i}: {dobj} vs {}", fd[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 13. Entry point cache across threads-local calls: a rule registered between two gradients of
//     the same function at the entry point, for a scalar function.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn cached_sq(x: f64) -> f64 {
    x * x
}

#[test]
fn entry_point_cache_follows_registrations() {
    for _ in 0..3 {
        assert_eq!(ad::grad(cached_sq, (3.0,)).0, 6.0);
        let g = ad::rules::register_reverse(cached_sq, |_x: f64, _v: f64, b: f64| 100.0 * b);
        assert_eq!(ad::grad(cached_sq, (3.0,)).0, 100.0);
        // The reverse rule is converted for forward mode too (documented order).
        assert_eq!(ad::jvp(cached_sq, (3.0,), (1.0,)).1, 100.0);
        let g2 = ad::rules::register_reverse(cached_sq, |_x: f64, _v: f64, b: f64| 7.0 * b);
        assert_eq!(ad::grad(cached_sq, (3.0,)).0, 7.0);
        // Dropping the older guard first: what does the newest rule become?
        drop(g);
        assert_eq!(
            ad::grad(cached_sq, (3.0,)).0,
            7.0,
            "dropping an older guard"
        );
        drop(g2);
        assert_eq!(ad::grad(cached_sq, (3.0,)).0, 6.0, "after dropping both");
    }
}

// ---------------------------------------------------------------------------------------------
// 14. More on outputs lent to readers: an accumulator element read by a callee each iteration.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn running(x: &[f64], y: &mut [f64]) -> f64 {
    y[0] = 0.0;
    let mut t = 0.0;
    for i in 0..x.len() {
        y[0] = y[0] + x[i];
        t += quad_sum2(y);
    }
    t
}

#[differentiable]
fn quad_sum2(a: &[f64]) -> f64 {
    a[0] * a[0]
}

#[test]
fn output_lent_to_a_reader_each_iteration() {
    // t = sum_i (x_0 + .. + x_i)^2
    let x = [0.5, -0.25, 1.0];
    let obj = |z: &[f64]| {
        let mut y = [0.0; 1];
        running(z, &mut y)
    };
    let fd = fd_grad(&obj, &x);
    let mut y = [0.0; 1];
    let (mut xb, mut yb) = ([0.0; 3], [0.0; 1]);
    ad::vjp_into(
        running,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    assert_all_close("reverse", &xb, &fd, 1e-6);
}

// ---------------------------------------------------------------------------------------------
// 15. `rules::check` and `try_*` on a caller of a forward-only slice function.
// ---------------------------------------------------------------------------------------------

#[test]
fn check_reports_unconvertible_slice_callee() {
    let problems = ad::rules::check();
    let text = format!("{problems:?}");
    assert!(
        text.contains("first_only"),
        "rules::check() does not mention the forward-only slice callee: {text}"
    );
}

#[test]
fn try_vjp_of_a_caller_of_a_forward_only_slice_function() {
    let p = [1.5, 2.0];
    let r = std::panic::catch_unwind(|| ad::try_vjp(calls_first_only, (&p[..], 3.0)).is_err());
    assert!(
        matches!(r, Ok(true)),
        "try_vjp panicked or succeeded: {:?}",
        r.is_ok()
    );
}

// ---------------------------------------------------------------------------------------------
// 16. An accumulating callee in a loop; a `&mut` lent as `&mut` inside a loop.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn accum_loop(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..y.len() {
        y[i] = x[i] * x[i];
    }
    let mut t = 0.0;
    for k in 0..3 {
        accum(x, y);
        t += y[k % 2] * (k as f64 + 1.0);
    }
    t
}

#[test]
fn accumulating_callee_in_a_loop() {
    let x = [0.7, -0.3];
    let w = [0.4, -0.9];
    let obj = |z: &[f64]| {
        let mut y = [0.0; 2];
        let t = accum_loop(z, &mut y);
        t + w[0] * y[0] + w[1] * y[1]
    };
    let fd = fd_grad(&obj, &x);
    let mut y = [0.0; 2];
    let (mut xb, mut yb) = ([1.0; 2], w);
    ad::vjp_into(
        accum_loop,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    let got = [xb[0] - 1.0, xb[1] - 1.0];
    assert_all_close("reverse", &got, &fd, 1e-6);
    assert_eq!(yb, [0.0; 2]);
    for i in 0..2 {
        let mut e = [0.0; 2];
        e[i] = 1.0;
        let (mut y, mut dy) = ([0.0; 2], [f64::NAN; 2]);
        let (_, d) = ad::jvp(accum_loop, (&x[..], &mut y[..]), (&e[..], &mut dy[..]));
        let dobj = d + w[0] * dy[0] + w[1] * dy[1];
        assert!(close(dobj, fd[i], 1e-6), "forward {i}: {dobj} vs {}", fd[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// 17. An output read before it is written: the adjoint of its initial contents.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn scale_in_place(x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = y[i] * x[i];
    }
}

#[test]
fn output_read_before_written() {
    let x = [2.0, 3.0];
    let mut y = [5.0, 7.0];
    let (mut xb, mut yb) = ([0.0; 2], [1.0, 1.0]);
    ad::vjp_into(
        scale_in_place,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        ad::NoTangent,
    );
    assert_eq!(y, [10.0, 21.0]);
    assert_eq!(xb, [5.0, 7.0]);
    // The buffer is left holding the adjoint of the initial contents (x), not zero.
    assert_eq!(yb, [2.0, 3.0]);
    // Forward mode: the tangent buffer holds the initial contents' tangent and is updated.
    let mut y = [5.0, 7.0];
    let mut dy = [1.0, 0.0];
    ad::jvp(
        scale_in_place,
        (&x[..], &mut y[..]),
        (&[0.0, 1.0][..], &mut dy[..]),
    );
    assert_eq!(dy, [2.0, 7.0]);
}

// ---------------------------------------------------------------------------------------------
// 18. A run-time reverse rule of a two-slice function called with the same slice twice from a
//     generated caller; the entry-point cache with a rule registered by another thread.
// ---------------------------------------------------------------------------------------------

#[differentiable]
fn pdot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn pdot_self(p: &[f64], k: f64) -> f64 {
    k * pdot(p, p)
}

#[test]
fn runtime_rule_with_the_same_slice_twice() {
    let p = [0.5, -2.0, 1.5];
    let (g0, _) = ad::grad(pdot_self, (&p[..], 2.0));
    assert_all_close("generated", &g0, &[2.0, -8.0, 6.0], 1e-12);
    // The true derivative, written as a rule: each argument's adjoint is the other's value.
    let guard = ad::rules::register_reverse(
        pdot,
        |a: ad::Dup<f64>, b: ad::Dup<f64>, _v: f64, bar: f64| -> (ad::NoTangent, ad::NoTangent) {
            for i in 0..a.value.len() {
                a.adjoint[i] += b.value[i] * bar;
                b.adjoint[i] += a.value[i] * bar;
            }
            (ad::NoTangent, ad::NoTangent)
        },
    );
    let (g1, gk) = ad::grad(pdot_self, (&p[..], 2.0));
    drop(guard);
    assert_all_close("rule", &g1, &[2.0, -8.0, 6.0], 1e-12);
    assert!(close(gk, 0.25 + 4.0 + 2.25, 1e-12));
}

#[differentiable]
fn thread_sq(x: f64) -> f64 {
    x * x
}

#[test]
fn entry_point_cache_sees_another_threads_registration() {
    assert_eq!(ad::grad(thread_sq, (2.0,)).0, 4.0);
    let guard = std::thread::spawn(|| {
        ad::rules::register_reverse(thread_sq, |_x: f64, _v: f64, b: f64| 42.0 * b)
    })
    .join()
    .unwrap();
    assert_eq!(ad::grad(thread_sq, (2.0,)).0, 42.0);
    std::thread::spawn(move || drop(guard)).join().unwrap();
    assert_eq!(ad::grad(thread_sq, (2.0,)).0, 4.0);
}

// A `&mut` output lent twice as `&[T]` to one call: lent as `&*y` each time, in both modes.

#[differentiable]
fn wdot2(v: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += w[i] * v[i];
    }
    s
}

#[differentiable]
fn lend_twice(x: &[f64], y: &mut [f64]) -> f64 {
    for i in 0..x.len() {
        y[i] = x[i] * 2.0;
    }
    wdot2(y, y)
}

#[test]
fn output_lent_twice_as_an_input() {
    let x = [0.5, -1.0];
    let mut y = [0.0; 2];
    let (mut xb, mut yb) = ([0.0; 2], [0.0; 2]);
    ad::vjp_into(
        lend_twice,
        (&x[..], &mut y[..]),
        (&mut xb[..], &mut yb[..]),
        1.0,
    );
    assert_eq!(xb, [8.0 * 0.5, -8.0]);
    let (mut y, mut dy) = ([0.0; 2], [0.0; 2]);
    let (_, d) = ad::jvp(
        lend_twice,
        (&x[..], &mut y[..]),
        (&[1.0, 0.0][..], &mut dy[..]),
    );
    assert_eq!(d, 4.0);
}

// Arrays of arrays, indexed through a row bound first.

#[differentiable]
fn nested(a: [[f64; 2]; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let row = a[i];
        for j in 0..2 {
            s += row[j] * row[j] * (j as f64 + 1.0);
        }
    }
    s
}

#[test]
fn arrays_of_arrays() {
    let a = [[0.5, 1.0], [-1.0, 2.0], [0.25, -0.5]];
    let (g,) = ad::grad(nested, (a,));
    for i in 0..3 {
        for j in 0..2 {
            assert_eq!(g[i][j], 2.0 * a[i][j] * (j as f64 + 1.0));
        }
    }
}

/// A nested array written row by row.
#[differentiable]
fn nested_write(x: f64) -> f64 {
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        let mut row = [0.0; 2];
        row[0] = x * (i as f64 + 1.0);
        row[1] = row[0] * row[0];
        m[i] = row;
    }
    let r0 = m[0];
    let r1 = m[1];
    r0[1] + r1[1] + r1[0]
}

#[test]
fn nested_writes() {
    // x^2 + 4 x^2 + 2 x -> 10 x + 2
    let (g,) = ad::grad(nested_write, (1.5,));
    assert_eq!(g, 17.0);
    assert_eq!(ad::jvp(nested_write, (1.5,), (1.0,)).1, 17.0);
}
