//! Exact cosine search over a contiguous row-major matrix of unit vectors.
//!
//! The snapshot file is derived from the catalog after each index run (write to a temp file,
//! then rename), so readers always see a whole file. Layout, little-endian:
//! `b"LOREVEC1"`, dim: u32, reserved: u32, count: u64, generation: i64,
//! then `count` ids (i64, ascending), then `count * dim` f32.

use crate::IndexError;
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"LOREVEC1";
const HEADER: usize = 32;

pub struct VectorSet {
    dim: usize,
    generation: i64,
    ids: Vec<i64>,
    data: Vec<f32>,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> IndexError + '_ {
    move |e| IndexError::Io(path.display().to_string(), e)
}

/// Dot product with eight independent accumulators so the loop vectorizes.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, ra) = a.as_chunks::<8>();
    let (cb, rb) = b.as_chunks::<8>();
    for (x, y) in ca.iter().zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

impl VectorSet {
    pub fn empty(dim: usize) -> VectorSet {
        VectorSet {
            dim,
            generation: -1,
            ids: Vec::new(),
            data: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    pub fn generation(&self) -> i64 {
        self.generation
    }
    /// The chunk ids it holds, ascending.
    pub fn ids(&self) -> &[i64] {
        &self.ids
    }

    /// Reads a snapshot; `Ok(None)` when the file does not exist. The matrix is read
    /// straight into its final buffer (no second copy of the file in memory).
    pub fn load(path: &Path) -> Result<Option<VectorSet>, IndexError> {
        let mut file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(path)(e)),
        };
        let corrupt = || IndexError::Corrupt(path.display().to_string());
        let len = file.metadata().map_err(io(path))?.len() as usize;
        let mut header = [0u8; HEADER];
        if len < HEADER {
            return Err(corrupt());
        }
        file.read_exact(&mut header).map_err(io(path))?;
        let field = |o: usize, n: usize| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&header[o..o + n]);
            u64::from_le_bytes(b)
        };
        let dim = field(8, 4) as usize;
        let count = field(16, 8) as usize;
        let generation = field(24, 8) as i64;
        let expected = count
            .checked_mul(8 + dim * 4)
            .and_then(|n| n.checked_add(HEADER))
            .ok_or_else(corrupt)?;
        if &header[..8] != MAGIC || len != expected || dim == 0 {
            return Err(corrupt());
        }
        let mut ids = vec![0i64; count];
        file.read_exact(bytemuck::cast_slice_mut(&mut ids))
            .map_err(io(path))?;
        let mut data = vec![0f32; count * dim];
        file.read_exact(bytemuck::cast_slice_mut(&mut data))
            .map_err(io(path))?;
        if cfg!(target_endian = "big") {
            ids.iter_mut().for_each(|x| *x = i64::from_le(*x));
            data.iter_mut()
                .for_each(|x| *x = f32::from_bits(u32::from_le(x.to_bits())));
        }
        Ok(Some(VectorSet {
            dim,
            generation,
            ids,
            data,
        }))
    }

    /// Writes a snapshot atomically from `(id, vector)` rows given in ascending id order.
    pub fn write(
        path: &Path,
        dim: usize,
        generation: i64,
        rows: &[(i64, Vec<f32>)],
    ) -> Result<(), IndexError> {
        let tmp = path.with_extension("tmp");
        let file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        let mut w = std::io::BufWriter::new(file);
        let mut put = |bytes: &[u8]| w.write_all(bytes).map_err(io(&tmp));
        put(MAGIC)?;
        put(&(dim as u32).to_le_bytes())?;
        put(&0u32.to_le_bytes())?;
        put(&(rows.len() as u64).to_le_bytes())?;
        put(&generation.to_le_bytes())?;
        for (id, _) in rows {
            put(&id.to_le_bytes())?;
        }
        for (_, v) in rows {
            if v.len() != dim {
                return Err(IndexError::Corrupt(format!(
                    "embedding of dimension {} in a {dim}-d store",
                    v.len()
                )));
            }
            for x in v {
                put(&x.to_le_bytes())?;
            }
        }
        let file = w.into_inner().map_err(|e| io(&tmp)(e.into_error()))?;
        file.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io(path))?;
        Ok(())
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// Cosine similarity (vectors are unit length) of one stored chunk with `query`.
    /// The stored vector of chunk `id`.
    pub fn vector(&self, id: i64) -> Option<&[f32]> {
        let i = self.ids.binary_search(&id).ok()?;
        Some(self.row(i))
    }

    pub fn score(&self, id: i64, query: &[f32]) -> Option<f32> {
        let i = self.ids.binary_search(&id).ok()?;
        Some(dot(self.row(i), query))
    }

    /// The `k` most similar chunk ids, best first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.dim || k == 0 || self.ids.is_empty() {
            return Vec::new();
        }
        let mut scored: Vec<(f32, u32)> = self
            .data
            .chunks_exact(self.dim)
            .enumerate()
            .map(|(i, row)| (dot(row, query), i as u32))
            .collect();
        let k = k.min(scored.len());
        let by_score_desc = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0);
        if k < scored.len() {
            scored.select_nth_unstable_by(k - 1, by_score_desc);
            scored.truncate(k);
        }
        scored.sort_unstable_by(by_score_desc);
        scored
            .into_iter()
            .map(|(s, i)| (self.ids[i as usize], s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = dot(v, v).sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn roundtrip_and_search() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vec");
        let rows: Vec<(i64, Vec<f32>)> = (0..50)
            .map(|i| {
                (
                    i as i64 * 3,
                    unit(&[
                        i as f32 + 1.0,
                        10.0,
                        (i % 7) as f32,
                        1.0,
                        0.5,
                        2.0,
                        3.0,
                        4.0,
                        5.0,
                    ]),
                )
            })
            .collect();
        VectorSet::write(&path, 9, 7, &rows).unwrap();
        let set = VectorSet::load(&path).unwrap().unwrap();
        assert_eq!(set.len(), 50);
        assert_eq!(set.generation(), 7);
        let q = rows[20].1.clone();
        let top = set.search(&q, 5);
        assert_eq!(top.len(), 5);
        assert_eq!(top[0].0, 60);
        assert!((top[0].1 - 1.0).abs() < 1e-5);
        assert!(top.windows(2).all(|w| w[0].1 >= w[1].1));
        // exact: compare with brute force
        let mut brute: Vec<(i64, f32)> = rows.iter().map(|(id, v)| (*id, dot(v, &q))).collect();
        brute.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(
            top.iter().map(|t| t.0).collect::<Vec<_>>(),
            brute[..5].iter().map(|t| t.0).collect::<Vec<_>>()
        );
        assert_eq!(
            set.score(60, &q).map(|s| (s * 1000.0).round()),
            Some(1000.0)
        );
        assert_eq!(set.score(61, &q), None);
    }

    #[test]
    fn missing_and_corrupt_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vec");
        assert!(VectorSet::load(&path).unwrap().is_none());
        std::fs::write(&path, b"LOREVEC1garbage").unwrap();
        assert!(matches!(
            VectorSet::load(&path),
            Err(IndexError::Corrupt(_))
        ));
    }
}
