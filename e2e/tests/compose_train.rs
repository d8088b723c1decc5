//! Static checks that `docker compose --profile init --profile train up` trains the CPU example
//! on a laptop (no engine runs here): no GPU reservation unless compose.gpu.yaml is added, the
//! agents are made inside the trainer image by a script of the repository with flags the real
//! trainer has, and the trainer's outputs go to volumes its non-root user can write.

use std::path::Path;

use e2e::help::help;
use e2e::{repo_root, workspace_binary};
use serde_yaml_ng::Value;

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

fn yaml(rel: &str) -> Value {
    serde_yaml_ng::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_sequence()
        .map(|s| s.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// `ENV` settings of a Dockerfile's last stage, `NAME=value` pairs joined across lines.
fn final_env(dockerfile: &str) -> Vec<(String, String)> {
    let last = dockerfile.rsplit("\nFROM ").next().unwrap();
    let joined = last.replace("\\\n", " ");
    joined
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ENV "))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn gpus_come_only_from_the_override_file() {
    let c = yaml("compose.yaml");
    for (name, s) in c["services"].as_mapping().unwrap() {
        assert!(
            s["deploy"].is_null(),
            "{} reserves devices in compose.yaml",
            name.as_str().unwrap()
        );
    }
    let gpu = yaml("compose.gpu.yaml");
    let services: Vec<&str> = gpu["services"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(
        services,
        ["trainer"],
        "the override touches the trainer only"
    );
    let devices = &gpu["services"]["trainer"]["deploy"]["resources"]["reservations"]["devices"][0];
    assert_eq!(devices["driver"].as_str(), Some("nvidia"));
    assert_eq!(strs(&devices["capabilities"]), ["gpu"]);
    // Documented next to the stack, with the command that uses it, and Compose v2 named.
    let usage =
        "docker compose -f compose.yaml -f compose.gpu.yaml --profile init --profile train up";
    for file in ["compose.yaml", "compose.gpu.yaml", "README.md"] {
        assert!(read(file).contains(usage), "{file} lacks `{usage}`");
    }
    for file in ["compose.yaml", "README.md"] {
        assert!(
            read(file).contains("Compose v2"),
            "{file} does not say Compose v2 is needed"
        );
    }
}

#[test]
fn agents_are_made_in_the_trainer_image_with_real_trainer_flags() {
    let c = yaml("compose.yaml");
    let agents = &c["services"]["agents"];
    let trainer = &c["services"]["trainer"];
    assert_eq!(strs(&agents["profiles"]), ["train"]);
    assert_eq!(
        agents["image"], trainer["image"],
        "the trainer image makes the agents"
    );
    assert_eq!(
        trainer["depends_on"]["agents"]["condition"].as_str(),
        Some("service_completed_successfully")
    );
    // The entrypoint runs a script the image copies from examples/.
    let entry = strs(&agents["entrypoint"]);
    assert_eq!(entry[0], "/bin/sh");
    let script_rel = entry[1].strip_prefix("/app/").expect("a script under /app");
    let script = read(script_rel);
    let dockerfile = read("docker/trainer.Dockerfile");
    assert!(dockerfile.contains("COPY --chown=hacrl:hacrl examples /app/examples"));
    assert!(script_rel.starts_with("examples/"));

    // The variables the script needs are set by the image, and point where the image put things.
    let env = final_env(&dockerfile);
    let get = |k: &str| {
        env.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("trainer image sets no {k}"))
    };
    for var in ["TRAINER", "SMOLLM2_GGUF", "BYTE_TOKENIZER"] {
        assert!(
            script.contains(&format!("${{{var}")),
            "script ignores {var}"
        );
        get(var);
    }
    let gguf = get("SMOLLM2_GGUF");
    let gguf_dir = Path::new(&gguf)
        .parent()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        dockerfile.contains(&format!(
            "COPY --from=builder /opt/hacrl/cache/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf {gguf_dir}/"
        )),
        "the image does not put the GGUF at {gguf}"
    );
    // The fetch script is copied alone (so a source change keeps the layer) and run into the cache.
    let fetch = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("COPY scripts/setup.d/31-smollm2.sh "))
        .expect("the image copies SmolLM2's fetch script");
    assert!(
        dockerfile.contains(&format!("RUN HACRL_CACHE=/opt/hacrl/cache bash {fetch}")),
        "the image does not run {fetch} into /opt/hacrl/cache"
    );
    let tok = get("BYTE_TOKENIZER");
    let tok_rel = tok.strip_prefix("/app/").unwrap();
    assert!(dockerfile.contains(&format!("COPY {tok_rel} {tok}")));
    assert!(repo_root().join(tok_rel).join("tokenizer.json").is_file());
    assert_eq!(get("TRAINER"), "trainer");

    // The script's trainer subcommands and flags, from the real binary when this build has it.
    let calls: Vec<Vec<&str>> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"$TRAINER\" "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(calls.len(), 3, "import-gguf and two init-model");
    match workspace_binary("trainer") {
        Ok(bin) => {
            for call in &calls {
                let flags = help(&bin, call[0]).flags;
                for flag in call.iter().filter(|w| w.starts_with("--")) {
                    assert!(flags.contains(*flag), "`trainer {}` has no {flag}", call[0]);
                }
            }
        }
        Err(e) => eprintln!("trainer flags not checked: {e}"),
    }
}

#[test]
fn trainer_outputs_go_to_named_volumes_its_user_owns() {
    let c = yaml("compose.yaml");
    let declared = c["volumes"].as_mapping().unwrap();
    let dockerfile = read("docker/trainer.Dockerfile");
    let user = dockerfile
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .unwrap()
        .trim()
        .to_string();
    for svc in ["agents", "trainer"] {
        for mount in strs(&c["services"][svc]["volumes"]) {
            let mut parts = mount.split(':');
            let (source, target) = (parts.next().unwrap(), parts.next().unwrap());
            assert!(
                declared.contains_key(source),
                "{svc}: {source} is a host folder, which the image's user may not be able to write"
            );
            // A new named volume takes the owner of the image's folder at its mount point.
            assert!(
                dockerfile.lines().any(|l| l
                    .starts_with(&format!("RUN install -d -o {user} -g {user} "))
                    && l.split_whitespace().any(|w| w == target)),
                "the image does not create {target} owned by {user}"
            );
        }
    }
}
