//! The BERT encoder of all-MiniLM-L6-v2, written for inference on candle tensors.
//!
//! The same arithmetic as Hugging Face's `BertModel` (post-norm layers, erf GELU, additive
//! attention mask), arranged for a CPU: every dense layer runs over all tokens of the batch
//! as one matrix product; query, key and value are one product (their weights stacked at
//! load, the query's pre-scaled by 1/√head_dim); bias, GELU, the residual add and the
//! masked softmax are applied in place on the product (no extra buffers, one pass, loops
//! that vectorise); layer norm is candle's fused kernel. Dropout and the pooler are not
//! needed for embeddings and are not loaded.

use std::collections::HashMap;

use candle_core::{CpuStorage, D, DType, Device, InplaceOp2, Layout, Tensor};
use candle_nn::ops::layer_norm;
use rayon::prelude::*;
use serde::Deserialize;

/// The `config.json` fields the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub layer_norm_eps: f64,
    pub hidden_act: String,
}

impl Config {
    /// Checks what the encoder relies on; the error says which field is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.hidden_act != "gelu" {
            return Err(format!(
                "hidden_act is {:?}, only \"gelu\" is supported",
                self.hidden_act
            ));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(())
    }
}

/// `x · W + b` over rows; `W` is stored input-major (transposed once at load).
struct Dense {
    weight: Tensor,
    bias: Tensor,
}

impl Dense {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let y = x.matmul(&self.weight)?;
        y.inplace_op2(&self.bias, &Epilogue::Bias)?;
        Ok(y)
    }

    /// `gelu(x · W + b)`.
    fn forward_gelu(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let y = x.matmul(&self.weight)?;
        y.inplace_op2(&self.bias, &Epilogue::BiasGelu)?;
        Ok(y)
    }

    /// `x · W + b + residual`.
    fn forward_residual(&self, x: &Tensor, residual: &Tensor) -> candle_core::Result<Tensor> {
        let y = self.forward(x)?;
        y.inplace_op2(residual, &Epilogue::Add)?;
        Ok(y)
    }
}

/// What is done in place to a fresh matrix product.
enum Epilogue {
    /// Add a row vector to every row.
    Bias,
    /// Add a row vector to every row, then apply GELU.
    BiasGelu,
    /// Add a matrix of the same shape.
    Add,
    /// Attention scores `(n, heads, seq, seq)` → probabilities: add the additive mask
    /// `(n, seq)` of each text to its rows, then softmax each row.
    MaskedSoftmax,
}

/// Rows handed to one rayon task.
const ROWS_PER_TASK: usize = 32;

impl InplaceOp2 for Epilogue {
    fn name(&self) -> &'static str {
        match self {
            Epilogue::Bias => "bias",
            Epilogue::BiasGelu => "bias-gelu",
            Epilogue::Add => "add",
            Epilogue::MaskedSoftmax => "masked-softmax",
        }
    }

    fn cpu_fwd(
        &self,
        dst: &mut CpuStorage,
        dst_l: &Layout,
        src: &CpuStorage,
        src_l: &Layout,
    ) -> candle_core::Result<()> {
        let (CpuStorage::F32(dst), CpuStorage::F32(src)) = (dst, src) else {
            candle_core::bail!("{}: f32 tensors only", self.name());
        };
        let (Some((d0, d1)), Some((s0, s1))) =
            (dst_l.contiguous_offsets(), src_l.contiguous_offsets())
        else {
            candle_core::bail!("{}: contiguous tensors only", self.name());
        };
        let (dst, src) = (&mut dst[d0..d1], &src[s0..s1]);
        let width = dst_l.dims().last().copied().unwrap_or(0);
        let expected = match self {
            Epilogue::Add => dst.len(),
            Epilogue::Bias | Epilogue::BiasGelu => width,
            Epilogue::MaskedSoftmax => dst_l.dims().first().copied().unwrap_or(0) * width,
        };
        // An empty operand would leave the softmax's rows-per-text undefined.
        if src.is_empty() || src.len() != expected || dst_l.dims().len() < 2 {
            candle_core::bail!(
                "{}: operand of {} values for a {:?} tensor",
                self.name(),
                src.len(),
                dst_l.dims()
            );
        }
        let task = width * ROWS_PER_TASK;
        match self {
            Epilogue::Bias => dst.par_chunks_mut(task).for_each(|rows| {
                for row in rows.chunks_exact_mut(width) {
                    row.iter_mut().zip(src).for_each(|(v, b)| *v += b);
                }
            }),
            Epilogue::BiasGelu => dst.par_chunks_mut(task).for_each(|rows| {
                for row in rows.chunks_exact_mut(width) {
                    row.iter_mut().zip(src).for_each(|(v, b)| *v = gelu(*v + b));
                }
            }),
            Epilogue::Add => dst
                .par_chunks_mut(task)
                .zip(src.par_chunks(task))
                .for_each(|(d, s)| d.iter_mut().zip(s).for_each(|(v, r)| *v += r)),
            Epilogue::MaskedSoftmax => {
                // One task per text: its heads × seq rows share its mask.
                let per_text = dst.len() / src.len() * width;
                dst.par_chunks_mut(per_text)
                    .zip(src.par_chunks(width))
                    .for_each(|(rows, mask)| {
                        rows.chunks_exact_mut(width)
                            .for_each(|row| masked_softmax(row, mask));
                    });
            }
        }
        Ok(())
    }
}

