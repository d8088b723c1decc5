//! The GGUF container (llama.cpp's format, versions 2 and 3): header, metadata key/values,
//! the tensor directory, and each tensor's bytes, decoded by the kernels of [`super::dequant`].

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail, ensure};
use tch::Tensor;

use super::dequant::{GgmlType, dequantize};

const MAGIC: &[u8; 4] = b"GGUF";
const DEFAULT_ALIGNMENT: u64 = 32;

/// A GGUF metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaValue {
    /// Any unsigned integer type.
    UInt(u64),
    /// Any signed integer type.
    Int(i64),
    /// f32 or f64.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A UTF-8 string.
    Str(String),
    /// An array of values.
    Array(Vec<MetaValue>),
}

impl MetaValue {
    pub(super) fn as_u64(&self) -> Option<u64> {
        match self {
            MetaValue::UInt(v) => Some(*v),
            MetaValue::Int(v) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub(super) fn as_f64(&self) -> Option<f64> {
        match self {
            MetaValue::Float(v) => Some(*v),
            MetaValue::UInt(v) => Some(*v as f64),
            MetaValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_array(&self) -> Option<&[MetaValue]> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Where one tensor lives in the file.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// GGUF tensor name (e.g. `blk.0.attn_q.weight`).
    pub name: String,
    /// Shape in PyTorch order (slowest dimension first).
    pub shape: Vec<i64>,
    /// Encoding.
    pub ggml_type: GgmlType,
    offset: u64,
}

/// A parsed GGUF file held in memory.
pub struct GgufFile {
    /// Metadata key/values.
    pub metadata: HashMap<String, MetaValue>,
    /// Tensor directory.
    pub tensors: Vec<TensorInfo>,
    data: Vec<u8>,
    data_start: usize,
}

impl std::fmt::Debug for GgufFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufFile")
            .field("metadata_keys", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| anyhow!("GGUF file truncated at byte {}", self.pos))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into()?))
    }
    fn len(&mut self) -> Result<usize> {
        let n = self.u64()?;
        // Any length beyond the file is corrupt; refuse before allocating.
        ensure!(
            n <= self.buf.len() as u64,
            "GGUF length field {n} exceeds file size"
        );
        Ok(n as usize)
    }
    fn string(&mut self) -> Result<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).context("GGUF string is not UTF-8")
    }
    fn value(&mut self, ty: u32) -> Result<MetaValue> {
        Ok(match ty {
            0 => MetaValue::UInt(self.u8()?.into()),
            1 => MetaValue::Int((self.u8()? as i8).into()),
            2 => MetaValue::UInt(self.u16()?.into()),
            3 => MetaValue::Int((self.u16()? as i16).into()),
            4 => MetaValue::UInt(self.u32()?.into()),
            5 => MetaValue::Int((self.u32()? as i32).into()),
            6 => MetaValue::Float(f32::from_le_bytes(self.take(4)?.try_into()?).into()),
            7 => MetaValue::Bool(self.u8()? != 0),
            8 => MetaValue::Str(self.string()?),
            9 => {
                let elem = self.u32()?;
                let n = self.len()?;
                MetaValue::Array((0..n).map(|_| self.value(elem)).collect::<Result<_>>()?)
            }
            10 => MetaValue::UInt(self.u64()?),
            11 => MetaValue::Int(self.u64()? as i64),
            12 => MetaValue::Float(f64::from_le_bytes(self.take(8)?.try_into()?)),
            other => bail!("unknown GGUF metadata type {other}"),
        })
    }
}

impl GgufFile {
    /// Reads and parses a GGUF file (versions 2 and 3).
    pub fn read(path: &Path) -> Result<Self> {
        let data =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(data).with_context(|| format!("invalid GGUF file {}", path.display()))
    }

