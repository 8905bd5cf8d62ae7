//! Index expressions and their ranges: every index is inside its array by construction.

use super::*;

pub(super) fn irange(ie: &IE, g: &Gen) -> (usize, usize) {
    match ie {
        IE::Lit(n) => (*n, *n),
        IE::Var(v) => g
            .ints
            .iter()
            .rev()
            .find(|i| &i.name == v)
            .map(|i| (i.lo, i.hi))
            .expect("index variable in scope"),
        IE::Len(a) => {
            let n = g.arrays.iter().rev().find(|x| &x.name == a).unwrap().len;
            (n, n)
        }
        IE::Add(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0.saturating_add(b.0), a.1.saturating_add(b.1))
        }
        IE::Sub(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0 - b.1, a.1 - b.0)
        }
        IE::Mul(a, b) => {
            let (a, b) = (irange(a, g), irange(b, g));
            (a.0.saturating_mul(b.0), a.1.saturating_mul(b.1))
        }
        IE::Div(a, k) => {
            let a = irange(a, g);
            (a.0 / k, a.1 / k)
        }
        IE::Rem(a, k) => {
            let a = irange(a, g);
            if a.1 < *k { a } else { (0, k - 1) }
        }
        // Unbounded: only ever under a `%`, which bounds it.
        IE::FromFloat(_) => (0, usize::MAX / 4),
    }
}

impl Gen<'_> {
    /// Some index expression, of any range (for conditions and the subjects of `match`es,
    /// an integer field of a struct among them: `match s.n { 0 => .., _ => .. }`).
    pub(super) fn any_index(&mut self, d: usize) -> IE {
        let ints: Vec<IVar> = self.ints.clone();
        if self.generic && ints.is_empty() {
            return IE::Lit(self.rng.range(0, 5));
        }
        if !self.generic && (ints.is_empty() || self.rng.chance(0.15)) {
            let (e, _) = self.receiver(d, 50.0);
            return IE::Rem(
                Box::new(IE::FromFloat(Box::new(bin(
                    BinOp::Mul,
                    un("abs", e),
                    FE::Lit(2.0),
                )))),
                7,
            );
        }
        let v = self.rng.pick(&ints).clone();
        IE::Var(v.name)
    }

    /// An index in `0..len`.
    pub(super) fn index(&mut self, len: usize) -> IE {
        let ie = match self.rng.weighted(&[2, 6, 2, 2, 1, 1, 1]) {
            0 => IE::Lit(self.rng.below(len)),
            1 if !self.ints.is_empty() => IE::Var(self.rng.pick(&self.ints).name.clone()),
            2 if !self.ints.is_empty() => {
                let v = self.rng.pick(&self.ints).clone();
                let k = self.rng.range(1, 2);
                if v.lo >= k && self.rng.chance(0.5) {
                    IE::Sub(Box::new(IE::Var(v.name)), Box::new(IE::Lit(k)))
                } else {
                    IE::Add(Box::new(IE::Var(v.name)), Box::new(IE::Lit(k)))
                }
            }
            3 if !self.ints.is_empty() => {
                let v = self.rng.pick(&self.ints).clone();
                if v.hi < len {
                    IE::Sub(Box::new(IE::Lit(len - 1)), Box::new(IE::Var(v.name)))
                } else {
                    IE::Div(Box::new(IE::Var(v.name)), 2)
                }
            }
            4 if self.ints.len() >= 2 => {
                let a = self.rng.pick(&self.ints).clone();
                let b = self.rng.pick(&self.ints).clone();
                let k = self.rng.range(1, 3);
                IE::Add(
                    Box::new(IE::Mul(Box::new(IE::Var(a.name)), Box::new(IE::Lit(k)))),
                    Box::new(IE::Var(b.name)),
                )
            }
            // Not in a generic function: `as usize` does not apply to a `T`, and the macro
            // rejects `e.to_usize()` on a value with a derivative.
            5 if !self.generic => {
                let (e, _) = self.receiver(0, 50.0);
                IE::FromFloat(Box::new(bin(BinOp::Mul, un("abs", e), FE::Lit(2.0))))
            }
            6 if !self.arrays.is_empty() => {
                let a = self.rng.pick(&self.arrays).clone();
                if a.len <= len && (a.kind != AKind::Window || a.len >= 2) {
                    IE::Sub(Box::new(IE::Len(a.name)), Box::new(IE::Lit(1)))
                } else {
                    IE::Lit(0)
                }
            }
            _ => IE::Lit(self.rng.below(len)),
        };
        let fits = !matches!(ie, IE::FromFloat(_)) && irange(&ie, self).1 < len;
        if fits { ie } else { IE::Rem(Box::new(ie), len) }
    }
}
