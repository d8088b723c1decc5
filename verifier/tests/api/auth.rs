//! Tokens and scopes on a service that asks for them: every route against every scope, a key
//! used for another agent, revoked and expired tokens, who wrote each row, and the CLI.

use chrono::{Duration, Utc};
use reqwest::Method;
use verifier::auth::manage::{self, TokenSpec};
use verifier::auth::quota::Quota;
use verifier::auth::token::Token;
use verifier::auth::{Access, Scope};
use verifier::routes;

use super::*;

/// Stores a token with `scopes` (and `agent`, for `write`) expiring at `expires_at`.
async fn token_at(
    s: &TestService,
    name: &str,
    scopes: &[Scope],
    agent: Option<&str>,
    expires_at: Option<chrono::DateTime<Utc>>,
) -> String {
    let token = Token::generate().unwrap();
    let spec = TokenSpec {
        name: name.into(),
        scopes: scopes.to_vec(),
        agent: agent.map(str::to_string),
        expires_at,
        quota: Quota::default(),
    };
    manage::create(&s.db, &spec, &token).await.unwrap();
    token.reveal()
}

/// Stores a `score` token with its own `quota`; returns it and its id.
async fn limited(s: &TestService, name: &str, quota: Quota) -> (String, String) {
    let token = Token::generate().unwrap();
    let spec = TokenSpec {
        name: name.into(),
        scopes: vec![Scope::Score],
        agent: None,
        expires_at: None,
        quota,
    };
    manage::create(&s.db, &spec, &token).await.unwrap();
    (token.reveal(), token.id.to_string())
}

async fn token(s: &TestService, name: &str, scopes: &[Scope], agent: Option<&str>) -> String {
    token_at(s, name, scopes, agent, Some(Utc::now() + Duration::days(1))).await
}

/// Sends `body` (JSON, for POST) with `token` as a bearer, returning status and body.
async fn call(
    s: &TestService,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    // Redirects are not followed: `/` is open, the `/ui` it points to is not.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = http.request(method.clone(), format!("{}{path}", s.url));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if method == Method::POST {
        req = req.json(body);
    }
    let r = req.send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn every_route_asks_for_its_scope_and_admin_passes_everywhere() {
    let s = TestService::start_with_tokens().await;
    let admin = token(&s, "admin", &[Scope::Admin], None).await;
    let keys = [
        (
            Scope::Score,
            token(&s, "score", &[Scope::Score], None).await,
        ),
        (Scope::Read, token(&s, "read", &[Scope::Read], None).await),
        (
            Scope::Write,
            token(&s, "write", &[Scope::Write], Some("a")).await,
        ),
        (Scope::Admin, admin.clone()),
    ];
    let (status, doc) = call(&s, Method::GET, "/openapi.json", None, &Value::Null).await;
    assert_eq!(status, 200);
    // The pages (outside the document) from the table, and the Swagger UI beside it.
    let mut routes: Vec<(Method, String)> = (routes::table().into_iter())
        .filter(|r| r.kind == routes::Kind::Page)
        .map(|r| (r.method, r.path.to_string()))
        .chain([(Method::GET, "/docs/".to_string())])
        .collect();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let method: Method = method.to_uppercase().parse().unwrap();
            routes.push((method.clone(), path.clone()));
            // The document says what the table says.
            if routes::access(&method, path) != Some(Access::Open) {
                let at = format!("{method} {path}");
                assert!(op["responses"].get("401").is_some(), "{at} lists no 401");
                assert!(op["responses"].get("403").is_some(), "{at} lists no 403");
                assert_eq!(op["security"][0]["bearer"], json!([]), "{at}");
            }
        }
    }
    for (method, route) in routes {
        let at = format!("{method} {route}");
        // A route missing from the table fails here: each route needs a decision.
        let access = routes::access(&method, &route)
            .unwrap_or_else(|| panic!("{at} is not in the route table"));
        let path = route
            .replace("{agent}", "a")
            .replace("{run}", "r")
            .replace("{step}", "0")
            .replace("{task}", "x")
            .replace("{*rest}", "nothing");
        let body = json!({});
        let (status, _) = call(&s, method.clone(), &path, None, &body).await;
        let Access::Scope(needed) = access else {
            assert_ne!(status, 401, "{at} is open");
            continue;
        };
        assert_eq!(status, 401, "{at} without a token");
        for (scope, key) in &keys {
            let (status, err) = call(&s, method.clone(), &path, Some(key), &body).await;
            if *scope == needed || *scope == Scope::Admin {
                assert!(
                    ![401, 403].contains(&status),
                    "{at} with {scope}: {status} {err}"
                );
            } else {
                assert_eq!(status, 403, "{at} with {scope}: {err}");
                assert_eq!(err["error"]["field"], "authorization", "{at}");
                assert_eq!(err["error"]["code"], "forbidden", "{at}");
                let message = err["error"]["message"].as_str().unwrap();
                assert!(message.contains(&format!("`{needed}`")), "{at}: {message}");
            }
        }
    }
}

