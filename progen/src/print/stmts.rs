//! Statements and blocks.

use super::*;

impl Printer<'_> {
    pub(super) fn stmt(&mut self, s: &Stmt) {
        let ft = self.float_ty();
        match s {
            Stmt::Let {
                name,
                mutable,
                typed,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = if *typed || self.flavor == Flavor::Dual || !init.has_typed_leaf() {
                    format!(": {ft}")
                } else {
                    String::new()
                };
                let e = self.fe(init);
                // Now and then as a conversion to the `let`'s type (`let t: f64 = e.into();`).
                let into = !t.is_empty()
                    && name
                        .trim_start_matches(|c: char| !c.is_ascii_digit())
                        .parse::<usize>()
                        .is_ok_and(|k| k % 5 == 0);
                if into {
                    self.line(&format!("let {m}{name}{t} = ({e}).into();"));
                } else {
                    self.line(&format!("let {m}{name}{t} = {e};"));
                }
            }
            Stmt::LetPair(a, b, x, y) => {
                let t = if x.has_typed_leaf() && y.has_typed_leaf() {
                    String::new()
                } else {
                    format!(": ({ft}, {ft})")
                };
                let (x, y) = (self.fe(x), self.fe(y));
                self.line(&format!("let ({a}, {b}){t} = ({x}, {y});"));
            }
            Stmt::LetIdx(name, ie) => {
                let e = self.ie(ie);
                self.line(&format!("let {name}: usize = {e};"));
            }
            Stmt::LetArr { name, vec, init } => {
                let (body, typed, n) = match init {
                    ArrInit::Fill(e, n) => (format!("{}; {n}", self.fe(e)), e.has_typed_leaf(), *n),
                    ArrInit::List(es) => (
                        es.iter().map(|e| self.fe(e)).collect::<Vec<_>>().join(", "),
                        es.iter().any(|e| e.has_typed_leaf()),
                        es.len(),
                    ),
                };
                let t = match (typed, *vec) {
                    (true, _) => String::new(),
                    (false, true) => format!(": Vec<{ft}>"),
                    (false, false) => format!(": [{ft}; {n}]"),
                };
                let v = if *vec { "vec!" } else { "" };
                self.line(&format!("let mut {name}{t} = {v}[{body}];"));
            }
            Stmt::LetSum(name, arr) => {
                if self.flavor == Flavor::Dual {
                    // From -0.0, as std's float `Sum` (see `Printer::chain`).
                    self.line(&format!(
                        "let {name}: {ft} = {arr}.iter().fold(pm::lit(-0.0), |acc, &v| acc + v);"
                    ));
                } else {
                    self.line(&format!("let {name}: {ft} = {arr}.iter().sum();"));
                }
            }
            Stmt::LetLoop {
                name,
                label,
                guard,
                trips,
                body,
                fallback,
            } => {
                self.line(&format!("let mut {guard}: usize = 0;"));
                let l = label
                    .as_ref()
                    .map(|l| format!("'{l}: "))
                    .unwrap_or_default();
                self.line(&format!("let {name}: {ft} = {l}loop {{"));
                self.indent += 1;
                self.line(&format!("{guard} += 1;"));
                let fb = self.fe(fallback);
                self.line(&format!("if {guard} > {trips} {{"));
                self.line(&format!("    break {fb};"));
                self.line("}");
                for s in body {
                    self.stmt(s);
                }
                self.indent -= 1;
                self.line("};");
            }
            Stmt::Assign(name, AssignOp::Rem, FE::Lit(m)) if self.flavor == Flavor::Dual => {
                self.line(&format!("{name} = pm::rem({name}, {});", lit(*m)));
            }
            Stmt::Assign(name, op, e) => {
                let e = self.fe(e);
                self.line(&format!("{name} {} {e};", op.sym()));
            }
            Stmt::AssignElem(name, i, op, e) => {
                let (i, e) = (self.ie(i), self.fe(e));
                // On a `T` too, where `+=` is `AddAssign` (rustc's rule: a `Vec` indexed on
                // the left is borrowed mutably before the right side reads it).
                let reads = e
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == name);
                if (self.flavor == Flavor::Dual || (self.generic && reads)) && *op != AssignOp::Set
                {
                    // `a[i] += ..a[j]..` borrows `a` twice when `+=` is a trait method.
                    self.line(&format!(
                        "{{ let rhs = {e}; {name}[{i}] {} rhs; }}",
                        op.sym()
                    ));
                } else {
                    self.line(&format!("{name}[{i}] {} {e};", op.sym()));
                }
            }
            Stmt::If(c, a, b) => {
                let c = self.cond(c);
                self.line(&format!("if {c} {{"));
                self.block(a);
                if b.is_empty() {
                    self.line("}");
                } else {
                    self.line("} else {");
                    self.block(b);
                    self.line("}");
                }
            }
            Stmt::For(kind, body) => {
                let head = match kind {
                    ForKind::Range {
                        var,
                        lo,
                        hi,
                        inclusive,
                        rev,
                        step,
                    } => {
                        let (lo, hi) = (self.ie(lo), self.ie(hi));
                        let dots = if *inclusive { "..=" } else { ".." };
                        if *rev {
                            format!("for {var} in ({lo}{dots}{hi}).rev()")
                        } else if *step > 1 {
                            format!("for {var} in ({lo}{dots}{hi}).step_by({step})")
                        } else {
                            format!("for {var} in {lo}{dots}{hi}")
                        }
                    }
                    ForKind::Iter { elem, arr, form } => match form {
                        IterForm::RefPat => format!("for &{elem} in {arr}.iter()"),
                        IterForm::Copied => format!("for {elem} in {arr}.iter().copied()"),
                        IterForm::Borrow => format!("for &{elem} in &{arr}"),
                        IterForm::Deref => format!("for {elem} in {arr}.iter()"),
                    },
                    ForKind::Enumerate { idx, elem, arr } => {
                        format!("for ({idx}, &{elem}) in {arr}.iter().enumerate()")
                    }
                    ForKind::Zip { x, a, y, b } => {
                        format!("for (&{x}, &{y}) in {a}.iter().zip({b}.iter())")
                    }
                    ForKind::Windows { var, arr, kind, k } => {
                        format!("for {var} in {arr}.{kind}({k})")
                    }
                };
                let l = self.take_label();
                self.line(&format!("{l}{head} {{"));
                self.block(body);
                self.line("}");
            }
            Stmt::While {
                guard,
                trips,
                cond,
                body,
            } => {
                self.line(&format!("let mut {guard}: usize = 0;"));
                let c = match cond {
                    Some(c) => format!(" && {}", self.cond(c)),
                    None => String::new(),
                };
                let l = self.take_label();
                self.line(&format!("{l}while {guard} < {trips}{c} {{"));
                self.line(&format!("    {guard} += 1;"));
                self.block(body);
                self.line("}");
            }
            Stmt::Loop { guard, trips, body } => {
                self.line(&format!("let mut {guard}: usize = 0;"));
                let l = self.take_label();
                self.line(&format!("{l}loop {{"));
                self.line(&format!("    {guard} += 1;"));
                self.line(&format!("    if {guard} > {trips} {{"));
                self.line("        break;");
                self.line("    }");
                self.block(body);
                self.line("}");
            }
            Stmt::Counter {
                idx,
                start,
                step,
                var,
                trips,
                body,
            } => {
                self.line(&format!("let mut {idx}: usize = {start};"));
                self.line(&format!("for {var} in 0..{trips} {{"));
                self.block(body);
                self.line(&format!("    {idx} += {step};"));
                self.line("}");
            }
            Stmt::Break(None) => self.line("break;"),
            Stmt::Break(Some(e)) => {
                let e = self.fe(e);
                self.line(&format!("break {e};"));
            }
            Stmt::Continue => self.line("continue;"),
            Stmt::Labelled(l, inner) => {
                self.label = Some(l.clone());
                self.stmt(inner);
            }
            Stmt::BreakTo(l, None) => self.line(&format!("break '{l};")),
            Stmt::BreakTo(l, Some(e)) => {
                let e = self.fe(e);
                self.line(&format!("break '{l} {e};"));
            }
            Stmt::ContinueTo(l) => self.line(&format!("continue '{l};")),
            Stmt::LetBlock {
                name,
                label,
                body,
                tail,
            } => {
                self.line(&format!("let {name}: {ft} = '{label}: {{"));
                self.block(body);
                let t = self.fe(tail);
                self.line(&format!("    {t}"));
                self.line("};");
            }
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(e)) => {
                let e = self.fe(e);
                self.line(&format!("return {e};"));
            }
            Stmt::ReturnTuple(es) => {
                let es: Vec<String> = es.iter().map(|e| self.fe(e)).collect();
                let r = match es.as_slice() {
                    [a, b] => wrap(self.shape, a, b),
                    _ => format!("({})", es.join(", ")),
                };
                self.line(&format!("return {r};"));
            }
            Stmt::LetCallTuple(names, name, args) => {
                let c = self.call(name, args);
                self.line(&format!("let ({}) = {c};", names.join(", ")));
            }
            Stmt::LetTriple {
                names,
                inits,
                nested,
            } => {
                let typed = inits.iter().all(|e| e.has_typed_leaf());
                let es: Vec<String> = inits.iter().map(|e| self.fe(e)).collect();
                let (n, e, t) = if *nested {
                    (
                        format!("(({}, {}), {})", names[0], names[1], names[2]),
                        format!("(({}, {}), {})", es[0], es[1], es[2]),
                        format!(": (({ft}, {ft}), {ft})"),
                    )
                } else {
                    (
                        format!("({})", names.join(", ")),
                        format!("({})", es.join(", ")),
                        format!(": ({ft}, {ft}, {ft})"),
                    )
                };
                let t = if typed { "" } else { t.as_str() };
                self.line(&format!("let {n}{t} = {e};"));
            }
            Stmt::Call(name, args) => {
                let c = self.call(name, args);
                self.line(&format!("{c};"));
            }
            Stmt::Assert(e, debug) => {
                let e = self.fe(e);
                let d = if *debug { "debug_" } else { "" };
                match self.flavor {
                    Flavor::Ad => self.line(&format!("{d}assert!({e}.is_finite());")),
                    Flavor::Dual => self.line(&format!("{d}assert!({e}.re.is_finite());")),
                }
            }
            Stmt::Const(name, x) => self.line(&format!("const {name}: f64 = {};", lit(*x))),
            Stmt::LetMode(name, i) => {
                let i = self.ie(i);
                self.line(&format!(
                    "let {name}: Mode = match {i} {{ 0 => Mode::A, 1 => Mode::B, _ => Mode::C }};"
                ));
            }
            Stmt::Match(scrutinee, arms) => {
                let i = self.scrut(scrutinee);
                self.line(&format!("match {i} {{"));
                self.indent += 1;
                for (p, b) in arms {
                    let p = self.pat(p);
                    self.line(&format!("{p} => {{"));
                    self.block(b);
                    self.line("}");
                }
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Print(e) => {
                let e = self.fe(e);
                self.line(&format!("println!(\"{{:?}}\", {e});"));
            }
            Stmt::LetCollect(name, c) => {
                let c = self.chain(c, false);
                self.line(&format!("let mut {name}: Vec<{ft}> = {c}.collect();"));
            }
            Stmt::LetClosure { name, param, body } => {
                let b = self.fe(body);
                self.line(&format!("let {name} = |{param}: {ft}| {b};"));
            }
            Stmt::LetArrMap {
                name,
                arr,
                param,
                body,
            } => {
                let b = self.fe(body);
                self.line(&format!("let mut {name} = {arr}.map(|{param}| {b});"));
            }
            Stmt::ForIterMut { var, arr, ops } => {
                let l = self.take_label();
                self.line(&format!("{l}for {var} in {arr}.iter_mut() {{"));
                for (op, e) in ops {
                    let e = self.fe(e);
                    self.line(&format!("    *{var} {} {e};", op.sym()));
                }
                self.line("}");
            }
            Stmt::AssignPair(a, b, x, y) => {
                let (x, y) = (self.fe(x), self.fe(y));
                self.line(&format!("({a}, {b}) = ({x}, {y});"));
            }
            Stmt::LetArrPat {
                names,
                rest,
                arr,
                deref,
            } => {
                let mut pats = names.clone();
                if *rest {
                    pats.push("..".into());
                }
                let d = if *deref { "*" } else { "" };
                self.line(&format!("let [{}] = {d}{arr};", pats.join(", ")));
            }
            Stmt::LetView { name, arr, lo, hi } => {
                let lo = match lo {
                    IE::Lit(0) => String::new(),
                    lo => self.ie(lo),
                };
                let hi = self.ie(hi);
                self.line(&format!("let {name} = &{arr}[{lo}..{hi}];"));
            }
            Stmt::LetMutView {
                name,
                arr,
                lo,
                hi,
                body,
            } => {
                let (lo, hi) = (self.ie(lo), self.ie(hi));
                self.line(&format!("let {name} = &mut {arr}[{lo}..{hi}];"));
                for s in body {
                    self.stmt(s);
                }
            }
            Stmt::LetOpt(name, c, init) => {
                let c = self.cond(c);
                let (t, v) = match init {
                    OptInit::Index(i) => ("usize".to_string(), self.ie(i)),
                    OptInit::Float(e) => (ft.to_string(), self.fe(e)),
                };
                self.line(&format!(
                    "let {name}: Option<{t}> = if {c} {{ Some({v}) }} else {{ None }};"
                ));
            }
            Stmt::LetOptE(name, o) => {
                let o = self.oe(o);
                self.line(&format!("let {name}: Option<{ft}> = {o};"));
            }
            Stmt::ReturnOpt(o) => {
                let o = self.oe(o);
                self.line(&format!("return {o};"));
            }
            Stmt::IfLet {
                opt,
                var,
                then,
                els,
            } => {
                self.line(&format!("if let Some({var}) = {opt} {{"));
                self.block(then);
                if els.is_empty() {
                    self.line("}");
                } else {
                    self.line("} else {");
                    self.block(els);
                    self.line("}");
                }
            }
            Stmt::LetElse { opt, var, els } => {
                self.line(&format!("let Some({var}) = {opt} else {{"));
                self.block(std::slice::from_ref(&**els));
                self.line("};");
            }
            Stmt::ReturnStruct(v) => {
                let v = self.sarg(v);
                self.line(&format!("return {v};"));
            }
            Stmt::LetStruct {
                name,
                def,
                typed,
                mutable,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = if *typed {
                    format!(": {}", struct_name(*def))
                } else {
                    String::new()
                };
                let init = self.sarg(init);
                self.line(&format!("let {m}{name}{t} = {init};"));
            }
            Stmt::WhileLet {
                guard,
                trips,
                var,
                body,
            } => {
                self.line(&format!("let mut {guard}: usize = 0;"));
                let l = self.take_label();
                self.line(&format!(
                    "{l}while let Some({var}) = (if {guard} < {trips} {{ Some({guard}) }} else {{ None }}) {{"
                ));
                self.line(&format!("    {guard} += 1;"));
                self.block(body);
                self.line("}");
            }
        }
    }

    pub(super) fn block(&mut self, b: &[Stmt]) {
        self.indent += 1;
        for s in b {
            self.stmt(s);
        }
        self.indent -= 1;
    }
}
