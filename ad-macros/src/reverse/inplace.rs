//! Updates of an element in place: `v[i] += e` (or `v[i] = v[i] + e`, `v[i] -= e`).
//!
//! The reverse sweep of the store took the element's adjoint out (the value stored receives it,
//! the element before the store receives nothing from after), the sum passed it on to the read of
//! the element and to `e`, and the read put it back. In all, the element's adjoint stays as it is
//! and `e`'s receives it (negated for `-=`): the reverse sweep now does just that, reading the
//! element's adjoint without taking it. Only where the read, the sum and the store are in one
//! block, with nothing between them that could write a variable or leave the block, the read and
//! the sum used nowhere else, and both indices the same value that the reverse sweep computes
//! again.

use super::*;

impl<'a> Reverse<'a> {
    /// Finds the updates in place, given the values the reverse sweep computes again.
    pub(super) fn plan_inplace(&mut self, defs: &HashMap<u32, Src>) {
        let insts = self.func.body.all_insts();
        let mut uses: HashMap<u32, usize> = HashMap::new();
        for inst in &insts {
            for v in inst.operands() {
                *uses.entry(v.0).or_default() += 1;
            }
        }
        if let Some(r) = self.func.body.result {
            *uses.entry(r.0).or_default() += 1;
        }
        let once = |v: Value| uses.get(&v.0) == Some(&1);
        let mut blocks = vec![&self.func.body];
        blocks.extend(insts.iter().flat_map(|inst| inst.blocks()));
        for b in blocks {
            for (k, store) in b.insts.iter().enumerate() {
                let Inst::IndexAssign {
                    id,
                    var,
                    path,
                    index: at_store,
                    value: sum,
                    ..
                } = store
                else {
                    continue;
                };
                // An element of a struct's field: its adjoint is the struct's, at the field.
                if !path.is_empty() {
                    continue;
                }
                if !self.act.var(*var) || !once(*sum) || self.keeps(*id) {
                    continue;
                }
                // The sum, then the read, going back from the store through pure instructions.
                let mut found = None;
                for j in (0..k).rev() {
                    let inst = &b.insts[j];
                    if let Inst::Arith {
                        out,
                        op: op @ (Arith::Add | Arith::Sub),
                        a,
                        b: rhs,
                        ..
                    } = inst
                        && out == sum
                    {
                        found = Some((j, *op, *a, *rhs));
                        break;
                    }
                    if !is_pure(inst) {
                        break;
                    }
                }
                let Some((j, op, a, rhs)) = found else {
                    continue;
                };
                let mut read = None;
                for i in (0..j).rev() {
                    let inst = &b.insts[i];
                    if let Inst::Index {
                        out, var: v, index, ..
                    } = inst
                        && v == var
                        && (*out == a || (op == Arith::Add && *out == rhs))
                    {
                        read = Some((*out, *index));
                        break;
                    }
                    if !is_pure(inst) {
                        break;
                    }
                }
                let Some((read, at_read)) = read else {
                    continue;
                };
                let other = if read == a { rhs } else { a };
                let same_index = match (raw(defs, at_read), raw(defs, *at_store)) {
                    (Some(x), Some(y)) => x.to_string() == y.to_string(),
                    _ => false,
                };
                if !same_index || !once(read) || other == read || self.is_summed(read) {
                    continue;
                }
                self.inplace.insert(id.0, (other, op == Arith::Sub));
                self.inplace_skip.insert(read.0);
                self.inplace_skip.insert(sum.0);
                // Used once each, by the sum and the store, whose reverses no longer add to
                // them: their adjoints would never be given a value, nor a type.
                self.contributed.remove(&read.0);
                self.contributed.remove(&sum.0);
            }
        }
    }

    /// The reverse sweep of the store `id` of an update in place, at index `at`: the element's
    /// adjoint, read without taking it, added to that of the other operand of the sum.
    pub(super) fn reverse_inplace(&self, id: Value, var: Var, at: &TokenStream) -> TokenStream {
        let Some(&(other, negate)) = self.inplace.get(&id.0) else {
            return TokenStream::new();
        };
        let (krate, g) = (self.krate, hyg("__g"));
        let add = if negate {
            self.acc(other, quote!(::core::ops::Neg::neg(#g)))
        } else {
            self.acc(other, quote!(#g))
        };
        if add.is_empty() {
            return TokenStream::new();
        }
        let peek = if self.is_slice(var) {
            let bar = bar_ident(var);
            quote!(#krate::__private::slice_peek_at(#bar, #at))
        } else if self.is_dense(var) {
            let x = x_ident(var);
            quote!(#krate::__private::slice_peek_at(&#x, #at))
        } else if self.var_contributed.contains(&var.0) {
            let (x, k) = (x_ident(var), k_ident(var));
            quote!(#krate::__private::peek_at(&#x, &#k, #at))
        } else {
            return TokenStream::new();
        };
        quote! {
            if let ::core::option::Option::Some(#g) = #peek {
                #add
            }
        }
    }
}
