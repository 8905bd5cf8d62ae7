//! Values that every iteration of a replayed loop shares, or computes from its number: kept once
//! per run of the loop instead of once per iteration.
//!
//! **Elements read in every iteration.** A read `v[i]` in the loop body itself (not under an `if`
//! or in an inner loop), of a variable the loop neither declares nor writes, at an index the
//! reverse sweep computes outside the loop, reads one and the same element in every iteration.
//! Where a record would keep it per iteration (`l[idx] * xc[a]` in GMM's triangular product keeps
//! `xc[a]`), the forward sweep keeps it once, after the loop, and the reverse sweep binds it
//! before the replay.
//!
//! **Counters.** A variable that the loop body itself advances once by a literal
//! (`idx += 1`) and that the loop writes nowhere else holds `start + k * step` in iteration `k`
//! before the advance, and one step more after it; `start` is its value when the loop begins. The
//! forward sweep keeps `start` once; the reverse sweep computes the value again in each replayed
//! iteration. Only a counter used as the index of a slice, array or `Vec` is taken: that makes it
//! a `usize`, and the wrapping arithmetic of the reverse sweep gives the forward sweep's value
//! whether or not its additions were checked.
//!
//! Both go on the tape in one record after the loop, if it ran at all (an element the loop never
//! read may not exist), and the reverse sweep pops it before the replay, if the loop ran.

use super::*;

/// What a replayed loop keeps once per run.
#[derive(Default)]
pub(super) struct Kept {
    /// Its loop's number.
    pub(super) loop_index: u32,
    /// Elements read in every iteration, by the value read.
    pub(super) elems: Vec<Value>,
    pub(super) counters: Vec<Counter>,
}

/// A variable advanced by a literal once per iteration.
pub(super) struct Counter {
    pub(super) var: Var,
    /// The literal.
    pub(super) step: TokenStream,
    /// Counts down (`idx -= 1`).
    pub(super) down: bool,
    /// Whether the reverse sweep reads the value before the advance, and after it.
    pub(super) used: [bool; 2],
}

/// What a record of the tape can hold.
const MAX_KEPT: usize = 9;

/// The value of an element read in every iteration, in the reverse sweep.
pub(super) fn elem_ident(out: Value) -> Ident {
    hyg(&format!("__h{}", out.0))
}

/// A counter's value when loop `l` begins.
fn start_ident(l: u32, var: Var) -> Ident {
    hyg(&format!("__cs{l}_{}", var.0))
}

/// A counter's value in the replayed iteration, before its advance (`after` false) or after it.
pub(super) fn counter_ident(l: u32, var: Var, after: bool) -> Ident {
    let which = if after { "w" } else { "v" };
    hyg(&format!("__c{which}{l}_{}", var.0))
}

/// The slot that gives the record of loop `l` its type.
fn slot_ident(l: u32) -> Ident {
    hyg(&format!("__hs{l}"))
}

/// Whether `tokens` name `ident` anywhere.
pub(super) fn mentions(tokens: &TokenStream, ident: &Ident) -> bool {
    any_ident(tokens, &|i| i == ident)
}

/// The instruction and those nested in it.
fn with_nested(inst: &Inst) -> Vec<&Inst> {
    let mut out = vec![inst];
    for b in inst.blocks() {
        out.extend(b.all_insts());
    }
    out
}

/// A literal `usize` (`1`, `2usize`).
fn usize_literal(tokens: &TokenStream) -> bool {
    is_number(tokens)
        && syn::parse2::<syn::LitInt>(tokens.clone())
            .is_ok_and(|l| matches!(l.suffix(), "" | "usize"))
}

/// The candidates, before the layouts are planned.
#[derive(Default)]
pub(super) struct Candidates {
    /// Element reads, with their loop.
    pub(super) elems: HashMap<u32, *const Inst>,
    /// Reads of counters, with the name of their value in the reverse sweep.
    pub(super) reads: HashMap<u32, Ident>,
    /// Per loop, the names that change from one iteration to the next: its variable and its
    /// counters' values.
    pub(super) varying: HashMap<*const Inst, Vec<Ident>>,
}

