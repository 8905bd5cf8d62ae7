//! `#[derive(ad::Differentiable)]`: a struct of the user's own as a value with a derivative.
//!
//! The struct gets a tangent type: itself when every field is built from floats (floats, a type
//! parameter, and arrays, `Vec`s, `Option`s and tuples of these) and none is skipped, so that a
//! gradient has the shape of the value (`p.x -= lr * g.x`); otherwise a companion struct
//! `{Name}Tangent` with the same fields, each of its field's tangent type (`ad::NoTangent` for
//! an integer, a `bool`, text (`String`, `&str`) or a field marked `#[ad(skip)]`), so that
//! generated code reaches a
//! field of a tangent as it reaches the field of the value. The derive implements what the
//! runtime asks of a value and of its tangent (`Differentiable`; `Accumulate`, `Linear` and the
//! reverse sweep's `Adjoint` for the tangent) field by field, and `Tapeable` where every field
//! is, so that the reverse sweep can keep the value. A field whose type has no tangent is an
//! error at that field.
//!
//! An enum without data gets no derivative: it is configuration (`ad::NoTangent`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericParam, Ident, Type};

/// One field: how generated code names it on the value and on the tangent, and its type.
struct Field {
    member: syn::Member,
    ty: Type,
    skip: bool,
    vis: syn::Visibility,
    /// The field's doc comments, repeated on the tangent's field.
    docs: Vec<syn::Attribute>,
}

pub fn differentiable(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let krate = crate_path(&input.attrs)?;
    match &input.data {
        Data::Struct(s) => structure(&input, &s.fields, &krate),
        Data::Enum(e) => {
            if let Some(v) = e.variants.iter().find(|v| !v.fields.is_empty()) {
                return Err(syn::Error::new_spanned(
                    &v.fields,
                    format!(
                        "#[derive(ad::Differentiable)] gives an enum no derivative: it is configuration, and a variant with fields (`{}`) would drop the derivatives of what it holds; keep the floats in a struct, or mark the field that holds this enum `#[ad(skip)]` and do not derive for it",
                        v.ident
                    ),
                ));
            }
            Ok(configuration(&input, &krate))
        }
        Data::Union(u) => Err(syn::Error::new_spanned(
            u.union_token,
            "#[derive(ad::Differentiable)] does not support unions: use a struct",
        )),
    }
}

/// `#[ad(crate = path)]` on the item, else `::ad`.
fn crate_path(attrs: &[syn::Attribute]) -> syn::Result<TokenStream> {
    let mut krate = quote!(::ad);
    for attr in attrs.iter().filter(|a| a.path().is_ident("ad")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let path: syn::Path = meta.value()?.parse()?;
                krate = quote!(#path);
                Ok(())
            } else {
                Err(meta.error("#[ad(..)] on a derived type takes `crate = path::to::ad`; mark fields with `#[ad(skip)]`"))
            }
        })?;
    }
    Ok(krate)
}

/// Whether a field carries `#[ad(skip)]` (an error for anything else inside `#[ad(..)]`).
fn skipped(attrs: &[syn::Attribute]) -> syn::Result<bool> {
    let mut skip = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("ad")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else {
                Err(meta
                    .error("#[ad(..)] on a field takes `skip`: the field carries no derivative"))
            }
        })?;
    }
    Ok(skip)
}

