//! `toolprism mcp` against the project's own fixture servers (`tests/fixtures/mcp/server.py`,
//! run by python3; no network but 127.0.0.1), and `report --by-server`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::command::{root, toolprism};

fn fixture() -> String {
    root()
        .join("tests/fixtures/mcp/server.py")
        .to_string_lossy()
        .into_owned()
}

/// A stdio server entry of `.mcp.json`'s form running the fixture in `mode`.
fn stdio(args: &[&str]) -> Value {
    let mut all = vec![fixture()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    serde_json::json!({"command": "python3", "args": all})
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn mcp_json(dir: &Path, servers: &Value) -> PathBuf {
    write(
        dir,
        ".mcp.json",
        &serde_json::json!({"mcpServers": servers}).to_string(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = toolprism().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_of(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Whether a process is gone (or a zombie waiting for its parent to be reaped by init).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn all_gone(pids: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if pids.split_whitespace().all(gone) {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_client_format_is_read_and_dry_run_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pids = d.join("pids");
    let hang = stdio(&["hang", &pids.to_string_lossy()]);
    let configs = [
        write(
            d,
            "p/.mcp.json",
            &serde_json::json!({"mcpServers": {"cc": hang}}).to_string(),
        ),
        write(
            d,
            ".claude.json",
            &serde_json::json!({"mcpServers": {"user": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}, "projects": {"/elsewhere": {"mcpServers": {"other": {"command": "x"}}}}}).to_string(),
        ),
        write(d, "Claude/claude_desktop_config.json", r#"{"mcpServers": {"desk": {"command": "npx", "args": ["-y", "pkg"], "env": {"API_KEY": "hunter2"}}}}"#),
        write(d, ".cursor/mcp.json", r#"{"mcpServers": {"cur": {"url": "http://127.0.0.1:9/sse", "type": "sse"}}}"#),
        write(d, ".vscode/mcp.json", "{\n  // comments and trailing commas, as VS Code writes\n  \"inputs\": [{\"type\": \"promptString\", \"id\": \"k\"}],\n  \"servers\": {\"vs\": {\"type\": \"stdio\", \"command\": \"node\", \"args\": [\"s.js\"], \"cwd\": \"/srv\"},},\n}"),
        write(d, ".codeium/windsurf/mcp_config.json", r#"{"mcpServers": {"wind": {"serverUrl": "http://127.0.0.1:9/mcp?key=hunter3"}}}"#),
        write(d, ".codex/config.toml", "model = \"gpt-5\"\n[mcp_servers.codexfs]\ncommand = \"uvx\"\nargs = [\"fs\"]\nenv = { ROOT = \"/\" }\n[mcp_servers.off]\ncommand = \"y\"\nenabled = false\n"),
        write(d, ".gemini/settings.json", r#"{"mcpServers": {"gem": {"httpUrl": "http://127.0.0.1:9/mcp"}, "gemsse": {"url": "http://127.0.0.1:9/sse"}}}"#),
        write(d, "zed/settings.json", "{ \"context_servers\": { \"zedfs\": { \"command\": { \"path\": \"zfs\", \"args\": [] } } } // JSONC\n}"),
    ];
    let mut args: Vec<String> = vec!["mcp".into(), "--dry-run".into()];
    args.extend(configs.iter().map(|p| p.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    for (name, client) in [
        ("cc", "claude-code"),
        ("user", "claude-code"),
        ("desk", "claude-desktop"),
        ("cur", "cursor"),
        ("vs", "vscode"),
        ("wind", "windsurf"),
        ("codexfs", "codex"),
        ("off", "codex"),
        ("gem", "gemini-cli"),
        ("gemsse", "gemini-cli"),
        ("zedfs", "zed"),
    ] {
        assert!(
            out.contains(&format!("  {name} ({client}, ")),
            "{name}: {out}"
        );
    }
    assert!(
        !out.contains("other"),
        "another project's servers are not read: {out}"
    );
    assert!(out.contains("command: npx -y pkg"));
    assert!(out.contains("env:     API_KEY (values not shown)"));
    assert!(out.contains("folder:  /srv"));
    assert!(out.contains("headers: Authorization (values not shown)"));
    assert!(out.contains("sse:    http://127.0.0.1:9/sse"));
    assert!(out.contains("http:    http://127.0.0.1:9/mcp"));
    assert!(out.contains("off (codex, ") && out.contains("disabled: not started"));
    assert!(!out.contains("hunter2") && !err.contains("hunter2"));
    assert!(out.contains("http://127.0.0.1:9/mcp?key=***") && !out.contains("hunter3"));
    // Nothing was started.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!pids.exists(), "--dry-run started a server");
}

#[test]
fn a_broken_config_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        ".mcp.json",
        "{\"mcpServers\": {\"a\": {\"args\": []}}}",
    );
    let (code, out, err) = run(&["mcp", &bad.to_string_lossy(), "--dry-run"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(".mcp.json: mcpServers.a: neither `command` nor `url`"),
        "{err}"
    );
    let toml = write(dir.path(), "config.toml", "[mcp_servers.x\n");
    let (code, _, err) = run(&["mcp", &toml.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("toolprism: ") && err.contains("config.toml: not TOML"),
        "{err}"
    );
    let (code, _, err) = run(&["mcp", &bad.to_string_lossy(), "--server", "nope"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn pages_are_followed_and_each_host_sends_its_names_and_fields() {
    let dir = tempfile::tempdir().unwrap();
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"my.files": stdio(&["paged", "7", "3"])}),
    );
    let config = config.to_string_lossy();
    for host in [
        "claude-code",
        "codex",
        "cursor",
        "vscode",
        "gemini-cli",
        "raw",
    ] {
        let saved = dir.path().join(format!("{host}.json"));
        let saved_text = saved.to_string_lossy();
        let (code, stdout, stderr) = run(&[
            "mcp",
            &config,
            "--host",
            host,
            "-s",
            "original",
            "--json",
            "--save",
            &saved_text,
        ]);
        assert_eq!(code, 0, "{stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        // Confirmed as `export` confirms a write.
        let written = std::fs::metadata(&saved).unwrap().len() as usize;
        assert!(
            stderr.contains(&format!(
                "toolprism: wrote {saved_text}: the synthesized request, {} bytes\n",
                toolprism::text::thousands(written)
            )),
            "{stderr}"
        );
        assert_eq!(report["host"], host);
        let server = &report["servers"][0];
        assert_eq!(
            (
                server["status"].as_str(),
                server["tools"].as_u64(),
                server["pages"].as_u64()
            ),
            (Some("ok"), Some(7), Some(3)),
            "{host}"
        );
        let body: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
        let text = body.to_string();
        let dropped = [
            "annotations",
            "outputSchema",
            "\"title\"",
            "_meta",
            "readOnlyHint",
        ];
        if host == "raw" {
            assert!(
                dropped.iter().all(|f| text.contains(f)),
                "raw keeps every field"
            );
        } else {
            for field in dropped {
                assert!(!text.contains(field), "{host} sends no {field}: {text}");
            }
        }
        // Claude Code defers every MCP tool behind its `ToolSearch` (its own tools first).
        if host == "claude-code" {
            assert_eq!(body["tools"][0]["name"], "ToolSearch");
            assert_eq!(body["tools"][1]["defer_loading"], true);
            assert_eq!(report["claude_code"]["deferred"], 7);
            assert_eq!(report["claude_code"]["release"], "2.1.240");
        }
        let first = match host {
            "claude-code" => body["tools"][1]["name"].clone(),
            "codex" => body["tools"][0]["tools"][0]["name"].clone(),
            "cursor" | "vscode" => body["tools"][0]["function"]["name"].clone(),
            "gemini-cli" => body["tools"][0]["functionDeclarations"][0]["name"].clone(),
            _ => body["tools"][0]["name"].clone(),
        };
        let want = match host {
            "claude-code" => "mcp__my_files__tool_00",
            "cursor" | "vscode" => "mcp_my_files_tool_00",
            _ => "tool_00",
        };
        assert_eq!(first, want, "{host}");
        if host == "codex" {
            assert_eq!(body["tools"][0]["type"], "namespace");
            assert_eq!(body["tools"][0]["name"], "mcp__my_files");
            assert_eq!(body["tools"][0]["tools"].as_array().unwrap().len(), 7);
        }
        // The saved request is a capture every command reads.
        let (code, _, err) = run(&["report", &saved_text, "-s", "original"]);
        assert_eq!(code, 0, "{host}: {err}");
    }
}

#[test]
fn failed_and_hung_servers_are_listed_within_the_timeout_and_nothing_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({
            "good": stdio(&["paged", "2", "5"]),
            "crashes": stdio(&["crash"]),
            "hangs": stdio(&["hang", &pids.to_string_lossy()]),
            "chatty": stdio(&["noise"]),
            "absent": {"command": "/nonexistent/toolprism-fixture"},
            "needs": {"command": "python3", "env": {"K": "${TOOLPRISM_FIXTURE_UNSET}"}},
        }),
    );
    let started = Instant::now();
    let report = json_of(&[
        "mcp",
        &config.to_string_lossy(),
        // Long enough for python3 to start on a loaded two-core machine; the hung server
        // still takes all of it.
        "--timeout",
        "8",
        "-s",
        "original",
        "--json",
    ]);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let by_name = |name: &str| {
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("good")["status"], "ok");
    assert_eq!(by_name("crashes")["status"], "failed");
    assert_eq!(by_name("crashes")["stderr"], "fatal: database locked");
    assert_eq!(by_name("hangs")["status"], "timeout");
    assert!(
        by_name("chatty")["error"]
            .as_str()
            .unwrap()
            .starts_with("not MCP")
    );
    assert!(
        by_name("absent")["error"]
            .as_str()
            .unwrap()
            .contains("could not start")
    );
    assert!(
        by_name("needs")["error"]
            .as_str()
            .unwrap()
            .contains("TOOLPRISM_FIXTURE_UNSET")
    );
    let pids = std::fs::read_to_string(&pids).unwrap();
    assert!(all_gone(&pids), "the hung server's group is ended: {pids}");
    // None listed: exit 2, one line naming each.
    let only_bad = mcp_json(
        dir.path(),
        &serde_json::json!({"crashes": stdio(&["crash"])}),
    );
    let (code, out, err) = run(&["mcp", &only_bad.to_string_lossy()]);
    assert_eq!(
        (code, out.as_str(), err.lines().count()),
        (2, "", 1),
        "{err}"
    );
    assert!(err.contains("crashes failed"), "{err}");
    assert!(err.contains("stderr: fatal: database locked"), "{err}");
}

#[test]
fn sigterm_and_ctrl_c_end_every_server_toolprism_started() {
    use rustix::process::Signal;
    for (signal, status) in [(Signal::TERM, 143), (Signal::INT, 130)] {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        // And a legacy SSE server that never names its endpoint: the wait on its stream ends too.
        let silent = serve(dir.path(), &["sse", "1", "silent"]);
        let config = mcp_json(
            dir.path(),
            &serde_json::json!({
                "hangs": stdio(&["hang", &pids.to_string_lossy()]),
                "silent": {"type": "sse", "url": format!("http://127.0.0.1:{}/sse", silent.port), "headers": {"Authorization": "Bearer fixture-token"}},
            }),
        );
        let mut child = Command::new(crate::support::command::bin())
            .args([
                "mcp",
                &config.to_string_lossy(),
                "--timeout",
                "60",
                "--json",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pids.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, signal).unwrap();
        assert_eq!(
            wait_within(&mut child, Duration::from_secs(5)),
            Some(status)
        );
        let pids = std::fs::read_to_string(&pids).unwrap();
        assert!(all_gone(&pids), "{signal:?}: {pids}");
    }
}

fn wait_within(child: &mut Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    None
}

/// A fixture HTTP server on 127.0.0.1, ended when dropped.
struct Served {
    child: Child,
    port: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path, args: &[&str]) -> Served {
    let portfile = dir.join(format!("port-{}", args[0]));
    let mut all = vec![
        fixture(),
        args[0].to_owned(),
        portfile.to_string_lossy().into_owned(),
    ];
    all.extend(args[1..].iter().map(|a| (*a).to_owned()));
    let child = Command::new("python3")
        .args(&all)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !portfile.exists() {
        assert!(Instant::now() < deadline, "the fixture server started");
        std::thread::sleep(Duration::from_millis(20));
    }
    Served {
        child,
        port: std::fs::read_to_string(&portfile).unwrap(),
    }
}

#[test]
fn streamable_http_servers_are_listed_with_their_headers() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &["http", "5"]);
    let url = format!("http://127.0.0.1:{}/mcp", served.port);
    let config = write(
        dir.path(),
        ".vscode/mcp.json",
        &serde_json::json!({"servers": {
            "remote": {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${env:TOOLPRISM_FIXTURE_TOKEN}"}},
            "noauth": {"type": "http", "url": url},
            "tls": {"type": "http", "url": "https://127.0.0.1:1/mcp"},
        }})
        .to_string(),
    );
    let out = toolprism()
        .args(["mcp", &config.to_string_lossy(), "-s", "original", "--json"])
        .env("TOOLPRISM_FIXTURE_TOKEN", "fixture-token")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["host"], "vscode");
    let servers = report["servers"].as_array().unwrap();
    assert_eq!(
        (
            servers[0]["status"].as_str(),
            servers[0]["tools"].as_u64(),
            servers[0]["pages"].as_u64()
        ),
        (Some("ok"), Some(5), Some(2))
    );
    assert_eq!(servers[0]["transport"], "http");
    assert_eq!(servers[1]["status"], "auth");
    // `https://` goes through the TLS client; nothing listens on port 1 of the loopback.
    assert_eq!(servers[2]["status"], "failed");
    assert!(
        servers[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("could not reach the server"),
        "{}",
        servers[2]
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !all.contains("fixture-token"),
        "a header's value is never printed"
    );
}

#[test]
fn per_server_figures_equal_what_report_says_of_the_saved_request() {
    let dir = tempfile::tempdir().unwrap();
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({
            "alpha": stdio(&["paged", "4", "2"]),
            "beta": stdio(&["paged", "9", "4"]),
        }),
    );
    for host in ["claude-code", "codex", "cursor"] {
        let saved = dir.path().join(format!("{host}.json"));
        let saved = saved.to_string_lossy();
        let mcp = json_of(&[
            "mcp",
            &config.to_string_lossy(),
            "--host",
            host,
            "-s",
            "original,minimal,defer",
            "--json",
            "--save",
            &saved,
            // Every tool loaded, as Claude Code behind a proxy: one row per server.
            "--set",
            "claude-code.tool_search=false",
        ]);
        let report = json_of(&[
            "report",
            &saved,
            "--by-server",
            "-s",
            "original,minimal,defer",
            "--json",
        ]);
        let rows = report["servers"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{host}: {rows:?}");
        for server in mcp["servers"].as_array().unwrap() {
            let row = rows
                .iter()
                .find(|r| r["name"] == server["label"])
                .unwrap_or_else(|| panic!("{host}: a row for {server}"));
            assert_eq!(row["tokens"], server["tokens"], "{host}");
            assert_eq!(row["strategies"], server["strategies"], "{host}");
            assert!(row["tokens"].as_u64().unwrap() > 0);
        }
        assert_eq!(mcp["by_server"], report["servers"], "{host}");
        // The strategies' totals are the report's of the saved request.
        assert_eq!(mcp["strategies"], report["strategies"], "{host}");
    }
}

#[test]
fn report_by_server_gives_the_host_its_own_row() {
    let (code, out, err) = run(&[
        "report",
        "samples/codex-mcp-responses.json",
        "--by-server",
        "-s",
        "original",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Per server"));
    for row in ["github", "notes", "(host)"] {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(row)),
            "{row}: {out}"
        );
    }
}

#[test]
fn host_limits_are_notes_at_their_level() {
    let dir = tempfile::tempdir().unwrap();
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"many": stdio(&["paged", "130", "50"])}),
    );
    let config = config.to_string_lossy();
    let notes = |host: &str| -> Vec<(String, String)> {
        let report = json_of(&["mcp", &config, "--host", host, "-s", "original", "--json"]);
        report["strategies"][0]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["level"].as_str().unwrap().to_owned(),
                    n["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let codex = notes("codex");
    assert!(
        codex
            .iter()
            .any(|(level, text)| level == "error" && text.contains("130 tools")),
        "{codex:?}"
    );
    let cursor = notes("cursor");
    assert!(
        cursor
            .iter()
            .any(|(level, text)| level == "warning" && text.contains("drops 90")),
        "{cursor:?}"
    );
    let claude = notes("claude-code");
    assert!(
        !claude.iter().any(|(_, text)| text.contains("130 tools")),
        "{claude:?}"
    );
}

#[test]
fn the_sample_config_runs_offline() {
    let mut out = String::new();
    let mut child = Command::new(crate::support::command::bin())
        .current_dir(root())
        .args(["mcp", "samples/mcp/.mcp.json", "-s", "original"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(out.contains("notes") && out.contains(" ok "), "{out}");
}

#[test]
fn claude_counts_come_from_the_endpoint_and_a_second_run_makes_no_call() {
    let dir = tempfile::tempdir().unwrap();
    let mut served = serve(dir.path(), &["count"]);
    let base = format!("http://127.0.0.1:{}", served.port);
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"alpha": stdio(&["paged", "2", "5"]), "beta": stdio(&["paged", "3", "5"])}),
    );
    let cache = dir.path().join("cache");
    let run_counted = || {
        let out = toolprism()
            .args([
                "mcp",
                &config.to_string_lossy(),
                "-s",
                "original",
                "--json",
                "--count-with",
                "anthropic",
                "--api-base",
                &base,
                "--set",
                "claude-code.tool_search=false",
            ])
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("TOOLPRISM_CACHE_DIR", &cache)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains("test-key"), "the key is never printed");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        report["claude_count"].clone()
    };
    let first = run_counted();
    // Whole, none, 2 servers, 5 tools.
    assert_eq!(first["calls"], 9, "{first}");
    assert_eq!(first["cached"], 0);
    let with = first["with_tools"].as_i64().unwrap();
    let without = first["without_tools"].as_i64().unwrap();
    assert_eq!(first["tools"].as_i64().unwrap(), with - without);
    assert!(with > without);
    let servers: Vec<&str> = first["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(servers, ["alpha", "beta"]);
    assert_eq!(first["per_tool"].as_array().unwrap().len(), 5);
    let second = run_counted();
    assert_eq!(
        (second["calls"].as_u64(), second["cached"].as_u64()),
        (Some(0), Some(9))
    );
    assert_eq!(second["servers"], first["servers"]);
    assert_eq!(second["tools"], first["tools"]);
    // `report --count-with` of the saved request asks the same questions: all cached.
    let saved = dir.path().join("saved.json");
    toolprism()
        .args([
            "mcp",
            &config.to_string_lossy(),
            "-s",
            "original",
            "--json",
            "--set",
            "claude-code.tool_search=false",
            "--save",
        ])
        .arg(&saved)
        .assert()
        .success();
    let report = report_counted(&saved, &base, &cache);
    assert_eq!(report["claude_count"]["calls"], 0);
    assert_eq!(report["claude_count"]["servers"], first["servers"]);
    // The endpoint saw 9 calls in all.
    let _ = served.child.kill();
    let _ = served.child.wait();
    let mut log = String::new();
    served
        .child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert_eq!(log.lines().filter(|l| *l == "call").count(), 9);
    // Without a key: one line, nothing reached.
    let out = toolprism()
        .args([
            "mcp",
            &config.to_string_lossy(),
            "--count-with",
            "anthropic",
            "--api-base",
            &base,
        ])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs ANTHROPIC_API_KEY"));
}

#[test]
fn counts_are_cached_per_api_base_and_a_failed_count_keeps_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &["count"]);
    let base = format!("http://127.0.0.1:{}", served.port);
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"alpha": stdio(&["paged", "2", "5"]), "beta": stdio(&["paged", "3", "5"])}),
    );
    let cache = dir.path().join("cache");
    let first = toolprism()
        .args(["mcp", &config.to_string_lossy(), "-s", "original", "--json"])
        .args(["--set", "claude-code.tool_search=false"])
        .args(["--count-with", "anthropic", "--api-base", &base])
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("TOOLPRISM_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(report["claude_count"]["calls"], 9);
    // Another API base is asked again: the cache is the endpoint's own.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let other = serve(&elsewhere, &["count"]);
    let other_base = format!("http://127.0.0.1:{}", other.port);
    let counted = |key: &str, cache: &Path| {
        toolprism()
            .args(["mcp", &config.to_string_lossy(), "-s", "original", "--json"])
            .args(["--set", "claude-code.tool_search=false"])
            .args(["--count-with", "anthropic", "--api-base", &other_base])
            .env("ANTHROPIC_API_KEY", key)
            .env("TOOLPRISM_CACHE_DIR", cache)
            .output()
            .unwrap()
    };
    let out = counted("test-key", &cache);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["claude_count"]["calls"], 9);
    // A gateway that echoes a wrong key: the count fails, masked; the figures stay.
    let out = counted("wrong-key-5551234", &elsewhere.join("cache"));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(!all.contains("wrong-key-5551234"), "{all}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = report["claude_count_error"].as_str().unwrap();
    assert!(
        said.contains("HTTP 401") && said.contains("invalid x-api-key: ***"),
        "{said}"
    );
    assert!(report["strategies"][0]["tools_tokens"].as_u64().unwrap() > 0);
    // `report --count-with` too: the report stands, the failure said.
    let saved = elsewhere.join("saved.json");
    toolprism()
        .args(["mcp", &config.to_string_lossy(), "--json", "--save"])
        .arg(&saved)
        .assert()
        .success();
    let out = toolprism()
        .args(["report", &saved.to_string_lossy(), "-s", "original"])
        .args(["--count-with", "anthropic", "--api-base", &other_base])
        .env("ANTHROPIC_API_KEY", "wrong-key-5551234")
        .env("TOOLPRISM_CACHE_DIR", elsewhere.join("cache2"))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("original") && stderr.contains("--count-with anthropic failed: HTTP 401"),
        "{stderr}"
    );
    assert!(!stderr.contains("wrong-key-5551234"), "{stderr}");
}

fn report_counted(saved: &Path, base: &str, cache: &Path) -> Value {
    let out = toolprism()
        .args([
            "report",
            &saved.to_string_lossy(),
            "-s",
            "original",
            "--json",
        ])
        .args(["--count-with", "anthropic", "--api-base", base])
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("TOOLPRISM_CACHE_DIR", cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn legacy_sse_servers_are_listed_and_clients_fall_back_to_them_by_their_rules() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let served = serve(dirs[0].path(), &["sse", "5"]);
    let silent = serve(dirs[1].path(), &["sse", "5", "silent"]);
    let foreign = serve(dirs[2].path(), &["sse", "5", "foreign"]);
    let url = |s: &Served| format!("http://127.0.0.1:{}/sse", s.port);
    let auth = "Bearer ${env:TOOLPRISM_FIXTURE_TOKEN}";
    let vscode = write(
        dirs[0].path(),
        ".vscode/mcp.json",
        &serde_json::json!({"servers": {
            "legacy": {"type": "sse", "url": url(&served), "headers": {"Authorization": auth}},
            "fallback": {"type": "http", "url": url(&served), "headers": {"Authorization": auth}},
            "noauth": {"type": "sse", "url": url(&served)},
            "silent": {"type": "sse", "url": url(&silent), "headers": {"Authorization": auth}},
            "foreign": {"type": "sse", "url": url(&foreign), "headers": {"Authorization": auth}},
            "neither": {"type": "http", "url": url(&served).replace("/sse", "/nothing")},
            "tls": {"type": "sse", "url": "https://127.0.0.1:1/sse"},
        }})
        .to_string(),
    );
    // Claude Code takes `type: "http"` at its word (no fallback); Gemini CLI's `url` is SSE.
    let claude = mcp_json(
        dirs[1].path(),
        &serde_json::json!({"strict": {"type": "http", "url": url(&served), "headers": {"Authorization": "Bearer ${TOOLPRISM_FIXTURE_TOKEN}"}}}),
    );
    let gemini = write(
        dirs[2].path(),
        ".gemini/settings.json",
        &serde_json::json!({"mcpServers": {"gem": {"url": url(&served), "headers": {"Authorization": "Bearer fixture-token"}}}}).to_string(),
    );
    let saved = dirs[0].path().join("saved.json");
    let started = Instant::now();
    let out = toolprism()
        .args([
            "mcp",
            "--timeout",
            "3",
            "-s",
            "original",
            "--json",
            "--save",
        ])
        .args([&saved, &vscode, &claude, &gemini])
        .env("TOOLPRISM_FIXTURE_TOKEN", "fixture-token")
        .output()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        took < Duration::from_secs(8),
        "within the timeout: {took:?}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let servers = report["servers"].as_array().unwrap();
    let got: Vec<(&str, &str, &str, u64, u64)> = servers
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
                s["transport"].as_str().unwrap(),
                s["tools"].as_u64().unwrap(),
                s["pages"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("legacy", "ok", "sse", 5, 3),
            ("fallback", "ok", "sse", 5, 3),
            ("noauth", "auth", "sse", 0, 0),
            ("silent", "timeout", "sse", 0, 0),
            ("foreign", "failed", "sse", 0, 0),
            ("neither", "failed", "http", 0, 0),
            ("tls", "failed", "sse", 0, 0),
            ("strict", "failed", "http", 0, 0),
            ("gem", "ok", "sse", 5, 3),
        ]
    );
    let error = |i: usize| servers[i]["error"].as_str().unwrap().to_owned();
    assert!(error(4).contains("another origin"), "{}", error(4));
    assert_eq!(
        error(5),
        "HTTP 405; over SSE: HTTP 404 to the event stream's GET"
    );
    assert!(
        error(6).starts_with("could not reach the server"),
        "{}",
        error(6)
    );
    assert_eq!(error(7), "HTTP 405");
    // The tools as VS Code sends them, read whole from JSON spread over several `data:` lines.
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 15);
    assert_eq!(
        tools[4]["function"]["parameters"]["required"],
        serde_json::json!(["path"])
    );
    assert!(
        tools[4]["function"]["description"]
            .as_str()
            .unwrap()
            .contains("thing number 4")
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !all.contains("fixture-token"),
        "a header's value is never printed"
    );
}

/// `toolprism mcp CONFIG` with a long timeout, running, its output dropped.
fn spawn_listing(config: &Path) -> std::process::Child {
    Command::new(crate::support::command::bin())
        .args(["mcp", &config.to_string_lossy(), "--timeout", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Servers that stop reading what toolprism writes: a stdio server after a 4 MiB `nextCursor`,
/// one that floods requests (each answered), a plain-HTTP one after a 16 MiB cursor.
fn deaf_servers(dir: &Path, http_port: &str) -> (PathBuf, PathBuf) {
    let pids = dir.join("deaf-pid");
    let flood = dir.join("flood-pid");
    let config = mcp_json(
        dir,
        &serde_json::json!({
            "deaf": stdio(&["deaf", &pids.to_string_lossy(), &(4 << 20).to_string()]),
            "flood": stdio(&["flood", &flood.to_string_lossy()]),
            "deafhttp": {"type": "http", "url": format!("http://127.0.0.1:{http_port}/mcp")},
        }),
    );
    (config, pids)
}

#[test]
fn a_server_that_stops_reading_holds_nothing_past_the_timeout_or_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &["http-deaf", &(16 << 20).to_string()]);
    let (config, pids) = deaf_servers(dir.path(), &served.port);
    let started = Instant::now();
    let (code, stdout, stderr) =
        run(&["mcp", &config.to_string_lossy(), "--timeout", "5", "--json"]);
    let took = started.elapsed();
    // None listed: exit 2, and still every server in the JSON.
    assert_eq!(code, 2, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert!(took < Duration::from_secs(12), "took {took:?}");
    for server in report["servers"].as_array().unwrap() {
        assert_eq!(server["status"], "timeout", "{server}");
    }
    for signal in [rustix::process::Signal::TERM, rustix::process::Signal::INT] {
        std::fs::remove_file(&pids).unwrap();
        let mut child = spawn_listing(&config);
        wait_for_file(&pids);
        // The write of the cursor is blocked by now.
        std::thread::sleep(Duration::from_millis(500));
        let signalled = Instant::now();
        rustix::process::kill_process(rustix::process::Pid::from_child(&child), signal).unwrap();
        assert!(
            wait_within(&mut child, Duration::from_secs(5)).is_some(),
            "{signal:?} ends the listing"
        );
        assert!(signalled.elapsed() < Duration::from_secs(3));
        let pid = std::fs::read_to_string(&pids).unwrap();
        assert!(all_gone(&pid), "{signal:?}: {pid}");
    }
}

#[test]
fn servers_die_with_toolprism_even_on_kill_9_and_their_daemons_do_not_survive() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"hangs": stdio(&["hang", &pids.to_string_lossy()])}),
    );
    let mut child = spawn_listing(&config);
    wait_for_file(&pids);
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    let both = std::fs::read_to_string(&pids).unwrap();
    assert!(
        all_gone(&both),
        "the server or its child outlived toolprism's kill -9: {both}"
    );
    // A daemon (fork, setsid, fork) is ended when toolprism is done.
    let daemon = dir.path().join("daemon");
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"daemonizes": stdio(&["daemon", &daemon.to_string_lossy()])}),
    );
    let report = json_of(&[
        "mcp",
        &config.to_string_lossy(),
        "--timeout",
        "20",
        "--json",
    ]);
    assert_eq!(report["servers"][0]["status"], "ok");
    let pid = std::fs::read_to_string(&daemon).unwrap();
    assert!(all_gone(&pid), "the daemon {pid} outlived toolprism");
}

