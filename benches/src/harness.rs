//! A small timing harness, built for ratios on a shared, noisy machine.
//!
//! All the methods of one problem are timed in the same process and *interleaved*: each round
//! takes one sample of every method in turn (in a rotating order), so a burst of load from
//! another process lands on every method alike and cancels in the ratios. A sample runs a
//! method enough times to last about [`Config::sample`]; the figure of a method is the median
//! time per call over its samples. Everything runs on the calling thread.

use std::time::{Duration, Instant};

/// One method of a problem: a label and a closure that computes its result once (inputs and
/// outputs go through `std::hint::black_box` inside the closure).
pub struct Case<'a> {
    pub label: &'static str,
    pub run: Box<dyn FnMut() + 'a>,
}

impl<'a> Case<'a> {
    pub fn new(label: &'static str, run: impl FnMut() + 'a) -> Self {
        Case {
            label,
            run: Box::new(run),
        }
    }
}

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The length of one sample.
    pub sample: Duration,
    /// Samples per method (fewer for a method whose single call is slow; see `budget`).
    pub samples: usize,
    /// The time a method may take in all; a slow method gets fewer samples, at least 3.
    pub budget: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            sample: Duration::from_millis(4),
            samples: 31,
            budget: Duration::from_secs(4),
        }
    }
}

fn time_calls(run: &mut dyn FnMut(), calls: u64) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        run();
    }
    start.elapsed().as_secs_f64() * 1e9
}

/// The median of some numbers (they are sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    values.sort_by(f64::total_cmp);
    let m = values.len() / 2;
    if values.len() % 2 == 1 {
        values[m]
    } else {
        0.5 * (values[m - 1] + values[m])
    }
}

/// Measures every case; returns the median nanoseconds per call of each, in order.
pub fn measure(cases: &mut [Case<'_>], config: &Config) -> Vec<f64> {
    // Warm up, and find how many calls make a sample.
    let target = config.sample.as_secs_f64() * 1e9;
    let mut plan = Vec::with_capacity(cases.len());
    for case in cases.iter_mut() {
        let mut once = time_calls(&mut case.run, 1);
        once = once.min(time_calls(&mut case.run, 1));
        let mut calls = (target / once.max(1.0)).ceil().max(1.0) as u64;
        if calls > 1 {
            // A second estimate from a real sample: a single call is too short to time.
            let t = time_calls(&mut case.run, calls) / calls as f64;
            calls = (target / t.max(0.1)).ceil().max(1.0) as u64;
        }
        let per_call = once.min(target);
        let affordable = (config.budget.as_secs_f64() * 1e9 / (per_call * calls as f64)) as usize;
        plan.push((calls, config.samples.min(affordable.max(3))));
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    let rounds = plan.iter().map(|p| p.1).max().unwrap_or(0);
    for round in 0..rounds {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let (calls, wanted) = plan[i];
            if samples[i].len() < wanted {
                let t = time_calls(&mut cases[i].run, calls) / calls as f64;
                samples[i].push(t);
            }
        }
    }
    samples.iter_mut().map(|s| median(s)).collect()
}

/// Runs one case for about `seconds`, for a profiler.
pub fn spin(case: &mut Case<'_>, seconds: f64) {
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..16 {
            (case.run)();
        }
    }
}

/// Nanoseconds, printed with a unit.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}
