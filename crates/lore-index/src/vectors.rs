//! Cosine search over a store's unit vectors: an int8 copy of every vector is scanned on
//! all cores, and the best candidates are rescored exactly with their f32 vectors.
//!
//! The snapshot file is derived from the catalog after each index run (write to a temp file,
//! then rename), so readers always see a whole file, and it is memory-mapped, never
//! rewritten in place: a search process holds only the pages it touches. Layout,
//! little-endian: `b"LOREVEC2"`, dim: u32, reserved: u32, count: u64, generation: i64, then
//! `count` ids (i64, ascending), `count * dim` f32, `count` scales (f32), `count * dim`
//! int8 codes (`code * scale` approximates the f32). A `LOREVEC1` file (no codes) is read
//! onto the heap and quantised there.

use crate::IndexError;
use rayon::prelude::*;
use std::io::{Read, Write};
use std::path::Path;

const MAGIC_V1: &[u8; 8] = b"LOREVEC1";
const MAGIC: &[u8; 8] = b"LOREVEC2";
const HEADER: usize = 32;

/// Below this many vectors a search is one exact scan (quantising would not pay).
const EXACT_BELOW: usize = 4096;
/// Rows per parallel task of the int8 scan.
const BLOCK: usize = 8192;

pub struct VectorSet {
    dim: usize,
    generation: i64,
    ids: Vec<i64>,
    store: Store,
}

/// Where the f32 vectors and their int8 codes live.
enum Store {
    Heap {
        data: Vec<f32>,
        scales: Vec<f32>,
        codes: Vec<i8>,
    },
    /// A `LOREVEC2` file: the scales and codes are read in place; the floats of the few
    /// rows rescored are read with `pread`, so they never count in the process's memory.
    #[cfg(unix)]
    Mapped {
        map: memmap2::Mmap,
        file: std::fs::File,
        count: usize,
        dim: usize,
    },
}

impl Store {
    /// A `LOREVEC2` file (its length checked) mapped in place; `None` where lore does not
    /// map snapshots (outside unix).
    #[cfg(unix)]
    fn mapped(file: std::fs::File, count: usize, dim: usize) -> std::io::Result<Option<Store>> {
        // SAFETY: snapshots are only ever replaced by renaming a new file over them, never
        // written in place or truncated, so the mapped bytes cannot change while mapped.
        // Every offset read from it is checked against the file's length (`load`), and the
        // floats start at a multiple of 8 bytes (HEADER + count * 8).
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        // Rescoring reads a few scattered rows: no read-ahead around them, so the process
        // holds the codes it scans and little of the floats.
        let _ = map.advise(memmap2::Advice::Random);
        Ok(Some(Store::Mapped {
            map,
            file,
            count,
            dim,
        }))
    }

    #[cfg(not(unix))]
    fn mapped(_: std::fs::File, _: usize, _: usize) -> std::io::Result<Option<Store>> {
        Ok(None)
    }

    /// Row `i`'s f32 vector (`dim` long) into `out`.
    fn row_into(&self, i: usize, dim: usize, out: &mut Vec<f32>) -> bool {
        out.clear();
        match self {
            Store::Heap { data, .. } => match data.get(i * dim..(i + 1) * dim) {
                Some(row) => {
                    out.extend_from_slice(row);
                    true
                }
                None => false,
            },
            #[cfg(unix)]
            Store::Mapped { file, count, .. } => {
                use std::os::unix::fs::FileExt;
                out.resize(dim, 0.0);
                let at = HEADER + count * 8 + i * dim * 4;
                file.read_exact_at(bytemuck::cast_slice_mut(out), at as u64)
                    .is_ok()
            }
        }
    }

    fn scales(&self) -> &[f32] {
        match self {
            Store::Heap { scales, .. } => scales,
            #[cfg(unix)]
            Store::Mapped {
                map, count, dim, ..
            } => {
                let at = HEADER + count * 8 + count * dim * 4;
                bytemuck::cast_slice(&map[at..at + count * 4])
            }
        }
    }

