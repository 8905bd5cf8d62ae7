//! Float expressions: leaves and every kind of node, each with a bound on its magnitude.

use super::*;

impl Gen<'_> {
    pub(super) fn leaf_var(&mut self) -> (FE, f64) {
        if self.rng.chance(0.15)
            && let Some(r) = self.unwrap_read()
        {
            return r;
        }
        if !self.arr_refs.is_empty()
            && self.rng.chance(0.2)
            && let Some(r) = self.arr_ref_read()
        {
            return r;
        }
        // `s.w[i]`, an element of a struct's field read in place.
        if !self.farrs.is_empty()
            && self.rng.chance(0.25)
            && let Some(r) = self.field_elem_read()
        {
            return r;
        }
        if !self.floats.is_empty() && (self.arrays.is_empty() || self.rng.chance(0.6)) {
            let v = self.rng.pick(&self.floats).clone();
            return (v.read, v.cap);
        }
        if !self.arrays.is_empty() {
            let a = self.rng.pick(&self.arrays).clone();
            let idx = self.index(a.len);
            return (FE::Index(a.name, Box::new(idx)), a.cap);
        }
        if !self.ints.is_empty() {
            let i = self.rng.pick(&self.ints).clone();
            return (FE::FromInt(Box::new(IE::Var(i.name))), i.hi as f64);
        }
        // A typed leaf if there is one: a method receiver needs it.
        if let Some(r) = self.arr_ref_read() {
            return r;
        }
        (FE::Lit(1.5), 1.5)
    }

    pub(super) fn leaf(&mut self) -> (FE, f64) {
        match self.rng.weighted(&[2, 8, 1]) {
            0 if self.rng.chance(0.15) => {
                let (n, x) = *self.rng.pick(&[
                    ("PI", std::f64::consts::PI),
                    ("E", std::f64::consts::E),
                    ("LN_2", std::f64::consts::LN_2),
                    ("SQRT_2", std::f64::consts::SQRT_2),
                    ("FRAC_PI_4", std::f64::consts::FRAC_PI_4),
                ]);
                (FE::Named(n), x)
            }
            0 => {
                let x = *self
                    .rng
                    .pick(&[0.5, 1.5, 2.0, 0.25, 3.0, 0.1, 1.0, 0.75, 1.25]);
                (FE::Lit(x), x)
            }
            1 => self.leaf_var(),
            _ => {
                if let Some(i) = (!self.ints.is_empty()).then(|| self.rng.pick(&self.ints).clone())
                {
                    (FE::FromInt(Box::new(IE::Var(i.name))), i.hi as f64)
                } else {
                    self.leaf_var()
                }
            }
        }
    }

    pub fn fe(&mut self, depth: usize) -> (FE, f64) {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf();
        }
        let d = depth - 1;
        let weights = [
            12,                                            // + -
            7,                                             // *
            3,                                             // / pos
            2,                                             // neg
            6,                                             // bounded unary
            3,                                             // exp family
            5,                                             // positive domain
            2,                                             // ln_1p
            2,                                             // asin acos atanh
            1,                                             // acosh
            2,                                             // powi
            2,                                             // powf
            2,                                             // atan2 hypot
            3,                                             // kinks
            2,                                             // min max
            1,                                             // clamp
            1,                                             // copysign
            1,                                             // mul_add
            1,                                             // degrees radians
            1,                                             // rem
            4,                                             // call
            2,                                             // if
            1,                                             // match
            1,                                             // tan
            1,                                             // block
            1,                                             // match on a bool
            if self.exponents.is_empty() { 0 } else { 2 }, // powi(n)
            1,                                             // match on a pair
            if self.in_closure || self.generic || self.arrays.is_empty() {
                0
            } else {
                3
            }, // chain
            if self.closures.is_empty() || self.in_closure {
                0
            } else {
                3
            }, // closure call
            if self.fn_params.is_empty() || self.in_closure {
                0
            } else {
                4
            }, // call of a function parameter
            if self.in_closure {
                0
            } else if !self.opts.is_empty() {
                3
            } else {
                1
            }, // match on an Option
            if !self.svars.is_empty() && self.can_call_method() {
                6
            } else if self.can_call_method() {
                1
            } else {
                0
            }, // method call
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                let op = if self.rng.chance(0.5) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                (bin(op, a, b), ab + bb)
            }
            1 => {
                let (a, ab) = self.fe_capped(d, 8.0);
                let (b, bb) = self.fe_capped(d, 8.0);
                (bin(BinOp::Mul, a, b), ab * bb)
            }
            2 => {
                let (a, ab) = self.fe(d);
                let (p, lo, _) = self.pos(d);
                (bin(BinOp::Div, a, p), ab / lo)
            }
            3 => {
                let (a, ab) = self.fe(d);
                (FE::Neg(Box::new(a)), ab)
            }
            4 => {
                let name = *self.rng.pick(&["sin", "cos", "tanh", "atan", "asinh"]);
                let (a, ab) = self.receiver(d, 100.0);
                let b = match name {
                    "atan" => 1.58,
                    "asinh" => ab.asinh(),
                    _ => 1.0,
                };
                (self.unary(name, a), b)
            }
            5 => {
                let name = *self.rng.pick(&["exp", "exp2", "exp_m1", "sinh", "cosh"]);
                let (a, ab) = self.receiver(d, EXP_ARG);
                let b = match name {
                    "exp2" => ab.exp2(),
                    _ => ab.exp(),
                };
                (self.unary(name, a), b)
            }
            6 => {
                let (p, lo, hi) = self.pos(d);
                match self.rng.below(8) {
                    0 => (self.unary("sqrt", p), hi.sqrt()),
                    1 => (self.unary("cbrt", p), hi.cbrt()),
                    2 => (self.unary("ln", p), hi.ln().abs().max(lo.ln().abs())),
                    3 => (self.unary("log2", p), hi.log2().abs().max(lo.log2().abs())),
                    4 => (
                        self.unary("log10", p),
                        hi.log10().abs().max(lo.log10().abs()),
                    ),
                    5 => {
                        let base = *self.rng.pick(&[2.5, 3.0, 10.0]);
                        let b = (hi.ln().abs().max(lo.ln().abs())) / f64::ln(base);
                        (FE::WithLit("log", Box::new(p), base), b)
                    }
                    6 => (self.unary("recip", p), 1.0 / lo),
                    _ => {
                        let e = *self.rng.pick(&[0.5, 1.5, -0.5, 2.5, 0.3]);
                        let b = hi.powf(e).max(lo.powf(e));
                        (FE::WithLit("powf", Box::new(p), e), b)
                    }
                }
            }
            7 => {
                let (a, ab) = self.receiver(d, 8.0);
                // ln_1p(e^2) and ln_1p(0.5 tanh e): arguments above -1.
                if self.rng.chance(0.5) {
                    (
                        self.unary("ln_1p", FE::Powi(Box::new(a), 2)),
                        (ab * ab).ln_1p(),
                    )
                } else {
                    let t = bin(BinOp::Mul, FE::Lit(0.5), un("tanh", a));
                    (self.unary("ln_1p", t), 0.7)
                }
            }
            8 => {
                let (a, _) = self.receiver(d, 100.0);
                let name = *self.rng.pick(&["asin", "acos", "atanh"]);
                let inner = bin(
                    BinOp::Mul,
                    FE::Lit(0.9),
                    un(if self.rng.chance(0.5) { "tanh" } else { "sin" }, a),
                );
                (self.unary(name, inner), 3.15)
            }
            9 => {
                let (a, ab) = self.receiver(d, 8.0);
                let arg = bin(BinOp::Add, FE::Lit(1.5), FE::Powi(Box::new(a), 2));
                (self.unary("acosh", arg), (1.5 + ab * ab).acosh())
            }
            10 => {
                if self.rng.chance(0.7) {
                    let k = self.rng.range(0, 3) as i32;
                    let (a, ab) = self.receiver(d, 2.0);
                    (FE::Powi(Box::new(a), k), ab.powi(k))
                } else {
                    let (p, lo, _) = self.pos(d);
                    let k = -(self.rng.range(1, 2) as i32);
                    (FE::Powi(Box::new(p), k), lo.powi(k))
                }
            }
            11 => {
                let (p, lo, hi) = self.pos(d);
                let (p, _) = if hi > 3.0 {
                    // Keep the base in [lo, 3] and so the power bounded.
                    let q = bin(BinOp::Add, FE::Lit(2.0), un("sin", p));
                    (q, 3.0)
                } else {
                    (p, hi)
                };
                let _ = lo;
                let (e, _) = self.fe_capped(d, 2.0);
                (FE::Binary("powf", Box::new(p), Box::new(e)), 9.0)
            }
            12 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (p, _, hi) = self.pos(d);
                if self.rng.chance(0.5) {
                    (FE::Binary("atan2", Box::new(a), Box::new(p)), 1.58)
                } else {
                    (FE::Binary("hypot", Box::new(a), Box::new(p)), ab + hi)
                }
            }
            13 => {
                let name = *self.rng.pick(&[
                    "abs",
                    "signum",
                    "floor",
                    "ceil",
                    "round",
                    "round_ties_even",
                    "trunc",
                    "fract",
                ]);
                // `num_traits::Float` has no `round_ties_even`.
                let name = if self.generic && name == "round_ties_even" {
                    "round"
                } else {
                    name
                };
                let (a, ab) = self.receiver(d, 50.0);
                let b = match name {
                    "signum" | "fract" => 1.0,
                    "abs" => ab,
                    _ => ab + 1.0,
                };
                (self.unary(name, a), b)
            }
            14 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (b, bb) = self.fe(d);
                let name = if self.rng.chance(0.5) { "min" } else { "max" };
                (FE::Binary(name, Box::new(a), Box::new(b)), ab.max(bb))
            }
            15 => {
                let (a, _) = self.receiver(d, 50.0);
                let lo = *self.rng.pick(&[-1.5, -0.5, 0.0, -2.0]);
                let hi = *self.rng.pick(&[0.5, 1.0, 2.5]);
                (FE::Clamp(Box::new(a), lo, hi), 2.5)
            }
            16 => {
                let (a, ab) = self.receiver(d, 50.0);
                let (b, _) = self.fe(d);
                (FE::Binary("copysign", Box::new(a), Box::new(b)), ab)
            }
            17 => {
                let (a, ab) = self.receiver(d, 8.0);
                let (b, bb) = self.fe_capped(d, 8.0);
                let (c, cb) = self.fe(d);
                (
                    FE::MulAdd(Box::new(a), Box::new(b), Box::new(c)),
                    ab * bb + cb,
                )
            }
            18 => {
                if self.rng.chance(0.5) {
                    let (a, ab) = self.receiver(d, 1.0);
                    (self.unary("to_degrees", a), ab * 57.3)
                } else {
                    let (a, ab) = self.receiver(d, 100.0);
                    (self.unary("to_radians", a), ab / 57.0)
                }
            }
            19 => {
                let (a, _) = self.fe(d);
                let m = *self.rng.pick(&[1.5, 2.0, 0.75]);
                (FE::Rem(Box::new(a), m), m)
            }
            20 => self.call_expr(d).unwrap_or_else(|| self.leaf()),
            21 => {
                let c = self.cond(d);
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                (FE::If(Box::new(c), Box::new(a), Box::new(b)), ab.max(bb))
            }
            22 => {
                let (scrutinee, pats) = self.scrutinee(d, true);
                let mut arms = Vec::new();
                let mut bound: f64 = 0.0;
                for p in pats {
                    let (e, b) = self.fe(d);
                    bound = bound.max(b);
                    arms.push((p, e));
                }
                (FE::Match(Box::new(scrutinee), arms), bound)
            }
            23 => {
                let (a, _) = self.receiver(d, 1.2);
                (self.unary("tan", a), 2.6)
            }
            24 => {
                let (init, ib) = self.fe_capped(d, 16.0);
                let name = self.fresh("b");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: ib,
                    base: ib,
                    spent: 0.0,
                    mutable: false,
                });
                let (v, vb) = self.fe(d);
                self.floats.pop();
                (FE::Block(name, Box::new(init), Box::new(v)), vb)
            }
            25 => {
                let c = self.cond(d);
                let (a, ab) = self.fe(d);
                let (b, bb) = self.fe(d);
                (
                    FE::MatchBool(Box::new(c), Box::new(a), Box::new(b)),
                    ab.max(bb),
                )
            }
            26 => {
                // A base in [1, 3] and an exponent in [-2, 3].
                let (p, _, _) = self.pos(d);
                let base = bin(BinOp::Add, FE::Lit(2.0), un("sin", p));
                let n = self.rng.pick(&self.exponents).clone();
                (FE::PowiVar(Box::new(base), n), 27.0)
            }
            27 => self.match_pair(d),
            32 => self.method_call(d).unwrap_or_else(|| self.leaf()),
            28 => self.chain_expr(d),
            31 => self.match_opt(d),
            30 => {
                let g = self.rng.pick(&self.fn_params).clone();
                let (a, _) = self.fe_capped(d, PARAM_CAP);
                (FE::CallClosure(g, Box::new(a)), RET_CAP)
            }
            _ => {
                let (h, b) = self.rng.pick(&self.closures).clone();
                let (a, _) = self.fe_capped(d, PARAM_CAP);
                (FE::CallClosure(h, Box::new(a)), b)
            }
        }
    }

    /// `match (a, b) { (x, y) if guard => .., (x, _) => .. }` (or over `[a, b]`): the arms
    /// read the floats the patterns bind.
    fn match_pair(&mut self, d: usize) -> (FE, f64) {
        // Typed operands, so that the bindings have a type their methods can be found on.
        let (a, ab) = self.receiver(d, 8.0);
        let (b, bb) = self.receiver(d, 8.0);
        let (x, y) = (self.fresh("m"), self.fresh("m"));
        for (n, c) in [(&x, ab), (&y, bb)] {
            self.floats.push(FVar {
                name: n.clone(),
                read: FE::Var(n.clone()),
                cap: c,
                base: c,
                spent: 0.0,
                mutable: false,
            });
        }
        let arr = self.rng.chance(0.4);
        // `p @ (x, y)`: the first arm may read the pair whole, as `p.0` and `p.1`.
        let at = (!arr && self.rng.chance(0.5)).then(|| self.fresh("p"));
        let mark = self.floats.len();
        if let Some(p) = &at {
            for (k, c) in [ab, bb].into_iter().enumerate() {
                self.floats.push(FVar {
                    name: format!("{p}.{k}"),
                    read: FE::Field(p.clone(), k),
                    cap: c,
                    base: c,
                    spent: 0.0,
                    mutable: false,
                });
            }
        }
        let guard = self.cond(0);
        let (first, fb) = self.fe(d);
        let (first, fb) = match &at {
            Some(p) => {
                let k = self.rng.below(2);
                let read = FE::Field(p.clone(), k);
                let (first, fb) = self.squash(first, fb, 4.0);
                (bin(BinOp::Add, read, first), fb + ab.max(bb))
            }
            None => (first, fb),
        };
        self.floats.truncate(mark);
        self.floats.pop();
        let (second, sb) = self.fe(d);
        self.floats.pop();
        let e = FE::MatchPair {
            arr,
            at,
            a: Box::new(a),
            b: Box::new(b),
            x,
            y,
            guard: Box::new(guard),
            first: Box::new(first),
            second: Box::new(second),
        };
        (e, fb.max(sb))
    }

    pub(super) fn unary(&mut self, name: &'static str, arg: FE) -> FE {
        FE::Unary {
            name,
            arg: Box::new(arg),
            path: self.rng.chance(0.1),
        }
    }
}
