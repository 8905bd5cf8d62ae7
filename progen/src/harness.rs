//! The generated crate: the functions for `ad` in modules `m0`, `m1`, ..., their custom rules
//! among them, the same functions over `Dual64` in `oracle`, and a `main` that checks each one
//! at a few points and prints one `PROGRAM` line per function.

use crate::ast::*;
use crate::print::{Flavor, Printer};
use std::fmt::Write;

const PRELUDE: &str = include_str!("../template/prelude.rs");

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

/// The struct types of the batch: for ad, with the derive (a struct with an integer or a
/// nested struct gets the companion tangent `{Name}Tangent`); for the oracle, the same fields
/// over dual numbers.
pub fn struct_items(defs: &[StructDef], flavor: Flavor) -> String {
    let mut s = String::new();
    for (k, d) in defs.iter().enumerate() {
        let f = match flavor {
            Flavor::Ad => "f64",
            Flavor::Dual => "D",
        };
        let fields: Vec<String> = d
            .fields
            .iter()
            .map(|(n, t)| {
                let ty = match *t {
                    FieldTy::F => f.to_string(),
                    FieldTy::Arr(len) => format!("[{f}; {len}]"),
                    FieldTy::Vec(_) => format!("Vec<{f}>"),
                    FieldTy::U(_) => "usize".to_string(),
                    FieldTy::Struct(j) => struct_name(j),
                };
                if d.tuple {
                    format!("pub {ty}")
                } else {
                    format!("pub {n}: {ty}")
                }
            })
            .collect();
        let derive = match flavor {
            Flavor::Ad => "#[derive(Clone, Debug, PartialEq, ad::Differentiable)]",
            Flavor::Dual => "#[derive(Clone, Debug)]",
        };
        if d.tuple {
            writeln!(
                s,
                "{derive}\npub struct {}({});\n",
                struct_name(k),
                fields.join(", ")
            )
            .unwrap();
        } else {
            writeln!(
                s,
                "{derive}\npub struct {} {{\n    {},\n}}\n",
                struct_name(k),
                fields.join(",\n    ")
            )
            .unwrap();
        }
    }
    s
}

/// The type of the tangent of struct `k`.
fn tangent_name(defs: &[StructDef], k: usize) -> String {
    if defs[k].own_tangent() {
        struct_name(k)
    } else {
        format!("{}Tangent", struct_name(k))
    }
}