    fn codes(&self) -> &[i8] {
        match self {
            Store::Heap { codes, .. } => codes,
            #[cfg(unix)]
            Store::Mapped {
                map, count, dim, ..
            } => {
                let at = HEADER + count * 8 + count * dim * 4 + count * 4;
                bytemuck::cast_slice(&map[at..at + count * dim])
            }
        }
    }
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

/// Integer dot product of two int8 codes (portable).
#[inline]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (ca, ra) = a.as_chunks::<16>();
    let (cb, rb) = b.as_chunks::<16>();
    for (x, y) in ca.iter().zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] as i32 * y[i] as i32;
        }
    }
    let tail: i32 = ra.iter().zip(rb).map(|(x, y)| *x as i32 * *y as i32).sum();
    acc.iter().sum::<i32>() + tail
}

/// `dot_i8` with AVX2: sixteen bytes of each side sign-extended to 16 bits, multiplied and
/// added in pairs (`vpmaddwd`) into eight 32-bit lanes. x86-64's baseline (SSE2) has no
/// sign-extending byte loads, and the portable loop runs near scalar speed there.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let mut i = 0;
    let mut total;
    // SAFETY: every load reads 16 bytes at offset i with i + 16 <= n, inside both slices;
    // unaligned loads (`loadu`) take any address; the CPU has AVX2 (this fn's feature).
    unsafe {
        let mut acc = _mm256_setzero_si256();
        while i + 16 <= n {
            let va = _mm256_cvtepi8_epi16(_mm_loadu_si128(a.as_ptr().add(i).cast()));
            let vb = _mm256_cvtepi8_epi16(_mm_loadu_si128(b.as_ptr().add(i).cast()));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
            i += 16;
        }
        let s = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256(acc, 1),
        );
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
        total = _mm_cvtsi128_si32(s);
    }
    while i < n {
        total += a[i] as i32 * b[i] as i32;
        i += 1;
    }
    total
}

/// `score_block` with AVX-512 (BW): the query widened to 16 bits once, each row's bytes
/// thirty-two at a time sign-extended, multiplied and added in pairs (`vpmaddwd`) into
/// sixteen 32-bit lanes. The loop over rows is in here, so no row costs a call; twice
/// the AVX2 kernel's width, and half its work per byte (the query is not widened again).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn score_block_avx512(
    block: &[i8],
    dim: usize,
    q: &[i8],
    scales: &[f32],
    first: usize,
) -> Vec<(f32, u32)> {
    use std::arch::x86_64::*;
    let q16: Vec<i16> = q[..dim].iter().map(|&x| i16::from(x)).collect();
    let wide = dim / 32 * 32;
    let mut out = Vec::with_capacity(block.len() / dim.max(1));
    for (j, row) in block.chunks_exact(dim).enumerate() {
        let mut acc = _mm512_setzero_si512();
        let mut i = 0;
        while i < wide {
            // SAFETY: i + 32 <= wide <= dim = row.len() = q16.len(): the 32 bytes of the
            // row and the 32 i16 of the query read at i are inside them; unaligned loads
            // take any address; the CPU has AVX-512 F and BW (this fn's features).
            let (r, qv) = unsafe {
                (
                    _mm256_loadu_si256(row.as_ptr().add(i).cast()),
                    _mm512_loadu_si512(q16.as_ptr().add(i).cast()),
                )
            };
            acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_cvtepi8_epi16(r), qv));
            i += 32;
        }
        let mut total = _mm512_reduce_add_epi32(acc);
        for k in wide..dim {
            total += i32::from(row[k]) * i32::from(q16[k]);
        }
        let at = first + j;
        out.push((total as f32 * scales[at], at as u32));
    }
    out
}

