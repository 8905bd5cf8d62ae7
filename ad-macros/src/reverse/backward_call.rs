//! The reverse sweep of a call: the call's record popped, the callee's reverse derivative
//! called through the registry with the arguments again (slices with their adjoint buffers,
//! structs by reference, copies of what the forward sweep kept), and each argument's adjoint
//! added where it goes.

use super::*;

impl Reverse<'_> {
    pub(super) fn backward_call(&self, inst: &Inst) -> TokenStream {
        let krate = self.krate;
        let r = hyg("__rec");
        let tape = hyg("__tape");
        let Inst::Call {
            out,
            callee,
            args,
            span,
            lent,
            functions,
            ..
        } = inst
        else {
            unreachable!("a call")
        };
        if !self.active(*out) {
            return TokenStream::new();
        }
        use crate::ir::Lent;
        // A function item is in place in the callee's derivative: not among the
        // arguments, nor the adjoints, of the call.
        // (A function item is a path, a constant: written as it is.)
        let partial = crate::call_site::Partial::of(callee, args, functions, &|a| {
            self.literals
                .get(&a.0)
                .cloned()
                .unwrap_or_else(|| self.p(a, &Aliases::default()))
        });
        let position = |i: usize| (0..i).filter(|k| !functions[*k]).count();
        let pop = self.pop_record(*out);
        let b = b_ident(*out);
        // A local lent as a slice gets its adjoint in a buffer of its own shape.
        let lent_buffer = |i: usize| hyg(&format!("__lent{i}"));
        let mut pre = TokenStream::new();
        // No adjoint: the callee's records are only popped.
        let adjoint = if self.contributed.contains(&out.0) {
            quote!(#krate::__private::take(&mut #b))
        } else {
            quote!(::core::option::Option::None)
        };
        let bars = hyg("__bars");
        let mut body = TokenStream::new();
        for (i, a) in args.iter().enumerate() {
            // A local lent mutably: its adjoint was the callee's buffer.
            if functions[i] || lent[i].mutable().is_some() {
                continue;
            }
            if lent[i].shared() && !self.slice_reads.contains_key(&a.0) {
                // Lent with its own adjoint as the buffer: the callee added to it in place.
                if self
                    .own_buffer(args, lent, i, &TokenStream::new())
                    .is_some()
                {
                    continue;
                }
                let buffer = lent_buffer(i);
                body.extend(self.acc(*a, quote!(#buffer)));
                continue;
            }
            let idx = syn::Index::from(position(i));
            body.extend(self.acc(*a, quote!(#bars.#idx)));
        }
        let backward = if args.iter().any(|a| self.slice_reads.contains_key(&a.0))
            || lent.iter().any(|l| *l != Lent::No)
        {
            // The arguments again, the slices with their adjoint buffers (an output as
            // the copy taken at the call); a slice passed twice gets a second buffer,
            // added to its own after the call.
            let copied = self.copied_outputs(args, lent);
            let (mut call_args, mut buffers, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
            let (mut seen, mut extra, mut merge) = (Vec::new(), Vec::new(), Vec::new());
            // What the record keeps, in tuples of sixteen (`kept_chunks`).
            let kept = |k: usize| -> TokenStream {
                let (c, j) = (syn::Index::from(k / 16), syn::Index::from(k % 16));
                quote!(#r.0.#c.#j)
            };
            for (c, var) in copied.iter().enumerate() {
                let copy = hyg(&format!("__copy{}", var.0));
                let at = kept(c);
                extra.push(quote!(let mut #copy = #at;));
            }
            let mut k = copied.len();
            let again = self.call_args.get(&out.0);
            // The bounds of a part, from the record, after what its argument keeps.
            let part = |k: &mut usize, how: Lent| -> TokenStream {
                how.index(&mut |_| {
                    *k += 1;
                    kept(*k - 1)
                })
            };
            for (i, a) in args.iter().enumerate() {
                if functions[i] {
                    continue;
                }
                seeds.push(if lent[i].by_ref() {
                    self.seed_of(*a)
                } else {
                    quote!(())
                });
                // A struct by reference: its copy, by reference, and no buffer.
                if lent[i].by_ref() {
                    let at = match again.and_then(|g| g[i].as_ref()) {
                        Some(t) => quote!((#t)),
                        None => {
                            k += 1;
                            kept(k - 1)
                        }
                    };
                    call_args.push(crate::lower::passed(
                        krate,
                        callee,
                        (lent[i], args.len()),
                        quote!(&#at),
                    ));
                    buffers.push(quote!(()));
                    continue;
                }
                match self.slice_reads.get(&a.0) {
                    // A local, or a part of an output slice, lent mutably: the part as
                    // it was before the call, and the part of the variable's adjoint,
                    // turned by the callee from the adjoint of the values after the
                    // call into that of those before.
                    _ if let Some(var) = lent[i].mutable() => {
                        let copy_at = kept(k);
                        k += 1;
                        // A local's length, for its adjoint's buffer (`forward_sweep`).
                        let len_at = (!self.is_slice(var)).then(|| {
                            k += 1;
                            kept(k - 1)
                        });
                        let range = part(&mut k, lent[i]);
                        let copy = hyg(&format!("__before{i}"));
                        extra.push(quote!(let mut #copy = #copy_at;));
                        call_args.push(quote!(#krate::__private::lend(&mut #copy[..])));
                        buffers.push(match len_at {
                            None => {
                                let bar = bar_ident(var);
                                quote!(&mut #bar #range)
                            }
                            // Lent as the callee takes it: a slice, or a struct's adjoint, the
                            // one element of the buffer.
                            Some(len) => {
                                let (x, kind) = (x_ident(var), k_ident(var));
                                quote!(#krate::__private::lend(&mut #krate::__private::seq_buffer(&mut #x, &#kind, #len)#range))
                            }
                        });
                    }
                    Some((var, mutable)) => {
                        let ident = &self.func.vars[var.0 as usize].ident;
                        let copy = hyg(&format!("__copy{}", var.0));
                        let range = part(&mut k, lent[i]);
                        call_args.push(match mutable {
                            true if self.lent_twice(args, *var) => quote!(&#copy[..]),
                            true => quote!(#krate::__private::lend(&mut #copy[..])),
                            false if range.is_empty() => quote!(#ident),
                            false => quote!(&#ident #range),
                        });
                        let bar = bar_ident(*var);
                        if seen.contains(var) {
                            let tmp = hyg(&format!("__again{}", merge.len()));
                            extra.push(
                                quote!(let mut #tmp = #krate::__private::zeros_like(&*#bar);),
                            );
                            merge.push(quote!(#krate::__private::add_into(&mut *#bar, &#tmp);));
                            buffers.push(if range.is_empty() {
                                quote!(&mut #tmp[..])
                            } else {
                                quote!(&mut #tmp #range)
                            });
                        } else {
                            seen.push(*var);
                            buffers.push(if range.is_empty() {
                                quote!(&mut *#bar)
                            } else {
                                quote!(&mut #bar #range)
                            });
                        }
                    }
                    None if lent[i] != Lent::No => {
                        let at = kept(k);
                        k += 1;
                        let range = part(&mut k, lent[i]);
                        call_args.push(quote!(&#at #range));
                        match self.own_buffer(args, lent, i, &quote!((#at).len())) {
                            Some(own) => buffers.push(quote!(&mut #own #range)),
                            None => {
                                let buffer = lent_buffer(i);
                                pre.extend(
                                    quote!(let mut #buffer = #krate::__private::zero(&#at);),
                                );
                                buffers.push(quote!(&mut #buffer #range));
                            }
                        }
                    }
                    None => {
                        match again.and_then(|g| g[i].as_ref()) {
                            Some(t) => call_args.push(quote!(::core::clone::Clone::clone(&#t))),
                            None => {
                                call_args.push(kept(k));
                                k += 1;
                            }
                        }
                        buffers.push(quote!(()));
                    }
                }
            }
            // Structs by reference get the adjoints held for them so far moved into the call
            // and back (not through a call with function items in place).
            let seeded = partial.is_none() && lent.iter().any(|l| l.by_ref());
            let (method, rest) = if seeded {
                ("__backward_seeded", quote!((#(#seeds,)*), #r.1, #adjoint))
            } else {
                ("__backward_into", quote!(#r.1, #adjoint))
            };
            let call = crate::call_site::call_site(
                krate,
                &self.caller,
                *span,
                method,
                quote!(#tape, (#(#call_args,)*), (#(#buffers,)*), #rest),
                (callee, Some(&super::site_ident(*out)), partial.as_ref()),
            );
            let got = hyg("__got");
            quote!({
                #(#extra)*
                let #got = #call;
                #(#merge)*
                #got
            })
        } else {
            // The record again, with the arguments computed again put back in place.
            let rec = match self.call_args.get(&out.0) {
                Some(again) => {
                    let mut k = 0;
                    // A function item in place is no argument of the rule.
                    let fields = again
                        .iter()
                        .zip(functions)
                        .filter(|(_, function)| !**function)
                        .map(|(t, _)| match t {
                            Some(t) => quote!(::core::clone::Clone::clone(&#t)),
                            None => {
                                let idx = syn::Index::from(k);
                                k += 1;
                                quote!(#r.0.#idx)
                            }
                        });
                    let fields: Vec<TokenStream> = fields.collect();
                    quote!(((#(#fields,)*), #r.1))
                }
                None => quote!(#r),
            };
            // Bound once: the call site names the record twice.
            let full = hyg("__full");
            let call = crate::call_site::call_site(
                krate,
                &self.caller,
                *span,
                "__backward",
                quote!(#tape, #full, #adjoint),
                (callee, Some(&super::site_ident(*out)), partial.as_ref()),
            );
            quote!({
                let #full = #rec;
                #call
            })
        };
        quote! {
            let #r = #pop;
            #pre
            let #bars = #backward;
            #body
        }
    }
}

impl Reverse<'_> {
    /// For a local `Vec` or array lent as a shared slice by argument `i` (`f(&h)`), its own
    /// adjoint as the call's buffer, `len` the local's length: the callee adds into it in
    /// place, with no buffer of the local's length made, added and freed per call. Where the
    /// argument reads the variable directly, which no other argument of the call lends, and
    /// the variable's adjoint can be a buffer (an indexed local, or a dense one).
    fn own_buffer(
        &self,
        args: &[Value],
        lent: &[crate::ir::Lent],
        i: usize,
        len: &TokenStream,
    ) -> Option<TokenStream> {
        let var = *self.direct.get(&args[i].0)?;
        if !self.var_contributed.contains(&var.0) || self.is_slice(var) {
            return None;
        }
        let twice = args.iter().zip(lent).enumerate().any(|(j, (b, l))| {
            j != i && *l != crate::ir::Lent::No && self.direct.get(&b.0) == Some(&var)
        });
        let (krate, x, kind) = (self.krate, x_ident(var), k_ident(var));
        if twice {
            None
        } else if self.is_dense(var) {
            Some(quote!(#x[..]))
        } else if self.indexed.contains(&var.0) {
            Some(quote!((*#krate::__private::seq_buffer(&mut #x, &#kind, #len))))
        } else {
            None
        }
    }

    /// What a call moves in for a struct passed by reference, argument `a`: the adjoint held so
    /// far at its place, where that is an element of a field buffer (`self.layers[l]`, the index
    /// known without the element's record) or a variable's adjoint; otherwise nothing (a zero
    /// without a shape), and the callee's adjoint of it is added after the call as any other.
    fn seed_of(&self, a: Value) -> TokenStream {
        let krate = self.krate;
        let none = quote!(#krate::ShapelessZero::shapeless_zero());
        for inst in self.func.body.all_insts() {
            let Inst::FieldIndex {
                out,
                root,
                path,
                elems,
                ..
            } = inst
            else {
                continue;
            };
            if *out != a {
                continue;
            }
            let buf = self.dense_field_of(*root, path, elems);
            let at = match self.layouts.get(&out.0).and_then(|l| l.first()) {
                Some(Src::Inline(t) | Src::Literal(t)) => Some(t.clone()),
                _ => None,
            };
            return match (buf, at) {
                (Some(buf), Some(at)) => {
                    quote!(#krate::__private::MakeSeed::make(&mut #buf[#at]))
                }
                _ => none,
            };
        }
        match self.direct.get(&a.0) {
            Some(var)
                if self.var_contributed.contains(&var.0)
                    && !self.is_slice(*var)
                    && !self.is_dense(*var) =>
            {
                let x = x_ident(*var);
                quote!(#krate::__private::MakeSeed::make_from_adj(&mut #x))
            }
            _ => none,
        }
    }
}
