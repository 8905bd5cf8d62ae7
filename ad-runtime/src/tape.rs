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

    /// Pushes a value. One of a fixed number of words, at most `GATHER`, is gathered first and
    /// goes on in one piece: one capacity test (and one call of the allocator that the compiler
    /// must keep registers across) and one length update for the value, not one per word.
    #[inline(always)]
    pub fn push<T: Tapeable>(&mut self, value: T) {
        match T::WORDS {
            Some(words) if words <= GATHER => {
                self.words.extend(gather(value).words().iter().copied());
            }
            _ => value.push_to(self),
        }
    }

    /// Makes room for `words` more words, for a loop whose pushes are then made with
    /// [`push_reserved`](Self::push_reserved).
    #[inline]
    pub fn reserve(&mut self, words: usize) {
        self.words.reserve(words);
    }

    /// Pushes `value` into room [`reserve`](Self::reserve) made, if its type takes a fixed
    /// number of words (counted in the room); otherwise as [`push`](Self::push) does.
    #[inline(always)]
    pub fn push_reserved<T: Tapeable>(&mut self, value: T) {
        if T::WORDS.is_some() {
            value.push_to(&mut Reserved(self));
        } else {
            value.push_to(self);
        }
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

/// Where [`Tapeable::push_to`] writes a value's words: the tape itself, room made on it
/// beforehand ([`Tape::push_reserved`]), or a record gathered on the stack before it goes on in
/// one piece ([`Tape::push`]).
pub trait Sink {
    /// Writes one word.
    fn word(&mut self, word: u64);
    /// Writes words in order, as many `word`s would.
    #[inline(always)]
    fn words(&mut self, words: impl ExactSizeIterator<Item = u64>) {
        for w in words {
            self.word(w);
        }
    }
}

impl Sink for Tape {
    #[inline(always)]
    fn word(&mut self, word: u64) {
        self.push_word(word);
    }
    /// In one extension: a `Vec` of floats kept for the reverse sweep (a call's slice argument
    /// or result) is copied in bulk rather than word by word.
    #[inline(always)]
    fn words(&mut self, words: impl ExactSizeIterator<Item = u64>) {
        self.words.extend(words);
    }
}

/// The most words a value may take to be gathered before it goes on the tape
/// ([`Tape::push`]): a generated record is a few operands.
///
/// Measured and not kept: taking a record off in one piece as well (it sped up a pullback's
/// reverse sweep by about 8% but slowed each call between differentiable functions in reverse
/// mode by about 2 ns: the dispatch benchmark's tiny callee, 7 ns to 10 ns a call), and
/// gathering the records of a loop that made room on the tape ([`Tape::push_reserved`], whose
/// test per word ends in a panic, not in a call: GMM's gradient was 2% to 8% slower).
pub const GATHER: usize = 16;

/// A value's words, gathered on the stack before they go on the tape.
struct Gather {
    words: [u64; GATHER],
    len: usize,
}

impl Gather {
    /// The words gathered.
    #[inline(always)]
    fn words(&self) -> &[u64] {
        &self.words[..self.len]
    }
}

/// The words of `value`, which takes at most [`GATHER`].
#[inline(always)]
fn gather<T: Tapeable>(value: T) -> Gather {
    let mut gathered = Gather {
        words: [0; GATHER],
        len: 0,
    };
    value.push_to(&mut gathered);
    gathered
}

impl Sink for Gather {
    #[inline(always)]
    fn word(&mut self, word: u64) {
        self.words[self.len] = word;
        self.len += 1;
    }
}

/// The tape, for words that [`Tape::reserve`] made room for.
struct Reserved<'a>(&'a mut Tape);

impl Sink for Reserved<'_> {
    /// A word that has room: the capacity test ends in a panic, never in an allocation, so the
    /// push is no call that returns (across which a loop's float registers would not survive,
    /// and which made the compiler keep a loop's running sum on the stack).
    #[inline(always)]
    fn word(&mut self, word: u64) {
        let words = &mut self.0.words;
        if words.len() == words.capacity() {
            no_room();
        }
        words.push(word);
    }
}

