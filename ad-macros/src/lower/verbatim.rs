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
        let tokens = self.expand_views(e.to_token_stream());
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
                        && !is_operand(i.checked_sub(1).map(|j| &tts[j])) => {}
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

pub(super) fn collect_names(tokens: TokenStream, f: &mut dyn FnMut(&str)) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => f(&i.to_string()),
            TokenTree::Group(g) => collect_names(g.stream(), f),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.ends_with('"') {
                    format_captures(&text, f);
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// The names a format string captures: `{x}`, `{x:?}`, `{x:>8.3}`; `{{` is an escaped brace.
fn format_captures(text: &str, f: &mut dyn FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            if bytes.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start && matches!(bytes.get(end), Some(b'}' | b':')) {
                f(&text[start..end]);
            }
            i = end;
        } else {
            i += 1;
        }
    }
}

/// `return` or `?` inside an expression kept verbatim would leave the generated function with
/// the primal's type; `break` or `continue` would leave a loop without what reverse mode records
/// when an iteration ends.
pub(super) fn find_control(tokens: &TokenStream) -> Option<TokenTree> {
    for tt in tokens.clone() {
        match &tt {
            TokenTree::Ident(i) if i == "return" || i == "break" || i == "continue" => {
                return Some(tt);
            }
            TokenTree::Punct(p) if p.as_char() == '?' => return Some(tt),
            TokenTree::Group(g) => {
                if let Some(found) = find_control(&g.stream()) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether verbatim tokens may change a variable: an `=` that is not part of a comparison or
/// `=>`, `mut`, a macro other than the read-only ones, or a method call not known to be
/// read-only (a `&mut self` method changes its receiver without any `=`).
pub(super) fn may_write(tokens: &TokenStream) -> bool {
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // The pattern of a `let` and its `=` bind new names (`{ let mut b = 1.0; b }`): they change
    // nothing that exists. What follows the `=` is read like the rest.
    let mut binding = false;
    for (i, tt) in tts.iter().enumerate() {
        if binding {
            binding = !matches!(tt, TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
            continue;
        }
        match tt {
            TokenTree::Ident(id) if id == "let" => binding = true,
            TokenTree::Ident(id) if id == "mut" => return true,
            TokenTree::Ident(id)
                if matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
                    && matches!(tts.get(i + 2), Some(TokenTree::Group(_)))
                    && !READ_ONLY_MACROS.contains(&id.to_string().as_str()) =>
            {
                return true;
            }
            TokenTree::Punct(p)
                if p.as_char() == '.'
                    && matches!(
                        (tts.get(i + 1), tts.get(i + 2)),
                        (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g)))
                            if g.delimiter() == proc_macro2::Delimiter::Parenthesis
                                && !is_read_only_method(&m.to_string())
                    ) =>
            {
                return true;
            }
            TokenTree::Group(g) if may_write(&g.stream()) => {
                return true;
            }
            TokenTree::Punct(p) if p.as_char() == '=' => {
                let prev = i.checked_sub(1).and_then(|j| match &tts[j] {
                    TokenTree::Punct(q) if q.spacing() == proc_macro2::Spacing::Joint => {
                        Some(q.as_char())
                    }
                    _ => None,
                });
                let next_is_eq_or_gt = matches!(tts.get(i + 1), Some(TokenTree::Punct(q)) if p.spacing() == proc_macro2::Spacing::Joint && matches!(q.as_char(), '=' | '>'));
                let comparison = matches!(prev, Some('=' | '!' | '>' | '<' | '.'))
                    && !matches!(
                        (prev, i.checked_sub(2).map(|j| &tts[j])),
                        (Some('<' | '>'), Some(TokenTree::Punct(q))) if q.as_char() == prev.unwrap_or(' ') && q.spacing() == proc_macro2::Spacing::Joint
                    );
                if !comparison && !next_is_eq_or_gt {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether the token before a `*` ends an operand, which makes the `*` a multiplication rather
/// than a dereference.
pub(super) fn is_operand(before: Option<&TokenTree>) -> bool {
    match before {
        Some(TokenTree::Ident(k)) => !matches!(
            k.to_string().as_str(),
            "return" | "in" | "if" | "match" | "while" | "else" | "break"
        ),
        Some(TokenTree::Literal(_) | TokenTree::Group(_)) => true,
        _ => false,
    }
}
