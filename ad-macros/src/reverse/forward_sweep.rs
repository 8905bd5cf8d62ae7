//! The forward sweep: the primal's operations in order, with the records the reverse sweep
//! pops.

use super::*;

impl<'a> Reverse<'a> {
    /// `code` runs only while the reverse sweep is live (after the return point it started from).
    pub(super) fn guard(&self, code: TokenStream) -> TokenStream {
        if self.guarded() {
            let live = hyg("__live");
            quote!(if #live { #code })
        } else {
            code
        }
    }

    pub(super) fn p(&self, v: Value, al: &Aliases) -> TokenStream {
        match al.0.get(&v.0) {
            Some(ts) => ts.clone(),
            None => {
                let id = v_ident(v);
                quote!(#id)
            }
        }
    }

    /// Reverse mode tells variables apart by name; rustc, by name and macro context. Each binding
    /// declares a zero-sized witness of its number, named after the variable with the variable's
    /// own span, and each read or write checks that the witness rustc finds is that of the
    /// variable the macro means: where two contexts share a name, that is a compile error
    /// instead of an adjoint routed to the wrong variable.
    pub(super) fn witness_ident(name: &Ident) -> Ident {
        Ident::new(&format!("__ad_w_{}", name.unraw()), name.span())
    }

    pub(super) fn binding_witness(&self, var: Var) -> TokenStream {
        let krate = self.krate;
        let w = Self::witness_ident(&self.func.vars[var.0 as usize].ident);
        let k = var.0 as usize;
        quote!(let #w = #krate::__private::Binding::<#k>;)
    }

    pub(super) fn binding_check(&self, var: Var, at: &Ident) -> TokenStream {
        let krate = self.krate.clone();
        let w = Self::witness_ident(at);
        let k = var.0 as usize;
        let span = at.span();
        let krate_here = crate::expand::respan(&krate, span);
        quote_spanned!(span=> #w.same_as::<#krate_here::__private::Binding<#k>>();)
    }

    /// Keeps what the reverse sweep needs of `out`'s instruction: in its slot, and on the tape
    /// unless both sweeps run in this one call and the instruction runs once (outside loops).
    pub(super) fn record(&self, out: Value, values: &[TokenStream]) -> TokenStream {
        self.record_moving(out, values, 0)
    }

    /// As [`record`](Self::record), the first `moved` values moved into the record rather
    /// than cloned: bindings made for it alone (a call's kept arguments).
    pub(super) fn record_moving(
        &self,
        out: Value,
        values: &[TokenStream],
        moved: usize,
    ) -> TokenStream {
        if !self.keeps(out) {
            return TokenStream::new();
        }
        let moved = if self.layouts.contains_key(&out.0) {
            0
        } else {
            moved
        };
        let values: Vec<TokenStream> = self
            .taped(out, values.to_vec())
            .into_iter()
            .enumerate()
            .map(|(k, v)| {
                if k < moved {
                    v
                } else {
                    quote!(::core::clone::Clone::clone(&#v))
                }
            })
            .collect();
        let tape = hyg("__tape");
        let s = s_ident(out);
        let r = hyg("__rec");
        let push = if let Some(slots) = self
            .reserving
            .borrow_mut()
            .as_mut()
            .filter(|_| self.in_loop.contains(&out.0))
        {
            // Into the room its loop made.
            let krate = self.krate;
            slots.push((
                quote!(#krate::__private::tape_words(&#s)),
                self.reserve_times.borrow().clone(),
            ));
            quote!(#tape.push_reserved(#r);)
        } else if self.in_loop.contains(&out.0) {
            quote!(#tape.push(#r);)
        } else {
            let joint = hyg("__joint");
            quote!(if !#joint { #tape.push(::core::clone::Clone::clone(&#r)); })
        };
        if self.in_loop.contains(&out.0) {
            // In a loop the reverse sweep pops every record: the slot only names its type, and
            // the record goes on the tape without a second copy (a `Vec` argument of a call
            // kept in the slot too was allocated, copied and freed once more per iteration).
            let krate = self.krate;
            return quote! {
                let #r = (#(#values,)*);
                #krate::__private::same_type(&#s, &#r);
                #push
            };
        }
        quote! {
            let #r = (#(#values,)*);
            #push
            #s = ::core::option::Option::Some(#r);
        }
    }

    /// The forward sweep of a block. `decisions` are the enclosing constructs that an exit can
    /// leave, innermost last: an exit records for them what they record when they complete.
    pub(super) fn forward_block(
        &mut self,
        b: &Block,
        al: &mut Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for inst in &b.insts {
            out.extend(self.forward_inst(inst, al, decisions));
        }
        out
    }

    pub(super) fn forward_value_block(
        &mut self,
        b: &Block,
        al: &Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let mut inner = al.clone();
        let body = self.forward_block(b, &mut inner, decisions);
        let tail = b.result.map(|r| self.p(r, &inner));
        quote!({ #body #tail })
    }

    /// Ties the slot naming the type of a struct built or updated to its value (nothing runs).
    fn name_built_type(&self, out: Value) -> TokenStream {
        if !self.active(out) {
            return TokenStream::new();
        }
        let (krate, v, slot) = (self.krate, v_ident(out), built_ty(out));
        quote!(#krate::__private::same_type(&#slot, &#krate::__private::type_of(&#v));)
    }

    pub(super) fn def(out: Value, primal: TokenStream) -> TokenStream {
        let v = v_ident(out);
        quote!(let #v = #primal;)
    }

    pub(super) fn forward_inst(
        &mut self,
        inst: &Inst,
        al: &mut Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let krate = self.krate.clone();
        let tape = hyg("__tape");
        match inst {
            Inst::Const { out, tokens } => {
                if crate::forward::binds_once(tokens) {
                    Self::def(*out, tokens.clone())
                } else {
                    al.0.insert(out.0, tokens.clone());
                    TokenStream::new()
                }
            }
            Inst::Opaque { out, tokens, .. } => Self::def(*out, tokens.clone()),
            Inst::Read { out, var, ident } => {
                let check = self.binding_check(*var, ident);
                let x = self.func.read_tokens(*var, ident);
                if self.func.clones(*out) {
                    let mut ts = check;
                    ts.extend(Self::def(*out, quote!(::core::clone::Clone::clone(&#x))));
                    ts
                } else if self.func.copies(*out) {
                    let mut ts = check;
                    ts.extend(Self::def(*out, quote!(#x)));
                    ts
                } else {
                    al.0.insert(out.0, quote!(#x));
                    check
                }
            }
            Inst::Wrap { out, a } => {
                let pa = self.p(*a, al);
                Self::def(*out, quote!(::core::option::Option::Some(#pa)))
            }
            Inst::Payload { out, a, unwrap } => {
                let pa = self.p(*a, al);
                let krate = self.krate;
                let primal = match unwrap {
                    Some(call) => quote!(#pa #call),
                    None => quote!(#krate::__private::payload(#pa)),
                };
                Self::def(*out, primal)
            }
            Inst::Neg { out, a } => {
                let pa = self.p(*a, al);
                Self::def(*out, quote!(-#pa))
            }
            Inst::Arith {
                out,
                op,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                let mut ts = Self::def(*out, quote!(#pa #op_tokens #pb));
                if self.active(*out) {
                    let y = v_ident(*out);
                    match op {
                        Arith::Mul => {
                            // An element kept as its index: the index as the read used it (only
                            // reads and arithmetic since, so it still holds).
                            let mut values = vec![pa, pb];
                            if let Some(layout) = self.layouts.get(&out.0) {
                                for (k, f) in layout.iter().enumerate() {
                                    if let Src::Elem { index, .. } = f {
                                        values[k] = self.p(*index, al);
                                    }
                                }
                            }
                            ts.extend(self.record(*out, &values));
                        }
                        Arith::Rem => ts.extend(self.record(*out, &[pa, pb])),
                        Arith::Div => ts.extend(self.record(*out, &[pb, quote!(#y)])),
                        Arith::Add | Arith::Sub => {}
                    }
                }
                ts
            }
            Inst::Inactive {
                out,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                Self::def(*out, quote!(#pa #op_tokens #pb))
            }
            Inst::Method {
                out,
                prim,
                method,
                ufcs,
                recv,
                args,
            } => {
                let pr = self.p(*recv, al);
                let pargs: Vec<TokenStream> = args.iter().map(|a| self.p(*a, al)).collect();
                let primal = crate::prims::call_tokens(ufcs.as_ref(), method, &pr, &pargs);
                let mut ts = Self::def(*out, primal);
                if self.active(*out) {
                    let y = v_ident(*out);
                    // The record's last field: the value, or the partial where it is kept.
                    let last = if crate::prims::partial_kept(prim.name) {
                        let krate = self.krate;
                        let name = Ident::new(prim.name, Span::call_site());
                        quote!(#krate::__private::prim::#name(#pr, #y))
                    } else {
                        quote!(#y)
                    };
                    let mut rec = vec![pr];
                    rec.extend(pargs);
                    rec.push(last);
                    ts.extend(self.record(*out, &rec));
                }
                ts
            }
            Inst::Call { .. } => self.forward_call(inst, al),
            Inst::Cast { out, a, ty, via } => {
                let pa = self.p(*a, al);
                let primal = crate::ir::Conversion::primal(via.as_ref(), &pa, ty);
                let mut ts = Self::def(*out, primal);
                if self.active(*out) {
                    ts.extend(self.record(*out, &[pa]));
                }
                ts
            }
            Inst::Tuple { out, elems } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                Self::def(*out, quote!((#(#ps,)*)))
            }
            Inst::SetField {
                out,
                a,
                path,
                value,
            } => {
                let (pa, pv) = (self.p(*a, al), self.p(*value, al));
                let mut ts = Self::def(*out, crate::ir::set_field_tokens(&pa, path, &pv));
                ts.extend(self.name_built_type(*out));
                ts
            }
            Inst::Struct {
                out,
                path,
                fields,
                rest,
            } => {
                let literal = crate::ir::struct_tokens(path, fields, *rest, &mut |x| self.p(x, al));
                let mut ts = Self::def(*out, literal);
                ts.extend(self.name_built_type(*out));
                ts
            }
            Inst::Field {
                out,
                a,
                index,
                element,
                of,
            } => {
                let pa = self.p(*a, al);
                let access = crate::ir::field_access(index, *element);
                // A struct's field is a place, read where it is used (see the forward mode).
                // Its record is the struct's type only: the reverse sweep starts the struct's
                // adjoint from a zero without a shape (the struct may be moved from by then).
                if self.func.place_field(*out, index) {
                    let krate = self.krate;
                    let mut ts = if self.func.clones(*out) {
                        Self::def(*out, quote!(::core::clone::Clone::clone(&(#pa) #access)))
                    } else if self.func.field_copies(*out) {
                        // Cloned: a `Vec` field is not moved out of a struct read again.
                        Self::def(*out, quote!(::core::clone::Clone::clone(&(#pa) #access)))
                    } else {
                        al.0.insert(out.0, quote!((#pa) #access));
                        TokenStream::new()
                    };
                    // Of a declared type, named by the reverse sweep: nothing kept (`keeps`).
                    let ty = match of {
                        Some(v) if self.typed_at_let.contains(&v.0) => {
                            let w = ty_witness(*v);
                            quote!(#w)
                        }
                        _ => quote!(#krate::__private::type_of(&#pa)),
                    };
                    if self.active(*out) {
                        ts.extend(self.record(*out, &[ty]));
                    }
                    return ts;
                }
                let mut ts = Self::def(*out, quote!(#pa #access));
                if self.active(*out) {
                    ts.extend(self.record(*out, &[pa]));
                }
                ts
            }
            Inst::Let { var, init } => {
                let data = &self.func.vars[var.0 as usize];
                let x = &data.ident;
                let m = data.mutable.then(|| quote!(mut));
                let ty = data.ty.as_ref().map(|t| quote!(: #t));
                let pinit = init.map(|v| {
                    let p = self.p(v, al);
                    quote!(= #p)
                });
                let witness = self.binding_witness(*var);
                let kind = self.indexed.contains(&var.0).then(|| {
                    let k = k_ident(*var);
                    match (init, &data.ty) {
                        (Some(_), _) => quote!(#k = ::core::option::Option::Some(#krate::__private::type_of(&#x));),
                        (None, Some(t)) => quote!(#k = ::core::option::Option::Some(::core::marker::PhantomData::<fn() -> #t>);),
                        (None, None) => TokenStream::new(),
                    }
                });
                let note = self.dense_note(*var);
                let typed = (init.is_some() && self.typed_at_let.contains(&var.0)).then(|| {
                    let w = ty_witness(*var);
                    quote!(let #w = #krate::__private::type_of(&#x);)
                });
                quote!(let #m #x #ty #pinit; #witness #kind #note #typed)
            }
            Inst::Assign { ident, value, var } => {
                let p = self.p(*value, al);
                let check = self.binding_check(*var, ident);
                quote!(#check #ident = #p;)
            }
            Inst::Block { out, block } => {
                let body = self.forward_value_block(block, al, decisions);
                match out {
                    Some(o) => Self::def(*o, body),
                    None => quote!(#body;),
                }
            }
            Inst::If {
                out,
                cond,
                then_block,
                else_block,
            } => {
                let n = self.ifs[&std::ptr::from_ref(inst)];
                let c = hyg(&format!("__c{n}"));
                let pc = self.p(*cond, al);
                let mut inner: Vec<Enclosing> = decisions.to_vec();
                inner.push(Enclosing::If(c.clone()));
                let then_b = self.forward_value_block(then_block, al, &inner);
                let else_b = self.forward_value_block(else_block, al, &inner);
                let expr = quote!(if #c #then_b else #else_b);
                let bind = match out {
                    Some(o) => Self::def(*o, expr),
                    None => quote!(#expr;),
                };
                // In a loop that made room for its pushes, the decision goes there too.
                let push = match self.reserving.borrow_mut().as_mut() {
                    Some(slots) => {
                        let krate = self.krate;
                        slots.push((
                            quote!(#krate::__private::tape_words(
                                &::core::option::Option::<bool>::None
                            )),
                            self.reserve_times.borrow().clone(),
                        ));
                        quote!(#tape.push_reserved(#c);)
                    }
                    None => quote!(#tape.push(#c);),
                };
                quote! {
                    let #c: bool = #pc;
                    #bind
                    #push
                }
            }
            Inst::Return { value } => {
                let k = self.returns[&std::ptr::from_ref(inst)];
                let p = self.p(*value, al);
                // What the enclosing constructs record, innermost first, so the outermost is on
                // top; then the return point. A loop left here records this return as the way
                // its last iteration ended, then its trip count.
                let pushes = decisions.iter().rev().map(|e| match e {
                    Enclosing::If(c) => quote!(#tape.push(#c);),
                    Enclosing::Loop { trips, .. } => quote!(#tape.push(#k); #tape.push(#trips);),
                });
                let fwd_label = syn::Lifetime {
                    apostrophe: Span::mixed_site(),
                    ident: hyg("__fwd"),
                };
                quote! {
                    #(#pushes)*
                    #tape.push(#k);
                    break #fwd_label ::core::option::Option::Some(#p);
                }
            }
            // The body's own items stand at the top of the function already.
            Inst::Verbatim { item: true, .. }
                if self.func.body.insts.iter().any(|i| std::ptr::eq(i, inst)) =>
            {
                TokenStream::new()
            }
            Inst::Verbatim { tokens, .. } => tokens.clone(),
            Inst::Index {
                out,
                var,
                ident,
                index,
            } => {
                let check = self.binding_check(*var, ident);
                let i = self.p(*index, al);
                let mut ts = check;
                // A struct element is cloned out of its sequence.
                let read = match self.func.clones(*out) {
                    true => quote!(::core::clone::Clone::clone(&#ident[#i])),
                    false => quote!(#ident[#i]),
                };
                ts.extend(Self::def(*out, read));
                if self.active(*out) {
                    ts.extend(self.record(*out, &[i]));
                }
                ts
            }
            Inst::FieldIndex {
                out,
                a,
                index,
                root,
                elems,
                ..
            } => {
                let (pa, i) = (self.p(*a, al), self.p(*index, al));
                let krate = self.krate;
                let witness = {
                    let pr = self.p(*root, al);
                    quote!(#krate::__private::type_of(&#pr))
                };
                // A receiver lent to a call: the element in place (see the forward mode).
                let mut ts = if self.func.values[out.0 as usize].place {
                    al.0.insert(out.0, quote!((#pa)[#i]));
                    TokenStream::new()
                } else {
                    Self::def(*out, quote!(::core::clone::Clone::clone(&(#pa)[#i])))
                };
                if self.active(*out) {
                    // The index, the field's length for its adjoint's shape, and the struct's
                    // type, which names the field of its adjoint.
                    let mut fields = vec![i, quote!((#pa).len()), witness];
                    fields.extend(self.elems_record(elems, al));
                    ts.extend(self.record(*out, &fields));
                }
                ts
            }
            Inst::IndexAssign {
                id,
                var,
                ident,
                path,
                elems,
                index,
                last,
                value,
            } => {
                let check = self.binding_check(*var, ident);
                let i = self.p(*index, al);
                let p = self.p(*value, al);
                let mut ts = check;
                let place =
                    crate::ir::place_tokens(quote!(#ident), path, elems, &mut |at, _, e| {
                        let i = self.p(e.index, al);
                        quote!(#at[#i])
                    });
                if self.act.var(*var) {
                    let k = hyg(&format!("__i{}", id.0));
                    ts.extend(quote!(let #k: usize = #i; #place[#k] #(.#last)* = #p;));
                    if path.is_empty() {
                        ts.extend(self.record(*id, &[quote!(#k)]));
                    } else {
                        let krate = self.krate;
                        let mut fields =
                            vec![quote!(#k), quote!(#krate::__private::type_of(&#ident))];
                        fields.extend(self.elems_record(elems, al));
                        // A field of the element written: the sequence's length too.
                        if !last.is_empty() {
                            fields.push(quote!((#place).len()));
                        }
                        ts.extend(self.record(*id, &fields));
                    }
                } else {
                    ts.extend(quote!(#place[#i] #(.#last)* = #p;));
                }
                ts
            }
            Inst::Array { out, elems, vec } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                Self::def(*out, crate::ir::array_tokens(&ps, *vec))
            }
            Inst::Repeat { out, elem, len } => {
                let pe = self.p(*elem, al);
                let n = match len {
                    crate::ir::Len::Vec(n) => self.p(*n, al),
                    crate::ir::Len::Const(_) => TokenStream::new(),
                };
                Self::def(*out, crate::ir::repeat_tokens(self.krate, &pe, len, &n))
            }
            Inst::Sum {
                out,
                var,
                ident,
                tokens,
                len,
            } => {
                let check = self.binding_check(*var, ident);
                let mut ts = check;
                ts.extend(Self::def(*out, tokens.clone()));
                if self.active(*out) {
                    let n = self.p(*len, al);
                    ts.extend(self.record(*out, &[n]));
                }
                ts
            }
            Inst::Loop { head, body } if loop_mode(body) != LoopMode::Plain => {
                self.forward_exit_loop(inst, head, body, al, decisions)
            }
            Inst::Break | Inst::Continue => {
                let k = self.jumps[&std::ptr::from_ref(inst)];
                // The decisions of the `if`s it leaves, innermost first, then how the iteration
                // ended: on the tape, or, if only the last iteration can end early, in the
                // loop's marker, which goes on the tape after the loop.
                let mut pushes = TokenStream::new();
                for e in decisions.iter().rev() {
                    match e {
                        Enclosing::If(c) => pushes.extend(quote!(#tape.push(#c);)),
                        Enclosing::Loop { marker, .. } => {
                            pushes.extend(match marker {
                                Some(m) => quote!(#m = #k;),
                                None => quote!(#tape.push(#k);),
                            });
                            break;
                        }
                    }
                }
                let jump = if matches!(inst, Inst::Break) {
                    quote!(break;)
                } else {
                    quote!(continue;)
                };
                quote!(#pushes #jump)
            }
            Inst::Loop { head, body } => self.forward_loop(inst, head, body, al, decisions),
        }
    }
}

impl Reverse<'_> {
    /// What the record of a place keeps of each element on the way (`layers[l]` of
    /// `s.layers[l].w[j]`): its index and its sequence's length, which the reverse sweep needs
    /// to reach the place in the struct's adjoint (`Reverse::adjoint_place`).
    fn elems_record(&self, elems: &[crate::ir::PathElem], al: &Aliases) -> Vec<TokenStream> {
        elems
            .iter()
            .flat_map(|e| {
                let (i, seq) = (self.p(e.index, al), self.p(e.seq, al));
                [i, quote!((#seq).len())]
            })
            .collect()
    }
}
