//! A retool-style replay against `/run_code`: many concurrent workers, each sending
//! SandboxFusion requests drawn from a mix of program kinds (quick correct programs, wrong
//! answers, crashes, endless loops, memory bombs), checking that every answer is exactly the
//! verdict its own program and input deserve, and timing each kind.
//!
//! Every request carries its own random input, and the expected output is computed here, so a
//! confused answer (another request's output) shows as a wrong verdict. Like verl's SandboxFusion
//! client, a worker waits `compile_timeout + run_timeout + 10 s` for an answer and retries only
//! 504; anything else that is not a SandboxFusion answer is an API error.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use splitmix::SplitMix64;
use tokio::sync::Mutex;

use crate::load::nearest_rank;

/// What verl's client adds to `compile_timeout + run_timeout` as its read timeout.
const READ_MARGIN: Duration = Duration::from_secs(10);
/// Attempts per request when the service answers 504 (verl's client retries 504 only).
const MAX_ATTEMPTS: u32 = 5;

/// A kind of program in the mix, with the verdict it must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `print(1)`: the cheapest possible run.
    Print,
    /// Python reading two numbers and printing their sum.
    Sum,
    /// C++ (iostream) reading two numbers and printing their sum: a cached native build.
    CppSum,
    /// Python printing the sum plus one: runs fine, wrong answer.
    Wrong,
    /// Python raising an exception after reading its input.
    Crash,
    /// `while True: pass`: must come back as a time limit.
    Loop,
    /// Python growing a list of 1 MiB buffers: must come back as a memory limit.
    Bomb,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 7] = [
        Kind::Print,
        Kind::Sum,
        Kind::CppSum,
        Kind::Wrong,
        Kind::Crash,
        Kind::Loop,
        Kind::Bomb,
    ];

    /// The kind's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Print => "print",
            Kind::Sum => "sum",
            Kind::CppSum => "cpp_sum",
            Kind::Wrong => "wrong",
            Kind::Crash => "crash",
            Kind::Loop => "loop",
            Kind::Bomb => "bomb",
        }
    }

    fn language(self) -> &'static str {
        match self {
            Kind::CppSum => "cpp",
            _ => "python",
        }
    }

    fn code(self) -> &'static str {
        match self {
            Kind::Print => "print(1)\n",
            Kind::Sum => "a, b = map(int, input().split())\nprint(a + b)\n",
            Kind::CppSum => {
                "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; \
                 std::cout << a + b << std::endl; }\n"
            }
            Kind::Wrong => "a, b = map(int, input().split())\nprint(a + b + 1)\n",
            Kind::Crash => "a, b = map(int, input().split())\nraise ValueError(a - b)\n",
            Kind::Loop => "while True:\n    pass\n",
            Kind::Bomb => "xs = []\nwhile True:\n    xs.append(bytearray(1 << 20))\n",
        }
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Kind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown kind {s:?} (one of {})", names.join(", "))
            })
    }
}

/// Weights of each kind, parsed from `print=0,sum=70,…`.
#[derive(Debug, Clone)]
pub struct Mix(pub Vec<(Kind, u32)>);

impl FromStr for Mix {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = Vec::new();
        for item in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (kind, weight) = item
                .split_once('=')
                .ok_or_else(|| format!("{item:?} is not kind=weight"))?;
            let weight: u32 = weight
                .trim()
                .parse()
                .map_err(|_| format!("weight {weight:?} of {kind} is not a whole number"))?;
            parts.push((kind.trim().parse()?, weight));
        }
        if parts.iter().map(|(_, w)| w).sum::<u32>() == 0 {
            return Err("the mix needs at least one positive weight".into());
        }
        Ok(Mix(parts))
    }
}

impl Mix {
    fn draw(&self, rng: &mut SplitMix64) -> Kind {
        let total: u32 = self.0.iter().map(|(_, w)| w).sum();
        let mut at = rng.below(total as usize) as u32;
        for &(kind, weight) in &self.0 {
            if at < weight {
                return kind;
            }
            at -= weight;
        }
        unreachable!("the draw is below the total weight")
    }
}

