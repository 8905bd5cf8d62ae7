//! The two printers of one tree: as Rust over `f64` for `#[ad::differentiable]`, and as Rust over
//! `num_dual::Dual64` for the oracle. The oracle spells every comparison, kink and step as a
//! call into its helper module `pm`, which notes how close the point is to one.

use crate::ast::*;

mod exprs;
mod stmts;

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
    pub(crate) indent: usize,
    /// The result shape of the function being printed.
    shape: Shape,
    /// The label of the loop printed next (`'label: `).
    label: Option<String>,
    /// Printing a generic function for ad: `T` for the float type, and every float literal
    /// as `T::from(x).unwrap()`.
    generic: bool,
    /// The parameters of the function being printed whose declared type tells the macro the
    /// float type (floats, slices and arrays of them).
    declared: Vec<String>,
    /// The call being printed leaves a generic callee's type to inference.
    inferred: std::cell::Cell<bool>,
    /// Print a method without its `impl` block (the caller prints the block around it).
    pub bare: bool,
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
            declared: Vec::new(),
            inferred: std::cell::Cell::new(false),
            bare: false,
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
            (Ty::OptF, _) => format!("Option<{f}>"),
            // The oracle's module declares its own `S{k}` over dual numbers.
            (Ty::Struct(k, true), _) => format!("&{}", struct_name(k)),
            (Ty::Struct(k, false), _) => struct_name(k),
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
        // A method, by the path of its struct (the oracle's in the oracle's module).
        if let Some(k) = f.method {
            return format!("{}::{name}", struct_name(k));
        }
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
            // From a function over `f64` whose arguments tell the macro the type: inferred, in
            // the calls of about half the callees (`Printer::call`).
            (Flavor::Ad, true) if self.inferred.get() => {
                format!("crate::m{}::{}", f.module, name)
            }
            // From a generic function, at its `T`, inferred.
            (Flavor::Ad, true) if self.generic => format!("crate::m{}::{}", f.module, name),
            (Flavor::Ad, true) => format!("crate::m{}::{}::<f64>", f.module, name),
            (Flavor::Dual, false) => format!("crate::oracle::{name}"),
            (Flavor::Dual, true) => format!("crate::oracle::{name}_f64"),
        }
    }

    /// A float literal for ad; in a generic function in each of the spellings the README
    /// lists (`T::zero()`, `T::one()`, `T::from(x).unwrap()`, `T::from_f64(x).unwrap()`), by
    /// the literal's value, so that both printers of a function agree.
    fn flit(&self, x: f64) -> String {
        if !self.generic {
            return lit(x);
        }
        match x {
            0.0 => "T::zero()".into(),
            1.0 => "T::one()".into(),
            _ if x.to_bits().count_ones().is_multiple_of(2) => {
                format!("T::from_f64({}).unwrap()", lit(x))
            }
            _ => format!("T::from({}).unwrap()", lit(x)),
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
        self.declared = f
            .params
            .iter()
            .filter(|p| matches!(p.ty, Ty::F | Ty::Slice(_) | Ty::Arr(_)))
            .map(|p| p.name.clone())
            .collect();
        let block = f.method.filter(|_| !self.bare);
        if attribute && (f.method.is_none() || block.is_some()) {
            self.line("#[ad::differentiable]");
        }
        // A method stands in an `impl` block, which the attribute is on.
        if let Some(k) = block {
            self.line(&format!("impl {} {{", struct_name(k)));
            self.indent += 1;
        }
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                if p.name == "self" {
                    return match p.ty {
                        Ty::Struct(_, true) => "&self".to_string(),
                        _ => "self".to_string(),
                    };
                }
                let m = if p.mutable { "mut " } else { "" };
                let ty = match p.ty {
                    Ty::Out(n) if p.array => format!("&mut [{}; {n}]", self.float_ty()),
                    Ty::Arr(_) if p.generic_len => format!("[{}; N]", self.float_ty()),
                    ty => self.ty(ty),
                };
                format!("{m}{}: {ty}", p.name)
            })
            .collect();
        let ret = if f.tail3.is_some() {
            let t = self.float_ty();
            format!(" -> ({t}, {t}, {t})")
        } else if f.pair {
            match f.pair_shape {
                Shape::Tuple => format!(" -> ({0}, {0})", self.float_ty()),
                Shape::Array => format!(" -> [{}; 2]", self.float_ty()),
                Shape::Vec => format!(" -> Vec<{}>", self.float_ty()),
            }
        } else if f.ret_opt {
            format!(" -> Option<{}>", self.float_ty())
        } else if let Some(k) = f.ret_struct {
            format!(" -> {}", struct_name(k))
        } else if f.returns {
            format!(" -> {}", self.float_ty())
        } else {
            String::new()
        };
        // A function parameter of the generic form is a type parameter.
        let generics = if self.generic {
            "<T: num_traits::Float + num_traits::FloatConst + num_traits::FromPrimitive + num_traits::NumAssign>".to_string()
        } else if f.params.iter().any(|p| p.ty == Ty::FnArg(0)) {
            let fl = self.float_ty();
            format!("<G0: Fn({fl}) -> {fl}>")
        } else if f.params.iter().any(|p| p.generic_len) {
            "<const N: usize>".to_string()
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
        if let Some(t) = &f.tail_opt {
            let t = self.oe(t);
            self.line(&t);
        }
        if let Some(t) = &f.tail_struct {
            let t = self.sarg(t);
            self.line(&t);
        }
        match (&f.tail, &f.tail2) {
            (Some(a), Some(b)) if f.tail3.is_some() => {
                let c = f.tail3.as_ref().unwrap();
                let t = format!("({}, {}, {})", self.fe(a), self.fe(b), self.fe(c));
                self.line(&t);
            }
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
        if block.is_some() {
            self.indent -= 1;
            self.line("}");
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