/// The approximate scores of one block of rows (`first` is its first row's index), with
/// the fastest int8 dot product this CPU has.
fn score_block(
    block: &[i8],
    dim: usize,
    q: &[i8],
    scales: &[f32],
    first: usize,
) -> Vec<(f32, u32)> {
    #[cfg(target_arch = "x86_64")]
    if q.len() >= dim
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
    {
        // SAFETY: the CPU supports AVX-512 F and BW, checked just above.
        return unsafe { score_block_avx512(block, dim, q, scales, first) };
    }
    let dot: fn(&[i8], &[i8]) -> i32 = {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                |a, b| unsafe { dot_i8_avx2(a, b) }
            } else {
                dot_i8
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            dot_i8
        }
    };
    block
        .chunks_exact(dim)
        .enumerate()
        .map(|(j, row)| {
            let i = first + j;
            (dot(row, q) as f32 * scales[i], i as u32)
        })
        .collect()
}

/// A vector's int8 code and scale: `code[i] * scale ≈ v[i]` (symmetric, per vector).
/// Writes a snapshot row by row without holding it in memory (a million vectors are 1.5
/// GB): each section goes to a temp file beside it as rows come, and `finish` joins them
/// under the header and renames the whole over `path`. Dropped unfinished, it leaves
/// nothing.
pub struct SnapshotWriter {
    path: std::path::PathBuf,
    dim: usize,
    generation: i64,
    count: u64,
    last: Option<i64>,
    /// Ids, floats, scales, codes.
    parts: Vec<(std::path::PathBuf, std::io::BufWriter<std::fs::File>)>,
    codes: Vec<i8>,
}

impl SnapshotWriter {
    pub fn create(path: &Path, dim: usize, generation: i64) -> Result<SnapshotWriter, IndexError> {
        let mut parts = Vec::with_capacity(4);
        for part in ["ids", "floats", "scales", "codes"] {
            let p = path.with_extension(format!("{part}.tmp"));
            let f = std::fs::File::create(&p).map_err(io(&p))?;
            parts.push((p, std::io::BufWriter::new(f)));
        }
        Ok(SnapshotWriter {
            path: path.to_path_buf(),
            dim,
            generation,
            count: 0,
            last: None,
            parts,
            codes: Vec::with_capacity(dim),
        })
    }

    /// Adds one row; ids must ascend.
    pub fn push(&mut self, id: i64, v: &[f32]) -> Result<(), IndexError> {
        if v.len() != self.dim {
            return Err(IndexError::Corrupt(format!(
                "embedding of dimension {} in a {}-d store",
                v.len(),
                self.dim
            )));
        }
        if self.last.is_some_and(|last| last >= id) {
            return Err(IndexError::Corrupt(format!(
                "vector snapshot rows out of order at id {id}"
            )));
        }
        self.last = Some(id);
        self.codes.clear();
        let scale = quantise(v, &mut self.codes);
        let [ids, floats, scales, codes] = &mut self.parts[..] else {
            unreachable!("four parts")
        };
        let put = |(p, w): &mut (std::path::PathBuf, std::io::BufWriter<std::fs::File>),
                   bytes: &[u8]| w.write_all(bytes).map_err(io(p));
        put(ids, &id.to_le_bytes())?;
        for x in v {
            put(floats, &x.to_le_bytes())?;
        }
        put(scales, &scale.to_le_bytes())?;
        put(codes, bytemuck::cast_slice(&self.codes))?;
        self.count += 1;
        Ok(())
    }

    /// Joins the sections under the header, syncs and renames over the snapshot; returns
    /// how many rows it holds.
    pub fn finish(mut self) -> Result<u64, IndexError> {
        let tmp = self.path.with_extension("tmp");
        let file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        let mut w = std::io::BufWriter::new(file);
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&(self.dim as u32).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&self.count.to_le_bytes());
        header.extend_from_slice(&self.generation.to_le_bytes());
        w.write_all(&header).map_err(io(&tmp))?;
        for (p, part) in self.parts.drain(..) {
            part.into_inner().map_err(|e| io(&p)(e.into_error()))?;
            let mut f = std::fs::File::open(&p).map_err(io(&p))?;
            std::io::copy(&mut f, &mut w).map_err(io(&tmp))?;
            let _ = std::fs::remove_file(&p);
        }
        let file = w.into_inner().map_err(|e| io(&tmp)(e.into_error()))?;
        file.sync_all().map_err(io(&tmp))?;
        std::fs::rename(&tmp, &self.path).map_err(io(&self.path))?;
        Ok(self.count)
    }
}

