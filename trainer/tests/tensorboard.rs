//! `trainer run` writes each agent's `train_metrics` rows as TensorBoard scalars next to its
//! checkpoints. The files are read back with TensorBoard's own reader (its Python
//! `EventAccumulator`, from the venv `scripts/setup.d/42-tensorboard.sh` installs), not with the
//! trainer's encoder, and compared with the rows in the pool: every column and numeric `extra`
//! key, every step exactly once, also after a resume that redid a step. Off a terminal the
//! run's progress is a few plain lines per step.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Prints `{tag: [[step, value], …]}` of the scalars in the run folder `argv[1]`.
const READER: &str = r#"
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
acc.Reload()
print(json.dumps({t: [[e.step, e.value] for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]}))
"#;

/// Steps and values of each tag.
type Curves = BTreeMap<String, Vec<(i64, f32)>>;

fn reader_python() -> PathBuf {
    let python = trainer::cache_dir().join("tensorboard-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/setup.d/42-tensorboard.sh (or scripts/setup)",
        python.display()
    );
    python
}

/// The scalars TensorBoard reads from the agent folder `dir`.
fn read_events(python: &Path, dir: &Path) -> Curves {
    let out = Command::new(python)
        .args(["-c", READER])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tags: BTreeMap<String, Vec<(i64, f64)>> = serde_json::from_slice(&out.stdout).unwrap();
    tags.into_iter()
        .map(|(t, points)| (t, points.into_iter().map(|(s, v)| (s, v as f32)).collect()))
        .collect()
}

/// `trainer run --config config` with stderr a pipe; returns its stderr.
fn trainer_run(config: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["run", "--config"])
        .arg(config)
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// The phase (or `done` for the step's own line) of each line about step `step` of 2.
fn step_lines(stderr: &str, step: usize) -> Vec<&str> {
    let prefix = format!("step {step}/2 ");
    stderr
        .lines()
        .filter_map(|l| Some(l[l.find(&prefix)? + prefix.len()..].trim()))
        .map(|rest| {
            let phase = rest.split(':').next().unwrap_or_default();
            let phases = ["generation", "scoring", "updates", "evaluation"];
            if phases.contains(&phase) {
                phase
            } else {
                "done"
            }
        })
        .collect()
}

/// What a row of `train_metrics` should read as in TensorBoard: every non-null column and
/// every number under `extra` (objects joined with `/`).
fn expected_tags(columns: &[(&str, Option<f64>)], extra: &Value, out: &mut Vec<(String, f64)>) {
    fn numbers(prefix: String, v: &Value, out: &mut Vec<(String, f64)>) {
        match v {
            Value::Number(n) => out.push((prefix, n.as_f64().unwrap())),
            Value::Object(m) => {
                for (k, v) in m {
                    numbers(format!("{prefix}/{k}"), v, out);
                }
            }
            _ => {}
        }
    }
    for (name, v) in columns {
        out.extend(v.map(|v| (name.to_string(), v)));
    }
    numbers("extra".into(), extra, out);
}

type Row = (
    String,
    i64,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Value,
);

#[test]
fn event_files_hold_every_metric_of_every_step_once_across_a_resume() {
    let python = reader_python();
    support::init();
    let (url, db, rt) = support::start_verifier();
    support::import_addition_tasks(&url, "toy-train", 12, 0);
    let dir = tempfile::tempdir().unwrap();
    let agents = support::tiny_agents(dir.path());
    let config = support::write_run_config(dir.path(), &url, "tb-test", 2, "", "", &agents);
    let out = dir.path().join("out-tb-test");

    let first = trainer_run(&config);
    // As if the process had died after recording step 2's metrics but before its checkpoint:
    // the rerun trains step 2 again from step 1's checkpoint, on the rollouts already pooled.
    std::fs::write(out.join("state.json"), r#"{"step": 1}"#).unwrap();
    let second = trainer_run(&config);

    // Progress off a terminal: one line per phase and the step's line with its ETA, no bars.
    for stderr in [&first, &second] {
        assert!(
            !stderr.contains('\r') && !stderr.contains("\x1b["),
            "{stderr}"
        );
    }
    let phases = ["generation", "scoring", "updates", "done"];
    assert_eq!(step_lines(&first, 1), phases, "{first}");
    assert_eq!(step_lines(&first, 2), phases, "{first}");
    assert!(first.contains("updates: 4/4 mini-batches in"), "{first}");
    assert!(
        first
            .lines()
            .any(|l| l.contains("step 1/2 [") && l.contains("eta 00:")),
        "{first}"
    );
    // The rerun finds step 2's rollouts in the pool: nothing to generate.
    assert!(step_lines(&second, 1).is_empty(), "{second}");
    assert_eq!(
        step_lines(&second, 2),
        ["scoring", "updates", "done"],
        "{second}"
    );

    let rows: Vec<Row> = rt
        .block_on(
            sqlx::query_as(
                "select a.name, m.step, m.loss, m.reward_mean, m.accuracy, m.clip_fraction, m.kl,
                        m.grad_norm, m.extra
                 from train_metrics m join agents a on a.id = m.agent_id
                 where m.run = 'tb-test' order by 1, 2",
            )
            .fetch_all(&db),
        )
        .unwrap();
    assert_eq!(rows.len(), 4);
    for (name, _) in &agents {
        let mut expected = Curves::new();
        for (agent, step, loss, reward, accuracy, clip, kl, grad, extra) in &rows {
            if agent != name {
                continue;
            }
            let mut tags = Vec::new();
            let columns = [
                ("loss", *loss),
                ("reward_mean", *reward),
                ("accuracy", *accuracy),
                ("clip_fraction", *clip),
                ("kl", *kl),
                ("grad_norm", *grad),
            ];
            expected_tags(&columns, extra, &mut tags);
            for (tag, v) in tags {
                expected.entry(tag).or_default().push((*step, v as f32));
            }
        }
        for tag in [
            "loss",
            "accuracy",
            "kl",
            "grad_norm",
            "extra/clip_own",
            "extra/train_seconds",
        ] {
            assert!(expected.contains_key(tag), "{tag} in {expected:?}");
        }

        let agent_dir = out.join(name);
        let files: Vec<String> = std::fs::read_dir(&agent_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("events.out.tfevents."))
            .collect();
        assert_eq!(files.len(), 2, "one file per invocation: {files:?}");
        // Both files hold step 2; TensorBoard keeps the rerun's (its train_seconds differs),
        // the one the pool kept too.
        assert_eq!(read_events(&python, &agent_dir), expected, "{name}");
    }
}
