//! Macro calls: statement macros, kept verbatim or as opaque code, and `vec!`.

use super::*;

impl Lower {
    pub(super) fn stmt_macro(
        &mut self,
        mac: &syn::Macro,
        tokens: TokenStream,
        out: &mut Vec<Inst>,
    ) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if name == "thread_local" {
            self.errors.push(err(mac, "#[differentiable] does not support `thread_local!` inside the function: the derivative would get a second, separate copy; declare it outside the function"));
            return;
        }
        let tokens = self.expand_views(tokens);
        let reads = self.reads_of(&tokens);
        let tokens = self.strip_element_derefs(tokens, &[]);
        if READ_ONLY_MACROS.contains(&name.as_str()) {
            let may_write = may_write(&tokens);
            self.mark_pending(&reads, may_write);
            out.push(Inst::Verbatim {
                tokens,
                reads,
                may_write,
                item: false,
            });
        } else {
            let v = self.value(mac.span());
            self.mark_pending(&reads, true);
            out.push(Inst::Opaque {
                out: v,
                tokens,
                reads,
                may_write: true,
                only_inactive: Some(Unsupported::new("a macro call")),
            });
        }
    }

    /// `vec![a, b]` or `vec![e; n]`.
    pub(super) fn vec_macro(&mut self, m: &syn::ExprMacro, out: &mut Vec<Inst>) -> Value {
        enum VecArgs {
            List(Vec<Expr>),
            Repeat(Box<(Expr, Expr)>),
        }
        let parser = |input: syn::parse::ParseStream| -> syn::Result<VecArgs> {
            if input.is_empty() {
                return Ok(VecArgs::List(Vec::new()));
            }
            let first: Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let len: Expr = input.parse()?;
                return Ok(VecArgs::Repeat(Box::new((first, len))));
            }
            let mut elems = vec![first];
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                elems.push(input.parse()?);
            }
            Ok(VecArgs::List(elems))
        };
        let args = match syn::parse::Parser::parse2(parser, m.mac.tokens.clone()) {
            Ok(args) => args,
            Err(e) => {
                self.errors.push(e);
                return self.dummy(out, m.span());
            }
        };
        match args {
            VecArgs::List(elems) => {
                let elems = elems.iter().map(|e| self.expr(e, out)).collect();
                let v = self.value(m.span());
                out.push(Inst::Array {
                    out: v,
                    elems,
                    vec: true,
                });
                v
            }
            VecArgs::Repeat(pair) => {
                let (elem, len) = *pair;
                let elem = self.expr(&elem, out);
                let len = self.verbatim(&len, out, None);
                let v = self.value(m.span());
                out.push(Inst::Repeat {
                    out: v,
                    elem,
                    len: crate::ir::Len::Vec(len),
                });
                v
            }
        }
    }
}
