//! Lowering of the constructs that test a value against patterns: `match` (arms with bindings
//! and guards), `if let`, `while let` and `let ... else`.
//!
//! Each becomes `if`s over the subject, evaluated once into a hidden variable (a local variable
//! is examined in place, as a `match` does). An arm's test is a condition without a derivative,
//! `matches!(subject, pattern)`, or `match subject { pattern if guard => true, _ => false }` with
//! a guard. The arm's bindings are made at the start of its body, in one of two ways:
//! - A pattern of names, tuples, arrays and constants (`v`, `(x, 0)`, `[a, b, ..]`) binds parts
//!   of the subject read as fields, `subject.0`, `subject[1]`: derivatives flow through them.
//! - Any other pattern (`Some(k)`, `Mode::Scaled { by }`, `k @ 1..=3`, `ref r`) binds through a
//!   `match` kept as written, which returns the bound values as a tuple. Those values have no
//!   derivative, so the subject must carry none (checked after activity analysis).

use super::verbatim::collect_names;
use super::{Lower, err, find_control, may_write};
use crate::ir::{Block, Inst, Scrutinee, Value, Var};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Pat};

/// One arm: a pattern, its guard, and what runs when it matches.
pub(super) struct Arm<'a> {
    pub(super) pat: &'a Pat,
    pub(super) guard: Option<&'a Expr>,
    pub(super) body: Body<'a>,
}

