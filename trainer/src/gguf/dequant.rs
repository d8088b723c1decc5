//! ggml's tensor encodings and their dequantisation kernels (F32, F16, BF16, Q8_0, Q4_0, Q4_1,
//! Q5_0, and the 256-element "k-quants" Q4_K and Q6_K that Q4_K_M files hold), following ggml's
//! reference dequantisers (`ggml-quants.c`) operation for operation, so results are bit-exact.

use anyhow::{Result, bail};
use half::f16;

/// ggml tensor encodings this importer can dequantise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)] // ggml's own names (Q4_K, Q6_K)
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    F16,
    /// Blocks of 32: f16 scale, 4-bit values offset by 8.
    Q4_0,
    /// Blocks of 32: f16 scale and f16 minimum, 4-bit values.
    Q4_1,
    /// Blocks of 32: f16 scale, 8-bit signed values.
    Q8_0,
    /// Blocks of 32: f16 scale, 5-bit values (low nibbles + a 32-bit word of high bits), offset by 16.
    Q5_0,
    /// Super-blocks of 256: f16 scale and minimum, eight 6-bit sub-scales and sub-minima, 4-bit values.
    Q4_K,
    /// Super-blocks of 256: f16 scale, sixteen 8-bit sub-scales, 6-bit values offset by 32.
    Q6_K,
    /// bfloat16.
    BF16,
}

/// ggml's names of its tensor types by id (`enum ggml_type`), so that an unsupported one is named.
const GGML_TYPE_NAMES: [&str; 31] = [
    "F32", "F16", "Q4_0", "Q4_1", "Q4_2", "Q4_3", "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q2_K", "Q3_K",
    "Q4_K", "Q5_K", "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S",
    "IQ2_S", "IQ4_XS", "I8", "I16", "I32", "I64", "F64", "IQ1_M", "BF16",
];

impl GgmlType {
    pub(super) fn from_id(id: u32) -> Result<Self> {
        Ok(match id {
            0 => Self::F32,
            1 => Self::F16,
            2 => Self::Q4_0,
            3 => Self::Q4_1,
            6 => Self::Q5_0,
            8 => Self::Q8_0,
            12 => Self::Q4_K,
            14 => Self::Q6_K,
            30 => Self::BF16,
            other => bail!(
                "unsupported ggml tensor type {} (id {other}; supported: F32, F16, BF16, Q4_0, Q4_1, \
                 Q5_0, Q8_0, Q4_K, Q6_K)",
                GGML_TYPE_NAMES.get(other as usize).unwrap_or(&"unknown")
            ),
        })
    }

    /// (elements per block, bytes per block).
    pub(super) fn block(self) -> (usize, usize) {
        match self {
            Self::F32 => (1, 4),
            Self::F16 | Self::BF16 => (1, 2),
            Self::Q4_0 => (32, 18),
            Self::Q4_1 => (32, 20),
            Self::Q5_0 => (32, 22),
            Self::Q8_0 => (32, 34),
            Self::Q4_K => (QK_K, 144),
            Self::Q6_K => (QK_K, 210),
        }
    }
}

/// Elements per k-quant super-block.
const QK_K: usize = 256;

