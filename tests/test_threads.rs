//! Rules registered and dropped by one thread while others compute derivatives: every answer is
//! one of the two valid ones, nothing panics, nothing deadlocks, and a rule that a thread is
//! running stays alive after another thread drops its guard.

use ad::differentiable;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

/// f(x) = x^3, f'(x) = 3x^2.
#[differentiable]
fn f(x: f64) -> f64 {
    x * x * x
}

/// g(x) = f(x) + x, g'(x) = f'(x) + 1.
#[differentiable]
fn g(x: f64) -> f64 {
    f(x) + x
}

const WORKERS: usize = 4;
const CALLS_PER_WORKER: usize = 20_000;

#[test]
fn derivatives_stay_valid_while_rules_come_and_go() {
    let x = 1.25_f64;
    let generated = 3.0 * x * x + 1.0; // g' with f's generated derivative
    let replaced = 100.0 + 1.0; // g' with the run-time rule f' := 100
    let done = Arc::new(AtomicBool::new(false));
    let seen_replaced = Arc::new(AtomicUsize::new(0));
    let seen_generated = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(WORKERS + 1));

    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (start, seen_r, seen_g) =
                (start.clone(), seen_replaced.clone(), seen_generated.clone());
            thread::spawn(move || {
                start.wait();
                for _ in 0..CALLS_PER_WORKER {
                    let (y, dy) = ad::jvp(g, (x,), (1.0,));
                    assert_eq!(y, x * x * x + x);
                    if dy == replaced {
                        seen_r.fetch_add(1, Ordering::Relaxed);
                    } else {
                        assert_eq!(dy, generated, "neither valid derivative");
                        seen_g.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();

    let registrar = {
        let (start, done) = (start.clone(), done.clone());
        thread::spawn(move || {
            start.wait();
            let mut rounds = 0_u32;
            while !done.load(Ordering::Relaxed) {
                let guard =
                    ad::rules::register_forward(f, |x: f64, dx: f64| (x * x * x, 100.0 * dx));
                thread::yield_now();
                drop(guard);
                thread::yield_now();
                rounds += 1;
            }
            rounds
        })
    };

    for w in workers {
        w.join().expect("a worker panicked");
    }
    done.store(true, Ordering::Relaxed);
    let rounds = registrar.join().expect("the registering thread panicked");
    assert!(rounds > 0);
    assert_eq!(
        seen_replaced.load(Ordering::Relaxed) + seen_generated.load(Ordering::Relaxed),
        WORKERS * CALLS_PER_WORKER
    );
    // Every guard is dropped: the generated derivative is back for everyone.
    assert_eq!(ad::jvp(g, (x,), (1.0,)).1, generated);
}

/// h(x) = slow(x) + 0, where `slow` has only run-time rules.
fn slow(x: f64) -> f64 {
    x
}

#[differentiable]
fn h(x: f64) -> f64 {
    slow(x) + 0.0
}

#[test]
fn a_running_rule_outlives_its_guard() {
    // The rule blocks until the main thread has dropped its guard, then still runs to the end
    // with the state it captured: the closure must not have been freed under it.
    let entered = Arc::new(Barrier::new(2));
    let dropped = Arc::new(Barrier::new(2));
    let payload = Arc::new(vec![2.0_f64; 1024]);
    let guard = {
        let (entered, dropped, payload) = (entered.clone(), dropped.clone(), payload.clone());
        ad::rules::register_forward(slow, move |x: f64, dx: f64| {
            entered.wait();
            dropped.wait();
            (x, payload.iter().sum::<f64>() * dx)
        })
    };
    let worker = thread::spawn(|| ad::jvp(h, (3.0,), (1.0,)));
    entered.wait();
    drop(guard);
    dropped.wait();
    assert_eq!(worker.join().expect("the worker panicked"), (3.0, 2048.0));
    // With the guard gone, `slow` has no derivative any more.
    assert!(ad::try_jvp(h, (3.0,), (1.0,)).is_err());
}

/// p(x) = q(x) + x with q(x) = x^2, for the reverse-mode variant.
#[differentiable]
fn q(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn p(x: f64) -> f64 {
    q(x) + x
}

#[test]
fn gradients_stay_valid_while_reverse_rules_come_and_go() {
    let x = 0.75_f64;
    let generated = 2.0 * x + 1.0;
    let replaced = -4.0 + 1.0; // q' := -4
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(WORKERS + 1));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let start = start.clone();
            thread::spawn(move || {
                start.wait();
                for _ in 0..CALLS_PER_WORKER / 4 {
                    let (y, (d,)) = ad::value_and_grad(p, (x,));
                    assert_eq!(y, x * x + x);
                    assert!(
                        d == generated || d == replaced,
                        "neither valid gradient: {d}"
                    );
                }
            })
        })
        .collect();
    let registrar = {
        let (start, done) = (start.clone(), done.clone());
        thread::spawn(move || {
            start.wait();
            while !done.load(Ordering::Relaxed) {
                let guard = ad::rules::register_reverse(q, |_x: f64, _y: f64, bar: f64| -4.0 * bar);
                thread::yield_now();
                drop(guard);
                thread::yield_now();
            }
        })
    };
    for w in workers {
        w.join().expect("a worker panicked");
    }
    done.store(true, Ordering::Relaxed);
    registrar.join().expect("the registering thread panicked");
    assert_eq!(ad::grad(p, (x,)).0, generated);
}