#[test]
fn secrets_passed_to_a_server_are_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut leak = stdio(&["leak", "--token=${TOOLPRISM_FIXTURE_ARG}"]);
    leak["env"] = serde_json::json!({"SECRET_KEY": "sk-live-abcdef123"});
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({
            "leaks": leak,
            "badport": {"type": "http", "url": "http://user:hunter9@127.0.0.1:x9/mcp?key=${TOOLPRISM_FIXTURE_Q}"},
            "notweb": {"type": "sse", "url": "ftp://user:hunter9@127.0.0.1/sse?key=${TOOLPRISM_FIXTURE_Q}"},
        }),
    );
    for args in [vec!["--json"], vec!["--matrix"], vec!["--dry-run"]] {
        let out = toolprism()
            .args(["mcp", &config.to_string_lossy()])
            .args(&args)
            .env("TOOLPRISM_FIXTURE_ARG", "argsecret-77")
            .env("TOOLPRISM_FIXTURE_Q", "qsecret-88")
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for secret in ["sk-live-abcdef123", "argsecret-77", "qsecret-88", "hunter9"] {
            assert!(!all.contains(secret), "{args:?}: {secret} in {all}");
        }
        if args == ["--json"] {
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            let servers = report["servers"].as_array().unwrap();
            assert_eq!(servers[0]["stderr"], "auth failed with key ***");
            let said = servers[1]["error"].as_str().unwrap();
            assert!(
                said.contains("bad port in http://***@127.0.0.1:x9/mcp?key=***"),
                "{said}"
            );
            let said = servers[2]["error"].as_str().unwrap();
            assert!(said.contains("not an http URL: ftp://***@"), "{said}");
        }
    }
}