/// How to run the replay.
#[derive(Debug, Clone)]
pub struct ReplayConfig {
    /// Concurrent workers, each with one request in flight.
    pub workers: usize,
    /// Requests in all.
    pub requests: usize,
    /// The mix of kinds.
    pub mix: Mix,
    /// `run_timeout` sent with every request, in seconds.
    pub run_timeout: f64,
    /// `memory_limit_MB` sent with every request.
    pub memory_limit_mb: i64,
    /// Seed of the draws.
    pub seed: u64,
}

/// One kind's tally.
#[derive(Debug, Clone, Default)]
pub struct KindReport {
    /// Requests answered with the right verdict.
    pub correct: usize,
    /// Requests answered with another verdict, with the first few differences.
    pub wrong: usize,
    /// Requests with no SandboxFusion answer (transport error, other status, 504 to the end).
    pub api_errors: usize,
    /// 504 answers that were retried.
    pub retries: usize,
    /// Latencies of the answered requests, in ms, sorted.
    pub latencies_ms: Vec<f64>,
    /// Up to three examples of wrong verdicts or API errors.
    pub examples: Vec<String>,
}

/// The whole replay's result.
#[derive(Debug, Clone)]
pub struct ReplayReport {
    /// Per kind.
    pub kinds: BTreeMap<Kind, KindReport>,
    /// Wall time of the replay.
    pub wall: Duration,
    /// `/healthz` latencies sampled once a second during the replay, ms, sorted.
    pub healthz_ms: Vec<f64>,
    /// CPU time this client process used during the replay.
    pub client_cpu: Duration,
}

impl ReplayReport {
    /// Requests answered, of every kind.
    pub fn answered(&self) -> usize {
        self.kinds.values().map(|k| k.correct + k.wrong).sum()
    }

    /// Wrong verdicts and API errors, of every kind.
    pub fn failures(&self) -> usize {
        self.kinds.values().map(|k| k.wrong + k.api_errors).sum()
    }
}

/// Runs the replay against the service at `base`, sending `token` as a bearer token if given.
pub async fn run(
    base: &str,
    token: Option<&str>,
    cfg: &ReplayConfig,
) -> anyhow::Result<ReplayReport> {
    anyhow::ensure!(cfg.workers > 0, "the replay needs at least one worker");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(cfg.workers)
        .build()?;
    let url = format!("{}/run_code", base.trim_end_matches('/'));
    let next = Arc::new(AtomicUsize::new(0));
    let tally: Arc<Mutex<BTreeMap<Kind, KindReport>>> = Arc::default();
    let cpu_before = cpu_time();
    let start = Instant::now();
    let done = Arc::new(tokio::sync::Notify::new());
    let healthz = tokio::spawn(sample_healthz(
        http.clone(),
        format!("{}/healthz", base.trim_end_matches('/')),
        done.clone(),
    ));
    let mut workers = Vec::new();
    for _ in 0..cfg.workers {
        let (http, url, next, tally, cfg) = (
            http.clone(),
            url.clone(),
            next.clone(),
            tally.clone(),
            cfg.clone(),
        );
        let token = token.map(str::to_string);
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cfg.requests {
                    break;
                }
                let mut rng = SplitMix64(cfg.seed ^ (i as u64).wrapping_mul(0x9E37_79B9));
                let kind = cfg.mix.draw(&mut rng);
                let (a, b) = (rng.range(-1_000_000, 1_000_000), rng.range(0, 1_000_000));
                let outcome = one(&http, &url, token.as_deref(), &cfg, kind, a, b).await;
                let mut t = tally.lock().await;
                let k = t.entry(kind).or_default();
                k.retries += outcome.retries;
                match outcome.result {
                    Ok(ms) => {
                        k.correct += 1;
                        k.latencies_ms.push(ms);
                    }
                    Err(Answer::Wrong(ms, why)) => {
                        k.wrong += 1;
                        k.latencies_ms.push(ms);
                        if k.examples.len() < 3 {
                            k.examples.push(why);
                        }
                    }
                    Err(Answer::Api(why)) => {
                        k.api_errors += 1;
                        if k.examples.len() < 3 {
                            k.examples.push(why);
                        }
                    }
                }
            }
        }));
    }
    for w in workers {
        w.await?;
    }
    let wall = start.elapsed();
    done.notify_one();
    let mut healthz_ms = healthz.await?;
    healthz_ms.sort_by(f64::total_cmp);
    let mut kinds = std::mem::take(&mut *tally.lock().await);
    for k in kinds.values_mut() {
        k.latencies_ms.sort_by(f64::total_cmp);
    }
    Ok(ReplayReport {
        kinds,
        wall,
        healthz_ms,
        client_cpu: cpu_time().saturating_sub(cpu_before),
    })
}

