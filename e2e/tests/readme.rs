//! The README's shell blocks run as written: every repository path they name exists (or is one
//! the set-up commands create), every `verifier`/`trainer` subcommand and flag is one the real
//! binary lists in its `--help`, every HTTP path is a route the service serves, and the first
//! screen holds exactly the two set-up commands; nothing points outside the repository.

use std::collections::BTreeSet;

use e2e::help::{help, top_help};
use e2e::{repo_root, workspace_binary};

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

/// The bodies of the README's ```sh blocks, with the line each starts on.
fn sh_blocks(readme: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in readme.lines().enumerate() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some((n + 1, String::new())),
            (Some(_), "```") => out.push(current.take().unwrap()),
            (Some((_, body)), l) => {
                body.push_str(l);
                body.push('\n');
            }
            _ => {}
        }
    }
    assert!(current.is_none(), "unclosed ```sh block");
    out
}

/// Splits a shell script into commands (at newlines, `;`, `|`, `&`, `(`, `)` outside quotes),
/// each a list of words with quotes removed; comments and `\`-newlines are dropped.
fn commands(script: &str) -> Vec<Vec<String>> {
    let mut cmds = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    let mut chars = script.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') if chars.peek() == Some(&'\n') => {
                chars.next();
                end_word(&mut words, &mut word, &mut in_word);
            }
            (None, '#') if !in_word => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    cmds.push(std::mem::take(&mut words));
                }
            }
            (None, '\n' | ';' | '|' | '&' | '(' | ')') => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    cmds.push(std::mem::take(&mut words));
                }
            }
            (None, c) if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    assert!(quote.is_none(), "unclosed quote in:\n{script}");
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        cmds.push(words);
    }
    cmds
}

/// A word that names a file or folder of the repository (relative, no variables or URLs).
fn looks_like_repo_path(w: &str) -> bool {
    w.contains('/')
        && !w.starts_with('/')
        && !w.contains("//")
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-/@".contains(c))
}

/// The routes `verifier/src/api` serves, e.g. `/v1/agents/{agent}/capability`.
fn routes() -> Vec<String> {
    // The route table's rows, `api(M::GET, "/healthz", …)` and `page("/ui", …)`, however
    // rustfmt breaks them: the first string literal after each opening.
    let table = read("verifier/src/routes.rs");
    let mut out = Vec::new();
    for opening in ["api(", "page("] {
        for part in table.split(opening).skip(1) {
            if let Some(path) = part.split('"').nth(1).filter(|p| p.starts_with('/')) {
                out.push(path.to_string());
            }
        }
    }
    assert!(out.len() > 10, "{out:?}");
    out
}

fn route_matches(route: &str, path: &str) -> bool {
    let (r, p): (Vec<&str>, Vec<&str>) = (route.split('/').collect(), path.split('/').collect());
    r.len() == p.len()
        && r.iter()
            .zip(&p)
            .all(|(r, p)| r == p || (r.starts_with('{') && !p.is_empty()))
}

/// Workspace package names (`cargo … -p NAME`).
fn packages() -> BTreeSet<String> {
    ["sandbox", "verifier", "trainer", "e2e"]
        .iter()
        .map(|m| {
            let toml = read(&format!("{m}/Cargo.toml"));
            toml.lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .map(|n| n.trim_end_matches('"').to_string())
                .unwrap()
        })
        .collect()
}

#[test]
fn the_first_screen_holds_exactly_the_two_set_up_commands_with_prerequisites() {
    let readme = read("README.md");
    let blocks = sh_blocks(&readme);
    let (line, first) = &blocks[0];
    assert!(
        *line <= 30,
        "the set-up commands start on line {line}, below the first screen"
    );
    let cmds: Vec<Vec<String>> = commands(first);
    assert_eq!(
        cmds,
        [
            vec!["scripts/test".to_string()],
            vec!["scripts/up".to_string()]
        ]
    );
    let before = readme.lines().take(*line).collect::<Vec<_>>().join("\n");
    for needle in ["Debian", "Ubuntu", "sudo", "Rust"] {
        assert!(
            before.contains(needle),
            "prerequisites above the commands lack {needle}"
        );
    }
    // CI runs the first of them.
    assert!(read(".ci/run").contains("exec scripts/test"));
}

