//! Items declared inside the function body: kept verbatim, and their names kept apart from the
//! function's variables.

use super::*;

/// Why a variable and an item of the function body may not share a name.
pub(super) const ITEM_SHADOW: &str = "#[differentiable] tells variables apart by name and does not see which of them an item declared inside the function shadows, so it could differentiate the wrong one: rename the item or the variable";

/// The names an item declares in the value namespace, with their identifiers.
fn value_names(item: &syn::Item) -> Vec<syn::Ident> {
    fn uses(tree: &syn::UseTree, out: &mut Vec<syn::Ident>) {
        match tree {
            syn::UseTree::Path(p) => uses(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.clone()),
            syn::UseTree::Rename(r) => out.push(r.rename.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| uses(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = Vec::new();
    match item {
        syn::Item::Const(c) => out.push(c.ident.clone()),
        syn::Item::Fn(f) => out.push(f.sig.ident.clone()),
        syn::Item::Struct(s) if !matches!(s.fields, syn::Fields::Named(_)) => {
            out.push(s.ident.clone());
        }
        syn::Item::Use(u) => uses(&u.tree, &mut out),
        _ => {}
    }
    out
}

impl Lower {
    /// An item declared inside the function body is emitted again inside the derivative, so it
    /// must not be one whose identity matters.
    pub(super) fn nested_item(&mut self, item: &syn::Item, out: &mut Vec<Inst>) {
        if let syn::Item::Static(s) = item {
            self.errors.push(err(s.static_token, "#[differentiable] does not support a `static` inside the function: the derivative would get a second, separate copy; declare it outside the function"));
            return;
        }
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Mod(m) => &m.attrs,
            _ => &[],
        };
        for attr in attrs {
            let last = attr.path().segments.last().map(|s| s.ident.to_string());
            if matches!(last.as_deref(), Some("differentiable" | "custom_rule")) {
                self.errors.push(err(attr, "#[differentiable] does not support `ad` attributes on items inside the function: they would be registered twice; declare the item outside the function"));
                return;
            }
        }
        for ident in value_names(item) {
            let name = ident.to_string();
            if self.vars.iter().any(|v| v.ident == name) {
                self.errors.push(err(
                    &ident,
                    format!("`{ident}` names both an item and a variable of this function: {ITEM_SHADOW}"),
                ));
            }
            self.item_names.push(name);
        }
        out.push(Inst::Verbatim {
            tokens: item.to_token_stream(),
            reads: Vec::new(),
            may_write: false,
            item: true,
        });
    }
}
