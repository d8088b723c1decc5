//! Static checks of the Kubernetes manifests in deploy/k8s (no cluster runs here): every object
//! passes the Kubernetes API schemas strictly (kubernetes-validate, installed by
//! scripts/setup.d/41-k8s-validate.sh), and everything the pods run — `verifier` and `trainer`
//! arguments and environment variables, the run.toml of the ConfigMap, `vllm serve` flags — is
//! checked against the real programs, and the objects against each other (Service names and
//! ports, mounts, labels, GPU requests, connection budgets).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use e2e::help::{help, nested_help};
use e2e::{repo_root, workspace_binary};
use serde::Deserialize;
use serde_yaml_ng::Value;

const K8S: &str = "deploy/k8s";
/// The setup step that installs the schema validator, named in every failure to find it.
const SETUP: &str = "scripts/setup.d/41-k8s-validate.sh";
/// Kubernetes releases the manifests must be valid for: the oldest the deployment claims
/// (deploy/k8s/README.md) and the newest the pinned validator knows.
const K8S_VERSIONS: &[&str] = &["1.30.0", "1.37.0"];
/// Variables the programs read outside their flags.
const VERIFIER_NON_FLAG_ENV: &[&str] = &["RUST_LOG"]; // tracing's EnvFilter
// tracing's EnvFilter and the token it calls with (both read in trainer/src/main.rs).
const TRAINER_NON_FLAG_ENV: &[&str] = &["RUST_LOG", "HACRL_TOKEN"];

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

/// One manifest document, with the file it came from.
#[derive(Clone)]
struct Object {
    file: String,
    doc: Value,
}

impl Object {
    fn kind(&self) -> &str {
        self.doc["kind"].as_str().unwrap_or("")
    }
    fn name(&self) -> &str {
        self.doc["metadata"]["name"].as_str().unwrap_or("")
    }
    fn api_version(&self) -> &str {
        self.doc["apiVersion"].as_str().unwrap_or("")
    }
    /// The pod spec of a Deployment or Job.
    fn pod(&self) -> &Value {
        &self.doc["spec"]["template"]["spec"]
    }
}

/// The YAML files under deploy/k8s, relative to the repository, sorted.
fn manifest_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo_root().join(K8S), &mut files);
    let mut rel: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(repo_root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    rel.sort();
    assert!(rel.len() > 4, "no manifests under {K8S}");
    rel
}

fn documents(rel: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(&read(rel))
        .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("{rel}: {e}")))
        .filter(|v| !v.is_null())
        .collect()
}

fn is_kustomization(rel: &str) -> bool {
    rel.ends_with("/kustomization.yaml")
}

/// Every API object of the manifests (kustomization files are kustomize's, not the API's).
fn objects() -> Vec<Object> {
    manifest_files()
        .into_iter()
        .filter(|f| !is_kustomization(f))
        .flat_map(|file| {
            documents(&file).into_iter().map(move |doc| Object {
                file: file.clone(),
                doc,
            })
        })
        .collect()
}

