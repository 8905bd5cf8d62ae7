//! Adjoints carried from one replayed iteration to the next: the elements a loop reads at its
//! variable plus or minus a literal (`x[i]`, `x[i + 1]`, a stencil's `x[i - 1]`).
//!
//! Iteration `i` of `for i in 0..n - 1 { .. x[i] .. x[i + 1] .. }` adds to the adjoints of
//! elements `i` and `i + 1`, and the iteration the reverse sweep replays next, `i - 1`, adds to
//! those of `i - 1` and `i`. In the adjoint buffer, each iteration loaded the element the
//! iteration before had just stored: a chain of loads and stores through memory as long as the
//! loop, several times slower than the arithmetic around it.
//!
//! For a variable the loop neither declares nor writes (nor passes to a call), read in the body
//! itself at two offsets or more, the reverse sweep now holds the adjoints of the elements
//! `i + lo ..= i + hi` in locals, one per offset. An iteration adds into the local of its
//! offset; at its end the element `i + hi` is complete (no iteration left reads it), so its local
//! goes to the buffer and the others move up one offset. After the last replayed iteration the
//! locals still held go to their elements. Reads of the variable under an `if` or in an inner
//! loop use the locals too, where their offset lies between `lo` and `hi`; any other read adds to
//! the buffer itself, which nothing in the loop reads. A variable read at one offset only, but
//! more than once (`q[j] * q[j]`), has its one local too: the reads' contributions add up there
//! and reach the element (a `Vec`'s adjoint: a test of its presence and of the index each time)
//! once per iteration.
//!
//! Each element receives the same contributions in the same order, summed before they reach the
//! buffer instead of after: the same bits wherever the buffer held zero. Every element between
//! `start + lo` and the last iteration's `i + hi` exists, since the forward sweep read both ends
//! (reads in the body itself run in every iteration), so no local goes to an element that does not.

use super::*;

/// The adjoints of one variable carried across a replayed loop.
pub(super) struct Carried {
    pub(super) var: Var,
    /// The lowest and highest offsets of the reads in the loop body itself.
    pub(super) lo: i64,
    pub(super) hi: i64,
    /// The loop's number, which names the locals.
    pub(super) loop_index: u32,
}

impl Carried {
    /// The local holding the adjoint of element `i + offset`.
    pub(super) fn local(&self, offset: i64) -> Ident {
        let sign = if offset < 0 { "m" } else { "" };
        hyg(&format!(
            "__cr{}_{}_{sign}{}",
            self.loop_index,
            self.var.0,
            offset.unsigned_abs()
        ))
    }
}

/// `ri` plus `offset`, as an index.
pub(super) fn at_offset(ri: &Ident, offset: i64) -> TokenStream {
    let k = proc_macro2::Literal::u64_unsuffixed(offset.unsigned_abs());
    match offset {
        0 => quote!(#ri),
        o if o > 0 => quote!((#ri + #k)),
        _ => quote!((#ri - #k)),
    }
}

impl<'a> Reverse<'a> {
    /// Finds, per replayed loop, the variables whose adjoints its reverse sweep carries in
    /// locals, and the reads that add to them.
    pub(super) fn plan_carried(&mut self, defs: &HashMap<u32, Src>) {
        for (inst, body, ri) in self.replayed_loops() {
            let key = std::ptr::from_ref(inst);
            let ri = &ri;
            let changing = self.changing(inst, None);
            // The offsets of the reads in the body itself, which run in every iteration.
            let mut ends: HashMap<u32, (i64, i64)> = HashMap::new();
            for i in &body.insts {
                if let Inst::Index { var, index, .. } = i
                    && !changing.contains(&var.0)
                    && (self.is_slice(*var) || self.var_contributed.contains(&var.0))
                    && let Some(offset) = raw(defs, *index).and_then(|t| offset_of(&t, ri))
                {
                    let e = ends.entry(var.0).or_insert((offset, offset));
                    e.0 = e.0.min(offset);
                    e.1 = e.1.max(offset);
                }
            }
            let loop_index = self.loop_index(inst);
            let mut carried: Vec<Carried> = Vec::new();
            let mut reads: Vec<(u32, Ident)> = Vec::new();
            let mut vars: Vec<u32> = ends.keys().copied().collect();
            vars.sort_unstable();
            for v in vars {
                let (lo, hi) = ends[&v];
                let c = Carried {
                    var: Var(v),
                    lo,
                    hi,
                    loop_index,
                };
                let mut mine: Vec<(u32, Ident)> = Vec::new();
                for i in body.all_insts() {
                    if let Inst::Index { out, var, .. } = i
                        && var.0 == v
                        && self.active(*out)
                        && self.contributed.contains(&out.0)
                        && !self.inplace_skip.contains(&out.0)
                        && !self.is_summed(*out)
                        && let Some([Src::Inline(t)]) = self.layouts.get(&out.0).map(Vec::as_slice)
                        && let Some(offset) = offset_of(t, ri)
                        && (lo..=hi).contains(&offset)
                    {
                        mine.push((out.0, c.local(offset)));
                    }
                }
                // With one read, each element receives one contribution, from one iteration:
                // nothing to gather or to carry.
                if mine.len() >= 2 {
                    reads.extend(mine);
                    carried.push(c);
                }
            }
            if !carried.is_empty() {
                self.carried_reads.extend(reads);
                self.carried.insert(key, carried);
            }
        }
    }

    /// In the reverse sweep of the replayed loop `inst`: before the replay, the locals; at the end
    /// of each replayed iteration, the completed element to its adjoint and the locals moved up;
    /// after the replay, the locals left to their elements.
    pub(super) fn carried_replay(
        &self,
        inst: &Inst,
        ri: &Ident,
        start: &TokenStream,
    ) -> Option<[TokenStream; 3]> {
        let carried = self.carried.get(&std::ptr::from_ref(inst))?;
        let (krate, g) = (self.krate, hyg("__g"));
        let (mut before, mut each, mut after) =
            (TokenStream::new(), TokenStream::new(), TokenStream::new());
        for c in carried {
            let flush = |offset: i64, index: TokenStream| {
                let local = c.local(offset);
                let add = self.element_adjoint(c.var, &index);
                quote! {
                    if let ::core::option::Option::Some(#g) = #krate::__private::take_linear(&mut #local) {
                        #add
                    }
                }
            };
            for offset in c.lo..=c.hi {
                let local = c.local(offset);
                before.extend(quote!(let mut #local = #krate::__private::Adj::default();));
            }
            // Element `i + hi` is complete; element `i - 1 + k` is held at `k` from now on.
            each.extend(flush(c.hi, at_offset(ri, c.hi)));
            for offset in (c.lo + 1..=c.hi).rev() {
                let (to, from) = (c.local(offset), c.local(offset - 1));
                each.extend(quote! {
                    #to = ::core::mem::take(&mut #from);
                });
            }
            // After the first iteration, `start`: element `start - 1 + k` at `k`.
            for offset in c.lo + 1..=c.hi {
                after.extend(flush(offset, at_offset(ri, offset - 1)));
            }
        }
        // Locals are left only where a variable spans two offsets or more.
        let after = if after.is_empty() {
            after
        } else {
            quote! {
                {
                    let #ri = #krate::__private::offset(#start, 0);
                    #after
                }
            }
        };
        Some([before, each, after])
    }
}