/// For each struct `S{k}`, in module `sx`, built from its floats in declaration order (nested
/// structs in place) and its integers: `s{k}` a value, `s{k}_t` a tangent (`ad::NoTangent` in
/// the integers), `s{k}_d` the oracle's value over dual numbers of the value and the tangent;
/// and `s{k}_flat`, a tangent's floats in the same order, to compare adjoints.
fn struct_helpers(defs: &[StructDef]) -> String {
    let mut s = String::from("pub mod sx {\n    use super::*;\n\n");
    for (k, d) in defs.iter().enumerate() {
        let (mut value, mut tangent, mut dual, mut flat) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // A value's floats and integers, and the oracle's, for struct results.
        let (mut vals, mut dvals, mut ints, mut dints) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut o, mut m) = (0, 0);
        for (n, t) in &d.fields {
            match *t {
                FieldTy::F => {
                    value.push(format!("{n}: x[{o}]"));
                    tangent.push(format!("{n}: x[{o}]"));
                    dual.push(format!("{n}: D::new(x[{o}], t[{o}])"));
                    flat.push(format!("v.push(t.{n});"));
                    vals.push(format!("v.push(t.{n});"));
                    dvals.push(format!("v.push(t.{n});"));
                    o += 1;
                }
                FieldTy::Arr(len) => {
                    let r = format!("{o}..{}", o + len);
                    value.push(format!("{n}: pm::arr(&x[{r}])"));
                    tangent.push(format!("{n}: pm::arr(&x[{r}])"));
                    dual.push(format!(
                        "{n}: pm::dual_arr(pm::arr(&x[{r}]), pm::arr(&t[{r}]))"
                    ));
                    flat.push(format!("v.extend_from_slice(&t.{n});"));
                    vals.push(format!("v.extend_from_slice(&t.{n});"));
                    dvals.push(format!("v.extend_from_slice(&t.{n});"));
                    o += len;
                }
                FieldTy::Vec(len) => {
                    let r = format!("{o}..{}", o + len);
                    value.push(format!("{n}: x[{r}].to_vec()"));
                    tangent.push(format!("{n}: x[{r}].to_vec()"));
                    dual.push(format!("{n}: pm::duals(&x[{r}], &t[{r}])"));
                    flat.push(format!("v.extend_from_slice(&t.{n});"));
                    vals.push(format!("v.extend_from_slice(&t.{n});"));
                    dvals.push(format!("v.extend_from_slice(&t.{n});"));
                    o += len;
                }
                FieldTy::U(_) => {
                    value.push(format!("{n}: n[{m}]"));
                    tangent.push(format!("{n}: ad::NoTangent"));
                    dual.push(format!("{n}: n[{m}]"));
                    ints.push(format!("v.push(t.{n});"));
                    dints.push(format!("v.push(t.{n});"));
                    m += 1;
                }
                FieldTy::Struct(j) => {
                    value.push(format!("{n}: s{j}(&x[{o}..], &n[{m}..])"));
                    tangent.push(format!("{n}: s{j}_t(&x[{o}..])"));
                    dual.push(format!("{n}: s{j}_d(&x[{o}..], &t[{o}..], &n[{m}..])"));
                    flat.push(format!("v.extend(s{j}_flat(&t.{n}));"));
                    vals.push(format!("v.extend(s{j}_vals(&t.{n}));"));
                    dvals.push(format!("v.extend(s{j}_dvals(&t.{n}));"));
                    ints.push(format!("v.extend(s{j}_ints(&t.{n}));"));
                    dints.push(format!("v.extend(s{j}_dints(&t.{n}));"));
                    o += defs[j].floats(defs);
                    m += defs[j].ints(defs).len();
                }
            }
        }
        let name = struct_name(k);
        let tn = tangent_name(defs, k);
        writeln!(
            s,
            "    pub fn s{k}(x: &[f64], n: &[usize]) -> crate::{name} {{\n        let _ = n;\n        crate::{name} {{ {} }}\n    }}",
            value.join(", ")
        )
        .unwrap();
        writeln!(
            s,
            "    pub fn s{k}_t(x: &[f64]) -> crate::{tn} {{\n        crate::{tn} {{ {} }}\n    }}",
            tangent.join(", ")
        )
        .unwrap();
        writeln!(
            s,
            "    pub fn s{k}_d(x: &[f64], t: &[f64], n: &[usize]) -> crate::oracle::{name} {{\n        let _ = n;\n        crate::oracle::{name} {{ {} }}\n    }}",
            dual.join(", ")
        )
        .unwrap();
        writeln!(
            s,
            "    pub fn s{k}_flat(t: &crate::{tn}) -> Vec<f64> {{\n        let mut v = Vec::new();\n        {}\n        v\n    }}\n",
            flat.join("\n        ")
        )
        .unwrap();
        for (f, arg, out, body) in [
            ("vals", format!("crate::{name}"), "f64", &vals),
            ("dvals", format!("crate::oracle::{name}"), "D", &dvals),
            ("ints", format!("crate::{name}"), "usize", &ints),
            ("dints", format!("crate::oracle::{name}"), "usize", &dints),
        ] {
            writeln!(
                s,
                "    pub fn s{k}_{f}(t: &{arg}) -> Vec<{out}> {{\n        let mut v = Vec::new();\n        {}\n        v\n    }}",
                body.join("\n        ")
            )
            .unwrap();
        }
        s.push('\n');
    }
    s.push_str("}\n\n");
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

/// A correct rule of `f` (all of whose parameters are floats): the oracle's own derivative.
fn rule(f: &Func, forward: bool, attribute: bool) -> String {
    let n = f.params.len();
    let path = format!("crate::m{}::{}", f.module, f.name);
    let mut s = String::new();
    if forward {
        if attribute {
            writeln!(s, "#[ad::custom_rule(forward, of = {path})]").unwrap();
        }
        let ps: Vec<String> = (0..n).map(|i| format!("x{i}: f64, dx{i}: f64")).collect();
        let ds: Vec<String> = (0..n).map(|i| format!("D::new(x{i}, dx{i})")).collect();
        writeln!(
            s,
            "pub fn {}_forward({}) -> (f64, f64) {{\n    let r = crate::oracle::{}({});\n    (r.re, r.eps)\n}}",
            f.name,
            ps.join(", "),
            f.name,
            ds.join(", ")
        )
        .unwrap();
    } else {
        if attribute {
            writeln!(s, "#[ad::custom_rule(reverse, of = {path})]").unwrap();
        }
        let mut ps: Vec<String> = (0..n).map(|i| format!("x{i}: f64")).collect();
        ps.push("_value: f64".into());
        ps.push("bar: f64".into());
        let ret = if n == 1 {
            "f64".to_string()
        } else {
            format!("({})", vec!["f64"; n].join(", "))
        };
        writeln!(
            s,
            "pub fn {}_reverse({}) -> {ret} {{",
            f.name,
            ps.join(", ")
        )
        .unwrap();
        for i in 0..n {
            let ds: Vec<String> = (0..n)
                .map(|j| format!("D::new(x{j}, {})", if i == j { "1.0" } else { "0.0" }))
                .collect();
            writeln!(
                s,
                "    let g{i} = crate::oracle::{}({}).eps;",
                f.name,
                ds.join(", ")
            )
            .unwrap();
        }
        let gs: Vec<String> = (0..n).map(|i| format!("g{i} * bar")).collect();
        if n == 1 {
            writeln!(s, "    {}\n}}", gs[0]).unwrap();
        } else {
            writeln!(s, "    ({})\n}}", gs.join(", ")).unwrap();
        }
    }
    s
}