/// `row + mask`, then softmax, in place.
#[inline]
fn masked_softmax(row: &mut [f32], mask: &[f32]) {
    row.iter_mut().zip(mask).for_each(|(v, m)| *v += m);
    let max = lanes(row, f32::MIN, f32::max);
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    let inv = 1.0 / lanes(row, 0.0, |a, b| a + b);
    row.iter_mut().for_each(|v| *v *= inv);
}

/// Folds `xs` with `f` in 16 independent lanes, then folds the lanes: a plain fold is one
/// dependent chain (a row of 256 scores took ~1,000 cycles to sum), lanes vectorise.
#[inline]
fn lanes(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32 + Copy) -> f32 {
    let mut acc = [init; 16];
    let chunks = xs.chunks_exact(16);
    let rest = chunks.remainder().iter().copied().fold(init, f);
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = f(*a, x);
        }
    }
    acc.into_iter().fold(rest, f)
}

/// GELU as BERT defines it: `x/2 · (1 + erf(x/√2))`.
#[inline]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7, ~3e-7 in f32 arithmetic),
/// branch-free so that loops over it vectorise (the libm `erff` does not; it was a tenth of
/// the encoder's time).
#[inline]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_7) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// e^x for x ≤ 0 (as erf and softmax need), branch-free: x = k·ln2 + r with |r| ≤ ln2/2, e^r by its
/// Taylor series to r^7 (relative error < 1e-8), 2^k written into the exponent bits.
#[inline]
fn exp(x: f32) -> f32 {
    // Below -87, e^x is under f32's smallest normal number: the result is exactly 0 (a
    // subnormal would slow every product it enters, as masked attention weights do).
    // Comparisons, not `f32::max`, whose NaN rule keeps the loop from vectorising.
    let underflow = x < -87.0;
    let x = if underflow { -87.0 } else { x };
    // Round to nearest by the 1.5·2^23 trick: k lands in the low mantissa bits of `shifted`.
    const ROUND: f32 = 12_582_912.0;
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let k = shifted - ROUND;
    // ln2 split in two so that k·LN2_HI is exact.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let r = x - k * LN2_HI - k * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r / 5040.0))))));
    // 2^k from k's integer bits, in integer arithmetic (an `as i32` cast would saturate,
    // which does not vectorise either).
    let k_int = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    let e = p * f32::from_bits(k_int.wrapping_add(127) << 23);
    if underflow { 0.0 } else { e }
}

struct Norm {
    weight: Tensor,
    bias: Tensor,
    eps: f32,
}

impl Norm {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        layer_norm(x, &self.weight, &self.bias, self.eps)
    }
}

struct Layer {
    qkv: Dense,
    attention_out: Dense,
    attention_norm: Norm,
    up: Dense,
    down: Dense,
    output_norm: Norm,
}

pub(crate) struct Bert {
    word: Tensor,
    /// Position embeddings plus the (only) token-type embedding, row per position.
    position: Tensor,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    hidden: usize,
}

/// Named tensors of a safetensors file, with shape-checked lookup.
struct Weights(HashMap<String, Tensor>);

impl Weights {
    fn lookup(&self, name: &str) -> candle_core::Result<&Tensor> {
        // Some exports prefix every name with the model type.
        self.0
            .get(name)
            .or_else(|| self.0.get(&format!("bert.{name}")))
            .ok_or_else(|| candle_core::Error::Msg(format!("tensor {name} is missing")))
    }