/// Decodes ggml-encoded bytes to f32, following ggml's reference dequantisers.
pub fn dequantize(ty: GgmlType, bytes: &[u8]) -> Vec<f32> {
    let half_at = |b: &[u8], i: usize| f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
    match ty {
        GgmlType::F32 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        GgmlType::F16 => bytes.chunks_exact(2).map(|c| half_at(c, 0)).collect(),
        GgmlType::BF16 => bytes
            .chunks_exact(2)
            .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        GgmlType::Q8_0 => {
            let mut out = Vec::with_capacity(bytes.len() / 34 * 32);
            for block in bytes.chunks_exact(34) {
                let d = half_at(block, 0);
                out.extend(block[2..].iter().map(|&q| f32::from(q as i8) * d));
            }
            out
        }
        GgmlType::Q4_0 => {
            let mut out = vec![0f32; bytes.len() / 18 * 32];
            for (block, dst) in bytes.chunks_exact(18).zip(out.chunks_exact_mut(32)) {
                let d = half_at(block, 0);
                for (j, &q) in block[2..].iter().enumerate() {
                    dst[j] = (f32::from(q & 0x0f) - 8.0) * d;
                    dst[j + 16] = (f32::from(q >> 4) - 8.0) * d;
                }
            }
            out
        }
        GgmlType::Q4_1 => {
            let mut out = vec![0f32; bytes.len() / 20 * 32];
            for (block, dst) in bytes.chunks_exact(20).zip(out.chunks_exact_mut(32)) {
                let (d, m) = (half_at(block, 0), half_at(block, 2));
                for (j, &q) in block[4..].iter().enumerate() {
                    dst[j] = f32::from(q & 0x0f) * d + m;
                    dst[j + 16] = f32::from(q >> 4) * d + m;
                }
            }
            out
        }
        GgmlType::Q5_0 => {
            let mut out = vec![0f32; bytes.len() / 22 * 32];
            for (block, dst) in bytes.chunks_exact(22).zip(out.chunks_exact_mut(32)) {
                let d = half_at(block, 0);
                let qh = u32::from_le_bytes([block[2], block[3], block[4], block[5]]);
                for (j, &q) in block[6..].iter().enumerate() {
                    // Bit j of qh is the fifth bit of value j, bit j + 16 that of value j + 16.
                    let hi0 = ((qh >> j) << 4) & 0x10;
                    let hi1 = (qh >> (j + 12)) & 0x10;
                    dst[j] = ((u32::from(q & 0x0f) | hi0) as i32 - 16) as f32 * d;
                    dst[j + 16] = ((u32::from(q >> 4) | hi1) as i32 - 16) as f32 * d;
                }
            }
            out
        }
        GgmlType::Q4_K => {
            let mut out = vec![0f32; bytes.len() / 144 * QK_K];
            for (block, dst) in bytes.chunks_exact(144).zip(out.chunks_exact_mut(QK_K)) {
                let (d, min) = (half_at(block, 0), half_at(block, 2));
                let (scales, qs) = (&block[4..16], &block[16..]);
                // Four groups of 64 values: low nibbles of 32 bytes, then their high nibbles,
                // each half with its own 6-bit scale and minimum.
                for (g, (q, y)) in qs
                    .chunks_exact(32)
                    .zip(dst.chunks_exact_mut(64))
                    .enumerate()
                {
                    let (sc1, m1) = scale_min_k4(2 * g, scales);
                    let (sc2, m2) = scale_min_k4(2 * g + 1, scales);
                    let (d1, m1) = (d * f32::from(sc1), min * f32::from(m1));
                    let (d2, m2) = (d * f32::from(sc2), min * f32::from(m2));
                    for (l, &b) in q.iter().enumerate() {
                        y[l] = d1 * f32::from(b & 0x0f) - m1;
                        y[l + 32] = d2 * f32::from(b >> 4) - m2;
                    }
                }
            }
            out
        }
        GgmlType::Q6_K => {
            let mut out = vec![0f32; bytes.len() / 210 * QK_K];
            for (block, dst) in bytes.chunks_exact(210).zip(out.chunks_exact_mut(QK_K)) {
                let (ql, qh, sc) = (&block[..128], &block[128..192], &block[192..208]);
                let d = half_at(block, 208);
                // Two halves of 128 values: 64 bytes of low nibbles, 32 bytes of 2-bit highs.
                for n in 0..2 {
                    let (ql, qh, sc) = (&ql[64 * n..], &qh[32 * n..], &sc[8 * n..]);
                    let y = &mut dst[128 * n..];
                    for l in 0..32 {
                        let is = l / 16;
                        let q = |low: u8, shift: u32| {
                            (i32::from(low) | (i32::from((qh[l] >> shift) & 3) << 4)) - 32
                        };
                        let scale = |k: usize| d * f32::from(sc[is + k] as i8);
                        y[l] = scale(0) * q(ql[l] & 0x0f, 0) as f32;
                        y[l + 32] = scale(2) * q(ql[l + 32] & 0x0f, 2) as f32;
                        y[l + 64] = scale(4) * q(ql[l] >> 4, 4) as f32;
                        y[l + 96] = scale(6) * q(ql[l + 32] >> 4, 6) as f32;
                    }
                }
            }
            out
        }
    }
}

/// Q4_K's j-th 6-bit (scale, minimum) pair packed into 12 bytes (ggml's `get_scale_min_k4`).
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16_bytes(x: f32) -> [u8; 2] {
        f16::from_f32(x).to_le_bytes()
    }

    #[test]
    fn q4_0_block() {
        let mut b = f16_bytes(0.5).to_vec();
        b.extend((0..16u8).map(|j| j | ((15 - j) << 4)));
        let v = dequantize(GgmlType::Q4_0, &b);
        assert_eq!(v.len(), 32);
        assert_eq!(v[0], -4.0); // (0 - 8) * 0.5
        assert_eq!(v[15], 3.5); // (15 - 8) * 0.5
        assert_eq!(v[16], 3.5); // high nibble of byte 0 = 15
        assert_eq!(v[31], -4.0);
    }

    #[test]
    fn q4_1_block() {
        let mut b = f16_bytes(0.25).to_vec();
        b.extend(f16_bytes(-1.0));
        b.extend((0..16u8).map(|j| j | (3 << 4)));
        let v = dequantize(GgmlType::Q4_1, &b);
        assert_eq!(v[0], -1.0);
        assert_eq!(v[4], 0.0);
        assert_eq!(v[15], 2.75);
        assert!(v[16..].iter().all(|&x| x == -0.25));
    }

    #[test]
    fn q8_0_block() {
        let mut b = f16_bytes(0.125).to_vec();
        b.extend((0..32i8).map(|j| (j - 16) as u8));
        let v = dequantize(GgmlType::Q8_0, &b);
        assert_eq!(v[0], -2.0);
        assert_eq!(v[16], 0.0);
        assert_eq!(v[31], 1.875);
    }

    #[test]
    fn float_encodings() {
        assert_eq!(
            dequantize(GgmlType::F16, &[f16_bytes(1.5), f16_bytes(-2.0)].concat()),
            vec![1.5, -2.0]
        );
        assert_eq!(
            dequantize(GgmlType::F32, &3.25f32.to_le_bytes()),
            vec![3.25]
        );
        assert_eq!(
            dequantize(GgmlType::BF16, &half::bf16::from_f32(-0.5).to_le_bytes()),
            vec![-0.5]
        );
    }
}
