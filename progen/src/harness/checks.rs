//! The checks of the generated crate's `main`: each function at a few points, `ad`'s modes
//! against the oracle over dual numbers and against each other.

use super::*;

/// The checks of one function at `POINTS` points.
pub(super) fn check(f: &Func, k: usize, defs: &[StructDef]) -> String {
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
