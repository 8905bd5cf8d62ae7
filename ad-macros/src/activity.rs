//! Activity analysis: which values and variables may carry a derivative.
//!
//! A value is active if it depends on an active parameter through an operation that propagates
//! derivatives. The analysis over-approximates (a variable is active if any write to it is), and
//! that is safe: generated code takes tangent types from traits, so a value wrongly thought active
//! gets a zero-sized `NoTangent`, never a wrong derivative. Only inactive values skip work.

use crate::ir::{Block, Func, Inst, Value, Var};
use crate::lower::known_inactive;

pub struct Activity {
    pub values: Vec<bool>,
    /// Per name, not per binding: a name written in two macro contexts may stand for two
    /// bindings the macro cannot tell apart, so all bindings of a name carry a tangent as soon
    /// as one of them needs it. Generated code then names each tangent after the identifier as
    /// written, and rustc's own resolution pairs it with its primal.
    groups: Vec<bool>,
    group_of: Vec<usize>,
}

impl Activity {
    pub fn value(&self, v: Value) -> bool {
        self.values[v.0 as usize]
    }

    pub fn var(&self, v: Var) -> bool {
        self.groups[self.group_of[v.0 as usize]]
    }
}

pub fn analyse(func: &Func) -> Activity {
    let mut names: Vec<String> = Vec::new();
    let group_of = func
        .vars
        .iter()
        .map(|v| {
            let name = v.ident.to_string();
            names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            })
        })
        .collect();
    let mut act = Activity {
        values: vec![false; func.values.len()],
        groups: vec![false; names.len()],
        group_of,
    };
    for p in &func.params {
        let mut changed = false;
        set_var(func, &mut act, p.var, true, &mut changed);
    }
    // Iterate to a fixed point: a variable assigned an active value later in the body (or, with
    // loops, in a later iteration) makes earlier reads of it active too.
    loop {
        let mut changed = false;
        block(func, &func.body, &mut act, &mut changed);
        if !changed {
            return act;
        }
    }
}

fn set_value(act: &mut Activity, v: Value, active: bool, changed: &mut bool) {
    if active && !act.values[v.0 as usize] {
        act.values[v.0 as usize] = true;
        *changed = true;
    }
}

/// A write of an active value makes the variable active, unless its declared type has no
/// derivative.
fn set_var(func: &Func, act: &mut Activity, var: Var, active: bool, changed: &mut bool) {
    let group = act.group_of[var.0 as usize];
    if active && !func.vars[var.0 as usize].known_inactive && !act.groups[group] {
        act.groups[group] = true;
        *changed = true;
    }
}

