//! The dashboard (`/ui`) in a real browser: headless Chromium driven by chromedriver (Debian's
//! packages, installed by `scripts/setup.d/45-chromium.sh`) loads the pages of the real service over a seeded pool, and
//! the test reads the DOM the browser built: curves with one vertex per stored value, a step's
//! responses per task, untrusted text shown as text, gold answers nowhere, the run page
//! following the run as it goes. Screenshots are left in `target/dashboard/` as artefacts.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use e2e::client;

use scraper::{ElementRef, Html, Selector};
use serde_json::{Value, json};
use testkit::{VerifierProcess, repo_root};
use wire::client::Client;

const RUN: &str = "dash/run 1";
const AGENTS: [&str; 2] = ["alpha", "beta"];
const STEPS: i64 = 6;
/// Rollouts per agent per task per step.
const G: usize = 2;
/// The gold answer of a task no response ever gives: it must not appear on any page.
const HIDDEN_GOLD: &str = "271828";
const HOSTILE: &str =
    "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">";

/// A headless Chromium driven over WebDriver by Debian's chromedriver: the page's scripts run
/// as in any browser, and the test reads the DOM they leave (a condition can be waited for,
/// which a one-shot `--dump-dom` cannot do on a page that long-polls).
struct Browser {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT/session/ID`.
    session: String,
    driver: Child,
    profile: PathBuf,
}

impl Browser {
    async fn start() -> Browser {
        let chromium =
            std::env::var_os("HACRL_CHROMIUM").map_or("/usr/bin/chromium".into(), PathBuf::from);
        let chromedriver = std::env::var_os("HACRL_CHROMEDRIVER")
            .map_or("/usr/bin/chromedriver".into(), PathBuf::from);
        for p in [&chromium, &chromedriver] {
            assert!(
                p.is_file(),
                "no {}: run scripts/setup.d/45-chromium.sh",
                p.display()
            );
        }
        let port = testkit::free_addr()
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .to_string();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group, which the Chromium it starts joins: Drop ends them all together.
            .process_group(0)
            .spawn()
            .expect("starting chromedriver");
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while !http
            .get(format!("{base}/status"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not answer within 30 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = std::env::temp_dir().join(format!("hacrl-dash-{}", uuid::Uuid::now_v7()));
        // The machine's network is closed: none of Chromium's background traffic.
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,1000",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([format!("--user-data-dir={}", profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args}}}});
        let r: Value = http
            .post(format!("{base}/session"))
            .json(&caps)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"));
        Browser {
            http,
            session: format!("{base}/session/{id}"),
            driver,
            profile,
        }
    }

    async fn command(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let r = self
            .http
            .request(method, format!("{}{path}", self.session))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert!(status.is_success(), "webdriver {path}: {status} {v}");
        v["value"].clone()
    }

    async fn goto(&self, url: &str) {
        self.command(reqwest::Method::POST, "/url", json!({ "url": url }))
            .await;
    }

    /// The value of a script run in the page (`return …`).
    async fn eval(&self, script: &str) -> Value {
        self.command(
            reqwest::Method::POST,
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
        .await
    }

    /// The document as the page's scripts left it.
    async fn dom(&self) -> Html {
        let html = self.eval("return document.documentElement.outerHTML").await;
        Html::parse_document(html.as_str().unwrap())
    }

    /// Loads `url` and returns its DOM.
    async fn page(&self, url: &str) -> Html {
        self.goto(url).await;
        self.dom().await
    }

    /// Waits (at most `timeout`) until `script` returns true.
    async fn wait_until(&self, script: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.eval(script).await == Value::Bool(true) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// A screenshot of `url` at 1280 × `height`, saved as `target/dashboard/<name>.png`.
    async fn screenshot(&self, url: &str, name: &str, height: u32) -> PathBuf {
        self.command(
            reqwest::Method::POST,
            "/window/rect",
            json!({"width": 1280, "height": height}),
        )
        .await;
        self.goto(url).await;
        let png = self
            .command(reqwest::Method::GET, "/screenshot", json!({}))
            .await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let dir = repo_root().join("target/dashboard");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Killing the driver alone would leave its Chromium running, reparented to init.
        // SAFETY: kill(2) on the process group this test created.
        unsafe { libc::kill(-(self.driver.id() as i32), libc::SIGKILL) };
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

/// The vertices of an SVG polyline.
fn vertices(line: &ElementRef) -> usize {
    line.attr("points").unwrap_or("").split_whitespace().count()
}

/// The number of vertices of each series of the chart of `metric`, by series label.
fn chart(doc: &Html, metric: &str) -> Vec<(String, usize)> {
    let mut lines: Vec<(String, usize)> =
        select(doc, &format!("figure[data-metric='{metric}'] polyline"))
            .iter()
            .map(|l| (l.attr("data-series").unwrap().to_string(), vertices(l)))
            .collect();
    lines.sort();
    lines
}

fn text(e: &ElementRef) -> String {
    e.text().collect()
}

struct Seeded {
    api: Client,
    agents: Vec<String>,
    tasks: Vec<String>,
}

impl Seeded {
    async fn post(&self, path: &str, body: Value) -> Value {
        self.api
            .post(path, &body)
            .await
            .unwrap_or_else(|e| panic!("POST {path}: {e}"))
    }

    /// Every agent's G responses to every task in `step`, and its metrics row.
    async fn step(&self, step: i64) {
        let mut rollouts = Vec::new();
        for (a, agent) in self.agents.iter().enumerate() {
            for (t, task) in self.tasks.iter().enumerate() {
                for g in 0..G {
                    // Task 0 (gold 12) is answered right by alpha from step 2 on, nothing else is
                    // right (task 2's gold is never given); the hostile text goes to task 1.
                    let response = match t {
                        0 if a == 0 && step >= 2 => "3 * 4 = 12, so \\boxed{12}".to_string(),
                        1 if g == 0 => format!("{HOSTILE} \\boxed{{6}}"),
                        _ => format!("I think \\boxed{{{}}}", 100 + step + g as i64),
                    };
                    rollouts.push(json!({
                        "task_id": task, "agent_id": agent, "run": RUN, "step": step,
                        "response": response, "token_count": 10 + g, "logprob_mean": -0.5,
                        "logprob_sum": -5.0,
                    }));
                }
            }
        }
        self.post("/v1/rollouts", json!({ "rollouts": rollouts }))
            .await;
        for (a, agent) in self.agents.iter().enumerate() {
            let other = AGENTS[1 - a];
            let mut extra = json!({
                "capability": 0.1 * step as f64 + a as f64 * 0.05,
                "omega_source_over_learner": { other: 1.0 + 0.1 * step as f64 },
                "clip_own": 0.2, "clip_cross": 0.5, "entropy": 1.5, "cross_inside": 0.4,
                "wait_seconds": 0.5, "cross_staleness_mean": 1.0,
                "cross_ratio_quantiles": { other: [0.6, 0.7, 0.85, 0.95, 1.05] },
                "calibration_offset": { other: 0.07 + 0.01 * step as f64 },
            });
            if step % 3 == 0 {
                extra["eval_accuracy"] = json!(0.3 + 0.01 * step as f64);
            }
            self.post(
                "/v1/metrics",
                json!({"run": RUN, "agent_id": agent, "step": step, "loss": -0.1, "kl": 0.001,
                       "grad_norm": 0.7, "extra": extra}),
            )
            .await;
        }
    }
}

async fn seed(url: &str) -> Seeded {
    let api = Client::new(url, None, Duration::from_secs(60)).unwrap();
    let mut agents = Vec::new();
    for (name, family) in AGENTS.iter().zip(["llama", "qwen3"]) {
        agents.push(client::agent(&api, name, family).await.unwrap().to_string());
    }
    let mut s = Seeded {
        api,
        agents,
        tasks: vec![],
    };
    let tasks = [
        ("0", "What is 3 * 4?", "12"),
        ("1", "What is 2 + 3?", "5"),
        ("2", "e to six digits, no point?", HIDDEN_GOLD),
    ];
    let body = json!({"tasks": tasks.iter().map(|(id, prompt, gold)| json!({
        "dataset": "dash", "external_id": id, "kind": "math", "prompt": prompt, "reference": gold,
    })).collect::<Vec<_>>()});
    s.post("/v1/tasks", body).await;
    let ids = client::task_ids(&s.api, "dash").await.unwrap();
    s.tasks = tasks.iter().map(|(id, ..)| ids[*id].to_string()).collect();
    for step in 0..STEPS {
        s.step(step).await;
    }
    s
}

/// `/ui/runs/dash%2Frun%201`: the run's name as one path segment.
fn run_path() -> String {
    format!("/ui/runs/{}", RUN.replace('/', "%2F").replace(' ', "%20"))
}

#[tokio::test(flavor = "multi_thread")]
async fn dashboard_pages_render_in_a_real_browser() {
    let b = Browser::start().await;
    let service = VerifierProcess::start("dash").await.unwrap();
    let s = seed(&service.url).await;
    let url = service.url.clone();
    let run_url = format!("{url}{}", run_path());

    // The runs list links the run.
    let runs = b.page(&format!("{url}/ui")).await;
    let links: Vec<_> = select(&runs, "a")
        .into_iter()
        .filter_map(|a| a.attr("href").map(String::from))
        .collect();
    assert!(links.contains(&run_path()), "{links:?}");

    // The run page: one line per agent, one vertex per stored value.
    let page = b.page(&run_url).await;
    let per_agent = |n: usize| {
        AGENTS
            .iter()
            .map(|a| (a.to_string(), n))
            .collect::<Vec<_>>()
    };
    let steps = STEPS as usize;
    for metric in [
        "accuracy",
        "capability",
        "clip_own",
        "clip_cross",
        "cross_inside",
        "kl",
        "grad_norm",
        "loss",
        "response_tokens",
        "entropy",
        "wait_seconds",
        "cross_staleness_mean",
    ] {
        assert_eq!(chart(&page, metric), per_agent(steps), "{metric}");
    }
    // The cross ratio: 10%, median and 90% of each source under each learner, every step.
    let ratio = chart(&page, "cross_ratio");
    assert_eq!(ratio.len(), 3 * AGENTS.len(), "{ratio:?}");
    assert!(ratio.iter().all(|(_, n)| *n == steps), "{ratio:?}");
    // eval_accuracy only in steps 0 and 3.
    assert_eq!(chart(&page, "eval_accuracy"), per_agent(2));
    // ω: one line per (source → learner) pair.
    let omega = chart(&page, "omega");
    assert_eq!(omega.len(), 2, "{omega:?}");
    assert!(
        omega
            .iter()
            .all(|(label, n)| label.contains("alpha") && label.contains("beta") && *n == steps),
        "{omega:?}"
    );
    // The calibration offset ŝ: one line per (source → learner) pair, like ω.
    let offset = chart(&page, "calibration_offset");
    assert_eq!(offset.len(), 2, "{offset:?}");
    assert!(offset.iter().all(|(_, n)| *n == steps), "{offset:?}");
    // The step table: a row per step, latest first; alpha's accuracy rises at step 2 (task 0 right).
    let rows = select(&page, "table#steps tr");
    assert_eq!(rows.len(), steps + 1);
    let cells = |row: &ElementRef| select_in(row, "td").iter().map(text).collect::<Vec<_>>();
    assert_eq!(cells(&rows[1])[0], (STEPS - 1).to_string());
    assert_eq!(cells(&rows[steps])[1..], ["0 (6)", "0 (6)"]);
    assert_eq!(cells(&rows[1])[1..], ["0.333 (6)", "0 (6)"]);

    // A step: every agent's responses per task, the hostile response as text.
    let step = b.page(&format!("{run_url}/steps/2")).await;
    let groups = select(&step, "section.group");
    assert_eq!(groups.len(), s.tasks.len());
    for g in &groups {
        let rollouts = select_in(g, "article.rollout");
        assert_eq!(rollouts.len(), AGENTS.len() * G);
        let mut agents: Vec<_> = rollouts
            .iter()
            .map(|r| r.attr("data-agent").unwrap())
            .collect();
        agents.dedup();
        assert_eq!(agents, AGENTS);
    }
    let correct = select(&step, "article.rollout.correct");
    assert_eq!(correct.len(), G, "alpha's two right answers to task 0");
    assert!(
        correct
            .iter()
            .all(|r| r.attr("data-agent") == Some("alpha"))
    );
    let responses: Vec<String> = select(&step, "pre.response").iter().map(text).collect();
    assert!(
        responses.iter().any(|r| r.starts_with(HOSTILE)),
        "{responses:?}"
    );
    assert!(
        select(&step, "main script, main img").is_empty(),
        "a response was parsed as HTML"
    );
    let title = text(&select(&step, "title")[0]);
    assert!(!title.contains("pwned"), "{title}");
    assert!(
        !step.html().contains(HIDDEN_GOLD),
        "a gold answer reached the step page"
    );

    // A task: its rollouts across steps, and still no gold answer.
    let task = b.page(&format!("{url}/ui/tasks/{}", s.tasks[2])).await;
    assert_eq!(
        select(&task, "article.rollout").len(),
        steps * AGENTS.len() * G
    );
    assert!(
        !task.html().contains(HIDDEN_GOLD),
        "a gold answer reached the task page"
    );

    // Unknown run: the error page, with the field named.
    let missing = b.page(&format!("{url}/ui/runs/nope")).await;
    let body = missing.root_element().text().collect::<String>();
    assert!(body.contains("404") && body.contains("run"), "{body}");

    // The page follows the run: a step stored while the browser has it open is drawn without a
    // reload (the long poll answers and the script swaps the new rendering in).
    b.goto(&run_url).await;
    s.step(STEPS).await;
    let drawn = format!(
        "return [...document.querySelectorAll(\"figure[data-metric='accuracy'] polyline\")]\
         .every(l => l.getAttribute('points').trim().split(/\\s+/).length === {})",
        steps + 1
    );
    assert!(
        b.wait_until(&drawn, Duration::from_secs(30)).await,
        "the open page did not follow the run"
    );
    let followed = b.dom().await;
    assert_eq!(
        chart(&followed, "accuracy"),
        per_agent(steps + 1),
        "the open page did not follow the run"
    );
    assert_eq!(select(&followed, "table#steps tr").len(), steps + 2);

    // /docs: Swagger UI, served from the binary, renders an operation of /openapi.json.
    b.goto(&format!("{url}/docs/")).await;
    let rendered = "return [...document.querySelectorAll('.opblock-summary-path')]\
                    .some(p => p.textContent.includes('/v1/pool/groups'))";
    assert!(
        b.wait_until(rendered, Duration::from_secs(30)).await,
        "Swagger UI did not render the API"
    );

    // Artefacts for people: the run page and a step.
    let run_png = b.screenshot(&run_url, "run", 1700).await;
    let step_png = b
        .screenshot(&format!("{run_url}/steps/2"), "step", 1100)
        .await;
    eprintln!("screenshots: {} {}", run_png.display(), step_png.display());
}

fn select_in<'a>(e: &ElementRef<'a>, css: &str) -> Vec<ElementRef<'a>> {
    e.select(&Selector::parse(css).unwrap()).collect()
}
