//! The entry points' per-thread cache inside a running entry point: a run-time rule that calls
//! entry points in a loop, or registers and drops rules, must not make the cache keep what it
//! lets go of (live heap bytes are counted by a global allocator; the tests of this file run one
//! after the other through a lock, and each measures only inside its own rule), and a stale
//! rule's closure, with the guards it owns, goes at the thread's next resolution as it does
//! outside an entry point.

use ad::differentiable;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

macro_rules! many {
    ($($name:ident)*) => {
        $(
            #[differentiable]
            fn $name(x: f64) -> f64 {
                x * x
            }
        )*
        /// One jvp of each: 70 functions, more than the 64 resolutions a thread keeps, so that
        /// a round robin misses every time.
        fn round(x: f64) -> f64 {
            let mut s = 0.0;
            $( s += ad::jvp($name, (x,), (1.0,)).1; )*
            s
        }
    };
}

many! {
    a00 a01 a02 a03 a04 a05 a06 a07 a08 a09 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19
    a20 a21 a22 a23 a24 a25 a26 a27 a28 a29 a30 a31 a32 a33 a34 a35 a36 a37 a38 a39
    a40 a41 a42 a43 a44 a45 a46 a47 a48 a49 a50 a51 a52 a53 a54 a55 a56 a57 a58 a59
    a60 a61 a62 a63 a64 a65 a66 a67 a68 a69
}

#[differentiable]
fn outer(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn inner(x: f64) -> f64 {
    x.sin()
}

/// The same loop outside any entry point: live memory stays flat.
#[test]
fn round_robin_outside_an_entry_point_is_flat() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for _ in 0..20 {
        round(0.5);
    }
    let before = LIVE.load(Ordering::Relaxed);
    for _ in 0..2000 {
        round(0.5);
    }
    let after = LIVE.load(Ordering::Relaxed);
    assert!(
        after - before < 64 * 1024,
        "grew by {} bytes",
        after - before
    );
}

/// Nothing grows inside a rule, and nothing is left once the entry point returns.
#[test]
fn growth_inside_a_rule_is_freed_when_it_returns() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    static INSIDE: AtomicIsize = AtomicIsize::new(0);
    let guard = ad::rules::register_forward(outer, |x: f64, dx: f64| {
        let before = LIVE.load(Ordering::Relaxed);
        for _ in 0..1000 {
            round(0.5);
        }
        INSIDE.store(LIVE.load(Ordering::Relaxed) - before, Ordering::Relaxed);
        (x * x, 2.0 * x * dx)
    });
    round(0.5);
    let _ = ad::jvp(outer, (1.5,), (1.0,));
    let before = LIVE.load(Ordering::Relaxed);
    let _ = ad::jvp(outer, (1.5,), (1.0,));
    let after = LIVE.load(Ordering::Relaxed);
    let inside = INSIDE.load(Ordering::Relaxed);
    assert!(inside < 64 * 1024, "grew by {inside} bytes inside the rule");
    assert!(after - before < 64 * 1024);
    drop(guard);
}

/// A run-time rule that calls entry points of many functions in a loop.
#[test]
fn round_robin_inside_a_rule_stays_flat() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let guard = ad::rules::register_forward(outer, |x: f64, dx: f64| {
        for _ in 0..20 {
            round(0.5);
        }
        let before = LIVE.load(Ordering::Relaxed);
        for _ in 0..2000 {
            round(0.5);
        }
        let after = LIVE.load(Ordering::Relaxed);
        assert!(
            after - before < 64 * 1024,
            "live heap grew by {} bytes over 2000 rounds inside one entry point",
            after - before
        );
        (x * x, 2.0 * x * dx)
    });
    let (_, d) = ad::jvp(outer, (1.5,), (1.0,));
    assert!((d - 3.0).abs() < 1e-12);
    drop(guard);
}

/// A run-time rule that, in a loop, registers a rule for another function, calls it through an
/// entry point and drops the guard: each stale closure, with what it captured, should go.
#[test]
fn registrations_in_a_loop_inside_a_rule_stay_flat() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let guard = ad::rules::register_forward(outer, |x: f64, dx: f64| {
        let step = || {
            let payload = vec![1.0_f64; 1024];
            let g = ad::rules::register_forward(inner, move |x: f64, dx: f64| {
                (x.sin(), payload[1023] * x.cos() * dx)
            });
            let (_, d) = ad::jvp(inner, (0.5,), (1.0,));
            assert!((d - 0.5_f64.cos()).abs() < 1e-12);
            drop(g);
        };
        for _ in 0..20 {
            step();
        }
        let before = LIVE.load(Ordering::Relaxed);
        for _ in 0..500 {
            step();
        }
        let after = LIVE.load(Ordering::Relaxed);
        assert!(
            after - before < 256 * 1024,
            "live heap grew by {} bytes over 500 register/jvp/drop rounds inside one entry point",
            after - before
        );
        (x * x, 2.0 * x * dx)
    });
    let (_, d) = ad::jvp(outer, (1.5,), (1.0,));
    assert!((d - 3.0).abs() < 1e-12);
    drop(guard);
}

#[differentiable]
fn own_f(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn own_h(x: f64) -> f64 {
    x * x * x
}

#[differentiable]
fn own_outer(x: f64) -> f64 {
    x
}

/// `own_f`'s run-time rule owns the guard of `own_h`'s; once `own_f`'s guard is dropped, the
/// thread's next resolution lets go of the stale closure, which drops `own_h`'s guard, so
/// `own_h` is back to its generated derivative (3 x^2, not the rule's 100).
fn owned_guard_scenario() {
    let x = 0.5;
    let inner = ad::rules::register_forward(own_h, |x: f64, dx: f64| (x * x * x, 100.0 * dx));
    let g1 = ad::rules::register_forward(own_f, move |x: f64, dx: f64| {
        let _keep = &inner;
        (x * x, 2.0 * x * dx)
    });
    let _ = ad::jvp(own_f, (x,), (1.0,));
    assert_eq!(ad::jvp(own_h, (x,), (1.0,)).1, 100.0);
    drop(g1);
    let _ = ad::jvp(own_f, (x,), (1.0,));
    let d = ad::jvp(own_h, (x,), (1.0,)).1;
    let h = 1e-6;
    let oracle = (own_h(x + h) - own_h(x - h)) / (2.0 * h);
    // Central differences of a cubic: error h^2 = 1e-12 plus rounding ~1e-10.
    assert!(
        (d - oracle).abs() < 1e-8,
        "own_h still uses the rule whose guard belonged to a dropped rule: {d}"
    );
}

#[test]
fn an_owned_guard_goes_with_its_rule_outside_an_entry_point() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    owned_guard_scenario();
}

#[test]
fn an_owned_guard_goes_with_its_rule_inside_an_entry_point() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let guard = ad::rules::register_forward(own_outer, |x: f64, dx: f64| {
        owned_guard_scenario();
        (x, dx)
    });
    let (_, d) = ad::jvp(own_outer, (1.0,), (1.0,));
    drop(guard);
    assert_eq!(d, 1.0);
}
