//! Abrupt exits (`return`, `break`, `continue`): their ids, the exits a block holds, and the
//! two sweeps of a loop that one of them can leave.

use super::*;

impl Reverse<'_> {
    pub(super) fn has_returns(&self) -> bool {
        !self.returns.is_empty()
    }

    pub(super) fn next_exit(&self) -> u32 {
        (self.returns.len() + self.jumps.len()) as u32 + 1
    }

    /// Whether the reverse sweep emitted here may not be live: after a return point it has not
    /// reached yet, or in a loop body after a `break` or `continue` it has not reached yet.
    pub(super) fn guarded(&self) -> bool {
        self.has_returns() || self.in_exit_loop.get() > 0
    }

    /// The exits inside `b` that leave it: return points at any depth, and the `break`s and
    /// `continue`s that are not inside a loop nested in `b`.
    pub(super) fn exits_in(&self, b: &Block) -> Vec<u32> {
        let mut out = Vec::new();
        for inst in &b.insts {
            let key = std::ptr::from_ref(inst);
            match inst {
                Inst::Return { .. } => out.push(self.returns[&key]),
                Inst::Break | Inst::Continue => out.push(self.jumps[&key]),
                Inst::Block { block, .. } => out.extend(self.exits_in(block)),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    out.extend(self.exits_in(then_block));
                    out.extend(self.exits_in(else_block));
                }
                Inst::Loop { body, .. } => out.extend(self.returns_in(body)),
                _ => {}
            }
        }
        out
    }

    /// The return points inside `b`, at any depth.
    fn returns_in(&self, b: &Block) -> Vec<u32> {
        let mut out = Vec::new();
        for inst in &b.insts {
            match inst {
                Inst::Return { .. } => out.push(self.returns[&std::ptr::from_ref(inst)]),
                Inst::Block { block, .. } => out.extend(self.returns_in(block)),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    out.extend(self.returns_in(then_block));
                    out.extend(self.returns_in(else_block));
                }
                Inst::Loop { body, .. } => out.extend(self.returns_in(body)),
                _ => {}
            }
        }
        out
    }
}

impl Reverse<'_> {
    /// The forward sweep of a loop that an exit can leave: the trip count is counted at the start
    /// of each iteration, so that an iteration that ends early counts too, and goes on the tape
    /// after the loop, after the loop's marker in `LoopMode::Marker`. In
    /// `LoopMode::PerIteration` each iteration that ends normally pushes a 0 marker.
    pub(super) fn forward_exit_loop(
        &mut self,
        inst: &Inst,
        head: &crate::ir::LoopHead,
        body: &Block,
        al: &Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let tape = hyg("__tape");
        let index = self.loop_index(inst);
        let n = hyg(&format!("__n{index}"));
        let mode = loop_mode(body);
        let marker = (mode == LoopMode::Marker).then(|| hyg(&format!("__m{index}")));
        let mut inside = decisions.to_vec();
        inside.push(Enclosing::Loop {
            trips: n.clone(),
            marker: marker.clone(),
        });
        let mut inner = al.clone();
        let body = self.forward_block(body, &mut inner, &inside);
        let end = (mode == LoopMode::PerIteration).then(|| quote!(#tape.push(0u32);));
        let looped = match head {
            crate::ir::LoopHead::For { pat, var, iter, .. } => {
                let it = self.p(*iter, al);
                let witness = var.map(|v| self.binding_witness(v));
                quote!(for #pat in #it { #n += 1; #witness #body #end })
            }
            crate::ir::LoopHead::While { cond_block, cond } => {
                let mut c_al = al.clone();
                let c_body = self.forward_block(cond_block, &mut c_al, decisions);
                let c = self.p(*cond, &c_al);
                quote!(while { #c_body #c } { #n += 1; #body #end })
            }
            crate::ir::LoopHead::Infinite => quote!(loop { #n += 1; #body #end }),
        };
        let (marker_decl, marker_push) = match &marker {
            Some(m) => (quote!(let mut #m: u32 = 0;), quote!(#tape.push(#m);)),
            None => (TokenStream::new(), TokenStream::new()),
        };
        quote! {
            let mut #n: usize = 0;
            #marker_decl
            #looped
            #marker_push
            #tape.push(#n);
        }
    }

    /// The reverse sweep of a loop that an exit can leave. An iteration that ended by exit `k`
    /// is replayed from that exit on: the sweep is not live, and looks for `k`, until it passes
    /// `k`, whose reverse makes it live again; so it is live after every iteration.
    pub(super) fn reverse_exit_loop(&self, body: &Block) -> TokenStream {
        let tape = hyg("__tape");
        let live = hyg("__live");
        let exit = hyg("__exit");
        let trips = hyg("__trips");
        let mark = hyg("__mark");
        let guarded = self.guarded();
        self.in_exit_loop.set(self.in_exit_loop.get() + 1);
        let inner = self.reverse_block(body);
        self.in_exit_loop.set(self.in_exit_loop.get() - 1);
        let ended = quote! {
            let #mark: u32 = #tape.pop();
            if #mark != 0 {
                #live = false;
                #exit = #mark;
            }
        };
        let code = match loop_mode(body) {
            LoopMode::PerIteration => quote! {
                let #trips: usize = #tape.pop();
                for _ in 0..#trips {
                    #ended
                    #inner
                }
            },
            // Only the last iteration, replayed first, can have ended early.
            _ => quote! {
                let #trips: usize = #tape.pop();
                #ended
                for _ in 0..#trips {
                    #inner
                }
            },
        };
        if !guarded {
            return code;
        }
        // Entered when the sweep is live, or when it starts at a return inside.
        let inside = self.returns_in(body);
        quote!(if #live #(|| #exit == #inside)* { #code })
    }
}
