//! The reverse sweep of a loop no exit leaves: the loop replayed, last iteration first, and
//! what goes around the replay.
//!
//! **Reads at the last iteration's index.** Before a replayed `for` loop, the reverse sweep reads
//! the elements of read-only slice and array parameters (and of the slices' adjoint buffers)
//! that every iteration reads at the loop variable plus a literal, at the last iteration's
//! index. The forward sweep read them, so the reads cannot fail, and they tell the compiler that
//! every index of the loop is in bounds, so that it drops the checks inside it.
//!
//! **Sums of one element.** Reads of one and the same element in every iteration of a loop have
//! their adjoints add up in a local while the reverse sweep replays the loop, and reach the
//! element once, after it.
//!
//! In `for b in a + 1..d { qxc[b] += l[idx] * xc[a]; idx += 1; }` every iteration reads `xc[a]`,
//! and the reverse sweep added each iteration's adjoint to `xc`'s adjoint at `a`: a load and a
//! store of one element per iteration, each waiting for the last. The sum in a local is the same
//! sum, added in another order. The loop must be one no exit leaves, the read must be in the loop
//! body itself (not under an `if` or in an inner loop), the index a variable or a literal, and
//! the loop must neither declare nor write the variable read or the index's variable; the reverse
//! sweep must have the index outside the loop (computed again, not kept per iteration). Nothing
//! in such a loop takes the element's adjoint out (only a write of the element would), so adding
//! the sum later changes nothing else.

use super::*;

/// The local in which the adjoints of a summed read add up.
pub(super) fn sum_ident(out: Value) -> Ident {
    hyg(&format!("__sum{}", out.0))
}

