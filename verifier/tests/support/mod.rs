//! Test harness: the real service on a loopback port against the real Postgres, each test in a
//! schema of its own inside the run's throwaway database (`DATABASE_URL`, set by scripts/test).
#![allow(dead_code)] // each test binary uses its own part of the harness

pub mod dataset;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use sqlx::PgPool;
use tokio::net::{TcpListener, TcpStream};
use verifier::app;
use verifier::auth::Auth;
use verifier::state::{AppState, RequestLimits};
use verifier::{code, pool};

pub use testkit::{database_url, with_schema};

/// Each case's status in a code verdict.
pub fn statuses(v: &Value) -> Vec<&str> {
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect()
}

/// The Prometheus text a service at `base_url` exposes on `/metrics`.
pub async fn metrics_text(base_url: &str) -> String {
    reqwest::get(format!("{base_url}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// A running service with its own schema.
pub struct TestService {
    /// Base URL, e.g. `http://127.0.0.1:41234`.
    pub url: String,
    /// HTTP client.
    pub http: reqwest::Client,
    /// Direct database access to the test's schema (what `psql` users see).
    pub db: PgPool,
    /// The schema's connection URL (for CLI tests).
    pub db_url: String,
}

impl TestService {
    /// Starts the service on a fresh schema.
    pub async fn start() -> Self {
        Self::start_with(RequestLimits::default(), None).await
    }

    /// Starts the service with `limits`; its database traffic goes through `via` when given
    /// (a proxy the test can cut), while `db` always connects directly.
    pub async fn start_with(limits: RequestLimits, via: Option<SocketAddr>) -> Self {
        Self::start_full(limits, via, code::JudgeConfig::default(), Auth::Open).await
    }

    /// Starts the service with its sandbox set up by `sandbox`.
    pub async fn start_with_sandbox(sandbox: code::JudgeConfig) -> Self {
        Self::start_full(RequestLimits::default(), None, sandbox, Auth::Open).await
    }

    /// Starts a service that asks every caller for a token.
    pub async fn start_with_tokens() -> Self {
        Self::start_full(
            RequestLimits::default(),
            None,
            code::JudgeConfig::default(),
            Auth::Tokens,
        )
        .await
    }

    async fn start_full(
        limits: RequestLimits,
        via: Option<SocketAddr>,
        sandbox: code::JudgeConfig,
        auth: Auth,
    ) -> Self {
        let testkit::Schema {
            name: schema,
            url: db_url,
        } = testkit::Schema::create("t")
            .await
            .expect("database reachable");
        let base = database_url();
        let db = pool::connect(&db_url, 4, Duration::from_secs(10))
            .await
            .expect("connect");
        pool::migrate(&db).await.expect("migrations apply");
        let service_url = match via {
            Some(addr) => with_schema(
                &base.replacen(&host_port(&base), &addr.to_string(), 1),
                &schema,
            ),
            None => db_url.clone(),
        };
        let service_db =
            pool::connect_lazy(&service_url, 8, Duration::from_secs(2)).expect("lazy pool");
        let judge = code::Judge::new(&sandbox).expect("sandbox starts");
        let state = AppState::new(service_db, judge, limits).with_auth(auth);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { app::serve(listener, state).await.unwrap() });
        Self {
            url: format!("http://{addr}"),
            http: reqwest::Client::new(),
            db,
            db_url,
        }
    }

    /// POSTs JSON, returning status and body.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.url))
            .json(body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// POSTs raw bytes with a content type.
    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.url))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// GETs JSON, returning status and body.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// Registers an agent and returns its id.
    pub async fn agent(&self, name: &str) -> String {
        let (status, body) = self
            .post("/v1/agents", &serde_json::json!({ "name": name }))
            .await;
        assert!(status == 201 || status == 200, "{status} {body}");
        body["id"].as_str().unwrap().to_string()
    }
}

fn host_port(url: &str) -> String {
    let after_at = url.split_once('@').map_or(url, |(_, r)| r);
    let after_scheme = after_at.split_once("://").map_or(after_at, |(_, r)| r);
    after_scheme.split(['/', '?']).next().unwrap().to_string()
}

/// A TCP proxy to the database that a test can cut (closing every connection and refusing new
/// ones) and restore, to simulate the database going away.
pub struct Proxy {
    /// Where the service should connect.
    pub addr: SocketAddr,
    up: Arc<AtomicBool>,
    generation: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Proxy {
    /// Starts forwarding to the database server of `DATABASE_URL`.
    pub async fn start() -> Self {
        let target = host_port(&database_url());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let (tx, _) = tokio::sync::watch::channel(0u64);
        let generation = Arc::new(tx);
        let (up2, gen2) = (up.clone(), generation.clone());
        tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    continue;
                };
                if !up2.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is refused
                }
                let target = target.clone();
                let mut cut = gen2.subscribe();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Self {
            addr,
            up,
            generation,
        }
    }

    /// Drops every open connection and refuses new ones.
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.generation.send_modify(|g| *g += 1);
    }

    /// Accepts connections again.
    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}
