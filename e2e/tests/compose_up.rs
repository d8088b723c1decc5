//! `docker compose up`, run for real (issue 33): the unchanged compose.yaml under podman
//! (`scripts/compose`: podman-compose with the project's podman settings and base images), built,
//! started, used as the README shows, trained in, and restarted with its data kept.
//!
//! The images come from the Dockerfiles' host path (docker/build-host.sh: this build's binaries,
//! the host's setup cache), unless what their build from source depends on has changed since it
//! last passed here: then from source, as `docker compose build` does (about 35 minutes cold on 2
//! cores). `HACRL_COMPOSE_BUILD=source|host` forces one. It is `#[ignore]`d in the plain
//! `cargo test --workspace` and run by its own step of `scripts/test`:
//!   cargo test --workspace --locked --test compose_up -- --ignored --nocapture

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use e2e::repo_root;
use serde_json::{Value, json};
use wire::client::Client;

/// Every profile, so that `down` removes the containers of all of them.
const ALL_PROFILES: [&str; 4] = ["--profile", "init", "--profile", "train"];

/// One compose project of the stack, on free host ports; `down -v` when dropped.
struct Project {
    name: String,
    pg_port: u16,
    http_port: u16,
    started: Instant,
}

impl Project {
    fn new() -> anyhow::Result<Self> {
        Ok(Self {
            name: format!("hacrl-e2e-{}", std::process::id()),
            pg_port: free_port()?,
            http_port: free_port()?,
            started: Instant::now(),
        })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    fn database_url(&self) -> String {
        // compose.yaml's defaults: POSTGRES_USER/PASSWORD/DB all `hacrl`.
        format!("postgres://hacrl:hacrl@127.0.0.1:{}/hacrl", self.pg_port)
    }

    fn log(&self, what: &str) {
        eprintln!(
            "[compose {:>6.1} s] {what}",
            self.started.elapsed().as_secs_f64()
        );
    }

    /// `scripts/compose -p NAME ARGS`, with the ports given through compose.yaml's own variables.
    fn compose(&self, args: &[&str]) -> anyhow::Result<Output> {
        let out = Command::new(repo_root().join("scripts/compose"))
            .current_dir(repo_root())
            .args(["-p", &self.name])
            .args(args)
            .env("POSTGRES_PORT", self.pg_port.to_string())
            .env("VERIFIER_PORT", self.http_port.to_string())
            .output()
            .context("running scripts/compose")?;
        ensure!(
            out.status.success(),
            "scripts/compose {} failed ({}):\n{}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(out)
    }

    /// The container of `service` in this project.
    fn container(&self, service: &str) -> anyhow::Result<String> {
        let out = podman(&[
            "ps",
            "-a",
            "--filter",
            &format!("label=com.docker.compose.project={}", self.name),
            "--filter",
            &format!("label=com.docker.compose.service={service}"),
            "--format",
            "{{.Names}}",
        ])?;
        let name = out.lines().next().unwrap_or_default().trim().to_string();
        ensure!(!name.is_empty(), "no container for service `{service}`");
        Ok(name)
    }

    /// Runs the compose healthcheck of `service` until it passes. podman 4.3 schedules health
    /// checks with systemd timers, and this host has no systemd, so the test runs each check
    /// itself, at the interval compose.yaml gives; what it runs is the file's `test` command.
    fn wait_healthy(&self, service: &str, within: Duration) -> anyhow::Result<Duration> {
        let c = self.container(service)?;
        let t = Instant::now();
        loop {
            let status = Command::new("podman")
                .args(["healthcheck", "run", &c])
                .output()?;
            if status.status.success() {
                self.log(&format!("{service} healthy"));
                return Ok(t.elapsed());
            }
            if t.elapsed() > within {
                bail!(
                    "{service} not healthy after {within:?}: {}\n{}",
                    String::from_utf8_lossy(&status.stdout),
                    logs(&c)
                );
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    }

    /// Waits for the one-shot `service` to exit, and returns its exit code.
    fn wait_exit(&self, service: &str) -> anyhow::Result<i32> {
        let c = self.container(service)?;
        let code = podman(&["wait", &c])?;
        let code: i32 = code.trim().parse().context("podman wait's exit code")?;
        self.log(&format!("{service} exited with {code}"));
        if code != 0 {
            eprintln!("{}", logs(&c));
        }
        Ok(code)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for s in ["postgres", "verifier", "init", "agents", "trainer"] {
                if let Ok(c) = self.container(s) {
                    eprintln!("--- {s} ---\n{}", logs(&c));
                }
            }
        }
        let mut args = ALL_PROFILES.to_vec();
        args.extend(["down", "-v"]);
        if let Err(e) = self.compose(&args) {
            eprintln!("cleaning up: {e:#}");
        }
    }
}

fn podman(args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("podman").args(args).output()?;
    ensure!(
        out.status.success(),
        "podman {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Where the from-source build's inputs were last built and checked by this test.
const SOURCE_DIGEST: &str = "docker/source-build.sha256";

/// sha256 over what the images' build from source depends on besides the workspace's sources
/// (which the host path compiles too): the Dockerfiles, .dockerignore, Cargo.lock and every
/// Cargo.toml, vendor/, the files the Dockerfiles copy before their shared tail (the setup steps,
/// scripts/lib, what those read), docker/podman/, compose.yaml's build sections and the rustc
/// that the stand-in Rust image carries. Markdown is left out, as .dockerignore leaves it.
fn source_build_digest() -> anyhow::Result<String> {
    let root = repo_root();
    let files = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&root)
        .output()?;
    ensure!(files.status.success(), "git ls-files failed");
    let mut copied = vec!["docker/podman".to_string()];
    for dockerfile in ["docker/verifier.Dockerfile", "docker/trainer.Dockerfile"] {
        let text = std::fs::read_to_string(root.join(dockerfile))?.replace("\\\n", " ");
        // The last stage is the tail both paths share: the host path tests what it copies.
        let stages = &text[..text.rfind("\nFROM ").context("a multi-stage Dockerfile")?];
        for line in stages
            .lines()
            .filter_map(|l| l.trim().strip_prefix("COPY "))
        {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.iter().any(|w| w.starts_with("--from=")) {
                continue;
            }
            let sources = words[..words.len() - 1]
                .iter()
                .filter(|w| !w.starts_with("--"));
            copied.extend(
                sources
                    .filter(|w| **w != ".")
                    .map(|w| w.trim_end_matches('/').to_string()),
            );
        }
    }
    let wanted = |f: &str| {
        !f.ends_with(".md")
            && (["Cargo.lock", ".dockerignore"].contains(&f)
                || f.ends_with("Cargo.toml")
                || (f.starts_with("docker/") && f.ends_with(".Dockerfile"))
                || copied.iter().any(|c| {
                    f == c
                        || f.strip_prefix(c.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                }))
    };
    let mut paths: Vec<&str> = std::str::from_utf8(&files.stdout)?
        .split('\0')
        .filter(|f| wanted(f) && root.join(f).is_file())
        .collect();
    paths.sort();
    paths.dedup();
    let mut input = Vec::new();
    for f in paths {
        let bytes = std::fs::read(root.join(f))?;
        writeln!(input, "file {f} {}", bytes.len())?;
        input.extend(bytes);
    }
    let rustc = Command::new("rustc").arg("--version").output()?;
    ensure!(rustc.status.success(), "rustc --version failed");
    input.extend(b"rustc ");
    input.extend(rustc.stdout);
    let compose: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(root.join("compose.yaml"))?)?;
    for (name, service) in compose["services"].as_mapping().context("services")? {
        if !service["build"].is_null() {
            let build = serde_yaml_ng::to_string(&service["build"])?;
            writeln!(input, "build {}", name.as_str().unwrap_or_default())?;
            input.extend(build.into_bytes());
        }
    }
    let mut sha = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    sha.stdin.take().context("stdin")?.write_all(&input)?;
    let out = sha.wait_with_output()?;
    ensure!(out.status.success(), "sha256sum failed");
    let hex = String::from_utf8(out.stdout)?;
    Ok(hex
        .split_whitespace()
        .next()
        .context("a digest")?
        .to_string())
}

/// The digest in SOURCE_DIGEST: its one line that is not a comment.
fn committed_source_digest() -> Option<String> {
    let text = std::fs::read_to_string(repo_root().join(SOURCE_DIGEST)).ok()?;
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#'))?;
    Some(line.trim().to_string())
}

fn write_source_digest(digest: &str) -> anyhow::Result<()> {
    let text = format!(
        "# sha256 of what the compose images' build from source depends on besides the workspace's\n\
         # sources (e2e/tests/compose_up.rs, source_build_digest, says what). While it matches,\n\
         # that test builds the images from the host's binaries (docker/build-host.sh); when it\n\
         # does not, it builds them from source and, once every check passed, writes the new\n\
         # digest here, to be committed.\n{digest}\n"
    );
    Ok(std::fs::write(repo_root().join(SOURCE_DIGEST), text)?)
}

/// The folder of this build's binaries (the test runs from its `deps`), with the verifier and
/// the trainer built there if they are not yet: workspace-wide, so that features unify as in
/// `cargo test --workspace` and nothing else rebuilds.
fn host_binaries() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .context("the test's target folder")?
        .to_path_buf();
    if !["verifier", "trainer"]
        .iter()
        .all(|b| dir.join(b).is_file())
    {
        eprintln!("building the workspace's binaries into {}", dir.display());
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--workspace", "--locked"]);
        if dir.ends_with("release") {
            build.arg("--release");
        }
        ensure!(
            build.current_dir(repo_root()).status()?.success(),
            "cargo build --workspace --locked failed"
        );
    }
    Ok(dir)
}

fn logs(container: &str) -> String {
    Command::new("podman")
        .args(["logs", "--tail", "40", container])
        .output()
        .map(|o| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        })
        .unwrap_or_default()
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The README's walk-through: its shell block that starts by sourcing `.local/up.env`, without
/// the lines that need this checkout's own stack (the env file and the host-built binary).
fn readme_walkthrough() -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let start = readme
        .find("```sh\n. .local/up.env")
        .expect("the README's walk-through block");
    let block = &readme[start + "```sh\n".len()..];
    let block = &block[..block.find("```").expect("end of the block")];
    block
        .lines()
        .filter(|l| !l.starts_with(". .local/up.env") && !l.starts_with("target/"))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn sql_count(db: &sqlx::PgPool, query: &'static str) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(query).fetch_one(db).await?)
}

async fn run_code(api: &Client, language: &str, code: &str) -> anyhow::Result<Value> {
    let body =
        json!({"language": language, "code": code, "run_timeout": 10, "compile_timeout": 60});
    api.post::<Value>("/run_code", &body)
        .await
        .map_err(|e| anyhow::anyhow!("/run_code {language}: {e}"))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "builds the container images: run by scripts/test's compose step"]
async fn the_compose_stack_starts_scores_trains_and_keeps_its_data_across_a_restart()
-> anyhow::Result<()> {
    let p = Project::new()?;
    p.log(&format!(
        "project {}: postgres on 127.0.0.1:{}, verifier on {}",
        p.name,
        p.pg_port,
        p.url()
    ));

    // Images: the base images (pulled, or built from Debian packages), then compose's two,
    // under the names compose.yaml gives them.
    let digest = source_build_digest()?;
    let committed = committed_source_digest();
    let from_source = match std::env::var("HACRL_COMPOSE_BUILD").as_deref() {
        Ok("source") => true,
        Ok("host") => false,
        Ok(other) => bail!("HACRL_COMPOSE_BUILD={other}: `source` or `host`"),
        Err(_) => committed.as_deref() != Some(digest.as_str()),
    };
    if committed.as_deref() != Some(digest.as_str()) {
        p.log(&format!(
            "the from-source build's inputs changed since {SOURCE_DIGEST} ({digest}){}",
            if from_source {
                ""
            } else {
                ": NOT tested by this run"
            }
        ));
    }
    let all = Instant::now();
    if from_source {
        // `init` and `agents` use the images of `verifier` and `trainer`, and podman-compose would
        // build each of them twice at once if asked for every service. One at a time: built side
        // by side, the two Dockerfiles' identical `chef` stages race, each build makes its own
        // copy, and a later build may find the other copy and redo every layer below it (seen
        // 2026-12-03: the trainer's PyTorch layers and dependency build, 40 min, for nothing).
        let t = Instant::now();
        p.compose(&["build", "verifier"])?;
        p.log(&format!(
            "verifier image built from source in {:.0?}",
            t.elapsed()
        ));
        let t = Instant::now();
        p.compose(&["--profile", "train", "build", "trainer"])?;
        p.log(&format!(
            "trainer image built from source in {:.0?}",
            t.elapsed()
        ));
    } else {
        let bin = host_binaries()?;
        for image in ["verifier", "trainer"] {
            let t = Instant::now();
            let out = Command::new(repo_root().join("docker/build-host.sh"))
                .arg(image)
                .env("HACRL_BIN_DIR", &bin)
                .output()?;
            ensure!(
                out.status.success(),
                "docker/build-host.sh {image} failed ({}):\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            p.log(&format!(
                "{image} image built from {} in {:.0?}",
                bin.display(),
                t.elapsed()
            ));
        }
    }
    p.log(&format!("images built in {:.0?}", all.elapsed()));

    // `up`: PostgreSQL healthy, then the verifier healthy, with every migration applied.
    p.compose(&["up", "-d"])?;
    p.wait_healthy("postgres", Duration::from_secs(120))?;
    p.wait_healthy("verifier", Duration::from_secs(180))?;
    let db = sqlx::PgPool::connect(&p.database_url()).await?;
    let migrations = std::fs::read_dir(repo_root().join("migrations"))?
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "sql"))
        })
        .count() as i64;
    let applied = sql_count(&db, "select count(*) from _sqlx_migrations where success").await?;
    assert_eq!(
        applied, migrations,
        "migrations applied by `verifier serve`"
    );

    // The verifier runs as its non-root user.
    let verifier = p.container("verifier")?;
    let status = podman(&["exec", &verifier, "cat", "/proc/1/status"])?;
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .context("Uid line")?;
    assert!(
        uid.split_whitespace().all(|u| u == "10001"),
        "the verifier's process runs as uid {uid}"
    );

    // `--profile init` imports the example tasks.
    p.compose(&["--profile", "init", "up", "-d"])?;
    assert_eq!(p.wait_exit("init")?, 0, "init imported the tasks");
    let datasets: Vec<(String, i64)> =
        sqlx::query_as("select dataset, count(*) from tasks group by 1 order by 1")
            .fetch_all(&db)
            .await?;
    p.log(&format!("tasks: {datasets:?}"));
    let names: Vec<&str> = datasets.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(names, ["arith-test", "arith-train", "gsm8k", "humaneval"]);
    assert!(datasets.iter().all(|(_, n)| *n > 0));

    // The README's walk-through, as written, against the containerised service and database.
    let walk = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &readme_walkthrough()])
        .current_dir(repo_root())
        .env("HACRL_URL", p.url())
        .env("DATABASE_URL", p.database_url())
        .output()?;
    let said = String::from_utf8_lossy(&walk.stdout);
    eprintln!("{said}");
    assert!(
        walk.status.success(),
        "the walk-through failed: {}",
        String::from_utf8_lossy(&walk.stderr)
    );
    for expect in [
        r#""created":1"#,
        r#""reward":1.0"#,
        r#""correct":true"#,
        r#""rule":"exact""#,
        "qwen3-1.7b",
    ] {
        assert!(said.contains(expect), "no `{expect}` in the walk-through");
    }
    // The last such line: curl's output has no final newline, so psql's header joins it.
    let view = said
        .lines()
        .rfind(|l| l.contains("qwen3-1.7b") && l.contains('|'))
        .context("the SQL view's row for the scored agent")?;
    let cols: Vec<&str> = view.split('|').map(str::trim).collect();
    let accuracy: f64 = cols.last().context("accuracy column")?.parse()?;
    assert_eq!((cols[1], cols[2], accuracy), ("1", "1", 1.0), "{view}");

    // Code judged inside the container: Python, C, C++, Go and Rust, the compilers confined under the
    // container's seccomp profile, as /v1/capabilities says, and the interpreters the image
    // carries (Lua, SQLite, QuickJS, Ruby, TypeScript on QuickJS).
    let api = Client::new(&p.url(), None, Duration::from_secs(120))?;
    let caps: Value = api.get("/v1/capabilities").await?;
    p.log(&format!("capabilities: {caps}"));
    for lang in [
        "python",
        "c",
        "cpp",
        "lua",
        "sql",
        "javascript",
        "ruby",
        "typescript",
        "go",
        "rust",
    ] {
        let entry = caps["languages"]
            .as_array()
            .and_then(|l| l.iter().find(|e| e["language"] == lang))
            .with_context(|| format!("{lang} in /v1/capabilities"))?;
        assert_eq!(entry["supported"], true, "{entry}");
        if ["c", "cpp", "go", "rust"].contains(&lang) {
            let how = entry["confinement"].as_str().unwrap_or_default();
            assert!(
                ["namespaces", "landlock"].contains(&how),
                "the compiler is confined: {entry}"
            );
        }
    }
    for (lang, code) in [
        ("python", "print(6 * 7)"),
        (
            "c",
            "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 6 * 7); return 0; }",
        ),
        (
            "cpp",
            "#include <iostream>\nint main() { std::cout << 6 * 7 << std::endl; }",
        ),
        ("lua", "print(6 * 7)"),
        ("sql", "select 6 * 7;"),
        ("nodejs", "console.log(6 * 7)"),
        ("ruby", "puts 6 * 7"),
        ("typescript", "const n: number = 6 * 7;\nconsole.log(n)"),
        (
            "go",
            "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(6 * 7) }\n",
        ),
        ("rust", "fn main() {\n    println!(\"{}\", 6 * 7);\n}\n"),
    ] {
        let r = run_code(&api, lang, code).await?;
        assert_eq!(r["status"], "Success", "{lang}: {r}");
        assert_eq!(r["run_result"]["stdout"], "42\n", "{lang}: {r}");
    }
    let escape = run_code(&api, "python", "import os\nprint(sorted(os.listdir('/')))").await?;
    let listing = escape["run_result"]["stdout"].as_str().unwrap_or_default();
    assert!(
        !listing.contains("'home'") && !listing.contains("'opt'"),
        "the program sees the container's file system: {escape}"
    );

    // `--profile train`: the example's two agents made and trained on CPU in the trainer image.
    // In two commands: podman 4.3 cannot start a container that `--requires` an exited one
    // whose own dependencies are running ("not found in input list"), which is what
    // podman-compose makes of `trainer`'s depends_on `init` and `agents`; once they have
    // completed, `trainer` starts without the requirement (`--no-deps`).
    let mut prepare = ALL_PROFILES.to_vec();
    prepare.extend(["up", "-d", "init", "agents"]);
    p.compose(&prepare)?;
    assert_eq!(p.wait_exit("agents")?, 0, "agents made");
    assert_eq!(p.wait_exit("init")?, 0, "tasks imported again, unchanged");
    p.compose(&["--profile", "train", "up", "-d", "--no-deps", "trainer"])?;
    assert_eq!(p.wait_exit("trainer")?, 0, "trained");
    let trained: Vec<(String, i64)> = sqlx::query_as(
        "select a.name, count(*) from rollouts r join agents a on a.id = r.agent_id \
         where r.run = 'tiny-cpu-hacpo' group by 1 order by 1",
    )
    .fetch_all(&db)
    .await?;
    p.log(&format!("trained rollouts: {trained:?}"));
    let agents: Vec<&str> = trained.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(agents, ["tiny-llama", "tiny-qwen3-bytes"]);
    let steps = sql_count(
        &db,
        "select count(distinct step) from rollouts where run = 'tiny-cpu-hacpo'",
    )
    .await?;
    assert!(steps >= 10, "rollouts of every training step: {steps}");

    // `down`, then `up`: the named volume keeps every rollout.
    let before = sql_count(&db, "select count(*) from rollouts").await?;
    let demo = "018f0000-0000-7000-8000-000000000001";
    db.close().await;
    let mut down = ALL_PROFILES.to_vec();
    down.push("down");
    p.compose(&down)?;
    p.log(&format!("down with {before} rollouts in the pool"));
    p.compose(&["up", "-d"])?;
    p.wait_healthy("postgres", Duration::from_secs(120))?;
    p.wait_healthy("verifier", Duration::from_secs(180))?;
    let db = sqlx::PgPool::connect(&p.database_url()).await?;
    let after = sql_count(&db, "select count(*) from rollouts").await?;
    assert_eq!(after, before, "rollouts kept across down/up");
    let page: Value = api.get("/v1/rollouts?run=demo").await?;
    assert!(
        page.to_string().contains(demo),
        "the walk-through's rollout served after the restart: {page}"
    );
    p.log("restart kept the pool");

    if from_source && committed.as_deref() != Some(digest.as_str()) {
        write_source_digest(&digest)?;
        eprintln!(
            "\n*** The images' build from source passed with new inputs: {SOURCE_DIGEST} now \
             holds {digest}. COMMIT IT, or the next run builds from source again. ***\n"
        );
    }
    Ok(())
}