#[tokio::test]
async fn a_write_key_writes_only_as_its_agent_and_rows_name_it() {
    let s = TestService::start_with_tokens().await;
    let admin = token(&s, "admin", &[Scope::Admin], None).await;
    let key_a = token(&s, "trainer-a", &[Scope::Read, Scope::Write], Some("a")).await;
    let task = {
        let t = json!({"tasks": [{"dataset": "toy", "external_id": "1", "kind": "math",
                                  "prompt": "1 + 1?", "reference": {"answer": "2"}}]});
        let (status, body) = call(&s, Method::POST, "/v1/tasks", Some(&key_a), &t).await;
        assert_eq!(status, 403, "tasks are admin's: {body}");
        let (status, body) = call(&s, Method::POST, "/v1/tasks", Some(&admin), &t).await;
        assert_eq!(status, 200, "{body}");
        body["tasks"][0]["id"].as_str().unwrap().to_string()
    };
    // A write key registers its own agent, not another's; admin registers any.
    let (status, a) = call(
        &s,
        Method::POST,
        "/v1/agents",
        Some(&key_a),
        &json!({"name": "a"}),
    )
    .await;
    assert_eq!(status, 201, "{a}");
    let a = a["id"].as_str().unwrap().to_string();
    let (status, err) = call(
        &s,
        Method::POST,
        "/v1/agents",
        Some(&key_a),
        &json!({"name": "b"}),
    )
    .await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (403, Some("name")),
        "{err}"
    );
    let (_, b) = call(
        &s,
        Method::POST,
        "/v1/agents",
        Some(&admin),
        &json!({"name": "b"}),
    )
    .await;
    let b = b["id"].as_str().unwrap().to_string();

    let batch = |agent: &str| {
        json!({"rollouts": [rollout(&uuid(), &task, &a, 1, "2"),
                                                  rollout(&uuid(), &task, agent, 1, "2")]})
    };
    let (status, _) = call(&s, Method::POST, "/v1/rollouts", None, &batch(&a)).await;
    assert_eq!(status, 401, "unauthenticated");
    let (status, err) = call(&s, Method::POST, "/v1/rollouts", Some(&key_a), &batch(&b)).await;
    assert_eq!(status, 403, "{err}");
    assert_eq!(err["error"]["field"], "rollouts[1].agent_id");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`a` only, not as `b`")
    );
    let (status, body) = call(&s, Method::POST, "/v1/rollouts", Some(&key_a), &batch(&a)).await;
    assert_eq!(status, 200, "{body}");

    let metrics =
        |agent: &str| json!({"run": "default", "agent_id": agent, "step": 1, "loss": 0.5});
    let (status, err) = call(&s, Method::POST, "/v1/metrics", Some(&key_a), &metrics(&b)).await;
    assert_eq!(
        (status, err["error"]["field"].as_str()),
        (403, Some("agent_id"))
    );
    let (status, _) = call(&s, Method::POST, "/v1/metrics", Some(&key_a), &metrics(&a)).await;
    assert_eq!(status, 200);

    // Who wrote what, as psql shows it.
    let writers: Vec<(String, String)> = sqlx::query_as(
        "select 'rollouts', t.name from rollouts r join tokens t on t.id = r.written_by
         union all select 'metrics', t.name from train_metrics m join tokens t on t.id = m.written_by
         union all select 'agents:' || a.name, t.name from agents a join tokens t on t.id = a.written_by
         union all select 'tasks', t.name from tasks k join tokens t on t.id = k.written_by
         order by 1, 2",
    )
    .fetch_all(&s.db)
    .await
    .unwrap();
    let writers: Vec<(&str, &str)> = writers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        writers,
        [
            ("agents:a", "trainer-a"),
            ("agents:b", "admin"),
            ("metrics", "trainer-a"),
            ("rollouts", "trainer-a"),
            ("rollouts", "trainer-a"),
            ("tasks", "admin"),
        ]
    );
    // …and as the dashboard's step page shows it.
    let page = s
        .http
        .get(format!("{}/ui/runs/default/steps/1", s.url))
        .bearer_auth(&key_a)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert_eq!(
        html.matches(r#"<span class="writer">written by trainer-a</span>"#)
            .count(),
        2,
        "{html}"
    );
}

