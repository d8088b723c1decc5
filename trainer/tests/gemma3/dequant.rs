//! Q4_K, Q6_K and Q5_0 (and the older block types) decoded block by block as llama.cpp's `gguf`
//! package decodes them; unsupported types and missing tensors are errors that name them.

use half::f16;
use serde_json::json;
use trainer::gguf::{GgmlType, GgufFile, dequantize};

/// (type, its gguf name, bytes per block, offsets of f16 scale fields).
const TYPES: [(GgmlType, &str, usize, &[usize]); 6] = [
    (GgmlType::Q4_0, "Q4_0", 18, &[0]),
    (GgmlType::Q4_1, "Q4_1", 20, &[0, 2]),
    (GgmlType::Q5_0, "Q5_0", 22, &[0]),
    (GgmlType::Q8_0, "Q8_0", 34, &[0]),
    (GgmlType::Q4_K, "Q4_K", 144, &[0, 2]),
    (GgmlType::Q6_K, "Q6_K", 210, &[208]),
];

/// Random blocks of every type, the first rows of real Q4_K/Q6_K/Q5_0/Q8_0 tensors of Gemma 3:
/// our kernels equal gguf's numpy ones exactly.
#[test]
fn kernels_match_gguf_numpy_block_by_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let blocks = 256;
    let mut jobs = vec![];
    let mut inputs = vec![];
    for (ty, name, size, scales) in TYPES {
        let mut bytes: Vec<u8> = (0..blocks * size).map(|_| next() as u8).collect();
        for block in bytes.chunks_exact_mut(size) {
            for &at in scales {
                // Finite scales of either sign and varied magnitude.
                let x =
                    ((next() % 2001) as f32 - 1000.0) / 250.0 * 0.1f32.powi((next() % 4) as i32);
                block[at..at + 2].copy_from_slice(&f16::from_f32(x).to_le_bytes());
            }
        }
        let (file, out) = (
            dir.path().join(name),
            dir.path().join(format!("{name}.out")),
        );
        std::fs::write(&file, &bytes).unwrap();
        jobs.push(json!({"type": name, "file": file, "out": out}));
        inputs.push((ty, name, bytes, out));
    }
    let gguf = trainer::gemma3_gguf_path();
    assert!(
        gguf.is_file(),
        "{} is missing: run scripts/setup.d/32-gemma3.sh",
        gguf.display()
    );
    let real = [
        ("blk.0.attn_output.weight", "Q4_K"),
        ("blk.0.ffn_down.weight", "Q6_K"),
        ("blk.0.attn_q.weight", "Q5_0"),
        ("blk.0.attn_v.weight", "Q8_0"),
    ];
    let rows = 16;
    let tensors: serde_json::Map<_, _> = real
        .iter()
        .map(|(t, _)| (t.to_string(), json!(dir.path().join(t))))
        .collect();
    super::run_reference(
        &super::gguf_python(),
        dir.path(),
        &json!({"job": "dequant", "blocks": jobs, "gguf": gguf, "tensors": tensors, "rows": rows}),
    );
    let read = |p: &std::path::Path| -> Vec<f32> {
        std::fs::read(p)
            .unwrap()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    for (ty, name, bytes, out) in inputs {
        let (ours, theirs) = (dequantize(ty, &bytes), read(&out));
        assert_eq!(ours.len(), theirs.len(), "{name}");
        let diff = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        eprintln!("{name}: {blocks} random blocks, max |Δ| = {diff}");
        assert!(
            ours.iter()
                .zip(&theirs)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{name}: max |Δ| {diff}"
        );
    }
    let g = GgufFile::read(&gguf).unwrap();
    for (tensor, ty) in real {
        let info = g.tensors.iter().find(|t| t.name == tensor).unwrap();
        assert_eq!(format!("{:?}", info.ggml_type), ty);
        let ours = Vec::<f32>::try_from(g.tensor(info).unwrap().narrow(0, 0, rows).flatten(0, -1))
            .unwrap();
        let theirs = read(&dir.path().join(tensor));
        assert_eq!(ours.len(), theirs.len());
        assert!(
            ours.iter()
                .zip(&theirs)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{tensor} ({ty}) differs"
        );
        eprintln!("{tensor} ({ty}): first {rows} rows bit-identical");
    }
}

/// A minimal GGUF v3: `kv` string metadata, then tensors (name, ggml type id, element count).
fn gguf_bytes(kv: &[(&str, &str)], tensors: &[(&str, u32, u64)]) -> Vec<u8> {
    let s = |b: &mut Vec<u8>, x: &str| {
        b.extend((x.len() as u64).to_le_bytes());
        b.extend(x.as_bytes());
    };
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend((kv.len() as u64).to_le_bytes());
    for (k, v) in kv {
        s(&mut b, k);
        b.extend(8u32.to_le_bytes());
        s(&mut b, v);
    }
    for (name, ty, n) in tensors {
        s(&mut b, name);
        b.extend(1u32.to_le_bytes());
        b.extend(n.to_le_bytes());
        b.extend(ty.to_le_bytes());
        b.extend(0u64.to_le_bytes());
    }
    b
}

#[test]
fn unsupported_types_and_missing_tensors_are_named() {
    // ggml type 13 is Q5_K, which Q4_K_M files do not hold.
    let err = GgufFile::parse(gguf_bytes(&[], &[("blk.0.ffn_up.weight", 13, 256)]))
        .err()
        .unwrap();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("Q5_K") && msg.contains("blk.0.ffn_up.weight"),
        "{msg}"
    );

    // A real Gemma 3 GGUF's metadata with one tensor left out.
    let gguf = trainer::gemma3_gguf_path();
    let g = GgufFile::read(&gguf).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(&gguf).unwrap();
    // Rename the tensor in the directory (same length), so that the file lacks it.
    let needle = b"blk.7.ffn_up.weight";
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap();
    bytes[at..at + needle.len()].copy_from_slice(b"blk.7.ffn_zz.weight");
    let broken = dir.path().join("broken.gguf");
    std::fs::write(&broken, bytes).unwrap();
    assert!(g.tensors.iter().any(|t| t.name == "blk.7.ffn_up.weight"));
    let err = trainer::gguf::import(&broken, &dir.path().join("out")).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("lacks tensor blk.7.ffn_up.weight"), "{msg}");
}