/// How one request went.
struct Outcome {
    result: Result<f64, Answer>,
    retries: usize,
}

/// A request that did not get its right verdict.
enum Answer {
    /// Answered in this many ms, with another verdict.
    Wrong(f64, String),
    /// No SandboxFusion answer.
    Api(String),
}

async fn one(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    cfg: &ReplayConfig,
    kind: Kind,
    a: i64,
    b: i64,
) -> Outcome {
    let body = json!({
        "code": kind.code(),
        "language": kind.language(),
        "stdin": format!("{a} {b}\n"),
        "run_timeout": cfg.run_timeout,
        "compile_timeout": 10,
        "memory_limit_MB": cfg.memory_limit_mb,
    });
    let read_timeout = Duration::from_secs_f64(cfg.run_timeout + 10.0) + READ_MARGIN;
    let mut retries = 0;
    let start = Instant::now();
    for _ in 0..MAX_ATTEMPTS {
        let mut req = http.post(url).json(&body).timeout(read_timeout);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => return api(retries, format!("{kind:?}: transport: {e}")),
        };
        let status = resp.status().as_u16();
        let answer: Value = match resp.json().await {
            Ok(v) => v,
            Err(e) => return api(retries, format!("{kind:?}: HTTP {status}, body: {e}")),
        };
        match status {
            200 => {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let result = judge(kind, a, b, &answer).map(|()| ms).map_err(|why| {
                    Answer::Wrong(ms, format!("{kind:?} ({a} {b}): {why}: {answer}"))
                });
                return Outcome { result, retries };
            }
            504 => {
                retries += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            s => return api(retries, format!("{kind:?}: HTTP {s}: {answer}")),
        }
    }
    api(
        retries,
        format!("{kind:?}: 504 on all {MAX_ATTEMPTS} attempts"),
    )
}

fn api(retries: usize, why: String) -> Outcome {
    Outcome {
        result: Err(Answer::Api(why)),
        retries,
    }
}

/// Whether `answer` is the verdict `kind` deserves on input `a b`.
fn judge(kind: Kind, a: i64, b: i64, answer: &Value) -> Result<(), String> {
    let run = &answer["run_result"];
    let field = |v: &Value, k: &str| v[k].as_str().unwrap_or("").to_string();
    let (status, run_status) = (field(answer, "status"), field(run, "status"));
    let stdout = field(run, "stdout");
    let expect = |want_status: &str, want_run: &str, want_out: Option<String>| {
        if status != want_status || run_status != want_run {
            return Err(format!(
                "status {status}/{run_status}, wanted {want_status}/{want_run}"
            ));
        }
        match want_out {
            Some(out) if stdout.trim_end() != out => {
                Err(format!("stdout {stdout:?}, wanted {out}"))
            }
            _ => Ok(()),
        }
    };
    match kind {
        Kind::Print => expect("Success", "Finished", Some("1".into())),
        Kind::Sum | Kind::CppSum => expect("Success", "Finished", Some((a + b).to_string())),
        Kind::Wrong => expect("Success", "Finished", Some((a + b + 1).to_string())),
        Kind::Crash => {
            expect("Failed", "Finished", None)?;
            let stderr = field(run, "stderr");
            if !stderr.contains(&format!("ValueError: {}", a - b)) {
                return Err(format!("stderr {stderr:?} lacks its own ValueError"));
            }
            Ok(())
        }
        Kind::Loop => expect("Failed", "TimeLimitExceeded", None),
        Kind::Bomb => match field(answer, "sandbox_status").as_str() {
            "memory_limit" => Ok(()),
            other => Err(format!("sandbox_status {other:?}, wanted memory_limit")),
        },
    }
}

