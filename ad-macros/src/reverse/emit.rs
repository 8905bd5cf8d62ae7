//! The final assembly: the derivative's signature, the parameters' adjoints and buffers, and
//! both sweeps put together as one function.

use super::*;

impl Reverse<'_> {
    pub fn emit(&mut self) -> TokenStream {
        let func = self.func;
        let krate = self.krate;
        let name = Self::fn_name(func);
        let tape = hyg("__tape");
        let adjoint = hyg("__adjoint");
        let mut params = Vec::new();
        let mut zeros = Vec::new();
        let mut adjoints_out = Vec::new();
        let mut tangent_types = Vec::new();
        // The zero adjoints of the parameters, made before the forward sweep may move them
        // (a `Vec` passed on to a call): they give the adjoints their shapes.
        let mut shapes = Vec::new();
        let mut fit_bars = Vec::new();
        let mut seeds = Vec::new();
        for (k, p) in func.params.iter().enumerate() {
            let var = &func.vars[p.var.0 as usize];
            let ident = &var.ident;
            let ty = &p.ty;
            let m = var.mutable.then(|| quote!(mut));
            if p.function {
                // A function: no adjoint.
                params.push(quote!(#m #ident: #ty));
                continue;
            }
            if let Some((mutable, e)) = crate::lower::slice_of(ty) {
                // A slice comes with its adjoint buffer, which its adjoint accumulates in.
                let dup = hyg(&format!("__dup{k}"));
                let bar = bar_ident(p.var);
                let kind = if mutable { quote!(DupMut) } else { quote!(Dup) };
                params.push(quote!(#dup: #krate::__private::#kind<'_, #e>));
                shapes.push(quote!(let #krate::__private::#kind { value: #m #ident, adjoint: #bar } = #dup;));
                // In the reverse sweep (the forward sweep alone may get no buffer), the buffer
                // as long as the slice, so that an index checked on one is checked on both.
                fit_bars.push(quote!(let #bar = &mut #bar[..#ident.len()];));
                let none = quote!(#krate::__private::NoTangent);
                zeros.push(none.clone());
                adjoints_out.push(none.clone());
                tangent_types.push(none);
                continue;
            }
            let borrowed = func.borrowed(p.var);
            // A struct by reference comes with the adjoint its caller holds for it so far
            // (`__private::DupRef`), which starts the struct's adjoint here.
            let seed = (p.by_ref && !matches!(ty, syn::Type::Array(_)))
                .then(|| hyg(&format!("__seed{k}")));
            if let Some(bar) = &seed {
                let dup = hyg(&format!("__dup{k}"));
                params.push(quote!(#dup: #krate::__private::DupRef<'_, #ty>));
                shapes.push(
                    quote!(let #krate::__private::DupRef { value: #ident, adjoint: #bar } = #dup;),
                );
                if self.var_contributed.contains(&p.var.0) {
                    let x = x_ident(p.var);
                    seeds.push(quote!(#x = #krate::__private::seeded(#bar);));
                }
            }
            if p.by_ref {
                // A reference to an array, or to a struct the function rebinds: the derivative
                // works on a copy. A struct otherwise is read through the reference.
                if seed.is_none() {
                    params.push(quote!(#ident: &#ty));
                }
                if !borrowed {
                    shapes.push(quote!(let #m #ident: #ty = ::core::clone::Clone::clone(#ident);));
                }
            } else {
                params.push(quote!(#m #ident: #ty));
            }
            // Held constant: no adjoint at all.
            if crate::lower::const_of(ty).is_some() {
                let none = quote!(#krate::__private::NoTangent);
                zeros.push(none.clone());
                adjoints_out.push(none.clone());
                tangent_types.push(none);
                continue;
            }
            let z = hyg(&format!("__z{k}"));
            let read = func.read_tokens(p.var, ident);
            tangent_types.push(quote!(<#ty as #krate::__private::Differentiable>::Tangent));
            if borrowed {
                // A struct read through its reference is the same at the end: its zero is made
                // there, and only where the adjoint lacks the struct's shape (`fit_ref`), so
                // that a call adds into its receiver's adjoint without a zero of it per call.
                // The zeros of a forward sweep alone, which the caller drops: without a shape,
                // so that no call of it allocates its receiver's.
                zeros.push(quote!(#krate::__private::zero_of(#krate::__private::type_of(&#read))));
                if self.var_contributed.contains(&p.var.0) {
                    let x = x_ident(p.var);
                    adjoints_out.push(quote!(#krate::__private::fit_ref(#x, &#read)));
                } else {
                    // Nothing added here: the caller's adjoint, as it came.
                    let bar = seed.as_ref().expect("a struct by reference has a seed");
                    adjoints_out.push(
                        quote!(#krate::__private::fit_ref(#krate::__private::seeded(#bar), &#read)),
                    );
                }
                continue;
            }
            shapes.push(quote!(let #z = #krate::__private::zero(&#read);));
            zeros.push(quote!(#z));
            let own = if self.var_contributed.contains(&p.var.0) {
                let x = x_ident(p.var);
                quote!(#krate::__private::fit(#x, #z))
            } else {
                quote!(#z)
            };
            // A struct by reference the function rebinds: its copy's adjoint, plus the caller's.
            adjoints_out.push(match &seed {
                Some(bar) => quote!(#krate::__private::merge_seed(#own, #bar)),
                None => own,
            });
        }
        let ret = &func.ret;
        let mut slots: Vec<TokenStream> = self
            .recorded
            .iter()
            .map(|v| {
                let s = s_ident(*v);
                quote!(let mut #s = ::core::option::Option::None;)
            })
            .collect();
        let mut indexed: Vec<u32> = self.indexed.iter().copied().collect();
        indexed.sort_unstable();
        for v in indexed {
            if self.is_slice(Var(v)) {
                continue;
            }
            let k = k_ident(Var(v));
            let init = func
                .params
                .iter()
                .find(|p| p.var.0 == v)
                .map(|p| {
                    let ident = &func.vars[p.var.0 as usize].ident;
                    quote!(::core::option::Option::Some(#krate::__private::type_of(&#ident)))
                })
                .unwrap_or_else(|| quote!(::core::option::Option::None));
            slots.push(quote!(let mut #k = #init;));
        }
        // The slots naming the types of structs built or updated (`built_ty`).
        for inst in func.body.all_insts() {
            if let Inst::SetField { out, .. } | Inst::Struct { out, .. } = inst
                && self.active(*out)
            {
                let slot = built_ty(*out);
                slots.push(quote!(let #slot = ::core::option::Option::None;));
            }
        }
        slots.extend(self.kept_slots());
        slots.extend(self.dense_slots());

        // Items declared in the body serve both sweeps (a cast may name a local type alias):
        // they stand first, outside the forward sweep's block.
        let items: Vec<TokenStream> = func
            .body
            .insts
            .iter()
            .filter_map(|inst| match inst {
                Inst::Verbatim {
                    tokens, item: true, ..
                } => Some(tokens.clone()),
                _ => None,
            })
            .collect();
        // The caches of the call sites: the reverse sweep of a call finds the rule its forward
        // sweep ran there first.
        let sites: Vec<TokenStream> = func
            .body
            .all_insts()
            .into_iter()
            .filter_map(|inst| match inst {
                Inst::Call { out, span, .. } if self.active(*out) => Some(
                    crate::call_site::site_static(krate, &self.caller, *span, &site_ident(*out)),
                ),
                _ => None,
            })
            .collect();
        let param_witnesses: Vec<TokenStream> = func
            .params
            .iter()
            .map(|p| self.binding_witness(p.var))
            .collect();
        // Forward sweep.
        let mut al = Aliases::default();
        let fwd_body = self.forward_block(&func.body, &mut al, &[]);
        let end_mark = self.has_returns().then(|| quote!(#tape.push(0u32);));
        let fwd_tail = match func.body.result {
            Some(r) => {
                let p = self.p(r, &al);
                quote! {
                    #end_mark
                    ::core::option::Option::Some(#p)
                }
            }
            // A function that only writes `&mut [T]` outputs.
            None if crate::forward::is_unit(&func.ret) => quote! {
                #end_mark
                ::core::option::Option::Some(())
            },
            None => TokenStream::new(),
        };
        let joint = hyg("__joint");
        let joint_out = hyg("__joint_out");
        // What the runtime's `Function::Reverse` has for this many arguments: a result that
        // fits in registers for one argument.
        let shape = if func.params.iter().filter(|p| !p.function).count() == 1 {
            quote!(Swept)
        } else {
            quote!(Tupled)
        };
        let value = hyg("__value");
        let fwd_label = syn::Lifetime {
            apostrophe: Span::mixed_site(),
            ident: hyg("__fwd"),
        };

        // Reverse sweep.
        let mut decls = Vec::new();
        let mut values: Vec<u32> = self
            .contributed
            .iter()
            .copied()
            .filter(|v| !self.direct.contains_key(v))
            .collect();
        values.sort_unstable();
        for v in values {
            let b = b_ident(Value(v));
            let ty = self.known.value_adjoint(Value(v)).map(|t| quote!(::<#t>));
            decls.push(quote!(let mut #b = #krate::__private::Adj #ty::default();));
        }
        let mut vars: Vec<u32> = self.var_contributed.iter().copied().collect();
        vars.sort_unstable();
        for v in vars {
            if self.is_slice(Var(v)) || self.is_dense(Var(v)) {
                continue;
            }
            let x = x_ident(Var(v));
            let ty = self
                .known
                .var_adjoint(func, Var(v), krate)
                .map(|t| quote!(::<#t>));
            decls.push(quote!(let mut #x = #krate::__private::Adj #ty::default();));
        }
        let exit = hyg("__exit");
        let live = hyg("__live");
        let live_decl = if self.has_returns() {
            quote! {
                let mut #exit: u32 = #tape.pop();
                let mut #live = #exit == 0;
            }
        } else if !self.jumps.is_empty() {
            quote! {
                let mut #exit: u32 = 0;
                let mut #live = true;
            }
        } else {
            TokenStream::new()
        };
        // With early returns, each exit seeds from the adjoint, and only one runs: `take` tells
        // the compiler so for an adjoint that moves (a `Vec`).
        let (adjoint_mut, adjoint_taken) = if self.has_returns() {
            (quote!(mut), quote!(#adjoint.take()))
        } else {
            (TokenStream::new(), quote!(#adjoint))
        };
        let seed = func.body.result.and_then(|r| self.slot(r)).map(|b| {
            let seed = hyg("__seed");
            self.guard(quote! {
                if let ::core::option::Option::Some(#seed) = #adjoint_taken {
                    #krate::__private::acc(&mut #b, #seed);
                }
            })
        });
        let rev_body = self.reverse_block(&func.body);
        let dense_push = self.dense_push();
        let dense_decls = self.dense_decls();
        let (field_decls, field_backs) = (self.dense_field_decls(), self.dense_field_backs());

        let (generics, where_clause) = crate::generics::derivative_generics(&func.generics, krate);
        quote! {
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unreachable_code, non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
            fn #name #generics(
                #(#params,)*
                #tape: &mut #krate::__private::Tape,
                #adjoint_mut #adjoint: ::core::option::Option<<#ret as #krate::__private::Differentiable>::Tangent>,
                #joint: bool,
                #joint_out: &mut ::core::option::Option<#ret>,
            ) -> #krate::__private::#shape<#ret, (#(#tangent_types,)*)> #where_clause {
                #(#items)*
                #(#sites)*
                #(#shapes)*
                #(#slots)*
                // The forward sweep, unless this call is the reverse sweep alone.
                let #value: ::core::option::Option<#ret> = #fwd_label: {
                    // Forward sweep alone (no adjoint) or both sweeps (adjoint and joint); not
                    // for the reverse sweep alone, nor for popping only (no adjoint, joint).
                    if #adjoint.is_some() != #joint {
                        break #fwd_label ::core::option::Option::None;
                    }
                    #(#param_witnesses)*
                    #fwd_body
                    #fwd_tail
                };
                if #adjoint.is_none() && !#joint {
                    #dense_push
                    return #krate::__private::Sweep::forward(#value, (#(#zeros,)*));
                }
                #tape.note_high_water();
                #(#fit_bars)*
                #dense_decls
                #(#decls)*
                #(#seeds)*
                #field_decls
                #live_decl
                #seed
                #rev_body
                #field_backs
                #krate::__private::Sweep::reverse(#joint_out, #value, (#(#adjoints_out,)*))
            }
        }
    }
}
