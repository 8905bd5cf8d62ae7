//! The generated crate: the functions for `ad` in modules `m0`, `m1`, ..., their custom rules
//! among them, the same functions over `Dual64` in `oracle`, and a `main` that checks each one
//! at a few points and prints one `PROGRAM` line per function.

use crate::ast::*;
use crate::print::{Flavor, Printer};
use std::fmt::Write;

mod checks;
mod rules;
mod structs;
use checks::check;
use rules::{augmented, rule};
use structs::struct_helpers;
pub use structs::struct_items;

const PRELUDE: &str = include_str!("../../template/prelude.rs");

/// How many modules the functions and rules are spread over.
pub const MODULES: usize = 3;

pub fn source(funcs: &[Func], seed: u64, points: usize) -> String {
    source_with(funcs, seed, points, None)
}

fn source_with(funcs: &[Func], seed: u64, points: usize, test: Option<(&str, usize)>) -> String {
    let mut s = String::new();
    s.push_str(PRELUDE);
    writeln!(
        s,
        "\nconst POINTS: usize = {points};\nconst SEED: u64 = {seed};\n"
    )
    .unwrap();
    let defs = crate::generate::struct_defs(seed);
    s.push_str(&struct_items(&defs, Flavor::Ad));
    s.push_str(&struct_helpers(&defs));

    // The functions for ad, and the static rules, each module's items in their order.
    for m in 0..MODULES {
        let mut items: Vec<(u64, String)> = Vec::new();
        // The grouped methods of each struct in one `impl` block, where the first of them
        // stands.
        let mut blocks: Vec<(usize, u64, String)> = Vec::new();
        for f in funcs.iter().filter(|f| f.module == m) {
            let mut p = Printer::new(Flavor::Ad, funcs);
            if let Some(k) = f.method.filter(|_| f.grouped) {
                p.bare = true;
                p.indent = 1;
                p.function(f, true);
                let text = p.finish();
                match blocks.iter_mut().find(|b| b.0 == k) {
                    Some(b) => {
                        b.1 = b.1.min(f.order);
                        b.2.push_str(&text);
                    }
                    None => blocks.push((k, f.order, text)),
                }
                continue;
            }
            p.function(f, f.deriv == Deriv::Generated);
            items.push((f.order, p.finish()));
        }
        for (k, order, text) in blocks {
            items.push((
                order,
                format!(
                    "#[ad::differentiable]\nimpl {} {{\n{text}}}\n",
                    struct_name(k)
                ),
            ));
        }
        for f in funcs {
            match f.deriv {
                Deriv::StaticForward { module, order } if module == m => {
                    items.push((order, rule(f, true, true)))
                }
                Deriv::StaticReverse { module, order } if module == m => {
                    items.push((order, rule(f, false, true)))
                }
                Deriv::StaticAugmented { module, order } if module == m => {
                    items.push((order, augmented(f)))
                }
                _ => {}
            }
        }
        items.sort_by_key(|i| i.0);
        writeln!(
            s,
            "pub mod m{m} {{\n    #[allow(unused_imports)]\n    use super::*;\n"
        )
        .unwrap();
        for (_, text) in items {
            s.push_str(&text);
            s.push('\n');
        }
        s.push_str("}\n\n");
    }

    // The rules registered at run time, as plain functions.
    s.push_str("pub mod rules {\n    use super::*;\n\n");
    for f in funcs {
        match f.deriv {
            Deriv::RuntimeForward => s.push_str(&rule(f, true, false)),
            Deriv::RuntimeReverse => s.push_str(&rule(f, false, false)),
            _ => {}
        }
    }
    s.push_str("}\n\n");

    // The oracle, with its own struct types over dual numbers; a generic function twice, as
    // `name_f64` and `name_f32`.
    s.push_str("pub mod oracle {\n    use super::*;\n\n");
    s.push_str(&struct_items(&defs, Flavor::Dual));
    for f in funcs {
        let copies = if f.generic {
            let mut at = f.clone();
            at.generic = false;
            at.name = format!("{}_f64", f.name);
            let mut single = at.clone();
            // Printed over f64, then made f32 word by word: `name_f64` becomes `name_f32`.
            single.single = true;
            vec![at, single]
        } else {
            vec![f.clone()]
        };
        for c in &copies {
            let mut p = Printer::new(Flavor::Dual, funcs);
            p.function(c, false);
            s.push_str(&p.finish());
            s.push('\n');
        }
    }
    s.push_str("}\n\n");

    for (k, f) in funcs.iter().enumerate() {
        s.push_str(&check(f, k, &defs));
    }

    s.push_str("/// The rules registered at run time, for as long as the guards live.\n");
    s.push_str("pub fn register() -> Vec<ad::rules::RuleGuard> {\n    vec![\n");
    for f in funcs {
        let path = format!("crate::m{}::{}", f.module, f.name);
        let n = f.params.len();
        match f.deriv {
            Deriv::RuntimeForward => {
                let ps: Vec<String> = (0..n).map(|i| format!("x{i}: f64, dx{i}: f64")).collect();
                let call: Vec<String> = (0..n).map(|i| format!("x{i}, dx{i}")).collect();
                writeln!(
                    s,
                    "        ad::rules::register_forward({path}, |{}| crate::rules::{}_forward({})),",
                    ps.join(", "),
                    f.name,
                    call.join(", ")
                )
                .unwrap();
            }
            Deriv::RuntimeReverse => {
                let mut ps: Vec<String> = (0..n).map(|i| format!("x{i}: f64")).collect();
                ps.push("value: f64".into());
                ps.push("bar: f64".into());
                let mut call: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
                call.push("value".into());
                call.push("bar".into());
                writeln!(
                    s,
                    "        ad::rules::register_reverse({path}, |{}| crate::rules::{}_reverse({})),",
                    ps.join(", "),
                    f.name,
                    call.join(", ")
                )
                .unwrap();
            }
            _ => {}
        }
    }
    s.push_str("    ]\n}\n\n");
    match test {
        None => main_fn(&mut s, funcs),
        Some((target, k)) => writeln!(
            s,
            "/// Generated by progen; the derivatives of {target} disagreed at these points.\n\
             #[test]\nfn progen_{target}() {{\n    let _guards = register();\n    \
             let mut ck = Check::new(\"{target}\", SEED ^ ({k} as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));\n    \
             check_{target}(&mut ck);\n    assert_eq!(ck.failures, 0, \"see the MISMATCH lines above\");\n}}"
        )
        .unwrap(),
    }
    s
}