/// `/healthz` latencies, once a second until `done`.
async fn sample_healthz(
    http: reqwest::Client,
    url: String,
    done: Arc<tokio::sync::Notify>,
) -> Vec<f64> {
    let mut out = Vec::new();
    loop {
        let t = Instant::now();
        if http.get(&url).send().await.is_ok() {
            out.push(t.elapsed().as_secs_f64() * 1e3);
        }
        tokio::select! {
            _ = done.notified() => return out,
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// This process's user + system CPU time.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The report as a Markdown table, with totals.
pub fn markdown(r: &ReplayReport) -> String {
    let mut out = String::from(
        "| kind | requests | correct | wrong verdicts | API errors | 504 retried | p50 ms | p99 ms |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (kind, k) in &r.kinds {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |\n",
            kind.name(),
            k.correct + k.wrong + k.api_errors,
            k.correct,
            k.wrong,
            k.api_errors,
            k.retries,
            nearest_rank(&k.latencies_ms, 0.5),
            nearest_rank(&k.latencies_ms, 0.99),
        );
    }
    let secs = r.wall.as_secs_f64();
    out += &format!(
        "\n{} answered in {secs:.1} s: {:.0} requests/s; {} failures; /healthz p50 {:.1} ms, \
         max {:.1} ms ({} samples); client CPU {:.1} s ({:.0} % of one core)\n",
        r.answered(),
        r.answered() as f64 / secs,
        r.failures(),
        nearest_rank(&r.healthz_ms, 0.5),
        r.healthz_ms.last().copied().unwrap_or(0.0),
        r.healthz_ms.len(),
        r.client_cpu.as_secs_f64(),
        100.0 * r.client_cpu.as_secs_f64() / secs,
    );
    for (kind, k) in &r.kinds {
        for e in &k.examples {
            out += &format!("- {}: {e}\n", kind.name());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_parses_and_refuses_bad_items() {
        let m: Mix = "print=1, sum=3".parse().unwrap();
        assert_eq!(m.0, vec![(Kind::Print, 1), (Kind::Sum, 3)]);
        assert!(
            "nope=1"
                .parse::<Mix>()
                .unwrap_err()
                .contains("unknown kind")
        );
        assert!("sum".parse::<Mix>().unwrap_err().contains("kind=weight"));
        assert!("sum=0".parse::<Mix>().unwrap_err().contains("positive"));
    }

    #[test]
    fn draws_follow_the_weights() {
        let m: Mix = "print=1,loop=3".parse().unwrap();
        let mut rng = SplitMix64(7);
        let loops = (0..4000).filter(|_| m.draw(&mut rng) == Kind::Loop).count();
        assert!((2800..3200).contains(&loops), "{loops} loops of 4000");
    }

    #[test]
    fn judge_tells_right_from_confused_answers() {
        let ok =
            json!({"status": "Success", "run_result": {"status": "Finished", "stdout": "5\n"}});
        assert!(judge(Kind::Sum, 2, 3, &ok).is_ok());
        assert!(
            judge(Kind::Sum, 2, 4, &ok)
                .unwrap_err()
                .contains("wanted 6")
        );
        assert!(judge(Kind::Wrong, 2, 2, &ok).is_ok());
        let tle = json!({"status": "Failed", "run_result": {"status": "TimeLimitExceeded"}});
        assert!(judge(Kind::Loop, 0, 0, &tle).is_ok());
        assert!(judge(Kind::Print, 0, 0, &tle).is_err());
        let crash = json!({"status": "Failed", "run_result": {"status": "Finished",
            "stderr": "Traceback…\nValueError: -1\n"}});
        assert!(judge(Kind::Crash, 1, 2, &crash).is_ok());
        assert!(judge(Kind::Crash, 2, 1, &crash).is_err());
        let mle = json!({"status": "Failed", "sandbox_status": "memory_limit"});
        assert!(judge(Kind::Bomb, 0, 0, &mle).is_ok());
    }
}
