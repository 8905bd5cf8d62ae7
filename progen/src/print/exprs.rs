//! Expressions: calls, floats, chains, patterns, indices and conditions.

use super::*;

impl Printer<'_> {
    pub(super) fn call(&self, name: &str, args: &[Arg]) -> String {
        let typed = args.iter().any(|a| match a {
            Arg::F(FE::Var(n) | FE::Index(n, _)) | Arg::Name(n) => self.declared.contains(n),
            _ => false,
        });
        let args: Vec<String> = args.iter().map(|a| self.arg(a)).collect();
        // A generic callee called from a function over `f64` with an argument whose declared
        // type tells the macro the float type: without a turbofish, for callees of an even
        // number (the others keep it, so that both spellings are generated).
        let even = name
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse::<usize>()
            .is_ok_and(|k| k % 2 == 0);
        self.inferred
            .set(self.flavor == Flavor::Ad && !self.generic && even && typed);
        let path = self.path(name);
        self.inferred.set(false);
        format!("{path}({})", args.join(", "))
    }

    fn arg(&self, a: &Arg) -> String {
        match a {
            Arg::F(e) => self.fe(e),
            Arg::U(i) => self.ie(i),
            Arg::Name(n) | Arg::Raw(n) => n.clone(),
            Arg::FnItem(n) => self.path(n),
            Arg::Part(n, p, mutable) => {
                let r = if *mutable { "&mut " } else { "&" };
                match p {
                    Part::Whole => format!("{r}{n}"),
                    Part::Full => format!("{r}{n}[..]"),
                    Part::Range(a, b) => format!("{r}{n}[{a}..{b}]"),
                    Part::To(b) => format!("{r}{n}[..{b}]"),
                }
            }
            Arg::Pair(a, b) => format!("({}, {})", self.fe(a), self.fe(b)),
            Arg::Bool(c) => self.cond(c),
            Arg::Opt(o) => self.oe(o),
            Arg::Struct(s) => self.sarg(s),
        }
    }

    /// A struct passed on or a receiver; the same text in both flavors (the oracle's module
    /// has its own struct types).
    pub(super) fn sarg(&self, a: &SArg) -> String {
        match a {
            SArg::Place(p) => p.clone(),
            SArg::Ref(p) => format!("&{p}"),
            SArg::Clone(p) => format!("{p}.clone()"),
            // A tuple struct with every field given: built by its name, `S0(a, b)`, the
            // fields in their positions.
            SArg::Lit(l)
                if l.base.is_none()
                    && !l.fields.is_empty()
                    && l.fields.iter().all(|(n, _)| n.parse::<usize>().is_ok()) =>
            {
                let mut fields: Vec<&(String, FInit)> = l.fields.iter().collect();
                fields.sort_by_key(|(n, _)| n.parse::<usize>().unwrap_or(0));
                let parts: Vec<String> = fields.iter().map(|(_, init)| self.finit(init)).collect();
                format!("{}({})", struct_name(l.def), parts.join(", "))
            }
            SArg::Lit(l) => {
                let mut parts: Vec<String> = l
                    .fields
                    .iter()
                    .map(|(n, init)| format!("{n}: {}", self.finit(init)))
                    .collect();
                if let Some(b) = &l.base {
                    parts.push(format!("..{}", self.sarg(b)));
                }
                format!("{} {{ {} }}", struct_name(l.def), parts.join(", "))
            }
            SArg::Call(name, args) => self.call(name, args),
            SArg::Method(m) => self.method(m),
        }
    }

    fn finit(&self, i: &FInit) -> String {
        match i {
            FInit::F(e) => self.fe(e),
            FInit::Arr(init, vec) => {
                let body = match init {
                    ArrInit::Fill(e, n) => format!("{}; {n}", self.fe(e)),
                    ArrInit::List(es) => {
                        es.iter().map(|e| self.fe(e)).collect::<Vec<_>>().join(", ")
                    }
                };
                let v = if *vec { "vec!" } else { "" };
                format!("{v}[{body}]")
            }
            FInit::Of(p, true) => format!("{p}.clone()"),
            FInit::Of(p, false) => p.clone(),
            FInit::U(i) => self.ie(i),
            FInit::S(a) => self.sarg(a),
        }
    }

    fn method(&self, m: &MCall) -> String {
        let args: Vec<String> = m.args.iter().map(|a| self.arg(a)).collect();
        let recv = self.sarg(&m.recv);
        let s = struct_name(m.def);
        match &m.form {
            MForm::Dot => format!("{recv}.{}({})", m.name, args.join(", ")),
            MForm::Path => {
                let mut all = vec![recv];
                all.extend(args);
                format!("{s}::{}({})", m.name, all.join(", "))
            }
            MForm::Copy(tmp) => format!(
                "{{ let {tmp}: {s} = {recv}.clone(); {tmp}.{}({}) }}",
                m.name,
                args.join(", ")
            ),
        }
    }

    pub(super) fn receiver(&self, e: &FE) -> String {
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
            FE::Method(m) => self.method(m),
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
                        // `FloatConst`'s, or converted from `f64`'s.
                        if n.len() % 2 == 0 {
                            format!("T::{n}()")
                        } else {
                            format!("T::from(std::f64::consts::{n}).unwrap()")
                        }
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
                at,
                a,
                b,
                x,
                y,
                guard,
                first,
                second,
            } => {
                let (o, c) = if *arr { ("[", "]") } else { ("(", ")") };
                let at = at.as_ref().map(|n| format!("{n} @ ")).unwrap_or_default();
                format!(
                    "(match {o}{}, {}{c} {{ {at}{o}{x}, {y}{c} if {} => {}, {o}{x}, _{c} => {} }})",
                    self.fe(a),
                    self.fe(b),
                    self.cond(guard),
                    self.fe(first),
                    self.fe(second)
                )
            }
            FE::Unwrap(o, false) => format!("{o}.unwrap()"),
            FE::Unwrap(o, true) => format!("{o}.expect(\"checked above\")"),
            FE::MatchOpt {
                scrut,
                guarded,
                var,
                some,
                none,
            } => {
                let mut arms = Vec::new();
                if let Some((g, c, e)) = guarded {
                    arms.push(format!("Some({g}) if {} => {}", self.cond(c), self.fe(e)));
                }
                arms.push(format!("Some({var}) => {}", self.fe(some)));
                arms.push(format!("None => {}", self.fe(none)));
                format!("(match {} {{ {} }})", self.oe(scrut), arms.join(", "))
            }
            FE::Match(s, arms) => {
                let arms: Vec<String> = arms
                    .iter()
                    .map(|(p, e)| format!("{} => {}", self.pat(p), self.fe(e)))
                    .collect();
                format!("(match {} {{ {} }})", self.scrut(s), arms.join(", "))
            }
        }
    }

    /// An `Option<f64>` expression.
    pub fn oe(&self, o: &OE) -> String {
        match o {
            OE::Some(e) => format!("Some({})", self.fe(e)),
            OE::None => "None".into(),
            OE::Var(v) => v.clone(),
            OE::If(c, a, b) => format!(
                "(if {} {{ {} }} else {{ {} }})",
                self.cond(c),
                self.oe(a),
                self.oe(b)
            ),
            OE::Call(name, args) => self.call(name, args),
        }
    }

    /// A chain, with its consumer (`consume`) or without (for `collect`).
    pub(super) fn chain(&self, c: &Chain, consume: bool) -> String {
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

    pub(super) fn pat(&self, p: &Pat) -> String {
        match p {
            Pat::Lit(n) => n.to_string(),
            Pat::Or(a, b) => format!("{a} | {b}"),
            Pat::Range(a, b) => format!("{a}..={b}"),
            Pat::Wild => "_".into(),
            Pat::Guard(c) => format!("_ if {}", self.cond(c)),
            Pat::Tuple(a, b) => format!("({}, {})", self.pat(a), self.pat(b)),
            Pat::Modes(ms) => ms
                .iter()
                .map(|&m| format!("Mode::{}", MODES[m]))
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    pub(super) fn scrut(&self, s: &Scrut) -> String {
        match s {
            Scrut::Int(i) => self.ie(i),
            Scrut::Pair(a, b) => format!("({}, {})", self.ie(a), self.ie(b)),
            Scrut::Mode(m) => m.clone(),
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

    pub(super) fn cond(&self, c: &Cond) -> String {
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
            Cond::IsSome(o, true) => format!("{o}.is_some()"),
            Cond::IsSome(o, false) => format!("{o}.is_none()"),
        }
    }
}
