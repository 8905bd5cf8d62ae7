//! The tape of reverse mode: a stack of 64-bit words that the forward sweep of a gradient pushes
//! what its reverse sweep needs onto, and the reverse sweep pops in the opposite order.
//!
//! Values are stored by [`Tapeable`]: floats and integers as their bits, tuples element by
//! element, `NoTangent` as nothing. One tape per thread is reused across gradients, so a warm
//! gradient allocates nothing.

use crate::tangent::NoTangent;

/// A stack of words, reused across gradients.
#[derive(Debug, Default)]
pub struct Tape {
    words: Vec<u64>,
    /// The most words the tape held since it was last cleared.
    high: usize,
}

impl Clone for Tape {
    fn clone(&self) -> Self {
        Tape {
            words: self.words.clone(),
            high: self.high,
        }
    }

    /// Reuses this tape's buffer.
    fn clone_from(&mut self, source: &Self) {
        self.words.clone_from(&source.words);
        self.high = source.high;
    }
}

impl Tape {
    /// An empty tape.
    pub fn new() -> Self {
        Tape::default()
    }

    /// Pushes a value.
    #[inline(always)]
    pub fn push<T: Tapeable>(&mut self, value: T) {
        value.push_to(self);
    }

    /// Pops the value pushed last; its type must be the one pushed.
    #[inline(always)]
    pub fn pop<T: Tapeable>(&mut self) -> T {
        T::pop_from(self)
    }

    /// Pops a value of the type that `like` would hold: generated code names a type this way.
    #[inline(always)]
    pub fn pop_like<T: Tapeable>(&mut self, _like: &Option<T>) -> T {
        T::pop_from(self)
    }

    #[inline(always)]
    fn push_word(&mut self, word: u64) {
        self.words.push(word);
    }

    /// Notes the words held now towards [`high_water`](Self::high_water). The tape is at its
    /// highest where a reverse sweep starts to pop, so each reverse sweep calls this as it
    /// starts, rather than every push comparing.
    #[inline(always)]
    pub fn note_high_water(&mut self) {
        self.high = self.high.max(self.words.len());
    }

    /// The most words the tape held since it was last cleared, as noted where reverse sweeps
    /// start.
    pub fn high_water(&self) -> usize {
        self.high.max(self.words.len())
    }

    #[inline(always)]
    fn pop_word(&mut self) -> u64 {
        self.words
            .pop()
            .expect("ad: the reverse sweep popped more than its forward sweep pushed")
    }

    /// Whether the tape is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.words.clear();
        self.high = 0;
    }
}

/// A value that can be stored on the [`Tape`].
pub trait Tapeable: Sized {
    /// Pushes the value.
    fn push_to(self, tape: &mut Tape);
    /// Pops a value pushed with `push_to`.
    fn pop_from(tape: &mut Tape) -> Self;
}

macro_rules! word_tapeable {
    ($($t:ty),*) => {$(
        impl Tapeable for $t {
            #[inline(always)]
            fn push_to(self, tape: &mut Tape) {
                tape.push_word(self as u64);
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, clippy::cast_sign_loss)]
            fn pop_from(tape: &mut Tape) -> Self {
                tape.pop_word() as $t
            }
        }
    )*};
}
word_tapeable!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! wide_tapeable {
    ($($t:ty),*) => {$(
        impl Tapeable for $t {
            #[inline(always)]
            fn push_to(self, tape: &mut Tape) {
                let bits = self as u128;
                tape.push_word(bits as u64);
                tape.push_word((bits >> 64) as u64);
            }
            #[inline(always)]
            fn pop_from(tape: &mut Tape) -> Self {
                let high = u128::from(tape.pop_word());
                let low = u128::from(tape.pop_word());
                ((high << 64) | low) as $t
            }
        }
    )*};
}
wide_tapeable!(i128, u128);