    /// Parses GGUF bytes.
    pub fn parse(data: Vec<u8>) -> Result<Self> {
        let mut r = Reader { buf: &data, pos: 0 };
        ensure!(r.take(4)? == MAGIC, "not a GGUF file (bad magic)");
        let version = r.u32()?;
        ensure!(
            matches!(version, 2 | 3),
            "unsupported GGUF version {version}"
        );
        let n_tensors = r.len()?;
        let n_kv = r.len()?;
        let mut metadata = HashMap::new();
        for _ in 0..n_kv {
            let key = r.string()?;
            let ty = r.u32()?;
            metadata.insert(key, r.value(ty)?);
        }
        let mut tensors = Vec::with_capacity(n_tensors);
        for _ in 0..n_tensors {
            let name = r.string()?;
            let n_dims = r.u32()? as usize;
            ensure!(n_dims <= 4, "tensor {name} has {n_dims} dimensions");
            let mut dims = (0..n_dims)
                .map(|_| r.u64().map(|d| d as i64))
                .collect::<Result<Vec<_>>>()?;
            // ggml lists the fastest-varying dimension first; PyTorch the slowest.
            dims.reverse();
            let ggml_type =
                GgmlType::from_id(r.u32()?).with_context(|| format!("tensor {name}"))?;
            let offset = r.u64()?;
            tensors.push(TensorInfo {
                name,
                shape: dims,
                ggml_type,
                offset,
            });
        }
        let align = metadata
            .get("general.alignment")
            .and_then(MetaValue::as_u64)
            .unwrap_or(DEFAULT_ALIGNMENT) as usize;
        ensure!(align > 0, "zero alignment");
        let data_start = r.pos.div_ceil(align) * align;
        Ok(Self {
            metadata,
            tensors,
            data,
            data_start,
        })
    }

    pub(super) fn meta(&self, key: &str) -> Result<&MetaValue> {
        self.metadata
            .get(key)
            .ok_or_else(|| anyhow!("GGUF metadata lacks {key}"))
    }

    pub(super) fn meta_u64(&self, key: &str) -> Result<u64> {
        self.meta(key)?
            .as_u64()
            .ok_or_else(|| anyhow!("GGUF metadata {key} is not an integer"))
    }

    pub(super) fn meta_str(&self, key: &str) -> Result<&str> {
        self.meta(key)?
            .as_str()
            .ok_or_else(|| anyhow!("GGUF metadata {key} is not a string"))
    }

    /// Dequantises one tensor to f32 (PyTorch shape order).
    pub fn tensor(&self, info: &TensorInfo) -> Result<Tensor> {
        let n: usize = info.shape.iter().map(|&d| d as usize).product();
        let (block_elems, block_bytes) = info.ggml_type.block();
        ensure!(
            n.is_multiple_of(block_elems),
            "tensor {} has {n} elements, not a multiple of the block size {block_elems}",
            info.name
        );
        let nbytes = n / block_elems * block_bytes;
        let start = self.data_start + info.offset as usize;
        let bytes = self
            .data
            .get(start..start + nbytes)
            .ok_or_else(|| anyhow!("tensor {} extends past the end of the file", info.name))?;
        let values = dequantize(info.ggml_type, bytes);
        Ok(Tensor::from_slice(&values).view(info.shape.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u32, n_tensors: u64, n_kv: u64) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend(version.to_le_bytes());
        b.extend(n_tensors.to_le_bytes());
        b.extend(n_kv.to_le_bytes());
        b
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(
            GgufFile::parse(b"GGML1234".to_vec())
                .unwrap_err()
                .to_string()
                .contains("bad magic")
        );
        assert!(
            GgufFile::parse(header(1, 0, 0))
                .unwrap_err()
                .to_string()
                .contains("version")
        );
        // Claims a key/value that is not there.
        assert!(
            GgufFile::parse(header(3, 0, 1))
                .unwrap_err()
                .to_string()
                .contains("truncated")
        );
        // A huge string length must not allocate or panic.
        let mut b = header(3, 0, 1);
        b.extend(u64::MAX.to_le_bytes());
        assert!(GgufFile::parse(b).is_err());
        // One F32 tensor whose data lies past the end of the file.
        let mut b = header(3, 1, 0);
        b.extend(1u64.to_le_bytes());
        b.push(b'w');
        b.extend(1u32.to_le_bytes());
        b.extend(4u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
        let g = GgufFile::parse(b).unwrap();
        assert_eq!(g.tensors[0].shape, vec![4]);
        assert!(
            g.tensor(&g.tensors[0])
                .unwrap_err()
                .to_string()
                .contains("past the end")
        );
    }
}
