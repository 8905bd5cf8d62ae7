//! Lowering of calls: float methods, `.len()`, `.iter().sum()`, and calls of functions.

use super::*;

impl Lower {
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Inst>) -> Value {
        let name = m.method.to_string();
        if let Some(prim) = prims::lookup(&name) {
            let expected = match prim.shape {
                Shape::Unary => 0,
                Shape::PowI => 1,
                Shape::Multi(n) => n - 1,
            };
            if m.args.len() != expected || m.turbofish.is_some() {
                self.errors.push(err(
                    m,
                    format!("`{name}` takes {expected} argument(s) here"),
                ));
                return self.dummy(out, m.span());
            }
            let recv = self.expr(&m.receiver, out);
            let args = m.args.iter().map(|a| self.expr(a, out)).collect();
            let v = self.value(m.span());
            out.push(Inst::Method {
                out: v,
                prim,
                method: m.method.clone(),
                ufcs: None,
                recv,
                args,
            });
            return v;
        }
        if prims::INACTIVE_METHODS.contains(&name.as_str())
            || CONTAINER_INACTIVE.contains(&name.as_str())
        {
            return self.verbatim(&Expr::MethodCall(m.clone()), out, None);
        }
        if let Some(range) = sliced(&m.receiver) {
            self.errors.push(err(range, "#[differentiable] does not support slicing (`a[i..j]`); index elements one by one (`a[i]`) in a loop over the range"));
            return self.dummy(out, m.span());
        }
        if name == "sum"
            && m.args.is_empty()
            && let Some((var, ident)) = self.summed_var(&m.receiver)
        {
            let tokens = Expr::MethodCall(m.clone()).to_token_stream();
            let len = self.value(m.span());
            out.push(Inst::Opaque {
                out: len,
                tokens: quote!(#ident.len()),
                reads: vec![var],
                may_write: false,
                only_inactive: None,
            });
            let v = self.value(m.span());
            out.push(Inst::Sum {
                out: v,
                var,
                ident,
                tokens,
                len,
            });
            return v;
        }
        self.verbatim(&Expr::MethodCall(m.clone()), out, Some(Unsupported::with_fix("this method call", "the float methods that are differentiated are listed in the README; for anything else call a function (with #[differentiable] or a #[custom_rule]) instead of a method")))
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall, out: &mut Vec<Inst>) -> Value {
        let Expr::Path(path) = &*c.func else {
            self.errors.push(err(
                &c.func,
                "#[differentiable] can call functions by path only; call the function by its name",
            ));
            return self.dummy(out, c.span());
        };
        if path.qself.is_none() {
            let segs: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [first] = segs.as_slice()
                && self.lookup(first).is_some()
            {
                self.errors.push(err(&c.func, format!("#[differentiable] cannot call `{first}`: it is a local variable (a closure or a function pointer), and the registry finds derivatives of named functions only; write it as a named `fn` and call that")));
                return self.dummy(out, c.span());
            }
            if let [ty, method] = segs.as_slice()
                && prims::is_float_type_name(ty)
                && let Some(prim) = prims::lookup(method)
            {
                let n = match prim.shape {
                    Shape::Unary => 1,
                    Shape::PowI => 2,
                    Shape::Multi(n) => n,
                };
                if c.args.len() != n {
                    self.errors
                        .push(err(c, format!("`{ty}::{method}` takes {n} argument(s)")));
                    return self.dummy(out, c.span());
                }
                let mut vals: Vec<Value> = c.args.iter().map(|a| self.expr(a, out)).collect();
                let recv = vals.remove(0);
                let v = self.value(c.span());
                let method = path
                    .path
                    .segments
                    .last()
                    .expect("two segments")
                    .ident
                    .clone();
                let ufcs = Some(path.path.segments[0].ident.clone());
                out.push(Inst::Method {
                    out: v,
                    prim,
                    method,
                    ufcs,
                    recv,
                    args: vals,
                });
                return v;
            }
        }
        // A slice parameter may be passed on whole: the callee gets it with its tangent or
        // adjoint buffer.
        let args = c
            .args
            .iter()
            .map(|a| match self.local_var(a) {
                Some((var, ident))
                    if self.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .is_some_and(|t| slice_of(t).is_some()) =>
                {
                    let v = self.value(a.span());
                    out.push(Inst::Read { out: v, var, ident });
                    v
                }
                _ => self.expr(a, out),
            })
            .collect();
        let v = self.value(c.span());
        out.push(Inst::Call {
            out: v,
            callee: path.to_token_stream(),
            args,
            span: c.span(),
            parens: c.paren_token.span,
        });
        v
    }
}
