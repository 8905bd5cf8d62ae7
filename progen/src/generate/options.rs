//! `Option<f64>`s: parameters and results, `Some(e)` and `None` as arguments, `match` on
//! them with a guard, `.unwrap()` and `.expect(..)` where they are known to be `Some`, and
//! `.is_some()` / `.is_none()`.

use super::*;

impl Gen<'_> {
    /// An `Option<f64>` whose `Some` is bounded by `cap`: `Some(e)`, `None`, one chosen by a
    /// condition, a variable, or a call of a function that returns one.
    pub(super) fn opt_expr(&mut self, d: usize, cap: f64) -> OE {
        // Not inside a closure: it captures no `Option`.
        let vars: Vec<String> = self
            .opts
            .iter()
            .filter(|o| o.cap <= cap && !self.in_closure)
            .map(|o| o.name.clone())
            .collect();
        let calls = cap >= RET_CAP && !self.in_closure;
        match self.rng.weighted(&[
            4,
            4,
            if vars.is_empty() { 0 } else { 3 },
            if calls { 2 } else { 0 },
            2,
        ]) {
            0 => OE::Some(self.fe_capped(d, cap).0),
            1 => {
                let c = self.cond(d.min(1));
                let some = OE::Some(self.fe_capped(d, cap).0);
                let other = if !vars.is_empty() && self.rng.chance(0.3) {
                    OE::Var(self.rng.pick(&vars).clone())
                } else {
                    OE::None
                };
                if self.rng.chance(0.5) {
                    OE::If(Box::new(c), Box::new(some), Box::new(other))
                } else {
                    OE::If(Box::new(c), Box::new(other), Box::new(some))
                }
            }
            2 => OE::Var(self.rng.pick(&vars).clone()),
            3 => match self.opt_call(d) {
                Some((call, _)) => call,
                None => OE::Some(self.fe_capped(d, cap).0),
            },
            _ => OE::None,
        }
    }

    /// A call of an earlier function that returns `Option<f64>`, with the bound of its `Some`.
    fn opt_call(&mut self, d: usize) -> Option<(OE, f64)> {
        let idx = self.opt_callee()?;
        let params = self.funcs[idx].params.clone();
        let args = self.args(&params, d.min(1), 0.0)?;
        let f = &self.funcs[idx];
        Some((OE::Call(f.name.clone(), args), f.ret_bound))
    }

    /// `o.unwrap()` or `o.expect("..")` of an `Option` known to be `Some` here.
    pub(super) fn unwrap_read(&mut self) -> Option<(FE, f64)> {
        if self.in_closure {
            return None;
        }
        let some: Vec<OVar> = self.opts.iter().filter(|o| o.some).cloned().collect();
        if some.is_empty() {
            return None;
        }
        let o = self.rng.pick(&some).clone();
        Some((FE::Unwrap(o.name, self.rng.chance(0.4)), o.cap))
    }

    /// `e` made to read the float `var` (bounded by `cap`) if it does not already.
    fn reading(&mut self, var: &str, cap: f64, e: FE, b: f64) -> (FE, f64) {
        let text = crate::print::Printer::new(crate::print::Flavor::Ad, self.funcs).fe(&e);
        if text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == var)
        {
            return (e, b);
        }
        if self.rng.chance(0.5) {
            (bin(BinOp::Add, FE::Var(var.to_string()), e), cap + b)
        } else {
            let (e, b) = self.squash(e, b, 2.0);
            (bin(BinOp::Mul, FE::Var(var.to_string()), e), cap * b)
        }
    }

    /// `match o { Some(g) if guard => .., Some(v) => .., None => .. }` of an `Option` variable
    /// or of a call that returns one; the arms with a binding read it.
    pub(super) fn match_opt(&mut self, d: usize) -> (FE, f64) {
        let vars = self.opts.clone();
        let (scrut, cap) = if !vars.is_empty() && self.rng.chance(0.7) {
            let o = self.rng.pick(&vars).clone();
            (OE::Var(o.name), o.cap)
        } else if let Some(c) = self.opt_call(d) {
            c
        } else if let Some(o) = vars.first() {
            (OE::Var(o.name.clone()), o.cap)
        } else {
            return self.leaf();
        };
        let mut bound: f64 = 0.0;
        let mut arm = |g: &mut Self, name: &String, guard: bool| {
            g.floats.push(FVar {
                name: name.clone(),
                read: FE::Var(name.clone()),
                cap,
                base: cap,
                spent: 0.0,
                mutable: false,
            });
            let c = guard.then(|| g.cond(0));
            let (e, b) = g.fe(d);
            let (e, b) = g.reading(name, cap, e, b);
            g.floats.pop();
            bound = bound.max(b);
            (c, e)
        };
        let guarded = if self.rng.chance(0.5) {
            let name = self.fresh("s");
            let (c, e) = arm(self, &name, true);
            Some((name, Box::new(c.unwrap()), Box::new(e)))
        } else {
            None
        };
        let var = self.fresh("s");
        let (_, some) = arm(self, &var, false);
        let (none, nb) = self.fe(d);
        let e = FE::MatchOpt {
            scrut: Box::new(scrut),
            guarded,
            var,
            some: Box::new(some),
            none: Box::new(none),
        };
        (e, bound.max(nb))
    }
}