/// The regression test of `target` (at index `k` of `funcs`): the crate without its `main`.
pub fn test_file(funcs: &[Func], target: &str, k: usize, seed: u64, points: usize) -> String {
    let mut s = format!(
        "//! A program written by progen (seed {seed}) and shrunk: ad's derivatives of `{target}`\n\
         //! disagree with num-dual's, or with each other, at its test points.\n\n"
    );
    s.push_str(&source_with(funcs, seed, points, Some((target, k))));
    s
}

fn main_fn(s: &mut String, funcs: &[Func]) {
    s.push_str("fn main() {\n    let only = std::env::args().nth(1);\n");
    s.push_str(
        "    std::panic::set_hook(Box::new(|info| {\n        \
         println!(\"PANICKED {}\", info.to_string().replace('\\n', \" \"));\n    }));\n",
    );
    s.push_str("    let _guards = register();\n");
    // Each check is seeded by its function's place in the batch, as in `test_file`.
    s.push_str("    let checks: &[(&'static str, usize, fn(&mut Check))] = &[\n");
    for (k, f) in funcs.iter().enumerate().filter(|(_, f)| !f.takes_fn()) {
        writeln!(s, "        (\"{0}\", {k}, check_{0}),", f.name).unwrap();
    }
    s.push_str(
        "    ];\n    for &(name, k, check) in checks {\n        \
         if only.as_deref().is_some_and(|o| o != name) {\n            continue;\n        }\n        \
         let mut ck = Check::new(name, SEED ^ (k as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));\n        \
         let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut ck))).is_ok();\n        \
         println!(\"PROGRAM {name} {} {} {} {}\", ok as u8, ck.failures, ck.points, ck.skipped);\n    }\n}\n",
    );
}
