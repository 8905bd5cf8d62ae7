//! The benchmark suite: every problem with every method, timed in one process, printed as the
//! Markdown tables of `docs/PERFORMANCE.md`.
//!
//! ```text
//! cargo bench --manifest-path benches/Cargo.toml --bench suite             # everything
//! cargo bench --manifest-path benches/Cargo.toml --bench suite -- --quick  # a fast look
//! cargo bench --manifest-path benches/Cargo.toml --bench suite -- --section dispatch
//! cargo bench --manifest-path benches/Cargo.toml --bench suite -- --profile gmm-d10-k25 ad-grad 20
//! ```
//!
//! Options: `--runs N` (passes over all problems, default 3; the tables give the median over
//! the passes and the min-max spread), `--quick` (short samples, one pass), `--section NAME`
//! (`main`, `scaling`, `dispatch`, `generic`; may repeat), `--only KEY` (one problem of the main section),
//! `--profile KEY METHOD SECONDS` (run one method in a loop, for `perf record`).

use ad_benches::harness::{Case, Config, fmt_ns, measure, median, spin};
use ad_benches::problems::dispatch::{
    chain_calls, chain_calls4, chain_inline, chain_inline4, square,
};
use ad_benches::suite::{
    Ba, GmmProblem, Method, MlpProblem, MlpStructProblem, Problem, Rk4, Rosenbrock,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

struct Options {
    runs: usize,
    config: Config,
    sections: Vec<String>,
    only: Option<String>,
    profile: Option<(String, String, f64)>,
}

fn options() -> Options {
    let mut o = Options {
        runs: 3,
        config: Config::default(),
        sections: Vec::new(),
        only: None,
        profile: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--runs" => {
                i += 1;
                o.runs = args[i].parse().expect("--runs N");
            }
            "--quick" => {
                o.runs = 1;
                o.config = Config {
                    sample: Duration::from_millis(2),
                    samples: 7,
                    budget: Duration::from_secs(1),
                };
            }
            "--section" => {
                i += 1;
                o.sections.push(args[i].clone());
            }
            "--only" => {
                i += 1;
                o.only = Some(args[i].clone());
            }
            "--profile" => {
                let seconds = args[i + 3].parse().expect("--profile KEY METHOD SECONDS");
                o.profile = Some((args[i + 1].clone(), args[i + 2].clone(), seconds));
                i += 3;
            }
            // `cargo bench` passes `--bench`; filters are not used.
            _ => {}
        }
        i += 1;
    }
    if o.sections.is_empty() {
        o.sections = vec![
            "main".into(),
            "scaling".into(),
            "dispatch".into(),
            "generic".into(),
        ];
    }
    o
}

fn main_problems() -> Vec<Box<dyn Problem>> {
    vec![
        Box::new(Rosenbrock::new(1000, true, true)),
        Box::new(GmmProblem::new(2, 5, 1000, true)),
        Box::new(GmmProblem::new(10, 25, 1000, true)),
        Box::new(Ba::new(64)),
        Box::new(MlpProblem::new(8, 32, 4, 64)),
        Box::new(MlpStructProblem::new(8, 32, 4, 64)),
        Box::new(Rk4::new()),
    ]
}

/// Per-call times of a problem's methods, one vector of runs per method.
struct Timed {
    key: String,
    title: String,
    /// Divides every time, for "per observation" figures.
    per: f64,
    methods: Vec<(Method, Vec<f64>)>,
}

impl Timed {
    fn times(&self, m: Method) -> Option<&Vec<f64>> {
        self.methods.iter().find(|(k, _)| *k == m).map(|(_, t)| t)
    }

    /// The ratios to the primal, one per run.
    fn ratios(&self, m: Method) -> Option<Vec<f64>> {
        let primal = self.times(Method::Primal)?;
        let t = self.times(m)?;
        Some(t.iter().zip(primal).map(|(a, b)| a / b).collect())
    }

    fn ratio(&self, m: Method) -> Option<f64> {
        self.ratios(m).map(|mut r| median(&mut r))
    }
}