    /// The tensor `name`, which must have exactly `shape`.
    fn get(&self, name: &str, shape: &[usize]) -> candle_core::Result<Tensor> {
        let t = self.lookup(name)?;
        if t.dims() != shape {
            return Err(candle_core::Error::Msg(format!(
                "tensor {name} has shape {:?}, expected {shape:?}",
                t.dims()
            )));
        }
        t.to_dtype(DType::F32)
    }

    /// The matrix `name` with any number of rows of `width` (the vocabulary).
    fn rows(&self, name: &str, width: usize) -> candle_core::Result<Tensor> {
        let t = self.lookup(name)?;
        match t.dims() {
            [_, w] if *w == width => t.to_dtype(DType::F32),
            dims => Err(candle_core::Error::Msg(format!(
                "tensor {name} has shape {dims:?}, expected [_, {width}]"
            ))),
        }
    }

    fn dense(&self, prefix: &str, inputs: usize, outputs: usize) -> candle_core::Result<Dense> {
        Ok(Dense {
            weight: self
                .get(&format!("{prefix}.weight"), &[outputs, inputs])?
                .t()?
                .contiguous()?,
            bias: self.get(&format!("{prefix}.bias"), &[outputs])?,
        })
    }

    fn norm(&self, prefix: &str, size: usize, eps: f64) -> candle_core::Result<Norm> {
        Ok(Norm {
            weight: self.get(&format!("{prefix}.weight"), &[size])?,
            bias: self.get(&format!("{prefix}.bias"), &[size])?,
            eps: eps as f32,
        })
    }
}

impl Bert {
    /// Builds the encoder from the bytes of `model.safetensors`.
    pub fn load(safetensors: &[u8], config: &Config) -> candle_core::Result<Bert> {
        let device = Device::Cpu;
        let w = Weights(candle_core::safetensors::load_buffer(safetensors, &device)?);
        let h = config.hidden_size;
        let eps = config.layer_norm_eps;
        let heads = config.num_attention_heads;
        let head_dim = h / heads;

        let word = w.rows("embeddings.word_embeddings.weight", h)?;
        let positions = config.max_position_embeddings;
        let position = w
            .get("embeddings.position_embeddings.weight", &[positions, h])?
            .broadcast_add(
                &w.get("embeddings.token_type_embeddings.weight", &[2, h])?
                    .get(0)?,
            )?;
        let embedding_norm = w.norm("embeddings.LayerNorm", h, eps)?;

        let scale = 1.0 / (head_dim as f64).sqrt();
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let q = w.dense(&format!("{p}.attention.self.query"), h, h)?;
            let k = w.dense(&format!("{p}.attention.self.key"), h, h)?;
            let v = w.dense(&format!("{p}.attention.self.value"), h, h)?;
            let qkv = Dense {
                weight: Tensor::cat(&[(q.weight * scale)?, k.weight, v.weight], 1)?,
                bias: Tensor::cat(&[(q.bias * scale)?, k.bias, v.bias], 0)?,
            };
            layers.push(Layer {
                qkv,
                attention_out: w.dense(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: w.norm(&format!("{p}.attention.output.LayerNorm"), h, eps)?,
                up: w.dense(
                    &format!("{p}.intermediate.dense"),
                    h,
                    config.intermediate_size,
                )?,
                down: w.dense(&format!("{p}.output.dense"), config.intermediate_size, h)?,
                output_norm: w.norm(&format!("{p}.output.LayerNorm"), h, eps)?,
            });
        }
        Ok(Bert {
            word,
            position,
            embedding_norm,
            layers,
            heads,
            head_dim,
            hidden: h,
        })
    }

    /// Hidden states `(n, seq, hidden)` for token ids `(n, seq)` and a 0/1 mask `(n, seq)`
    /// (1 = real token). Masked positions are attended by nobody.
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (n, seq) = ids.dims2()?;
        let h = self.hidden;
        let words = self.word.index_select(&ids.flatten_all()?, 0)?;
        let x = words
            .reshape((n, seq, h))?
            .broadcast_add(&self.position.narrow(0, 0, seq)?)?;
        let mut x = self.embedding_norm.forward(&x)?.reshape((n * seq, h))?;

