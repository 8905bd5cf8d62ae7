//! The reverse sweep: the instructions backwards, each adding its adjoint contributions.

use super::*;

impl<'a> Reverse<'a> {
    /// A number for each loop, for naming its trip count.
    pub(super) fn loop_index(&self, inst: &Inst) -> u32 {
        self.loops[&std::ptr::from_ref(inst)]
    }

    /// The reverse sweep of a block: its instructions backwards.
    pub(super) fn reverse_block(&self, b: &Block) -> TokenStream {
        let mut out = TokenStream::new();
        for inst in b.insts.iter().rev() {
            out.extend(self.reverse_inst(inst));
        }
        out
    }

    /// The adjoint that what is added to `target`'s goes to, if it carries one: its own, or
    /// for a direct read (see `direct`) its variable's.
    /// The place of a field in a struct's adjoint `base`, each element on the way given its
    /// sequence's length there first (`elem_mut`); the elements' indices and lengths are the
    /// fields of `out`'s record from `first` on, two each.
    fn adjoint_place(
        &self,
        base: TokenStream,
        out: Value,
        path: &[syn::Member],
        elems: &[crate::ir::PathElem],
        first: usize,
        r: &Ident,
    ) -> TokenStream {
        let krate = self.krate;
        crate::ir::place_tokens(base, path, elems, &mut |at, k, _| {
            let i = self.field(out, first + 2 * k, r);
            let n = self.field(out, first + 2 * k + 1, r);
            quote!((*#krate::__private::elem_mut(&mut #at, #n, #i)))
        })
    }

    pub(super) fn slot(&self, target: Value) -> Option<Ident> {
        if !self.contributed.contains(&target.0) {
            return None;
        }
        match self.direct.get(&target.0) {
            Some(var) => self.var_contributed.contains(&var.0).then(|| x_ident(*var)),
            None => Some(b_ident(target)),
        }
    }

    /// Adds `value` to the adjoint of `target` if it carries one.
    pub(super) fn acc(&self, target: Value, value: TokenStream) -> TokenStream {
        match self.slot(target) {
            Some(b) => {
                let krate = self.krate;
                quote!(#krate::__private::acc(&mut #b, #value);)
            }
            None => TokenStream::new(),
        }
    }

    /// Runs `body` with `__g` bound to the adjoint of `out`, if it has one.
    pub(super) fn with_adjoint(&self, out: Value, body: TokenStream) -> TokenStream {
        self.take_adjoint(out, body, quote!(take))
    }

    /// Like `with_adjoint`, for a `body` that only adds `±__g` to adjoints, or products of it
    /// guarded for zero (`mul_l_nz`): a zero adjoint adds zeros there, which change nothing, so a
    /// float's adjoint is not tested for zero.
    pub(super) fn with_adjoint_linear(&self, out: Value, body: TokenStream) -> TokenStream {
        self.take_adjoint(out, body, quote!(take_linear))
    }

    pub(super) fn take_adjoint(
        &self,
        out: Value,
        body: TokenStream,
        take: TokenStream,
    ) -> TokenStream {
        if !self.contributed.contains(&out.0) || body.is_empty() {
            return TokenStream::new();
        }
        let krate = self.krate;
        let b = b_ident(out);
        let g = hyg("__g");
        quote!(if let ::core::option::Option::Some(#g) = #krate::__private::#take(&mut #b) { #body })
    }

    pub(super) fn pop_record(&self, out: Value) -> TokenStream {
        let tape = hyg("__tape");
        let s = s_ident(out);
        if self.in_loop.contains(&out.0) {
            quote!(#tape.pop_like(&#s))
        } else {
            let joint = hyg("__joint");
            let kept = hyg("__kept");
            quote! {
                match #s {
                    ::core::option::Option::Some(#kept) if #joint => #kept,
                    _ => #tape.pop_like(&#s),
                }
            }
        }
    }

    /// `inner`, the pullback of `out`, after its record is popped into `r`, if it keeps one.
    fn after_record(&self, out: Value, r: &Ident, inner: TokenStream) -> TokenStream {
        if self.keeps(out) {
            let pop = self.pop_record(out);
            let elems = self.bind_elems(out, r);
            quote!(let #r = #pop; #elems #inner)
        } else {
            inner
        }
    }

    pub(super) fn reverse_inst(&self, inst: &Inst) -> TokenStream {
        let krate = self.krate;
        let g = hyg("__g");
        let r = hyg("__rec");
        let tape = hyg("__tape");
        let code = match inst {
            Inst::Const { .. }
            | Inst::Opaque { .. }
            | Inst::Inactive { .. }
            | Inst::Verbatim { .. }
            | Inst::Let { init: None, .. } => return TokenStream::new(),
            Inst::Read { out, var, .. } => {
                if !self.var_contributed.contains(&var.0) || self.direct.contains_key(&out.0) {
                    return TokenStream::new();
                }
                let x = x_ident(*var);
                self.with_adjoint_linear(*out, quote!(#krate::__private::acc(&mut #x, #g);))
            }
            Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                // The read of an update in place: its store's reverse did its part.
                if self.inplace_skip.contains(&out.0) {
                    return if self.keeps(*out) {
                        self.guard(quote!(let _ = #pop;))
                    } else {
                        TokenStream::new()
                    };
                }
                let each = matches!(inst, Inst::Sum { .. });
                let at = self.field(*out, 0, &r);
                let body = if let Some(local) = self.carried_reads.get(&out.0) {
                    // Carried to the element from one replayed iteration to the next (see
                    // `carried.rs`).
                    self.with_adjoint_linear(*out, quote!(#krate::__private::acc(&mut #local, #g);))
                } else if !each && self.is_summed(*out) {
                    // Added to the element once the loop is replayed (see `replay.rs`).
                    let sum = replay::sum_ident(*out);
                    self.with_adjoint_linear(*out, quote!(#krate::__private::acc(&mut #sum, #g);))
                } else if self.is_slice(*var) {
                    let bar = bar_ident(*var);
                    let f = if each {
                        quote!(slice_acc_each)
                    } else {
                        quote!(slice_acc_at)
                    };
                    // Linear: a zero adjoint adds zeros to the buffer.
                    self.with_adjoint_linear(*out, quote!(#krate::__private::#f(#bar, #at, #g);))
                } else if self.is_dense(*var) {
                    let x = x_ident(*var);
                    let f = if each {
                        quote!(slice_acc_each)
                    } else {
                        quote!(slice_acc_at)
                    };
                    self.with_adjoint_linear(*out, quote!(#krate::__private::#f(&mut #x, #at, #g);))
                } else if self.var_contributed.contains(&var.0) {
                    let (x, k) = (x_ident(*var), k_ident(*var));
                    let f = if each {
                        quote!(acc_each)
                    } else {
                        quote!(acc_at)
                    };
                    self.with_adjoint_linear(
                        *out,
                        quote!(#krate::__private::#f(&mut #x, &#k, #at, #g);),
                    )
                } else {
                    TokenStream::new()
                };
                if self.keeps(*out) {
                    quote!(let #r = #pop; #body)
                } else {
                    body
                }
            }
            Inst::FieldIndex {
                out,
                root,
                path,
                elems,
                ..
            } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let (at, len) = (self.field(*out, 0, &r), self.field(*out, 1, &r));
                let witness = self.field(*out, 2, &r);
                let dense = self.dense_field_of(*root, path, elems);
                let body = match self.slot(*root) {
                    Some(_) if let Some(buf) = dense => {
                        quote!(#krate::__private::slice_acc_at(#buf, #at, #g);)
                    }
                    Some(slot) => {
                        let t = hyg("__t");
                        let place = self.adjoint_place(quote!(#t), *out, path, elems, 3, &r);
                        quote!(#krate::__private::acc_field_elem(&mut #slot, #witness, |#t| &mut #place, #len, #at, #g);)
                    }
                    None => TokenStream::new(),
                };
                let inner = self.with_adjoint_linear(*out, body);
                self.after_record(*out, &r, inner)
            }
            Inst::IndexAssign {
                id,
                var,
                path,
                elems,
                last,
                value,
                ..
            } => {
                if !self.act.var(*var) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*id);
                let at = self.field(*id, 0, &r);
                let body = if !path.is_empty() {
                    // The element's adjoint, taken out of the struct's at the field, goes to
                    // the value stored.
                    if self.var_contributed.contains(&var.0) {
                        let x = x_ident(*var);
                        let add = self.acc(*value, quote!(#g));
                        let witness = self.field(*id, 1, &r);
                        let t = hyg("__t");
                        let place = self.adjoint_place(quote!(#t), *id, path, elems, 2, &r);
                        if last.is_empty() {
                            quote! {
                                if let ::core::option::Option::Some(#g) = #krate::__private::take_field_at(
                                    &mut #x,
                                    #witness,
                                    |#t| &mut #place,
                                    #at,
                                ) {
                                    #add
                                }
                            }
                        } else {
                            // A field of the element: the element given its sequence's length.
                            let n = self.field(*id, 2 + 2 * elems.len(), &r);
                            quote! {
                                if let ::core::option::Option::Some(#g) = #krate::__private::take_place(
                                    &mut #x,
                                    #witness,
                                    |#t| &mut (*#krate::__private::elem_mut(&mut #place, #n, #at)) #(.#last)*,
                                ) {
                                    #add
                                }
                            }
                        }
                    } else {
                        TokenStream::new()
                    }
                } else if self.inplace.contains_key(&id.0) {
                    self.reverse_inplace(*id, *var, &at)
                } else if self.is_slice(*var) {
                    let bar = bar_ident(*var);
                    let add = self.acc(*value, quote!(#g));
                    quote! {
                        if let ::core::option::Option::Some(#g) = #krate::__private::slice_take_at(#bar, #at) {
                            #add
                        }
                    }
                } else if self.is_dense(*var) {
                    let x = x_ident(*var);
                    let add = self.acc(*value, quote!(#g));
                    quote! {
                        if let ::core::option::Option::Some(#g) = #krate::__private::slice_take_at(&mut #x, #at) {
                            #add
                        }
                    }
                } else if self.var_contributed.contains(&var.0) {
                    // The element's adjoint goes to the value stored, and the element before the
                    // store receives nothing from what came after it.
                    let (x, k) = (x_ident(*var), k_ident(*var));
                    let add = self.acc(*value, quote!(#g));
                    quote! {
                        if let ::core::option::Option::Some(#g) = #krate::__private::take_at(&mut #x, &#k, #at) {
                            #add
                        }
                    }
                } else {
                    TokenStream::new()
                };
                if self.keeps(*id) {
                    quote!(let #r = #pop; #body)
                } else {
                    body
                }
            }
            Inst::Array { out, elems, .. } => {
                let mut body = TokenStream::new();
                for (i, e) in elems.iter().enumerate() {
                    if let Some(b) = self.slot(*e) {
                        body.extend(quote!(#krate::__private::acc_elem(&mut #b, &#g, #i);));
                    }
                }
                self.with_adjoint(*out, body)
            }
            Inst::Repeat { out, elem, .. } => {
                let Some(b) = self.slot(*elem) else {
                    return TokenStream::new();
                };
                self.with_adjoint(*out, quote!(#krate::__private::acc_total(&mut #b, &#g);))
            }
            Inst::Wrap { out, a } => {
                let gi = hyg("__gi");
                let add = self.acc(*a, quote!(#gi));
                self.with_adjoint_linear(
                    *out,
                    quote!(if let ::core::option::Option::Some(#gi) = #g { #add }),
                )
            }
            Inst::Payload { out, a, .. } => self
                .with_adjoint_linear(*out, self.acc(*a, quote!(::core::option::Option::Some(#g)))),
            Inst::Neg { out, a } => {
                self.with_adjoint_linear(*out, self.acc(*a, quote!(::core::ops::Neg::neg(#g))))
            }
            Inst::Arith { out, op, a, b, .. } => {
                if !self.active(*out) || self.inplace_skip.contains(&out.0) {
                    return TokenStream::new();
                }
                let s = quote!(#krate::__private::ops::Scalar);
                match op {
                    Arith::Add => {
                        let mut body = self.acc(*a, quote!(#g));
                        body.extend(self.acc(*b, quote!(#g)));
                        self.with_adjoint_linear(*out, body)
                    }
                    Arith::Sub => {
                        let mut body = self.acc(*a, quote!(#g));
                        body.extend(self.acc(*b, quote!(::core::ops::Neg::neg(#g))));
                        self.with_adjoint_linear(*out, body)
                    }
                    Arith::Mul | Arith::Div | Arith::Rem => {
                        let (f0, f1) = (self.field(*out, 0, &r), self.field(*out, 1, &r));
                        // The partials, and whether a zero adjoint must skip them: a partial
                        // that may be infinite would make a NaN of it.
                        let (ca, cb, test_zero) = match op {
                            // Times a finite literal: a zero adjoint gives zeros.
                            Arith::Mul
                                if self.finite.contains_key(&a.0)
                                    || self.finite.contains_key(&b.0) =>
                            {
                                (
                                    quote!(#s::mul_l(#g, #f1)),
                                    quote!(#s::mul_r(#f0, #g)),
                                    false,
                                )
                            }
                            // Each partial is -0 where the adjoint is zero, as if it were
                            // skipped: selects instead of a branch around the whole pullback
                            // (which kept loops such as GMM's triangle from scheduling freely).
                            Arith::Mul => (
                                quote!(#s::mul_l_nz(#g, #f1)),
                                quote!(#s::mul_r_nz(#f0, #g)),
                                false,
                            ),
                            // record: (b, y); over a nonzero literal, linear in the adjoint.
                            Arith::Div => (
                                quote!(#s::div_l(#g, #f0)),
                                quote!(#s::div_r(#f0, #g, #f1)),
                                self.finite.get(&b.0) != Some(&true),
                            ),
                            // record: (a, b)
                            _ => (
                                quote!(#s::rem_l(#g, #f1)),
                                quote!(#s::rem_r(#f0, #f1, #g)),
                                true,
                            ),
                        };
                        let mut body = self.acc(*a, ca);
                        body.extend(self.acc(*b, cb));
                        let inner = if test_zero {
                            self.with_adjoint(*out, body)
                        } else {
                            self.with_adjoint_linear(*out, body)
                        };
                        self.after_record(*out, &r, inner)
                    }
                }
            }
            Inst::Method {
                out,
                prim,
                recv,
                args,
                ..
            } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let partial_fn = Ident::new(prim.name, Span::call_site());
                let path = quote!(#krate::__private::prim::#partial_fn);
                let n_inputs = 1 + args.len();
                let fields: Vec<TokenStream> =
                    (0..=n_inputs).map(|i| self.field(*out, i, &r)).collect();
                let body = match prim.shape {
                    // The record keeps the partial itself.
                    Shape::Unary if crate::prims::partial_kept(prim.name) => {
                        let d = &fields[1];
                        self.acc(*recv, quote!(#d * #g))
                    }
                    // The argument is not kept: the value stands in for it.
                    Shape::Unary if crate::prims::value_only(prim.name) => {
                        let y = &fields[1];
                        self.acc(*recv, quote!(#path(#y, #y) * #g))
                    }
                    Shape::Unary => {
                        let (x, y) = (&fields[0], &fields[1]);
                        self.acc(*recv, quote!(#path(#x, #y) * #g))
                    }
                    // The partial does not read the value, which is not kept: `x` stands in.
                    // An integer literal `n` as written: it is an `i32`, not the adjoint's type.
                    Shape::PowI => {
                        let x = &fields[0];
                        let n = match self.layouts.get(&out.0).map(|l| &l[1]) {
                            Some(Src::Literal(n)) => n.clone(),
                            _ => fields[1].clone(),
                        };
                        self.acc(*recv, quote!(#path(#x, #n, #x) * #g))
                    }
                    Shape::Multi(_) => {
                        let p = hyg("__p");
                        let inputs: Vec<Value> =
                            std::iter::once(*recv).chain(args.iter().copied()).collect();
                        let mut body = quote!(let #p = #path(#(#fields),*););
                        for (i, v) in inputs.iter().enumerate() {
                            let idx = syn::Index::from(i);
                            body.extend(self.acc(*v, quote!(#p.#idx * #g)));
                        }
                        body
                    }
                };
                let inner = self.with_adjoint(*out, body);
                self.after_record(*out, &r, inner)
            }
            Inst::Call { .. } => self.backward_call(inst),
            Inst::Cast { out, a, ty, .. } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                let cast = crate::generics::cast_fn(
                    &self.func.generics,
                    ty,
                    "cast_adjoint",
                    "cast_adjoint_from",
                );
                let body = self.acc(
                    *a,
                    quote!(#krate::__private::ops::#cast::<_, #ty>(#r.0, #g)),
                );
                let inner = self.with_adjoint(*out, body);
                quote!(let #r = #pop; #inner)
            }
            // The field's adjoint to the value set there, what is left to the struct before.
            Inst::SetField {
                out,
                a,
                path,
                value,
            } => {
                let (h, part) = (hyg("__h"), hyg("__part"));
                // The field's old adjoint is taken out whether or not the value set there has
                // one: the struct before the assignment had another value in that field.
                let ty = built_ty(*out);
                let mut body = quote! {
                    let mut #h = #krate::__private::tangent_of_ty(#g, &#ty);
                    let #part = ::core::mem::replace(&mut #h #(.#path)*, #krate::ShapelessZero::shapeless_zero());
                };
                body.extend(self.acc(*value, quote!(#part)));
                body.extend(self.acc(*a, quote!(#h)));
                self.with_adjoint_linear(*out, body)
            }
            // Each field's adjoint taken out of the struct's, what is left to the rest.
            Inst::Struct {
                out, fields, rest, ..
            } => {
                let (h, ty) = (hyg("__h"), built_ty(*out));
                let mut body = quote!(let mut #h = #krate::__private::tangent_of_ty(#g, &#ty););
                // Every field given is taken out, also one without a derivative: what is
                // left goes to the rest, which does not give those fields.
                for (k, (m, v)) in fields.iter().enumerate() {
                    let part = quote!(::core::mem::replace(&mut #h.#m, #krate::ShapelessZero::shapeless_zero()));
                    match self.slot(*v) {
                        Some(_) => body.extend(self.acc(*v, part)),
                        None if rest.is_some() => {
                            let unused = hyg(&format!("__unused{k}"));
                            body.extend(quote!(let #unused = #part;));
                        }
                        None => {}
                    }
                }
                if let Some(r) = rest {
                    body.extend(self.acc(*r, quote!(#h)));
                }
                self.with_adjoint_linear(*out, body)
            }
            Inst::Tuple { out, elems } => {
                let mut body = TokenStream::new();
                for (i, e) in elems.iter().enumerate() {
                    let idx = syn::Index::from(i);
                    body.extend(self.acc(*e, quote!(#g.#idx)));
                }
                self.with_adjoint_linear(*out, body)
            }
            Inst::Field {
                out,
                a,
                index,
                element,
                of,
            } => {
                let access = crate::ir::field_access(index, *element);
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let declared = self.func.declared_struct(*out, index, *of);
                let place = self.func.place_field(*out, index);
                let pop = match declared {
                    Some(_) => TokenStream::new(),
                    None => {
                        let pop = self.pop_record(*out);
                        quote!(let #r = #pop;)
                    }
                };
                let t = hyg("__t");
                let zero = match (declared, place) {
                    (Some(ty), _) => {
                        quote!(#krate::__private::zero_of(#krate::__private::Ty::<#ty>::default()))
                    }
                    (None, true) => quote!(#krate::__private::zero_of(#r.0)),
                    (None, false) => quote!(#krate::__private::zero(&#r.0)),
                };
                let body = if self.contributed.contains(&a.0) {
                    let set = quote! {
                        let mut #t = #zero;
                        #t #access = #g;
                    };
                    let add = self.acc(*a, quote!(#t));
                    quote!(#set #add)
                } else {
                    TokenStream::new()
                };
                let inner = self.with_adjoint(*out, body);
                quote!(#pop #inner)
            }
            Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                if !self.var_contributed.contains(&var.0) {
                    return TokenStream::new();
                }
                let x = x_ident(*var);
                let add = self.acc(*v, quote!(#g));
                let take = if self.is_dense(*var) {
                    quote!(dense_take)
                } else {
                    quote!(take_linear)
                };
                quote!(if let ::core::option::Option::Some(#g) = #krate::__private::#take(&mut #x) { #add })
            }
            Inst::Block { out, block } => {
                let mut ts = TokenStream::new();
                if let (Some(o), Some(res)) = (out, block.result) {
                    ts.extend(self.with_adjoint_linear(*o, self.acc(res, quote!(#g))));
                }
                // A block's own instructions are guarded one by one.
                let inner = self.reverse_block(block);
                return quote!(#ts { #inner });
            }
            Inst::If {
                out,
                then_block,
                else_block,
                ..
            } => {
                let n = self.ifs[&std::ptr::from_ref(inst)];
                let c = hyg(&format!("__c{n}"));
                let route = |b: &Block| -> TokenStream {
                    match (out, b.result) {
                        (Some(o), Some(res)) if self.contributed.contains(&res.0) => {
                            self.with_adjoint_linear(*o, self.acc(res, quote!(#g)))
                        }
                        // The branch's value has no derivative (a constant) or is never made
                        // (the branch leaves): its adjoint is dropped here, or in a loop it
                        // would reach the value of an earlier iteration.
                        (Some(o), _) if self.contributed.contains(&o.0) => {
                            let b = b_ident(*o);
                            quote!(#krate::__private::take(&mut #b);)
                        }
                        _ => TokenStream::new(),
                    }
                };
                let (rt, re) = (route(then_block), route(else_block));
                let (bt, be) = (
                    self.reverse_block(then_block),
                    self.reverse_block(else_block),
                );
                let body = quote! {
                    let #c: bool = #tape.pop();
                    if #c { #rt #bt } else { #re #be }
                };
                let inside: Vec<u32> = self
                    .exits_in(then_block)
                    .into_iter()
                    .chain(self.exits_in(else_block))
                    .collect();
                if !self.guarded() {
                    return body;
                }
                let live = hyg("__live");
                let exit = hyg("__exit");
                // Entered when the sweep is live, or when it starts at an exit inside.
                return if inside.is_empty() {
                    quote!(if #live { #body })
                } else {
                    quote!(if #live #(|| #exit == #inside)* { #body })
                };
            }
            Inst::Loop { body, .. } if loop_mode(body) != LoopMode::Plain => {
                return self.reverse_exit_loop(body);
            }
            Inst::Break | Inst::Continue => {
                let k = self.jumps[&std::ptr::from_ref(inst)];
                let live = hyg("__live");
                let exit = hyg("__exit");
                return quote! {
                    if #exit == #k {
                        #live = true;
                    }
                };
            }
            Inst::Loop { body, .. } => self.reverse_plain_loop(inst, body),
            Inst::Return { value } => {
                let k = self.returns[&std::ptr::from_ref(inst)];
                let live = hyg("__live");
                let exit = hyg("__exit");
                let adjoint = hyg("__adjoint");
                let seed_value = hyg("__seed");
                let add = self.acc(*value, quote!(#seed_value));
                // Only one exit is taken; `take` tells the compiler so for a seed that moves.
                let seed = quote! {
                    if let ::core::option::Option::Some(#seed_value) = #adjoint.take() { #add }
                };
                return quote! {
                    if #exit == #k {
                        #live = true;
                        #seed
                    }
                };
            }
        };
        if code.is_empty() {
            code
        } else {
            self.guard(code)
        }
    }
}