fn time_problems(problems: &[Box<dyn Problem>], runs: usize, config: &Config) -> Vec<Timed> {
    let mut timed: Vec<Timed> = problems
        .iter()
        .map(|p| {
            eprintln!("check {}: {}", p.key(), p.check());
            Timed {
                key: p.key(),
                title: p.title(),
                per: if p.key() == "ba" { 64.0 } else { 1.0 },
                methods: Vec::new(),
            }
        })
        .collect();
    for run in 0..runs {
        for (p, t) in problems.iter().zip(timed.iter_mut()) {
            let start = Instant::now();
            let mut cases = p.cases();
            let methods: Vec<Method> = cases.iter().map(|c| c.0).collect();
            let mut plain: Vec<_> = cases.drain(..).map(|c| c.1).collect();
            let times = measure(&mut plain, config);
            for (m, ns) in methods.into_iter().zip(times) {
                match t.methods.iter_mut().find(|(k, _)| *k == m) {
                    Some((_, v)) => v.push(ns / t.per),
                    None => t.methods.push((m, vec![ns / t.per])),
                }
            }
            eprintln!(
                "run {}/{runs}: {} in {:.1} s",
                run + 1,
                t.key,
                start.elapsed().as_secs_f64()
            );
        }
    }
    timed
}

fn spread(ratios: &[f64]) -> String {
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if ratios.len() < 2 {
        "-".into()
    } else {
        format!("{} - {}", fmt_ratio(lo), fmt_ratio(hi))
    }
}

fn fmt_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.2}")
    } else if r < 100.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.0}")
    }
}

fn print_main(timed: &[Timed]) {
    let columns = [
        Method::AdJvp,
        Method::AdGrad,
        Method::Hand,
        Method::NdJvp,
        Method::NdGrad,
        Method::AdTrait,
        Method::FdJvp,
        Method::FdGrad,
    ];
    println!("### Ratios to the primal (median over runs)\n");
    print!("| problem | primal | ");
    println!("{} |", columns.map(Method::key).join(" | "));
    println!("|---|---|{}", "---|".repeat(columns.len()));
    for t in timed {
        let mut primal = t.times(Method::Primal).expect("a primal").clone();
        print!("| {} | {} |", t.key, fmt_ns(median(&mut primal)));
        for m in columns {
            match t.ratio(m) {
                Some(r) => print!(" {} |", fmt_ratio(r)),
                None => print!(" - |"),
            }
        }
        println!();
    }
    println!();
    for t in timed {
        println!("#### {}\n", t.title);
        println!("| method | median time | ratio to primal | spread over runs |");
        println!("|---|---|---|---|");
        for (m, times) in &t.methods {
            let mut ts = times.clone();
            let ratios = t.ratios(*m).expect("a primal");
            println!(
                "| {} (`{}`) | {} | {} | {} |",
                m.describe(),
                m.key(),
                fmt_ns(median(&mut ts)),
                fmt_ratio(t.ratio(*m).expect("a primal")),
                spread(&ratios)
            );
        }
        println!();
    }
}

fn print_targets(timed: &[Timed]) {
    let get = |key: &str| timed.iter().find(|t| t.key == key);
    println!("### Targets (from the main runs)\n");
    println!("| target | measured | met |");
    println!("|---|---|---|");
    let row = |what: String, value: Option<f64>, limit: f64| {
        if let Some(v) = value {
            let verdict = if v <= limit {
                format!("met ({:.0}% under)", 100.0 * (1.0 - v / limit))
            } else {
                format!("not met ({:.2}x the target)", v / limit)
            };
            println!("| {what} <= {limit} | {} | {verdict} |", fmt_ratio(v));
        }
    };
    row(
        "Rosenbrock n=1000 gradient / primal".into(),
        get("rosenbrock-1000").and_then(|t| t.ratio(Method::AdGrad)),
        1.6,
    );
    row(
        "GMM d=10 K=25 gradient / primal".into(),
        get("gmm-d10-k25").and_then(|t| t.ratio(Method::AdGrad)),
        3.0,
    );
    row(
        "BA Jacobian (reverse) / primal, per row".into(),
        get("ba")
            .and_then(|t| t.ratio(Method::AdGrad))
            .map(|r| r / 2.0),
        3.0,
    );
    // The struct form against the same perceptron on slices, in the same run.
    if let Some(t) = get("mlp-struct")
        && let (Some(s), Some(g)) = (t.ratio(Method::AdGradSlices), t.ratio(Method::AdGrad))
    {
        row(
            "struct MLP gradient / slice MLP gradient".into(),
            Some(g / s),
            1.05,
        );
    }
    for t in timed {
        row(
            format!("{} JVP / primal", t.key),
            t.ratio(Method::AdJvp),
            1.5,
        );
    }
    println!();
}

