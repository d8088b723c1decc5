//! From llama.cpp's tensor layout to Hugging Face's: tensor names, and the Q/K row permutation
//! llama.cpp's converter applies to Llama models.

use anyhow::{Result, anyhow, bail};
use tch::Tensor;

/// Undoes llama.cpp's Q/K row permutation (its converter interleaves the two rotary halves of
/// every head so ggml can use GPT-J-style RoPE; Hugging Face Llama uses rotate-half).
pub fn unpermute_qk(w: &Tensor, n_heads: i64) -> Tensor {
    let (rows, cols) = (w.size()[0], w.size()[1]);
    w.reshape([n_heads, rows / n_heads / 2, 2, cols])
        .transpose(1, 2)
        .reshape([rows, cols])
}

/// The permutation llama.cpp applies (the inverse of [`unpermute_qk`]).
pub fn permute_qk(w: &Tensor, n_heads: i64) -> Tensor {
    let (rows, cols) = (w.size()[0], w.size()[1]);
    w.reshape([n_heads, 2, rows / n_heads / 2, cols])
        .transpose(1, 2)
        .reshape([rows, cols])
}

/// Hugging Face name of a GGUF tensor.
pub(super) fn hf_name(name: &str) -> Result<String> {
    let direct = match name {
        "token_embd.weight" => Some("model.embed_tokens.weight"),
        "output_norm.weight" => Some("model.norm.weight"),
        "output.weight" => Some("lm_head.weight"),
        _ => None,
    };
    if let Some(n) = direct {
        return Ok(n.to_owned());
    }
    let rest = name
        .strip_prefix("blk.")
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let (layer, rest) = rest
        .split_once('.')
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let (part, suffix) = rest
        .rsplit_once('.')
        .ok_or_else(|| anyhow!("unknown GGUF tensor {name}"))?;
    let hf = match part {
        "attn_norm" => "input_layernorm",
        "ffn_norm" => "post_attention_layernorm",
        "attn_q" => "self_attn.q_proj",
        "attn_k" => "self_attn.k_proj",
        "attn_v" => "self_attn.v_proj",
        "attn_output" => "self_attn.o_proj",
        "attn_q_norm" => "self_attn.q_norm",
        "attn_k_norm" => "self_attn.k_norm",
        "ffn_gate" => "mlp.gate_proj",
        "ffn_up" => "mlp.up_proj",
        "ffn_down" => "mlp.down_proj",
        _ => bail!("unknown GGUF tensor {name}"),
    };
    Ok(format!("model.layers.{layer}.{hf}.{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Kind;

    #[test]
    fn qk_permutation_round_trips_and_interleaves_halves() {
        let w = Tensor::arange(2 * 8 * 3, (Kind::Float, tch::Device::Cpu)).view([16, 3]);
        let p = permute_qk(&w, 2);
        assert!(unpermute_qk(&p, 2).equal(&w));
        // Head 0 rows [0..8] become 0,4,1,5,2,6,3,7: the two rotary halves interleaved.
        let rows: Vec<f32> = Vec::try_from(p.narrow(0, 0, 8).select(1, 0) / 3.0).unwrap();
        assert_eq!(rows, vec![0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
    }

    #[test]
    fn tensor_names_map_to_hugging_face() {
        assert_eq!(
            hf_name("blk.12.attn_q.weight").unwrap(),
            "model.layers.12.self_attn.q_proj.weight"
        );
        assert_eq!(
            hf_name("blk.0.attn_k.bias").unwrap(),
            "model.layers.0.self_attn.k_proj.bias"
        );
        assert_eq!(
            hf_name("blk.3.attn_k_norm.weight").unwrap(),
            "model.layers.3.self_attn.k_norm.weight"
        );
        assert_eq!(hf_name("output.weight").unwrap(), "lm_head.weight");
        assert!(hf_name("blk.0.weird.weight").is_err());
    }
}