impl<'a> Reverse<'a> {
    /// Finds, per replayed loop, the reads that every iteration makes of a parameter that
    /// `read_again` allows, at an index that grows with the loop variable.
    pub(super) fn plan_last_reads(
        &mut self,
        defs: &HashMap<u32, Src>,
        read_again: &dyn Fn(Var) -> bool,
    ) {
        for (inst, body, ri) in self.replayed_loops() {
            let key = std::ptr::from_ref(inst);
            let ri = &ri;
            let mut reads: Vec<TokenStream> = Vec::new();
            for i in &body.insts {
                if let Inst::Index {
                    var, ident, index, ..
                } = i
                    && read_again(*var)
                    && let Some(at) = raw(defs, *index)
                    && offset_of(&at, ri).is_some_and(|k| k >= 0)
                {
                    // A slice's adjoint buffer is as long as the slice: the check on it lets
                    // the compiler drop the buffer's checks as well.
                    let read = if self.is_slice(*var) {
                        let bar = bar_ident(*var);
                        quote!(let _ = &#ident[#at]; let _ = &#bar[#at];)
                    } else {
                        quote!(let _ = &#ident[#at];)
                    };
                    if !reads.iter().any(|r| r.to_string() == read.to_string()) {
                        reads.push(read);
                    }
                }
            }
            if !reads.is_empty() {
                self.last_reads.insert(key, reads);
            }
        }
    }

    /// Finds the reads to sum, per plain loop.
    pub(super) fn plan_sums(&mut self) {
        for inst in self.func.body.all_insts() {
            let Inst::Loop { body, .. } = inst else {
                continue;
            };
            if loop_mode(body) != LoopMode::Plain {
                continue;
            }
            let changing = self.changing(inst, None);
            // The instructions of the body itself that define the indices.
            let defs: HashMap<u32, &Inst> = body
                .insts
                .iter()
                .filter_map(|i| match i {
                    Inst::Read { out, .. } | Inst::Const { out, .. } => Some((out.0, i)),
                    _ => None,
                })
                .collect();
            let steady = |var: &Var| !changing.contains(&var.0);
            let summed: Vec<(Value, Var)> = body
                .insts
                .iter()
                .filter_map(|i| match i {
                    Inst::Index {
                        out, var, index, ..
                    } if self.active(*out)
                        && self.contributed.contains(&out.0)
                        && (self.is_slice(*var) || self.var_contributed.contains(&var.0))
                        && steady(var)
                        && match defs.get(&index.0) {
                            Some(Inst::Read { var, .. }) => steady(var),
                            Some(Inst::Const { .. }) => true,
                            _ => false,
                        }
                        && matches!(
                            self.layouts.get(&out.0).and_then(|l| l.first()),
                            Some(Src::Inline(_))
                        ) =>
                    {
                        Some((*out, *var))
                    }
                    _ => None,
                })
                .collect();
            if !summed.is_empty() {
                self.summed.insert(std::ptr::from_ref(inst), summed);
            }
        }
    }

    /// The variables the loop `inst` declares or may write, its condition and its own variable
    /// included, leaving out the instruction `skip`.
    pub(super) fn changing(&self, inst: &Inst, skip: Option<*const Inst>) -> HashSet<u32> {
        let Inst::Loop { head, body } = inst else {
            return HashSet::new();
        };
        let mut inside = body.all_insts();
        let mut changing: HashSet<u32> = HashSet::new();
        match head {
            crate::ir::LoopHead::For { var: Some(v), .. } => {
                changing.insert(v.0);
            }
            crate::ir::LoopHead::While { cond_block, .. } => {
                inside.extend(cond_block.all_insts());
            }
            _ => {}
        }
        inside.retain(|i| skip != Some(std::ptr::from_ref(*i)));
        let call_args: HashSet<u32> = inside
            .iter()
            .flat_map(|i| match i {
                Inst::Call { args, .. } => args.iter().map(|a| a.0).collect(),
                _ => Vec::new(),
            })
            .collect();
        for i in &inside {
            changing.extend(i.may_write_reads().iter().map(|r| r.0));
            match i {
                Inst::Let { var, .. }
                | Inst::Assign { var, .. }
                | Inst::IndexAssign { var, .. }
                | Inst::Loop {
                    head: crate::ir::LoopHead::For { var: Some(var), .. },
                    ..
                } => {
                    changing.insert(var.0);
                }
                // A variable passed to a call may be written there (a `&mut [T]` output).
                Inst::Read { out, var, .. } if call_args.contains(&out.0) => {
                    changing.insert(var.0);
                }
                _ => {}
            }
        }
        changing
    }

    /// Whether the adjoint of the read `out` adds up in a local while its loop is replayed.
    pub(super) fn is_summed(&self, out: Value) -> bool {
        self.summed.values().flatten().any(|&(o, _)| o == out)
    }

    /// The reverse sweep of the plain loop `inst`: its body's reverse as many times as the loop
    /// ran, a replayed `for` loop's variable bound again, counting down.
    pub(super) fn reverse_plain_loop(&self, inst: &Inst, body: &Block) -> TokenStream {
        let (krate, tape, n) = (self.krate, hyg("__tape"), hyg("__trips"));
        let inner = self.reverse_block(body);
        let key = std::ptr::from_ref(inst);
        let replayed = self.replayed.get(&key);
        let carried = replayed.and_then(|(ident, start)| self.carried_replay(inst, ident, start));
        let carries = carried.is_some();
        let [carry, carry_each, flush] = carried.unwrap_or_default();
        // The sums of reads of one element and the carried adjoints, around the replay of a
        // loop that ran.
        let around = |looped: TokenStream| {
            let sums = self.around_replay(inst);
            if sums.is_none() && !carries {
                return looped;
            }
            let (before, after) = sums.unwrap_or_default();
            quote!(if #n > 0 { #before #carry #looped #after #flush })
        };
        let Some((ident, start)) = replayed else {
            let looped = around(quote!(for _ in 0..#n { #inner }));
            return quote! {
                let #n: usize = #tape.pop();
                #looped
            };
        };
        let trips = match self.trips.get(&key) {
            Some(range) => quote!(::core::iter::Iterator::size_hint(&(#range)).0),
            None => quote!(#tape.pop()),
        };
        let last = self.last_reads.get(&key).map(|reads| {
            quote! {
                if #n > 0 {
                    let #ident = #krate::__private::offset(#start, #n - 1);
                    #(#reads)*
                }
            }
        });
        // Counted from `start`, never past the last value the loop variable took:
        // `start + trips` may not exist (`250u8..=255`).
        let k = hyg("__k");
        let (pop, each) = self.kept_reverse(inst).unzip();
        let looped = around(quote! {
            for #k in (0..#n).rev() {
                let #ident = #krate::__private::offset(#start, #k);
                #each
                #inner
                #carry_each
            }
        });
        match pop {
            // What the loop kept once per run, there if it ran.
            Some(pop) => quote! {
                let #n: usize = #trips;
                if #n > 0 {
                    #pop
                    #last
                    #looped
                }
            },
            None => quote! {
                let #n: usize = #trips;
                #last
                #looped
            },
        }
    }

    /// In the reverse sweep, around the replay of the loop `inst` (which runs only if the loop
    /// ran): the locals of its summed reads, and after it, those sums added to the adjoints of
    /// their elements.
    fn around_replay(&self, inst: &Inst) -> Option<(TokenStream, TokenStream)> {
        let summed = self.summed.get(&std::ptr::from_ref(inst))?;
        let (krate, g, r) = (self.krate, hyg("__g"), hyg("__rec"));
        let mut before = TokenStream::new();
        let mut after = TokenStream::new();
        for &(out, var) in summed {
            let sum = sum_ident(out);
            before.extend(quote!(let mut #sum = #krate::__private::Adj::default();));
            // The element's index, computed again as the read's reverse would.
            let at = self.field(out, 0, &r);
            let add = self.element_adjoint(var, &at);
            after.extend(quote! {
                if let ::core::option::Option::Some(#g) = #krate::__private::take_linear(&mut #sum) {
                    #add
                }
            });
        }
        Some((before, after))
    }

    /// Adds `__g` to the adjoint of `var`'s element at index `at`.
    pub(super) fn element_adjoint(&self, var: Var, at: &TokenStream) -> TokenStream {
        let (krate, g) = (self.krate, hyg("__g"));
        if self.is_slice(var) {
            let bar = bar_ident(var);
            quote!(#krate::__private::slice_acc_at(#bar, #at, #g);)
        } else if self.is_dense(var) {
            let x = x_ident(var);
            quote!(#krate::__private::slice_acc_at(&mut #x, #at, #g);)
        } else if self.var_contributed.contains(&var.0) {
            let (x, k) = (x_ident(var), k_ident(var));
            quote!(#krate::__private::acc_at(&mut #x, &#k, #at, #g);)
        } else {
            TokenStream::new()
        }
    }
}

/// Which loops are replayed.
impl<'a> Reverse<'a> {
    /// Finds the plain `for` loops over `start..end` (or `..=`) whose `start` the reverse sweep
    /// can compute again: it reads only parameters the function never assigns and enclosing
    /// such loops' variables (told apart by variable, not by name). The reverse sweep binds the
    /// variable of such a loop again, under a name of its own.
    pub(super) fn plan_replays(
        &mut self,
        b: &Block,
        stable: &HashSet<u32>,
        enclosing: &mut Vec<Var>,
        loop_vars: &mut HashSet<u32>,
    ) {
        for inst in &b.insts {
            match inst {
                Inst::Block { block, .. } => self.plan_replays(block, stable, enclosing, loop_vars),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.plan_replays(then_block, stable, enclosing, loop_vars);
                    self.plan_replays(else_block, stable, enclosing, loop_vars);
                }
                Inst::Loop { head, body } => {
                    let mut pushed = false;
                    if let crate::ir::LoopHead::For {
                        var: Some(var),
                        start: Some((start, reads)),
                        ..
                    } = head
                        && loop_mode(body) == LoopMode::Plain
                        && reads
                            .iter()
                            .all(|r| stable.contains(&r.0) || enclosing.contains(r))
                    {
                        // The start with each enclosing loop variable under its reverse name.
                        let renames: Vec<(String, Ident)> = reads
                            .iter()
                            .filter(|r| enclosing.contains(r))
                            .map(|r| {
                                (
                                    self.func.vars[r.0 as usize].ident.to_string(),
                                    replay_ident(*r),
                                )
                            })
                            .collect();
                        let start = rename(start, &renames);
                        enclosing.push(*var);
                        pushed = true;
                        loop_vars.insert(var.0);
                        self.replayed
                            .insert(std::ptr::from_ref(inst), (replay_ident(*var), start));
                    }
                    self.plan_replays(body, stable, enclosing, loop_vars);
                    if pushed {
                        enclosing.pop();
                    }
                }
                _ => {}
            }
        }
    }

    /// The replayed loops, outermost first, with their bodies and the name the reverse sweep
    /// binds their variable to.
    pub(super) fn replayed_loops(&self) -> Vec<(&'a Inst, &'a Block, Ident)> {
        self.func
            .body
            .all_insts()
            .into_iter()
            .filter_map(|inst| match inst {
                Inst::Loop { body, .. } => self
                    .replayed
                    .get(&std::ptr::from_ref(inst))
                    .map(|(ri, _)| (inst, body, ri.clone())),
                _ => None,
            })
            .collect()
    }
}
