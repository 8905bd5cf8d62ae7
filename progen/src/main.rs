//! `progen`: writes random programs of the language `#[ad::differentiable]` supports, builds
//! them together with a second copy over `num_dual::Dual64`, and checks `ad`'s forward and
//! reverse derivatives against that oracle and against each other. A mismatch is shrunk to a
//! small program and written out as a ready regression test. See `progen/README.md`.

mod ast;
mod generate;
mod harness;
mod print;
mod rng;
mod run;
mod shrink;

use ast::{Deriv, Func, Ty};
use rng::Rng;
use std::path::PathBuf;
use std::process::ExitCode;

struct Args {
    programs: usize,
    start: usize,
    seed: u64,
    batch: usize,
    points: usize,
    shrink: usize,
    release: bool,
    dir: PathBuf,
    root: PathBuf,
}

fn usage() -> ! {
    eprintln!(
        "usage: progen [--programs N] [--seed S] [--batch B] [--points P] [--shrink K] [--release]\n\
         \n\
         --programs N  how many functions to generate and check (default 300)\n\
         --start K     begin at function K of the run (a multiple of the batch size), to\n\
         \x20             continue a long run in parts\n\
         --seed S      the seed of the run (default 1)\n\
         --batch B     functions compiled together in one crate (default 150)\n\
         --points P    points checked per function (default 3)\n\
         --shrink K    shrink at most K mismatching functions (default 3)\n\
         --release     build the checks with optimisations\n\
         --work DIR    where the generated crates and their builds go (default target/progen)"
    );
    std::process::exit(2)
}

fn parse() -> Args {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut a = Args {
        programs: 300,
        start: 0,
        seed: 1,
        batch: 150,
        points: 3,
        shrink: 3,
        release: false,
        dir: root.join("target").join("progen"),
        root: root.clone(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut num = || -> u64 {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage())
        };
        match flag.as_str() {
            "--programs" => a.programs = num() as usize,
            "--start" => a.start = num() as usize,
            "--seed" => a.seed = num(),
            "--batch" => a.batch = (num() as usize).max(1),
            "--points" => a.points = (num() as usize).max(1),
            "--shrink" => a.shrink = num() as usize,
            "--release" => a.release = true,
            "--work" => a.dir = it.next().map(PathBuf::from).unwrap_or_else(|| usage()),
            _ => usage(),
        }
    }
    a
}

/// The functions of one batch: each may call those before it; about one in eight has a custom
/// rule (static forward or reverse, placed anywhere among the modules, or registered at run
/// time) instead of a generated derivative.
pub fn generate(seed: u64, count: usize) -> Vec<Func> {
    let mut rng = Rng::new(seed);
    let mut funcs: Vec<Func> = Vec::new();
    let structs = generate::struct_defs(seed);
    let opts = generate::Options { max_stmts: 14 };
    for k in 0..count {
        let with_rule = rng.chance(0.12);
        let mut g_rng = Rng::new(rng.next_u64());
        let mut g = generate::Gen::new(&mut g_rng, &funcs, &structs, opts);
        g.single = !with_rule && rng.chance(0.15);
        g.generic = !with_rule && !g.single && rng.chance(0.1);
        // Some functions over `f64` are methods of a struct of the batch.
        g.method = (!with_rule && !g.single && !g.generic && rng.chance(0.15))
            .then(|| rng.below(structs.len()));
        let (params, returns) = g.signature(with_rule);
        let plain = !with_rule && g.method.is_none();
        let pair = returns && plain && rng.chance(0.12);
        g.ret_opt = returns && plain && !pair && rng.chance(0.1);
        // Some functions over `f64` and methods return a struct of the batch.
        g.ret_struct = (returns
            && !with_rule
            && !pair
            && !g.ret_opt
            && !g.single
            && !g.generic
            && rng.chance(0.1))
        .then(|| match g.method {
            // A method returns its own type more often than not.
            Some(k) if rng.chance(0.6) => k,
            _ => rng.below(structs.len()),
        });
        g.triple = pair && rng.chance(0.35);
        let mut f = g.function(format!("f_{k}"), params, returns, pair);
        f.module = rng.below(harness::MODULES);
        f.order = rng.next_u64();
        f.grouped = f.method.is_some() && rng.chance(0.7);
        if with_rule {
            debug_assert!(f.params.iter().all(|p| p.ty == Ty::F));
            let module = rng.below(harness::MODULES);
            let order = rng.next_u64();
            f.deriv = match rng.below(5) {
                0 => Deriv::StaticForward { module, order },
                1 => Deriv::StaticReverse { module, order },
                2 => Deriv::StaticAugmented { module, order },
                3 => Deriv::RuntimeForward,
                _ => Deriv::RuntimeReverse,
            };
        }
        funcs.push(f);
    }
    funcs
}

