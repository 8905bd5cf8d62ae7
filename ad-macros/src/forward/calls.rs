//! The forward sweep of a call: the arguments with their tangents (slices lent, outputs passed
//! on), the callee named for the callee list, and the call through the registry.

use super::*;

impl Forward<'_> {
    pub(super) fn call(&mut self, inst: &Inst, al: &Aliases) -> TokenStream {
        let krate = self.krate.clone();
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
                // The slice a lent argument stands for, over `base` (its value or tangent).
                let slice_of = |k: usize, base: TokenStream| {
                    crate::lower::lent_slice(&krate, self.func, lent[k], &base, &mut |b| {
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
                    return self.def(*out, call, None);
                }
                // An argument without a tangent gets the zero of the callee's parameter kind:
                // `NoTangent` for an `ad::Const` slice, which has no `Differentiable` zero.
                let mut targs: Vec<TokenStream> = args
                    .iter()
                    .map(|a| {
                        if self.active(*a) {
                            self.t(*a, al)
                        } else {
                            let p = self.p(*a, al);
                            quote!(#krate::__private::zero_shadow(&#p))
                        }
                    })
                    .collect();
                // A local `Vec` or array is lent as a slice, with its tangent; one without a
                // derivative with a zero tangent of its own shape, bound before the call.
                let mut pargs = pargs;
                let mut zeros = TokenStream::new();
                for (k, a) in args.iter().enumerate() {
                    // A struct by reference: `&value`, its tangent by value.
                    if lent[k].by_ref() {
                        let p = &pargs[k];
                        pargs[k] = crate::lower::passed(
                            &krate,
                            callee,
                            (lent[k], args.len()),
                            quote!(&(#p)),
                        );
                        if self.active(*a) {
                            let t = &targs[k];
                            targs[k] = quote!(::core::clone::Clone::clone(&(#t)));
                        }
                        continue;
                    }
                    // A local lent mutably: active, as the call is (it writes what the call's
                    // arguments give).
                    if lent[k].mutable().is_some() {
                        let (p, t) = (slice_of(k, pargs[k].clone()), slice_of(k, targs[k].clone()));
                        pargs[k] = quote!(#krate::__private::lend(#p));
                        targs[k] = quote!(#krate::__private::lend(#t));
                        continue;
                    }
                    if lent[k].shared() {
                        targs[k] = if self.active(*a) {
                            slice_of(k, targs[k].clone())
                        } else {
                            let z = hyg(format!("__zl{}_{k}", out.0));
                            let p = &pargs[k];
                            zeros.extend(quote!(let #z = #krate::__private::zero(&#p);));
                            slice_of(k, quote!(#z))
                        };
                        pargs[k] = slice_of(k, pargs[k].clone());
                    }
                }
                // A `&mut [T]` output passed on is lent to the callee, with its tangents.
                let slices = &self.slices;
                for (k, a) in args.iter().enumerate() {
                    if let Some((var, true)) = slices.get(&a.0)
                        && lent[k].mutable().is_none()
                    {
                        let (p, t) = (&pargs[k], &targs[k]);
                        // Passed twice, it can only be read: lent as `&[T]` each time.
                        let twice = args
                            .iter()
                            .filter(|b| slices.get(&b.0).is_some_and(|(v, _)| v == var))
                            .count()
                            > 1;
                        (pargs[k], targs[k]) = if twice {
                            (quote!(&*#p), quote!(&*#t))
                        } else {
                            (
                                quote!(#krate::__private::lend(&mut *#p)),
                                quote!(#krate::__private::lend(&mut *#t)),
                            )
                        };
                    }
                }
                let partial =
                    crate::call_site::Partial::of(callee, args, functions, &|a| self.p(a, al));
                if partial.is_some() {
                    // The function items are in place in the callee's derivative.
                    let keep = |k: &usize| !functions[*k];
                    pargs = (0..args.len())
                        .filter(keep)
                        .map(|k| pargs[k].clone())
                        .collect();
                    targs = (0..args.len())
                        .filter(keep)
                        .map(|k| targs[k].clone())
                        .collect();
                } else {
                    let arg_types = args
                        .iter()
                        .zip(lent)
                        .map(|(a, how)| {
                            let known = self.types.values.get(&a.0);
                            let ty = match how {
                                crate::ir::Lent::No => known.cloned(),
                                // Lent as `&v[..]`: a shared slice of its elements.
                                how if how.shared() => known
                                    .and_then(types::element_type)
                                    .map(|e| syn::parse_quote!(&[#e])),
                                _ => None,
                            };
                            ty.filter(|t| no_coercion(t, &self.func.generics))
                        })
                        .collect();
                    let arg_literals = args
                        .iter()
                        .map(|a| self.types.literals.get(&a.0).cloned())
                        .collect();
                    self.callees.push(CalleeSite {
                        callee: callee.clone(),
                        span: *span,
                        arg_types,
                        arg_literals,
                    });
                }
                let v = hyg(format!("__v{}", out.0));
                let d = hyg(format!("__d{}", out.0));
                let call = crate::call_site::call_site(
                    &krate,
                    &self.caller,
                    *span,
                    "__forward",
                    quote!((#(#pargs,)*), (#(#targs,)*)),
                    (callee, None, partial.as_ref()),
                );
                quote!(#zeros let (#v, #d) = #call;)
            }
            _ => unreachable!("a call"),
        }
    }
}