pub(super) enum Body<'a> {
    /// An expression: a `match` arm, the `else` of an `if let`.
    Expr(&'a Expr),
    /// The block of an `if let` or a `while let`.
    Block(&'a syn::Block),
    /// Nothing: an `if let` without `else`.
    Unit,
    /// `break`: a `while let` whose pattern does not match.
    Break,
}

/// The variable a `match` examines.
pub(super) struct Subject {
    var: Var,
    ident: Ident,
    /// Its entry in `Func::scrutinees`.
    index: usize,
}

impl Lower {
    /// `match` as `if`s: its value, if its arms have one.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, out: &mut Vec<Inst>) -> Option<Value> {
        // Kept as written where that can change nothing (a method call may take `&mut self`):
        // otherwise the subject is lowered, and an integer it computes from a float is a cast,
        // without derivative already.
        let subject = if m.arms.iter().any(|a| has_integer(&a.pat))
            && !super::verbatim::may_write(&m.expr.to_token_stream())
        {
            self.integer_subject(&m.expr, out)
        } else {
            self.subject(&m.expr, out)
        };
        let arms: Vec<Arm> = m
            .arms
            .iter()
            .map(|arm| {
                let (pat, guard) = split_guard(&arm.pat);
                Arm {
                    pat,
                    guard,
                    body: Body::Expr(&arm.body),
                }
            })
            .collect();
        self.arms(&arms, &subject, m.span(), out)
    }

    /// `if let pat = e { .. } else { .. }`, as a `match` of two arms.
    pub(super) fn if_let(
        &mut self,
        l: &syn::ExprLet,
        then: &syn::Block,
        els: Option<&Expr>,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let subject = self.subject(&l.expr, out);
        let wild = Pat::Wild(syn::PatWild {
            attrs: Vec::new(),
            underscore_token: Default::default(),
        });
        let arms = [
            Arm {
                pat: &l.pat,
                guard: None,
                body: Body::Block(then),
            },
            Arm {
                pat: &wild,
                guard: None,
                body: els.map_or(Body::Unit, Body::Expr),
            },
        ];
        self.arms(&arms, &subject, span, out)
    }

    /// `while let pat = e { body }`, as `loop { match e { pat => body, _ => break } }`.
    pub(super) fn while_let(&mut self, w: &syn::ExprWhile, l: &syn::ExprLet, out: &mut Vec<Inst>) {
        self.enter_loop(w.label.as_ref(), false, false);
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let subject = self.subject(&l.expr, &mut insts);
        let wild = Pat::Wild(syn::PatWild {
            attrs: Vec::new(),
            underscore_token: Default::default(),
        });
        let arms = [
            Arm {
                pat: &l.pat,
                guard: None,
                body: Body::Block(&w.body),
            },
            Arm {
                pat: &wild,
                guard: None,
                body: Body::Break,
            },
        ];
        self.arms(&arms, &subject, w.span(), &mut insts);
        self.scopes.pop();
        let frame = self.leave_loop(out);
        out.push(Inst::Loop {
            head: crate::ir::LoopHead::Infinite,
            body: Block {
                insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
    }

    /// `let pat = e else { .. };`: the `else` block runs (and leaves) unless `pat` matches; the
    /// bindings are in scope after the statement.
    pub(super) fn let_else(&mut self, pat: &Pat, init: &Expr, els: &Expr, out: &mut Vec<Inst>) {
        let pat = match pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let subject = self.subject(init, out);
        let test = self.test(pat, None, &subject, out);
        let else_block = match els {
            Expr::Block(b) if b.label.is_none() => self.block(&b.block),
            other => {
                self.errors.push(err(other, "`let ... else` takes a block"));
                return;
            }
        };
        out.push(Inst::If {
            out: None,
            cond: test,
            then_block: Block {
                insts: Vec::new(),
                result: None,
            },
            else_block: Block {
                insts: else_block.insts,
                result: None,
            },
        });
        for var in self.bind_arm(pat, &subject, out) {
            self.bind(var);
        }
    }

    /// The subject of a `match`: a local variable in place, anything else evaluated once.
    fn subject(&mut self, e: &Expr, out: &mut Vec<Inst>) -> Subject {
        let value = self.expr(e, out);
        let local = self.local_var(e);
        let index = self.scrutinees.len();
        self.scrutinees.push(Scrutinee {
            value,
            tokens: e.to_token_stream(),
            var: local.as_ref().map(|(var, _)| *var),
            without_derivative: None,
        });
        let (var, ident) = match local {
            Some(local) => local,
            None => self.hidden_subject(value, out),
        };
        Subject { var, ident, index }
    }

    /// A hidden variable bound to a `match`'s subject, evaluated once.
    fn hidden_subject(&mut self, value: Value, out: &mut Vec<Inst>) -> (Var, Ident) {
        let ident = Ident::new(
            &format!("__ad_match{}", self.vars.len()),
            Span::mixed_site(),
        );
        let var = self.new_var(ident.clone(), None, false);
        out.push(Inst::Let {
            var,
            init: Some(value),
        });
        (var, ident)
    }

    /// The subject of a `match` with an arm that compares it with an integer (`0 => ..`,
    /// `1..=3 => ..`), which rustc accepts only on an integer: a value without derivative,
    /// computed as written (`s.n` of a field the macro cannot see the type of, `bucket(x)` of
    /// a function returning `i32`).
    fn integer_subject(&mut self, e: &Expr, out: &mut Vec<Inst>) -> Subject {
        let value = self.verbatim(e, out, None);
        let index = self.scrutinees.len();
        self.scrutinees.push(Scrutinee {
            value,
            tokens: e.to_token_stream(),
            var: None,
            without_derivative: None,
        });
        let (var, ident) = self.hidden_subject(value, out);
        Subject { var, ident, index }
    }

    /// The arms from the first of `arms` on: `if test { bindings; body } else { the rest }`.
    fn arms(
        &mut self,
        arms: &[Arm],
        subject: &Subject,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let Some((arm, rest)) = arms.split_first() else {
            // No arm matched; rustc checks that the user's `match` is exhaustive.
            out.push(Inst::Verbatim {
                tokens: quote!(::core::unreachable!();),
                reads: Vec::new(),
                may_write: false,
                item: false,
            });
            return None;
        };
        if arm.guard.is_none() && irrefutable(arm.pat) {
            let block = self.arm_body(arm, subject);
            let result = block.result.map(|_| self.value(span));
            out.push(Inst::Block { out: result, block });
            return result;
        }
        if has_integer(arm.pat) {
            let scrutinee = &mut self.scrutinees[subject.index];
            if scrutinee.without_derivative.is_none() {
                scrutinee.without_derivative = Some((arm.pat.to_token_stream(), true));
            }
        }
        let cond = self.test(arm.pat, arm.guard, subject, out);
        let then_block = self.arm_body(arm, subject);
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let result = self.arms(rest, subject, span, &mut insts);
        self.scopes.pop();
        let else_block = Block { insts, result };
        let has_value = then_block.result.is_some() || else_block.result.is_some();
        let result = has_value.then(|| self.value(span));
        out.push(Inst::If {
            out: result,
            cond,
            then_block,
            else_block,
        });
        result
    }

    /// Whether the subject matches `pat` (and `guard`): a condition without a derivative.
    fn test(
        &mut self,
        pat: &Pat,
        guard: Option<&Expr>,
        subject: &Subject,
        out: &mut Vec<Inst>,
    ) -> Value {
        let s = &subject.ident;
        let mut reads = vec![subject.var];
        let mut writes = false;
        let tokens = match guard {
            None => {
                let pat = rebind(pat, &|_| false, false);
                quote!(::core::matches!(#s, #pat))
            }
            Some(guard) => {
                let guard_tokens = self.expand_views(guard.to_token_stream());
                if let Some(bad) = find_control(&guard_tokens) {
                    self.errors.push(syn::Error::new(bad.span(), format!("#[differentiable] does not support `{bad}` inside a guard; move it into the arm's body")));
                }
                let mut used = Vec::new();
                collect_names(guard_tokens.clone(), &mut |n| used.push(n.to_string()));
                let bound: Vec<String> =
                    bindings(pat).iter().map(|b| b.ident.to_string()).collect();
                // The guard reads the pattern's bindings and the variables around it.
                for var in self.reads_of(&guard_tokens) {
                    let name = self.vars[var.0 as usize].ident.to_string();
                    if !bound.contains(&name) && !reads.contains(&var) {
                        reads.push(var);
                    }
                }
                writes = may_write(&guard_tokens);
                self.mark_pending(&reads, writes);
                let pat = rebind(pat, &|n| used.iter().any(|u| u == n), false);
                let guard_tokens = self.strip_element_derefs(guard_tokens, &bound);
                quote!(match #s { #pat if #guard_tokens => true, _ => false })
            }
        };
        let v = self.value(pat.span());
        out.push(Inst::Opaque {
            out: v,
            tokens,
            reads,
            may_write: writes,
            only_inactive: None,
        });
        v
    }

    /// An arm's bindings and body, as a block of its own: its value, or `None` for `()` or
    /// when it leaves.
    fn arm_body(&mut self, arm: &Arm, subject: &Subject) -> Block {
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        for var in self.bind_arm(arm.pat, subject, &mut insts) {
            self.bind(var);
        }
        let result = match arm.body {
            Body::Expr(body) if super::diverges_syntactically(body) => {
                self.stmt_expr(body, &mut insts);
                None
            }
            Body::Expr(body) => self.expr_tail(body, &mut insts),
            Body::Block(b) => {
                let block = self.block(b);
                insts.extend(block.insts);
                block.result
            }
            Body::Unit => None,
            Body::Break => {
                insts.push(Inst::Break);
                None
            }
        };
        self.scopes.pop();
        Block { insts, result }
    }

    /// The variables `pat` binds from the subject, made in `out` (not yet in scope).
    fn bind_arm(&mut self, pat: &Pat, subject: &Subject, out: &mut Vec<Inst>) -> Vec<Var> {
        let names = bindings(pat);
        if names.is_empty() {
            return Vec::new();
        }
        let whole = self.value(pat.span());
        out.push(Inst::Read {
            out: whole,
            var: subject.var,
            ident: subject.ident.clone(),
        });
        let mut binds = Vec::new();
        if binds_parts(pat) {
            self.bind_parts(pat, whole, out, &mut binds);
            return binds;
        }
        // Bound by a `match` kept as written: values without a derivative.
        let scrutinee = &mut self.scrutinees[subject.index];
        if scrutinee.without_derivative.is_none() {
            scrutinee.without_derivative = Some((pat.to_token_stream(), false));
        }
        let s = &subject.ident;
        let idents: Vec<&Ident> = names.iter().map(|b| &b.ident).collect();
        let kept = rebind(pat, &|_| true, true);
        let writes = names.iter().any(|b| b.by_ref_mut);
        let tuple = self.value(pat.span());
        out.push(Inst::Opaque {
            out: tuple,
            tokens: quote!(match #s { #kept => (#(#idents,)*), _ => ::core::unreachable!() }),
            reads: vec![subject.var],
            may_write: writes,
            only_inactive: None,
        });
        for (i, b) in names.iter().enumerate() {
            let part = self.value(b.ident.span());
            out.push(Inst::Field {
                out: part,
                a: tuple,
                index: syn::Index {
                    index: i as u32,
                    span: b.ident.span(),
                }
                .into(),
                element: false,
                of: None,
            });
            let var = self.new_var(b.ident.clone(), None, b.mutable);
            out.push(Inst::Let {
                var,
                init: Some(part),
            });
            binds.push(var);
        }
        binds
    }

    /// Binds the names of a pattern of names, tuples, arrays and constants to the parts of
    /// `value` they stand for.
    fn bind_parts(&mut self, pat: &Pat, value: Value, out: &mut Vec<Inst>, binds: &mut Vec<Var>) {
        match pat {
            Pat::Ident(p) if is_binding(p) => {
                if let Some((_, sub)) = &p.subpat {
                    // `all @ (a, b)`: the whole and its parts.
                    self.values[value.0 as usize].needs_copy = true;
                    self.bind_parts(sub, value, out, binds);
                }
                let var = self.new_var(p.ident.clone(), None, p.mutability.is_some());
                out.push(Inst::Let {
                    var,
                    init: Some(value),
                });
                binds.push(var);
            }
            Pat::Paren(p) => self.bind_parts(&p.pat, value, out, binds),
            Pat::TupleStruct(t) if some_pattern(t).is_some() => {
                let inner = some_pattern(t).expect("tested");
                if bindings(inner).is_empty() {
                    return;
                }
                self.values[value.0 as usize].needs_copy = true;
                let part = self.value(inner.span());
                out.push(Inst::Payload {
                    out: part,
                    a: value,
                    unwrap: None,
                });
                self.bind_parts(inner, part, out, binds);
            }
            Pat::Tuple(t) => self.bind_part_elements(t.elems.iter(), value, false, out, binds),
            Pat::Slice(s) => self.bind_part_elements(s.elems.iter(), value, true, out, binds),
            _ => {}
        }
    }

    fn bind_part_elements<'p>(
        &mut self,
        elems: impl Iterator<Item = &'p Pat>,
        value: Value,
        element: bool,
        out: &mut Vec<Inst>,
        binds: &mut Vec<Var>,
    ) {
        // The subject may be assigned in the arm: its parts are read from a copy.
        self.values[value.0 as usize].needs_copy = true;
        for (i, elem) in elems.enumerate() {
            if bindings(elem).is_empty() {
                continue;
            }
            let part = self.value(elem.span());
            out.push(Inst::Field {
                out: part,
                a: value,
                index: syn::Index {
                    index: i as u32,
                    span: elem.span(),
                }
                .into(),
                element,
                of: None,
            });
            self.bind_parts(elem, part, out, binds);
        }
    }
}

/// A name a pattern binds.
struct Binding {
    ident: Ident,
    mutable: bool,
    by_ref_mut: bool,
}

/// `pat if guard` as its parts.
fn split_guard(pat: &Pat) -> (&Pat, Option<&Expr>) {
    match pat {
        Pat::Guard(g) => (&g.pat, Some(&*g.guard)),
        other => (other, None),
    }
}

/// Whether a lone name in a pattern binds it. A name that starts with a capital letter is
/// taken for a constant or a unit variant (`MAX`, `None`), as Rust's naming conventions have it:
/// the macro cannot see which names are in scope.
fn is_binding(p: &syn::PatIdent) -> bool {
    p.by_ref.is_some()
        || p.mutability.is_some()
        || p.subpat.is_some()
        || !p.ident.to_string().starts_with(char::is_uppercase)
}

/// The names `pat` binds, in the order they are written (those of the first alternative of an
/// or-pattern: every alternative binds the same names).
fn bindings(pat: &Pat) -> Vec<Binding> {
    fn walk(pat: &Pat, out: &mut Vec<Binding>) {
        match pat {
            Pat::Ident(p) => {
                if is_binding(p) {
                    out.push(Binding {
                        ident: p.ident.clone(),
                        mutable: p.mutability.is_some(),
                        by_ref_mut: p.by_ref.is_some() && p.mutability.is_some(),
                    });
                }
                if let Some((_, sub)) = &p.subpat {
                    walk(sub, out);
                }
            }
            Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    walk(first, out);
                }
            }
            Pat::Paren(p) => walk(&p.pat, out),
            Pat::Guard(g) => walk(&g.pat, out),
            Pat::Reference(r) => walk(&r.pat, out),
            Pat::Tuple(t) => t.elems.iter().for_each(|p| walk(p, out)),
            Pat::TupleStruct(t) => t.elems.iter().for_each(|p| walk(p, out)),
            Pat::Slice(s) => s.elems.iter().for_each(|p| walk(p, out)),
            Pat::Struct(s) => s.fields.iter().for_each(|f| walk(&f.pat, out)),
            Pat::Type(t) => walk(&t.pat, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(pat, &mut out);
    out
}

/// Whether `pat` is made of names, tuples, arrays (with `..` only at the end) and constants,
/// so that its bindings are parts of the subject: `v`, `(x, 0)`, `[a, b, ..]`.
fn binds_parts(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => {
            p.by_ref.is_none() && p.subpat.as_ref().is_none_or(|(_, sub)| binds_parts(sub))
        }
        Pat::Wild(_) | Pat::Lit(_) | Pat::Range(_) | Pat::Path(_) | Pat::Const(_) => true,
        Pat::TupleStruct(t) => some_pattern(t).is_some_and(binds_parts),
        Pat::Or(o) => o.cases.iter().all(|c| bindings(c).is_empty()),
        Pat::Paren(p) => binds_parts(&p.pat),
        Pat::Tuple(t) => elements_in_place(&t.elems),
        Pat::Slice(s) => elements_in_place(&s.elems),
        _ => false,
    }
}

/// The pattern inside `Some(..)`, if `t` is one (`Some`, `Option::Some`, `std::option::Option::Some`).
fn some_pattern(t: &syn::PatTupleStruct) -> Option<&Pat> {
    let path = syn::ExprPath {
        attrs: Vec::new(),
        qself: t.qself.clone(),
        path: t.path.clone(),
    };
    match t.elems.first() {
        Some(inner) if t.elems.len() == 1 && super::calls::is_some_path(&path) => Some(inner),
        _ => None,
    }
}

/// Every element is in place (no `..` before the last) and binds parts.
fn elements_in_place(elems: &syn::punctuated::Punctuated<Pat, syn::Token![,]>) -> bool {
    let n = elems.len();
    elems.iter().enumerate().all(|(i, e)| match e {
        Pat::Rest(_) => i + 1 == n,
        other => binds_parts(other),
    })
}

/// Whether a pattern without a guard matches every value: `_`, a name, tuples of these.
fn irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) | Pat::Rest(_) => true,
        Pat::Ident(p) => p.subpat.is_none() && is_binding(p),
        Pat::Paren(p) => irrefutable(&p.pat),
        Pat::Or(o) => {
            o.cases.iter().any(irrefutable) && o.cases.iter().all(|c| bindings(c).is_empty())
        }
        Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        _ => false,
    }
}

/// `pat` with every binding that `keep` does not keep replaced by `_` (`x @ p` by `p`), and
/// with `strip_mut` without the `mut` of the bindings it keeps.
fn rebind(pat: &Pat, keep: &dyn Fn(&str) -> bool, strip_mut: bool) -> TokenStream {
    fn walk(pat: &mut Pat, keep: &dyn Fn(&str) -> bool, strip_mut: bool) {
        match pat {
            Pat::Ident(p) if is_binding(p) => {
                if keep(&p.ident.to_string()) {
                    if strip_mut {
                        p.mutability = None;
                    }
                    if let Some((_, sub)) = &mut p.subpat {
                        walk(sub, keep, strip_mut);
                    }
                } else {
                    let replacement = match p.subpat.take() {
                        Some((_, sub)) => {
                            let mut sub = *sub;
                            walk(&mut sub, keep, strip_mut);
                            sub
                        }
                        None => Pat::Wild(syn::PatWild {
                            attrs: Vec::new(),
                            underscore_token: syn::Token![_](p.ident.span()),
                        }),
                    };
                    *pat = replacement;
                }
            }
            Pat::Or(o) => o.cases.iter_mut().for_each(|p| walk(p, keep, strip_mut)),
            Pat::Paren(p) => walk(&mut p.pat, keep, strip_mut),
            Pat::Reference(r) => walk(&mut r.pat, keep, strip_mut),
            Pat::Tuple(t) => t.elems.iter_mut().for_each(|p| walk(p, keep, strip_mut)),
            Pat::TupleStruct(t) => t.elems.iter_mut().for_each(|p| walk(p, keep, strip_mut)),
            Pat::Slice(s) => s.elems.iter_mut().for_each(|p| walk(p, keep, strip_mut)),
            Pat::Struct(s) => {
                for f in s.fields.iter_mut() {
                    walk(&mut f.pat, keep, strip_mut);
                    // `Point { x }` binds `x`: written out, `Point { x: _ }`.
                    if f.colon_token.is_none() && !matches!(&*f.pat, Pat::Ident(_)) {
                        f.colon_token = Some(Default::default());
                    }
                }
            }
            Pat::Type(t) => walk(&mut t.pat, keep, strip_mut),
            _ => {}
        }
    }
    let mut pat = pat.clone();
    walk(&mut pat, keep, strip_mut);
    pat.into_token_stream()
}

/// Whether `pat` compares the value itself with an integer literal (`0`, `1..=3`, `k @ 2..`):
/// the value is then an integer, not a value with a derivative that the macro took it for. (A
/// tuple's parts may be integers beside floats.)
fn has_integer(pat: &Pat) -> bool {
    let int = |e: &Expr| {
        matches!(
            e,
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) if !matches!(i.suffix(), "f32" | "f64")
        )
    };
    match pat {
        Pat::Lit(l) => matches!(&l.lit, syn::Lit::Int(i) if !matches!(i.suffix(), "f32" | "f64")),
        Pat::Range(r) => r.start.as_deref().is_some_and(int) || r.end.as_deref().is_some_and(int),
        Pat::Ident(p) => p.subpat.as_ref().is_some_and(|(_, s)| has_integer(s)),
        Pat::Or(o) => o.cases.iter().any(has_integer),
        Pat::Paren(p) => has_integer(&p.pat),
        _ => false,
    }
}
