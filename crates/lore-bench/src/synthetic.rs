//! Deterministic pseudo-random unit vectors: the stand-in for embeddings wherever only the
//! cost of a vector search is measured (it does not depend on what the vectors mean).

/// xorshift64: small, deterministic, good enough for synthetic vectors.
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// A unit vector of `dim` dimensions. `lean` is added to every fifth coordinate before
    /// normalising: 0 gives uniform directions, a little more clusters them the way real
    /// embeddings are clustered (so nearest neighbours are not all ties).
    pub(crate) fn unit_vector(&mut self, dim: usize, lean: f32) -> Vec<f32> {
        loop {
            let v: Vec<f32> = (0..dim)
                .map(|d| self.next_f32() + if d % 5 == 0 { lean } else { 0.0 })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 1e-6 {
                return v.into_iter().map(|x| x / norm).collect();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_vectors_are_unit_and_deterministic() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        for lean in [0.0, 0.6] {
            for _ in 0..100 {
                let v = a.unit_vector(lore_embed::DIM, lean);
                assert_eq!(v.len(), lore_embed::DIM);
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                assert!((norm - 1.0).abs() < 1e-5, "{norm}");
                assert_eq!(v, b.unit_vector(lore_embed::DIM, lean));
            }
        }
        let mut r = XorShift::new(0);
        for _ in 0..1000 {
            let x = r.next_f32();
            assert!((-1.0..1.0).contains(&x));
        }
    }
}
