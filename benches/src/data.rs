//! Deterministic random inputs: a SplitMix64 generator, uniform and normal (Box-Muller)
//! variates. The distributions are ADBench's; the stream is not bit-identical to ADBench's C++
//! generator, which does not matter for timing.

/// SplitMix64: small, fast, and good enough for benchmark inputs.
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on [0, 1).
    pub fn uniform(&mut self) -> f64 {
        // The top 53 bits, exactly representable.
        #[allow(clippy::cast_precision_loss)]
        let u = (self.next_u64() >> 11) as f64;
        u * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal.
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // in (0, 1], so ln is finite
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// `n` standard normals.
    pub fn normals(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.normal()).collect()
    }

    /// `n` uniforms on [0, 1).
    pub fn uniforms(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.uniform()).collect()
    }
}