fn fields_of(fields: &Fields, params: &[Ident]) -> syn::Result<Vec<Field>> {
    let mut out = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for (i, f) in fields.iter().enumerate() {
        let member = match &f.ident {
            Some(ident) => syn::Member::Named(ident.clone()),
            None => syn::Member::Unnamed(syn::Index {
                index: i as u32,
                span: f.ty.span(),
            }),
        };
        let skip = match skipped(&f.attrs) {
            // A float field read in a differentiable function has a derivative there: it cannot
            // be left out of the tangent yet.
            Ok(true) if own_tangent(&f.ty, params) => {
                let e = syn::Error::new_spanned(
                    &f.ty,
                    "#[ad(skip)] on a field of floats is not supported yet: a differentiable function that reads it would need its derivative; leave the field in the tangent (its derivative is then computed), or pass the value as an argument held constant (`ad::Const`)",
                );
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
                true
            }
            Ok(s) => s || text(&f.ty),
            Err(e) => {
                match &mut errors {
                    Some(all) => all.combine(e),
                    None => errors = Some(e),
                }
                false
            }
        };
        out.push(Field {
            member,
            ty: f.ty.clone(),
            skip,
            vis: f.vis.clone(),
            docs: f
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("doc"))
                .cloned()
                .collect(),
        });
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Whether `ty` is text (`String`, `&str`): a field without a derivative, as if skipped.
fn text(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str")),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "String" && s.arguments.is_none())
        }
        _ => false,
    }
}

