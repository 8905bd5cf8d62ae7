//! Measures what `#[differentiable]` adds to a crate's own build time.
//!
//! Generates a crate with 100 typical functions (10 shapes x 10: scalar arithmetic, branches,
//! loops, `Vec` and array arguments, calls, `while`, tuple results, float methods), each under
//! `#[cfg_attr(feature = "ad", ad::differentiable)]`, and times `cargo check`, `cargo build`
//! and `cargo build --release` of that crate alone (its dependencies built beforehand), with
//! and without the feature, touching its source before each build. Incremental compilation is
//! off: with it, a build after a touch that changed nothing reuses the type check and borrow
//! check of the whole crate and only runs the macro again, which is not what building the crate
//! costs.
//!
//! ```text
//! cargo run --release --manifest-path benches/Cargo.toml --bin compile_time [-- --repeat 5] [--optimized-macros]
//! ```
//!
//! The crate is written to `benches/target/compile-time/`; the table goes to standard output.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn source() -> String {
    let mut s = String::from(
        "//! 100 typical functions, differentiated when the `ad` feature is on.\n\
         #![allow(clippy::all, unused)]\n\n",
    );
    let attr = "#[cfg_attr(feature = \"ad\", ad::differentiable)]";
    for k in 0..10 {
        let c = k as f64 + 1.0;
        write!(
            s,
            r#"
{attr}
pub fn poly{k}(x: f64, y: f64) -> f64 {{
    let a = x * x + {c:?} * y;
    let b = (a * a + 1.0).sqrt();
    a * b - y / (1.0 + x * x)
}}

{attr}
pub fn branch{k}(x: f64) -> f64 {{
    if x > {c:?} * 0.1 {{ x.exp() - 1.0 }} else {{ x.sin() * 2.0 }}
}}

{attr}
pub fn sum_loop{k}(x: f64, n: usize) -> f64 {{
    let mut s = 0.0;
    for i in 0..n {{
        s += (x * x + i as f64).ln_1p() * {c:?};
    }}
    s
}}

{attr}
pub fn variance{k}(v: Vec<f64>) -> f64 {{
    let n = v.len() as f64;
    let total: f64 = v.iter().sum();
    let mean = total / n;
    let mut var = 0.0;
    for x in v.iter() {{
        var += (x - mean) * (*x - mean);
    }}
    var / n + {c:?}
}}

{attr}
pub fn rotate{k}(a: [f64; 3], t: f64) -> [f64; 3] {{
    let mut out = [0.0; 3];
    out[0] = a[0] * t.cos() - a[1] * t.sin();
    out[1] = a[0] * t.sin() + a[1] * t.cos();
    out[2] = a[2] * {c:?};
    out
}}

{attr}
pub fn call{k}(x: f64, y: f64) -> f64 {{
    poly{k}(x, y) * branch{k}(y) + sum_loop{k}(x, 3)
}}

{attr}
pub fn newton{k}(a: f64) -> f64 {{
    let mut x = a.max(1.0);
    let mut step: f64 = 1.0;
    while step.abs() > 1e-12 * x {{
        let next = 0.5 * (x + a / x);
        step = next - x;
        x = next;
    }}
    x * {c:?}
}}

{attr}
pub fn polar{k}(r: f64, t: f64) -> (f64, f64) {{
    (r * t.cos(), r * t.sin() + {c:?})
}}

{attr}
pub fn quad{k}(a: Vec<f64>) -> f64 {{
    let n = a.len();
    let mut s = 0.0;
    for i in 0..n {{
        for j in 0..n {{
            s += ((i + j) as f64 + {c:?}) * a[i] * a[j];
        }}
    }}
    s
}}

{attr}
pub fn mix{k}(x: f64, y: f64) -> f64 {{
    let h = x.hypot(y);
    let t = y.atan2(x);
    (h.powi(2) + t.tanh()).max(0.0) + x.abs().powf(1.5).min({c:?})
}}
"#
        )
        .expect("write to a String");
    }
    s
}

/// The probe's manifest; with `optimized_macros`, the macro and what it runs on (syn, quote,
/// proc-macro2) are built optimised, as a user's workspace can ask for (Cargo builds proc
/// macros without optimisation by default).
fn manifest(repo: &Path, optimized_macros: bool) -> String {
    let profiles = if optimized_macros {
        "\n[profile.dev.build-override]\nopt-level = 3\n\n[profile.release.build-override]\nopt-level = 3\n"
    } else {
        ""
    };
    format!(
        r#"[package]
name = "ad-compile-time-probe"
version = "0.0.0"
edition = "2024"
publish = false

# Not part of any other workspace.
[workspace]

[features]
ad = []

[dependencies]
ad = {{ path = "{}" }}
{profiles}"#,
        repo.display()
    )
}

fn cargo(dir: &Path, args: &[&str]) -> f64 {
    let start = Instant::now();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .env("CARGO_INCREMENTAL", "0")
        .status()
        .expect("run cargo");
    assert!(
        status.success(),
        "cargo {args:?} failed in {}",
        dir.display()
    );
    start.elapsed().as_secs_f64()
}

fn touch(path: &Path) {
    let text = std::fs::read_to_string(path).expect("read the probe's source");
    std::fs::write(path, text).expect("touch the probe's source");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let repeat: usize = std::env::args()
        .skip_while(|a| a != "--repeat")
        .nth(1)
        .map_or(3, |r| r.parse().expect("--repeat N"));
    let bench_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let repo = bench_dir.parent().expect("benches/ sits in the repository");
    let dir = bench_dir.join("target").join("compile-time");
    std::fs::create_dir_all(dir.join("src")).expect("create the probe crate");
    let optimized_macros = std::env::args().any(|a| a == "--optimized-macros");
    std::fs::write(dir.join("Cargo.toml"), manifest(repo, optimized_macros))
        .expect("write Cargo.toml");
    let lib = dir.join("src").join("lib.rs");
    std::fs::write(&lib, source()).expect("write lib.rs");

    let modes: [(&str, &[&str]); 3] = [
        ("cargo check", &["check"]),
        ("cargo build (dev)", &["build"]),
        ("cargo build --release", &["build", "--release"]),
    ];
    // Dependencies first, with the feature (it changes no dependency).
    for (_, args) in &modes {
        eprintln!("warming up: cargo {args:?}");
        let mut a = args.to_vec();
        a.extend(["--features", "ad"]);
        cargo(&dir, &a);
        cargo(&dir, args);
    }
    println!("### Compile time: 100 typical functions\n");
    println!(
        "| command | without `#[differentiable]` | with | added, relative to the crate's own build |"
    );
    println!("|---|---|---|---|");
    for (label, args) in &modes {
        let mut plain = Vec::new();
        let mut with = Vec::new();
        for _ in 0..repeat {
            touch(&lib);
            plain.push(cargo(&dir, args));
            let mut a = args.to_vec();
            a.extend(["--features", "ad"]);
            touch(&lib);
            with.push(cargo(&dir, &a));
        }
        let (p, w) = (median(plain), median(with));
        println!("| `{label}` | {p:.2} s | {w:.2} s | +{:.2}x |", (w - p) / p);
    }
    println!(
        "\n(median of {repeat} builds each; the time of the probe crate alone, its dependencies built, \
         without incremental compilation; proc macros built {})",
        if optimized_macros {
            "optimised (`[profile.*.build-override] opt-level = 3`)"
        } else {
            "as Cargo builds them by default, without optimisation"
        }
    );
}
