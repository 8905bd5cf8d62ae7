//! The two printers of one tree: as Rust over `f64` for `#[ad::differentiable]`, and as Rust over
//! `num_dual::Dual64` for the oracle. The oracle spells every comparison, kink and step as a
//! call into its helper module `pm`, which notes how close the point is to one.

use crate::ast::*;

#[derive(Clone, Copy, PartialEq)]
pub enum Flavor {
    Ad,
    Dual,
}

/// Float methods that `num_dual::DualNum` has; the others go through `pm`.
const DUAL_METHODS: &[&str] = &[
    "recip", "sqrt", "cbrt", "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
];

pub struct Printer<'a> {
    pub flavor: Flavor,
    /// Every function of the batch, for the modules of callees.
    pub funcs: &'a [Func],
    out: String,
    indent: usize,
    /// The result shape of the function being printed.
    shape: Shape,
    /// The label of the loop printed next (`'label: `).
    label: Option<String>,
    /// Printing a generic function for ad: `T` for the float type, and every float literal
    /// as `T::from(x).unwrap()`.
    generic: bool,
}

fn wrap(shape: Shape, a: &str, b: &str) -> String {
    match shape {
        Shape::Tuple => format!("({a}, {b})"),
        Shape::Array => format!("[{a}, {b}]"),
        Shape::Vec => format!("vec![{a}, {b}]"),
    }
}

/// The f32 version of a function printed over f64: its types, casts, paths and constants,
/// and for the oracle `Dual32` and the f32 helpers. No generated name contains `f64`, `D` or
/// `pm`, so the words can be replaced as they are.
fn single(text: &str, flavor: Flavor) -> String {
    let text = text.replace("f64", "f32");
    match flavor {
        Flavor::Ad => text,
        Flavor::Dual => {
            let mut out = String::new();
            let mut word = String::new();
            for c in text.chars().chain(['\n']) {
                if c.is_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                match word.as_str() {
                    "D" => out.push_str("pm32::D"),
                    "pm" if c == ':' => out.push_str("pm32"),
                    w => out.push_str(w),
                }
                word.clear();
                out.push(c);
            }
            out.pop();
            out
        }
    }
}

fn lit(x: f64) -> String {
    let s = format!("{x:?}");
    if x < 0.0 { format!("({s})") } else { s }
}

