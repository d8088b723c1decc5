//! Shared fixtures: tiny configs and the real SmolLM2-135M-Instruct model.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;
use std::sync::Once;
use std::time::Duration;

use serde_json::{Value, json};

/// One libtorch thread per test: the test harness already runs tests in parallel, and OpenMP
/// spin-waiting across oversubscribed cores makes everything many times slower.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| tch::set_num_threads(1));
}

/// The imported SmolLM2 directory (importing the GGUF once into the cache).
pub fn smollm2_dir() -> PathBuf {
    init();
    let gguf = trainer::smollm2_gguf_path();
    assert!(
        gguf.is_file(),
        "{} is missing: run scripts/setup.d/31-smollm2.sh (or scripts/setup)",
        gguf.display()
    );
    trainer::gguf::import_cached(&gguf, &trainer::gguf::default_cache_root()).expect("GGUF import")
}

/// A tiny config of the given family; `std` controls how peaked the random logits are.
pub fn tiny_config(model_type: &str, vocab: i64, std: f64) -> Value {
    let mut cfg = json!({
        "model_type": model_type,
        "vocab_size": vocab,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "max_position_embeddings": 256,
        "tie_word_embeddings": model_type == "llama",
        "initializer_range": std,
    });
    if model_type == "qwen3" {
        cfg["head_dim"] = json!(16);
    }
    cfg
}

/// Starts the verifier on a loopback port with its own schema; returns its URL and a direct
/// database pool for assertions.
pub fn start_verifier() -> (String, sqlx::PgPool, tokio::runtime::Runtime) {
    #[derive(clap::Parser)]
    struct Sandbox {
        #[command(flatten)]
        args: verifier::code::SandboxArgs,
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let schema = format!("trainer_{}", uuid::Uuid::new_v4().simple());
    let (url, db) = rt.block_on(async {
        let admin = verifier::pool::connect(&base, 1, Duration::from_secs(10))
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("create schema {schema}")))
            .execute(&admin)
            .await
            .unwrap();
        let sep = if base.contains('?') { '&' } else { '?' };
        let db_url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
        let db = verifier::pool::connect(&db_url, 4, Duration::from_secs(10))
            .await
            .unwrap();
        verifier::pool::migrate(&db).await.unwrap();
        let judge =
            verifier::code::Judge::new(&<Sandbox as clap::Parser>::parse_from(["x"]).args).unwrap();
        let state =
            verifier::api::AppState::new(db.clone(), judge, verifier::api::Limits::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { verifier::api::serve(listener, state).await.unwrap() });
        (url, db)
    });
    (url, db, rt)
}