#[tokio::test]
async fn revoked_expired_and_forged_tokens_get_401() {
    let s = TestService::start_with_tokens().await;
    let live = token(&s, "live", &[Scope::Read], None).await;
    let old = token_at(
        &s,
        "old",
        &[Scope::Read],
        None,
        Some(Utc::now() - Duration::seconds(1)),
    )
    .await;
    let get = |t: String| {
        let s = &s;
        async move { call(s, Method::GET, "/v1/agents", Some(&t), &Value::Null).await }
    };
    assert_eq!(get(live.clone()).await.0, 200);
    let (status, err) = get(old).await;
    assert_eq!(status, 401);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{err}"
    );
    // The right id with another secret, and text that is no token.
    let forged = format!("{}{}", &live[..live.len() - 4], "AAAA");
    for bad in [forged, "hacrl_nope".to_string()] {
        let (status, err) = get(bad).await;
        assert_eq!(
            (status, err["error"]["code"].as_str()),
            (401, Some("unauthenticated"))
        );
    }
    assert!(verifier::pool::tokens::revoke(&s.db, "live").await.unwrap());
    let (status, err) = get(live).await;
    assert_eq!(status, 401);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("revoked"),
        "{err}"
    );
    // The dashboard asks a browser for the token.
    let r = s.http.get(format!("{}/ui", s.url)).send().await.unwrap();
    let challenges: Vec<_> = r.headers().get_all("www-authenticate").iter().collect();
    assert_eq!((r.status().as_u16(), challenges.len()), (401, 2));
}

#[tokio::test]
async fn the_cli_makes_lists_and_revokes_tokens_and_serve_refuses_to_listen_openly() {
    let s = TestService::start().await;
    let bin = env!("CARGO_BIN_EXE_verifier");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin)
            .args(args)
            .env("DATABASE_URL", &s.db_url)
            .env_remove("VERIFIER_AUTH")
            .env_remove("VERIFIER_INSECURE_OPEN")
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    // No token yet: a non-loopback address is refused (it never gets to accept anything).
    let (ok, _, err) = run(&["serve", "--listen", "0.0.0.0:0"]);
    assert!(
        !ok && err.contains("refusing to serve a non-loopback address"),
        "{err}"
    );
    let (ok, _, err) = run(&["serve", "--listen", "0.0.0.0:0", "--admin-token", ""]);
    assert!(
        !ok && err.contains("refusing"),
        "an empty admin token is none: {err}"
    );
    let (ok, _, err) = run(&["serve", "--listen", "0.0.0.0:0", "--admin-token", "hunter2"]);
    assert!(!ok && err.contains("not a token"), "{err}");

    let (ok, out, err) = run(&[
        "token",
        "create",
        "--name",
        "t",
        "--scope",
        "read,write",
        "--agent",
        "a",
    ]);
    assert!(ok, "{err}");
    let text = out.trim();
    assert!(Token::parse(text).is_some(), "{out}");
    let (ok, _, err) = run(&["token", "create", "--name", "w", "--scope", "write"]);
    assert!(!ok && err.contains("--agent"), "{err}");
    let (ok, out, _) = run(&["token", "list"]);
    assert!(
        ok && out.contains("t\t") && out.contains("read,write\ta\tdefault\tdefault\tdefault\tlive"),
        "{out}"
    );
    assert!(
        !out.contains(&text[text.len() - 20..]),
        "the list shows no secret"
    );
    assert!(run(&["token", "revoke", "t"]).0);
    assert!(run(&["token", "list"]).1.contains("revoked"));
    assert!(!run(&["token", "revoke", "nobody"]).0);

    // What compose and Kubernetes do: the first token comes from a secret, stored at start-up
    // (again at every start, unchanged), and the service then asks for tokens on every address.
    let admin = Token::generate().unwrap().reveal();
    for _ in 0..2 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut serving = std::process::Command::new(bin)
            .args(["serve", "--listen", &format!("0.0.0.0:{port}")])
            .env("DATABASE_URL", &s.db_url)
            .env("VERIFIER_ADMIN_TOKEN", &admin)
            .env_remove("VERIFIER_AUTH")
            .env_remove("VERIFIER_INSECURE_OPEN")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let mut ready = false;
        for _ in 0..600 {
            if let Ok(r) = s.http.get(format!("{url}/readyz")).send().await {
                ready = r.status() == 200;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let anonymous = s.http.get(format!("{url}/v1/agents")).send().await;
        let with_admin = s
            .http
            .get(format!("{url}/v1/agents"))
            .bearer_auth(&admin)
            .send()
            .await;
        serving.kill().unwrap();
        serving.wait().unwrap();
        assert!(ready, "the service with an admin token did not come up");
        assert_eq!(anonymous.unwrap().status(), 401);
        assert_eq!(with_admin.unwrap().status(), 200);
    }
    let (_, out, _) = run(&["token", "list"]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("admin\t")).count(),
        1,
        "{out}"
    );

    let (ok, _, err) = run(&[
        "token",
        "create",
        "--name",
        "r",
        "--scope",
        "score",
        "--rate",
        "5",
        "--sandbox",
        "2",
    ]);
    assert!(ok, "{err}");
    let (_, out, _) = run(&["token", "list"]);
    assert!(out.contains("score\t-\t5/s\tdefault\t2\tlive"), "{out}");
    let (ok, _, err) = run(&[
        "token", "create", "--name", "z", "--scope", "score", "--rate", "0",
    ]);
    assert!(!ok && err.contains("--rate"), "{err}");
}