#[cold]
#[inline(never)]
fn no_room() -> ! {
    unreachable!("ad: a loop pushed more words than it made room for")
}

/// A value that can be stored on the [`Tape`].
#[diagnostic::on_unimplemented(
    message = "#[differentiable] cannot keep a `{Self}` for the reverse sweep",
    note = "the reverse sweep keeps the values it needs that it cannot compute again; a slice held constant (`ad::Const<&[T]>`) is read again where it is a parameter the function does not assign, or a local bound once to one: pass that rather than a local assigned again"
)]
pub trait Tapeable: Sized {
    /// How many words the value takes, if every value of the type takes the same number.
    const WORDS: Option<usize>;
    /// Pushes the value.
    fn push_to<S: Sink>(self, tape: &mut S);
    /// Pops a value pushed with `push_to`.
    fn pop_from(tape: &mut Tape) -> Self;
    /// Pushes the elements of a `Vec`, in order (one by one, unless the type does better).
    #[doc(hidden)]
    #[inline]
    fn push_all<S: Sink>(items: Vec<Self>, tape: &mut S) {
        for x in items {
            x.push_to(tape);
        }
    }
    /// Pops `len` elements pushed by [`push_all`](Tapeable::push_all), in order.
    #[doc(hidden)]
    #[inline]
    fn pop_all(tape: &mut Tape, len: usize) -> Vec<Self> {
        let mut v: Vec<Self> = (0..len).map(|_| Self::pop_from(tape)).collect();
        v.reverse();
        v
    }
}

impl Tape {
    /// The last `len` words, taken off the tape in the order they were pushed.
    #[inline]
    fn take_words<T>(&mut self, len: usize, from: impl Fn(u64) -> T) -> Vec<T> {
        let start = self
            .words
            .len()
            .checked_sub(len)
            .expect("ad: the reverse sweep popped more than its forward sweep pushed");
        let v = self.words[start..].iter().map(|w| from(*w)).collect();
        self.words.truncate(start);
        v
    }
}