fn block(func: &Func, b: &Block, act: &mut Activity, changed: &mut bool) {
    for inst in &b.insts {
        match inst {
            Inst::Const { .. }
            | Inst::Opaque { .. }
            | Inst::Inactive { .. }
            | Inst::Verbatim { .. } => {}
            Inst::Read { out, var, .. } => {
                let a = act.var(*var);
                set_value(act, *out, a, changed);
            }
            Inst::Neg { out, a }
            | Inst::Field { out, a, .. }
            | Inst::Wrap { out, a }
            | Inst::Payload { out, a, .. } => {
                let a = act.value(*a);
                set_value(act, *out, a, changed);
            }
            Inst::Arith { out, a, b, .. } => {
                let x = act.value(*a) || act.value(*b);
                set_value(act, *out, x, changed);
            }
            Inst::Method {
                out,
                recv,
                args,
                prim,
                ..
            } => {
                // `powi`'s exponent is an integer: only the receiver carries a derivative.
                let x = act.value(*recv)
                    || (prim.shape != crate::prims::Shape::PowI
                        && args.iter().any(|a| act.value(*a)));
                set_value(act, *out, x, changed);
            }
            Inst::Call {
                out, args, lent, ..
            } => {
                let x = args.iter().any(|a| act.value(*a));
                set_value(act, *out, x, changed);
                // A local lent mutably is written by the call, with what its arguments give.
                for var in lent.iter().filter_map(|l| l.mutable()) {
                    set_var(func, act, var, x, changed);
                }
            }
            Inst::Cast { out, a, ty, .. } => {
                let x = act.value(*a) && !known_inactive(ty);
                set_value(act, *out, x, changed);
            }
            Inst::Tuple { out, elems } => {
                let x = elems.iter().any(|a| act.value(*a));
                set_value(act, *out, x, changed);
            }
            Inst::SetField { out, a, value, .. } => {
                let x = act.value(*a) || act.value(*value);
                set_value(act, *out, x, changed);
            }
            Inst::Struct {
                out, fields, rest, ..
            } => {
                let x = fields
                    .iter()
                    .map(|(_, v)| v)
                    .chain(rest)
                    .any(|a| act.value(*a));
                set_value(act, *out, x, changed);
            }
            Inst::Let { var, init } => {
                if let Some(init) = init {
                    let x = act.value(*init);
                    set_var(func, act, *var, x, changed);
                }
            }
            Inst::Assign { var, value, .. } => {
                let x = act.value(*value);
                set_var(func, act, *var, x, changed);
            }
            Inst::Block { out, block: inner } => {
                block(func, inner, act, changed);
                if let (Some(out), Some(r)) = (out, inner.result) {
                    let x = act.value(r);
                    set_value(act, *out, x, changed);
                }
            }
            Inst::If {
                out,
                then_block,
                else_block,
                ..
            } => {
                block(func, then_block, act, changed);
                block(func, else_block, act, changed);
                if let Some(out) = out {
                    let x = [then_block.result, else_block.result]
                        .into_iter()
                        .flatten()
                        .any(|r| act.value(r));
                    set_value(act, *out, x, changed);
                }
            }
            Inst::Return { .. } => {}
            Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                let a = act.var(*var);
                set_value(act, *out, a, changed);
            }
            Inst::FieldIndex { out, a, .. } => {
                let x = act.value(*a);
                set_value(act, *out, x, changed);
            }
            Inst::IndexAssign { var, value, .. } => {
                let x = act.value(*value);
                set_var(func, act, *var, x, changed);
            }
            Inst::Array { out, elems, .. } => {
                let x = elems.iter().any(|a| act.value(*a));
                set_value(act, *out, x, changed);
            }
            Inst::Repeat { out, elem, .. } => {
                let x = act.value(*elem);
                set_value(act, *out, x, changed);
            }
            Inst::Break | Inst::Continue => {}
            Inst::Loop { head, body } => {
                if let crate::ir::LoopHead::While { cond_block, .. } = head {
                    block(func, cond_block, act, changed);
                }
                block(func, body, act, changed);
            }
        }
    }
}

/// Errors for verbatim expressions that read a variable carrying a derivative.
pub fn check(func: &Func, act: &Activity, errors: &mut Vec<syn::Error>) {
    check_block(func, &func.body, act, errors);
    check_scrutinees(func, act, errors);
}

/// Errors for `match`es on values that carry a derivative whose patterns need a value without
/// one: a derivative passes only through names, tuples, arrays and `Some`.
fn check_scrutinees(func: &Func, act: &Activity, errors: &mut Vec<syn::Error>) {
    for s in &func.scrutinees {
        let Some((pattern, integer)) = &s.without_derivative else {
            continue;
        };
        if !act.value(s.value) {
            continue;
        }
        let declared_float = s.var.is_some_and(|v| {
            func.vars[v.0 as usize]
                .ty
                .as_ref()
                .is_some_and(crate::lower::is_float_type)
        });
        let integer_hint = if declared_float {
            ""
        } else {
            "; if the value is an integer, give it its type in a `let` before the `match` (`let k: usize = ...;`)"
        };
        let why = if *integer {
            "it compares the value with an integer"
        } else {
            "a derivative passes only through names, tuples, arrays and `Some` (`x`, `(a, b)`, `[a, b]`, `Some(v)`, `all @ (a, b)`), \
             not through an enum or a struct of your own, nor through `ref`; hold the floats in an `Option`, a tuple or an array, or"
        };
        let choose = if *integer { "; choose" } else { " choose" };
        errors.push(syn::Error::new_spanned(
            &s.tokens,
            format!(
                "#[differentiable] does not support the pattern `{pattern}` on a value that carries a derivative: \
                 {why}{choose} with `if`/`else` on the float itself (`if x > 0.0 {{ .. }} else {{ .. }}`){integer_hint}"
            ),
        ));
    }
}