fn batch_seed(seed: u64, b: usize) -> u64 {
    Rng::new(seed ^ (b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

fn main() -> ExitCode {
    let args = parse();
    let runner = run::Runner::new(args.dir.clone(), args.root.clone(), args.release, args.seed);
    if !args.start.is_multiple_of(args.batch) || args.start > args.programs {
        usage();
    }
    // The batches are seeded one by one, so a run in parts checks the same programs.
    let mut done = args.start;
    let mut mismatches = 0;
    let mut untested = 0;
    let mut points = 0;
    let mut skipped = 0;
    let mut shrunk = 0;
    let mut uncompiled = 0;
    let mut left_out = 0;
    let mut b = args.start / args.batch;
    let start = std::time::Instant::now();
    while done < args.programs {
        let n = args.batch.min(args.programs - done);
        let seed = batch_seed(args.seed, b);
        let mut funcs = generate(seed, n);
        // A function that does not compile is reported (and shrunk), and left out with the
        // functions that call it, so the rest of the batch is still checked.
        let outcome = loop {
            let stderr = match runner.check(&funcs, seed, args.points, None) {
                Ok(o) => break o,
                Err(e) => e,
            };
            let Some((message, name, block)) =
                run::first_error(&stderr, &runner.source_of("batch"))
            else {
                eprintln!("batch {b} (seed {seed}) did not build or run:\n{stderr}");
                println!("{done} programs, build failure in batch {b}");
                return ExitCode::FAILURE;
            };
            // An error at the attribute of an `impl` block of several methods: each in a block
            // of its own, and again, so that the error names its method.
            if block.len() > 1 {
                for f in funcs.iter_mut().filter(|f| block.contains(&f.name)) {
                    f.grouped = false;
                }
                continue;
            }
            println!("does not compile: batch {b} (seed {seed}) function {name}: {message}");
            uncompiled += 1;
            // The function as generated, for when it is not shrunk.
            if let Some(f) = funcs.iter().find(|f| f.name == name) {
                let text = print::Printer::new(print::Flavor::Ad, &funcs).render(f);
                let path = args.dir.join(format!("unbuilt-{seed}-{name}.rs"));
                let _ = std::fs::write(&path, format!("// {message}\n\n{text}"));
                // And the compiler's messages.
                let _ = std::fs::write(path.with_extension("stderr"), &stderr);
            }
            if shrunk < args.shrink {
                shrunk += 1;
                match shrink::shrink_build(&runner, &funcs, &name, seed, &message) {
                    Ok(path) => println!("  shrunk to {}", path.display()),
                    Err(e) => println!("  not shrunk: {e}"),
                }
            }
            let out = shrink::dependents(&funcs, &name);
            let before = funcs.len();
            funcs.retain(|f| !out.contains(&f.name));
            if funcs.len() == before {
                eprintln!("batch {b} (seed {seed}) did not build:\n{stderr}");
                println!("{done} programs, build failure in batch {b}");
                return ExitCode::FAILURE;
            }
            left_out += out.len();
        };
        for r in &outcome.results {
            points += r.points;
            skipped += r.skipped;
            if r.points == 0 && r.ok() {
                untested += 1;
            }
        }
        let bad: Vec<&run::Result> = outcome.results.iter().filter(|r| !r.ok()).collect();
        for r in &bad {
            println!(
                "mismatch: batch {b} (seed {seed}) function {}: {}",
                r.name,
                r.lines.join("\n    ")
            );
            if shrunk < args.shrink {
                shrunk += 1;
                match shrink::shrink(&runner, &funcs, &r.name, seed, args.points) {
                    Ok(path) => println!("  shrunk to {}", path.display()),
                    Err(e) => println!("  not shrunk: {e}"),
                }
            }
        }
        mismatches += bad.len();
        done += n;
        b += 1;
        eprintln!(
            "[{:>6.1}s] {done} programs, {mismatches} mismatches",
            start.elapsed().as_secs_f64()
        );
    }
    println!(
        "points checked {points}, skipped near kinks or overflow {skipped}, functions with no usable point {untested}"
    );
    if uncompiled > 0 {
        println!("{uncompiled} functions did not compile; {left_out} left out with their callers");
    }
    if args.start > 0 {
        println!("programs {} to {done} of the run", args.start);
    }
    println!("{} programs, {mismatches} mismatches", done - args.start);
    if mismatches == 0 && uncompiled == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
