//! The `toolprism` binary against the contract in CLI.md: every subcommand, the exit codes,
//! the one-line errors, export safety, sanitized human output and byte-faithful JSON.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::command::{bin, fails_with, one_line_failure, root, stdout_of, toolprism};
use crate::support::tools;

const STRATEGY_IDS: [&str; 14] = [
    "original",
    "full",
    "progressive",
    "minimal",
    "direct",
    "adaptive",
    "code",
    "disabled",
    "shorten",
    "defer",
    "defer-catalog",
    "search",
    "codex",
    "append",
];

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A raw character the sanitizer must never let through to a terminal.
fn is_raw_hazard(c: char) -> bool {
    (c.is_control() && c != '\n')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
        || ('\u{200b}'..='\u{200f}').contains(&c)
        || matches!(c, '\u{61c}' | '\u{2060}' | '\u{feff}' | '\u{ad}')
        || ('\u{e0000}'..='\u{e007f}').contains(&c)
}

// ---------------------------------------------------------------- report

#[test]
fn report_table_lists_every_strategy() {
    let out = stdout_of(&["report", "samples/small.json"]);
    assert!(out.starts_with("samples/small.json: anthropic-messages, 8 tools, "));
    for id in STRATEGY_IDS {
        assert!(
            out.lines().any(|l| l.split_whitespace().next() == Some(id)),
            "{id} row missing:\n{out}"
        );
    }
    assert!(out.contains("origin estimates"));
    assert!(out.contains("provider overhead"), "Messages capture: {out}");
}

#[test]
fn report_json_has_the_contract_keys() {
    let out = stdout_of(&["report", "samples/small.json", "--json"]);
    let report: Value = serde_json::from_str(&out).expect("one JSON object");
    let capture = &report["capture"];
    assert_eq!(capture["path"], "samples/small.json");
    assert_eq!(capture["shape"], "anthropic-messages");
    assert_eq!(capture["tools"], 8);
    for key in ["tools_bytes", "tools_compact_bytes", "tools_tokens"] {
        assert!(capture[key].as_u64().unwrap() > 0, "{key}");
    }
    assert_eq!(report["encoding"], "o200k_base");
    let strategies = report["strategies"].as_array().unwrap();
    let ids: Vec<&str> = strategies
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, STRATEGY_IDS);
    let capture_tokens = capture["tools_tokens"].as_i64().unwrap();
    for s in strategies {
        // Refused (`append` on a model that takes no tool changes): no figures at all.
        if s["status"] == "refused" {
            for key in [
                "tools",
                "tools_tokens",
                "total_tokens",
                "saved_tokens",
                "saved_pct",
            ] {
                assert!(s[key].is_null(), "{key} in {s}");
            }
            assert_eq!(s["request_valid"], false);
            continue;
        }
        for key in [
            "tools",
            "tools_bytes",
            "tools_compact_bytes",
            "tools_tokens",
            "added_tokens",
            "total_tokens",
        ] {
            assert!(s[key].is_u64(), "{key} in {s}");
        }
        let total = s["total_tokens"].as_i64().unwrap();
        assert_eq!(
            total,
            s["tools_tokens"].as_i64().unwrap() + s["added_tokens"].as_i64().unwrap()
        );
        // Savings are on context tokens (equal to the tools tokens unless `search` defers).
        let context = s["context_tokens"].as_i64().unwrap() + s["added_tokens"].as_i64().unwrap();
        // A strategy that did not apply has no saving (`jq max_by(.saved_pct)` never picks it).
        if s["status"] == "not_applicable" {
            assert!(
                s["saved_tokens"].is_null() && s["saved_pct"].is_null(),
                "{s}"
            );
        } else {
            assert_eq!(
                s["saved_tokens"].as_i64().unwrap(),
                capture["context_tokens"].as_i64().unwrap() - context
            );
        }
        assert!(s["id"] == "search" || total == context);
        let _ = capture_tokens;
        assert!(s["saved_pct"].is_f64() || s["status"] == "not_applicable");
        assert!(s["first_changed_byte"].is_u64() || s["first_changed_byte"].is_null());
        assert!(s["notes"].is_array());
        for tool in s["per_tool"].as_array().unwrap() {
            let status = tool["status"].as_str().unwrap();
            assert!(["changed", "kept", "removed", "added"].contains(&status));
            assert!(tool["name"].is_string());
            for key in [
                "original_tokens",
                "projected_tokens",
                "original_bytes",
                "projected_bytes",
            ] {
                assert!(tool[key].is_u64(), "{key}");
            }
        }
    }
    let original = &strategies[0];
    assert_eq!(original["tools_bytes"], capture["tools_bytes"]);
    assert_eq!(original["first_changed_byte"], Value::Null);
}

/// small.json's `tools` value as written (two-space pretty, `tool_choice` after it), cut out by
/// hand.
fn small_tools_as_written(text: &str) -> &str {
    let start = text.find("\"tools\": ").unwrap() + "\"tools\": ".len();
    let end = text.find("\n  ],\n  \"tool_choice\"").unwrap() + "\n  ]".len();
    &text[start..end]
}

/// One word, one meaning: `--compact` writes compact JSON (the text tokens are counted on,
/// whose bytes `report --json` gives beside them), the default keeps the capture's layout, and
/// `--pretty` indents by two.
#[test]
fn export_layouts_are_as_captured_compact_and_pretty() {
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "samples/large.json",
            "-s",
            "minimal",
            "--tools-only",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", "-"]);
        stdout_of(&args)
    };
    let report: Value = serde_json::from_str(&stdout_of(&[
        "report",
        "samples/large.json",
        "-s",
        "minimal",
        "--json",
    ]))
    .unwrap();
    let minimal = &report["strategies"][0];
    let as_captured = export(&[]);
    let compact = export(&["--compact"]);
    let pretty = export(&["--pretty"]);
    // large.json is indented by four: as captured keeps it.
    assert!(as_captured.contains("\n    {"), "{as_captured}");
    assert_eq!(minimal["tools_bytes"], as_captured.trim_end().len());
    let value: Value = serde_json::from_str(&compact).unwrap();
    assert_eq!(
        compact,
        format!("{}\n", serde_json::to_string(&value).unwrap())
    );
    assert_eq!(minimal["tools_compact_bytes"], compact.trim_end().len());
    assert_eq!(
        pretty,
        format!("{}\n", serde_json::to_string_pretty(&value).unwrap())
    );
    assert!(
        fails_with(&[
            "export",
            "samples/large.json",
            "-s",
            "minimal",
            "--compact",
            "--pretty",
            "-o",
            "-"
        ])
        .contains("'--compact' cannot be used with '--pretty'")
    );
}

#[test]
fn report_json_counts_the_tools_array_as_sent() {
    // tools_bytes is the bytes of the `tools` value as sent (docs/FORMATS.md).
    let text = std::fs::read_to_string(root().join("samples/small.json")).unwrap();
    let out = stdout_of(&["report", "samples/small.json", "--json", "-s", "original"]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        report["capture"]["tools_bytes"],
        small_tools_as_written(&text).len()
    );
}

#[test]
fn report_strategies_and_encoding_are_selectable() {
    let out = stdout_of(&[
        "report",
        "samples/small.json",
        "--json",
        "-s",
        "minimal",
        "--strategy",
        "defer",
        "--encoding",
        "cl100k_base",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["encoding"], "cl100k_base");
    let ids: Vec<&str> = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["minimal", "defer"]);
    let o200k: Value =
        serde_json::from_str(&stdout_of(&["report", "samples/small.json", "--json"])).unwrap();
    assert_ne!(
        report["capture"]["tools_tokens"], o200k["capture"]["tools_tokens"],
        "the two encodings count differently"
    );
}