/// Whether code kept as written may change `var`: not if it is bound without `mut` and not
/// declared a `&mut` (a float parameter `x: f64`, a `s: &Model`, `let st = S0 { .. };`), which
/// nothing can change (rustc rejects any write to it), even through a method of unknown
/// receiver mode. A binding without a type that holds a `&mut` is a view of its variable,
/// whose reads in the tokens are the variable's.
fn may_change(func: &Func, var: crate::ir::Var) -> bool {
    let data = &func.vars[var.0 as usize];
    data.mutable
        || data
            .ty
            .as_ref()
            .is_some_and(|t| matches!(t, syn::Type::Reference(r) if r.mutability.is_some()))
}

fn check_block(func: &Func, b: &Block, act: &Activity, errors: &mut Vec<syn::Error>) {
    for inst in &b.insts {
        // Tokens kept verbatim must not change a variable that carries a derivative: the
        // change would not reach its tangent.
        // (An unsupported construct is reported as such below, not as a write.)
        if let Inst::Opaque {
            tokens,
            reads,
            may_write: true,
            only_inactive: None,
            ..
        }
        | Inst::Verbatim {
            tokens,
            reads,
            may_write: true,
            ..
        } = inst
            && let changed = crate::lower::changed_names(tokens)
            && let Some(var) = reads.iter().find(|v| {
                let data = &func.vars[v.0 as usize];
                act.var(**v)
                    && may_change(func, **v)
                    && changed
                        .as_ref()
                        .is_none_or(|names| names.contains(&data.ident.to_string()))
            })
        {
            let name = user_name(&func.vars[var.0 as usize].ident);
            errors.push(syn::Error::new_spanned(
                tokens,
                format!(
                    "#[differentiable] cannot keep this as it is: it may change `{name}`, which carries a derivative, \
                     and the change would not reach the derivative; assign to `{name}` in a statement of its own (`{name} = ...;`), \
                     and call functions by value rather than through `&mut`"
                ),
            ));
            continue;
        }
        match inst {
            Inst::Opaque {
                tokens,
                reads,
                only_inactive: Some(unsupported),
                ..
            } => {
                if let Some(var) = reads.iter().find(|v| act.var(**v)) {
                    let data = &func.vars[var.0 as usize];
                    let name = user_name(&data.ident);
                    // A variable without a float type may be an integer the macro cannot see.
                    let declared_float = data.ty.as_ref().is_some_and(crate::lower::is_float_type);
                    let integer_hint = if declared_float || name == "self" {
                        String::new()
                    } else {
                        format!(
                            ", or give `{name}` an integer type in its `let` if it has no derivative"
                        )
                    };
                    let (what, fix) = (unsupported.what, unsupported.fix);
                    errors.push(syn::Error::new_spanned(
                        tokens,
                        format!(
                            "#[differentiable] does not support {what} that reads `{name}`, which carries a derivative; {fix}{integer_hint}"
                        ),
                    ));
                }
            }
            Inst::Block { block, .. } => check_block(func, block, act, errors),
            Inst::Loop { head, body } => {
                if let crate::ir::LoopHead::While { cond_block, .. } = head {
                    check_block(func, cond_block, act, errors);
                }
                check_block(func, body, act, errors);
            }
            Inst::If {
                then_block,
                else_block,
                ..
            } => {
                check_block(func, then_block, act, errors);
                check_block(func, else_block, act, errors);
            }
            _ => {}
        }
    }
}

/// A variable's name as the user wrote it: a method's receiver is `self`, not the parameter
/// `__ad_self` it is differentiated as.
fn user_name(ident: &syn::Ident) -> String {
    if ident == "__ad_self" {
        "self".to_string()
    } else {
        ident.to_string()
    }
}
