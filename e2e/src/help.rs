//! What a binary's `--help` documents, read one way for every static check against the real
//! binaries: compose and Kubernetes files (`tests/compose.rs`, `tests/compose_train.rs`,
//! `tests/k8s.rs`) and the README's commands (`tests/readme.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// What one `--help` page lists.
pub struct Help {
    /// Subcommand names (the `Commands:` section).
    pub subcommands: BTreeSet<String>,
    /// `--flag` names.
    pub flags: BTreeSet<String>,
    /// Env var → the flag's `[default: …]`, if it shows one.
    pub env: BTreeMap<String, Option<String>>,
}

/// Runs `<binary> <sub> --help` and reads it.
pub fn help(binary: &Path, sub: &str) -> Help {
    read(binary, &[sub])
}

/// Runs `<binary> <sub> <subsub> --help` (a nested command, `verifier token create`) and reads it.
pub fn nested_help(binary: &Path, sub: &str, subsub: &str) -> Help {
    read(binary, &[sub, subsub])
}

/// Runs `<binary> --help` and reads it (its subcommands and global flags).
pub fn top_help(binary: &Path) -> Help {
    read(binary, &[])
}

fn read(binary: &Path, args: &[&str]) -> Help {
    let out = Command::new(binary)
        .args(args)
        .arg("--help")
        .output()
        .expect("running --help");
    assert!(
        out.status.success(),
        "{} {} --help failed: {}",
        binary.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8(out.stdout).unwrap())
}

/// Reads clap's help layout: a `Commands:` section of indented names, flag lines that start
/// with `-x, --flag` or `--flag`, and `[env: X=…]` / `[default: …]` lines under a flag.
fn parse(text: &str) -> Help {
    let mut help = Help {
        subcommands: BTreeSet::new(),
        flags: BTreeSet::new(),
        env: BTreeMap::new(),
    };
    let mut in_commands = false;
    let mut current_env: Option<String> = None;
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_commands = line.starts_with("Commands:");
            continue;
        }
        let line = line.trim();
        if in_commands {
            if let Some(name) = line.split_whitespace().next() {
                help.subcommands.insert(name.to_string());
            }
        } else if let Some(flag) = line.split_whitespace().find(|w| w.starts_with("--")) {
            help.flags.insert(flag.trim_end_matches(',').to_string());
            current_env = None;
        } else if let Some(name) = line
            .strip_prefix("[env: ")
            // `[env: X=value]`, or `[env: X]` where the value is hidden (secrets).
            .and_then(|r| r.split(['=', ']']).next())
        {
            help.env.insert(name.to_string(), None);
            current_env = Some(name.to_string());
        } else if let (Some(name), Some(d)) = (&current_env, line.strip_prefix("[default: ")) {
            help.env
                .insert(name.clone(), Some(d.trim_end_matches(']').to_string()));
        }
    }
    help
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_commands_flags_env_and_defaults() {
        let h = parse(
            "Usage: verifier <COMMAND>\n\nCommands:\n  serve    Run it\n  migrate  Apply\n\n\
             Options:\n  -l, --listen <LISTEN>\n          Address\n          \
             [env: VERIFIER_LISTEN=]\n          [default: 127.0.0.1:8080]\n      --no-migrate\n\
             \x20     --admin-token <ADMIN_TOKEN>\n          [env: VERIFIER_ADMIN_TOKEN]\n",
        );
        assert_eq!(h.env["VERIFIER_ADMIN_TOKEN"], None);
        assert_eq!(
            h.subcommands.iter().collect::<Vec<_>>(),
            ["migrate", "serve"]
        );
        assert!(h.flags.contains("--listen") && h.flags.contains("--no-migrate"));
        assert_eq!(h.env["VERIFIER_LISTEN"].as_deref(), Some("127.0.0.1:8080"));
    }
}
