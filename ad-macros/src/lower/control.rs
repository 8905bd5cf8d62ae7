//! Lowering of the control flow that leaves: `break` and `continue` (also labelled, also with a
//! value), `loop` and labelled blocks.
//!
//! A `loop`'s value lives in a hidden variable that each `break value` assigns before it leaves;
//! the loop expression reads it after the loop. A labelled block is a `loop` that runs once:
//! Rust forbids an unlabelled `break` or `continue` inside it, so only its own label leaves it.
//!
//! A labelled jump to an outer loop is lowered as a careful person writes it by hand: it sets the
//! outer loop's hidden flag (1 to leave that loop, 2 to go on with its next iteration) and leaves
//! the innermost loop; after each loop it passes through, the flag is tested and the jump goes on
//! outwards. Both modes then see only unlabelled `break` and `continue`.

use super::{Lower, err};
use crate::ir::{Block, Inst, LoopHead, Value, Var};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use std::collections::BTreeSet;
use syn::Ident;
use syn::spanned::Spanned;

/// A loop (or labelled block) being lowered.
pub(super) struct LoopFrame {
    label: Option<String>,
    /// A `loop` or a labelled block: a `break` may give it a value.
    takes_value: bool,
    /// A labelled block: a `continue` cannot go to it.
    block: bool,
    /// The hidden variable its `break value`s assign, once one is seen.
    value_var: Option<Var>,
    /// The hidden flag a labelled jump from an inner loop sets, once one is seen.
    flag: Option<Var>,
    /// Whether a labelled `continue` from an inner loop goes to it.
    continued: bool,
    /// The outer frames (by depth) that a labelled jump from inside it goes on to.
    passes: BTreeSet<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Jump {
    Break,
    Continue,
}

const LEAVE: u8 = 1;
const NEXT: u8 = 2;

impl Lower {
    /// Starts lowering the body of a loop (or labelled block).
    pub(super) fn enter_loop(
        &mut self,
        label: Option<&syn::Label>,
        takes_value: bool,
        block: bool,
    ) {
        self.loops.push(LoopFrame {
            label: label.map(|l| l.name.ident.to_string()),
            takes_value,
            block,
            value_var: None,
            flag: None,
            continued: false,
            passes: BTreeSet::new(),
        });
    }

