//! The struct types of a batch as the generated crate declares them, for `ad` and for the
//! oracle, and the helpers that build their values and tangents and flatten their adjoints.

use crate::ast::*;
use crate::print::Flavor;
use std::fmt::Write;

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
pub(super) fn struct_helpers(defs: &[StructDef]) -> String {
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
