//! The forward sweep of a call: the arguments lent or kept for the reverse sweep (copies of
//! outputs and of parts lent mutably, bounds), the call through the registry, and its record.

use super::*;

impl Reverse<'_> {
    pub(super) fn forward_call(&mut self, inst: &Inst, al: &mut Aliases) -> TokenStream {
        let krate = self.krate.clone();
        let tape = hyg("__tape");
        match inst {
            Inst::Call {
                out,
                callee,
                args,
                span,
                parens,
                lent,
                functions,
            } => {
                // The slice a lent argument stands for, over `base`.
                let slice_of = |k: usize, base: &TokenStream| {
                    crate::lower::lent_slice(&krate, self.func, lent[k], base, &mut |b| {
                        self.p(b, al)
                    })
                };
                let pargs: Vec<TokenStream> = args.iter().map(|a| self.p(*a, al)).collect();
                if !self.active(*out) {
                    let call = crate::lower::plain_lent_call(
                        &self.literals,
                        &krate,
                        self.func,
                        (callee, parens),
                        (args, lent),
                        &|a| self.p(a, al),
                    );
                    return Self::def(*out, call);
                }
                let v = v_ident(*out);
                // Slice parameters are lent to the callee (an output as `&mut *y`, or as `&*y`
                // when passed twice), and the reverse sweep passes them again with their
                // buffers; an output goes again as the copy taken here, since the function may
                // write it after the call. The other arguments are kept before the call takes
                // them, after the copies.
                let copied = self.copied_outputs(args, lent);
                let mut kept_args: Vec<TokenStream> = copied
                    .iter()
                    .map(|var| {
                        let ident = &self.func.vars[var.0 as usize].ident;
                        quote!(#ident.to_vec())
                    })
                    .collect();
                let mut call_args = Vec::new();
                let again = self.call_args.get(&out.0);
                for (i, (a, p)) in args.iter().zip(&pargs).enumerate() {
                    // A function item: in place in the callee's derivative, not an argument.
                    if functions[i] {
                        continue;
                    }
                    // A part of a slice: its bounds are kept, after what the argument keeps.
                    let bounds: Vec<TokenStream> =
                        lent[i].bounds().iter().map(|b| self.p(*b, al)).collect();
                    // A struct by reference: a copy kept, `&value` passed.
                    if lent[i].by_ref() {
                        if again.is_none_or(|g| g[i].is_none()) {
                            kept_args.push(quote!(::core::clone::Clone::clone(&#p)));
                        }
                        call_args.push(crate::lower::passed(
                            &krate,
                            callee,
                            (lent[i], args.len()),
                            quote!(&(#p)),
                        ));
                        continue;
                    }
                    call_args.push(match self.slice_reads.get(&a.0) {
                        // A local, or a part of an output slice, lent mutably: the part as it is
                        // before the call, and a local's length, for the buffer of its adjoint
                        // (an output's is its buffer).
                        _ if let Some(var) = lent[i].mutable() => {
                            let index = lent[i].index(&mut |b| self.p(b, al));
                            let seq = crate::lower::lent_seq(&krate, self.func, var, p);
                            kept_args.push(quote!(<[_]>::to_vec(&#seq #index)));
                            if !self.is_slice(var) {
                                kept_args.push(quote!(#seq.len()));
                            }
                            kept_args.extend(bounds);
                            let part = slice_of(i, p);
                            quote!(#krate::__private::lend(#part))
                        }
                        Some((var, true)) if self.lent_twice(args, *var) => quote!(&*#p),
                        Some((_, true)) => quote!(#krate::__private::lend(&mut *#p)),
                        Some((_, false)) => {
                            kept_args.extend(bounds);
                            slice_of(i, p)
                        }
                        // A local lent as a slice: kept as a copy, for the reverse sweep.
                        None if lent[i] != crate::ir::Lent::No => {
                            kept_args.push(quote!(::core::clone::Clone::clone(&#p)));
                            kept_args.extend(bounds);
                            slice_of(i, p)
                        }
                        None => {
                            if again.is_none_or(|g| g[i].is_none()) {
                                kept_args.push(quote!(::core::clone::Clone::clone(&#p)));
                            }
                            p.clone()
                        }
                    });
                }
                let partial =
                    crate::call_site::Partial::of(callee, args, functions, &|a| self.p(a, al));
                let call = crate::call_site::call_site(
                    &krate,
                    &self.caller,
                    *span,
                    "__augmented",
                    quote!(#tape, (#(#call_args,)*)),
                    (callee, Some(&super::site_ident(*out)), partial.as_ref()),
                );
                let kept = hyg("__args");
                // With slices, the record keeps copies and bounds beside the arguments, more
                // than the sixteen elements a tuple on the tape may have: in tuples of sixteen.
                let split = args.iter().any(|a| self.slice_reads.contains_key(&a.0))
                    || lent.iter().any(|l| *l != crate::ir::Lent::No);
                let kept_args = if split {
                    kept_chunks(&kept_args)
                } else {
                    kept_args
                };
                let mut ts = quote! {
                    let #kept = (#(#kept_args,)*);
                    let #v = #call;
                };
                // The kept arguments are bound for the record alone: moved into it.
                ts.extend(self.record_moving(*out, &[quote!(#kept), quote!(#v)], 1));
                ts
            }
            _ => unreachable!("a call"),
        }
    }
}

/// What a call's record keeps, in tuples of up to sixteen (the largest tuple the tape takes);
/// the reverse sweep reads element `k` as `.0.(k / 16).(k % 16)`.
fn kept_chunks(kept: &[TokenStream]) -> Vec<TokenStream> {
    kept.chunks(16).map(|c| quote!((#(#c,)*))).collect()
}