/// Whether values of `ty` are their own tangents, as far as its spelling tells: floats, type
/// parameters of the struct (bound to be their own tangent in the impl), and arrays, `Vec`s,
/// `Option`s and tuples of these.
fn own_tangent(ty: &Type, params: &[Ident]) -> bool {
    match ty {
        Type::Paren(p) => own_tangent(&p.elem, params),
        Type::Group(g) => own_tangent(&g.elem, params),
        Type::Array(a) => own_tangent(&a.elem, params),
        Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(|e| own_tangent(e, params)),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            match &last.arguments {
                syn::PathArguments::None => {
                    p.path.segments.len() == 1
                        && (name == "f64" || name == "f32" || params.contains(&last.ident))
                }
                syn::PathArguments::AngleBracketed(args) if name == "Vec" || name == "Option" => {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(t)) if args.args.len() == 1 && own_tangent(t, params))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

fn generic_struct(input: &DeriveInput) -> bool {
    input
        .generics
        .params
        .iter()
        .any(|p| matches!(p, GenericParam::Type(_)))
}

/// The derive for a struct.
fn structure(
    input: &DeriveInput,
    fields: &Fields,
    krate: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let type_params: Vec<Ident> = input
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.clone()),
            _ => None,
        })
        .collect();
    let fields = fields_of(fields, &type_params)?;
    let itself = !fields.is_empty()
        && fields
            .iter()
            .all(|f| !f.skip && own_tangent(&f.ty, &type_params));
    let private = quote!(#krate::__private);
    let diff = quote!(#krate::Differentiable);
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    // Each field with a derivative has a tangent, and where the struct is its own tangent, each
    // field is. Written for any lifetime, so that a bound that does not hold (a field type
    // without a tangent) leaves the impls unusable rather than wrong: the one error is then at
    // the field, from the check below.
    for f in fields.iter().filter(|f| !f.skip) {
        let ty = &f.ty;
        predicates.push(if itself {
            quote!(for<'__ad> #ty: #diff<Tangent = #ty>)
        } else {
            quote!(for<'__ad> #ty: #diff)
        });
    }
    // A generic struct's tangent has what the runtime asks of a tangent only for some
    // parameters: the impls apply for those (a struct without parameters is checked as it is).
    if generic_struct(input) {
        let t = if itself {
            quote!(#name #ty_generics)
        } else {
            let tn = format_ident!("{}Tangent", name);
            quote!(#tn #ty_generics)
        };
        predicates.push(quote!(#t: ::core::clone::Clone + ::core::fmt::Debug + ::core::cmp::PartialEq + ::core::marker::Send + ::core::marker::Sync + 'static));
    }
    // Where the struct is its own tangent, its fields must add, have coordinates and a zero,
    // as tangents do.
    if itself {
        for f in &fields {
            let ty = &f.ty;
            predicates.push(
                quote!(for<'__ad> #ty: #krate::Accumulate + #krate::Linear + #krate::ShapelessZero),
            );
        }
    }
    let tangent_name = format_ident!("{}Tangent", name);
    let tangent_ty = if itself {
        quote!(#name #ty_generics)
    } else {
        quote!(#tangent_name #ty_generics)
    };
    let tangent_of = |f: &Field| -> TokenStream {
        let ty = &f.ty;
        if f.skip {
            quote!(#krate::NoTangent)
        } else {
            quote_spanned!(ty.span()=> <#ty as #diff>::Tangent)
        }
    };
    let named = matches!(
        fields.first(),
        Some(Field {
            member: syn::Member::Named(_),
            ..
        })
    );
    // A struct expression of the tangent type from one expression per field.
    let build = |parts: Vec<TokenStream>| -> TokenStream {
        let path = if itself {
            quote!(#name)
        } else {
            quote!(#tangent_name)
        };
        if fields.is_empty() {
            return quote!(#path {});
        }
        let members = fields.iter().map(|f| &f.member);
        quote!(#path { #(#members: #parts),* })
    };

    // Every field type with a derivative must have a tangent: reported at the field.
    let field_checks: Vec<TokenStream> = fields
        .iter()
        .filter(|f| !f.skip)
        .map(|f| {
            let ty = &f.ty;
            quote_spanned! {ty.span()=>
                #private::assert_differentiable::<#ty>();
            }
        })
        .collect();
    let generic_fn = if input.generics.params.is_empty() {
        quote!(const _: () = { fn __ad_fields() { #(#field_checks)* } };)
    } else {
        // A generic struct's fields are checked where it is used at a type.
        TokenStream::new()
    };

    let companion = (!itself).then(|| {
        let vis = &input.vis;
        let generics = &input.generics;
        let where_tokens = if predicates.is_empty() {
            TokenStream::new()
        } else {
            quote!(where #(#predicates),*)
        };
        let doc = format!(
            " The tangent (and the gradient) of [`{name}`]: one field per field of `{name}`, of that field's tangent type, `ad::NoTangent` for a field without a derivative."
        );
        let body = if named {
            let fs = fields.iter().map(|f| {
                let (member, vis, docs, t) = (&f.member, &f.vis, &f.docs, tangent_of(f));
                quote!(#(#docs)* #vis #member: #t)
            });
            quote!(#where_tokens { #(#fs),* })
        } else {
            let fs = fields.iter().map(|f| {
                let (vis, t) = (&f.vis, tangent_of(f));
                quote!(#vis #t)
            });
            quote!((#(#fs),*) #where_tokens;)
        };
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            #vis struct #tangent_name #generics #body
        }
    });

    let where_all = quote!(where #(#predicates),*);
    let member = |f: &Field| f.member.clone();
    let zero_parts: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let m = member(f);
            if f.skip {
                quote!(#krate::NoTangent)
            } else {
                quote_spanned!(f.ty.span()=> #diff::zero_tangent(&self.#m))
            }
        })
        .collect();
    let zero = build(zero_parts);
    let checks = fields.iter().filter(|f| !f.skip).map(|f| {
        let m = member(f);
        let path = format!(".{}", quote!(#m));
        quote_spanned!(f.ty.span()=> #diff::check_tangent(&self.#m, &tangent.#m).map_err(|e| #private::shape_within(e, #path))?;)
    });
    let acc_parts: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let m = member(f);
            quote!(#krate::Accumulate::accumulate(self.#m, other.#m))
        })
        .collect();
    let accumulated = build(acc_parts);
    let zero_parts: Vec<TokenStream> = fields
        .iter()
        .map(|_| quote!(#krate::ShapelessZero::shapeless_zero()))
        .collect();
    let shapeless = build(zero_parts);
    let members: Vec<syn::Member> = fields.iter().map(member).collect();

    let tangent_impl_generics = impl_generics.clone();
    // The tangent's own impls: where the struct is its own tangent, its fields must add, have
    // coordinates and a zero as tangents do.
    let tangent_traits = quote! {
        impl #tangent_impl_generics #krate::Accumulate for #tangent_ty #where_all {
            #[inline]
            fn accumulate(self, other: Self) -> Self {
                #accumulated
            }
            #[inline]
            fn is_zero_adjoint(&self) -> bool {
                true #(&& #krate::Accumulate::is_zero_adjoint(&self.#members))*
            }
        }

        impl #tangent_impl_generics #krate::ShapelessZero for #tangent_ty #where_all {
            #[inline]
            fn shapeless_zero() -> Self {
                #shapeless
            }
        }

        impl #tangent_impl_generics #krate::__private::LentBuffer for #tangent_ty #where_all {
            type Elem = Self;
            #[inline]
            fn lent_buffer(slot: &mut ::core::option::Option<Self>, _: usize) -> &mut [Self] {
                #krate::__private::struct_lent_buffer(slot)
            }
        }

        impl #tangent_impl_generics #krate::__private::Lendable for #tangent_ty #where_all {
            type Elem = Self;
            #[inline(always)]
            fn seq_mut(&mut self) -> &mut [Self] {
                ::core::slice::from_mut(self)
            }
        }

        impl #tangent_impl_generics #krate::__private::MakeSeed<#tangent_ty> for #tangent_ty #where_all {
            #[inline(always)]
            fn make(place: &mut Self) -> Self {
                #krate::__private::take_seed(place)
            }
            #[inline(always)]
            fn make_from_adj(slot: &mut #krate::__private::Adj<Self>) -> Self {
                #krate::__private::take_or_shapeless(slot)
            }
        }

        impl #tangent_impl_generics #krate::Linear for #tangent_ty #where_all {
            fn dim(&self) -> usize {
                0 #(+ #krate::Linear::dim(&self.#members))*
            }
            fn set(&mut self, i: usize, value: f64) {
                let mut offset = 0;
                #(
                    let d = #krate::Linear::dim(&self.#members);
                    if (offset..offset + d).contains(&i) {
                        #krate::Linear::set(&mut self.#members, i - offset, value);
                    }
                    offset += d;
                )*
                let _ = (offset, i, value);
            }
            fn dot(&self, other: &Self) -> f64 {
                0.0 #(+ #krate::Linear::dot(&self.#members, &other.#members))*
            }
        }

        impl #tangent_impl_generics #private::Adjoint for #tangent_ty #where_all {
            type Repr = ::core::option::Option<Self>;
            #[inline(always)]
            fn empty() -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }
            #[inline(always)]
            fn add_to(repr: &mut ::core::option::Option<Self>, value: Self) {
                #private::add_optional(repr, value);
            }
            #[inline(always)]
            fn take(repr: &mut ::core::option::Option<Self>) -> ::core::option::Option<Self> {
                repr.take()
            }
        }
    };

    // Pushed field by field, popped in the reverse order; only where every field can be kept.
    let tape_bounds = fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(for<'__ad> #ty: #private::Tapeable)
    });
    let tape_predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let rev_tys: Vec<&Type> = fields.iter().rev().map(|f| &f.ty).collect();
    let locals: Vec<Ident> = (0..fields.len())
        .map(|i| Ident::new(&format!("__ad_f{i}"), Span::mixed_site()))
        .collect();
    let rev_locals: Vec<&Ident> = locals.iter().rev().collect();
    let rebuilt = if fields.is_empty() {
        quote!(#name {})
    } else {
        quote!(#name { #(#members: #locals),* })
    };
    // The struct's own zero without a value (see `ShapelessZero`), where its tangent is a
    // companion (otherwise it is the tangent's, above): field by field, where every field has one.
    let zero_bounds = fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(for<'__ad> #ty: #krate::ShapelessZero)
    });
    let zero_parts = fields
        .iter()
        .map(|_| quote!(#krate::ShapelessZero::shapeless_zero()));
    let zero_value = if fields.is_empty() {
        quote!(#name {})
    } else {
        quote!(#name { #(#members: #zero_parts),* })
    };
    let own_zero = (!itself).then(|| {
        quote! {
            impl #impl_generics #krate::ShapelessZero for #name #ty_generics
            where #(#tape_predicates,)* #(#zero_bounds),*
            {
                fn shapeless_zero() -> Self {
                    #zero_value
                }
            }

            // A local of the struct lent to a function that writes it (`Type::step(&mut s, ..)`),
            // as a slice of one element; the tangent's is with the tangent's impls.
            impl #impl_generics #krate::__private::Lendable for #name #ty_generics #where_clause {
                type Elem = Self;
                #[inline(always)]
                fn seq_mut(&mut self) -> &mut [Self] {
                    ::core::slice::from_mut(self)
                }
            }
        }
    });
    let tapeable = quote! {
        impl #impl_generics #private::Tapeable for #name #ty_generics
        where #(#tape_predicates,)* #(#tape_bounds),*
        {
            const WORDS: ::core::option::Option<usize> = ::core::option::Option::None;
            #[inline]
            fn push_to<S: #private::Sink>(self, tape: &mut S) {
                #(#private::Tapeable::push_to(self.#members, tape);)*
            }
            #[inline]
            fn pop_from(tape: &mut #private::Tape) -> Self {
                #(let #rev_locals = <#rev_tys as #private::Tapeable>::pop_from(tape);)*
                let _ = &tape;
                #rebuilt
            }
        }
    };

    // `&Name` as a parameter: differentiated as the struct (the kind `ad::Ref`), its tangent and
    // adjoint the struct's tangent by value.
    let by_ref = {
        let mut generics = input.generics.clone();
        generics.params.insert(0, syn::parse_quote!('__ad_r));
        let (ref_impl, _, _) = generics.split_for_impl();
        let this = quote!(#name #ty_generics);
        let t = quote!(<#this as #diff>::Tangent);
        quote! {
            impl #ref_impl #krate::Param for &'__ad_r #this
            where for<'__ad> #this: ::core::clone::Clone + 'static, #(#predicates),*
            {
                type Marker = #krate::Ref<#this>;
                type Shadow = #t;
                type Bar = ();
                type Store = #t;
                type Grad = #t;
                type Seed = #t;
                #[inline(always)]
                fn into_ref<'__ad_s>(self) -> &'__ad_s #this where Self: '__ad_s { self }
                #[inline(always)]
                fn shadow_into<'__ad_s>(shadow: #t) -> #t where Self: '__ad_s { shadow }
                #[inline(always)]
                fn dup_in<'__ad_s>(self, _: &'__ad_s mut #t) -> &'__ad_s #this where Self: '__ad_s { self }
                #[inline(always)]
                fn gen_in<'__ad_s>(self, store: &'__ad_s mut #t) -> #krate::__private::DupRef<'__ad_s, #this>
                where Self: '__ad_s
                {
                    #krate::__private::DupRef { value: self, adjoint: store }
                }
                #[inline(always)]
                fn seed(store: &mut #t, seed: #t) { *store = seed; }
                #[inline(always)]
                fn merge(adjoint: #t, store: &mut #t) -> #t {
                    #krate::__private::merge_seed(adjoint, store)
                }
                #[inline(always)]
                fn store(&self) -> #t { #krate::ShapelessZero::shapeless_zero() }
                #[inline(always)]
                fn empty_store() -> #t { #krate::ShapelessZero::shapeless_zero() }
                #[inline(always)]
                fn store_from(_: &()) -> #t { #krate::ShapelessZero::shapeless_zero() }
                #[inline(always)]
                fn store_into(_: #t, _: ()) {}
                #[inline(always)]
                fn grad(adjoint: #t, mut store: #t) -> #t {
                    #krate::__private::merge_seed(adjoint, &mut store)
                }
                fn zero_adj(&self) -> #t { #diff::zero_tangent(*self) }
                fn check_shadow(&self, shadow: &#t) -> ::core::result::Result<(), #krate::ShapeMismatch> {
                    #diff::check_tangent(*self, shadow)
                }
                fn try_clone(&self) -> ::core::option::Option<Self> { ::core::option::Option::Some(*self) }
                fn shadow_dim(&self) -> usize { #krate::Linear::dim(&#diff::zero_tangent(*self)) }
                fn unit_shadow(&self, i: usize) -> #t { #krate::Linear::unit_like(&#diff::zero_tangent(*self), i) }
                fn zero_shadow(&self) -> #t { #diff::zero_tangent(*self) }
                fn adj_dim(adjoint: &#t) -> usize { #krate::Linear::dim(adjoint) }
                fn dot(adjoint: &#t, shadow: &#t) -> f64 { #krate::Linear::dot(adjoint, shadow) }
                fn set_adj(adjoint: &mut #t, i: usize, value: f64) { #krate::Linear::set(adjoint, i, value) }
            }
        }
    };

    // `&mut Name` as a parameter (a `&mut self` receiver): an output written in place, the
    // kind `ad::SliceMut` of one element, as a `&mut [Name]` of length one is; its tangent a
    // `&mut` tangent the derivative writes, its gradient the tangent of the value before.
    let by_mut = {
        let mut generics = input.generics.clone();
        generics.params.insert(0, syn::parse_quote!('__ad_r));
        let (ref_impl, _, _) = generics.split_for_impl();
        let this = quote!(#name #ty_generics);
        let t = quote!(<#this as #diff>::Tangent);
        let vec = quote!(::std::vec::Vec<#t>);
        let unreachable = quote!(::core::unreachable!(
            "ad: a `&mut` argument has no scalar coordinates: rules are not converted between modes for it"
        ));
        quote! {
            impl #ref_impl #krate::Param for &'__ad_r mut #this
            where for<'__ad> #this: ::core::clone::Clone + 'static, #(#predicates),*
            {
                type Marker = #krate::SliceMut<#this>;
                type Shadow = &'__ad_r mut #t;
                type Bar = &'__ad_r mut #t;
                type Store = #vec;
                type Grad = #t;
                type Seed = ();
                #[inline(always)]
                fn gen_in<'__ad_s>(self, store: &'__ad_s mut #vec) -> #krate::DupMut<'__ad_s, #this> where Self: '__ad_s {
                    #krate::DupMut { value: ::core::slice::from_mut(self), adjoint: store }
                }
                #[inline(always)]
                fn seed(_: &mut #vec, _: ()) {}
                #[inline(always)]
                fn merge(adjoint: #krate::NoTangent, _: &mut #vec) -> #krate::NoTangent { adjoint }
                #[inline(always)]
                fn into_ref<'__ad_s>(self) -> &'__ad_s mut [#this] where Self: '__ad_s {
                    ::core::slice::from_mut(self)
                }
                #[inline(always)]
                fn shadow_into<'__ad_s>(shadow: &'__ad_r mut #t) -> &'__ad_s mut [#t] where Self: '__ad_s {
                    ::core::slice::from_mut(shadow)
                }
                #[inline(always)]
                fn dup_in<'__ad_s>(self, store: &'__ad_s mut #vec) -> #krate::DupMut<'__ad_s, #this> where Self: '__ad_s {
                    #krate::DupMut { value: ::core::slice::from_mut(self), adjoint: store }
                }
                fn store(&self) -> #vec { ::std::vec![#diff::zero_tangent(&**self)] }
                fn empty_store() -> #vec { ::std::vec::Vec::new() }
                fn store_from(bar: &&'__ad_r mut #t) -> #vec { ::std::vec![::core::clone::Clone::clone(&**bar)] }
                fn store_into(store: #vec, bar: &'__ad_r mut #t) {
                    if let ::core::option::Option::Some(v) = store.into_iter().next() {
                        *bar = v;
                    }
                }
                fn grad(_: #krate::NoTangent, store: #vec) -> #t {
                    store.into_iter().next().unwrap_or_else(#krate::ShapelessZero::shapeless_zero)
                }
                fn zero_adj(&self) -> #krate::NoTangent { #krate::NoTangent }
                fn check_shadow(&self, shadow: &&'__ad_r mut #t) -> ::core::result::Result<(), #krate::ShapeMismatch> {
                    #diff::check_tangent(&**self, &**shadow)
                }
                fn try_clone(&self) -> ::core::option::Option<Self> { ::core::option::Option::None }
                fn scratch(&self) -> ::core::option::Option<Self> {
                    ::core::option::Option::Some(::std::boxed::Box::leak(::std::boxed::Box::new(::core::clone::Clone::clone(&**self))))
                }
                fn shadow_dim(&self) -> usize { #unreachable }
                fn unit_shadow(&self, _: usize) -> &'__ad_r mut #t { #unreachable }
                fn zero_shadow(&self) -> &'__ad_r mut #t { #unreachable }
                fn adj_dim(_: &#krate::NoTangent) -> usize { #unreachable }
                fn dot(_: &#krate::NoTangent, _: &&'__ad_r mut #t) -> f64 { #unreachable }
                fn set_adj(_: &mut #krate::NoTangent, _: usize, _: f64) { #unreachable }
            }
        }
    };

    // A step along the tangent, field by field; the fields without a derivative stay.
    let step = {
        let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
        let moved: Vec<&Field> = fields.iter().filter(|f| !f.skip).collect();
        let steps = moved.iter().map(|f| {
            let m = &f.member;
            quote!(#krate::AddTangent::add_tangent(&mut self.#m, &tangent.#m, by);)
        });
        let bounds = moved.iter().map(|f| {
            let ty = &f.ty;
            quote!(for<'__ad> #ty: #krate::AddTangent)
        });
        quote! {
            impl #impl_generics #krate::AddTangent for #name #ty_generics
            where #(#predicates,)* #(#bounds),*
            {
                fn add_tangent(&mut self, tangent: &<Self as #diff>::Tangent, by: f64) {
                    let _ = (&tangent, by);
                    #(#steps)*
                }
            }
        }
    };

    // The type of each named field, by the hash of its name: how generated code names the
    // type of `self.layer` to call its methods.
    let field_types = {
        let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
        // A tuple struct's fields by their positions' names (`0`, `1`).
        let impls = fields.iter().map(|f| {
            let field_name = match &f.member {
                syn::Member::Named(ident) => ident.to_string(),
                syn::Member::Unnamed(index) => index.index.to_string(),
            };
            let hash = crate::derive::field_hash(&field_name);
            let ty = &f.ty;
            quote! {
                impl #impl_generics #krate::__private::FieldType<#hash> for #name #ty_generics #where_clause {
                    type Type = #ty;
                }
            }
        });
        quote! {
            #(#impls)*
            impl #impl_generics #krate::__private::DerivedStruct for #name #ty_generics #where_clause {}
        }
    };

    Ok(quote! {
        #companion

        #[allow(clippy::all, clippy::pedantic)]
        const _: () = {
            impl #impl_generics #diff for #name #ty_generics #where_all {
                type Tangent = #tangent_ty;
                fn zero_tangent(&self) -> Self::Tangent {
                    #zero
                }
                fn check_tangent(&self, tangent: &Self::Tangent) -> ::core::result::Result<(), #krate::ShapeMismatch> {
                    let _ = tangent;
                    #(#checks)*
                    ::core::result::Result::Ok(())
                }
            }

            #tangent_traits
            #tapeable
            #own_zero
            #by_ref
            #by_mut
            #field_types
            #step
        };

        #generic_fn
    })
}

/// The derive for an enum without data: configuration, no derivative.
fn configuration(input: &DeriveInput, krate: &TokenStream) -> TokenStream {
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            impl #impl_generics #krate::Differentiable for #name #ty_generics #where_clause {
                type Tangent = #krate::NoTangent;
                #[inline(always)]
                fn zero_tangent(&self) -> #krate::NoTangent {
                    #krate::NoTangent
                }
            }
            impl #impl_generics #krate::NoDerivative for #name #ty_generics #where_clause {}
        };
    }
}

/// The hash of a field's name that `__private::FieldType` is keyed by (FNV-1a, 64 bits), as a
/// suffixed literal. A collision of two names of one struct would be two impls of one trait,
/// a compile error, never a wrong type.
pub fn field_hash(name: &str) -> proc_macro2::Literal {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    proc_macro2::Literal::u64_suffixed(h)
}