macro_rules! word_tapeable {
    ($($t:ty),*) => {$(
        impl Tapeable for $t {
            const WORDS: Option<usize> = Some(1);
            #[inline(always)]
            fn push_to<S: Sink>(self, tape: &mut S) {
                tape.word(self as u64);
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
            const WORDS: Option<usize> = Some(2);
            #[inline(always)]
            fn push_to<S: Sink>(self, tape: &mut S) {
                let bits = self as u128;
                tape.word(bits as u64);
                tape.word((bits >> 64) as u64);
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
    const WORDS: Option<usize> = Some(1);
    #[inline(always)]
    fn push_to<S: Sink>(self, tape: &mut S) {
        tape.word(self.to_bits());
    }
    #[inline(always)]
    fn pop_from(tape: &mut Tape) -> Self {
        f64::from_bits(tape.pop_word())
    }
    #[inline]
    fn push_all<S: Sink>(items: Vec<Self>, tape: &mut S) {
        tape.words(items.iter().map(|x| x.to_bits()));
    }
    #[inline]
    fn pop_all(tape: &mut Tape, len: usize) -> Vec<Self> {
        tape.take_words(len, f64::from_bits)
    }
}

impl Tapeable for f32 {
    const WORDS: Option<usize> = Some(1);
    #[inline(always)]
    fn push_to<S: Sink>(self, tape: &mut S) {
        tape.word(u64::from(self.to_bits()));
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        f32::from_bits(tape.pop_word() as u32)
    }
    #[inline]
    fn push_all<S: Sink>(items: Vec<Self>, tape: &mut S) {
        tape.words(items.iter().map(|x| u64::from(x.to_bits())));
    }
    #[inline]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_all(tape: &mut Tape, len: usize) -> Vec<Self> {
        tape.take_words(len, |w| f32::from_bits(w as u32))
    }
}

impl Tapeable for bool {
    const WORDS: Option<usize> = Some(1);
    #[inline(always)]
    fn push_to<S: Sink>(self, tape: &mut S) {
        tape.word(u64::from(self));
    }
    #[inline(always)]
    fn pop_from(tape: &mut Tape) -> Self {
        tape.pop_word() != 0
    }
}

impl Tapeable for char {
    const WORDS: Option<usize> = Some(1);
    #[inline(always)]
    fn push_to<S: Sink>(self, tape: &mut S) {
        tape.word(u64::from(u32::from(self)));
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        char::from_u32(tape.pop_word() as u32).expect("ad: a char on the tape")
    }
}

impl Tapeable for NoTangent {
    const WORDS: Option<usize> = Some(0);
    #[inline(always)]
    fn push_to<S: Sink>(self, _: &mut S) {}
    #[inline(always)]
    fn pop_from(_: &mut Tape) -> Self {
        NoTangent
    }
}

impl Tapeable for () {
    const WORDS: Option<usize> = Some(0);
    #[inline(always)]
    fn push_to<S: Sink>(self, _: &mut S) {}
    #[inline(always)]
    fn pop_from(_: &mut Tape) -> Self {}
}

macro_rules! tuple_tapeable {
    ($(($($T:ident $v:ident),+; $($R:ident $r:ident),+))*) => {$(
        impl<$($T: Tapeable),+> Tapeable for ($($T,)+) {
            const WORDS: Option<usize> = {
                let mut total = Some(0);
                $(total = match (total, $T::WORDS) {
                    (Some(t), Some(w)) => Some(t + w),
                    _ => None,
                };)+
                total
            };
            #[inline(always)]
            fn push_to<S: Sink>(self, tape: &mut S) {
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
// Up to sixteen elements: a call's record keeps its arguments as one tuple, and a function takes
// up to sixteen (`MAX_ARGS` in `ad-macros/src/signature.rs`).
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
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j; J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k; K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l; L l, K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m; M m, L l, K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n; N n, M m, L l, K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n, O o; O o, N n, M m, L l, K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n, O o, P p; P p, O o, N n, M m, L l, K k, J j, I i, H h, G g, F f, E e, D d, C c, B b, A a)
}

impl<T: Tapeable, const N: usize> Tapeable for [T; N] {
    const WORDS: Option<usize> = match T::WORDS {
        Some(w) => Some(w * N),
        None => None,
    };
    #[inline]
    fn push_to<S: Sink>(self, tape: &mut S) {
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

/// A type, kept for the reverse sweep: no words.
impl<T: ?Sized> Tapeable for core::marker::PhantomData<T> {
    const WORDS: Option<usize> = Some(0);
    #[inline(always)]
    fn push_to<S: Sink>(self, _: &mut S) {}
    #[inline(always)]
    fn pop_from(_: &mut Tape) -> Self {
        core::marker::PhantomData
    }
}

/// An `Option` goes on the tape as its payload, if any, followed by a word that says whether
/// it has one.
impl<T: Tapeable> Tapeable for Option<T> {
    const WORDS: Option<usize> = None;
    #[inline]
    fn push_to<S: Sink>(self, tape: &mut S) {
        let some = self.is_some();
        if let Some(x) = self {
            x.push_to(tape);
        }
        tape.word(u64::from(some));
    }
    #[inline]
    fn pop_from(tape: &mut Tape) -> Self {
        (tape.pop_word() != 0).then(|| T::pop_from(tape))
    }
}

/// A `Vec` goes on the tape as its elements followed by its length.
impl<T: Tapeable> Tapeable for Vec<T> {
    const WORDS: Option<usize> = None;
    #[inline]
    fn push_to<S: Sink>(self, tape: &mut S) {
        let len = self.len();
        T::push_all(self, tape);
        tape.word(len as u64);
    }
    #[inline]
    #[allow(clippy::cast_possible_truncation)]
    fn pop_from(tape: &mut Tape) -> Self {
        let len = tape.pop_word() as usize;
        T::pop_all(tape, len)
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

    #[test]
    fn vecs_of_floats_come_back_in_order_beside_other_values() {
        let mut tape = Tape::new();
        let a = vec![1.5_f64, -0.0, f64::INFINITY, 3.25];
        let b = vec![0.5_f32, -2.0];
        let c = vec![(1.0_f64, 2_u8), (3.0, 4)];
        tape.push(7_u32);
        tape.push(a.clone());
        tape.push((b.clone(), 9.5_f64));
        tape.push(c.clone());
        tape.push(Vec::<f64>::new());
        assert_eq!(tape.pop::<Vec<f64>>(), Vec::<f64>::new());
        assert_eq!(tape.pop::<Vec<(f64, u8)>>(), c);
        assert_eq!(tape.pop::<(Vec<f32>, f64)>(), (b, 9.5));
        let back: Vec<f64> = tape.pop();
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(tape.pop::<u32>(), 7);
        assert!(tape.is_empty());
    }

    #[test]
    fn values_on_either_side_of_the_gathered_size_come_back_whole() {
        let mut tape = Tape::new();
        let long: [f64; GATHER + 3] = core::array::from_fn(|k| k as f64 - 0.5);
        let widest = [(-1_i64, 2.5_f32); GATHER / 2]; // exactly GATHER words
        tape.push(7_u8);
        tape.push(long);
        tape.push((1.0_f64, vec![2.0_f64, 3.0]));
        tape.push(widest);
        tape.push(NoTangent);
        assert_eq!(tape.words.len(), 1 + (GATHER + 3) + 4 + GATHER);
        assert_eq!(tape.pop::<NoTangent>(), NoTangent);
        assert_eq!(tape.pop::<[(i64, f32); GATHER / 2]>(), widest);
        assert_eq!(tape.pop::<(f64, Vec<f64>)>(), (1.0, vec![2.0, 3.0]));
        assert_eq!(tape.pop::<[f64; GATHER + 3]>(), long);
        assert_eq!(tape.pop::<u8>(), 7);
        assert!(tape.is_empty());
    }

    #[test]
    #[should_panic(expected = "popped more than its forward sweep pushed")]
    fn popping_a_value_longer_than_the_tape_panics() {
        let mut tape = Tape::new();
        tape.push(1.0_f64);
        let _: (f64, f64) = tape.pop();
    }

    /// Pushes `value` both ways; checks its word count against `WORDS` and that both ways write
    /// the same words.
    fn words_of<T: Tapeable + Clone>(value: T) -> usize {
        let mut plain = Tape::new();
        plain.push(value.clone());
        let mut reserved = Tape::new();
        reserved.reserve(plain.words.len());
        let capacity = reserved.words.capacity();
        reserved.push_reserved(value);
        assert_eq!(reserved.words, plain.words);
        assert_eq!(reserved.words.capacity(), capacity, "no allocation");
        if let Some(words) = T::WORDS {
            assert_eq!(words, plain.words.len());
        }
        plain.words.len()
    }

    #[test]
    fn each_type_takes_the_words_it_says() {
        assert_eq!(words_of(1.5_f64), 1);
        assert_eq!(words_of(0.5_f32), 1);
        assert_eq!(words_of(-7_i8), 1);
        assert_eq!(words_of(usize::MAX), 1);
        assert_eq!(words_of(u128::MAX - 3), 2);
        assert_eq!(words_of(true), 1);
        assert_eq!(words_of('x'), 1);
        assert_eq!(words_of(NoTangent), 0);
        assert_eq!(words_of(()), 0);
        assert_eq!(words_of((1.0_f64, 2_u32, -3_i128)), 4);
        assert_eq!(words_of([(1.0_f64, 2.0_f64); 3]), 6);
        assert_eq!(<(f64, Vec<f64>)>::WORDS, None);
        assert_eq!(words_of((1.0_f64, vec![2.0_f64, 3.0])), 4);
    }

    #[test]
    #[should_panic(expected = "more words than it made room for")]
    fn a_push_past_the_room_made_panics() {
        let mut tape = Tape::new();
        tape.reserve(1);
        let capacity = tape.words.capacity();
        for k in 0..=capacity {
            tape.push_reserved(k);
        }
    }
}
