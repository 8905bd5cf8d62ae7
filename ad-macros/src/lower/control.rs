//! Lowering of the control flow that leaves or chooses: `break`, `continue`, `loop` (also with a
//! value) and `match` on values without a derivative.
//!
//! A `loop`'s value lives in a hidden variable that each `break value` assigns before it leaves;
//! the loop expression reads it after the loop. A `match` becomes a chain of `if`s whose
//! conditions are `matches!` of its patterns and guards, over the scrutinee evaluated once: arm
//! bodies are then ordinary code whatever they compute, and both modes handle them as `if`s.

use super::{Lower, diverges_syntactically, err, find_control, may_write};
use crate::ir::{Block, Inst, LoopHead, Scrutinee, Value};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Pat};

const LABELLED_JUMP: &str = "#[differentiable] does not support `break` or `continue` with a label; set a flag before leaving the inner loop (`done = true; break;`) and test it after that loop (`if done { break; }`)";

impl Lower {
    pub(super) fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Inst>) {
        if let Some(label) = &b.label {
            let break_token = &b.break_token;
            self.errors
                .push(err(quote!(#break_token #label), LABELLED_JUMP));
            return;
        }
        if self.loop_depth == 0 {
            self.errors.push(err(
                b,
                "#[differentiable] supports `break` only inside a loop",
            ));
            return;
        }
        if let Some(value) = &b.expr {
            let innermost_is_loop = self
                .value_loops
                .last()
                .is_some_and(|(depth, _)| *depth == self.loop_depth);
            if !innermost_is_loop {
                self.errors.push(err(b, "#[differentiable] supports `break` with a value only in `loop`; assign the value to a variable declared before the loop, and `break;`"));
                return;
            }
            let v = self.expr(value, out);
            let var = match self.value_loops.last().and_then(|(_, var)| *var) {
                Some(var) => var,
                None => {
                    let ident = Ident::new(
                        &format!("__ad_loop_value{}", self.vars.len()),
                        Span::mixed_site(),
                    );
                    let var = self.new_var(ident, None, true);
                    self.value_loops.last_mut().expect("checked above").1 = Some(var);
                    var
                }
            };
            let ident = self.vars[var.0 as usize].ident.clone();
            self.assign(var, ident, v, out);
        }
        out.push(Inst::Break);
    }

    pub(super) fn continue_stmt(&mut self, c: &syn::ExprContinue, out: &mut Vec<Inst>) {
        if let Some(label) = &c.label {
            let continue_token = &c.continue_token;
            self.errors
                .push(err(quote!(#continue_token #label), LABELLED_JUMP));
            return;
        }
        if self.loop_depth == 0 {
            self.errors.push(err(
                c,
                "#[differentiable] supports `continue` only inside a loop",
            ));
            return;
        }
        out.push(Inst::Continue);
    }

    /// `loop { .. }`: its value if a `break` gives it one.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop, out: &mut Vec<Inst>) -> Option<Value> {
        // The label is dropped: only a labelled `break` or `continue` could use it, and those
        // are rejected.
        self.loop_depth += 1;
        self.value_loops.push((self.loop_depth, None));
        let body = self.block(&l.body);
        let (_, value_var) = self.value_loops.pop().expect("pushed above");
        self.loop_depth -= 1;
        if let Some(var) = value_var {
            out.push(Inst::Let { var, init: None });
        }
        out.push(Inst::Loop {
            head: LoopHead::Infinite,
            body: Block {
                insts: body.insts,
                result: None,
            },
        });
        value_var.map(|var| {
            let v = self.value(l.span());
            let ident = self.vars[var.0 as usize].ident.clone();
            out.push(Inst::Read { out: v, var, ident });
            v
        })
    }

    /// `match` on a value without a derivative, as `if`s: its value, if its arms have one.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, out: &mut Vec<Inst>) -> Option<Value> {
        let mut binds = false;
        for arm in &m.arms {
            if let Some(binding) = binding_in(&arm.pat) {
                self.errors.push(err(binding, "#[differentiable] does not support a `match` pattern that binds a name; bind the value with `let` before the `match` and match on literals, ranges or constants"));
                binds = true;
            }
        }
        if binds {
            return None;
        }
        let value = self.expr(&m.expr, out);
        // A local variable is examined in place (a `match` does not move it); anything else is
        // evaluated once, into a hidden variable.
        let local = self.local_var(&m.expr);
        self.scrutinees.push(Scrutinee {
            value,
            tokens: m.expr.to_token_stream(),
            var: local.as_ref().map(|(var, _)| *var),
        });
        let subject = match local {
            Some((_, ident)) => ident,
            None => {
                let ident = Ident::new(
                    &format!("__ad_match{}", self.vars.len()),
                    Span::mixed_site(),
                );
                let var = self.new_var(ident.clone(), None, false);
                out.push(Inst::Let {
                    var,
                    init: Some(value),
                });
                ident
            }
        };
        self.match_arms(&m.arms, &subject, m.span(), out)
    }

    /// The arms from the first of `arms` on: `if matches!(..) { body } else { the rest }`.
    fn match_arms(
        &mut self,
        arms: &[syn::Arm],
        subject: &Ident,
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
        if irrefutable(&arm.pat) {
            let block = self.arm_body(&arm.body);
            let result = block.result.map(|_| self.value(span));
            out.push(Inst::Block { out: result, block });
            return result;
        }
        let cond = self.arm_condition(arm, subject, out);
        let then_block = self.arm_body(&arm.body);
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let result = self.match_arms(rest, subject, span, &mut insts);
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

    /// `matches!(subject, pat if guard)`: a condition, without a derivative.
    fn arm_condition(&mut self, arm: &syn::Arm, subject: &Ident, out: &mut Vec<Inst>) -> Value {
        let (tokens, reads, writes) = match &arm.pat {
            Pat::Guard(g) => {
                let (pat, if_token, guard) = (&g.pat, &g.if_token, &g.guard);
                let guard_tokens = guard.to_token_stream();
                if let Some(bad) = find_control(&guard_tokens) {
                    self.errors.push(syn::Error::new(bad.span(), format!("#[differentiable] does not support `{bad}` inside this expression; move it into its own statement")));
                }
                let reads = self.reads_of(&guard_tokens);
                let writes = may_write(&guard_tokens);
                self.mark_pending(&reads, writes);
                (
                    quote!(::core::matches!(#subject, #pat #if_token #guard)),
                    reads,
                    writes,
                )
            }
            pat => (quote!(::core::matches!(#subject, #pat)), Vec::new(), false),
        };
        let v = self.value(arm.pat.span());
        out.push(Inst::Opaque {
            out: v,
            tokens,
            reads,
            may_write: writes,
            only_inactive: None,
        });
        v
    }

    /// An arm's body as a block of its own: its value, or `None` for `()` or when it leaves.
    fn arm_body(&mut self, body: &Expr) -> Block {
        self.scopes.push(HashMap::new());
        let mut insts = Vec::new();
        let result = if diverges_syntactically(body) {
            self.stmt_expr(body, &mut insts);
            None
        } else {
            self.expr_tail(body, &mut insts)
        };
        self.scopes.pop();
        Block { insts, result }
    }
}

/// Whether `b` has a `break` of the loop whose body it is (not of a loop inside it).
pub(super) fn breaks_out(b: &Block) -> bool {
    b.insts.iter().any(|inst| match inst {
        Inst::Break => true,
        Inst::Block { block, .. } => breaks_out(block),
        Inst::If {
            then_block,
            else_block,
            ..
        } => breaks_out(then_block) || breaks_out(else_block),
        _ => false,
    })
}

/// The first name a pattern binds, if any. A lone identifier that starts with a capital letter
/// is taken for a constant or a unit variant (`MAX`, `None`), as Rust's naming conventions have
/// it; the macro cannot see which names are in scope.
fn binding_in(pat: &Pat) -> Option<TokenStream> {
    match pat {
        Pat::Ident(p) => {
            let constant_like = p.ident.to_string().starts_with(char::is_uppercase);
            if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() || !constant_like
            {
                let (by_ref, mutability, ident) = (&p.by_ref, &p.mutability, &p.ident);
                Some(quote!(#by_ref #mutability #ident))
            } else {
                None
            }
        }
        Pat::Or(o) => o.cases.iter().find_map(binding_in),
        Pat::Paren(p) => binding_in(&p.pat),
        Pat::Guard(g) => binding_in(&g.pat),
        Pat::Reference(r) => binding_in(&r.pat),
        Pat::Tuple(t) => t.elems.iter().find_map(binding_in),
        Pat::TupleStruct(t) => t.elems.iter().find_map(binding_in),
        Pat::Slice(s) => s.elems.iter().find_map(binding_in),
        Pat::Struct(s) => s.fields.iter().find_map(|f| binding_in(&f.pat)),
        Pat::Type(t) => binding_in(&t.pat),
        _ => None,
    }
}

/// Whether a pattern without bindings matches every value: `_`, `(_, _)`, `_ | 0`; not one with
/// a guard.
fn irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) | Pat::Rest(_) => true,
        Pat::Paren(p) => irrefutable(&p.pat),
        Pat::Or(o) => o.cases.iter().any(irrefutable),
        Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        _ => false,
    }
}
