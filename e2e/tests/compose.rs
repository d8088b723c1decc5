//! Static checks of the container stack (no container engine runs here): compose.yaml parses,
//! and every path, port, variable and command in it and in docker/*.Dockerfile exists in the
//! repository and matches the binaries' real flags, environment variables and defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use e2e::help::help;
use e2e::{repo_root, workspace_binary};
use serde_yaml_ng::Value;

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

fn compose() -> Value {
    serde_yaml_ng::from_str(&read("compose.yaml")).expect("compose.yaml is valid YAML")
}

fn service<'a>(c: &'a Value, name: &str) -> &'a Value {
    let s = &c["services"][name];
    assert!(s.is_mapping(), "compose.yaml has no service `{name}`");
    s
}

fn strs(v: &Value) -> Vec<String> {
    v.as_sequence()
        .map(|s| {
            s.iter()
                .map(|x| x.as_str().expect("a string").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// `${NAME}`, `${NAME:-default}`, `${NAME-default}` references (not `$${…}` escapes), in order.
fn interpolations(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("${") {
        let start = i + at;
        i = start + 2;
        if start > 0 && b[start - 1] == b'$' {
            continue;
        }
        let end = start + text[start..].find('}').expect("unclosed ${");
        let inner = &text[start + 2..end];
        let (name, default) = match inner.find([':', '-', '?']) {
            Some(k) => {
                let rest = &inner[k..];
                let default = rest.strip_prefix(":-").or_else(|| rest.strip_prefix('-'));
                (&inner[..k], default.map(str::to_string))
            }
            None => (inner, None),
        };
        out.push((name.to_string(), default));
    }
    out
}

/// `.env.example`: every `NAME=value` line, commented out or not.
fn env_example() -> BTreeMap<String, String> {
    read(".env.example")
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `verifier` invocations in a service: its command array, or the commands of an `sh -c` script.
fn verifier_invocations(s: &Value) -> Vec<Vec<String>> {
    let entry = strs(&s["entrypoint"]);
    let command = strs(&s["command"]);
    if entry.first().is_some_and(|e| e.ends_with("/sh")) {
        command
            .iter()
            .flat_map(|script| {
                script
                    .split("&&")
                    .map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            })
            .filter(|words| words.first().is_some_and(|w| w == "verifier"))
            .map(|words| words[1..].to_vec())
            .collect()
    } else {
        vec![command]
    }
}

/// The binary's defaults a service may override on purpose, with the reason.
const INTENTIONAL_OVERRIDES: &[(&str, &str)] = &[("VERIFIER_LOG_FORMAT", "json")]; // log shippers read JSON in containers

/// Variables read by the verifier outside its flags.
const NON_FLAG_ENV: &[&str] = &["RUST_LOG"]; // tracing's EnvFilter

#[test]
fn compose_declares_the_stack_with_health_gated_start_and_profiles() {
    let c = compose();
    let names: BTreeSet<String> = c["services"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["agents", "init", "postgres", "trainer", "verifier"]
            .map(String::from)
            .into()
    );

    let pg = service(&c, "postgres");
    assert!(
        pg["image"].as_str().unwrap().starts_with("postgres:15"),
        "the schema is tested on PostgreSQL 15"
    );
    assert!(
        strs(&pg["healthcheck"]["test"])
            .join(" ")
            .contains("pg_isready")
    );
    let volume = strs(&pg["volumes"]).join(" ");
    let named = volume.split(':').next().unwrap();
    assert!(
        c["volumes"].as_mapping().unwrap().contains_key(named),
        "volume `{named}` is not declared"
    );

    for (name, needs, condition) in [
        ("verifier", "postgres", "service_healthy"),
        ("init", "verifier", "service_healthy"),
        ("trainer", "verifier", "service_healthy"),
    ] {
        assert_eq!(
            service(&c, name)["depends_on"][needs]["condition"].as_str(),
            Some(condition),
            "{name} must wait for a healthy {needs}"
        );
    }
    assert_eq!(
        strs(&service(&c, "verifier")["profiles"]),
        Vec::<String>::new(),
        "the verifier starts with plain `docker compose up`"
    );
    assert_eq!(strs(&service(&c, "init")["profiles"]), ["init", "train"]);
    assert_eq!(strs(&service(&c, "trainer")["profiles"]), ["train"]);
    assert_eq!(
        service(&c, "trainer")["depends_on"]["init"]["condition"].as_str(),
        Some("service_completed_successfully"),
        "training starts after its tasks are imported"
    );
    // GPUs are opt-in (compose_train.rs checks compose.gpu.yaml): a laptop runs this file.
    assert!(
        service(&c, "trainer")["deploy"].is_null(),
        "compose.yaml must not reserve GPUs"
    );
}

#[test]
fn every_compose_variable_is_documented_in_env_example_with_the_same_default() {
    let documented = env_example();
    let used = interpolations(&read("compose.yaml"));
    assert!(!used.is_empty());
    let mut used_names = BTreeSet::new();
    for (name, default) in &used {
        used_names.insert(name.clone());
        let doc = documented.get(name).unwrap_or_else(|| {
            panic!("${{{name}}} is used in compose.yaml but not in .env.example")
        });
        if let Some(d) = default {
            assert_eq!(
                d, doc,
                "default of ${{{name}}} differs between compose.yaml and .env.example"
            );
        }
    }
    // Variables compose passes through unset (`NAME:` without a value) are documented too.
    let c = compose();
    for (svc, s) in c["services"].as_mapping().unwrap() {
        if let Some(env) = s["environment"].as_mapping() {
            for (k, v) in env {
                if v.is_null() {
                    let k = k.as_str().unwrap();
                    assert!(
                        documented.contains_key(k),
                        "{k} (passed through to {}) is not in .env.example",
                        svc.as_str().unwrap()
                    );
                    used_names.insert(k.to_string());
                }
            }
        }
    }
    let unused: Vec<_> = documented
        .keys()
        .filter(|k| !used_names.contains(*k))
        .collect();
    assert!(
        unused.is_empty(),
        ".env.example documents variables compose.yaml does not use: {unused:?}"
    );
}

#[test]
fn verifier_services_use_only_real_flags_env_vars_and_defaults() {
    let verifier = workspace_binary("verifier").expect("verifier binary");
    let c = compose();
    let env_doc = env_example();
    let mut checked = 0;
    for name in ["verifier", "init"] {
        let s = service(&c, name);
        assert!(s["image"].as_str().unwrap().starts_with("hacrl/verifier:"));
        let mut subcommands = Vec::new();
        for args in verifier_invocations(s) {
            let sub = args
                .first()
                .unwrap_or_else(|| panic!("{name}: empty verifier command"));
            let h = help(&verifier, sub);
            for flag in args.iter().filter(|a| a.starts_with("--")) {
                assert!(
                    h.flags.contains(flag),
                    "{name}: `verifier {sub}` has no flag {flag} (it has {:?})",
                    h.flags
                );
            }
            subcommands.push((sub.clone(), h));
            checked += 1;
        }
        for (var, value) in s["environment"].as_mapping().unwrap() {
            let var = var.as_str().unwrap();
            if NON_FLAG_ENV.contains(&var) {
                continue;
            }
            let (sub, h) = subcommands
                .iter()
                .find(|(_, h)| h.env.contains_key(var))
                .unwrap_or_else(|| panic!("{name}: no verifier subcommand it runs reads {var}"));
            // The default compose passes must be the binary's own, unless overridden on purpose.
            // Only a value that is exactly `${VAR:-default}` carries a default to compare.
            let compose_default = value
                .as_str()
                .filter(|v| v.starts_with("${") && v.ends_with('}') && v.matches("${").count() == 1)
                .and_then(|v| interpolations(v).into_iter().next())
                .and_then(|(_, d)| d);
            if let (Some(d), Some(Some(binary_default))) = (compose_default, h.env.get(var)) {
                let intentional = INTENTIONAL_OVERRIDES
                    .iter()
                    .any(|(k, v)| *k == var && *v == d);
                assert!(
                    intentional || d == *binary_default,
                    "{name}: {var} defaults to {d} in compose but to {binary_default} in `verifier {sub}`"
                );
                assert_eq!(env_doc.get(var), Some(&d));
            }
        }
    }
    assert_eq!(checked, 5, "serve + four import-tasks");
}

#[test]
fn ports_agree_between_compose_dockerfile_and_the_service_routes() {
    let c = compose();
    let v = service(&c, "verifier");
    let command = strs(&v["command"]);
    let listen = &command[command
        .iter()
        .position(|a| a == "--listen")
        .expect("verifier --listen")
        + 1];
    let port = listen.rsplit(':').next().unwrap();
    assert!(
        listen.starts_with("0.0.0.0:"),
        "inside a container the service must listen on all interfaces"
    );
    let mapped = strs(&v["ports"]);
    assert!(
        mapped.iter().any(|m| m.ends_with(&format!(":{port}"))),
        "ports {mapped:?} do not publish {port}"
    );
    let health = strs(&v["healthcheck"]["test"]).join(" ");
    assert!(
        health.contains(&format!("127.0.0.1:{port}/readyz")),
        "{health}"
    );

    let dockerfile = read("docker/verifier.Dockerfile");
    assert!(dockerfile.contains(&format!("EXPOSE {port}")));
    assert!(dockerfile.contains(&format!("VERIFIER_LISTEN=0.0.0.0:{port}")));
    assert!(dockerfile.contains(&format!("http://127.0.0.1:{port}/readyz")));
    let routes = read("verifier/src/routes.rs");
    assert!(
        routes.contains("\"/readyz\", open"),
        "the health checks probe a route the service serves"
    );
}

#[test]
fn init_imports_the_same_files_as_scripts_up() {
    let c = compose();
    let init = service(&c, "init");
    let up = read("scripts/up");
    let mounts = strs(&init["volumes"]);
    assert!(
        mounts.iter().any(|m| m.ends_with(":/data:ro")),
        "{mounts:?}"
    );
    assert!(
        mounts.contains(&"./examples:/examples:ro".to_string()),
        "{mounts:?}"
    );
    let mut files = Vec::new();
    for args in verifier_invocations(init) {
        assert_eq!(args[0], "import-tasks");
        let dataset = &args[args.iter().position(|a| a == "--dataset").unwrap() + 1];
        if let Some(example) = args[1].strip_prefix("/examples/") {
            // The example run's own tasks, from the repository.
            assert!(
                repo_root().join("examples").join(example).is_file(),
                "no examples/{example}"
            );
            continue;
        }
        let file = args[1]
            .strip_prefix("/data/")
            .expect("imports from /data or /examples");
        assert!(
            up.contains(&format!("\"$data/{file}\"")),
            "scripts/up does not import {file}"
        );
        assert!(
            up.contains(&format!("--dataset {dataset}")),
            "scripts/up names no dataset {dataset}"
        );
        files.push(file.to_string());
    }
    assert_eq!(files, ["gsm8k_test.jsonl", "HumanEval.jsonl.gz"]);
    // Both default to the data/ folder the repository ships, so a clean clone has the files.
    assert!(up.contains("data=\"${HACRL_DATA:-$root/data}\""));
    assert_eq!(
        env_example().get("HACRL_DATA").map(String::as_str),
        Some("./data")
    );
    let data = repo_root().join("data");
    for f in &files {
        assert!(data.join(f).is_file(), "{} has no {f}", data.display());
    }
}

/// Dockerfile instructions with continuation lines joined.
fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') || (t.is_empty() && cur.is_empty()) {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(part) => cur.push_str(part),
            None => {
                cur.push_str(t);
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    out
}

fn workspace_members() -> BTreeSet<String> {
    let cargo = read("Cargo.toml");
    let line = cargo
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("workspace members");
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn dockerfiles_copy_existing_paths_build_workspace_binaries_and_run_unprivileged() {
    let c = compose();
    let members = workspace_members();
    let ignored = read(".dockerignore");
    let ignored: Vec<&str> = ignored
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        ignored.contains(&"target") && ignored.contains(&".local"),
        "build outputs stay out of the context"
    );
    for (svc, binary) in [("verifier", "verifier"), ("trainer", "trainer")] {
        let build = &service(&c, svc)["build"];
        let context = repo_root().join(build["context"].as_str().unwrap());
        let rel = build["dockerfile"].as_str().unwrap();
        let text = std::fs::read_to_string(context.join(rel))
            .unwrap_or_else(|_| panic!("{svc}: no {rel}"));
        let ins = instructions(&text);
        let mut copies = 0;
        for i in ins
            .iter()
            .filter(|i| i.starts_with("COPY ") && !i.contains("--from="))
        {
            let words: Vec<&str> = i
                .split_whitespace()
                .filter(|w| !w.starts_with("--"))
                .collect();
            for src in &words[1..words.len() - 1] {
                assert!(
                    context.join(src).exists(),
                    "{rel}: COPY source {src} does not exist"
                );
                assert!(
                    !ignored.iter().any(|p| p.trim_end_matches('/') == *src),
                    "{rel}: {src} is excluded by .dockerignore"
                );
                copies += 1;
            }
        }
        assert!(copies > 0);
        let builds: Vec<&String> = ins.iter().filter(|i| i.contains("cargo build")).collect();
        assert_eq!(builds.len(), 1, "{rel}");
        assert!(
            builds[0].contains(&format!("-p {binary} --bin {binary}"))
                && builds[0].contains("--locked"),
            "{}",
            builds[0]
        );
        assert!(
            ins.iter()
                .any(|i| i.contains(&format!("cargo chef cook --release --locked -p {binary}"))),
            "{rel}: dependency layer caching"
        );
        assert!(
            members.contains(binary),
            "{binary} is not a workspace member"
        );
        assert!(ins.iter().any(|i| i
            == &format!(
                "COPY --from=builder /src/target/release/{binary} /usr/local/bin/{binary}"
            )));
        assert!(ins.contains(&format!("ENTRYPOINT [\"{binary}\"]")), "{rel}");
        let user = ins
            .iter()
            .rev()
            .find_map(|i| i.strip_prefix("USER "))
            .unwrap_or("root");
        assert!(
            user != "root" && user != "0",
            "{rel}: the final stage runs as root"
        );
        let image = service(&c, svc)["image"].as_str().unwrap();
        assert!(image.starts_with(&format!("hacrl/{binary}:")));
    }
    // The verifier image: health-checked, sandbox runtimes fetched by the project's setup step,
    // module cache warmed with an input file the real binary grades.
    let text = read("docker/verifier.Dockerfile");
    assert!(text.contains("HEALTHCHECK"));
    assert!(
        text.contains("scripts/setup.d/20-python-wasm.sh")
            && text.contains("HACRL_CACHE=/opt/hacrl/cache")
    );
    let verifier = workspace_binary("verifier").unwrap();
    let out = Command::new(&verifier)
        .args(["score"])
        .arg(repo_root().join("docker/warmup.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "warm-up input rejected: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let graded = String::from_utf8(out.stdout).unwrap();
    let kinds: Vec<String> = graded
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["verdict"]["kind"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(kinds, ["code", "math"], "{graded}");
    // The trainer image: DESIGN.md's libtorch recipe.
    let trainer = read("docker/trainer.Dockerfile");
    for needle in [
        "torch==${TORCH_VERSION}",
        "ARG TORCH_VERSION=2.13.0",
        "LIBTORCH_USE_PYTORCH=1",
        "VIRTUAL_ENV=/opt/torch",
        "HACRL_TORCH_CUDA=1",
        "nvidia/cuda:",
    ] {
        assert!(
            trainer.contains(needle),
            "trainer.Dockerfile lacks {needle}"
        );
    }
}

/// The container side of a `SOURCE:TARGET[:ro|rw]` mount (the source may hold `${X:-a:b}`).
fn mount_target(mount: &str) -> &str {
    let mut parts = mount.rsplitn(3, ':');
    let last = parts.next().unwrap();
    match last {
        "ro" | "rw" => parts.next().unwrap(),
        _ => last,
    }
}

/// The trainer service runs the example config as it is: its agents' model folders and its
/// output folder are mounted where the config points, and its verifier URL reaches the verifier.
#[test]
fn trainer_service_runs_the_example_config_as_written() {
    let c = compose();
    let t = service(&c, "trainer");
    let command = strs(&t["command"]);
    assert_eq!(command[..2], ["run", "--config"]);
    let config = interpolations(&command[2])
        .into_iter()
        .next()
        .and_then(|(_, d)| d)
        .unwrap();
    let text = read(&config);
    let dir = Path::new("/app").join(Path::new(&config).parent().unwrap());
    let targets: Vec<String> = strs(&t["volumes"])
        .iter()
        .map(|m| mount_target(m).to_string())
        .collect();
    let quoted = |key: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix(key))
            .filter_map(|r| r.trim().strip_prefix('=').map(str::trim))
            .map(|v| v.trim_matches('"').to_string())
            .collect()
    };
    let models = quoted("model");
    assert!(models.len() >= 2, "{config}: fewer than two agents");
    for path in models.iter().chain(&quoted("output_dir")) {
        let top = dir.join(Path::new(path).components().next().unwrap());
        assert!(
            targets.contains(&top.to_string_lossy().to_string()),
            "{config} uses {path}, but nothing is mounted at {} ({targets:?})",
            top.display()
        );
    }
    // The config's verifier URL is loopback; the trainer shares the verifier's network namespace.
    assert_eq!(t["network_mode"].as_str(), Some("service:verifier"));
    let url = quoted("url");
    let listen = strs(&service(&c, "verifier")["command"]).join(" ");
    let port = listen.rsplit(':').next().unwrap();
    assert_eq!(url, [format!("http://127.0.0.1:{port}")], "{config}");
    // Its one variable is the token it calls the verifier with: the admin token that the
    // verifier stores at start (one process writes as both agents).
    let env = t["environment"].as_mapping().expect("trainer environment");
    assert_eq!(env.len(), 1, "{env:?}");
    assert_eq!(
        env.get("HACRL_TOKEN").and_then(|v| v.as_str()),
        service(&c, "verifier")["environment"]["VERIFIER_ADMIN_TOKEN"].as_str(),
        "the trainer carries the token the verifier stores"
    );

    // The real binary's flags, when this build has it (cargo test --workspace builds it).
    match workspace_binary("trainer") {
        Ok(trainer) => {
            let h = help(&trainer, "run");
            assert!(
                h.flags.contains("--config"),
                "`trainer run` has no --config: {:?}",
                h.flags
            );
        }
        Err(e) => eprintln!("trainer flags not checked: {e}"),
    }
}
