//! Closures defined in a body and called there: `let w = |x: T| 1.0 + (x - 1.0) / 4.0;` is
//! kept aside, and each call `w(a)` (also as a step of an iterator chain, `.map(w)`) is lowered
//! as the closure's body with its parameters bound to the arguments, so captured values, active
//! or not, differentiate like any other read of them.

use super::*;

/// A closure bound by `let`, with the variables its body names as they resolved where it was
/// defined: a call must see the same ones.
#[derive(Clone)]
pub(super) struct Closure {
    closure: syn::ExprClosure,
    captures: Vec<(String, Var)>,
}

impl Lower {
    /// `let name = |..| ..;`: kept for its calls. `true` when the `let` was such a binding.
    ///
    /// The binding itself is also kept as written, never called: an iterator chain that maps
    /// with the closure is built, not run, to type its accumulator (see `chains.rs`).
    pub(super) fn closure_binding(&mut self, local: &syn::Local, out: &mut Vec<Inst>) -> bool {
        let (Pat::Ident(p), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        let Expr::Closure(c) = strip_parens(&init.expr) else {
            return false;
        };
        if init.diverge.is_some() || p.by_ref.is_some() || p.subpat.is_some() {
            return false;
        }
        if let Some(bad) = c
            .asyncness
            .as_ref()
            .map(|a| a.to_token_stream())
            .or_else(|| c.constness.as_ref().map(|t| t.to_token_stream()))
        {
            self.errors
                .push(err(bad, "#[differentiable] supports plain closures only"));
            return true;
        }
        let mut params = Vec::new();
        for input in &c.inputs {
            super::chains::pattern_names(input, &mut params);
        }
        let mut captures = Vec::new();
        collect_names(c.body.to_token_stream(), &mut |name| {
            if params.iter().any(|p| p == name) || captures.iter().any(|(n, _)| n == name) {
                return;
            }
            if let Some(var) = self.lookup(name) {
                captures.push((name.to_owned(), var));
            }
        });
        // As written, but for `*x` of an enclosing loop's element, which is a value there.
        out.push(Inst::Verbatim {
            tokens: self.strip_element_derefs(self.expand_views(local.to_token_stream()), &params),
            reads: captures.iter().map(|(_, v)| *v).collect(),
            may_write: false,
            item: false,
        });
        self.closures.insert(
            p.ident.to_string(),
            Closure {
                closure: c.clone(),
                captures,
            },
        );
        true
    }

    /// The closure a call names, if it names one and no variable hides it.
    pub(super) fn closure_named<'e>(&self, e: &'e Expr) -> Option<(&'e Ident, &Closure)> {
        let Expr::Path(p) = e else { return None };
        let ident = p.path.get_ident()?;
        let name = ident.to_string();
        if p.qself.is_some() || self.lookup(&name).is_some() {
            return None;
        }
        self.closures.get(&name).map(|c| (ident, c))
    }

    /// A call of a closure bound by `let`: its body, with its parameters bound to the arguments.
    pub(super) fn inline_closure(
        &mut self,
        c: &syn::ExprCall,
        out: &mut Vec<Inst>,
    ) -> Option<Value> {
        let (ident, closure) = self.closure_named(&c.func)?;
        let (ident, closure, captures) = (
            ident.clone(),
            closure.closure.clone(),
            closure.captures.clone(),
        );
        for (name, var) in &captures {
            if self.lookup(name) != Some(*var) {
                self.errors.push(err(&c.func, format!("#[differentiable] cannot call the closure `{ident}` here: it reads `{name}`, which is bound again between the closure and this call, and the closure's body is differentiated where it is called; rename one of them")));
                return Some(self.dummy(out, c.span()));
            }
        }
        if closure.inputs.len() != c.args.len() {
            // rustc reports the count on the user's call.
            return Some(self.dummy(out, c.span()));
        }
        let params = closure.inputs.iter();
        let args = c.args.iter();
        let body = &closure.body;
        let block: Expr = syn::parse_quote!({ #(let #params = #args;)* #body });
        Some(self.expr(&block, out))
    }
}

pub(super) fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}