impl<'a> Printer<'a> {
    pub fn new(flavor: Flavor, funcs: &'a [Func]) -> Self {
        Printer {
            flavor,
            funcs,
            out: String::new(),
            indent: 0,
            shape: Shape::Tuple,
            label: None,
            generic: false,
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn float_ty(&self) -> &'static str {
        match self.flavor {
            Flavor::Ad if self.generic => "T",
            Flavor::Ad => "f64",
            Flavor::Dual => "D",
        }
    }

    pub fn ty(&self, ty: Ty) -> String {
        let f = self.float_ty();
        match (ty, self.flavor) {
            (Ty::F, _) => f.into(),
            (Ty::U(_), _) => "usize".into(),
            (Ty::Slice(_), _) => format!("&[{f}]"),
            (Ty::Out(_), _) => format!("&mut [{f}]"),
            (Ty::Arr(n), _) => format!("[{f}; {n}]"),
            (Ty::Vec(_), _) => format!("Vec<{f}>"),
            (Ty::ConstSlice(_), Flavor::Ad) => "ad::Const<&[f64]>".into(),
            (Ty::ConstSlice(_), Flavor::Dual) => "&[D]".into(),
            (Ty::ConstF, Flavor::Ad) => "ad::Const<f64>".into(),
            (Ty::ConstF, Flavor::Dual) => "D".into(),
            (Ty::Pair, _) => format!("({f}, {f})"),
            (Ty::Bool, _) => "bool".into(),
            (Ty::Char, _) => "char".into(),
            (Ty::I32(..), _) => "i32".into(),
            (Ty::ArrRef(n), _) => format!("&[{f}; {n}]"),
            (Ty::FnArg(0), _) => "G0".into(),
            (Ty::FnArg(1), _) => format!("impl Fn({f}) -> {f}"),
            (Ty::FnArg(_), _) => format!("fn({f}) -> {f}"),
        }
    }

    /// The label of the loop about to be printed, as its prefix.
    fn take_label(&mut self) -> String {
        match self.label.take() {
            Some(l) => format!("'{l}: "),
            None => String::new(),
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// The path of a function from anywhere in the generated crate.
    pub fn path(&self, name: &str) -> String {
        let f = self.funcs.iter().find(|f| f.name == name).expect("callee");
        // A generic callee at the caller's float type: spelled out for ad (callers over `f32`
        // have their `f64` replaced by `f32`, so they name `f::<f32>` and the oracle's copy
        // `f_f32`). The type is not left to inference: a call `square(x)` of a generic function
        // from a function over `f64` does not compile under the macro (E0283 "type annotations
        // needed"; `square::<f64>(x)` does, and so does `square(x)` from a generic function):
        //
        //     #[ad::differentiable]
        //     fn square<T: num_traits::Float>(v: T) -> T { v * v }
        //     #[ad::differentiable]
        //     fn h(x: f64) -> f64 { square(x) }
        match (self.flavor, f.generic) {
            (Flavor::Ad, false) => format!("crate::m{}::{}", f.module, name),
            // From a generic function, at its `T`, inferred.
            (Flavor::Ad, true) if self.generic => format!("crate::m{}::{}", f.module, name),
            (Flavor::Ad, true) => format!("crate::m{}::{}::<f64>", f.module, name),
            (Flavor::Dual, false) => format!("crate::oracle::{name}"),
            (Flavor::Dual, true) => format!("crate::oracle::{name}_f64"),
        }
    }

    /// A float literal for ad.
    fn flit(&self, x: f64) -> String {
        if self.generic {
            format!("T::from({}).unwrap()", lit(x))
        } else {
            lit(x)
        }
    }

    pub fn function(&mut self, f: &Func, attribute: bool) {
        let start = self.out.len();
        self.generic = f.generic && self.flavor == Flavor::Ad;
        self.function_f64(f, attribute);
        self.generic = false;
        if f.single {
            let text = self.out.split_off(start);
            self.out.push_str(&single(&text, self.flavor));
        }
    }

    fn function_f64(&mut self, f: &Func, attribute: bool) {
        if attribute {
            self.line("#[ad::differentiable]");
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                let m = if p.mutable { "mut " } else { "" };
                format!("{m}{}: {}", p.name, self.ty(p.ty))
            })
            .collect();
        let ret = if f.pair {
            match f.pair_shape {
                Shape::Tuple => format!(" -> ({0}, {0})", self.float_ty()),
                Shape::Array => format!(" -> [{}; 2]", self.float_ty()),
                Shape::Vec => format!(" -> Vec<{}>", self.float_ty()),
            }
        } else if f.returns {
            format!(" -> {}", self.float_ty())
        } else {
            String::new()
        };
        // A function parameter of the generic form is a type parameter.
        let generics = if self.generic {
            "<T: num_traits::Float + num_traits::NumAssign>".to_string()
        } else if f.params.iter().any(|p| p.ty == Ty::FnArg(0)) {
            let fl = self.float_ty();
            format!("<G0: Fn({fl}) -> {fl}>")
        } else {
            String::new()
        };
        self.line(&format!(
            "pub fn {}{generics}({}){} {{",
            f.name,
            params.join(", "),
            ret
        ));
        self.shape = f.pair_shape;
        self.indent += 1;
        for s in &f.body {
            self.stmt(s);
        }
        match (&f.tail, &f.tail2) {
            (Some(a), Some(b)) => {
                let t = wrap(f.pair_shape, &self.fe(a), &self.fe(b));
                self.line(&t);
            }
            (Some(t), None) => {
                let t = self.fe(t);
                self.line(&t);
            }
            _ => {}
        }
        self.indent -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) {
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
                self.line(&format!("let {m}{name}{t} = {e};"));
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
            Stmt::ReturnPair(a, b) => {
                let r = wrap(self.shape, &self.fe(a), &self.fe(b));
                self.line(&format!("return {r};"));
            }
            Stmt::LetCallPair(a, b, name, args) => {
                let c = self.call(name, args);
                self.line(&format!("let ({a}, {b}) = {c};"));
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
            Stmt::Match(scrutinee, arms) => {
                let i = self.ie(scrutinee);
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
                let (lo, hi) = (self.ie(lo), self.ie(hi));
                self.line(&format!("let {name} = &{arr}[{lo}..{hi}];"));
            }
            Stmt::LetOpt(name, c, i) => {
                let (c, i) = (self.cond(c), self.ie(i));
                self.line(&format!(
                    "let {name}: Option<usize> = if {c} {{ Some({i}) }} else {{ None }};"
                ));
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

    fn block(&mut self, b: &[Stmt]) {
        self.indent += 1;
        for s in b {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn call(&self, name: &str, args: &[Arg]) -> String {
        let args: Vec<String> = args
            .iter()
            .map(|a| match a {
                Arg::F(e) => self.fe(e),
                Arg::U(i) => self.ie(i),
                Arg::Name(n) | Arg::Raw(n) => n.clone(),
                Arg::FnItem(n) => self.path(n),
                Arg::Part(n, p) => match p {
                    Part::Whole => format!("&{n}"),
                    Part::Full => format!("&{n}[..]"),
                    Part::Range(a, b) => format!("&{n}[{a}..{b}]"),
                    Part::To(b) => format!("&{n}[..{b}]"),
                },
                Arg::Pair(a, b) => format!("({}, {})", self.fe(a), self.fe(b)),
                Arg::Bool(c) => self.cond(c),
            })
            .collect();
        format!("{}({})", self.path(name), args.join(", "))
    }

    fn receiver(&self, e: &FE) -> String {
        match e {
            FE::Lit(x) => match self.flavor {
                Flavor::Ad if self.generic => self.flit(*x),
                Flavor::Ad => format!("{}_f64", lit(*x)),
                Flavor::Dual => self.fe(e),
            },
            // Arithmetic of literals alone is of no float type yet, which a method call
            // needs (rustc's E0689 "ambiguous numeric type `{float}`", with or without the
            // macro): give it the function's.
            _ if self.flavor == Flavor::Ad && !self.generic && literal_only(e) => {
                format!("({} as {})", self.fe(e), self.float_ty())
            }
            _ => self.fe(e),
        }
    }

    pub fn fe(&self, e: &FE) -> String {
        let dual = self.flavor == Flavor::Dual;
        match e {
            FE::Lit(x) => {
                if dual {
                    format!("pm::lit({})", lit(*x))
                } else {
                    self.flit(*x)
                }
            }
            FE::Var(v) => v.clone(),
            FE::ConstF(k) => {
                if dual {
                    k.clone()
                } else {
                    format!("{k}.0")
                }
            }
            FE::Deref(x) => format!("(*{x})"),
            FE::Index(a, i) => format!("{a}[{}]", self.ie(i)),
            FE::Neg(a) => format!("(-{})", self.fe(a)),
            FE::Bin(op, a, b) => format!("({} {} {})", self.fe(a), op.sym(), self.fe(b)),
            FE::Rem(a, m) => {
                if dual {
                    format!("pm::rem({}, {})", self.fe(a), lit(*m))
                } else {
                    format!("({} % {})", self.fe(a), self.flit(*m))
                }
            }
            FE::Unary { name, arg, path } => {
                let a = self.receiver(arg);
                if !dual {
                    if *path {
                        format!("{}::{name}({a})", self.float_ty())
                    } else {
                        format!("{a}.{name}()")
                    }
                } else if DUAL_METHODS.contains(name) {
                    format!("{a}.{name}()")
                } else {
                    format!("pm::{name}({a})")
                }
            }
            FE::Powi(a, k) => format!("{}.powi({k})", self.receiver(a)),
            FE::WithLit(name, a, x) if dual => {
                format!("{}.{name}({})", self.receiver(a), lit(*x))
            }
            FE::WithLit(name, a, x) => format!("{}.{name}({})", self.receiver(a), self.flit(*x)),
            FE::Binary(name, a, b) => {
                let (a, b) = (self.receiver(a), self.fe(b));
                if !dual {
                    return format!("{a}.{name}({b})");
                }
                match *name {
                    "atan2" => format!("{a}.atan2({b})"),
                    _ => format!("pm::{name}({a}, {b})"),
                }
            }
            FE::Clamp(a, lo, hi) => {
                if dual {
                    format!("pm::clamp({}, {}, {})", self.fe(a), lit(*lo), lit(*hi))
                } else {
                    let (lo, hi) = (self.flit(*lo), self.flit(*hi));
                    format!("{}.clamp({lo}, {hi})", self.receiver(a))
                }
            }
            FE::MulAdd(a, b, c) if dual => {
                format!(
                    "pm::mul_add({}, {}, {})",
                    self.fe(a),
                    self.fe(b),
                    self.fe(c)
                )
            }
            FE::MulAdd(a, b, c) => format!(
                "{}.mul_add({}, {})",
                self.receiver(a),
                self.fe(b),
                self.fe(c)
            ),
            FE::FromInt(i) => {
                if dual {
                    format!("pm::lit({} as f64)", self.ie(i))
                } else {
                    if self.generic {
                        format!("T::from({}).unwrap()", self.ie(i))
                    } else {
                        format!("({} as f64)", self.ie(i))
                    }
                }
            }
            FE::Call(name, args) => self.call(name, args),
            FE::MatchBool(c, a, b) => format!(
                "(match {} {{ true => {}, false => {} }})",
                self.cond(c),
                self.fe(a),
                self.fe(b)
            ),
            FE::Named(n) => {
                if dual {
                    format!("pm::lit(std::f64::consts::{n})")
                } else {
                    if self.generic {
                        format!("T::from(std::f64::consts::{n}).unwrap()")
                    } else {
                        format!("std::f64::consts::{n}")
                    }
                }
            }
            FE::ConstItem(n) => {
                if dual {
                    format!("pm::lit({n})")
                } else if self.generic {
                    format!("T::from({n}).unwrap()")
                } else {
                    n.clone()
                }
            }
            FE::Field(p, k) => format!("{p}.{k}"),
            FE::Block(name, init, value) => {
                let t = if dual || !init.has_typed_leaf() {
                    format!(": {}", self.float_ty())
                } else {
                    String::new()
                };
                format!(
                    "{{ let {name}{t} = {}; {} }}",
                    self.fe(init),
                    self.fe(value)
                )
            }
            FE::PowiVar(a, n) => format!("{}.powi({n})", self.receiver(a)),
            FE::If(c, a, b) => format!(
                "(if {} {{ {} }} else {{ {} }})",
                self.cond(c),
                self.fe(a),
                self.fe(b)
            ),
            FE::Chain(c) => self.chain(c, true),
            FE::CallClosure(h, a) => format!("{h}({})", self.fe(a)),
            FE::MatchPair {
                arr,
                a,
                b,
                x,
                y,
                guard,
                first,
                second,
            } => {
                let (o, c) = if *arr { ("[", "]") } else { ("(", ")") };
                format!(
                    "(match {o}{}, {}{c} {{ {o}{x}, {y}{c} if {} => {}, {o}{x}, _{c} => {} }})",
                    self.fe(a),
                    self.fe(b),
                    self.cond(guard),
                    self.fe(first),
                    self.fe(second)
                )
            }
            FE::Match(s, arms) => {
                let arms: Vec<String> = arms
                    .iter()
                    .map(|(p, e)| format!("{} => {}", self.pat(p), self.fe(e)))
                    .collect();
                format!("(match {} {{ {} }})", self.ie(s), arms.join(", "))
            }
        }
    }

    /// A chain, with its consumer (`consume`) or without (for `collect`).
    fn chain(&self, c: &Chain, consume: bool) -> String {
        let dual = self.flavor == Flavor::Dual;
        let ft = self.float_ty();
        let mut s = match &c.source {
            Source::Iter { arr, owned } => match owned {
                Some(o) => format!("{arr}.iter().{o}()"),
                None => format!("{arr}.iter()"),
            },
            Source::Enumerate(a) => format!("{a}.iter().enumerate()"),
            Source::Zip(a, b) => format!("{a}.iter().zip({b}.iter())"),
            Source::Windows(a, kind, k) => format!("{a}.{kind}({k})"),
        };
        let pattern = |item: Item, names: &[String]| match item {
            Item::Ref => format!("&{}", names[0]),
            Item::Val | Item::Win => names[0].clone(),
            Item::Idx => format!("({}, &{})", names[0], names[1]),
            Item::Pair => format!("(&{}, &{})", names[0], names[1]),
        };
        for (k, a) in c.adapters.iter().enumerate() {
            let item = c.items_before(k);
            match a {
                Adapter::Rev => s.push_str(".rev()"),
                Adapter::Skip(n) => s.push_str(&format!(".skip({n})")),
                Adapter::Take(n) => s.push_str(&format!(".take({n})")),
                Adapter::StepBy(n) => s.push_str(&format!(".step_by({n})")),
                Adapter::Filter(v, cond) => {
                    let p = if item == Item::Ref {
                        format!("&&{v}")
                    } else {
                        format!("&{v}")
                    };
                    s.push_str(&format!(".filter(|{p}| {})", self.cond(cond)));
                }
                Adapter::Map(names, body) => {
                    s.push_str(&format!(
                        ".map(|{}| {})",
                        pattern(item, names),
                        self.fe(body)
                    ));
                }
            }
        }
        if !consume {
            return s;
        }
        let item = c.items_before(c.adapters.len());
        match &c.consumer {
            // std's float `Sum` starts at -0.0 (an empty sum is -0.0, and `signum` of it is -1);
            // num-dual's starts at 0.0, so the oracle folds from -0.0.
            Consumer::Sum if self.flavor == Flavor::Dual => {
                let v = if item == Item::Ref { "&v" } else { "v" };
                s.push_str(&format!(".fold(pm::lit(-0.0), |acc, {v}| acc + v)"));
            }
            Consumer::Sum => s.push_str(&format!(".sum::<{ft}>()")),
            Consumer::Product => s.push_str(&format!(".product::<{ft}>()")),
            Consumer::Fold {
                init,
                acc,
                var,
                body,
            } => {
                let init = if dual {
                    format!("pm::lit({})", lit(*init))
                } else {
                    format!("{}_f64", lit(*init))
                };
                let p = pattern(item, std::slice::from_ref(var));
                s.push_str(&format!(".fold({init}, |{acc}, {p}| {})", self.fe(body)));
            }
            Consumer::Best { max, form } => {
                let m = if *max { "max_by" } else { "min_by" };
                if dual {
                    // The standard library's choice among the items, with the oracle's order,
                    // which notes how close two items come.
                    s.push_str(&format!(".{m}(|a, b| pm::order(a, b)).unwrap()"));
                } else {
                    let cmp = match form {
                        0 => "|a, b| a.partial_cmp(b).unwrap()",
                        1 => "|a, b| a.total_cmp(b)",
                        _ => "f64::total_cmp",
                    };
                    s.push_str(&format!(".{m}({cmp}).unwrap()"));
                }
            }
            Consumer::FoldBest { max } => {
                let (m, start) = if *max {
                    ("max", "NEG_INFINITY")
                } else {
                    ("min", "INFINITY")
                };
                if dual {
                    s.push_str(&format!(".reduce(pm::{m}).unwrap()"));
                } else {
                    s.push_str(&format!(".fold(f64::{start}, f64::{m})"));
                }
            }
        }
        format!("({s})")
    }

    fn pat(&self, p: &Pat) -> String {
        match p {
            Pat::Lit(n) => n.to_string(),
            Pat::Or(a, b) => format!("{a} | {b}"),
            Pat::Range(a, b) => format!("{a}..={b}"),
            Pat::Wild => "_".into(),
            Pat::Guard(c) => format!("_ if {}", self.cond(c)),
        }
    }

    pub fn ie(&self, i: &IE) -> String {
        match i {
            IE::Lit(n) => n.to_string(),
            IE::Var(v) => v.clone(),
            IE::Len(a) => format!("{a}.len()"),
            IE::Add(a, b) => format!("({} + {})", self.ie(a), self.ie(b)),
            IE::Sub(a, b) => format!("({} - {})", self.ie(a), self.ie(b)),
            IE::Mul(a, b) => format!("({} * {})", self.ie(a), self.ie(b)),
            IE::Div(a, k) => format!("({} / {k})", self.ie(a)),
            IE::Rem(a, k) => format!("({} % {k})", self.ie(a)),
            IE::FromFloat(e) => match self.flavor {
                Flavor::Ad => format!("(({}) as usize)", self.fe(e)),
                Flavor::Dual => format!("pm::to_usize({})", self.fe(e)),
            },
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::F(op, a, b) => match self.flavor {
                Flavor::Ad => format!("({} {} {})", self.fe(a), op.sym(), self.fe(b)),
                Flavor::Dual => format!("pm::{}({}, {})", op.name(), self.fe(a), self.fe(b)),
            },
            Cond::I(op, a, b) => format!("({} {} {})", self.ie(a), op.sym(), self.ie(b)),
            Cond::Even(a) => format!("({} % 2 == 0)", self.ie(a)),
            Cond::And(a, b) => format!("({} && {})", self.cond(a), self.cond(b)),
            Cond::Or(a, b) => format!("({} || {})", self.cond(a), self.cond(b)),
            Cond::Not(a) => format!("(!{})", self.cond(a)),
            Cond::Finite(e) => match self.flavor {
                Flavor::Ad => format!("{}.is_finite()", self.receiver(e)),
                Flavor::Dual => format!("{}.re.is_finite()", self.fe(e)),
            },
            Cond::TotalLt(a, b) => match self.flavor {
                Flavor::Ad => format!(
                    "({}.total_cmp(&{}) == std::cmp::Ordering::Less)",
                    self.receiver(a),
                    self.fe(b)
                ),
                Flavor::Dual => format!("pm::total_lt({}, {})", self.fe(a), self.fe(b)),
            },
            Cond::Flag(n) => n.clone(),
            Cond::CharIs(n, c) => format!("({n} == {c:?})"),
        }
    }
}

impl Printer<'_> {
    /// The function alone, as text.
    pub fn render(mut self, f: &Func) -> String {
        self.function(f, false);
        self.out
    }
}

/// Whether `e` is arithmetic of literals alone (`(1.5 + 0.5)`), whose type nothing fixes.
fn literal_only(e: &FE) -> bool {
    match e {
        FE::Lit(_) => true,
        FE::Neg(a) | FE::Rem(a, _) => literal_only(a),
        FE::Bin(_, a, b) => literal_only(a) && literal_only(b),
        _ => false,
    }
}