#[test]
fn every_path_subcommand_flag_and_route_in_the_readme_shell_blocks_exists() {
    let readme = read("README.md");
    let up = read("scripts/up");
    let routes = routes();
    let packages = packages();
    let verifier = workspace_binary("verifier").expect("the verifier binary");
    let trainer = workspace_binary("trainer");
    let mut checked = BTreeSet::new();
    let mut problems = Vec::new();
    for (line, block) in sh_blocks(&readme) {
        for cmd in commands(&block) {
            let at = format!("README.md block at line {line}: `{}`", cmd.join(" "));
            for (i, w) in cmd.iter().enumerate() {
                if looks_like_repo_path(w) {
                    let exists = repo_root().join(w).exists();
                    // Made by the set-up commands: target/<profile>/<binary> by cargo, the
                    // state file of a running stack by scripts/up.
                    let generated = match w.split('/').collect::<Vec<_>>()[..] {
                        ["target", "release" | "debug", bin] => {
                            packages.contains(bin)
                                && (repo_root().join(bin).join("src/main.rs").is_file()
                                    || repo_root()
                                        .join(bin)
                                        .join(format!("src/bin/{bin}/main.rs"))
                                        .is_file())
                        }
                        [".local", file] => up.contains(&format!("$root/.local/{file}")),
                        _ => false,
                    };
                    if !exists && !generated {
                        problems.push(format!("{at}: no path {w}"));
                    }
                    checked.insert(w.clone());
                }
                // `cp FROM… TO`: every source exists.
                if cmd[0] == "cp" && i > 0 && i + 1 < cmd.len() && !repo_root().join(w).exists() {
                    problems.push(format!("{at}: no file {w}"));
                }
                if (w == "-f" || w == "--file") && cmd[0] == "docker" {
                    let file = &cmd[i + 1];
                    if !repo_root().join(file).is_file() {
                        problems.push(format!("{at}: no compose file {file}"));
                    }
                    checked.insert(file.clone());
                }
                if w == "-p" && cmd[0] == "cargo" && !packages.contains(&cmd[i + 1]) {
                    problems.push(format!("{at}: no workspace package {}", cmd[i + 1]));
                }
                if let Some(at_v1) = w.find("/v1/").or_else(|| w.find("/run_code")) {
                    let path = w[at_v1..].split('?').next().unwrap();
                    if !routes.iter().any(|r| route_matches(r, path)) {
                        problems.push(format!("{at}: the service has no route {path}"));
                    }
                    checked.insert(path.to_string());
                }
            }
            // Subcommands and flags of the project's binaries, from their real --help.
            let Some(pos) = cmd
                .iter()
                .position(|w| w.ends_with("/verifier") || w.ends_with("/trainer"))
            else {
                continue;
            };
            let binary = if cmd[pos].ends_with("/verifier") {
                verifier.clone()
            } else {
                match &trainer {
                    Ok(t) => t.clone(),
                    Err(e) => {
                        eprintln!("trainer subcommands not checked: {e}");
                        continue;
                    }
                }
            };
            let sub = &cmd[pos + 1];
            let subs = top_help(&binary).subcommands;
            if !subs.contains(sub) {
                problems.push(format!(
                    "{at}: `{}` has no subcommand {sub} ({subs:?})",
                    cmd[pos]
                ));
                continue;
            }
            let flags = help(&binary, sub).flags;
            for flag in cmd[pos + 2..].iter().filter(|w| w.starts_with("--")) {
                if !flags.contains(flag.split('=').next().unwrap()) {
                    problems.push(format!("{at}: `{} {sub}` has no flag {flag}", cmd[pos]));
                }
            }
            checked.insert(format!("{} {sub}", cmd[pos]));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // The check is not vacuous: the example session's paths, binaries and routes were seen.
    for needle in [
        "scripts/up",
        "data/aime24.jsonl",
        ".local/up.env",
        "target/release/verifier import-tasks",
        "/v1/rollouts",
        "/v1/agents/qwen3-1.7b/capability",
    ] {
        assert!(
            checked.contains(needle),
            "not checked: {needle} (saw {checked:?})"
        );
    }
}

#[test]
fn the_shell_splitter_understands_quotes_comments_and_continuations() {
    let cmds = commands(
        "a 'b c' \"d\\\"e\" # note\nf=$(g -x \"$H/v1/x?y=1\") && i \\\n  j\ncurl -d '{\"a\":\n 1}'",
    );
    assert_eq!(
        cmds,
        [
            vec!["a", "b c", "d\"e"],
            vec!["f=$"],
            vec!["g", "-x", "$H/v1/x?y=1"],
            vec!["i", "j"],
            vec!["curl", "-d", "{\"a\":\n 1}"],
        ]
    );
    assert!(route_matches(
        "/v1/agents/{agent}/capability",
        "/v1/agents/a-b/capability"
    ));
    assert!(!route_matches(
        "/v1/agents/{agent}",
        "/v1/agents/a/capability"
    ));
}

/// Nothing in the product points outside the repository: the data, images and scripts a clone
/// uses all live in it (the build machines keep a folder beside the checkout that a clone lacks).
#[test]
fn nothing_refers_to_a_folder_outside_the_repository() {
    let mut offenders = Vec::new();
    // Each file with the folder its relative paths resolve from, as a depth below the root: the
    // scripts `cd` to the root, compose and the Dockerfiles build from it, the e2e crate's Rust
    // paths start at its manifest folder (e2e/).
    for (rel, depth) in [
        ("compose.yaml", 0),
        (".env.example", 0),
        ("README.md", 0),
        ("scripts/up", 0),
        ("scripts/test", 0),
        ("scripts/postgres", 0),
        ("docker/verifier.Dockerfile", 0),
        ("docker/trainer.Dockerfile", 0),
        ("e2e/src/lib.rs", 1),
    ] {
        for (n, line) in read(rel).lines().enumerate() {
            if line.contains("/work/shared") || climbs_above(line) > depth {
                offenders.push(format!("{rel}:{}: {line}", n + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
    // Every data file has its provenance and licence beside it.
    let sources = read("data/README.md");
    for entry in std::fs::read_dir(repo_root().join("data")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") {
            assert!(
                sources.contains(&format!("`{name}`")),
                "data/README.md says nothing of {name}"
            );
        }
    }
    for licence in [
        "MIT-GSM8K.txt",
        "MIT-HumanEval.txt",
        "Apache-2.0-Qwen2.5-Math.txt",
    ] {
        assert!(repo_root().join("data/licenses").join(licence).is_file());
    }
}

/// The most `../` steps any relative path in `line` takes (a path starts where a `../` does not
/// follow a path character).
fn climbs_above(line: &str) -> usize {
    line.match_indices("../")
        .filter(|&(i, _)| {
            !line[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c == '.' || c == '/' || c.is_alphanumeric())
        })
        .map(|(i, _)| {
            let mut rest = &line[i..];
            let mut steps = 0;
            while let Some(r) = rest.strip_prefix("../") {
                steps += 1;
                rest = r;
            }
            steps
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn climbing_counts_the_parent_steps_of_each_path() {
    assert_eq!(climbs_above("see ../data and ../../x/y"), 2);
    assert_eq!(climbs_above("cd \"$(dirname \"$0\")/..\""), 0);
    assert_eq!(climbs_above("a/../b, x=../c"), 1);
    assert_eq!(climbs_above("no parent here"), 0);
}