/// Least-squares slope of ln(t) against ln(n).
fn exponent(points: &[(f64, f64)]) -> f64 {
    let k = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (n, t)| (a + n.ln(), b + t.ln()));
    let (mx, my) = (sx / k, sy / k);
    let (mut num, mut den) = (0.0, 0.0);
    for (n, t) in points {
        num += (n.ln() - mx) * (t.ln() - my);
        den += (n.ln() - mx).powi(2);
    }
    num / den
}

fn scaling(runs: usize, config: &Config) {
    println!("### Scaling: Rosenbrock\n");
    let sizes = [100, 1_000, 10_000, 100_000, 1_000_000];
    let problems: Vec<Box<dyn Problem>> = sizes
        .iter()
        .map(|&n| Box::new(Rosenbrock::new(n, false, false)) as Box<dyn Problem>)
        .collect();
    let mut words = Vec::new();
    for &n in &sizes {
        let x = Rosenbrock::new(n, false, false).x;
        black_box(ad::value_and_grad(
            ad_benches::problems::rosenbrock::rosenbrock,
            (&x[..],),
        ));
        words.push(ad::__private::last_tape_high_water());
    }
    let timed = time_problems(&problems, runs, config);
    println!(
        "| n | primal | primal-ad | ad-jvp | ad-grad | hand | ad-grad spread | tape peak (words) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (t, w) in timed.iter().zip(&words) {
        let r = |m| t.ratio(m).map(fmt_ratio).unwrap_or_else(|| "-".into());
        let mut primal = t.times(Method::Primal).expect("a primal").clone();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} ({:.1} MiB) |",
            t.key.trim_start_matches("rosenbrock-"),
            fmt_ns(median(&mut primal)),
            r(Method::PrimalAd),
            r(Method::AdJvp),
            r(Method::AdGrad),
            r(Method::Hand),
            spread(&t.ratios(Method::AdGrad).expect("a primal")),
            w,
            *w as f64 * 8.0 / (1024.0 * 1024.0)
        );
    }
    let fit = |m: Method| {
        let pts: Vec<(f64, f64)> = timed
            .iter()
            .zip(&sizes)
            .map(|(t, &n)| (n as f64, median(&mut t.times(m).expect("timed").clone())))
            .collect();
        (exponent(&pts), exponent(&pts[1..]))
    };
    println!();
    for m in [Method::Primal, Method::AdJvp, Method::AdGrad, Method::Hand] {
        let (all, big) = fit(m);
        println!(
            "- measured exponent of `{}` time in n: {all:.3} over n = 1e2..1e6, {big:.3} over 1e3..1e6",
            m.key()
        );
    }
    println!();

    println!("### Scaling: GMM, n = 1000\n");
    let shapes = [(2, 5), (10, 25), (64, 10)];
    let problems: Vec<Box<dyn Problem>> = shapes
        .iter()
        .map(|&(d, k)| Box::new(GmmProblem::new(d, k, 1000, false)) as Box<dyn Problem>)
        .collect();
    let mut words = Vec::new();
    for &(d, k) in &shapes {
        let g = GmmProblem::new(d, k, 1000, false);
        black_box(g.ad_gradient());
        words.push(ad::__private::last_tape_high_water());
    }
    let timed = time_problems(&problems, runs, config);
    println!(
        "| problem | primal | primal-generic | primal-ad | ad-jvp | ad-grad | hand | ad-grad spread | tape peak (words) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (t, w) in timed.iter().zip(&words) {
        let r = |m| t.ratio(m).map(fmt_ratio).unwrap_or_else(|| "-".into());
        let mut primal = t.times(Method::Primal).expect("a primal").clone();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({:.1} MiB) |",
            t.title,
            fmt_ns(median(&mut primal)),
            r(Method::PrimalGeneric),
            r(Method::PrimalAd),
            r(Method::AdJvp),
            r(Method::AdGrad),
            r(Method::Hand),
            spread(&t.ratios(Method::AdGrad).expect("a primal")),
            w,
            *w as f64 * 8.0 / (1024.0 * 1024.0)
        );
    }
    println!();
    // K differs between the rows: the time per component, between the last two shapes.
    let per_component = |row: usize, m| {
        let mut times = timed[row].times(m).expect("timed").clone();
        median(&mut times) / shapes[row].1 as f64
    };
    let (lo, hi) = (shapes[1].0, shapes[2].0);
    for m in [Method::Primal, Method::AdGrad, Method::Hand] {
        let e = (per_component(2, m) / per_component(1, m)).ln() / (hi as f64 / lo as f64).ln();
        println!(
            "- measured exponent of `{}` time per component in d: {e:.2} from d = {lo} to d = {hi}",
            m.key()
        );
    }
    println!();
}