impl Tapeable for f64 {
    #[inline(always)]
    fn push_to(self, tape: &mut Tape) {
        tape.push_word(self.to_bits());
    }
    #[inline(always)]
    fn pop_from(tape: &mut Tape) -> Self {
        f64::from_bits(tape.pop_word())
    }
}

impl Tapeable for f32 {
    #[inline(always)]
    fn push_to(self, tape: &mut Tape) {
        tape.push_word(u64::from(self.to_bits()));
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        f32::from_bits(tape.pop_word() as u32)
    }
}

impl Tapeable for bool {
    #[inline(always)]
    fn push_to(self, tape: &mut Tape) {
        tape.push_word(u64::from(self));
    }
    #[inline(always)]
    fn pop_from(tape: &mut Tape) -> Self {
        tape.pop_word() != 0
    }
}

impl Tapeable for char {
    #[inline(always)]
    fn push_to(self, tape: &mut Tape) {
        tape.push_word(u64::from(u32::from(self)));
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        char::from_u32(tape.pop_word() as u32).expect("ad: a char on the tape")
    }
}

impl Tapeable for NoTangent {
    #[inline(always)]
    fn push_to(self, _: &mut Tape) {}
    #[inline(always)]
    fn pop_from(_: &mut Tape) -> Self {
        NoTangent
    }
}

impl Tapeable for () {
    #[inline(always)]
    fn push_to(self, _: &mut Tape) {}
    #[inline(always)]
    fn pop_from(_: &mut Tape) -> Self {}
}

macro_rules! tuple_tapeable {
    ($(($($T:ident $v:ident),+; $($R:ident $r:ident),+))*) => {$(
        impl<$($T: Tapeable),+> Tapeable for ($($T,)+) {
            #[inline(always)]
            fn push_to(self, tape: &mut Tape) {
                let ($($v,)+) = self;
                $($v.push_to(tape);)+
            }
            #[inline(always)]
            fn pop_from(tape: &mut Tape) -> Self {
                // Popped in the opposite order of the pushes.
                $(let $r = $R::pop_from(tape);)+
                ($($v,)+)
            }
        }
    )*};
}
tuple_tapeable! {
    (A a; A a)
    (A a, B b; B b, A a)
    (A a, B b, C c; C c, B b, A a)
    (A a, B b, C c, D d; D d, C c, B b, A a)
    (A a, B b, C c, D d, E e; E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f; F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g; G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h; H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i; I i, H h, G g, F f, E e, D d, C c, B b, A a)
}

impl<T: Tapeable, const N: usize> Tapeable for [T; N] {
    #[inline]
    fn push_to(self, tape: &mut Tape) {
        for x in self {
            x.push_to(tape);
        }
    }
    #[inline]
    fn pop_from(tape: &mut Tape) -> Self {
        // The last element comes off first.
        let mut popped: [T; N] = core::array::from_fn(|_| T::pop_from(tape));
        popped.reverse();
        popped
    }
}

/// A `Vec` goes on the tape as its elements followed by its length.
impl<T: Tapeable> Tapeable for Vec<T> {
    #[inline]
    fn push_to(self, tape: &mut Tape) {
        let len = self.len();
        for x in self {
            x.push_to(tape);
        }
        tape.push_word(len as u64);
    }
    #[inline]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        let len = tape.pop_word() as usize;
        let mut v: Vec<T> = (0..len).map(|_| T::pop_from(tape)).collect();
        v.reverse();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_in_reverse_order_and_bit_exact() {
        let mut tape = Tape::new();
        tape.push(1.5_f64);
        tape.push((-3_i32, 0.25_f32, true));
        tape.push(u128::MAX - 7);
        tape.push(f64::NAN);
        assert!(tape.pop::<f64>().is_nan());
        assert_eq!(tape.pop::<u128>(), u128::MAX - 7);
        assert_eq!(tape.pop::<(i32, f32, bool)>(), (-3, 0.25, true));
        assert_eq!(tape.pop::<f64>(), 1.5);
        assert!(tape.is_empty());
    }
}
