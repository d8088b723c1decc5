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

/// Hugging Face name of a GGUF tensor of architecture `arch`.
pub(super) fn hf_name(arch: &str, name: &str) -> Result<String> {
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
    let gemma = arch == "gemma3";
    let hf = match part {
        "attn_norm" => "input_layernorm",
        // Gemma normalises before and after each block; its `ffn_norm` is the one before the MLP.
        "ffn_norm" if gemma => "pre_feedforward_layernorm",
        "ffn_norm" => "post_attention_layernorm",
        "post_attention_norm" if gemma => "post_attention_layernorm",
        "post_ffw_norm" if gemma => "post_feedforward_layernorm",
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

/// The GGUF tensors a model of `arch` with `layers` blocks cannot do without.
pub(super) fn required_tensors(arch: &str, layers: u64) -> Vec<String> {
    let mut per_layer = vec![
        "attn_norm",
        "ffn_norm",
        "attn_q",
        "attn_k",
        "attn_v",
        "attn_output",
        "ffn_gate",
        "ffn_up",
        "ffn_down",
    ];
    if matches!(arch, "qwen3" | "gemma3") {
        per_layer.extend(["attn_q_norm", "attn_k_norm"]);
    }
    if arch == "gemma3" {
        per_layer.extend(["post_attention_norm", "post_ffw_norm"]);
    }
    let mut names = vec![
        "token_embd.weight".to_owned(),
        "output_norm.weight".to_owned(),
    ];
    for l in 0..layers {
        names.extend(per_layer.iter().map(|p| format!("blk.{l}.{p}.weight")));
    }
    names
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
            hf_name("llama", "blk.12.attn_q.weight").unwrap(),
            "model.layers.12.self_attn.q_proj.weight"
        );
        assert_eq!(
            hf_name("llama", "blk.0.attn_k.bias").unwrap(),
            "model.layers.0.self_attn.k_proj.bias"
        );
        assert_eq!(
            hf_name("llama", "blk.3.attn_k_norm.weight").unwrap(),
            "model.layers.3.self_attn.k_norm.weight"
        );
        assert_eq!(hf_name("llama", "output.weight").unwrap(), "lm_head.weight");
        assert!(hf_name("llama", "blk.0.weird.weight").is_err());
        assert_eq!(
            hf_name("gemma3", "blk.2.ffn_norm.weight").unwrap(),
            "model.layers.2.pre_feedforward_layernorm.weight"
        );
        assert_eq!(
            hf_name("gemma3", "blk.2.post_ffw_norm.weight").unwrap(),
            "model.layers.2.post_feedforward_layernorm.weight"
        );
        assert!(hf_name("llama", "blk.2.post_ffw_norm.weight").is_err());
    }
}