#[test]
fn report_per_tool_adds_a_table_per_strategy() {
    let out = stdout_of(&[
        "report",
        "samples/small.json",
        "-s",
        "original",
        "--per-tool",
    ]);
    assert!(out.contains("original per tool"));
    assert!(out.contains("mcp__github__create_issue"));
}

#[test]
fn report_reads_standard_input() {
    let text = std::fs::read(root().join("samples/small.json")).unwrap();
    let out = toolprism()
        .args(["report", "-", "--json", "-s", "original"])
        .write_stdin(text)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["capture"]["path"], "-");
    assert_eq!(report["capture"]["tools"], 8);
}

#[test]
fn settings_are_accepted_and_checked() {
    toolprism()
        .args([
            "report",
            "samples/small.json",
            "--set",
            "defer.threshold=3",
            "--set",
            "mcp.prefixes=mcp__,mcp_",
        ])
        .assert()
        .success();
    let line = one_line_failure(toolprism().args([
        "report",
        "samples/small.json",
        "--set",
        "no.such_key=1",
    ]));
    assert!(line.contains("unknown setting `no.such_key`"), "{line}");
    let line = one_line_failure(toolprism().args([
        "show",
        "samples/small.json",
        "-s",
        "defer",
        "--set",
        "defer.threshold=many",
    ]));
    assert!(line.contains("bad value for `defer.threshold`"), "{line}");
    let line =
        one_line_failure(toolprism().args(["report", "samples/small.json", "--set", "novalue"]));
    assert!(line.contains("KEY=VALUE"), "{line}");
}

// ---------------------------------------------------------------- errors

#[test]
fn missing_file_is_one_line_naming_it() {
    let line = one_line_failure(toolprism().args(["report", "does-not-exist.json"]));
    assert!(
        line.starts_with("toolprism: does-not-exist.json: cannot read"),
        "{line}"
    );
}

#[test]
fn bad_json_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(&path, "{\"messages\": [\n  oops\n]}").unwrap();
    let line = one_line_failure(toolprism().arg("report").arg(&path));
    assert!(
        line.contains("broken.json: invalid JSON at line 2"),
        "{line}"
    );
}

#[test]
fn unknown_shape_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shape.json");
    std::fs::write(&path, "[1, 2, 3]").unwrap();
    let line = one_line_failure(toolprism().arg("show").arg(&path).args(["-s", "full"]));
    assert!(
        line.contains("shape.json: not a known capture shape"),
        "{line}"
    );
    // From standard input the file is named <stdin>.
    let line = one_line_failure(
        toolprism()
            .args(["report", "-"])
            .write_stdin("{\"hello\": 1}"),
    );
    assert!(line.starts_with("toolprism: <stdin>: "), "{line}");
}

#[test]
fn error_lines_are_sanitized() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil\u{1b}[31m\u{202e}.json");
    let line = one_line_failure(toolprism().arg("report").arg(&path));
    assert!(!line.chars().any(is_raw_hazard), "{line:?}");
    assert!(line.contains("evil␛[31m⟨U+202E⟩.json"), "{line}");
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let line = one_line_failure(toolprism().args(["report", "samples/small.json", "-s", "nope"]));
    assert!(line.contains("unknown strategy `nope`"), "{line}");
    let line = one_line_failure(toolprism().args(["show", "samples/small.json"]));
    assert!(
        line.contains("--strategy <ID>"),
        "names the missing argument: {line}"
    );
    one_line_failure(toolprism().args(["report", "samples/small.json", "--encoding", "p50k_base"]));
    one_line_failure(toolprism().args(["frobnicate", "x"]));
    one_line_failure(toolprism().args([
        "diff",
        "samples/small.json",
        "-s",
        "full",
        "--color",
        "sometimes",
    ]));
    let line = one_line_failure(toolprism().args(["export", "samples/small.json", "-s", "full"]));
    assert!(line.contains("--output"), "{line}");
}

// ---------------------------------------------------------------- show

#[test]
fn show_original_is_the_capture_byte_for_byte() {
    let text = std::fs::read_to_string(root().join("samples/small.json")).unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    let out = stdout_of(&["show", "samples/small.json", "-s", "original"]);
    assert_eq!(out, format!("{}\n", text.trim_end()));
    let pretty = stdout_of(&["show", "samples/small.json", "-s", "original", "--pretty"]);
    assert_eq!(
        pretty,
        format!("{}\n", serde_json::to_string_pretty(&body).unwrap())
    );
    let tools = stdout_of(&[
        "show",
        "samples/small.json",
        "-s",
        "original",
        "--tools-only",
    ]);
    assert_eq!(tools, format!("{}\n", small_tools_as_written(&text)));
}

#[test]
fn show_keeps_hostile_text_byte_faithful() {
    // JSON output is for machines: only JSON escaping, no sanitizing.
    let out = stdout_of(&[
        "show",
        "samples/hostile.json",
        "-s",
        "original",
        "--tools-only",
    ]);
    let tools: Value = serde_json::from_str(&out).unwrap();
    let text = std::fs::read_to_string(root().join("samples/hostile.json")).unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tools, body["tools"]);
    assert!(out.contains("\\u001b[2J"), "ESC stays JSON-escaped");
    assert!(
        out.contains("\\u202e"),
        "escapes stay as the capture writes them"
    );
    assert!(!out.contains('⟨'));
}

#[test]
fn show_parses_back_for_every_strategy() {
    for id in STRATEGY_IDS {
        // The sample's model takes no tool changes: `append` is refused, in one line.
        if id == "append" {
            let line = fails_with(&["show", "samples/small.json", "-s", id]);
            assert!(line.contains("`append` refuses this capture"), "{line}");
            continue;
        }
        let out = stdout_of(&["show", "samples/small.json", "-s", id]);
        let body: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(
            body.get("messages").is_some(),
            "{id}: still a Messages body"
        );
    }
}

// ---------------------------------------------------------------- human output is sanitized

#[test]
fn tables_never_pass_raw_controls_or_bidi() {
    for args in [
        &["report", "samples/hostile.json", "--per-tool"][..],
        &["samples/hostile.json"][..],
        &[
            "diff",
            "samples/hostile.json",
            "-s",
            "minimal",
            "--color",
            "never",
        ][..],
        &[
            "diff",
            "samples/hostile.json",
            "-s",
            "disabled",
            "--color",
            "never",
        ][..],
    ] {
        let out = stdout_of(args);
        let bad: Vec<char> = out.chars().filter(|&c| is_raw_hazard(c)).collect();
        assert!(bad.is_empty(), "{args:?}: raw {bad:?} in\n{out}");
    }
    let out = stdout_of(&["report", "samples/hostile.json", "--per-tool"]);
    assert!(out.contains("innocent⟨U+202E⟩exe.txt"), "{out}");
    assert!(out.contains("zero⟨U+200B⟩width"), "{out}");
}

// ---------------------------------------------------------------- diff

