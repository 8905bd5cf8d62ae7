//! Shared indices: a read `p[i]` of a slice parameter whose multiplication keeps the index
//! instead of the element, so that the read keeps nothing of its own.

use super::*;

impl<'a> Reverse<'a> {
    /// Finds the reads `p[i]` of a `&[T]` parameter whose index goes on the tape, followed in the
    /// same block, with only reads and arithmetic between, by a multiplication that keeps the
    /// element: the multiplication keeps `i` instead and reads `p[i]` again (`p` cannot be
    /// written), and the read's own record goes. The reverse sweep of the multiplication runs
    /// just before that of the read, in the same scope, so the index it binds is there for the
    /// read. Not where the reverse sweep may not be live (a function with `return`s, a loop
    /// body an exit can leave), whose instructions are guarded one by one, each in a scope of
    /// its own.
    pub(super) fn plan_shared_indices(&mut self, b: &'a Block, exits: bool) {
        for (pos, inst) in b.insts.iter().enumerate() {
            match inst {
                Inst::Block { block, .. } => self.plan_shared_indices(block, exits),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.plan_shared_indices(then_block, exits);
                    self.plan_shared_indices(else_block, exits);
                }
                Inst::Loop { body, .. } => {
                    self.plan_shared_indices(body, exits || loop_mode(body) != LoopMode::Plain);
                }
                Inst::Index {
                    out,
                    var,
                    ident,
                    index,
                } if !exits
                    && matches!(
                        self.layouts.get(&out.0).map(Vec::as_slice),
                        Some([Src::Tape])
                    )
                    && self.func.params.iter().any(|p| p.var == *var)
                    && self.func.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .and_then(crate::lower::slice_of)
                        .is_some_and(|(mutable, _)| !mutable) =>
                {
                    for later in &b.insts[pos + 1..] {
                        match later {
                            Inst::Arith {
                                out: m,
                                op: Arith::Mul,
                                a,
                                b: bb,
                                ..
                            } if a == out || bb == out => {
                                let k = usize::from(a != out);
                                let name = hyg(&format!("__j{}", out.0));
                                if let Some(layout) = self.layouts.get_mut(&m.0)
                                    && matches!(layout[k], Src::Tape)
                                {
                                    layout[k] = Src::Elem {
                                        ident: ident.clone(),
                                        index: *index,
                                        name: name.clone(),
                                    };
                                    self.layouts.insert(out.0, vec![Src::Inline(quote!(#name))]);
                                    self.recorded.retain(|v| v != out);
                                }
                                break;
                            }
                            // Nothing between writes a variable or leaves the block.
                            i if is_pure(i) => {}
                            _ => break,
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