impl<'a> Reverse<'a> {
    /// Finds, per replayed loop, its counters and the element reads that may be kept once. The
    /// element reads are kept if their index turns out to be one the reverse sweep computes
    /// outside the loop (see `plan_layouts`); unused ones are dropped by `prune_kept`.
    pub(super) fn kept_candidates(&mut self, read_again: &dyn Fn(Var) -> bool) -> Candidates {
        let mut cands = Candidates::default();
        if self.has_returns() {
            return cands;
        }
        let func = self.func;
        let indexable = |var: Var| {
            func.vars[var.0 as usize].ty.as_ref().is_some_and(|t| {
                crate::lower::slice_of(t).is_some()
                    || matches!(t, syn::Type::Array(_))
                    || matches!(t, syn::Type::Path(p) if p.qself.is_none()
                        && p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
            })
        };
        for (inst, body, ri) in self.replayed_loops() {
            let key = std::ptr::from_ref(inst);
            let l = self.loop_index(inst);
            let mut kept = Kept {
                loop_index: l,
                ..Kept::default()
            };
            let mut varying = vec![ri.clone()];
            // The instruction of the body itself that defines `v`, of those a counter's advance
            // is made of.
            let top = |v: Value| {
                body.insts.iter().find(|i| {
                    matches!(i, Inst::Arith { out, .. } | Inst::Read { out, .. }
                        | Inst::Const { out, .. } if *out == v)
                })
            };
            for (p, assign) in body.insts.iter().enumerate() {
                let Inst::Assign { var, value, .. } = assign else {
                    continue;
                };
                let Some(Inst::Arith {
                    op: op @ (Arith::Add | Arith::Sub),
                    a,
                    b,
                    ..
                }) = top(*value)
                else {
                    continue;
                };
                let read_of_var =
                    |v: Value| matches!(top(v), Some(Inst::Read { var: r, .. }) if r == var);
                let literal = |v: Value| match top(v) {
                    Some(Inst::Const { tokens, .. }) if usize_literal(tokens) => {
                        Some(tokens.clone())
                    }
                    _ => None,
                };
                let step = if read_of_var(*a) {
                    literal(*b)
                } else if *op == Arith::Add && read_of_var(*b) {
                    literal(*a)
                } else {
                    None
                };
                let Some(step) = step else {
                    continue;
                };
                if self
                    .changing(inst, Some(std::ptr::from_ref(assign)))
                    .contains(&var.0)
                {
                    continue;
                }
                // Its reads, at any depth, before or after the advance.
                let mut reads: Vec<(Value, bool)> = Vec::new();
                for (q, i) in body.insts.iter().enumerate() {
                    for n in with_nested(i) {
                        if let Inst::Read { out, var: r, .. } = n
                            && r == var
                            && !func.values[out.0 as usize].needs_copy
                        {
                            reads.push((*out, q > p));
                        }
                    }
                }
                let as_index = body.all_insts().iter().any(|i| match i {
                    Inst::Index { var: v, index, .. } | Inst::IndexAssign { var: v, index, .. } => {
                        indexable(*v) && reads.iter().any(|(r, _)| r == index)
                    }
                    _ => false,
                });
                if !as_index || kept.counters.len() >= MAX_KEPT {
                    continue;
                }
                for (r, after) in &reads {
                    cands.reads.insert(r.0, counter_ident(l, *var, *after));
                }
                varying.push(counter_ident(l, *var, false));
                varying.push(counter_ident(l, *var, true));
                kept.counters.push(Counter {
                    var: *var,
                    step,
                    down: *op == Arith::Sub,
                    used: [false; 2],
                });
            }
            let changing = self.changing(inst, None);
            for i in &body.insts {
                // A parameter's element is read again where it is needed.
                if let Inst::Index { out, var, .. } = i
                    && !changing.contains(&var.0)
                    && !read_again(*var)
                    && kept.counters.len() + kept.elems.len() < MAX_KEPT
                {
                    cands.elems.insert(out.0, key);
                    kept.elems.push(*out);
                }
            }
            cands.varying.insert(key, varying);
            self.kept.insert(key, kept);
        }
        cands
    }

    /// Keeps of each loop's candidates those the reverse sweep names, in `used`: the tokens it
    /// computes again.
    pub(super) fn prune_kept(&mut self) {
        let mut used: Vec<TokenStream> = Vec::new();
        for layout in self.layouts.values() {
            for f in layout {
                if let Src::Inline(t) | Src::Literal(t) = f {
                    used.push(t.clone());
                }
            }
        }
        used.extend(self.call_args.values().flatten().flatten().cloned());
        used.extend(self.trips.values().cloned());
        used.extend(self.last_reads.values().flatten().cloned());
        let named = |id: &Ident| used.iter().any(|t| mentions(t, id));
        for kept in self.kept.values_mut() {
            let l = kept.loop_index;
            kept.elems.retain(|out| named(&elem_ident(*out)));
            for c in &mut kept.counters {
                c.used = [
                    named(&counter_ident(l, c.var, false)),
                    named(&counter_ident(l, c.var, true)),
                ];
            }
            kept.counters.retain(|c| c.used.iter().any(|u| *u));
        }
        self.kept
            .retain(|_, k| !k.elems.is_empty() || !k.counters.is_empty());
    }

    /// The top-level slots of the loops' records.
    pub(super) fn kept_slots(&self) -> Vec<TokenStream> {
        let mut ls: Vec<u32> = self.kept.values().map(|k| k.loop_index).collect();
        ls.sort_unstable();
        ls.into_iter()
            .map(|l| {
                let s = slot_ident(l);
                quote!(let mut #s = ::core::option::Option::None;)
            })
            .collect()
    }

    /// The forward sweep of loop `inst`'s record: before the loop, at the end of its body, and
    /// after it.
    pub(super) fn kept_forward(
        &self,
        inst: &Inst,
    ) -> Option<(TokenStream, TokenStream, TokenStream)> {
        let kept = self.kept.get(&std::ptr::from_ref(inst))?;
        let l = kept.loop_index;
        let (tape, local, slot, r) = (
            hyg("__tape"),
            hyg(&format!("__hl{l}")),
            slot_ident(l),
            hyg("__rec"),
        );
        let mut before = quote!(let mut #local = ::core::option::Option::None;);
        let mut fields = Vec::new();
        for c in &kept.counters {
            let start = start_ident(l, c.var);
            let ident = &self.func.vars[c.var.0 as usize].ident;
            before.extend(self.binding_check(c.var, ident));
            before.extend(quote!(let #start = #ident;));
            fields.push(quote!(#start));
        }
        fields.extend(kept.elems.iter().map(|out| {
            let v = v_ident(*out);
            quote!(#v)
        }));
        let end = quote!(#local = ::core::option::Option::Some((#(#fields,)*)););
        let after = quote! {
            if let ::core::option::Option::Some(#r) = #local {
                #tape.push(::core::clone::Clone::clone(&#r));
                #slot = ::core::option::Option::Some(#r);
            }
        };
        Some((before, end, after))
    }

    /// The reverse sweep of loop `inst`'s record: popped before the replay, and the counters'
    /// values in each replayed iteration.
    pub(super) fn kept_reverse(&self, inst: &Inst) -> Option<(TokenStream, TokenStream)> {
        let kept = self.kept.get(&std::ptr::from_ref(inst))?;
        let l = kept.loop_index;
        let (krate, tape, slot, r, k) = (
            self.krate,
            hyg("__tape"),
            slot_ident(l),
            hyg("__rec"),
            hyg("__k"),
        );
        let mut pop = quote!(let #r = #tape.pop_like(&#slot););
        let mut each = TokenStream::new();
        for (n, c) in kept.counters.iter().enumerate() {
            let idx = syn::Index::from(n);
            let start = start_ident(l, c.var);
            pop.extend(quote!(let #start: usize = #r.#idx;));
            let step = &c.step;
            let f = if c.down {
                quote!(counter_down)
            } else {
                quote!(counter_up)
            };
            for after in [false, true] {
                if c.used[usize::from(after)] {
                    let v = counter_ident(l, c.var, after);
                    let k = if after { quote!(#k + 1) } else { quote!(#k) };
                    each.extend(quote!(let #v = #krate::__private::#f(#start, #k, #step);));
                }
            }
        }
        for (n, out) in kept.elems.iter().enumerate() {
            let idx = syn::Index::from(kept.counters.len() + n);
            let h = elem_ident(*out);
            pop.extend(quote!(let #h = #r.#idx;));
        }
        Some((pop, each))
    }
}