#[test]
fn diff_colour_follows_the_flag_and_no_color() {
    let args = ["diff", "samples/small.json", "-s", "disabled"];
    let always = stdout_of(&[&args[..], &["--color", "always"]].concat());
    assert!(always.contains('\u{1b}'), "colour when asked");
    let never = stdout_of(&[&args[..], &["--color", "never"]].concat());
    assert!(!never.contains('\u{1b}'));
    // Not a terminal (a pipe): no colour on auto.
    let auto = stdout_of(&args);
    assert!(!auto.contains('\u{1b}'));
    let no_color = toolprism()
        .args(args)
        .env("NO_COLOR", "1")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(!String::from_utf8(no_color).unwrap().contains('\u{1b}'));
    // The text is the same apart from the colour codes.
    let stripped: String = strip_ansi(&always);
    assert_eq!(stripped, never);
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn diff_of_the_original_is_empty_and_summarized() {
    let out = stdout_of(&["diff", "samples/small.json", "-s", "original"]);
    assert!(out.starts_with("original: no tool changed, added or removed\n"));
    assert!(out.contains("identical, −0 +0 bytes"), "{out}");
    let out = stdout_of(&[
        "diff",
        "samples/small.json",
        "-s",
        "original",
        "--tool",
        "read_file",
    ]);
    assert_eq!(out, "read_file: kept unchanged by original\n");
}

#[test]
fn diff_of_an_unknown_tool_is_an_error() {
    let line = one_line_failure(toolprism().args([
        "diff",
        "samples/small.json",
        "-s",
        "minimal",
        "--tool",
        "no_such_tool",
    ]));
    assert!(line.contains("no tool named `no_such_tool`"), "{line}");
}

// ---------------------------------------------------------------- export

#[test]
fn export_writes_what_show_prints_and_never_clobbers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("minimal.json");
    toolprism()
        .args(["export", "samples/small.json", "-s", "minimal", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let shown = stdout_of(&["show", "samples/small.json", "-s", "minimal"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), shown);

    std::fs::write(&out, "precious").unwrap();
    let line = one_line_failure(
        toolprism()
            .args(["export", "samples/small.json", "-s", "minimal", "-o"])
            .arg(&out),
    );
    assert!(
        line.ends_with(" exists (use --force to replace it)"),
        "{line}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");

    toolprism()
        .args([
            "export",
            "samples/small.json",
            "-s",
            "minimal",
            "--pretty",
            "--force",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let pretty = stdout_of(&["show", "samples/small.json", "-s", "minimal", "--pretty"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), pretty);
    assert_eq!(
        file_names(dir.path()),
        ["minimal.json"],
        "no temporary files"
    );
}

#[test]
fn failed_export_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing").join("out.json");
    let line = one_line_failure(
        toolprism()
            .args(["export", "samples/small.json", "-s", "full", "-o"])
            .arg(&missing),
    );
    assert!(
        line.ends_with("missing/: no such file or folder"),
        "the folder to create: {line}"
    );
    assert!(file_names(dir.path()).is_empty());
    // A directory as OUT is refused, even with --force.
    one_line_failure(
        toolprism()
            .args([
                "export",
                "samples/small.json",
                "-s",
                "full",
                "--force",
                "-o",
            ])
            .arg(dir.path()),
    );
    assert!(file_names(dir.path()).is_empty());
}

#[test]
fn export_to_standard_output() {
    let out = stdout_of(&[
        "export",
        "samples/small.json",
        "-s",
        "defer",
        "--tools-only",
        "-o",
        "-",
    ]);
    let shown = stdout_of(&["show", "samples/small.json", "-s", "defer", "--tools-only"]);
    assert_eq!(out, shown);
}

#[test]
fn export_store_writes_nothing_without_pointers() {
    // `original` names no stored entries: the store folder is not created, a note says so.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    toolprism()
        .args([
            "export",
            "samples/small.json",
            "-s",
            "original",
            "-o",
            "-",
            "--store",
        ])
        .arg(&store)
        .assert()
        .success()
        .stderr(predicate::str::contains("names no stored entries"));
    assert!(!store.exists());
}

// ---------------------------------------------------------------- the rest

#[test]
fn strategies_lists_one_id_a_line() {
    let out = stdout_of(&["strategies"]);
    let ids: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids, STRATEGY_IDS);
    assert!(out.lines().all(|l| l.split_whitespace().count() > 2));
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = stdout_of(&["completions", shell]);
        assert!(out.contains("toolprism"), "{shell}");
        assert!(out.contains("report"), "{shell}");
        // Values are offered too: every strategy id after -s, every setting key after --set.
        for id in STRATEGY_IDS {
            assert!(out.contains(id), "{shell}: {id}");
        }
        for key in toolprism::Settings::KEYS {
            assert!(
                out.contains(&format!("{}=", key.key)),
                "{shell}: {}",
                key.key
            );
        }
    }
    // One manual page: it names no per-subcommand pages that are not installed.
    let man = stdout_of(&["man"]);
    assert!(!man.contains("toolprism-report"), "no toolprism-report(1)");
    assert!(
        man.contains(".SS \"toolprism report\""),
        "the subcommands are in the page"
    );
    assert!(
        stdout_of(&["--help"]).contains("  man "),
        "--help lists man"
    );
    toolprism().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn help_has_examples_and_version_is_printed() {
    let help = stdout_of(&["--help"]);
    assert!(help.contains("Examples:"));
    for command in [
        "report",
        "show",
        "diff",
        "export",
        "strategies",
        "completions",
    ] {
        assert!(help.contains(command), "{command} in --help");
    }
    let version = stdout_of(&["--version"]);
    assert_eq!(
        version.trim(),
        format!("toolprism {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(stdout_of(&["export", "--help"]).contains("--force"));
}

#[test]
fn no_capture_reads_a_piped_standard_input() {
    // Not a terminal on standard input: it is read (as jq and bat do), even when empty. The
    // bundled sample with a terminal there: tests/cli_manners.rs, under a pseudo-terminal.
    let line = one_line_failure(toolprism().write_stdin(""));
    assert!(
        line.starts_with("toolprism: <stdin>: empty: `toolprism` reads a capture"),
        "{line}"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = std::process::Command::new(bin())
        .current_dir(root())
        .args(["report", "samples/large.json", "--per-tool"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the program writes (it loads and counts first).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(out.status.code(), Some(0));
}

// ---------------------------------------------------------------- snapshots
// Few and deliberate: the figures change whenever a strategy's rules do; review with
// `cargo insta review` (or INSTA_UPDATE=always) after such a change.

#[test]
fn snapshot_report_table_small() {
    insta::assert_snapshot!(
        "report_small_table",
        stdout_of(&["report", "samples/small.json"])
    );
}

#[test]
fn snapshot_report_json_small() {
    insta::assert_snapshot!(
        "report_small_json",
        stdout_of(&["report", "samples/small.json", "--json"])
    );
}

#[test]
fn snapshot_report_table_hostile_per_tool() {
    insta::assert_snapshot!(
        "report_hostile_per_tool",
        stdout_of(&[
            "report",
            "samples/hostile.json",
            "-s",
            "original",
            "-s",
            "minimal",
            "--per-tool"
        ])
    );
}

#[test]
fn diff_prints_every_note_of_the_report() {
    let report: Value =
        serde_json::from_str(&stdout_of(&["report", "samples/large.json", "--json"])).unwrap();
    for s in report["strategies"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        // A refused strategy's only note is its refusal, the one line a refused diff prints.
        if s["status"] == "refused" {
            let error = s["notes"][0]["text"].as_str().unwrap();
            let line = fails_with(&["diff", "samples/large.json", "-s", id]);
            assert!(
                line.ends_with(&format!("`{id}` refuses this capture: {error}")),
                "{line}"
            );
            continue;
        }
        let out = stdout_of(&["diff", "samples/large.json", "-s", id, "--color", "never"]);
        for note in s["notes"].as_array().unwrap() {
            let word = match note["level"].as_str().unwrap() {
                "info" => "note",
                level => level,
            };
            let line = format!("{word}: {}", note["text"].as_str().unwrap());
            assert!(out.lines().any(|l| l == line), "{id}: {line}");
        }
        assert!(
            out.lines()
                .next()
                .is_some_and(|l| l.starts_with(&format!("{id}: "))),
            "{id}: the summary line starts the output"
        );
    }
}

// ---------------------------------------------------------------- with the strategies' rules

#[test]
fn export_store_writes_the_entries_pointers_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("short.json");
    let store = dir.path().join("store");
    toolprism()
        .args(["export", "samples/leanctx-chat.json", "-s", "shorten", "-o"])
        .arg(&out)
        .arg("--store")
        .arg(&store)
        .assert()
        .success();
    let exported = std::fs::read_to_string(&out).unwrap();
    let stored = file_names(&store);
    assert!(!stored.is_empty(), "shorten stores at least one entry");
    for handle in &stored {
        assert!(
            exported.contains(&format!("(id=\\\"{handle}\\\")")),
            "{handle} is named by a pointer"
        );
        let entry: Value =
            serde_json::from_str(&std::fs::read_to_string(store.join(handle)).unwrap()).unwrap();
        assert!(entry.is_object());
    }
    // The same export again, without --force: OUT exists, refused, store untouched.
    one_line_failure(
        toolprism()
            .args(["export", "samples/leanctx-chat.json", "-s", "shorten", "-o"])
            .arg(&out)
            .arg("--store")
            .arg(&store),
    );
    assert_eq!(file_names(&store), stored);
    assert_eq!(file_names(dir.path()), ["short.json", "store"]);
}

#[test]
fn a_refused_capture_is_one_line_for_show_and_a_note_in_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dup.json");
    std::fs::write(
        &path,
        r#"{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{}},{"name":"a","input_schema":{}}]}"#,
    )
    .unwrap();
    let line = one_line_failure(toolprism().arg("show").arg(&path).args(["-s", "direct"]));
    assert!(
        line.contains("dup.json: `direct` refuses this capture"),
        "{line}"
    );
    let report = toolprism()
        .arg("report")
        .arg(&path)
        .args(["-s", "direct", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&report).unwrap();
    assert!(
        !report["strategies"][0]["notes"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn deferred_tools_are_counted_as_deferred_in_the_table() {
    let json: Value = serde_json::from_str(&stdout_of(&[
        "report",
        "samples/large.json",
        "-s",
        "defer",
        "--json",
    ]))
    .unwrap();
    let deferred = json["strategies"][0]["per_tool"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["state"] == "deferred")
        .inspect(|t| assert_eq!(t["status"], "removed", "the contract word"))
        .count();
    assert!(deferred > 0);
    let table = stdout_of(&["report", "samples/large.json", "-s", "defer"]);
    assert!(table.contains(&format!("{deferred} deferred")), "{table}");
}

#[test]
fn diff_shows_hunks_for_changed_tools() {
    let out = stdout_of(&[
        "diff",
        "samples/small.json",
        "-s",
        "minimal",
        "--tool",
        "read_file",
        "--color",
        "never",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "diff --git a/read_file b/read_file", "{out}");
    assert_eq!(lines[1], "--- a/read_file");
    assert_eq!(lines[2], "+++ b/read_file");
    assert!(lines[3].starts_with("@@ -1,"), "{out}");
    assert!(lines[3].contains(" @@ changed: "), "{out}");
    assert!(lines.iter().any(|l| l.starts_with("-  \"description\"")));
    assert!(lines.iter().any(|l| l.starts_with("+  \"description\"")));
    // Removed tools diff against /dev/null.
    let out = stdout_of(&[
        "diff",
        "samples/small.json",
        "-s",
        "disabled",
        "--color",
        "never",
    ]);
    assert!(
        out.contains(
            "diff --git a/read_file b/read_file\ndeleted file mode 100644\n--- a/read_file\n+++ /dev/null\n"
        ),
        "{out}"
    );
}

// ---------------------------------------------------------------- status, levels, gates

fn report_json(args: &[&str]) -> Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&stdout_of(&all)).expect("one JSON object")
}

fn strategy<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("{id} in the report"))
}

const DUPLICATES: &str = "tests/fixtures/duplicate-names.json";
const A3S_REFUSAL: &str =
    "a3s code refuses this tool list: the name `read` appears 2 times (tool names must be unique)";

#[test]
fn code_without_program_is_not_applicable_with_its_reason() {
    let report = report_json(&["samples/small.json", "-s", "code", "-s", "disabled"]);
    let code = strategy(&report, "code");
    assert_eq!(code["status"], "not_applicable");
    assert_eq!(code["request_valid"], true);
    assert_eq!(code["origin"], "a3s-code-core 9.1.3");
    // Figures are shown for a projection that did not apply, with the reason among the notes.
    assert_eq!(code["total_tokens"], 0);
    let reason = serde_json::json!({
        "level": "info",
        "text": "the capture has no `program` tool, so a3s presents no tools (set code.gateway=inject to add a3s's own gateway)"
    });
    assert!(
        code["notes"].as_array().unwrap().contains(&reason),
        "{code}"
    );
    // `disabled` sending no tools did what it says.
    assert_eq!(strategy(&report, "disabled")["status"], "ok");

    let table = stdout_of(&["report", "samples/small.json", "-s", "code", "-s", "full"]);
    let row = table.lines().find(|l| l.starts_with("code")).unwrap();
    assert_eq!(
        row,
        "code      n/a         0       0      -       -           0 B  8 removed"
    );
    // Its figures stay in JSON, but no saving: neither output shows one for a strategy that
    // did not apply (`jq 'max_by(.saved_pct)'` never picks it).
    assert_eq!(code["total_tokens"], 0);
    assert!(
        code["saved_tokens"].is_null() && code["saved_pct"].is_null(),
        "{code}"
    );
}

#[test]
fn a_refused_strategy_has_null_figures_and_sorts_last() {
    let report = report_json(&[DUPLICATES]);
    for id in ["direct", "adaptive", "code", "disabled"] {
        let s = strategy(&report, id);
        assert_eq!(s["status"], "refused", "{id}");
        assert_eq!(s["request_valid"], false, "{id}");
        for key in [
            "tools",
            "tools_bytes",
            "tools_tokens",
            "context_tokens",
            "added_tokens",
            "total_tokens",
            "saved_tokens",
            "saved_pct",
            "first_changed_byte",
            "estimates",
            "provider_overhead_tokens",
        ] {
            assert_eq!(s[key], Value::Null, "{id}: {key}");
        }
        assert_eq!(s["per_tool"], serde_json::json!([]), "{id}");
        assert_eq!(
            s["notes"][0],
            serde_json::json!({"level": "error", "text": A3S_REFUSAL}),
            "{id}"
        );
    }
    // The other hosts still project the list; a provider rejects the duplicate name.
    let full = strategy(&report, "full");
    assert_eq!(full["status"], "ok");
    assert_eq!(full["request_valid"], false);
    assert_eq!(
        full["notes"][0],
        serde_json::json!({"level": "error", "text": "the tool list names `read` more than once: providers reject duplicate tool names"})
    );

    let table = stdout_of(&["report", DUPLICATES, "-s", "direct", "-s", "minimal"]);
    let rows: Vec<&str> = table.lines().skip(3).take(2).collect();
    assert_eq!(
        rows,
        [
            // The final periods go, but `."` is one token as `"` is: the same count.
            "minimal   ok !         3      99      0   0.00%          42 B  3 changed",
            "direct    refused      -       -      -       -             -  refused by the host (see notes)",
        ]
    );
    assert!(
        table.contains(&format!("  direct: error: {A3S_REFUSAL}\n")),
        "{table}"
    );
    assert!(
        table.contains("  direct         -    -     -         -   refused\n"),
        "{table}"
    );
}

#[test]
fn a_tool_choice_naming_a_deferred_tool_is_an_error_and_an_invalid_request() {
    let report = report_json(&["samples/large.json", "-s", "defer", "-s", "minimal"]);
    let defer = strategy(&report, "defer");
    assert_eq!(defer["status"], "ok");
    assert_eq!(defer["request_valid"], false);
    assert_eq!(defer["origin"], "zero 0.8.0");
    assert_eq!(
        defer["notes"][0],
        serde_json::json!({"level": "error", "text": "tool_choice names `mcp__github__create_issue`, which this projection does not send (deferred): the provider will reject the request"})
    );
    let levels: Vec<&str> = defer["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["level"].as_str().unwrap())
        .collect();
    let mut sorted = levels.clone();
    sorted.sort_by_key(|l| ["error", "warning", "info"].iter().position(|x| x == l));
    assert_eq!(levels, sorted, "errors first, then warnings, then info");
    assert_eq!(strategy(&report, "minimal")["request_valid"], true);
}

#[test]
fn report_json_carries_every_setting_and_each_origin() {
    let report = report_json(&["samples/small.json", "--set", "defer.threshold=3"]);
    assert_eq!(report["version"], env!("CARGO_PKG_VERSION"));
    let settings = report["settings"].as_object().unwrap();
    let keys: Vec<&str> = settings.keys().map(String::as_str).collect();
    let expected: Vec<&str> = toolprism::Settings::KEYS.iter().map(|k| k.key).collect();
    assert_eq!(keys, expected, "every key, in Settings::KEYS order");
    assert_eq!(settings["defer.threshold"], "3", "the value in force");
    assert_eq!(settings["mcp.prefixes"], "mcp__,mcp_,mcp--");
    assert_eq!(settings["code.gateway"], "capture");
    assert_eq!(
        settings["adaptive.prompt"],
        Value::Null,
        "unset: the conversation"
    );
    let origins: Vec<(&str, Value)> = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["origin"].clone()))
        .collect();
    let expected: Vec<(&str, Value)> = [
        ("original", Value::Null),
        ("full", "vtcode-core 0.181.2".into()),
        ("progressive", "vtcode-core 0.181.2".into()),
        ("minimal", "vtcode-core 0.181.2".into()),
        ("direct", "a3s-code-core 9.1.3".into()),
        ("adaptive", "a3s-code-core 9.1.3".into()),
        ("code", "a3s-code-core 9.1.3".into()),
        ("disabled", "a3s-code-core 9.1.3".into()),
        ("shorten", "lean-ctx proxy 3.12.3".into()),
        ("defer", "zero 0.8.0".into()),
        ("defer-catalog", "zero 0.8.0".into()),
        ("search", "vtcode-core 0.181.2".into()),
        ("codex", "codex rust-v0.171.0".into()),
        ("append", "inline-tools-2026-09-15".into()),
    ]
    .into();
    assert_eq!(origins, expected);
    // The seeds' releases, one setting away, and named.
    let seeds = report_json(&[
        "samples/small.json",
        "-s",
        "minimal,defer",
        "--set",
        "vtcode.release=0.169.2",
        "--set",
        "zero.release=2ea36cf",
    ]);
    assert_eq!(strategy(&seeds, "minimal")["origin"], "vtcode-core 0.169.2");
    assert_eq!(strategy(&seeds, "defer")["origin"], "zero 2ea36cf");
}

#[test]
fn strategies_names_each_release() {
    let out = stdout_of(&["strategies"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "original       the capture as sent (baseline)");
    assert_eq!(
        lines[3],
        "minimal        first sentence within 64 chars; parameter descriptions removed (documentation mode, vtcode-core 0.181.2, current; vtcode-core 0.169.2 with --set vtcode.release=0.169.2)"
    );
    assert_eq!(
        lines[8],
        "shorten        descriptions over 1024 bytes cut to a summary plus a pointer to the full entry (expand pointer, lean-ctx proxy 3.12.3, current)"
    );
    assert!(lines[9].ends_with(
        "(deferred loading, zero 0.8.0, current; zero 2ea36cf with --set zero.release=2ea36cf)"
    ));
    assert!(lines[7].ends_with("(presentation profile, a3s-code-core 9.1.3, current)"));
    assert!(lines[11].ends_with("(provider-side deferral, vtcode-core 0.181.2, current)"));
}

#[test]
fn budget_gate_exit_codes() {
    // minimal sends 558 tokens of samples/small.json.
    toolprism()
        .args([
            "report",
            "samples/small.json",
            "-s",
            "minimal",
            "--budget",
            "558",
        ])
        .assert()
        .code(0)
        .stderr("");
    let out = toolprism()
        .args([
            "report",
            "samples/small.json",
            "-s",
            "minimal",
            "-s",
            "full",
            "--budget",
            "557",
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "toolprism: samples/small.json: over the budget of 557 tokens: `minimal` sends 558 tokens, 1 over (most: server `github` 290 in 3 tools, `mcp__github__create_issue` 105, `mcp__github__search_pull_requests` 103, `mcp__github__get_file_contents` 82); `full` sends 1,197 tokens, 640 over (most: server `github` 630 in 3 tools, `mcp__github__create_issue` 247, `mcp__github__search_pull_requests` 240, `mcp__github__get_file_contents` 143)\n"
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("samples/small.json: "),
        "the report is printed either way"
    );
    // A refused chosen strategy has no figures to pass with.
    toolprism()
        .args(["report", DUPLICATES, "-s", "direct", "--json", "--budget", "100000"])
        .assert()
        .code(1)
        .stderr(format!(
            "toolprism: {DUPLICATES}: over the budget of 100,000 tokens: `direct` is refused by the host and has no figures\n"
        ));
    // A request a provider would reject (`!`) fails the gate however little it sends,
    // naming why: `defer` drops the tool `tool_choice` names.
    toolprism()
        .args(["report", "samples/large.json", "-s", "defer", "--budget", "3000"])
        .assert()
        .code(1)
        .stderr(
            "toolprism: samples/large.json: `defer`'s request would be rejected by the provider (tool_choice names `mcp__github__create_issue`, which this projection does not send (deferred): the provider will reject the request)\n",
        );
    // Without -s the gate is the list as sent: a refused strategy does not fail it...
    toolprism()
        .args(["report", DUPLICATES, "--json", "--budget", "100000"])
        .assert()
        .code(0)
        .stderr("");
    // ...and over the budget only `original` is named, with what costs most.
    toolprism()
        .args(["report", "samples/small.json", "--budget", "1000"])
        .assert()
        .code(1)
        .stderr(
            "toolprism: samples/small.json: over the budget of 1,000 tokens: `original` sends 1,296 tokens, 296 over (most: server `github` 725 in 3 tools, `mcp__github__create_issue` 317, `mcp__github__search_pull_requests` 265, `mcp__github__get_file_contents` 143)\n",
        );
    // `search` defers its entries: the gate is what the model holds in context, the measure its
    // saving uses, with the tokens sent beside; what costs most is what stays in context.
    toolprism()
        .args(["report", "samples/small.json", "-s", "search", "--budget", "20"])
        .assert()
        .code(1)
        .stderr(
            "toolprism: samples/small.json: over the budget of 20 tokens: `search` puts 21 tokens in context (sends 1,257), 1 over (most: `tool_search_tool_regex` 19)\n",
        );
    toolprism()
        .args([
            "report",
            "samples/small.json",
            "-s",
            "search",
            "--budget",
            "21",
            "--json",
        ])
        .assert()
        .code(0)
        .stderr("");
    let line =
        one_line_failure(toolprism().args(["report", "samples/small.json", "--budget", "lots"]));
    assert!(line.contains("--budget"), "{line}");
}

#[test]
fn export_refuses_refused_and_invalid_projections() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let line = one_line_failure(
        toolprism()
            .args(["export", DUPLICATES, "-s", "disabled", "-o"])
            .arg(&out),
    );
    assert_eq!(
        line,
        format!("toolprism: {DUPLICATES}: `disabled` refuses this capture: {A3S_REFUSAL}")
    );
    assert!(!out.exists());

    let line = one_line_failure(
        toolprism()
            .args(["export", "samples/large.json", "-s", "defer", "-o"])
            .arg(&out),
    );
    assert_eq!(
        line,
        "toolprism: samples/large.json: a provider would reject the `defer` request (tool_choice names `mcp__github__create_issue`, which this projection does not send (deferred): the provider will reject the request); --force writes it anyway"
    );
    assert!(!out.exists());
    toolprism()
        .args([
            "export",
            "samples/large.json",
            "-s",
            "defer",
            "--force",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let shown = stdout_of(&["show", "samples/large.json", "-s", "defer"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), shown);
}

#[test]
fn provider_deferred_entries_count_zero_context_tokens() {
    const SAMPLE: &str = "samples/anthropic-tool-search.json";
    let report = report_json(&[SAMPLE, "-s", "original", "-s", "minimal"]);
    // Recount independently: the compact array of the entries not marked defer_loading.
    let capture = toolprism::Capture::from_path(SAMPLE).unwrap();
    let counter = toolprism::measure::TokenCounter::new(toolprism::measure::Encoding::O200kBase);
    let in_context = |tools: &[Value]| -> usize {
        let kept: Vec<&Value> = tools
            .iter()
            .filter(|t| t.get("defer_loading") != Some(&Value::Bool(true)))
            .collect();
        counter.count(&serde_json::to_string(&kept).unwrap())
    };
    let all = capture.tools();
    assert_eq!(all.iter().filter(|t| t["defer_loading"] == true).count(), 5);
    let capture_context = in_context(all);
    assert_eq!(report["capture"]["context_tokens"], capture_context);
    assert_eq!(
        report["capture"]["tools_tokens"],
        counter.count(&serde_json::to_string(all).unwrap()),
        "tools_tokens stays the count of the array as sent"
    );
    let original = strategy(&report, "original");
    assert_eq!(original["context_tokens"], capture_context);
    assert_eq!(original["saved_tokens"], 0);
    let shown: Value = serde_json::from_str(&stdout_of(&[
        "show",
        SAMPLE,
        "-s",
        "minimal",
        "--tools-only",
    ]))
    .unwrap();
    let shown = shown.as_array().unwrap();
    assert_eq!(
        shown.iter().filter(|t| t["defer_loading"] == true).count(),
        5,
        "projections keep the flag as they find it"
    );
    let minimal = strategy(&report, "minimal");
    let minimal_context = in_context(shown);
    assert_eq!(minimal["context_tokens"], minimal_context);
    assert_eq!(
        minimal["saved_tokens"],
        capture_context as i64 - minimal_context as i64,
        "savings are on context tokens"
    );
    for tool in minimal["per_tool"].as_array().unwrap() {
        let deferred = all
            .iter()
            .any(|t| t["name"] == tool["name"] && t["defer_loading"] == true);
        if deferred {
            assert_eq!(tool["context_tokens"], 0, "{tool}");
            assert_eq!(tool["original_context_tokens"], 0, "{tool}");
        } else {
            assert_eq!(tool["context_tokens"], tool["projected_tokens"], "{tool}");
        }
    }
    assert_eq!(
        minimal["notes"][0],
        serde_json::json!({"level": "info", "text": "5 of 8 sent entries are `defer_loading: true`: out of the model's context until the provider's tool search returns them (0 context tokens); savings are on context tokens"})
    );
}

// ---------------------------------------------------------------- the README and docs

/// A fenced block of a markdown file that the suite checks.
struct Block {
    /// The file, relative to the project root.
    file: PathBuf,
    /// Byte range of the block's body (between the fences) in the file.
    body: std::ops::Range<usize>,
    kind: BlockKind,
}

enum BlockKind {
    /// ```` ```console ```` with a first line `$ toolprism ARGS`: the rest is its output.
    Command(Vec<String>),
    /// A block right under `<!-- snapshot: NAME -->` (or `<!-- snapshot: NAME rows A-B -->`):
    /// rows of `tests/snapshots/NAME.snap`, trailing spaces dropped.
    Picture {
        snapshot: String,
        rows: Option<(usize, usize)>,
    },
}

/// Arguments of a README command line: words split at spaces, `'...'` and `"..."` quoted.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

fn checked_blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut blocks = Vec::new();
    let mut pos = 0;
    let mut pending: Option<(String, Option<(usize, usize)>)> = None;
    let mut open: Option<(String, usize)> = None;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let trimmed = line.trim_end();
        match &open {
            None if trimmed.starts_with("```") => {
                open = Some((trimmed[3..].to_owned(), pos));
            }
            None => {
                if let Some(rest) = trimmed
                    .strip_prefix("<!-- snapshot: ")
                    .and_then(|r| r.strip_suffix(" -->"))
                {
                    let mut parts = rest.split(" rows ");
                    let name = parts.next().unwrap().to_owned();
                    let rows = parts.next().map(|r| {
                        let (a, b) = r.split_once('-').expect("rows A-B");
                        (a.parse().unwrap(), b.parse().unwrap())
                    });
                    pending = Some((name, rows));
                } else if !trimmed.is_empty() {
                    pending = None;
                }
            }
            Some((info, body_start)) if trimmed == "```" => {
                let body = *body_start..start;
                if let Some((snapshot, rows)) = pending.take() {
                    blocks.push(Block {
                        file: file.to_owned(),
                        body,
                        kind: BlockKind::Picture { snapshot, rows },
                    });
                } else if info == "console" {
                    let first = text[body.clone()].lines().next().unwrap_or("");
                    let command = first.strip_prefix("$ toolprism ").unwrap_or_else(|| {
                        panic!(
                            "{}: a console block starts with `$ toolprism `",
                            file.display()
                        )
                    });
                    blocks.push(Block {
                        file: file.to_owned(),
                        body,
                        kind: BlockKind::Command(shell_words(command)),
                    });
                }
                open = None;
            }
            Some(_) => {}
        }
    }
    assert!(open.is_none(), "{}: an unclosed code block", file.display());
    blocks
}

/// The exit status a command block shows on its last line (`[exit 1]`), if any.
fn expected_exit(block: &Block) -> Option<i32> {
    let text = std::fs::read_to_string(root().join(&block.file)).unwrap();
    text[block.body.clone()]
        .lines()
        .last()?
        .strip_prefix("[exit ")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// What a checked block must hold, made now.
fn expected_body(block: &Block) -> String {
    match &block.kind {
        BlockKind::Command(args) => {
            // `> /dev/null` at the end drops standard output (a CI gate shows its error line);
            // a last line `[exit N]` is the status shown, else the command must succeed.
            let quiet = args.ends_with(&[">".to_owned(), "/dev/null".to_owned()]);
            let run = if quiet {
                &args[..args.len() - 2]
            } else {
                &args[..]
            };
            let out = toolprism().args(run).write_stdin("").output().unwrap();
            let shown_exit = expected_exit(block);
            assert!(
                out.status.code() == Some(shown_exit.unwrap_or(0)),
                "{}: `toolprism {}` exited {:?}: {}",
                block.file.display(),
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
            let mut body = format!("$ toolprism {}\n", args.join(" "));
            if !quiet {
                body.push_str(&String::from_utf8(out.stdout).unwrap());
            }
            body.push_str(&String::from_utf8(out.stderr).unwrap());
            if !body.ends_with('\n') {
                body.push('\n');
            }
            if let Some(code) = shown_exit {
                body.push_str(&format!("[exit {code}]\n"));
            }
            body
        }
        BlockKind::Picture { snapshot, rows } => {
            // A marker names the snapshot as its module does (`tui__NAME`); the file has the
            // test binary's name before it.
            let path = root()
                .join("tests/snapshots")
                .join(format!("tests__{snapshot}.snap"));
            let snap = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", block.file.display(), path.display()));
            // insta's header, then one quoted row a line.
            let lines: Vec<String> = snap
                .lines()
                .skip_while(|l| !l.starts_with('"'))
                .map(|l| {
                    // Rows are not escaped; a row with wide symbols has a note after it.
                    let l = match l.find("\" Hidden by multi-width symbols: ") {
                        Some(i) => &l[..=i],
                        None => l,
                    };
                    let row = l.strip_prefix('"').and_then(|l| l.strip_suffix('"'));
                    row.expect("a quoted row").to_owned()
                })
                .collect();
            let (a, b) = rows.unwrap_or((1, lines.len()));
            let mut body = String::new();
            for row in &lines[a - 1..b] {
                body.push_str(row.trim_end());
                body.push('\n');
            }
            body
        }
    }
}

/// Every `toolprism` command block in README.md and docs/*.md prints exactly what it shows, and
/// every screen picture is a snapshot the TUI tests keep. After an intended change of output:
/// `INSTA_UPDATE=always cargo test --test tests tui` (review the snapshots), then
/// `TOOLPRISM_BLESS=1 cargo test --test tests readme` rewrites the blocks in place.
#[test]
fn readme_and_docs_blocks_are_what_the_binary_prints() {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| PathBuf::from("docs").join(e.unwrap().file_name()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let bless = std::env::var_os("TOOLPRISM_BLESS").is_some_and(|v| v == "1");
    let mut checked = 0;
    let mut stale = Vec::new();
    for file in &files {
        let blocks = checked_blocks(file);
        let path = root().join(file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        // Back to front, so earlier ranges stay valid while rewriting.
        let mut changed = false;
        for block in blocks.iter().rev() {
            checked += 1;
            let want = expected_body(block);
            if text[block.body.clone()] != want {
                let line = text[..block.body.start].lines().count() + 1;
                stale.push(format!("{}:{line}", file.display()));
                if bless {
                    text.replace_range(block.body.clone(), &want);
                    changed = true;
                } else if stale.len() == 1 {
                    // Show the first difference in full.
                    let have = &text[block.body.clone()];
                    for (n, (h, w)) in have.lines().zip(want.lines()).enumerate() {
                        if h != w {
                            eprintln!(
                                "{}:{}:\n  shown: {h:?}\n  now:   {w:?}",
                                file.display(),
                                line + n
                            );
                            break;
                        }
                    }
                    if have.lines().count() != want.lines().count() {
                        eprintln!(
                            "  shown {} lines, now {}",
                            have.lines().count(),
                            want.lines().count()
                        );
                    }
                }
            }
        }
        if changed {
            std::fs::write(&path, text).unwrap();
        }
    }
    assert!(
        checked >= 3,
        "the README's command blocks and pictures are found ({checked})"
    );
    if !bless {
        assert!(
            stale.is_empty(),
            "blocks that no longer match (TOOLPRISM_BLESS=1 rewrites them): {stale:?}"
        );
    } else if !stale.is_empty() {
        eprintln!("rewrote {stale:?}");
    }
}

#[test]
fn readme_shell_words_split_like_a_shell() {
    assert_eq!(
        shell_words("report a.json --set 'k=a b' -s x"),
        ["report", "a.json", "--set", "k=a b", "-s", "x"]
    );
    assert_eq!(shell_words(r#"diff "" x"#), ["diff", "", "x"]);
}

#[test]
fn session_on_an_empty_folder_fails_like_report() {
    let dir = tempfile::tempdir().unwrap();
    let report = one_line_failure(toolprism().arg("report").arg(dir.path()));
    let session = one_line_failure(toolprism().arg("session").arg(dir.path()));
    assert_eq!(session, report);
    assert!(session.ends_with(": no model call in it"), "{session}");
}

/// The SGR segments of `text`: each colour code with the text it paints (up to the reset).
fn painted_segments(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        rest = &rest[at..];
        let Some(end) = rest.find('m') else { break };
        let code = rest[..=end].to_owned();
        rest = &rest[end + 1..];
        if code == "\u{1b}[0m" {
            continue;
        }
        let upto = rest.find("\u{1b}[0m").unwrap_or(rest.len());
        out.push((code, rest[..upto].to_owned()));
        rest = &rest[upto..];
    }
    out
}

const SAVING: &str = "\u{1b}[32m";
const COST: &str = "\u{1b}[31m";
const REJECTED: &str = "\u{1b}[1;33m";
const REFUSED: &str = "\u{1b}[1;31m";
const QUIET: &str = "\u{1b}[2m";

#[test]
fn report_colours_mean_one_thing_each() {
    let mut seen = std::collections::BTreeSet::new();
    for capture in [
        "samples/small.json",
        "samples/large.json",
        "samples/anthropic-tool-search.json",
        "samples/a3s-program-responses.json",
        DUPLICATES,
    ] {
        let always = stdout_of(&["report", capture, "--color", "always"]);
        let never = stdout_of(&["report", capture, "--color", "never"]);
        assert!(!never.contains('\u{1b}'), "{never}");
        assert_eq!(strip_ansi(&always), never, "colour changes no text");
        // Into a pipe, auto is plain.
        assert_eq!(stdout_of(&["report", capture]), never);
        let json: Value = serde_json::from_str(&stdout_of(&["report", capture, "--json"])).unwrap();
        for s in json["strategies"].as_array().unwrap() {
            let id = s["id"].as_str().unwrap();
            let line = always
                .lines()
                .find(|l| strip_ansi(l).split_whitespace().next() == Some(id))
                .unwrap_or_else(|| panic!("{capture}: no row for {id}"));
            // The status first, then the two saved figures (a refused row has only the status).
            let codes: Vec<String> = painted_segments(line).into_iter().map(|s| s.0).collect();
            let status = s["status"].as_str().unwrap();
            let rejected = s["request_valid"].as_bool() == Some(false);
            let saved = s["saved_tokens"].as_i64();
            let status_code = match status {
                "refused" => Some(REFUSED),
                _ if rejected => Some(REJECTED),
                "not_applicable" => Some(QUIET),
                _ => None,
            };
            let saved_code = match status {
                "refused" => None,
                "not_applicable" => Some(QUIET),
                _ if rejected => Some(REJECTED),
                _ if saved.unwrap() > 0 => Some(SAVING),
                _ if saved.unwrap() < 0 => Some(COST),
                _ => None,
            };
            let expected: Vec<String> = status_code
                .into_iter()
                .chain(saved_code.into_iter().chain(saved_code))
                .map(str::to_owned)
                .collect();
            assert_eq!(codes, expected, "{capture} {id}: {line:?}");
            seen.extend(status_code);
            seen.extend(saved_code);
        }
    }
    // The samples carry every case but a refusal's own row (checked when one appears).
    for case in [SAVING, COST, REJECTED, QUIET] {
        assert!(seen.contains(case), "no sample shows {case:?}: {seen:?}");
    }
}

#[test]
fn matrix_colours_a_cost_as_a_cost_and_a_saving_as_a_saving() {
    let args = ["report", "samples/large.json", "--matrix"];
    let always = stdout_of(&[&args[..], &["--color", "always"]].concat());
    let never = stdout_of(&[&args[..], &["--color", "never"]].concat());
    assert!(!never.contains('\u{1b}'));
    assert_eq!(strip_ansi(&always), never);
    assert_eq!(stdout_of(&args), never, "a pipe stays plain");
    let (mut savings, mut costs) = (0, 0);
    // Body rows: between the header and the rule. A changed cell is compared with the row's
    // original figure (the first number after the name).
    for line in always
        .lines()
        .skip_while(|l| !strip_ansi(l).starts_with("tool"))
        .skip(1)
        .take_while(|l| !l.starts_with('─'))
    {
        let plain = strip_ansi(line);
        let original: usize = plain
            .split_whitespace()
            .nth(1)
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap();
        for (code, text) in painted_segments(line) {
            let figure = |t: &str| -> Option<usize> {
                t.split_whitespace().next()?.replace(',', "").parse().ok()
            };
            match (code.as_str(), text.trim_end().chars().last()) {
                (SAVING, Some('~')) => {
                    assert!(figure(&text).unwrap() < original, "{line:?}");
                    savings += 1;
                }
                (COST, Some('~')) => {
                    assert!(figure(&text).unwrap() > original, "{line:?}");
                    costs += 1;
                }
                (COST, Some('+')) => costs += 1,
                (QUIET, Some('=' | '×' | '»')) => {}
                (REFUSED, _) => assert_eq!(text, "refused", "{line:?}"),
                other => panic!("{other:?} in {line:?}"),
            }
        }
    }
    assert!(savings > 0 && costs > 0, "{savings} savings, {costs} costs");
    // The saving totals: green when they save, red when they cost, dim for n/a.
    for line in always
        .lines()
        .filter(|l| strip_ansi(l).starts_with("saved"))
    {
        for (code, text) in painted_segments(line) {
            match code.as_str() {
                SAVING => assert!(!text.starts_with('-'), "{line:?}"),
                COST => assert!(text.starts_with('-'), "{line:?}"),
                QUIET => assert_eq!(text, "n/a"),
                REJECTED | REFUSED => {}
                other => panic!("{other:?} in {line:?}"),
            }
        }
    }
}

#[test]
fn session_colours_its_comparison_with_original() {
    let trace = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let always = stdout_of(&["session", trace, "--color", "always"]);
    let never = stdout_of(&["session", trace, "--color", "never"]);
    assert!(!never.contains('\u{1b}'));
    assert_eq!(strip_ansi(&always), never);
    assert_eq!(stdout_of(&["session", trace]), never, "a pipe stays plain");
    let segments: Vec<(String, String)> = always
        .lines()
        .skip_while(|l| !l.starts_with("Session totals"))
        .flat_map(painted_segments)
        .collect();
    assert!(!segments.is_empty(), "{always}");
    for (code, text) in &segments {
        match code.as_str() {
            SAVING => assert!(
                text.trim().starts_with('-') && text.ends_with('%'),
                "{text:?}"
            ),
            COST => assert!(
                text.trim().starts_with('+') && text.ends_with('%'),
                "{text:?}"
            ),
            QUIET => assert!(text.ends_with("n/a"), "{text:?}"),
            REFUSED => {}
            other => panic!("{other:?} on {text:?}"),
        }
    }
    assert!(segments.iter().any(|(c, _)| c == SAVING), "{segments:?}");
}

#[test]
fn session_budget_gates_the_session_cost() {
    let trace = "samples/traces/claude-code-mcp-reconnect.jsonl";
    let json: Value = serde_json::from_str(&stdout_of(&[
        "session", trace, "-s", "original", "-s", "minimal", "--json",
    ]))
    .unwrap();
    let cost = |id: &str| -> usize {
        let s = json["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap();
        s["cost"].as_f64().unwrap().round() as usize
    };
    let (original, minimal) = (cost("original"), cost("minimal"));
    assert!(minimal < original, "{minimal} {original}");
    let sep = toolprism::text::thousands;
    // At the larger cost: both pass.
    toolprism()
        .args(["session", trace, "-s", "original", "-s", "minimal"])
        .args(["--budget", &original.to_string()])
        .assert()
        .code(0)
        .stderr("");
    // Between the two: only `original` is over, named with its cost and the excess.
    let budget = minimal;
    let out = toolprism()
        .args([
            "session", trace, "-s", "original", "-s", "minimal", "--json",
        ])
        .args(["--budget", &budget.to_string()])
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "toolprism: {trace}: over the budget of {} tokens of session cost: `original` costs {} tokens, {} over\n",
            sep(budget),
            sep(original),
            sep(original - budget)
        )
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed["strategies"], json["strategies"],
        "printed either way"
    );
    // Without -s only `original` (the session as sent) is gated.
    toolprism()
        .args([
            "session",
            trace,
            "--json",
            "--budget",
            &original.to_string(),
        ])
        .assert()
        .code(0);
    toolprism()
        .args(["session", trace, "--json", "--budget", &budget.to_string()])
        .assert()
        .code(1)
        .stderr(format!(
            "toolprism: {trace}: over the budget of {} tokens of session cost: `original` costs {} tokens, {} over\n",
            sep(budget),
            sep(original),
            sep(original - budget)
        ));
    let line = one_line_failure(toolprism().args(["session", trace, "--budget", "lots"]));
    assert!(line.contains("--budget"), "{line}");
}

/// Start `args`, let it block on input that never ends, send SIGINT: it exits 130.
fn interrupted_exits_130(mut cmd: std::process::Command, what: &str) {
    use std::time::{Duration, Instant};
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Time to start and block on the read.
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        child.try_wait().unwrap().is_none(),
        "{what}: ended before the signal"
    );
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{what}: still running 20 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130), "{what}: {status:?}");
}

#[test]
fn ctrl_c_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.jsonl");
    if tools::mkfifo(&fifo, "ctrl_c_exits_130 (its FIFO half)") {
        // A writer that sends one record and never closes: the session reads on forever.
        let writer_path = fifo.clone();
        let first =
            std::fs::read_to_string(root().join("samples/traces/claude-code-mcp-reconnect.jsonl"))
                .unwrap()
                .lines()
                .next()
                .unwrap()
                .to_owned();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut w = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            let _ = writeln!(w, "{first}");
            std::thread::sleep(std::time::Duration::from_secs(30));
        });
        let mut cmd = std::process::Command::new(bin());
        cmd.arg("session").arg(&fifo).stdin(Stdio::null());
        interrupted_exits_130(cmd, "session on a FIFO");
        drop(writer);
    }
    // `report -` on a standard input that never ends: the test holds the pipe's write end
    // open and writes nothing.
    let (reader, writer) = std::io::pipe().unwrap();
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["report", "-"]).stdin(reader);
    interrupted_exits_130(cmd, "report on an endless standard input");
    drop(writer);
}