impl Drop for SnapshotWriter {
    fn drop(&mut self) {
        for (p, _) in &self.parts {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A store's vectors from the catalog, streamed row by row into a [`SnapshotWriter`] for
/// `path` at `generation`, not yet finished (`None`: the store has none).
pub(crate) fn stream_rows(
    catalog: &crate::Catalog,
    store_id: i64,
    path: &Path,
    generation: i64,
) -> Result<Option<SnapshotWriter>, IndexError> {
    let mut writer: Option<SnapshotWriter> = None;
    let mut failed = None;
    catalog.for_each_embedding(store_id, |id, v| {
        if failed.is_some() {
            return;
        }
        let pushed = match writer.as_mut() {
            Some(w) => w.push(id, &v),
            None => SnapshotWriter::create(path, v.len(), generation).and_then(|mut w| {
                w.push(id, &v)?;
                writer = Some(w);
                Ok(())
            }),
        };
        failed = pushed.err();
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(writer),
    }
}

/// Rewrites the snapshot at `path` from the catalog, row by row; `None` (nothing written)
/// when the store has no vectors.
pub fn stream_snapshot(
    catalog: &crate::Catalog,
    store_id: i64,
    path: &Path,
    generation: i64,
) -> Result<Option<u64>, IndexError> {
    stream_rows(catalog, store_id, path, generation)?
        .map(SnapshotWriter::finish)
        .transpose()
}

fn quantise(v: &[f32], codes: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        codes.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let scale = max / 127.0;
    codes.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
    );
    scale
}

/// How many candidates of the int8 scan are rescored exactly for a top `k`: twice as many
/// (at least 100) found every exact top 10 and top 100 of the bench's 131k synthetic
/// vectors and of the SciFact and CoSQA stores' real ones; ten times as many cost 2 ms
/// more per search of 100 candidates (the engine's) in `pread`s.
fn rescored(k: usize) -> usize {
    (k * 2).max(100)
}

impl VectorSet {
    pub fn empty(dim: usize) -> VectorSet {
        VectorSet {
            dim,
            generation: -1,
            ids: Vec::new(),
            store: Store::Heap {
                data: Vec::new(),
                scales: Vec::new(),
                codes: Vec::new(),
            },
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

    /// Opens a snapshot; `Ok(None)` when the file does not exist. A `LOREVEC2` file is
    /// memory-mapped (only its ids are copied); an older one is read and quantised.
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
        let v2 = &header[..8] == MAGIC;
        if !v2 && &header[..8] != MAGIC_V1 {
            return Err(corrupt());
        }
        let row_bytes = if v2 {
            8 + dim * 4 + 4 + dim
        } else {
            8 + dim * 4
        };
        let expected = count
            .checked_mul(row_bytes)
            .and_then(|n| n.checked_add(HEADER))
            .ok_or_else(corrupt)?;
        if len != expected || dim == 0 {
            return Err(corrupt());
        }
        let mut ids = vec![0i64; count];
        file.read_exact(bytemuck::cast_slice_mut(&mut ids))
            .map_err(io(path))?;
        if cfg!(target_endian = "big") {
            ids.iter_mut().for_each(|x| *x = i64::from_le(*x));
        }
        let mapped = if v2 && cfg!(target_endian = "little") {
            Store::mapped(file.try_clone().map_err(io(path))?, count, dim).map_err(io(path))?
        } else {
            None
        };
        let store = if let Some(mapped) = mapped {
            mapped
        } else {
            let mut data = vec![0f32; count * dim];
            file.read_exact(bytemuck::cast_slice_mut(&mut data))
                .map_err(io(path))?;
            // A LOREVEC2 file read onto the heap (big-endian): its codes are recomputed.
            if cfg!(target_endian = "big") {
                data.iter_mut()
                    .for_each(|x| *x = f32::from_bits(u32::from_le(x.to_bits())));
            }
            let mut codes = Vec::with_capacity(count * dim);
            let scales = data
                .chunks_exact(dim)
                .map(|row| quantise(row, &mut codes))
                .collect();
            Store::Heap {
                data,
                scales,
                codes,
            }
        };
        Ok(Some(VectorSet {
            dim,
            generation,
            ids,
            store,
        }))
    }

    /// Writes a snapshot atomically from `(id, vector)` rows given in ascending id order.
    pub fn write(
        path: &Path,
        dim: usize,
        generation: i64,
        rows: &[(i64, Vec<f32>)],
    ) -> Result<(), IndexError> {
        let mut w = SnapshotWriter::create(path, dim, generation)?;
        for (id, v) in rows {
            w.push(*id, v)?;
        }
        w.finish()?;
        Ok(())
    }

    /// Cosine similarity (vectors are unit length) of one stored chunk with `query`.
    pub fn score(&self, id: i64, query: &[f32]) -> Option<f32> {
        let i = self.ids.binary_search(&id).ok()?;
        let mut row = Vec::with_capacity(self.dim);
        self.store
            .row_into(i, self.dim, &mut row)
            .then(|| dot(&row, query))
    }

    /// The `k` most similar chunk ids, best first, with exact cosines. Large sets are
    /// scanned by their int8 codes on all cores, and the best `rescored(k)` candidates
    /// rescored with their f32 vectors.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(i64, f32)> {
        if query.len() != self.dim || k == 0 || self.ids.is_empty() {
            return Vec::new();
        }
        let candidates: Vec<u32> = if self.len() < EXACT_BELOW {
            (0..self.len() as u32).collect()
        } else {
            self.scan_codes(query, rescored(k))
        };
        let mut row = Vec::with_capacity(self.dim);
        let mut scored: Vec<(f32, u32)> = Vec::with_capacity(candidates.len());
        for i in candidates {
            if self.store.row_into(i as usize, self.dim, &mut row) {
                scored.push((dot(&row, query), i));
            }
        }
        top(&mut scored, k);
        scored
            .into_iter()
            .map(|(s, i)| (self.ids[i as usize], s))
            .collect()
    }

    /// The rows of the `n` best approximate scores (int8 codes), in no order.
    fn scan_codes(&self, query: &[f32], n: usize) -> Vec<u32> {
        let mut q = Vec::with_capacity(self.dim);
        quantise(query, &mut q);
        let (codes, scales, dim) = (self.store.codes(), self.store.scales(), self.dim);
        let mut best: Vec<(f32, u32)> = codes
            .par_chunks(BLOCK * dim)
            .enumerate()
            .flat_map_iter(|(b, block)| {
                let mut scored = score_block(block, dim, &q, scales, b * BLOCK);
                top(&mut scored, n);
                scored
            })
            .collect();
        top(&mut best, n);
        best.into_iter().map(|(_, i)| i).collect()
    }
}

/// Keeps the `k` best of `scored`, best first.
fn top(scored: &mut Vec<(f32, u32)>, k: usize) {
    let by_score_desc = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0);
    let k = k.min(scored.len());
    if k == 0 {
        scored.clear();
        return;
    }
    if k < scored.len() {
        scored.select_nth_unstable_by(k - 1, by_score_desc);
        scored.truncate(k);
    }
    scored.sort_unstable_by(by_score_desc);
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
        #[cfg(unix)]
        assert!(matches!(set.store, Store::Mapped { .. }));
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
    fn a_snapshot_written_row_by_row_leaves_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.bin");
        let files = || {
            let mut v: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        // Dropped unfinished (a failed read): nothing is left, nothing replaced.
        let mut w = SnapshotWriter::create(&path, 3, 1).unwrap();
        w.push(1, &unit(&[1.0, 0.0, 0.0])).unwrap();
        drop(w);
        assert!(files().is_empty(), "{:?}", files());
        // Out of order or of another dimension: refused.
        let mut w = SnapshotWriter::create(&path, 3, 1).unwrap();
        w.push(5, &unit(&[1.0, 2.0, 0.0])).unwrap();
        assert!(w.push(5, &unit(&[1.0, 0.0, 0.0])).is_err());
        assert!(w.push(9, &[1.0, 0.0]).is_err());
        w.push(9, &unit(&[0.0, 1.0, 1.0])).unwrap();
        assert_eq!(w.finish().unwrap(), 2);
        assert_eq!(files(), ["vectors.bin"]);
        let set = VectorSet::load(&path).unwrap().unwrap();
        assert_eq!((set.ids(), set.generation()), (&[5, 9][..], 1));
        assert_eq!(set.search(&unit(&[0.0, 1.0, 1.0]), 1)[0].0, 9);
    }

    /// xorshift64: deterministic vectors for the recall check.
    fn random_rows(n: usize, dim: usize, seed: u64) -> Vec<(i64, Vec<f32>)> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        (0..n)
            .map(|i| {
                // Clustered like real embeddings: a shared direction plus noise.
                let v: Vec<f32> = (0..dim)
                    .map(|d| next() + if d % 5 == 0 { 0.3 } else { 0.0 })
                    .collect();
                (i as i64, unit(&v))
            })
            .collect()
    }

    #[test]
    fn the_int8_scan_finds_what_the_exact_one_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vec");
        let (n, dim) = (20_000, 384);
        let rows = random_rows(n, dim, 7);
        VectorSet::write(&path, dim, 1, &rows).unwrap();
        let set = VectorSet::load(&path).unwrap().unwrap();
        let queries = random_rows(50, dim, 99);
        let (mut found, mut wanted) = (0usize, 0usize);
        for (_, q) in &queries {
            let got: Vec<i64> = set.search(q, 10).iter().map(|h| h.0).collect();
            let mut exact: Vec<(i64, f32)> = rows.iter().map(|(id, v)| (*id, dot(v, q))).collect();
            exact.sort_by(|a, b| b.1.total_cmp(&a.1));
            wanted += 10;
            found += exact[..10].iter().filter(|e| got.contains(&e.0)).count();
        }
        let recall = found as f64 / wanted as f64;
        assert!(recall >= 0.99, "recall@10 {recall}");
    }

