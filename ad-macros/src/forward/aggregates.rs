//! Values built from parts and parts of values: tuples and their fields, structs (literals,
//! fields read as places, fields replaced), and `Option`s (`Some(a)` and the value inside).

use super::*;

impl Forward<'_> {
    pub(super) fn aggregate(&mut self, inst: &Inst, al: &mut Aliases) -> TokenStream {
        let krate = self.krate.clone();
        match inst {
            Inst::Wrap { out, a } => {
                let pa = self.p(*a, al);
                let ta = self.t(*a, al);
                self.def(
                    *out,
                    quote!(::core::option::Option::Some(#pa)),
                    Some(quote!(::core::option::Option::Some(#ta))),
                )
            }
            Inst::Payload { out, a, unwrap } => {
                let pa = self.p(*a, al);
                let ta = self.t(*a, al);
                let krate = self.krate;
                let primal = match unwrap {
                    Some(call) => quote!(#pa #call),
                    None => quote!(#krate::__private::payload(#pa)),
                };
                self.def(*out, primal, Some(quote!(#krate::__private::payload(#ta))))
            }
            Inst::SetField {
                out,
                a,
                path,
                value,
            } => {
                let (pa, pv) = (self.p(*a, al), self.p(*value, al));
                let primal = crate::ir::set_field_tokens(&pa, path, &pv);
                // The tangents first: a zero made from the value reads it before it moves.
                let base = self.t_or_zero(*a, al);
                let tv = self.t_or_zero(*value, al);
                let tangent = crate::ir::set_field_tokens(&base, path, &tv);
                self.def_aggregate(*out, primal, tangent)
            }
            Inst::Struct {
                out,
                path,
                fields,
                rest,
            } => {
                let v = hyg(format!("__v{}", out.0));
                // The value first, then its tangent: from the tangent of the rest, or a zero of
                // the value's shape, with the fields that carry a derivative set.
                let literal = crate::ir::struct_tokens(path, fields, *rest, &mut |x| self.p(x, al));
                let mut ts = quote!(let #v = #literal;);
                if self.active(*out) {
                    let d = hyg(format!("__d{}", out.0));
                    let t = hyg("__t".to_string());
                    let base = match rest {
                        // A variable's tangent is copied, not moved: the user's `..s` moves only
                        // the fields it takes, and `s` may be read after.
                        Some(r) if self.active(*r) && al.tangent.contains_key(&r.0) => {
                            let tr = self.t(*r, al);
                            quote!(::core::clone::Clone::clone(&#tr))
                        }
                        Some(r) if self.active(*r) => self.t(*r, al),
                        _ => quote!(#krate::__private::zero(&#v)),
                    };
                    // The fields' tangents before the base, which may be the rest's tangent
                    // they read. A field given a value without a derivative has a zero
                    // tangent, not the rest's.
                    let from_rest = rest.is_some_and(|r| self.active(r));
                    let (mut reads, mut sets) = (TokenStream::new(), TokenStream::new());
                    for (k, (m, field)) in fields.iter().enumerate() {
                        if self.active(*field) {
                            let f = hyg(format!("__f{k}"));
                            let tv = self.t(*field, al);
                            reads.extend(quote!(let #f = #tv;));
                            sets.extend(quote!(#t.#m = #f;));
                        } else if from_rest {
                            sets.extend(quote!(#t.#m = #krate::__private::zero(&#v.#m);));
                        }
                    }
                    ts.extend(quote!(let #d = { #reads let mut #t = #base; #sets #t };));
                }
                ts
            }
            Inst::Tuple { out, elems } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                let ts: Vec<TokenStream> = elems.iter().map(|e| self.t_or_zero(*e, al)).collect();
                self.def_aggregate(*out, quote!((#(#ps,)*)), quote!((#(#ts,)*)))
            }
            Inst::Field {
                out,
                a,
                index,
                element,
                ..
            } => {
                let pa = self.p(*a, al);
                let ta = self.t(*a, al);
                let access = crate::ir::field_access(index, *element);
                // A struct's field is a place, read where it is used (`s.a.x` copies the float,
                // not `s.a`), as a read of a variable is.
                if self.func.clones(*out) {
                    let clone = |x: TokenStream| quote!(::core::clone::Clone::clone(&(#x) #access));
                    return self.def(*out, clone(pa), Some(clone(ta)));
                }
                if self.func.place_field(*out, index) && !self.func.field_copies(*out) {
                    al.primal.insert(out.0, quote!((#pa) #access));
                    if self.active(*out) {
                        al.tangent.insert(out.0, quote!((#ta) #access));
                    }
                    return TokenStream::new();
                }
                // The field copied in place of its struct (the struct is read again in the same
                // statement): a `Vec` field is cloned, not moved out of the struct.
                if self.func.field_copies(*out) {
                    let clone = |x: TokenStream| quote!(::core::clone::Clone::clone(&(#x) #access));
                    return self.def(*out, clone(pa), Some(clone(ta)));
                }
                self.def(*out, quote!(#pa #access), Some(quote!(#ta #access)))
            }
            _ => unreachable!("a value built from parts or a part of one"),
        }
    }
}
