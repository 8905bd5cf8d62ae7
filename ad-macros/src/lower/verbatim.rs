//! Code kept as the user wrote it (macros, items, code without a derivative): what it reads
//! and may write.

use super::*;

impl Lower {
    /// Keeps an expression verbatim for its value, which has no derivative.
    pub(super) fn verbatim(
        &mut self,
        e: &Expr,
        out: &mut Vec<Inst>,
        only_inactive: Option<Unsupported>,
    ) -> Value {
        let tokens = e.to_token_stream();
        if let Some(bad) = find_control(&tokens) {
            self.errors.push(syn::Error::new(bad.span(), format!("#[differentiable] does not support `{bad}` inside this expression; move it into its own statement")));
        }
        let reads = self.reads_of(&tokens);
        let may_write = may_write(&tokens);
        self.mark_pending(&reads, may_write);
        let tokens = self.strip_element_derefs(tokens, &[]);
        let v = self.value(e.span());
        out.push(Inst::Opaque {
            out: v,
            tokens,
            reads,
            may_write,
            only_inactive,
        });
        v
    }

    /// An element bound by `for x in a.iter()` is a reference in the user's code and a value
    /// in the derivative: `*x` in code kept as it is becomes `x`, unless `x` is one of `except`
    /// (names bound again inside the tokens, by a closure's parameters).
    pub(super) fn strip_element_derefs(
        &self,
        tokens: TokenStream,
        except: &[String],
    ) -> TokenStream {
        if self.element_vars.is_empty() {
            return tokens;
        }
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::with_capacity(tts.len());
        for (i, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Punct(p)
                    if p.as_char() == '*'
                        && p.spacing() == proc_macro2::Spacing::Alone
                        && matches!(tts.get(i + 1), Some(TokenTree::Ident(id))
                            if !except.contains(&id.to_string())
                                && self.lookup(&id.to_string()).is_some_and(|v| self.element_vars.contains(&v)))
                        && !matches!(
                            i.checked_sub(1).map(|j| &tts[j]),
                            Some(TokenTree::Ident(k)) if !matches!(k.to_string().as_str(), "return" | "in" | "if" | "match" | "while" | "else" | "break"),
                        )
                        && !matches!(
                            i.checked_sub(1).map(|j| &tts[j]),
                            Some(TokenTree::Literal(_) | TokenTree::Group(_))
                        ) => {}
                TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(
                        g.delimiter(),
                        self.strip_element_derefs(g.stream(), except),
                    );
                    inner.set_span(g.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }

    /// The variables that tokens may read: every identifier naming a local, and every name
    /// captured by a format string (`"{x}"`).
    pub(super) fn reads_of(&self, tokens: &TokenStream) -> Vec<Var> {
        let mut reads = Vec::new();
        collect_names(tokens.clone(), &mut |name| {
            if let Some(var) = self.lookup(name)
                && !reads.contains(&var)
            {
                reads.push(var);
            }
        });
        reads
    }
}