        // 0 for real tokens, a very large negative number for padding: (n, seq).
        let additive = ((mask.to_dtype(DType::F32)? - 1.0)? * f64::from(f32::MAX))?;
        for layer in &self.layers {
            let qkv = layer
                .qkv
                .forward(&x)?
                .reshape((n, seq, 3, self.heads, self.head_dim))?;
            let part = |i: usize| -> candle_core::Result<Tensor> {
                // (n, seq, heads, head_dim) → (n, heads, seq, head_dim)
                qkv.narrow(2, i, 1)?
                    .squeeze(2)?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let (q, k, v) = (part(0)?, part(1)?, part(2)?);
            let probs = q.matmul(&k.t()?)?;
            probs.inplace_op2(&additive, &Epilogue::MaskedSoftmax)?;
            let context = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((n * seq, h))?;
            let attended = layer
                .attention_norm
                .forward(&layer.attention_out.forward_residual(&context, &x)?)?;
            let inner = layer.up.forward_gelu(&attended)?;
            x = layer
                .output_norm
                .forward(&layer.down.forward_residual(&inner, &attended)?)?;
        }
        x.reshape((n, seq, h))
    }
}

/// Mean of the real tokens' hidden states, L2-normalised: `(n, seq, hidden)` → `(n, hidden)`.
pub(crate) fn mean_pool_normalized(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (n, seq, 1)
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?; // (n, hidden)
    let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (n, 1)
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean
        .sqr()?
        .sum_keepdim(D::Minus1)?
        .sqrt()?
        .clamp(1e-12f32, f32::MAX)?;
    mean.broadcast_div(&norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_the_standard_library() {
        let mut x = -87.0f32;
        while x <= 0.0 {
            let want = f64::from(x).exp();
            let rel = (f64::from(exp(x)) - want).abs() / want;
            assert!(rel < 1e-6, "exp({x}): {} vs {want}", exp(x));
            x += 0.013;
        }
        // No subnormal results: below the smallest normal it is 0.
        assert_eq!(exp(-88.0), 0.0);
        assert_eq!(exp(-f32::MAX), 0.0);
    }

    #[test]
    fn erf_matches_known_values() {
        // erf at a few points, to 10 digits.
        let known: [(f64, f64); 8] = [
            (0.0, 0.0),
            (0.1, 0.112_462_916_0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (1.5, 0.966_105_146_5),
            (2.0, 0.995_322_265_0),
            (3.0, 0.999_977_909_5),
            (6.0, 1.0),
        ];
        for (x, want) in known {
            let (pos, neg) = (f64::from(erf(x as f32)), f64::from(erf(-x as f32)));
            assert!((pos - want).abs() < 5e-7, "erf({x}) = {pos}");
            assert!((neg + want).abs() < 5e-7, "erf(-{x}) = {neg}");
        }
        assert_eq!(gelu(0.0), 0.0);
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!(gelu(-10.0).abs() < 1e-6);
        assert!((gelu(10.0) - 10.0).abs() < 1e-6);
    }

    #[test]
    fn epilogues_apply_in_place() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        // 70 rows, so the rows split across more than one task.
        let x = Tensor::arange(0f32, 280.0, &dev)?.reshape((70, 4))?;
        let bias = Tensor::new(&[1f32, -1.0, 0.5, 0.0], &dev)?;
        let want = x.broadcast_add(&bias)?.gelu_erf()?.to_vec2::<f32>()?;
        let y = x.copy()?;
        y.inplace_op2(&bias, &Epilogue::BiasGelu)?;
        let got = y.to_vec2::<f32>()?;
        for (g, w) in got.iter().flatten().zip(want.iter().flatten()) {
            assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{g} vs {w}");
        }

        let y = x.copy()?;
        y.inplace_op2(&x, &Epilogue::Add)?;
        assert_eq!(y.to_vec2::<f32>()?, (&x * 2.0)?.to_vec2::<f32>()?);

        // Masked softmax equals candle's softmax over the scores plus the mask.
        let scores = Tensor::randn(0f32, 3.0, (2, 3, 5, 5), &dev)?;
        let mask = Tensor::new(&[[0f32, 0.0, 0.0, -f32::MAX, -f32::MAX], [0.0; 5]], &dev)?;
        let want =
            candle_nn::ops::softmax_last_dim(&scores.broadcast_add(&mask.reshape((2, 1, 1, 5))?)?)?;
        let got = scores.copy()?;
        got.inplace_op2(&mask, &Epilogue::MaskedSoftmax)?;
        let diff = (got - want)?
            .abs()?
            .flatten_all()?
            .max(0)?
            .to_scalar::<f32>()?;
        assert!(diff < 1e-6, "max difference {diff}");

        // An empty batch is an error, not a division by zero.
        let empty = Tensor::zeros((0, 3, 5, 5), DType::F32, &dev)?;
        let no_mask = Tensor::zeros((0, 5), DType::F32, &dev)?;
        assert!(
            empty
                .inplace_op2(&no_mask, &Epilogue::MaskedSoftmax)
                .is_err()
        );

        // A bias of the wrong width is an error, not a panic.
        let wrong = Tensor::new(&[1f32, 2.0], &dev)?;
        assert!(x.copy()?.inplace_op2(&wrong, &Epilogue::Bias).is_err());
        Ok(())
    }

    fn tiny_config() -> Config {
        Config {
            hidden_size: 4,
            num_attention_heads: 2,
            num_hidden_layers: 1,
            intermediate_size: 8,
            max_position_embeddings: 6,
            layer_norm_eps: 1e-12,
            hidden_act: "gelu".into(),
        }
    }

    /// The safetensors bytes of a tiny random BERT, without the tensors named in `skip`.
    fn tiny_weights(skip: &[&str]) -> candle_core::Result<Vec<u8>> {
        let dev = Device::Cpu;
        let (h, i) = (4, 8);
        let mut shapes: Vec<(String, Vec<usize>)> = vec![
            ("embeddings.word_embeddings.weight".into(), vec![10, h]),
            ("embeddings.position_embeddings.weight".into(), vec![6, h]),
            ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
        ];
        let mut norm = |name: &str| {
            shapes.push((format!("{name}.weight"), vec![h]));
            shapes.push((format!("{name}.bias"), vec![h]));
        };
        norm("embeddings.LayerNorm");
        norm("encoder.layer.0.attention.output.LayerNorm");
        norm("encoder.layer.0.output.LayerNorm");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            shapes.push((format!("encoder.layer.0.{name}.weight"), vec![out, inp]));
            shapes.push((format!("encoder.layer.0.{name}.bias"), vec![out]));
        }
        let mut tensors = HashMap::new();
        for (name, shape) in shapes {
            if !skip.contains(&name.as_str()) {
                tensors.insert(name, Tensor::randn(0f32, 1.0, shape, &dev)?);
            }
        }
        let dir = tempfile::tempdir().map_err(candle_core::Error::wrap)?;
        let path = dir.path().join("model.safetensors");
        candle_core::safetensors::save(&tensors, &path)?;
        std::fs::read(&path).map_err(candle_core::Error::wrap)
    }

    #[test]
    fn encodes_with_padding_masked() -> candle_core::Result<()> {
        let bert = Bert::load(&tiny_weights(&[])?, &tiny_config())?;
        let dev = Device::Cpu;
        let ids = Tensor::new(&[[1u32, 5, 2, 0], [1, 5, 2, 7]], &dev)?;
        let mask = Tensor::new(&[[1u32, 1, 1, 0], [1, 1, 1, 1]], &dev)?;
        let hidden = bert.forward(&ids, &mask)?;
        assert_eq!(hidden.dims(), [2, 4, 4]);
        // The first row's padding changes nothing: it equals the same text unpadded.
        let alone = bert.forward(
            &Tensor::new(&[[1u32, 5, 2]], &dev)?,
            &Tensor::new(&[[1u32, 1, 1]], &dev)?,
        )?;
        let padded = hidden.get(0)?.narrow(0, 0, 3)?.to_vec2::<f32>()?;
        for (a, b) in padded
            .iter()
            .flatten()
            .zip(alone.get(0)?.to_vec2::<f32>()?.iter().flatten())
        {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
        let pooled = mean_pool_normalized(&hidden, &mask)?;
        for row in pooled.to_vec2::<f32>()? {
            let norm: f32 = row.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5);
        }
        Ok(())
    }

    #[test]
    fn bad_weights_name_the_tensor() -> candle_core::Result<()> {
        let missing = Bert::load(
            &tiny_weights(&["encoder.layer.0.intermediate.dense.bias"])?,
            &tiny_config(),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            missing.contains("encoder.layer.0.intermediate.dense.bias is missing"),
            "{missing}"
        );

        let mut config = tiny_config();
        config.intermediate_size = 16;
        let shape = Bert::load(&tiny_weights(&[])?, &config)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(shape.contains("expected [16, 4]"), "{shape}");

        config = tiny_config();
        config.hidden_act = "relu".into();
        assert!(config.validate().is_err());
        Ok(())
    }
}
