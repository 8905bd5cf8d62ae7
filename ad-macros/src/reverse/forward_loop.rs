//! The forward sweep of a loop that runs to its end: its records, the room it makes on the
//! tape for them before it runs or at the start of each iteration (so that no push calls the
//! allocator while a float is carried from one iteration to the next), and its trip count.

use super::*;

impl Reverse<'_> {
    /// The forward sweep of `inst`, a loop without exits that leave it early (those are
    /// `exits.rs`'s).
    pub(super) fn forward_loop(
        &mut self,
        inst: &Inst,
        head: &crate::ir::LoopHead,
        body: &Block,
        al: &mut Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let tape = hyg("__tape");
        // The trip count goes on the tape after the loop: the reverse sweep runs the
        // body's reverse that many times, each popping one iteration's records.
        let n = hyg(&format!("__n{}", self.loop_index(inst)));
        let key = std::ptr::from_ref(inst);
        let mut inner = al.clone();
        // A loop over a range that carries a float and pushes the same records in every
        // iteration makes room for all of them before it runs: its pushes then never
        // call the allocator, across which the float would not stay in a register. A
        // loop whose iterations each run inner loops of that kind makes room at the start
        // of each iteration instead.
        let inside_room = self.reserving.borrow().is_some();
        let reserves = !inside_room
            && self.trips.contains_key(&key)
            && matches!(head, crate::ir::LoopHead::For { .. })
            && fixed_pushes(body)
            && self.carries_float(body);
        let per_iteration = !inside_room && !reserves && self.room_per_iteration(inst);
        if reserves || per_iteration {
            *self.reserving.borrow_mut() = Some(Vec::new());
        }
        // An inner loop of a loop that makes room per iteration: its records count once
        // per trip.
        let times = self
            .trips
            .get(&key)
            .filter(|_| inside_room)
            .map(|range| quote!(::core::iter::Iterator::size_hint(&(#range)).0));
        let outer_times = times.map(|t| self.reserve_times.replace(Some(t)));
        let mut body = self.forward_block(body, &mut inner, decisions);
        if let Some(outer) = outer_times {
            *self.reserve_times.borrow_mut() = outer;
        }
        let room = if reserves || per_iteration {
            self.reserving.borrow_mut().take().unwrap_or_default()
        } else {
            Vec::new()
        };
        if per_iteration && !room.is_empty() {
            let words = room.iter().map(|(w, times)| match times {
                Some(t) => quote!(.saturating_add(#w.saturating_mul(#t))),
                None => quote!(.saturating_add(#w)),
            });
            // The inner loops' ranges name this loop's variable as the reverse sweep does.
            let bind = match (self.replayed.get(&key), head) {
                (Some((ri, _)), crate::ir::LoopHead::For { var: Some(v), .. }) => {
                    let ident = &self.func.vars[v.0 as usize].ident;
                    quote!(let #ri = #ident;)
                }
                _ => TokenStream::new(),
            };
            body = quote!(#bind #tape.reserve(0usize #(#words)*); #body);
        }
        // The words of the pushes of a loop that makes room for all its iterations.
        let slots: Vec<TokenStream> = if reserves {
            room.into_iter().map(|(w, _)| w).collect()
        } else {
            Vec::new()
        };
        // What the loop keeps once per run goes on the tape before its trip count.
        let (before, after) = match self.kept_forward(inst) {
            Some((before, end, after)) => {
                body.extend(end);
                (before, after)
            }
            None => (TokenStream::new(), TokenStream::new()),
        };
        if self.trips.contains_key(&std::ptr::from_ref(inst))
            && let crate::ir::LoopHead::For { pat, var, iter, .. } = head
        {
            // The reverse sweep computes the trip count from the range again.
            let it = self.p(*iter, al);
            let witness = var.map(|v| self.binding_witness(v));
            if slots.is_empty() {
                return quote!(#before for #pat in #it { #witness #body } #after);
            }
            // Room for every iteration's records, made before the loop.
            let range = hyg("__range");
            return quote! {
                #before
                {
                    let #range = #it;
                    #tape.reserve(
                        ::core::iter::Iterator::size_hint(&#range).0
                            .saturating_mul(0 #(+ #slots)*),
                    );
                    for #pat in #range { #witness #body }
                }
                #after
            };
        }
        let looped = match head {
            crate::ir::LoopHead::For { pat, var, iter, .. } => {
                let it = self.p(*iter, al);
                let witness = var.map(|v| self.binding_witness(v));
                quote!(for #pat in #it { #witness #body #n += 1; })
            }
            crate::ir::LoopHead::While { cond_block, cond } => {
                let mut c_al = al.clone();
                let c_body = self.forward_block(cond_block, &mut c_al, decisions);
                let c = self.p(*cond, &c_al);
                quote!(while { #c_body #c } { #body #n += 1; })
            }
            crate::ir::LoopHead::Infinite => quote!(loop { #body #n += 1; }),
        };
        quote! {
            let mut #n: usize = 0;
            #before
            #looped
            #after
            #tape.push(#n);
        }
    }
}

/// Whether every iteration of a loop with this body pushes the same records, and nothing else:
/// no inner loop, and nothing `varies`.
fn fixed_pushes(body: &Block) -> bool {
    body.all_insts()
        .iter()
        .all(|i| !matches!(i, Inst::Loop { .. }) && !varies(i))
}

/// A call, an exit or code kept as written: what pushes a number of records that varies without
/// a bound, or records that are not the loop's own. (A branch pushes its decision and the
/// records of one side: the room counts both sides, which bounds them.)
fn varies(i: &Inst) -> bool {
    matches!(
        i,
        Inst::Call { .. }
            | Inst::Return { .. }
            | Inst::Break
            | Inst::Continue
            | Inst::Verbatim { .. }
    )
}

impl Reverse<'_> {
    /// Whether the loop `inst` makes room on the tape at the start of each iteration: a `for`
    /// loop with no call or exit (a branch counts with both its sides), whose inner loops (one
    /// level deep) run over ranges computed from parameters and this loop's variable, keep
    /// nothing once per run, and which carries a float itself or in an inner loop. No local may have a parameter's name: the
    /// ranges are written with the parameters' names, which it would hide.
    fn room_per_iteration(&self, inst: &Inst) -> bool {
        let Inst::Loop {
            head: crate::ir::LoopHead::For { .. },
            body,
        } = inst
        else {
            return false;
        };
        let insts = body.all_insts();
        if insts.iter().any(|i| varies(i)) {
            return false;
        }
        let own = self
            .replayed
            .get(&std::ptr::from_ref(inst))
            .map(|(ri, _)| ri.to_string());
        let mut inner_loops = 0;
        let mut carries = self.carries_float(body);
        for i in &insts {
            let Inst::Loop { head, body: b } = i else {
                continue;
            };
            inner_loops += 1;
            let key = std::ptr::from_ref(*i);
            let Some(range) = self.trips.get(&key) else {
                return false;
            };
            if !matches!(head, crate::ir::LoopHead::For { .. })
                || self.kept.contains_key(&key)
                || b.all_insts().iter().any(|j| matches!(j, Inst::Loop { .. }))
                || names_other_replay(range, own.as_deref())
            {
                return false;
            }
            carries |= self.carries_float(b);
        }
        let func = self.func;
        let params: HashSet<String> = func
            .params
            .iter()
            .map(|p| func.vars[p.var.0 as usize].ident.unraw().to_string())
            .collect();
        let hidden = func.vars.iter().enumerate().any(|(k, v)| {
            !func.params.iter().any(|p| p.var.0 as usize == k)
                && params.contains(&v.ident.unraw().to_string())
        });
        inner_loops > 0 && carries && !hidden
    }

    /// Whether a loop with this body carries a value with a derivative from one iteration to
    /// the next (`s += ..`): a float, which no register keeps across a call, so that a call in
    /// the loop (a push that may grow the tape) keeps it in memory.
    fn carries_float(&self, body: &Block) -> bool {
        let insts = body.all_insts();
        insts.iter().any(|i| {
            matches!(i, Inst::Assign { var, .. }
                if self.act.var(*var)
                    && !insts.iter().any(|d| matches!(d, Inst::Let { var: v, .. } if v == var)))
        })
    }
}

/// Whether `tokens` name a replayed loop's variable other than `own`: one the forward sweep does
/// not bind.
fn names_other_replay(tokens: &TokenStream, own: Option<&str>) -> bool {
    any_ident(tokens, &|i| {
        let name = i.to_string();
        name.starts_with("__ri") && Some(name.as_str()) != own
    })
}