    #[test]
    fn every_int8_dot_product_agrees() {
        let a: Vec<i8> = (0..389).map(|i| ((i * 37) % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..389).map(|i| ((i * 91 + 5) % 255 - 127) as i8).collect();
        let want: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
        assert_eq!(dot_i8(&a, &b), want);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is there, checked just above.
            assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, want);
        }
        // Whole blocks, on whatever kernel this CPU picks (AVX-512 here where it has it),
        // against the portable product: rows of 389 bytes leave a tail past the lanes.
        let rows: Vec<i8> = (0..389 * 5)
            .map(|i| ((i * 53 + 11) % 255 - 127) as i8)
            .collect();
        let scales = [0.5f32; 8];
        let got = score_block(&rows, 389, &b, &scales, 3);
        let want: Vec<(f32, u32)> = rows
            .chunks_exact(389)
            .enumerate()
            .map(|(j, r)| (dot_i8(r, &b) as f32 * 0.5, 3 + j as u32))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_old_snapshot_is_read_and_quantised() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vec");
        let rows = random_rows(5000, 16, 3);
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC_V1);
        bytes.extend_from_slice(&16u32.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        bytes.extend_from_slice(&(rows.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&4i64.to_le_bytes());
        for (id, _) in &rows {
            bytes.extend_from_slice(&id.to_le_bytes());
        }
        for (_, v) in &rows {
            v.iter()
                .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
        }
        std::fs::write(&path, bytes).unwrap();
        let set = VectorSet::load(&path).unwrap().unwrap();
        assert!(matches!(set.store, Store::Heap { .. }));
        assert_eq!((set.len(), set.generation()), (5000, 4));
        let top = set.search(&rows[42].1, 3);
        assert_eq!(top[0].0, 42);
    }

    #[test]
    fn missing_and_corrupt_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vec");
        assert!(VectorSet::load(&path).unwrap().is_none());
        std::fs::write(&path, b"LOREVEC2garbage").unwrap();
        assert!(matches!(
            VectorSet::load(&path),
            Err(IndexError::Corrupt(_))
        ));
    }
}