    /// Ends the body of the innermost loop; declares before the loop (in `out`) what its jumps
    /// need: the hidden variable of its value and its flag, set to 0.
    pub(super) fn leave_loop(&mut self, out: &mut Vec<Inst>) -> LoopFrame {
        let frame = self.loops.pop().expect("a loop is being lowered");
        let flagged = frame.flag.is_some() || !frame.passes.is_empty();
        match frame.value_var {
            Some(var) if !flagged => out.push(Inst::Let { var, init: None }),
            Some(var) => {
                // A jump from an inner loop leaves through a test of the flag, after which rustc
                // cannot see that the value was assigned; so does a jump from inside this loop
                // to one around it, which leaves it without a value. It starts as a value of its
                // type, never read.
                let init = self.value(Span::call_site());
                let krate = &self.krate;
                out.push(Inst::Opaque {
                    out: init,
                    tokens: quote!(#krate::ShapelessZero::shapeless_zero()),
                    reads: Vec::new(),
                    may_write: false,
                    only_inactive: None,
                });
                out.push(Inst::Let {
                    var,
                    init: Some(init),
                });
            }
            None => {}
        }
        if let Some(flag) = frame.flag {
            let zero = self.value(Span::call_site());
            out.push(Inst::Const {
                out: zero,
                tokens: quote!(0u8),
            });
            out.push(Inst::Let {
                var: flag,
                init: Some(zero),
            });
        }
        frame
    }

    /// After the loop of `frame` (pushed to `out`): the labelled jumps that left it go on to
    /// the loops they were for.
    pub(super) fn after_loop(&mut self, frame: &LoopFrame, out: &mut Vec<Inst>) {
        let parent = self.loops.len().wrapping_sub(1);
        for &target in frame.passes.iter().rev() {
            let flag = self.loops[target].flag.expect("a jump sets the flag");
            if target == parent {
                let leave = self.flag_test(flag, quote!(== #LEAVE), out);
                out.push(if_then(leave, vec![Inst::Break]));
                if self.loops[target].continued {
                    let next = self.flag_test(flag, quote!(== #NEXT), out);
                    let mut then = Vec::new();
                    self.set_flag(flag, 0, &mut then);
                    then.push(Inst::Continue);
                    out.push(if_then(next, then));
                }
            } else {
                let any = self.flag_test(flag, quote!(!= 0u8), out);
                out.push(if_then(any, vec![Inst::Break]));
                self.loops[parent].passes.insert(target);
            }
        }
    }

    /// The hidden variable of the innermost frame's value, made on first use.
    fn value_var(&mut self, depth: usize) -> Var {
        if let Some(var) = self.loops[depth].value_var {
            return var;
        }
        let ident = Ident::new(
            &format!("__ad_loop_value{}", self.vars.len()),
            Span::mixed_site(),
        );
        let var = self.new_var(ident, None, true);
        self.loops[depth].value_var = Some(var);
        var
    }

    fn flag_test(&mut self, flag: Var, test: TokenStream, out: &mut Vec<Inst>) -> Value {
        let ident = self.vars[flag.0 as usize].ident.clone();
        let v = self.value(Span::call_site());
        out.push(Inst::Opaque {
            out: v,
            tokens: quote!(#ident #test),
            reads: vec![flag],
            may_write: false,
            only_inactive: None,
        });
        v
    }

    fn set_flag(&mut self, flag: Var, to: u8, out: &mut Vec<Inst>) {
        let v = self.value(Span::call_site());
        out.push(Inst::Const {
            out: v,
            tokens: quote!(#to),
        });
        let ident = self.vars[flag.0 as usize].ident.clone();
        self.assign(flag, ident, v, out);
    }

    /// The frame a jump goes to: the innermost, or the one its label names.
    fn jump_target(
        &mut self,
        label: Option<&syn::Lifetime>,
        jump: Jump,
        tokens: &dyn ToTokens,
    ) -> Option<usize> {
        let word = match jump {
            Jump::Break => "break",
            Jump::Continue => "continue",
        };
        let Some(label) = label else {
            return match self.loops.len().checked_sub(1) {
                Some(depth) if !self.loops[depth].block => Some(depth),
                Some(_) => {
                    self.errors.push(err(tokens, format!("#[differentiable]: an unlabelled `{word}` inside a labelled block; name the block's label (`{word} 'label`)")));
                    None
                }
                None => {
                    self.errors.push(err(
                        tokens,
                        format!("#[differentiable] supports `{word}` only inside a loop"),
                    ));
                    None
                }
            };
        };
        let name = label.ident.to_string();
        let found = self
            .loops
            .iter()
            .rposition(|f| f.label.as_deref() == Some(name.as_str()));
        match found {
            Some(depth) if jump == Jump::Continue && self.loops[depth].block => {
                self.errors.push(err(
                    tokens,
                    "`continue` cannot go to a labelled block, only to a loop",
                ));
                None
            }
            Some(depth) => Some(depth),
            None => {
                self.errors.push(err(
                    label,
                    format!("#[differentiable] cannot find the loop labelled `{label}` around this `{word}`; labels of loops outside the function's body or inside closures cannot be jumped to"),
                ));
                None
            }
        }
    }

    /// Leaves frame `target` from the innermost one, or goes on with its next iteration.
    fn jump(&mut self, target: usize, jump: Jump, out: &mut Vec<Inst>) {
        let innermost = self.loops.len() - 1;
        let plain = match jump {
            Jump::Break => Inst::Break,
            Jump::Continue => Inst::Continue,
        };
        if target == innermost {
            out.push(plain);
            return;
        }
        let flag = match self.loops[target].flag {
            Some(flag) => flag,
            None => {
                let ident =
                    Ident::new(&format!("__ad_jump{}", self.vars.len()), Span::mixed_site());
                let flag = self.new_var(ident, Some(syn::parse_quote!(u8)), true);
                self.loops[target].flag = Some(flag);
                flag
            }
        };
        if jump == Jump::Continue {
            self.loops[target].continued = true;
        }
        self.set_flag(flag, if jump == Jump::Break { LEAVE } else { NEXT }, out);
        self.loops[innermost].passes.insert(target);
        out.push(Inst::Break);
    }

    pub(super) fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Inst>) {
        let Some(target) = self.jump_target(b.label.as_ref(), Jump::Break, b) else {
            return;
        };
        if let Some(value) = &b.expr {
            if !self.loops[target].takes_value {
                self.errors.push(err(b, "#[differentiable] supports `break` with a value only in `loop` and labelled blocks; assign the value to a variable declared before the loop, and `break;`"));
                return;
            }
            let v = self.expr(value, out);
            let var = self.value_var(target);
            let ident = self.vars[var.0 as usize].ident.clone();
            self.assign(var, ident, v, out);
        }
        self.jump(target, Jump::Break, out);
    }

    pub(super) fn continue_stmt(&mut self, c: &syn::ExprContinue, out: &mut Vec<Inst>) {
        if let Some(target) = self.jump_target(c.label.as_ref(), Jump::Continue, c) {
            self.jump(target, Jump::Continue, out);
        }
    }

    /// `loop { .. }`: its value if a `break` gives it one.
    pub(super) fn loop_expr(&mut self, l: &syn::ExprLoop, out: &mut Vec<Inst>) -> Option<Value> {
        self.enter_loop(l.label.as_ref(), true, false);
        let body = self.block(&l.body);
        let frame = self.leave_loop(out);
        out.push(Inst::Loop {
            head: LoopHead::Infinite,
            body: Block {
                insts: body.insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
        self.read_loop_value(&frame, l.span(), out)
    }

    /// `'label: { .. }`: a `loop` whose body ends by leaving it with the block's value.
    pub(super) fn labelled_block(
        &mut self,
        b: &syn::ExprBlock,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        self.enter_loop(b.label.as_ref(), true, true);
        let body = self.block(&b.block);
        let mut insts = body.insts;
        if let Some(result) = body.result {
            let depth = self.loops.len() - 1;
            let var = self.value_var(depth);
            let ident = self.vars[var.0 as usize].ident.clone();
            self.assign(var, ident, result, &mut insts);
        }
        insts.push(Inst::Break);
        let frame = self.leave_loop(out);
        out.push(Inst::Loop {
            head: LoopHead::Infinite,
            body: Block {
                insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
        self.read_loop_value(&frame, b.span(), out)
    }

    fn read_loop_value(
        &mut self,
        frame: &LoopFrame,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        frame.value_var.map(|var| {
            let v = self.value(span);
            let ident = self.vars[var.0 as usize].ident.clone();
            out.push(Inst::Read { out: v, var, ident });
            v
        })
    }
}

/// `if cond { then }`.
fn if_then(cond: Value, then: Vec<Inst>) -> Inst {
    Inst::If {
        out: None,
        cond,
        then_block: Block {
            insts: then,
            result: None,
        },
        else_block: Block {
            insts: Vec::new(),
            result: None,
        },
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