/// A correct reverse rule with residuals: the forward part keeps the partial derivatives (the
/// oracle's), the reverse part scales them by the adjoint.
fn augmented(f: &Func) -> String {
    let n = f.params.len();
    let path = format!("crate::m{}::{}", f.module, f.name);
    let mut s = String::new();
    let ps: Vec<String> = (0..n).map(|i| format!("x{i}: f64")).collect();
    let tuple = |v: Vec<String>| {
        if v.len() == 1 {
            format!("({},)", v[0])
        } else {
            format!("({})", v.join(", "))
        }
    };
    let res_ty = tuple(vec!["f64".to_string(); n]);
    writeln!(
        s,
        "pub fn {}_augmented({}) -> (f64, {res_ty}) {{",
        f.name,
        ps.join(", ")
    )
    .unwrap();
    for i in 0..n {
        let ds: Vec<String> = (0..n)
            .map(|j| format!("D::new(x{j}, {})", if i == j { "1.0" } else { "0.0" }))
            .collect();
        writeln!(
            s,
            "    let d{i} = crate::oracle::{}({});",
            f.name,
            ds.join(", ")
        )
        .unwrap();
    }
    let gs: Vec<String> = (0..n).map(|i| format!("d{i}.eps")).collect();
    writeln!(s, "    (d0.re, {})\n}}", tuple(gs)).unwrap();
    writeln!(
        s,
        "#[ad::custom_rule(reverse, of = {path}, augmented = {}_augmented)]",
        f.name
    )
    .unwrap();
    let ret = if n == 1 {
        "f64".to_string()
    } else {
        format!("({})", vec!["f64"; n].join(", "))
    };
    writeln!(
        s,
        "pub fn {}_reverse(partials: {res_ty}, bar: f64) -> {ret} {{",
        f.name
    )
    .unwrap();
    let outs: Vec<String> = (0..n).map(|i| format!("partials.{i} * bar")).collect();
    if n == 1 {
        writeln!(s, "    {}\n}}", outs[0]).unwrap();
    } else {
        writeln!(s, "    ({})\n}}", outs.join(", ")).unwrap();
    }
    s
}

/// The checks of one function at `POINTS` points.
fn check(f: &Func, k: usize, defs: &[StructDef]) -> String {
    if f.takes_fn() {
        return String::new();
    }
    if let Some(s) = f.method {
        // A method, by the path of its struct (the oracle's over dual numbers).
        let s = struct_name(s);
        return check_as(
            f,
            k,
            &f.name,
            &format!("crate::{s}::{}", f.name),
            &format!("crate::oracle::{s}::{}", f.name),
            None,
            defs,
        );
    }
    let path = format!("crate::m{}::{}", f.module, f.name);
    if !f.generic {
        return check_as(
            f,
            k,
            &f.name,
            &path,
            &format!("crate::oracle::{}", f.name),
            None,
            defs,
        );
    }
    // A generic function: checked at f64 and then at f32, against the oracle's two copies.
    let mut at = f.clone();
    at.generic = false;
    let mut s = String::new();
    for (ty, single) in [("f64", false), ("f32", true)] {
        at.single = single;
        // At f32, the oracle at f64 from the same point is the reference where the two f32
        // evaluations disagree (see `Check::same_ref`).
        let reference = single.then(|| format!("crate::oracle::{}_f64", f.name));
        s.push_str(&check_as(
            &at,
            k,
            &format!("{}_{ty}", f.name),
            &format!("{path}::<{ty}>"),
            &format!("crate::oracle::{}_{ty}", f.name),
            reference.as_deref(),
            defs,
        ));
    }
    writeln!(
        s,
        "fn check_{0}(ck: &mut Check) {{\n    check_{0}_f64(ck);\n    check_{0}_f32(ck);\n}}\n",
        f.name
    )
    .unwrap();
    s
}