fn dispatch(runs: usize, config: &Config) {
    const N: usize = 1_000_000;
    let (a, b, c) = (0.999_999, 1e-6, 0.5);
    let mut cases = vec![
        Case::new("primal, calls", || {
            black_box(chain_calls(black_box(0.5), N));
        }),
        Case::new("primal, inline", || {
            black_box(chain_inline(black_box(0.5), N));
        }),
        Case::new("JVP, calls", || {
            black_box(ad::jvp(
                chain_calls,
                (black_box(0.5), N),
                (1.0, ad::NoTangent),
            ));
        }),
        Case::new("JVP, inline", || {
            black_box(ad::jvp(
                chain_inline,
                (black_box(0.5), N),
                (1.0, ad::NoTangent),
            ));
        }),
        Case::new("gradient, calls", || {
            black_box(ad::value_and_grad(chain_calls, (black_box(0.5), N)));
        }),
        Case::new("gradient, inline", || {
            black_box(ad::value_and_grad(chain_inline, (black_box(0.5), N)));
        }),
        Case::new("primal4, calls", move || {
            black_box(chain_calls4(black_box(0.5), a, b, c, N));
        }),
        Case::new("primal4, inline", move || {
            black_box(chain_inline4(black_box(0.5), a, b, c, N));
        }),
        Case::new("JVP4, calls", move || {
            black_box(ad::jvp(
                chain_calls4,
                (black_box(0.5), a, b, c, N),
                (1.0, 0.5, 0.25, 0.125, ad::NoTangent),
            ));
        }),
        Case::new("JVP4, inline", move || {
            black_box(ad::jvp(
                chain_inline4,
                (black_box(0.5), a, b, c, N),
                (1.0, 0.5, 0.25, 0.125, ad::NoTangent),
            ));
        }),
        Case::new("gradient4, calls", move || {
            black_box(ad::value_and_grad(
                chain_calls4,
                (black_box(0.5), a, b, c, N),
            ));
        }),
        Case::new("gradient4, inline", move || {
            black_box(ad::value_and_grad(
                chain_inline4,
                (black_box(0.5), a, b, c, N),
            ));
        }),
    ];
    let (g1, g2) = (
        ad::value_and_grad(chain_calls, (0.5, N)),
        ad::value_and_grad(chain_inline, (0.5, N)),
    );
    assert!(
        (g1.1.0 - g2.1.0).abs() <= 1e-12 * g2.1.0.abs(),
        "dispatch: gradients differ"
    );
    let (g1, g2) = (
        ad::value_and_grad(chain_calls4, (0.5, a, b, c, N)),
        ad::value_and_grad(chain_inline4, (0.5, a, b, c, N)),
    );
    assert!(
        (g1.1.1 - g2.1.1).abs() <= 1e-9 * g2.1.1.abs(),
        "dispatch: gradients differ"
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..runs {
        for (i, t) in measure(&mut cases, config).into_iter().enumerate() {
            times[i].push(t / N as f64);
        }
    }
    println!("### Dispatch: a tiny callee called 1,000,000 times from a loop\n");
    println!(
        "| callee | mode | per iteration, through the registry | per iteration, body inline | added per call | spread of added over runs |"
    );
    println!("|---|---|---|---|---|---|");
    let modes = [
        ("`tiny(s)`, 1 argument", "primal (direct call)"),
        ("`tiny(s)`, 1 argument", "forward (JVP)"),
        ("`tiny(s)`, 1 argument", "reverse (gradient)"),
        ("`tiny4(s, a, b, c)`, 4 arguments", "primal (direct call)"),
        ("`tiny4(s, a, b, c)`, 4 arguments", "forward (JVP)"),
        ("`tiny4(s, a, b, c)`, 4 arguments", "reverse (gradient)"),
    ];
    for (k, (callee, mode)) in modes.iter().enumerate() {
        let calls = &times[2 * k];
        let inline = &times[2 * k + 1];
        let added: Vec<f64> = calls.iter().zip(inline).map(|(a, b)| a - b).collect();
        let lo = added.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = added.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        println!(
            "| {callee} | {mode} | {:.2} ns | {:.2} ns | {:.2} ns | {lo:.2} - {hi:.2} ns |",
            median(&mut calls.clone()),
            median(&mut inline.clone()),
            median(&mut added.clone()),
        );
    }
    println!();

    // The entry points: one call of `ad::jvp` / `ad::value_and_grad` on a one-multiply function.
    let mut cases = vec![
        Case::new("direct", || {
            black_box(square(black_box(1.5)));
        }),
        Case::new("ad::jvp", || {
            black_box(ad::jvp(square, (black_box(1.5),), (1.0,)));
        }),
        Case::new("ad::value_and_grad", || {
            black_box(ad::value_and_grad(square, (black_box(1.5),)));
        }),
        Case::new("ad::vjp + pullback", || {
            let (v, pullback) = ad::vjp(square, (black_box(1.5),));
            black_box((v, pullback(1.0)));
        }),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..runs {
        for (i, t) in measure(&mut cases, config).into_iter().enumerate() {
            times[i].push(t);
        }
    }
    println!("### Entry points: one call on `square(x) = x * x`\n");
    println!("| call | median time | spread over runs |");
    println!("|---|---|---|");
    for (label, t) in [
        "square(x), direct",
        "ad::jvp",
        "ad::value_and_grad",
        "ad::vjp + one pullback",
    ]
    .iter()
    .zip(&times)
    {
        let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        println!(
            "| {label} | {} | {} - {} |",
            fmt_ns(median(&mut t.clone())),
            fmt_ns(lo),
            fmt_ns(hi)
        );
    }
    println!();
}

fn profile(key: &str, method: &str, seconds: f64) {
    let mut problems = main_problems();
    problems.push(Box::new(Rosenbrock::new(1_000_000, false, false)));
    problems.push(Box::new(GmmProblem::new(64, 10, 1000, false)));
    let p = problems
        .iter()
        .find(|p| p.key() == key)
        .unwrap_or_else(|| panic!("no problem {key}"));
    let mut cases = p.cases();
    let (_, case) = cases
        .iter_mut()
        .find(|(m, _)| m.key() == method)
        .unwrap_or_else(|| panic!("no method {method} in {key}"));
    eprintln!("profiling {key} / {method} for {seconds} s");
    spin(case, seconds);
}

fn machine() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let rustc = std::process::Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!("Machine: {cores} logical CPUs (`nproc`), CPU `{cpu}`, `{rustc}`.\n");
}

fn main() {
    let o = options();
    if let Some((key, method, seconds)) = &o.profile {
        profile(key, method, *seconds);
        return;
    }
    machine();
    println!(
        "Settings: {} run(s); samples of {:?}, up to {} per method (fewer for slow methods, at least 3).\n",
        o.runs, o.config.sample, o.config.samples
    );
    let wanted = |s: &str| o.sections.iter().any(|x| x == s);
    if wanted("main") {
        let mut problems = main_problems();
        if let Some(only) = &o.only {
            problems.retain(|p| p.key() == *only);
        }
        let timed = time_problems(&problems, o.runs, &o.config);
        print_main(&timed);
        print_targets(&timed);
    }
    if wanted("scaling") {
        scaling(o.runs, &o.config);
    }
    if wanted("dispatch") {
        dispatch(o.runs, &o.config);
    }
    if wanted("generic") {
        generic(o.runs, &o.config);
    }
}

/// Generic functions at `f64` against the same source written for `f64`: Rosenbrock n = 1000
/// and GMM d = 10 K = 25, both modes, interleaved in one process.
fn generic(runs: usize, config: &Config) {
    use ad_benches::problems::generic::{
        argmin_rosenbrock, argmin_rosenbrock_loop, gmm_objective_t, rosenbrock_t, short_4, short_n,
    };
    use ad_benches::problems::gmm::{Gmm, gmm_objective};
    use ad_benches::problems::rosenbrock::rosenbrock;

    let x: Vec<f64> = (0..1000).map(|i| 0.5 + 0.001 * i as f64).collect();
    let dx: Vec<f64> = (0..1000).map(|i| ((i % 7) as f64 - 3.0) * 0.1).collect();
    let g = Gmm::new(10, 25, 1000, 0x5EED_0002 + 10);
    let dir: Vec<f64> = (0..g.parameters())
        .map(|i| ((i % 5) as f64 - 2.0) * 0.1)
        .collect();
    let (da, rest) = dir.split_at(g.k);
    let (dm, di) = rest.split_at(g.k * g.d);
    fn gmm_args(g: &Gmm) -> GmmArgs<'_> {
        (
            black_box(&g.alphas[..]),
            black_box(&g.means[..]),
            black_box(&g.icf[..]),
            ad::Const(&g.x[..]),
            ad::Const(g.gamma),
            ad::Const(g.m),
        )
    }
    type GmmArgs<'a> = (
        &'a [f64],
        &'a [f64],
        &'a [f64],
        ad::Const<&'a [f64]>,
        ad::Const<f64>,
        ad::Const<f64>,
    );
    let tangents = (da, dm, di, ad::NoTangent, ad::NoTangent, ad::NoTangent);

    // The two forms agree before anything is timed.
    let (m, (gm,)) = ad::value_and_grad(rosenbrock, (&x[..],));
    let (t, (gt,)) = ad::value_and_grad(rosenbrock_t::<f64>, (&x[..],));
    assert!(m == t && gm == gt, "generic: Rosenbrock gradients differ");
    let (a, (ga,)) = ad::value_and_grad(argmin_rosenbrock::<f64>, (&x[..],));
    assert!(
        (a - m).abs() <= 1e-12 * m.abs()
            && ga
                .iter()
                .zip(&gm)
                .all(|(p, q)| (p - q).abs() <= 1e-12 * q.abs().max(1.0)),
        "generic: argmin's Rosenbrock differs"
    );
    let (l, (gl,)) = ad::value_and_grad(argmin_rosenbrock_loop::<f64>, (&x[..],));
    assert!(
        (a - l).abs() <= 1e-12 * l.abs()
            && ga
                .iter()
                .zip(&gl)
                .all(|(p, q)| (p - q).abs() <= 1e-12 * q.abs().max(1.0)),
        "generic: argmin's Rosenbrock as a loop differs"
    );
    let (m, gm) = ad::value_and_grad(gmm_objective, gmm_args(&g));
    let (t, gt) = ad::value_and_grad(gmm_objective_t::<f64>, gmm_args(&g));
    assert!(
        m == t && gm.0 == gt.0 && gm.2 == gt.2,
        "generic: GMM gradients differ"
    );

    let a4 = [0.3, -1.2, 0.7, 2.1];
    let d4 = [1.0, 0.5, -0.25, 0.125];
    assert!(
        ad::value_and_grad(short_4, (a4,)) == ad::value_and_grad(short_n::<4>, (a4,)),
        "generic: the const-length function differs"
    );

    let mut cases = vec![
        Case::new("rosenbrock grad, f64", || {
            black_box(ad::value_and_grad(rosenbrock, (black_box(&x[..]),)));
        }),
        Case::new("rosenbrock grad, generic", || {
            black_box(ad::value_and_grad(
                rosenbrock_t::<f64>,
                (black_box(&x[..]),),
            ));
        }),
        Case::new("rosenbrock jvp, f64", || {
            black_box(ad::jvp(rosenbrock, (black_box(&x[..]),), (&dx[..],)));
        }),
        Case::new("rosenbrock jvp, generic", || {
            black_box(ad::jvp(
                rosenbrock_t::<f64>,
                (black_box(&x[..]),),
                (&dx[..],),
            ));
        }),
        Case::new("rosenbrock grad, f64 (again)", || {
            black_box(ad::value_and_grad(rosenbrock, (black_box(&x[..]),)));
        }),
        Case::new("rosenbrock grad, argmin's source", || {
            black_box(ad::value_and_grad(
                argmin_rosenbrock::<f64>,
                (black_box(&x[..]),),
            ));
        }),
        Case::new("rosenbrock jvp, f64 (again)", || {
            black_box(ad::jvp(rosenbrock, (black_box(&x[..]),), (&dx[..],)));
        }),
        Case::new("rosenbrock jvp, argmin's source", || {
            black_box(ad::jvp(
                argmin_rosenbrock::<f64>,
                (black_box(&x[..]),),
                (&dx[..],),
            ));
        }),
        Case::new("gmm grad, f64", || {
            black_box(ad::value_and_grad(gmm_objective, gmm_args(&g)));
        }),
        Case::new("gmm grad, generic", || {
            black_box(ad::value_and_grad(gmm_objective_t::<f64>, gmm_args(&g)));
        }),
        Case::new("gmm jvp, f64", || {
            black_box(ad::jvp(gmm_objective, gmm_args(&g), tangents));
        }),
        Case::new("gmm jvp, generic", || {
            black_box(ad::jvp(gmm_objective_t::<f64>, gmm_args(&g), tangents));
        }),
        Case::new("rosenbrock grad, argmin's math as a loop", || {
            black_box(ad::value_and_grad(
                argmin_rosenbrock_loop::<f64>,
                (black_box(&x[..]),),
            ));
        }),
        Case::new("rosenbrock grad, argmin's source (again)", || {
            black_box(ad::value_and_grad(
                argmin_rosenbrock::<f64>,
                (black_box(&x[..]),),
            ));
        }),
        Case::new("rosenbrock jvp, argmin's math as a loop", || {
            black_box(ad::jvp(
                argmin_rosenbrock_loop::<f64>,
                (black_box(&x[..]),),
                (&dx[..],),
            ));
        }),
        Case::new("rosenbrock jvp, argmin's source (again)", || {
            black_box(ad::jvp(
                argmin_rosenbrock::<f64>,
                (black_box(&x[..]),),
                (&dx[..],),
            ));
        }),
        Case::new("short primal, [f64; 4]", || {
            black_box(short_4(black_box(a4)));
        }),
        Case::new("short primal, const N = 4", || {
            black_box(short_n::<4>(black_box(a4)));
        }),
        Case::new("short grad, [f64; 4]", || {
            black_box(ad::value_and_grad(short_4, (black_box(a4),)));
        }),
        Case::new("short grad, const N = 4", || {
            black_box(ad::value_and_grad(short_n::<4>, (black_box(a4),)));
        }),
        Case::new("short jvp, [f64; 4]", || {
            black_box(ad::jvp(short_4, (black_box(a4),), (d4,)));
        }),
        Case::new("short jvp, const N = 4", || {
            black_box(ad::jvp(short_n::<4>, (black_box(a4),), (d4,)));
        }),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for _ in 0..runs {
        for (i, t) in measure(&mut cases, config).into_iter().enumerate() {
            times[i].push(t);
        }
    }
    println!("### Generic functions at f64 against the same source written for f64\n");
    println!(
        "| problem | mode | written for f64 | generic at f64 | generic / f64 | spread of the ratio over runs |"
    );
    println!("|---|---|---|---|---|---|");
    let rows = [
        ("Rosenbrock n = 1000", "gradient"),
        ("Rosenbrock n = 1000", "JVP"),
        (
            "Rosenbrock n = 1000, argmin's source (zip, skip, map, sum)",
            "gradient",
        ),
        (
            "Rosenbrock n = 1000, argmin's source (zip, skip, map, sum)",
            "JVP",
        ),
        ("GMM d = 10, K = 25", "gradient"),
        ("GMM d = 10, K = 25", "JVP"),
        (
            "Rosenbrock n = 1000, argmin's source against its math as an indexed loop",
            "gradient",
        ),
        (
            "Rosenbrock n = 1000, argmin's source against its math as an indexed loop",
            "JVP",
        ),
        (
            "x_i sin(x_i) over [f64; 4], against `const N: usize` at 4",
            "primal",
        ),
        (
            "x_i sin(x_i) over [f64; 4], against `const N: usize` at 4",
            "gradient",
        ),
        (
            "x_i sin(x_i) over [f64; 4], against `const N: usize` at 4",
            "JVP",
        ),
    ];
    for (k, (problem, mode)) in rows.iter().enumerate() {
        let (mono, generic) = (&times[2 * k], &times[2 * k + 1]);
        let ratios: Vec<f64> = generic.iter().zip(mono).map(|(g, m)| g / m).collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        println!(
            "| {problem} | {mode} | {} | {} | {:.3} | {lo:.3} - {hi:.3} |",
            fmt_ns(median(&mut mono.clone())),
            fmt_ns(median(&mut generic.clone())),
            median(&mut ratios.clone()),
        );
    }
    println!();
}