fn find<'a>(objects: &'a [Object], kind: &str, name: &str) -> &'a Object {
    objects
        .iter()
        .find(|o| o.kind() == kind && o.name() == name)
        .unwrap_or_else(|| panic!("{K8S} has no {kind} `{name}`"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_sequence()
        .map(|s| {
            s.iter()
                .map(|x| match x {
                    Value::String(s) => s.clone(),
                    other => panic!("{other:?} is not a string (quote numbers in args)"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A container's environment: name → literal value (None for one taken from a Secret).
fn env(container: &Value) -> BTreeMap<String, Option<String>> {
    container["env"]
        .as_sequence()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["value"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn containers(pod: &Value) -> Vec<&Value> {
    pod["containers"].as_sequence().unwrap().iter().collect()
}

/// `${HACRL_CACHE:-$HOME/.cache/hacrl}`, as the setup scripts resolve it.
fn cache() -> PathBuf {
    std::env::var_os("HACRL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/hacrl"))
}

fn validator() -> PathBuf {
    let venv = cache().join("k8s-validate-venv");
    let bin = venv.join("bin/kubernetes-validate");
    let setup = read(SETUP);
    let version = setup
        .lines()
        .find_map(|l| l.strip_prefix("VERSION="))
        .expect("the setup step pins a VERSION");
    // The marker (scripts/lib/pinned-venv.sh) is written only after the tool ran, with the pins
    // it was installed from, so a half-made venv or one of another version does not count.
    let marker = std::fs::read_to_string(venv.join(".hacrl-installed")).unwrap_or_default();
    assert!(
        bin.is_file()
            && marker
                .lines()
                .any(|l| l == format!("kubernetes-validate=={version}")),
        "kubernetes-validate {version} is not installed in {}: run {SETUP} (or scripts/setup)",
        venv.display()
    );
    bin
}

#[test]
fn every_manifest_is_applied_by_a_kustomization_or_says_it_is_optional() {
    let files = manifest_files();
    let mut listed = BTreeSet::new();
    let kustomizations: Vec<&String> = files.iter().filter(|f| is_kustomization(f)).collect();
    assert_eq!(
        kustomizations.len(),
        2,
        "the service and the training: {kustomizations:?}"
    );
    for k in kustomizations {
        let doc = &documents(k)[0];
        assert_eq!(
            doc["apiVersion"].as_str(),
            Some("kustomize.config.k8s.io/v1beta1")
        );
        assert_eq!(doc["kind"].as_str(), Some("Kustomization"));
        assert_eq!(doc["namespace"].as_str(), Some("hacrl"), "{k}");
        let dir = Path::new(k).parent().unwrap();
        for r in strs(&doc["resources"]) {
            let rel = dir.join(&r).to_string_lossy().into_owned();
            assert!(files.contains(&rel), "{k} lists {r}, which does not exist");
            assert!(
                !r.starts_with("optional-"),
                "{k} lists {r}: optional files are applied by hand"
            );
            listed.insert(rel);
        }
    }
    for f in &files {
        let optional = Path::new(f)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("optional-");
        if is_kustomization(f) {
            continue;
        }
        if optional {
            // It must say why it is left out and how to apply it.
            let text = read(f);
            assert!(
                text.starts_with("# Optional:") && text.contains("Not in kustomization.yaml"),
                "{f} does not say why it is optional"
            );
        } else {
            assert!(listed.contains(f), "{f} is in no kustomization.yaml");
        }
    }
    // Every object names its namespace itself too, so `kubectl apply -f FILE` (the optional
    // files' way) puts it in the same place as kustomize does.
    let objs = objects();
    assert_eq!(
        find(&objs, "Namespace", "hacrl").file,
        "deploy/k8s/namespace.yaml"
    );
    for o in &objs {
        if o.kind() != "Namespace" {
            assert_eq!(
                o.doc["metadata"]["namespace"].as_str(),
                Some("hacrl"),
                "{} {} in {}",
                o.kind(),
                o.name(),
                o.file
            );
        }
        // Service, Deployment and Job names become DNS labels (Service hosts, pod names).
        let name = o.name();
        assert!(
            !name.is_empty()
                && name.len() <= 63
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && name.starts_with(|c: char| c.is_ascii_lowercase())
                && !name.ends_with('-'),
            "{} `{name}` in {} is not a DNS-1035 label",
            o.kind(),
            o.file
        );
    }
}

/// Custom resources the validator has no schema for, by (apiVersion, kind): each is checked by
/// [`cloudnative_pg_cluster_has_what_the_operator_requires_and_room_for_the_verifiers`].
const CUSTOM_RESOURCES: &[(&str, &str)] = &[("postgresql.cnpg.io/v1", "Cluster")];

#[test]
fn manifests_pass_the_kubernetes_schemas_strictly() {
    let validator = validator();
    let objs = objects();
    // Files of built-in objects only; a file of custom resources is left out whole (a mixed file
    // would hide a custom resource's WARN among passes).
    let mut files: Vec<String> = Vec::new();
    let mut expected = 0;
    for f in manifest_files().iter().filter(|f| !is_kustomization(f)) {
        let in_file: Vec<&Object> = objs.iter().filter(|o| &o.file == f).collect();
        let custom = in_file
            .iter()
            .filter(|o| CUSTOM_RESOURCES.contains(&(o.api_version(), o.kind())))
            .count();
        assert!(
            custom == 0 || custom == in_file.len(),
            "{f} mixes custom resources with built-in objects"
        );
        if custom == 0 {
            files.push(f.clone());
            expected += in_file.len();
        }
    }
    assert!(expected >= 15, "only {expected} objects to validate");
    for version in K8S_VERSIONS {
        let out = Command::new(&validator)
            .current_dir(repo_root())
            .args(["--strict", "--kubernetes-version", version])
            .args(&files)
            .output()
            .expect("running kubernetes-validate");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success(),
            "kubernetes-validate --strict -k {version}:\n{text}"
        );
        // It only warns, exit 0, about a kind it has no schema for (a misspelt kind or
        // apiVersion): every object must have been validated, so count the passes.
        let passed = text
            .lines()
            .filter(|l| l.contains(" passed for resource "))
            .count();
        assert_eq!(
            passed, expected,
            "kubernetes-validate -k {version} validated {passed} of {expected} objects:\n{text}"
        );
        assert!(
            !text.contains("WARN") && !text.contains("ERROR"),
            "kubernetes-validate -k {version}:\n{text}"
        );
    }
}

/// The strict check is not vacuous: an unknown field, as a typo makes one, fails it.
#[test]
fn the_schema_check_rejects_a_misspelt_field() {
    let validator = validator();
    let dir = tempdir();
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        read("deploy/k8s/verifier.yaml").replacen("readinessProbe:", "readinesProbe:", 1),
    )
    .unwrap();
    let out = Command::new(&validator)
        .args(["--strict", "--kubernetes-version", K8S_VERSIONS[0]])
        .arg(&bad)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("'readinesProbe' was unexpected"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hacrl-k8s-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Containers running an image of ours, `hacrl/<binary>:…`, with the object they are in.
fn our_containers<'a>(objs: &'a [Object], binary: &str) -> Vec<(&'a Object, &'a Value)> {
    objs.iter()
        .filter(|o| o.pod().is_mapping())
        .flat_map(|o| containers(o.pod()).into_iter().map(move |c| (o, c)))
        .filter(|(_, c)| {
            c["image"]
                .as_str()
                .unwrap()
                .starts_with(&format!("hacrl/{binary}:"))
        })
        .collect()
}

#[test]
fn verifier_pods_use_only_real_flags_and_env_vars() {
    let verifier = workspace_binary("verifier").expect("verifier binary");
    let objs = objects();
    let pods = our_containers(&objs, "verifier");
    assert_eq!(
        pods.len(),
        4,
        "the Deployment, the migration Job and the two agents' token registrations"
    );
    for (o, c) in pods {
        assert!(
            c["command"].is_null(),
            "{}: keep the image's ENTRYPOINT (verifier)",
            o.name()
        );
        let args = strs(&c["args"]);
        let sub = &args[0];
        let mut h = match sub.as_str() {
            "token" => nested_help(&verifier, sub, &args[1]),
            _ => help(&verifier, sub),
        };
        // `token create --from-env VAR` reads VAR.
        if let Some(w) = args.windows(2).find(|w| w[0] == "--from-env") {
            h.env.insert(w[1].clone(), None);
        }
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            let flag = flag.split('=').next().unwrap();
            assert!(
                h.flags.contains(flag),
                "{}: `verifier {sub}` has no flag {flag} (it has {:?})",
                o.name(),
                h.flags
            );
        }
        for var in env(c).keys() {
            assert!(
                h.env.contains_key(var) || VERIFIER_NON_FLAG_ENV.contains(&var.as_str()),
                "{}: `verifier {sub}` reads no {var} (it reads {:?})",
                o.name(),
                h.env
            );
        }
        assert!(
            c["env"]
                .as_sequence()
                .unwrap()
                .iter()
                .any(|e| e["name"] == "DATABASE_URL"
                    && e["valueFrom"]["secretKeyRef"]["name"] == "hacrl-database"),
            "{}: DATABASE_URL comes from the Secret",
            o.name()
        );
    }
    let _ = find(&objs, "Secret", "hacrl-database").doc["stringData"]["DATABASE_URL"]
        .as_str()
        .filter(|u| u.starts_with("postgres://"))
        .expect("the Secret holds a postgres:// URL");
}

/// The Deployment's values, not only their names, are the binary's: `serve` parses every flag
/// and variable before it connects (to nowhere here, so it stops there), and the sandbox
/// settings start the real sandbox and grade the image's warm-up file.
#[test]
fn verifier_deployment_values_parse_and_start_the_sandbox() {
    let verifier = workspace_binary("verifier").expect("verifier binary");
    let objs = objects();
    let d = find(&objs, "Deployment", "verifier");
    let c = containers(d.pod())[0];
    let vars: BTreeMap<String, String> = env(c)
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    // Port 1 on loopback: refused at once, after parsing.
    let out = Command::new(&verifier)
        .args(strs(&c["args"]))
        .envs(&vars)
        .env("DATABASE_URL", "postgres://k8s-check@127.0.0.1:1/none")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success());
    assert!(
        format!("{stdout}{stderr}").contains("connecting to the database"),
        "`verifier serve` stopped before connecting (a value it cannot parse?):\n{stdout}{stderr}"
    );
    let sandbox: BTreeMap<&String, &String> = vars
        .iter()
        .filter(|(k, _)| k.starts_with("VERIFIER_SANDBOX_"))
        .collect();
    assert!(sandbox.len() >= 4, "{sandbox:?}");
    let out = Command::new(&verifier)
        .arg("score")
        .arg(repo_root().join("docker/warmup.jsonl"))
        .envs(sandbox)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the Deployment's sandbox settings: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `useradd … --uid N` in a Dockerfile.
fn image_uid(dockerfile: &str) -> i64 {
    let text = read(dockerfile);
    let at = text.find("useradd").expect("useradd");
    let words: Vec<&str> = text[at..].split_whitespace().collect();
    let i = words.iter().position(|w| *w == "--uid").expect("--uid");
    words[i + 1].parse().unwrap()
}

/// Kubernetes quantities as used here: `4`, `500m`; `512Mi`, `4Gi`.
fn cpu(q: &Value) -> f64 {
    let s = q.as_str().expect("quote CPU quantities");
    match s.strip_suffix('m') {
        Some(m) => m.parse::<f64>().unwrap() / 1000.0,
        None => s.parse().unwrap(),
    }
}
fn mib(q: &Value) -> u64 {
    let s = q.as_str().unwrap();
    for (suffix, factor) in [("Mi", 1), ("Gi", 1024), ("Ti", 1024 * 1024)] {
        if let Some(n) = s.strip_suffix(suffix) {
            return n.parse::<u64>().unwrap() * factor;
        }
    }
    panic!("unexpected quantity {s}")
}

#[test]
fn verifier_deployment_is_probed_sized_and_unprivileged_as_the_image_allows() {
    let objs = objects();
    let d = find(&objs, "Deployment", "verifier");
    assert!(d.doc["spec"]["replicas"].as_i64().unwrap() >= 2);
    let pod = d.pod();
    let c = containers(pod)[0];
    let args = strs(&c["args"]);
    assert_eq!(args[..2], ["serve", "--listen"]);
    let listen = &args[2];
    let port: i64 = listen.strip_prefix("0.0.0.0:").unwrap().parse().unwrap();
    assert_eq!(c["ports"][0]["containerPort"].as_i64(), Some(port));
    let port_name = c["ports"][0]["name"].as_str().unwrap();
    let dockerfile = read("docker/verifier.Dockerfile");
    assert!(dockerfile.contains(&format!("EXPOSE {port}")));
    let routes = read("verifier/src/routes.rs");
    for (probe, path) in [
        ("readinessProbe", "/readyz"),
        ("livenessProbe", "/healthz"),
        ("startupProbe", "/healthz"),
    ] {
        let p = &c[probe]["httpGet"];
        assert_eq!(p["path"].as_str(), Some(path), "{probe}");
        assert_eq!(p["port"].as_str(), Some(port_name), "{probe}");
        assert!(
            routes.contains(&format!("\"{path}\", open")),
            "the verifier serves no {path}"
        );
    }
    let svc = find(&objs, "Service", "verifier");
    assert_eq!(
        svc.doc["spec"]["selector"],
        d.doc["spec"]["selector"]["matchLabels"]
    );
    assert_eq!(
        svc.doc["spec"]["ports"][0]["targetPort"].as_str(),
        Some(port_name)
    );

    // Non-root as the image's own user, nothing loosened for the compile jail.
    for (o, c) in our_containers(&objs, "verifier") {
        let sc = &o.pod()["securityContext"];
        assert_eq!(sc["runAsNonRoot"].as_bool(), Some(true), "{}", o.name());
        assert_eq!(
            sc["runAsUser"].as_i64(),
            Some(image_uid("docker/verifier.Dockerfile")),
            "{}: not the image's user",
            o.name()
        );
        assert_eq!(
            sc["seccompProfile"]["type"].as_str(),
            Some("RuntimeDefault")
        );
        let csc = &c["securityContext"];
        assert_eq!(csc["allowPrivilegeEscalation"].as_bool(), Some(false));
        assert_eq!(strs(&csc["capabilities"]["drop"]), ["ALL"]);
        assert!(csc["capabilities"]["add"].is_null() && csc["privileged"].is_null());
    }
    // Under RuntimeDefault bubblewrap's user namespaces are refused: only `auto` (which falls
    // back to Landlock) or `landlock` can judge C/C++ there.
    let vars = env(c);
    let confinement = vars["VERIFIER_SANDBOX_CONFINEMENT"].as_deref().unwrap();
    assert!(["auto", "landlock"].contains(&confinement), "{confinement}");

    // Every program the sandbox runs at once gets a core and its memory within the limits.
    let res = &c["resources"];
    let concurrency: u64 = vars["VERIFIER_SANDBOX_CONCURRENCY"]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap();
    let program_mib: u64 = vars["VERIFIER_SANDBOX_MEMORY_MB"]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap();
    assert!(concurrency as f64 <= cpu(&res["limits"]["cpu"]));
    assert!(
        concurrency * program_mib + 1024 <= mib(&res["limits"]["memory"]),
        "{concurrency} programs × {program_mib} MiB + 1 GiB for the service exceed the memory limit"
    );
    assert!(cpu(&res["requests"]["cpu"]) > 0.0 && mib(&res["requests"]["memory"]) > 0);

    // Autoscaled on CPU utilisation, never below the Deployment's two replicas.
    let hpa = find(&objs, "HorizontalPodAutoscaler", "verifier");
    assert_eq!(hpa.api_version(), "autoscaling/v2");
    let target = &hpa.doc["spec"]["scaleTargetRef"];
    assert_eq!(target["kind"].as_str(), Some("Deployment"));
    assert_eq!(target["name"].as_str(), Some("verifier"));
    let m = &hpa.doc["spec"]["metrics"][0]["resource"];
    assert_eq!(m["name"].as_str(), Some("cpu"));
    assert_eq!(m["target"]["type"].as_str(), Some("Utilization"));
    assert!(hpa.doc["spec"]["minReplicas"].as_i64().unwrap() >= 2);
}

/// The HorizontalPodAutoscaler's most replicas × each one's database connections.
fn verifier_connections(objs: &[Object]) -> i64 {
    let hpa = find(objs, "HorizontalPodAutoscaler", "verifier");
    let c = containers(find(objs, "Deployment", "verifier").pod())[0];
    let per: i64 = env(c)["VERIFIER_DB_CONNECTIONS"]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap();
    hpa.doc["spec"]["maxReplicas"].as_i64().unwrap() * per
}

/// CloudNativePG's `Cluster` has no schema in the validator (it is a CRD of the operator), so
/// the fields the operator needs are checked here: `spec.instances` (the CRD's one required
/// field), storage, the database and owner whose Secret (`<cluster>-app`) the files name.
#[test]
fn cloudnative_pg_cluster_has_what_the_operator_requires_and_room_for_the_verifiers() {
    let objs = objects();
    let cluster = objs
        .iter()
        .find(|o| o.kind() == "Cluster")
        .expect("the optional CloudNativePG Cluster");
    assert_eq!(cluster.api_version(), "postgresql.cnpg.io/v1");
    let spec = &cluster.doc["spec"];
    assert!(spec["instances"].as_i64().unwrap() >= 1);
    assert!(mib(&spec["storage"]["size"]) > 0);
    let image = spec["imageName"].as_str().unwrap();
    assert!(
        image.ends_with(":15") || image.contains(":15."),
        "the schema is tested on PostgreSQL 15: {image}"
    );
    let initdb = &spec["bootstrap"]["initdb"];
    assert_eq!(initdb["database"].as_str(), Some("hacrl"));
    assert_eq!(initdb["owner"].as_str(), Some("hacrl"));
    let app_secret = format!("{}-app", cluster.name());
    for f in [cluster.file.as_str(), "deploy/k8s/database-secret.yaml"] {
        assert!(
            read(f).contains(&app_secret),
            "{f} does not name the operator's Secret {app_secret}"
        );
    }
    // The verifiers at their most, the migration Job, and the 3 connections PostgreSQL keeps
    // for superusers (the operator's own) must fit.
    let max: i64 = spec["postgresql"]["parameters"]["max_connections"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let needed = verifier_connections(&objs) + 1 + 3;
    assert!(
        needed <= max,
        "the verifiers may open {needed} connections, max_connections is {max}"
    );
}

/// The values of the ConfigMap's run.toml that the checks below compare with other objects.
struct Run {
    output_dir: String,
    prompts_per_step: usize,
    group_size: usize,
    verifier_url: String,
    agents: Vec<Agent>,
}
struct Agent {
    name: String,
    model: String,
    device: String,
    backend: String,
    url: String,
    served: String,
}

/// run.toml as the `toml` crate reads it: only the keys the cross-checks need (the trainer's own
/// parser is the authority on the whole file: [`the_real_trainer_accepts_the_run_config_for_each_job`]).
#[derive(Deserialize)]
struct RunToml {
    run: RunTable,
    verifier: VerifierTable,
    agents: Vec<AgentTable>,
}
#[derive(Deserialize)]
struct RunTable {
    output_dir: String,
    prompts_per_step: usize,
    group_size: usize,
}
#[derive(Deserialize)]
struct VerifierTable {
    url: String,
}
#[derive(Deserialize)]
struct AgentTable {
    name: String,
    model: String,
    device: Option<String>,
    generation: Option<GenerationTable>,
}
#[derive(Deserialize)]
struct GenerationTable {
    backend: String,
    url: String,
    model: String,
}

fn run_config(text: &str) -> Run {
    let t: RunToml = toml::from_str(text).unwrap_or_else(|e| panic!("run.toml: {e}"));
    let agents = t
        .agents
        .into_iter()
        .map(|a| {
            let g = a.generation.unwrap_or_else(|| GenerationTable {
                backend: "tch".into(),
                url: String::new(),
                model: String::new(),
            });
            Agent {
                name: a.name,
                model: a.model,
                device: a.device.unwrap_or_else(|| "cpu".into()),
                backend: g.backend,
                url: g.url,
                served: g.model,
            }
        })
        .collect();
    Run {
        output_dir: t.run.output_dir,
        prompts_per_step: t.run.prompts_per_step,
        group_size: t.run.group_size,
        verifier_url: t.verifier.url,
        agents,
    }
}

/// `host` and port of `http://host:port`.
fn host_port(url: &str) -> (String, i64) {
    let rest = url.strip_prefix("http://").expect("http://");
    let (host, port) = rest.trim_end_matches('/').split_once(':').expect("a port");
    (host.to_string(), port.parse().unwrap())
}

/// The Service at `url`'s host and port, and the pod template labels it selects.
fn service_at<'a>(objs: &'a [Object], url: &str) -> (&'a Object, Value) {
    let (host, port) = host_port(url);
    let svc = find(objs, "Service", &host);
    assert!(
        svc.doc["spec"]["ports"]
            .as_sequence()
            .unwrap()
            .iter()
            .any(|p| p["port"].as_i64() == Some(port)),
        "Service {host} has no port {port}"
    );
    (svc, svc.doc["spec"]["selector"].clone())
}

fn selects(selector: &Value, labels: &Value) -> bool {
    selector
        .as_mapping()
        .unwrap()
        .iter()
        .all(|(k, v)| labels[k.as_str().unwrap()] == *v)
}

fn mounts(c: &Value) -> Vec<(String, String, bool)> {
    c["volumeMounts"]
        .as_sequence()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["mountPath"].as_str().unwrap().to_string(),
                m["readOnly"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

/// The claim behind a pod's volume `name`.
fn claim(pod: &Value, name: &str) -> String {
    let v = pod["volumes"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|v| v["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no volume {name}"));
    v["persistentVolumeClaim"]["claimName"]
        .as_str()
        .unwrap_or_else(|| panic!("volume {name} is not a claim"))
        .to_string()
}

/// The volume and claim a container mounts at or above `path`, and whether read-only.
fn mount_of(pod: &Value, c: &Value, path: &str) -> (String, bool) {
    let (name, _, ro) = mounts(c)
        .into_iter()
        .filter(|(_, at, _)| Path::new(path).starts_with(at))
        .max_by_key(|(_, at, _)| at.len())
        .unwrap_or_else(|| panic!("nothing is mounted at {path}"));
    (claim(pod, &name), ro)
}

fn gpus(c: &Value) -> i64 {
    c["resources"]["limits"]["nvidia.com/gpu"]
        .as_i64()
        .unwrap_or(0)
}

#[test]
fn trainer_jobs_run_the_configmap_run_on_its_engines_and_verifier() {
    let objs = objects();
    let cm = find(&objs, "ConfigMap", "hacrl-run");
    let text = cm.doc["data"]["run.toml"].as_str().expect("run.toml");
    let run = run_config(text);
    let trainer = workspace_binary("trainer").expect("trainer binary");
    let h = help(&trainer, "run");
    let jobs = our_containers(&objs, "trainer");
    let mut job_agents = Vec::new();
    for (job, c) in &jobs {
        assert_eq!(job.kind(), "Job");
        let args = strs(&c["args"]);
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            assert!(h.flags.contains(flag), "`trainer run` has no {flag}");
        }
        assert_eq!(args[..3], ["run", "--config", "/config/run.toml"]);
        assert_eq!(args[3], "--agent");
        let name = args[4].clone();
        for var in env(c).keys() {
            assert!(
                h.env.contains_key(var) || TRAINER_NON_FLAG_ENV.contains(&var.as_str()),
                "{}: the trainer reads no {var}",
                job.name()
            );
        }
        let pod = job.pod();
        // The config is this ConfigMap, mounted where --config points.
        let (vol, at, _) = mounts(c)
            .into_iter()
            .find(|(_, at, _)| at == "/config")
            .expect("/config mounted");
        let v = pod["volumes"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|v| v["name"].as_str() == Some(&vol))
            .unwrap();
        assert_eq!(v["configMap"]["name"].as_str(), Some("hacrl-run"), "{at}");
        let agent = run
            .agents
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("{}: run.toml has no agent {name}", job.name()));
        // Its model is on a mounted claim; its output folder on a writable one.
        let (models, _) = mount_of(pod, c, &agent.model);
        let (runs, ro) = mount_of(pod, c, &run.output_dir);
        assert!(!ro, "{}: output_dir is read-only", job.name());
        // One GPU when the agent trains on CUDA, and the engine's pod labels admit the Job.
        assert_eq!(gpus(c), i64::from(agent.device.starts_with("cuda")));
        assert_eq!(
            pod["securityContext"]["runAsUser"].as_i64(),
            Some(image_uid("docker/trainer.Dockerfile"))
        );
        assert_eq!(pod["securityContext"]["runAsNonRoot"].as_bool(), Some(true));
        let labels = &job.doc["spec"]["template"]["metadata"]["labels"];
        assert_eq!(labels["hacrl/agent"].as_str(), Some(name.as_str()));
        assert_eq!(
            job.name(),
            format!("train-{}", name.replace('.', "-")),
            "Jobs are named after their agent"
        );

        // Its engine: the Service at generation.url selects exactly one vLLM Deployment of this
        // agent, serving generation.model from the model folder the trainer reads, and reading
        // the synced weights (output_dir/<agent>/engine) from the same claim at the same path.
        assert_eq!(agent.backend, "openai");
        let (svc, selector) = service_at(&objs, &agent.url);
        let engines: Vec<&Object> = objs
            .iter()
            .filter(|o| {
                o.kind() == "Deployment"
                    && selects(&selector, &o.doc["spec"]["template"]["metadata"]["labels"])
            })
            .collect();
        assert_eq!(
            engines.len(),
            1,
            "Service {} selects {} Deployments",
            svc.name(),
            engines.len()
        );
        let engine = engines[0];
        assert_eq!(engine.doc["spec"]["replicas"].as_i64(), Some(1));
        let ec = containers(engine.pod())[0];
        let eargs = strs(&ec["args"]);
        assert_eq!(
            eargs[0],
            agent.model,
            "{}: serves another model",
            engine.name()
        );
        let served = &eargs[eargs
            .iter()
            .position(|a| a == "--served-model-name")
            .unwrap()
            + 1];
        assert_eq!(served, &agent.served);
        assert_eq!(mount_of(engine.pod(), ec, &agent.model).0, models);
        let sync = format!("{}/{}/engine", run.output_dir, agent.name);
        assert_eq!(
            mount_of(engine.pod(), ec, &sync).0,
            runs,
            "{}: the engine cannot read {sync}",
            engine.name()
        );
        assert_eq!(env(ec)["VLLM_SERVER_DEV_MODE"].as_deref(), Some("1"));
        assert_eq!(gpus(ec), 1);
        let port = host_port(&agent.url).1;
        let target = &svc.doc["spec"]["ports"][0]["targetPort"];
        let named = ec["ports"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|p| p["name"] == *target)
            .expect("the Service's targetPort names the engine's port");
        assert_eq!(
            named["containerPort"].as_i64(),
            Some(
                eargs[eargs.iter().position(|a| a == "--port").unwrap() + 1]
                    .parse()
                    .unwrap()
            )
        );
        assert!(port > 0);
        // Only this agent's trainer may reach it.
        let policy = objs
            .iter()
            .find(|o| {
                o.kind() == "NetworkPolicy"
                    && selects(
                        &o.doc["spec"]["podSelector"]["matchLabels"],
                        &engine.doc["spec"]["template"]["metadata"]["labels"],
                    )
            })
            .unwrap_or_else(|| panic!("no NetworkPolicy guards {}", engine.name()));
        let from = &policy.doc["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"];
        assert!(
            selects(from, labels),
            "{} shuts out its trainer",
            policy.name()
        );
        assert_eq!(from["hacrl/agent"].as_str(), Some(name.as_str()));
        job_agents.push(name);
    }
    // A Job per agent, no more.
    job_agents.sort();
    let mut config_agents: Vec<String> = run.agents.iter().map(|a| a.name.clone()).collect();
    config_agents.sort();
    assert_eq!(job_agents, config_agents);
    assert!(
        config_agents.len() >= 2,
        "HACPO shares between two or more agents"
    );

    // The verifier URL is the verifier Service; a step's rollouts fit one submission.
    let (_, selector) = service_at(&objs, &run.verifier_url);
    let verifier = find(&objs, "Deployment", "verifier");
    assert!(selects(
        &selector,
        &verifier.doc["spec"]["template"]["metadata"]["labels"]
    ));
    let max_batch: usize = env(containers(verifier.pod())[0])["VERIFIER_MAX_BATCH"]
        .as_deref()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        2 * run.prompts_per_step * run.group_size <= max_batch,
        "a step's rollouts (2G for gspo2x) exceed VERIFIER_MAX_BATCH"
    );
}

/// The real trainer loads the ConfigMap's run.toml (its parser rejects unknown keys and checks
/// values) and knows each Job's agent: it gets as far as loading that agent's model, which does
/// not exist here. CUDA devices are read as CPU, so that the check does not need a GPU, and the
/// output folder is a temporary one.
#[test]
fn the_real_trainer_accepts_the_run_config_for_each_job() {
    let trainer = workspace_binary("trainer").expect("trainer binary");
    let objs = objects();
    let text = find(&objs, "ConfigMap", "hacrl-run").doc["data"]["run.toml"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("device = \"cuda\""));
    let dir = tempdir();
    let config = dir.join("run.toml");
    // Outputs go to the temporary folder, not to this machine's /runs, should the trainer write
    // anything before it fails on the model.
    assert!(text.contains("output_dir = \"/runs\""));
    let out_dir = dir.join("runs");
    let local = text
        .replace("device = \"cuda\"", "device = \"cpu\"")
        .replace(
            "output_dir = \"/runs\"",
            &format!("output_dir = {:?}", out_dir.display().to_string()),
        );
    std::fs::write(&config, local).unwrap();
    let mut agents: Vec<String> = our_containers(&objs, "trainer")
        .iter()
        .map(|(_, c)| strs(&c["args"])[4].clone())
        .collect();
    // A name that is not in the run must fail differently, or this check proves nothing.
    agents.push("no-such-agent".into());
    for name in &agents {
        let out = Command::new(&trainer)
            .args(["run", "--config"])
            .arg(&config)
            .args(["--agent", name])
            .env("RUST_LOG", "error")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success());
        let expected = if name == "no-such-agent" {
            format!("no agent `{name}` in the run")
        } else {
            format!("loading agent {name} from /models/")
        };
        assert!(
            stderr.contains(&expected),
            "expected `{expected}`:\n{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The vLLM engines' command line and variables against the vLLM the project's engine test runs
/// (scripts/setup.d/50-vllm.sh; the CPU build, the same argument parser as the CUDA image's), and
/// the image at that same release.
#[test]
fn vllm_engines_use_real_flags_of_the_tested_release() {
    let vllm = testkit::vllm_executable().expect("vLLM");
    let venv = vllm.parent().unwrap().parent().unwrap();
    let version = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('vllm'))",
        ])
        .output()
        .unwrap();
    let version = String::from_utf8(version.stdout)
        .unwrap()
        .trim()
        .to_string();
    let out = Command::new(&vllm)
        .args(["serve", "--help=all"])
        // The trainer's environment points at another torch build's libraries.
        .env_remove("LD_LIBRARY_PATH")
        .env("VLLM_TARGET_DEVICE", "cpu")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let help = String::from_utf8(out.stdout).unwrap();
    // Option lines only (`  --max-model-len MAX_MODEL_LEN`, aliases after `, `), not flags
    // that the prose mentions.
    let flags: BTreeSet<&str> = help
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("--"))
        .flat_map(|l| l.split(", ").filter_map(|alias| alias.split(' ').next()))
        .filter(|w| w.starts_with("--"))
        .collect();
    assert!(flags.len() > 100 && flags.contains("--port"), "{flags:?}");
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("python3")
        })
        .expect("the venv's lib/python3.*")
        .join("site-packages");
    let envs = std::fs::read_to_string(site.join("vllm/envs.py")).unwrap();
    let hub = std::fs::read_to_string(site.join("huggingface_hub/constants.py")).unwrap();
    let health =
        std::fs::read_to_string(site.join("vllm/entrypoints/serve/instrumentator/health.py"))
            .unwrap();
    let objs = objects();
    let engines: Vec<(&Object, &Value)> = objs
        .iter()
        .filter(|o| o.kind() == "Deployment")
        .flat_map(|o| containers(o.pod()).into_iter().map(move |c| (o, c)))
        .filter(|(_, c)| {
            c["image"]
                .as_str()
                .unwrap()
                .starts_with("vllm/vllm-openai:")
        })
        .collect();
    assert_eq!(engines.len(), 2, "one engine per agent");
    for (o, c) in engines {
        assert_eq!(
            c["image"].as_str(),
            Some(format!("vllm/vllm-openai:v{version}").as_str()),
            "{}: the image is not the release the engine test runs",
            o.name()
        );
        assert_eq!(strs(&c["command"]), ["vllm", "serve"]);
        let args = strs(&c["args"]);
        assert!(!args[0].starts_with("--"), "the model path comes first");
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            assert!(
                flags.contains(flag.as_str()),
                "{}: `vllm serve` has no {flag}",
                o.name()
            );
        }
        for var in env(c).keys() {
            let known = if var.starts_with("VLLM_") {
                envs.contains(&format!("\"{var}\":"))
            } else {
                hub.contains(&format!("os.environ.get(\"{var}\")"))
            };
            assert!(
                known,
                "{}: neither vLLM nor huggingface_hub reads {var}",
                o.name()
            );
        }
        for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
            let path = c[probe]["httpGet"]["path"].as_str().unwrap();
            assert!(
                health.contains(&format!("@router.get(\"{path}\"")),
                "{}: vLLM serves no {path}",
                o.name()
            );
        }
        assert_eq!(o.doc["spec"]["strategy"]["type"].as_str(), Some("Recreate"));
    }
}
