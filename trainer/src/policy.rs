//! An agent's policy: model + tokenizer + chat template + device/dtype, loaded from and saved to
//! a Hugging Face-layout directory (or imported from a GGUF file).

use std::path::Path;

use anyhow::{Context, Result, anyhow, ensure};
use serde_json::Value;
use tch::nn::VarStore;
use tch::{Device, Kind};

use crate::chat::ChatTemplate;
use crate::checkpoint;
use crate::generation::{self, Sampled, SamplingParams};
use crate::logprob::{self, ResponseScores};
use crate::models::{Model, WeightInit};
use crate::tokenizer::Tokenizer;

/// A finished generation for one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// Token ids the model was given.
    pub prompt_ids: Vec<i64>,
    /// Sampled ids, log-probs and finish reason.
    pub sampled: Sampled,
    /// The response text (stop token and other special tokens removed; NUL characters, which
    /// text stores such as Postgres reject, replaced by U+FFFD).
    pub text: String,
}

impl Generation {
    /// The sampled ids without the terminal stop token: the trajectory whose probability RL
    /// trains on (the end-of-turn token is left out, as the official HACPO code does).
    pub fn response_ids(&self) -> &[i64] {
        let ids = &self.sampled.token_ids;
        match self.sampled.finish_reason {
            generation::FinishReason::Stop => &ids[..ids.len() - 1],
            generation::FinishReason::Length => ids,
        }
    }
}

/// A (prompt, response) pair in text form, to be scored under any policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPair {
    /// The user message (rendered through the scoring policy's chat template).
    pub prompt: String,
    /// The assistant's response text, without any end-of-turn token.
    pub response: String,
    /// Append the scoring policy's end-of-turn token (the response was complete).
    pub ends_turn: bool,
}

/// Model, tokenizer and chat template of one agent, on one device in one dtype.
pub struct Policy {
    vs: VarStore,
    model: Model,
    config_json: Value,
    tokenizer: Tokenizer,
    tokenizer_fingerprint: String,
    tokenizer_config: Value,
    generation_config: Option<Value>,
    chat: Option<ChatTemplate>,
    stop_ids: Vec<i64>,
    eos_id: Option<i64>,
    pad_id: i64,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("model_type", &self.model.config().model_type)
            .field("device", &self.vs.device())
            .field("kind", &self.vs.kind())
            .finish()
    }
}

/// The dtype used when none is asked for: bf16 on GPU, f32 on CPU.
pub fn default_kind(device: Device) -> Kind {
    if device.is_cuda() {
        Kind::BFloat16
    } else {
        Kind::Float
    }
}

fn read_json(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("invalid JSON in {}", path.display()))
}