/// The check of `f` as `check_{name}`, of `path` against `oracle`.
/// The check of `f` as `check_{name}`, of `path` against `oracle`; with `reference`, an f32
/// check of a generic function, whose oracle at f64 is the reference where ad and the f32
/// oracle disagree.
fn check_as(
    f: &Func,
    k: usize,
    name: &str,
    path: &str,
    oracle: &str,
    reference: Option<&str>,
    defs: &[StructDef],
) -> String {
    let mut s = String::new();
    let has_out = f.params.iter().any(|p| matches!(p.ty, Ty::Out(_)));
    writeln!(s, "fn check_{name}(ck: &mut Check) {{").unwrap();
    if f.single {
        // The same code, over f32 and num-dual's Dual32.
        s.push_str("    use crate::pm32 as pm;\n    type D = crate::pm32::D;\n    ck.single();\n");
    }
    s.push_str("    for _ in 0..POINTS {\n");
    let mut oracle_args = Vec::new();
    let mut args = Vec::new();
    let mut tans = Vec::new();
    let mut body = String::new();
    let mut seen = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        match p.ty {
            Ty::F => {
                writeln!(body, "let a{i} = pm::float(ck); let t{i} = pm::float(ck);").unwrap();
                oracle_args.push(format!("D::new(a{i}, t{i})"));
                args.push(format!("a{i}"));
                tans.push(format!("t{i}"));
            }
            Ty::U(hi) => {
                writeln!(body, "let a{i} = ck.index({hi});").unwrap();
                oracle_args.push(format!("a{i}"));
                args.push(format!("a{i}"));
                tans.push("ad::NoTangent".into());
            }
            Ty::Slice(n) | Ty::Vec(n) | Ty::Out(n) => {
                writeln!(
                    body,
                    "let a{i} = pm::floats(ck, {n}); let t{i} = pm::floats(ck, {n});"
                )
                .unwrap();
                match p.ty {
                    Ty::Slice(_) => {
                        writeln!(body, "let o{i} = pm::duals(&a{i}, &t{i});").unwrap();
                        oracle_args.push(format!("&o{i}[..]"));
                        args.push(format!("&a{i}[..]"));
                        tans.push(format!("&t{i}[..]"));
                    }
                    Ty::Vec(_) => {
                        oracle_args.push(format!("pm::duals(&a{i}, &t{i})"));
                        args.push(format!("a{i}.clone()"));
                        tans.push(format!("t{i}.clone()"));
                    }
                    // An output declared `&mut [f64; N]`: arrays throughout.
                    _ if p.array => {
                        writeln!(body, "let (a{i}, t{i}): ([pm::F; {n}], [pm::F; {n}]) = (pm::arr(&a{i}), pm::arr(&t{i}));").unwrap();
                        writeln!(
                            body,
                            "let u{i}: [pm::F; {n}] = pm::arr(&pm::floats(ck, {n}));"
                        )
                        .unwrap();
                        writeln!(body, "let mut o{i} = pm::dual_arr(a{i}, t{i});").unwrap();
                        oracle_args.push(format!("&mut o{i}"));
                        args.push(format!("&mut y{i}"));
                        tans.push(format!("&mut dy{i}"));
                        seen.push(i);
                    }
                    _ => {
                        writeln!(body, "let u{i} = pm::floats(ck, {n});").unwrap();
                        writeln!(body, "let mut o{i} = pm::duals(&a{i}, &t{i});").unwrap();
                        oracle_args.push(format!("&mut o{i}[..]"));
                        args.push(format!("&mut y{i}[..]"));
                        tans.push(format!("&mut dy{i}[..]"));
                        seen.push(i);
                    }
                }
            }
            Ty::Arr(n) => {
                writeln!(
                    body,
                    "let a{i}: [pm::F; {n}] = pm::arr(&pm::floats(ck, {n})); let t{i}: [pm::F; {n}] = pm::arr(&pm::floats(ck, {n}));"
                )
                .unwrap();
                oracle_args.push(format!("pm::dual_arr(a{i}, t{i})"));
                args.push(format!("a{i}"));
                tans.push(format!("t{i}"));
            }
            Ty::ArrRef(n) => {
                writeln!(
                    body,
                    "let a{i}: [pm::F; {n}] = pm::arr(&pm::floats(ck, {n})); let t{i}: [pm::F; {n}] = pm::arr(&pm::floats(ck, {n}));"
                )
                .unwrap();
                writeln!(body, "let o{i} = pm::dual_arr(a{i}, t{i});").unwrap();
                oracle_args.push(format!("&o{i}"));
                args.push(format!("&a{i}"));
                tans.push(format!("t{i}"));
            }
            Ty::ConstSlice(n) => {
                writeln!(body, "let a{i} = pm::floats(ck, {n});").unwrap();
                writeln!(body, "let o{i} = pm::consts(&a{i});").unwrap();
                oracle_args.push(format!("&o{i}[..]"));
                args.push(format!("ad::Const(&a{i}[..])"));
                tans.push("ad::NoTangent".into());
            }
            Ty::ConstF => {
                writeln!(body, "let a{i} = pm::float(ck);").unwrap();
                oracle_args.push(format!("pm::lit(a{i})"));
                args.push(format!("ad::Const(a{i})"));
                tans.push("ad::NoTangent".into());
            }
            Ty::OptF => {
                writeln!(
                    body,
                    "let a{i} = pm::float_opt(ck); let t{i} = a{i}.map(|_| pm::float(ck));"
                )
                .unwrap();
                oracle_args.push(format!("a{i}.zip(t{i}).map(|(x, t)| D::new(x, t))"));
                args.push(format!("a{i}"));
                tans.push(format!("t{i}"));
            }
            Ty::Pair => {
                writeln!(
                    body,
                    "let a{i} = (pm::float(ck), pm::float(ck)); let t{i} = (pm::float(ck), pm::float(ck));"
                )
                .unwrap();
                oracle_args.push(format!("(D::new(a{i}.0, t{i}.0), D::new(a{i}.1, t{i}.1))"));
                args.push(format!("a{i}"));
                tans.push(format!("t{i}"));
            }
            Ty::Bool | Ty::Char | Ty::I32(..) => {
                let v = match p.ty {
                    Ty::Bool => "ck.index(1) == 1".to_string(),
                    Ty::Char => "['a', 'b', 'c'][ck.index(2)]".to_string(),
                    Ty::I32(lo, hi) => format!("{lo} + ck.index({}) as i32", hi - lo),
                    _ => unreachable!(),
                };
                writeln!(body, "let a{i} = {v};").unwrap();
                oracle_args.push(format!("a{i}"));
                args.push(format!("a{i}"));
                tans.push("ad::NoTangent".into());
            }
            // A struct from random floats and integers, a tangent from random directions, the
            // oracle's from both; its adjoint is compared through its floats (`sx`).
            Ty::Struct(k, by_ref) => {
                let nf = defs[k].floats(defs);
                let ints: Vec<String> = defs[k]
                    .ints(defs)
                    .iter()
                    .map(|hi| format!("ck.index({hi})"))
                    .collect();
                writeln!(
                    body,
                    "let xs{i} = pm::floats(ck, {nf}); let xt{i} = pm::floats(ck, {nf}); let ns{i}: Vec<usize> = vec![{}];",
                    ints.join(", ")
                )
                .unwrap();
                writeln!(
                    body,
                    "let a{i} = crate::sx::s{k}(&xs{i}, &ns{i}); let t{i} = crate::sx::s{k}_t(&xt{i}); let so{i} = crate::sx::s{k}_d(&xs{i}, &xt{i}, &ns{i});"
                )
                .unwrap();
                if by_ref {
                    oracle_args.push(format!("&so{i}"));
                    args.push(format!("&a{i}"));
                } else {
                    oracle_args.push(format!("so{i}.clone()"));
                    args.push(format!("a{i}.clone()"));
                }
                tans.push(format!("t{i}.clone()"));
            }
            // Not checked by itself (see `Func::takes_fn`).
            Ty::FnArg(_) => unreachable!("a function that takes a function is not checked"),
        }
    }
    // The parts of the result: none, the value, or the two of a pair.
    // A struct result is compared through its floats (`sx`), not by parts.
    let parts: &[&str] = match (f.returns, f.pair) {
        (false, _) => &[],
        _ if f.ret_struct.is_some() => &[],
        (true, false) => &[""],
        (true, true) if f.tail3.is_some() => &[".0", ".1", ".2"],
        (true, true) if f.pair_shape == Shape::Tuple => &[".0", ".1"],
        (true, true) => &["[0]", "[1]"],
    };
    if let Some(k) = f.ret_struct {
        // The adjoint of a struct result: its tangent, from random floats.
        let nf = defs[k].floats(defs);
        writeln!(
            body,
            "let rb = pm::floats(ck, {nf}); let rbar = crate::sx::s{k}_t(&rb);"
        )
        .unwrap();
    } else if f.tail3.is_some() {
        writeln!(
            body,
            "let rbar = (pm::float(ck), pm::float(ck), pm::float(ck));"
        )
        .unwrap();
    } else if f.pair {
        let r = match f.pair_shape {
            Shape::Tuple => "(pm::float(ck), pm::float(ck))",
            Shape::Array => "[pm::float(ck), pm::float(ck)]",
            Shape::Vec => "vec![pm::float(ck), pm::float(ck)]",
        };
        writeln!(body, "let rbar = {r};").unwrap();
    } else {
        writeln!(body, "let rbar = pm::float(ck);").unwrap();
    }
    writeln!(body, "pm::reset();").unwrap();
    let or = if f.returns { "or" } else { "_or" };
    writeln!(body, "let {or} = {oracle}({});", oracle_args.join(", ")).unwrap();
    if f.ret_opt {
        // An `Option` result is compared as whether it is `Some` and, as a float, its value
        // or 0 (whose tangent is 0); its adjoint is `Some` where the value is.
        writeln!(
            body,
            "let or_some = or.is_some(); let or = or.unwrap_or(pm::lit(0.0));"
        )
        .unwrap();
    }
    writeln!(body, "let mut seen: Vec<D> = Vec::new();").unwrap();
    for p in parts {
        writeln!(body, "seen.push(or{p});").unwrap();
    }
    if let Some(k) = f.ret_struct {
        writeln!(
            body,
            "let od = crate::sx::s{k}_dvals(&or); seen.extend_from_slice(&od);"
        )
        .unwrap();
    }
    for i in &seen {
        writeln!(body, "seen.extend_from_slice(&o{i});").unwrap();
    }
    writeln!(body, "if !ck.usable(pm::fine(&seen)) {{ continue; }}").unwrap();

    // Forward mode against the oracle.
    for i in &seen {
        writeln!(
            body,
            "let mut y{i} = a{i}.clone(); let mut dy{i} = t{i}.clone();"
        )
        .unwrap();
    }
    let (r, dr) = if f.returns {
        ("r", "dr")
    } else {
        ("_r", "_dr")
    };
    writeln!(
        body,
        "let ({r}, {dr}) = ad::jvp({path}, ({},), ({},));",
        args.join(", "),
        tans.join(", ")
    )
    .unwrap();
    if f.ret_opt {
        writeln!(
            body,
            "ck.same(\"jvp is_some\", r.is_some() as u8, or_some as u8, 1.0); let (r, dr) = (r.unwrap_or(0.0), dr.unwrap_or(0.0));"
        )
        .unwrap();
    }
    if let Some(k) = f.ret_struct {
        // Its floats and their tangents, and its integers.
        writeln!(
            body,
            "let rv = crate::sx::s{k}_vals(&r); let rt = crate::sx::s{k}_flat(&dr); pm::same_slice(ck, \"jvp result\", &rv, &rt, &od);"
        )
        .unwrap();
        writeln!(
            body,
            "let (ri, oi) = (crate::sx::s{k}_ints(&r), crate::sx::s{k}_dints(&or)); for j in 0..oi.len() {{ ck.same(\"jvp result integer\", ri[j] as f64, oi[j] as f64, 1.0); }}"
        )
        .unwrap();
    }
    match reference {
        None => {
            for p in parts {
                writeln!(body, "ck.same(\"jvp value{p}\", r{p}, or{p}.re, 1.0);").unwrap();
                writeln!(body, "ck.same(\"jvp tangent{p}\", dr{p}, or{p}.eps, 1.0);").unwrap();
            }
            for i in &seen {
                writeln!(
                    body,
                    "pm::same_slice(ck, \"jvp {}\", &y{i}, &dy{i}, &o{i});",
                    f.params[*i].name
                )
                .unwrap();
            }
        }
        Some(reference) => {
            // The same point at f64: the generic function's parameters are floats, integers,
            // `bool`s, slices, outputs, arrays and pairs.
            let mut ref_args = Vec::new();
            for (i, p) in f.params.iter().enumerate() {
                let wide = |v: &str| format!("crate::widen(&{v}{i})");
                ref_args.push(match p.ty {
                    Ty::F => format!("crate::pm::D::new(a{i} as f64, t{i} as f64)"),
                    Ty::U(_) | Ty::Bool => format!("a{i}"),
                    Ty::Slice(_) => format!("&crate::pm::duals(&{}, &{})[..]", wide("a"), wide("t")),
                    Ty::Out(_) if p.array => {
                        writeln!(body, "let mut q{i} = crate::pm::dual_arr(crate::pm::arr(&{}), crate::pm::arr(&{}));", wide("a"), wide("t")).unwrap();
                        format!("&mut q{i}")
                    }
                    Ty::Out(_) => {
                        writeln!(body, "let mut q{i} = crate::pm::duals(&{}, &{});", wide("a"), wide("t")).unwrap();
                        format!("&mut q{i}[..]")
                    }
                    Ty::Arr(_) => format!("crate::pm::dual_arr(crate::pm::arr(&{}), crate::pm::arr(&{}))", wide("a"), wide("t")),
                    Ty::Pair => format!("(crate::pm::D::new(a{i}.0 as f64, t{i}.0 as f64), crate::pm::D::new(a{i}.1 as f64, t{i}.1 as f64))"),
                    Ty::OptF => format!("a{i}.zip(t{i}).map(|(x, t)| crate::pm::D::new(x as f64, t as f64))"),
                    other => unreachable!("a generic function takes no {other:?}"),
                });
            }
            let or64 = if f.returns { "or64" } else { "_or64" };
            writeln!(body, "let {or64} = {reference}({});", ref_args.join(", ")).unwrap();
            if f.ret_opt {
                writeln!(body, "let or64 = or64.unwrap_or(crate::pm::lit(0.0));").unwrap();
            }
            for p in parts {
                writeln!(
                    body,
                    "ck.same_ref(\"jvp value{p}\", r{p}, or{p}.re, or64{p}.re, 1.0);"
                )
                .unwrap();
                writeln!(
                    body,
                    "ck.same_ref(\"jvp tangent{p}\", dr{p}, or{p}.eps, or64{p}.eps, 1.0);"
                )
                .unwrap();
            }
            for i in &seen {
                writeln!(
                    body,
                    "pm::same_slice_ref(ck, \"jvp {}\", &y{i}, &dy{i}, &o{i}, &q{i});",
                    f.params[*i].name
                )
                .unwrap();
            }
        }
    }

    // Reverse mode: <adjoint of the inputs, v> against the oracle's and ad's own JVP along v.
    let mut terms = Vec::new();
    if has_out || !f.returns {
        let mut bars = Vec::new();
        let mut rargs = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            match p.ty {
                Ty::Slice(n) => {
                    writeln!(body, "let mut b{i} = vec![0.0; {n}];").unwrap();
                    bars.push(format!("&mut b{i}[..]"));
                    terms.push(format!("pm::dot(&b{i}, &t{i})"));
                    rargs.push(args[i].clone());
                }
                Ty::Out(_) => {
                    writeln!(
                        body,
                        "let mut z{i} = a{i}.clone(); let mut ub{i} = u{i}.clone();"
                    )
                    .unwrap();
                    bars.push(format!("&mut ub{i}[..]"));
                    terms.push(format!("pm::dot(&ub{i}, &t{i})"));
                    rargs.push(if p.array {
                        format!("&mut z{i}")
                    } else {
                        format!("&mut z{i}[..]")
                    });
                }
                Ty::F => {
                    bars.push("()".into());
                    terms.push(format!("pm::dot(&[g.{i}], &[t{i}])"));
                    rargs.push(args[i].clone());
                }
                Ty::Pair => {
                    bars.push("()".into());
                    terms.push(format!("pm::dot(&[g.{i}.0, g.{i}.1], &[t{i}.0, t{i}.1])"));
                    rargs.push(args[i].clone());
                }
                Ty::OptF => {
                    bars.push("()".into());
                    terms.push(format!("pm::dot(&pm::opt(g.{i}), &pm::opt(t{i}))"));
                    rargs.push(args[i].clone());
                }
                Ty::Arr(_) | Ty::Vec(_) | Ty::ArrRef(_) => {
                    bars.push("()".into());
                    terms.push(format!("pm::dot(&g.{i}[..], &t{i}[..])"));
                    rargs.push(args[i].clone());
                }
                Ty::Struct(k, _) => {
                    bars.push("()".into());
                    terms.push(format!("pm::dot(&crate::sx::s{k}_flat(&g.{i}), &xt{i})"));
                    rargs.push(args[i].clone());
                }
                _ => {
                    bars.push("()".into());
                    rargs.push(args[i].clone());
                }
            }
        }
        let adj = if f.ret_opt {
            "if or_some { Some(rbar) } else { None }"
        } else if f.returns {
            "rbar.clone()"
        } else {
            "ad::NoTangent"
        };
        let r2 = if f.returns { "r2" } else { "_r2" };
        writeln!(
            body,
            "let ({r2}, g) = ad::vjp_into({path}, ({},), ({},), {adj});",
            rargs.join(", "),
            bars.join(", ")
        )
        .unwrap();
        let unwrap = if f.ret_opt { ".unwrap_or(0.0)" } else { "" };
        for p in parts {
            writeln!(
                body,
                "ck.same(\"vjp_into value{p}\", r2{p}{unwrap}, or{p}.re, 1.0);"
            )
            .unwrap();
        }
        if let Some(k) = f.ret_struct {
            writeln!(
                body,
                "pm::same_values(ck, \"vjp_into value\", &crate::sx::s{k}_vals(&r2), &od);"
            )
            .unwrap();
        }
        for i in &seen {
            writeln!(
                body,
                "pm::same_values(ck, \"vjp_into {}\", &z{i}, &o{i});",
                f.params[*i].name
            )
            .unwrap();
        }
    } else {
        match if f.pair || f.ret_opt || f.ret_struct.is_some() {
            2
        } else {
            k % 3
        } {
            0 => {
                writeln!(body, "let rbar = 1.0;").unwrap();
                writeln!(body, "let g = ad::grad({path}, ({},));", args.join(", ")).unwrap();
            }
            1 => {
                writeln!(body, "let rbar = 1.0;").unwrap();
                writeln!(
                    body,
                    "let (r2, g) = ad::value_and_grad({path}, ({},));",
                    args.join(", ")
                )
                .unwrap();
                writeln!(body, "ck.same(\"value_and_grad value\", r2, or.re, 1.0);").unwrap();
            }
            _ => {
                writeln!(
                    body,
                    "let (r2, pullback) = ad::vjp({path}, ({},));",
                    args.join(", ")
                )
                .unwrap();
                if f.ret_opt {
                    writeln!(
                        body,
                        "ck.same(\"vjp value\", r2.unwrap_or(0.0), or.re, 1.0);"
                    )
                    .unwrap();
                    writeln!(
                        body,
                        "let g = pullback(if or_some {{ Some(rbar) }} else {{ None }});"
                    )
                    .unwrap();
                } else {
                    for p in parts {
                        writeln!(body, "ck.same(\"vjp value{p}\", r2{p}, or{p}.re, 1.0);").unwrap();
                    }
                    if let Some(k) = f.ret_struct {
                        writeln!(
                            body,
                            "pm::same_values(ck, \"vjp value\", &crate::sx::s{k}_vals(&r2), &od);"
                        )
                        .unwrap();
                    }
                    writeln!(body, "let g = pullback(rbar.clone());").unwrap();
                }
            }
        }
        for (i, p) in f.params.iter().enumerate() {
            match p.ty {
                Ty::F => terms.push(format!("pm::dot(&[g.{i}], &[t{i}])")),
                Ty::Pair => terms.push(format!("pm::dot(&[g.{i}.0, g.{i}.1], &[t{i}.0, t{i}.1])")),
                Ty::OptF => terms.push(format!("pm::dot(&pm::opt(g.{i}), &pm::opt(t{i}))")),
                Ty::Slice(_) | Ty::Arr(_) | Ty::Vec(_) | Ty::ArrRef(_) => {
                    terms.push(format!("pm::dot(&g.{i}[..], &t{i}[..])"))
                }
                Ty::Struct(k, _) => {
                    terms.push(format!("pm::dot(&crate::sx::s{k}_flat(&g.{i}), &xt{i})"))
                }
                _ => {}
            }
        }
    }
    writeln!(body, "let mut lhs: (f64, f64) = (0.0, 0.0);").unwrap();
    for t in &terms {
        writeln!(body, "let d = {t}; lhs = (lhs.0 + d.0, lhs.1 + d.1);").unwrap();
    }
    // The oracle's and ad's forward derivative along the same v, weighted by the adjoints.
    writeln!(
        body,
        "let mut rhs: (f64, f64) = (0.0, 0.0); let mut own: (f64, f64) = (0.0, 0.0);"
    )
    .unwrap();
    for p in parts {
        writeln!(
            body,
            "let d = (rbar{p} * or{p}.eps) as f64; rhs = (rhs.0 + d, rhs.1 + d.abs());"
        )
        .unwrap();
        writeln!(
            body,
            "let d = (rbar{p} * dr{p}) as f64; own = (own.0 + d, own.1 + d.abs());"
        )
        .unwrap();
    }
    if f.ret_struct.is_some() {
        writeln!(
            body,
            "let d = pm::dot_eps(&rb, &od); rhs = (rhs.0 + d.0, rhs.1 + d.1);"
        )
        .unwrap();
        writeln!(
            body,
            "let d = pm::dot(&rb, &rt); own = (own.0 + d.0, own.1 + d.1);"
        )
        .unwrap();
    }
    for i in &seen {
        writeln!(
            body,
            "let d = pm::dot_eps(&u{i}, &o{i}); rhs = (rhs.0 + d.0, rhs.1 + d.1);"
        )
        .unwrap();
        writeln!(
            body,
            "let d = pm::dot(&u{i}, &dy{i}); own = (own.0 + d.0, own.1 + d.1);"
        )
        .unwrap();
    }
    writeln!(
        body,
        "ck.same(\"<adjoint, v> vs oracle jvp\", lhs.0, rhs.0, lhs.1.max(rhs.1));"
    )
    .unwrap();
    writeln!(
        body,
        "ck.same(\"<adjoint, v> vs ad jvp\", lhs.0, own.0, lhs.1.max(own.1));"
    )
    .unwrap();
    for line in body.lines() {
        writeln!(s, "        {line}").unwrap();
    }
    s.push_str("    }\n}\n\n");
    s
}
