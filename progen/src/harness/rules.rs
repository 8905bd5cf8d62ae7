//! The correct rules the generated crate gives some of its functions: forward and reverse
//! rules from the oracle's own derivatives, and reverse rules with residuals.

use crate::ast::*;
use std::fmt::Write;

/// A correct rule of `f` (all of whose parameters are floats): the oracle's own derivative.
pub(super) fn rule(f: &Func, forward: bool, attribute: bool) -> String {
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
pub(super) fn augmented(f: &Func) -> String {
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