/// A special-token entry in tokenizer_config.json is a string or `{"content": …}`.
fn token_field(cfg: &Value, field: &str) -> Option<String> {
    match &cfg[field] {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("content").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Files describing the tokenizer side of a model directory.
struct TokenizerFiles {
    tokenizer: Tokenizer,
    tokenizer_config: Value,
    generation_config: Option<Value>,
    chat_template: Option<String>,
}

impl TokenizerFiles {
    /// The chat template, compiled with the special tokens it may name.
    fn chat(&self) -> Result<Option<ChatTemplate>> {
        let tc = &self.tokenizer_config;
        self.chat_template
            .as_deref()
            .map(|src| {
                ChatTemplate::new(
                    src,
                    &token_field(tc, "bos_token").unwrap_or_default(),
                    &token_field(tc, "eos_token").unwrap_or_default(),
                )
            })
            .transpose()
    }
}

/// The tokenizer of a model or tokenizer folder and its chat template (if it has one): how a
/// model of that folder would see a prompt, without building the model.
pub fn tokenizer_and_chat(dir: &Path) -> Result<(Tokenizer, Option<ChatTemplate>)> {
    let files = read_tokenizer_files(dir)?;
    let chat = files.chat()?;
    Ok((files.tokenizer, chat))
}

fn read_tokenizer_files(dir: &Path) -> Result<TokenizerFiles> {
    let tokenizer = Tokenizer::from_file(&dir.join("tokenizer.json"))?;
    let tc_path = dir.join("tokenizer_config.json");
    let tokenizer_config = if tc_path.is_file() {
        read_json(&tc_path)?
    } else {
        Value::Object(Default::default())
    };
    let gc_path = dir.join("generation_config.json");
    let generation_config = gc_path.is_file().then(|| read_json(&gc_path)).transpose()?;
    let jinja = dir.join("chat_template.jinja");
    let chat_template = if jinja.is_file() {
        Some(std::fs::read_to_string(&jinja)?)
    } else {
        match &tokenizer_config["chat_template"] {
            Value::String(s) => Some(s.clone()),
            // Several named templates: use "default".
            Value::Array(list) => list
                .iter()
                .find(|t| t["name"] == "default")
                .and_then(|t| t["template"].as_str())
                .map(str::to_owned),
            _ => None,
        }
    };
    Ok(TokenizerFiles {
        tokenizer,
        tokenizer_config,
        generation_config,
        chat_template,
    })
}

impl Policy {
    /// Loads a model directory (config.json, weights, tokenizer files) or imports a `.gguf` file
    /// (cached under the GGUF cache dir), in the device's default dtype.
    pub fn load(path: &Path, device: Device) -> Result<Self> {
        Self::load_with_kind(path, device, default_kind(device))
    }

    /// Like [`Policy::load`] with an explicit dtype.
    pub fn load_with_kind(path: &Path, device: Device, kind: Kind) -> Result<Self> {
        let dir = crate::gguf::model_dir(path)?;
        ensure!(
            dir.is_dir(),
            "model path {} is neither a directory nor a .gguf file",
            dir.display()
        );
        let config_json = read_json(&dir.join("config.json"))?;
        let policy = Self::build(
            config_json,
            read_tokenizer_files(&dir)?,
            device,
            kind,
            WeightInit::Zeros,
        )?;
        checkpoint::load_weights(&policy.vs, &dir)
            .with_context(|| format!("loading weights from {}", dir.display()))?;
        Ok(policy)
    }

    /// A model with random weights (seeded) built from `config_json`, using the tokenizer files
    /// (tokenizer.json, tokenizer_config.json, …) found in `tokenizer_dir`.
    pub fn from_config(
        config_json: Value,
        tokenizer_dir: &Path,
        device: Device,
        kind: Kind,
        seed: i64,
    ) -> Result<Self> {
        // libtorch's generator is global: hold it from seeding to the last initialised weight,
        // so that concurrent constructions (tests run in threads) stay reproducible.
        static SEEDED_INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = SEEDED_INIT.lock().unwrap_or_else(|e| e.into_inner());
        tch::manual_seed(seed);
        Self::build(
            config_json,
            read_tokenizer_files(tokenizer_dir)?,
            device,
            kind,
            WeightInit::Random,
        )
    }

    fn build(
        config_json: Value,
        files: TokenizerFiles,
        device: Device,
        kind: Kind,
        init: WeightInit,
    ) -> Result<Self> {
        let mut vs = VarStore::new(device);
        let model = Model::from_json(&vs.root(), &config_json, init)?;
        let config = model.config().clone();
        ensure!(
            files.tokenizer.vocab_size() as i64 <= config.vocab_size,
            "tokenizer has {} tokens but the model's vocab_size is {}",
            files.tokenizer.vocab_size(),
            config.vocab_size
        );
        vs.set_kind(kind);
        let tc = &files.tokenizer_config;
        let id_of = |field: &str| token_field(tc, field).and_then(|t| files.tokenizer.token_id(&t));
        // Another model's tokenizer mostly fits inside a larger vocabulary; their BOS ids differ.
        if let (Some(bos), Some(token)) = (
            config
                .bos_token_id
                .as_ref()
                .and_then(|b| b.to_vec().first().copied()),
            token_field(tc, "bos_token"),
        ) {
            let id = files.tokenizer.token_id(&token);
            ensure!(
                id == Some(bos),
                "tokenizer does not match the model: config.json's bos_token_id is {bos}, the \
                 tokenizer's bos_token {token:?} is {}",
                id.map_or("not in its vocabulary".into(), |i| format!("id {i}"))
            );
        }
        let eos_id = id_of("eos_token").or_else(|| {
            config
                .eos_token_id
                .as_ref()
                .and_then(|e| e.to_vec().first().copied())
        });
        let mut stop_ids: Vec<i64> = eos_id.into_iter().collect();
        stop_ids.extend(config.eos_token_id.iter().flat_map(|e| e.to_vec()));
        if let Some(gc) = &files.generation_config
            && let Ok(ids) =
                serde_json::from_value::<crate::models::TokenIds>(gc["eos_token_id"].clone())
        {
            stop_ids.extend(ids.to_vec());
        }
        stop_ids.sort_unstable();
        stop_ids.dedup();
        let pad_id = id_of("pad_token").or(eos_id).unwrap_or(0);
        let chat = files.chat()?;
        Ok(Self {
            vs,
            model,
            config_json,
            tokenizer_fingerprint: files.tokenizer.fingerprint()?,
            tokenizer: files.tokenizer,
            tokenizer_config: files.tokenizer_config,
            generation_config: files.generation_config,
            chat,
            stop_ids,
            eos_id,
            pad_id,
        })
    }

    /// Writes a Hugging Face-layout directory: config.json, model.safetensors (current dtype),
    /// tokenizer.json, tokenizer_config.json and generation_config.json when known.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut config = self.config_json.clone();
        config["torch_dtype"] = Value::String(
            match self.vs.kind() {
                Kind::BFloat16 => "bfloat16",
                Kind::Half => "float16",
                _ => "float32",
            }
            .into(),
        );
        let write = |name: &str, v: &Value| -> Result<()> {
            std::fs::write(dir.join(name), serde_json::to_string_pretty(v)?)
                .with_context(|| format!("cannot write {name}"))
        };
        write("config.json", &config)?;
        write("tokenizer_config.json", &self.tokenizer_config)?;
        if let Some(gc) = &self.generation_config {
            write("generation_config.json", gc)?;
        }
        self.tokenizer.save(&dir.join("tokenizer.json"))?;
        checkpoint::save_weights(&self.vs, dir)
    }

    /// The parameters (for optimizers: `optim::AdamW::new(policy.var_store(), lr, wd)`).
    pub fn var_store(&self) -> &VarStore {
        &self.vs
    }

    /// Mutable parameters (e.g. to freeze or change dtype).
    pub fn var_store_mut(&mut self) -> &mut VarStore {
        &mut self.vs
    }

    /// The network.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// [`Tokenizer::fingerprint`] of the tokenizer, computed once at load.
    pub fn tokenizer_fingerprint(&self) -> &str {
        &self.tokenizer_fingerprint
    }

    /// The chat template, if the model has one.
    pub fn chat_template(&self) -> Option<&ChatTemplate> {
        self.chat.as_ref()
    }

    /// Device of the parameters.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// Tokens that end generation.
    pub fn stop_token_ids(&self) -> &[i64] {
        &self.stop_ids
    }

    /// The end-of-turn token appended to complete responses.
    pub fn eos_token_id(&self) -> Option<i64> {
        self.eos_id
    }

    /// Token used for padding (never attended to).
    pub fn pad_token_id(&self) -> i64 {
        self.pad_id
    }

    /// An independent copy (own parameters, same device and dtype), e.g. a frozen π_old.
    pub fn duplicate(&self) -> Result<Self> {
        let files = TokenizerFiles {
            tokenizer: self.tokenizer.clone(),
            tokenizer_config: self.tokenizer_config.clone(),
            generation_config: self.generation_config.clone(),
            chat_template: self.chat.as_ref().map(|t| t.source().to_owned()),
        };
        let mut copy = Self::build(
            self.config_json.clone(),
            files,
            self.device(),
            self.vs.kind(),
            WeightInit::Zeros,
        )?;
        copy.copy_weights_from(self)?;
        Ok(copy)
    }

    /// Copies all parameters from another policy of the same architecture (e.g. π_old ← π).
    pub fn copy_weights_from(&mut self, other: &Policy) -> Result<()> {
        self.vs
            .copy(&other.vs)
            .map_err(|e| anyhow!("cannot copy weights: {e}"))
    }

    /// The prompt text for a user message: the chat template with the generation prompt, or
    /// the message itself when the model has no template.
    pub fn prompt_text(&self, user: &str) -> Result<String> {
        crate::chat::prompt_text(self.chat.as_ref(), user)
    }

    /// Token ids of the prompt for a user message.
    pub fn encode_prompt(&self, user: &str) -> Result<Vec<i64>> {
        // The template writes BOS itself where the model wants one.
        let add_special = self.chat.is_none();
        let ids = self
            .tokenizer
            .encode(&self.prompt_text(user)?, add_special)?;
        ensure!(!ids.is_empty(), "prompt encodes to no tokens");
        Ok(ids)
    }

    /// Token ids of a response text, plus this policy's end-of-turn token when `ends_turn`.
    pub fn encode_response(&self, response: &str, ends_turn: bool) -> Result<Vec<i64>> {
        let mut ids = self.tokenizer.encode(response, false)?;
        if ends_turn {
            ids.push(
                self.eos_id
                    .ok_or_else(|| anyhow!("the model defines no end-of-turn token"))?,
            );
        }
        Ok(ids)
    }

    /// Samples one response per user message.
    pub fn generate(
        &self,
        user_messages: &[String],
        params: &SamplingParams,
    ) -> Result<Vec<Generation>> {
        let prompts = user_messages
            .iter()
            .map(|m| self.encode_prompt(m))
            .collect::<Result<Vec<_>>>()?;
        self.generate_from_ids(prompts, params)
    }

    /// Samples one response per already-tokenized prompt.
    pub fn generate_from_ids(
        &self,
        prompts: Vec<Vec<i64>>,
        params: &SamplingParams,
    ) -> Result<Vec<Generation>> {
        let stops = params.stop_token_ids.as_deref().unwrap_or(&self.stop_ids);
        let sampled = generation::sample(&self.model, &prompts, params, stops, self.pad_id)?;
        prompts
            .into_iter()
            .zip(sampled)
            .map(|(prompt_ids, sampled)| self.generation(prompt_ids, sampled))
            .collect()
    }

    /// A generation from ids sampled elsewhere (e.g. by a serving engine), its text decoded by
    /// this policy's tokenizer as for its own samples.
    pub fn generation(&self, prompt_ids: Vec<i64>, sampled: Sampled) -> Result<Generation> {
        let mut g = Generation {
            prompt_ids,
            sampled,
            text: String::new(),
        };
        g.text = self
            .tokenizer
            .decode(g.response_ids(), true)?
            .replace('\0', "\u{FFFD}");
        Ok(g)
    }

    /// Scores token-id pairs (differentiable; wrap in `tch::no_grad` when no gradient is needed).
    pub fn score_ids(&self, pairs: &[(Vec<i64>, Vec<i64>)]) -> Result<ResponseScores> {
        self.score_ids_at(pairs, 1.0)
    }

    /// [`Self::score_ids`] with the logits divided by `temperature` (the rollout temperature,
    /// as the authors' recipe scores every log-prob it compares).
    pub fn score_ids_at(
        &self,
        pairs: &[(Vec<i64>, Vec<i64>)],
        temperature: f64,
    ) -> Result<ResponseScores> {
        logprob::score(&self.model, pairs, self.pad_id, temperature)
    }

    /// Scores text pairs, re-tokenizing prompt and response with this policy's tokenizer and chat
    /// template — how a learner scores a response another agent wrote.
    pub fn score_texts(&self, pairs: &[TextPair]) -> Result<ResponseScores> {
        let ids = pairs
            .iter()
            .map(|p| {
                Ok((
                    self.encode_prompt(&p.prompt)?,
                    self.encode_response(&p.response, p.ends_turn)?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        self.score_ids(&ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_can_move_between_threads() {
        // The training loop runs agents on worker threads; tch tensors are Send but not Sync.
        fn is_send<T: Send>() {}
        is_send::<Policy>();
    }

    #[test]
    fn special_token_fields_take_both_forms() {
        let cfg = serde_json::json!({"eos_token": "<|im_end|>", "bos_token": {"content": "<s>", "lstrip": false}});
        assert_eq!(
            token_field(&cfg, "eos_token").as_deref(),
            Some("<|im_end|>")
        );
        assert_eq!(token_field(&cfg, "bos_token").as_deref(), Some("<s>"));
        assert_eq!(token_field(&cfg, "pad_token"), None);
    }
}