#[test]
fn a_failed_server_explains_itself_alone_and_runs_in_its_project_folder() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let config = mcp_json(
        &project,
        &serde_json::json!({"broken": {"command": "python3", "args": ["missing_server.py"]}}),
    );
    // Alone, as beside another: the reason, the server's stderr, the folder it ran in.
    let (code, out, err) = run(&["mcp", &config.to_string_lossy()]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("broken failed (the server exited"), "{err}");
    assert!(
        err.contains(&format!("(folder: {})", project.display())),
        "{err}"
    );
    assert!(
        err.contains("stderr: ") && err.contains("missing_server.py"),
        "{err}"
    );
    let (code, out, _) = run(&["mcp", &config.to_string_lossy(), "--json"]);
    assert_eq!(code, 2);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["servers"][0]["status"], "failed");
    assert!(
        report["servers"][0]["stderr"]
            .as_str()
            .unwrap()
            .contains("missing_server.py")
    );
    // The bundled sample from another folder: its relative script is found beside it.
    let out = Command::new(crate::support::command::bin())
        .current_dir(dir.path())
        .args([
            "mcp",
            &root().join("samples/mcp/.mcp.json").to_string_lossy(),
            "-s",
            "original",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A folder that is not there, a config that loops: said in words.
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({"nowhere": {"command": "python3", "cwd": "/nonexistent/toolprism"}}),
    );
    let (_, _, err) = run(&["mcp", &config.to_string_lossy()]);
    assert!(
        err.contains("/nonexistent/toolprism does not exist") && !err.contains("os error"),
        "{err}"
    );
    let looped = dir.path().join("loop.json");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let (code, _, err) = run(&["mcp", &looped.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("symbolic links") && !err.contains("os error"),
        "{err}"
    );
}

#[test]
fn a_folders_own_servers_start_only_with_consent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let here = dir.path().join("clone");
    let pids = dir.path().join("pids");
    mcp_json(
        &here,
        &serde_json::json!({"theirs": stdio(&["hang", &pids.to_string_lossy()])}),
    );
    let mine = serde_json::json!({"mcpServers": {"mine": stdio(&["paged", "1", "1"])}});
    write(&home, ".claude.json", &mine.to_string());
    let mcp = |extra: &[&str]| {
        let out = Command::new(crate::support::command::bin())
            .current_dir(&here)
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .args(["mcp", "--json", "--timeout", "3"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // --dry-run says which would be asked for.
    let (code, out, _) = mcp(&["--dry-run"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("theirs (claude-code, ") && out.contains("this folder's: asked for first"),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with("  mine ") && l.contains("asked")),
        "{out}"
    );
    // Not on a terminal: the user's server only, the project's named as skipped.
    let (code, out, err) = mcp(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("were not started: theirs") && err.contains("--trust-project"),
        "{err}"
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mine"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!pids.exists(), "the project's server was started");
    // On a terminal: asked, and started only on a yes.
    for (answer, started) in [("n", false), ("y", true)] {
        let _ = std::fs::remove_file(&pids);
        let out = Command::new("python3")
            .arg(root().join("tests/fixtures/mcp/pty_answer.py"))
            .arg(answer)
            .arg(crate::support::command::bin())
            .args(["mcp", "--json", "--timeout", "3"])
            .current_dir(&here)
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("theirs (") && said.contains("Start them? [y/N]"),
            "{said}"
        );
        assert_eq!(pids.exists(), started, "{answer}: {said}");
    }
    let _ = std::fs::remove_file(&pids);
    // With consent given on the command line, it starts (and hangs to the timeout).
    let (_, out, _) = mcp(&["--trust-project"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["servers"].as_array().unwrap().len(), 2);
    assert!(pids.exists());
}

/// `--host claude-code` sends what Claude Code sends today: every MCP tool deferred behind its
/// `ToolSearch` with the beta header, but a server marked `alwaysLoad`; `ENABLE_TOOL_SEARCH`
/// and the base URL as settings; the release named.
#[test]
fn claude_code_defers_mcp_tools_unless_told_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let config = mcp_json(
        dir.path(),
        &serde_json::json!({
            "alpha": stdio(&["paged", "3", "1"]),
            "pinned": {"command": "python3", "args": [fixture(), "paged", "2", "1"], "alwaysLoad": true},
        }),
    );
    let config = config.to_string_lossy();
    let saved = dir.path().join("cc.json");
    let report = json_of(&[
        "mcp",
        &config,
        "-s",
        "original",
        "--json",
        "--save",
        &saved.to_string_lossy(),
    ]);
    let cc = &report["claude_code"];
    assert_eq!(
        (cc["deferred"].as_u64(), cc["loaded"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(
        cc["headers"]["anthropic-beta"],
        "advanced-tool-use-2025-11-20"
    );
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let deferred: Vec<bool> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["defer_loading"] == true)
        .collect();
    assert_eq!(deferred, [false, true, true, true, false, false]);
    let (code, text, err) = run(&["mcp", &config, "-s", "original"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Claude Code 2.1.240: 3 MCP tools deferred (defer_loading), 2 loaded, with its ToolSearch tool and anthropic-beta: advanced-tool-use-2025-11-20; ENABLE_TOOL_SEARCH unset"),
        "{text}"
    );
    assert!(!text.contains("no tool search tool is sent"), "{text}");
    // Behind a proxy nothing is deferred; `true` defers again.
    let proxied = ["--set", "claude-code.base_url=http://127.0.0.1:9"];
    let mut args = vec!["mcp", &config, "-s", "original", "--json"];
    args.extend(proxied);
    assert_eq!(json_of(&args)["claude_code"]["deferred"], 0);
    args.extend(["--set", "claude-code.tool_search=true"]);
    assert_eq!(json_of(&args)["claude_code"]["deferred"], 3);
    let (code, _, err) = run(&["mcp", &config, "--set", "claude-code.tool_search=maybe"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}
