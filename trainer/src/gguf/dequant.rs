//! ggml's tensor encodings and their dequantisation kernels (F32, F16, BF16, Q8_0, Q4_0, Q4_1),
//! following ggml's reference dequantisers.

use anyhow::{Result, bail};
use half::f16;

/// ggml tensor encodings this importer can dequantise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// bfloat16.
    BF16,
}

impl GgmlType {
    pub(super) fn from_id(id: u32) -> Result<Self> {
        Ok(match id {
            0 => Self::F32,
            1 => Self::F16,
            2 => Self::Q4_0,
            3 => Self::Q4_1,
            8 => Self::Q8_0,
            30 => Self::BF16,
            other => bail!(
                "unsupported ggml tensor type {other} (supported: F32, F16, BF16, Q4_0, Q4_1, Q8_0)"
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
            Self::Q8_0 => (32, 34),
        }
    }
}

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