/// One POST with `token`: status, `Retry-After`, body.
async fn post(
    s: &TestService,
    path: &str,
    token: &str,
    body: &Value,
) -> (u16, Option<String>, Value) {
    post_to(
        s.http.clone(),
        format!("{}{path}", s.url),
        token.to_string(),
        body.clone(),
    )
    .await
}

/// [`post`] with owned arguments, so that it can be spawned.
async fn post_to(
    http: reqwest::Client,
    url: String,
    token: String,
    body: Value,
) -> (u16, Option<String>, Value) {
    let r = http
        .post(url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (
        r.status().as_u16(),
        retry,
        r.json().await.unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn a_token_over_its_rate_gets_429_with_retry_after_and_others_are_not_slowed() {
    let s = TestService::start_with_tokens().await;
    let slow = Quota {
        rate: Some(0.2),
        burst: Some(2),
        sandbox: None,
    };
    let (key, id) = limited(&s, "slow", slow).await;
    let (other, _) = limited(&s, "other", Quota::default()).await;
    let math = json!({"reference": "1", "response": "\\boxed{1}"});
    for _ in 0..2 {
        assert_eq!(post(&s, "/v1/verify/math", &key, &math).await.0, 200);
    }
    let (status, retry, err) = post(&s, "/v1/verify/math", &key, &math).await;
    assert_eq!(
        (
            status,
            err["error"]["code"].as_str(),
            err["error"]["field"].as_str()
        ),
        (429, Some("rate_limited"), Some("authorization")),
        "{err}"
    );
    // At 0.2 requests per second the next one is about 5 s away.
    let wait: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((4..=5).contains(&wait), "Retry-After {wait}");
    for _ in 0..5 {
        assert_eq!(post(&s, "/v1/verify/math", &other, &math).await.0, 200);
    }
    let text = support::metrics_text(&s.url).await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("verifier_token_refusals_total{")
                && l.contains(&format!(r#"token="{id}""#))
                && l.contains(r#"limit="rate""#)),
        "refusals are not counted by token id:\n{text}"
    );
    assert!(
        !text.contains(&key[key.len() - 20..]),
        "no secret in metrics"
    );
}

#[tokio::test]
async fn a_tokens_sandbox_share_bounds_its_programs_in_flight_not_its_other_calls() {
    let s = TestService::start_with_tokens().await;
    let (key, _) = limited(
        &s,
        "one-at-a-time",
        Quota {
            sandbox: Some(1),
            ..Quota::default()
        },
    )
    .await;
    let spin = json!({"code": "while True:\n    pass\n", "language": "python", "run_timeout": 2});
    // Two loops of the same token at once: whichever comes second is refused at once, and the
    // other runs to its time limit.
    let send = |body: Value| {
        post_to(
            s.http.clone(),
            format!("{}/run_code", s.url),
            key.clone(),
            body,
        )
    };
    let (mut a, mut b) = (
        tokio::spawn(send(spin.clone())),
        tokio::spawn(send(spin.clone())),
    );
    let (refused, running) = tokio::select! {
        r = &mut a => (r.unwrap(), b),
        r = &mut b => (r.unwrap(), a),
    };
    let (status, retry, err) = refused;
    assert_eq!(
        (status, retry.as_deref(), err["error"]["code"].as_str()),
        (429, Some("1"), Some("rate_limited")),
        "{err}"
    );
    // Its calls that run no program are not held back by the share.
    let math = json!({"reference": "1", "response": "\\boxed{1}"});
    assert_eq!(post(&s, "/v1/verify/math", &key, &math).await.0, 200);
    let (status, _, done) = running.await.unwrap();
    assert_eq!(
        (status, done["status"].as_str()),
        (200, Some("Failed")),
        "{done}"
    );
    assert_eq!(done["run_result"]["status"], "TimeLimitExceeded", "{done}");
    let (status, _, ok) = post(
        &s,
        "/run_code",
        &key,
        &json!({"code": "print(1)", "language": "python"}),
    )
    .await;
    assert_eq!(
        (status, ok["status"].as_str()),
        (200, Some("Success")),
        "{ok}"
    );
}
