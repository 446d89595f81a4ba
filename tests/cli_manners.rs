//! The command line as a terminal user meets it (issue 9): JSON that pastes back from a
//! terminal, standard input without `-`, exports to devices, pipes and read-only folders with
//! plain error lines, a diff pagers and delta render, and the small manners (comma lists,
//! `--tool`, `--color` everywhere, "did you mean", plurals, empty and binary files).
//!
//! Terminal cases run the binary under `script` (a pseudo-terminal; `support::tools`: CI fails
//! without it, elsewhere they say they skipped).

use std::path::Path;
use std::process::Stdio;

use assert_cmd::Command;
use serde_json::Value;

use crate::support::command::{bin, one_line_failure, root, stdout_of, toolprism};
use crate::support::sgr::strip_sgr;
use crate::support::tools::{self, shell_quote};

/// Run the binary with a pseudo-terminal as standard input and output (`columns` wide), and
/// `redirect` appended to the command line (e.g. `> out.txt`); what the terminal showed, with
/// the terminal's CR LF turned back into LF. `None` where `script` is missing.
fn on_terminal(args: &[&str], columns: usize, redirect: &str) -> Option<String> {
    on_terminal_in(&root(), args, columns, redirect)
}

fn on_terminal_in(dir: &Path, args: &[&str], columns: usize, redirect: &str) -> Option<String> {
    let mut line = format!("stty cols {columns} rows 40; {}", shell_quote(bin()));
    for arg in args {
        line.push(' ');
        line.push_str(&shell_quote(arg));
    }
    line.push(' ');
    line.push_str(redirect);
    let out = tools::in_pty(
        &line,
        dir,
        &[],
        &["NO_COLOR", "COLUMNS"],
        "a terminal case of cli_manners",
    )?;
    assert!(out.status.success(), "{out:?}");
    Some(String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n"))
}

// ------------------------------------------------------------ JSON on a terminal

#[test]
fn pretty_json_on_a_terminal_parses_back_to_the_same_value() {
    let cases: [&[&str]; 4] = [
        &["show", "samples/hostile.json", "-s", "original", "--pretty"],
        &["report", "samples/hostile.json", "-s", "original", "--json"],
        &[
            "show",
            "samples/hostile.json",
            "-s",
            "minimal",
            "--tools-only",
        ],
        &[
            "export",
            "samples/hostile.json",
            "-s",
            "original",
            "-o",
            "-",
            "-q",
        ],
    ];
    for args in cases {
        let args: &[&str] = args;
        let Some(shown) = on_terminal(args, 200, "") else {
            return;
        };
        let piped = stdout_of(args);
        assert!(shown.ends_with("}\n") || shown.ends_with("]\n"), "{shown}");
        assert!(
            !shown.contains("\\u000a"),
            "structural newlines stay newlines"
        );
        assert_eq!(
            shown.lines().count(),
            piped.lines().count(),
            "same layout as into a pipe: {args:?}"
        );
        let back: Value = serde_json::from_str(&shown).expect("what the terminal shows is JSON");
        let value: Value = serde_json::from_str(&piped).unwrap();
        assert_eq!(back, value, "{args:?}");
        assert!(
            !shown
                .chars()
                .any(|c| toolprism::sanitize::is_unsafe(c) && c != '\n'),
            "nothing raw for the terminal: {args:?}"
        );
    }
}

// ------------------------------------------------------------ standard input

#[test]
fn piped_capture_without_an_argument_is_read() {
    let capture = std::fs::read(root().join("tests/fixtures/one-tool.json")).unwrap();
    let out = toolprism()
        .write_stdin(capture)
        .assert()
        .success()
        .get_output()
        .clone();
    let out = String::from_utf8(out.stdout).unwrap();
    let explicit = stdout_of(&["report", "tests/fixtures/one-tool.json"]);
    assert_eq!(
        out.lines().skip(1).collect::<Vec<_>>(),
        explicit.lines().skip(1).collect::<Vec<_>>()
    );
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("anthropic-messages, 1 tool, "),
        "{out}"
    );
}

#[test]
fn a_terminal_on_standard_input_means_the_bundled_sample_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.txt");
    // Standard output into a file: the table, not the interactive view.
    if on_terminal_in(dir.path(), &[], 80, "> out.txt").is_none() {
        return;
    }
    let out = std::fs::read_to_string(&file).unwrap();
    assert!(
        out.starts_with("samples/small.json (bundled): anthropic-messages, 8 tools"),
        "{out}"
    );
    // The same figures as reporting the file itself.
    let report = stdout_of(&["report", "samples/small.json"]);
    assert_eq!(
        out.lines().skip(1).collect::<Vec<_>>(),
        report.lines().skip(1).collect::<Vec<_>>()
    );
}

// ------------------------------------------------------------ export targets

/// small.json as serde_json writes it compact: its `tools` value as sent is then the compact
/// array whose tokens `report` counts, so the file `export --tools-only` writes holds exactly
/// the report's tools tokens (small.json itself is pretty-printed, and written as sent).
fn small_compact() -> String {
    // Written once: tests run side by side and read it.
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join(format!("small-compact-{}.json", std::process::id()));
        let text = std::fs::read_to_string(root().join("samples/small.json")).unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        std::fs::write(&path, serde_json::to_string(&body).unwrap()).unwrap();
        path.to_string_lossy().into_owned()
    })
    .clone()
}

/// `wrote OUT: B bytes, T tokens in the file (o200k_base)`, checked against `report --json`.
fn assert_wrote_line(stderr: &str, target: &str) {
    let report: Value =
        serde_json::from_str(&stdout_of(&["report", &small_compact(), "--json"])).unwrap();
    let bytes = report["capture"]["tools_bytes"].as_u64().unwrap() + 1;
    let tokens = report["capture"]["tools_tokens"].as_u64().unwrap();
    let thousands = |n: u64| toolprism::text::thousands(n as usize);
    assert_eq!(
        stderr,
        format!(
            "toolprism: wrote {target}: {} bytes, {} tokens in the file (o200k_base)\n",
            thousands(bytes),
            thousands(tokens)
        )
    );
}

fn export_original_tools(out: &str) -> Command {
    let mut cmd = toolprism();
    cmd.args([
        "export",
        &small_compact(),
        "-s",
        "original",
        "--tools-only",
        "-o",
        out,
    ]);
    cmd
}

#[test]
fn a_successful_export_says_where_bytes_and_tokens_and_quiet_silences_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    let out_name = out.to_string_lossy().into_owned();
    let result = export_original_tools(&out_name)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(result.stdout.is_empty());
    assert_wrote_line(&String::from_utf8(result.stderr).unwrap(), &out_name);
    let written = std::fs::read(&out).unwrap();
    let shown = stdout_of(&["show", &small_compact(), "-s", "original", "--tools-only"]);
    assert_eq!(written, shown.as_bytes());

    let line = one_line_failure(&mut export_original_tools(&out_name));
    assert_eq!(
        line,
        format!("toolprism: {out_name} exists (use --force to replace it)")
    );
    export_original_tools(&out_name)
        .args(["--force", "-q"])
        .assert()
        .success()
        .stderr("");
}

#[cfg(target_os = "linux")]
#[test]
fn devices_are_written_through_and_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let result = export_original_tools("/dev/null")
        .arg("--force")
        .assert()
        .success()
        .get_output()
        .clone();
    assert_wrote_line(&String::from_utf8(result.stderr).unwrap(), "/dev/null");
    let meta = std::fs::metadata("/dev/null").unwrap();
    assert!(
        meta.file_type().is_char_device(),
        "/dev/null is still the device"
    );
    let line = one_line_failure(export_original_tools("/dev/full").arg("--force"));
    assert_eq!(
        line,
        "toolprism: cannot write /dev/full: no space left on the device"
    );

    // /dev/stdout into a pipe: the JSON arrives there, byte for byte.
    let out = export_original_tools("/dev/stdout")
        .arg("-q")
        .assert()
        .success()
        .get_output()
        .clone();
    let shown = stdout_of(&["show", &small_compact(), "-s", "original", "--tools-only"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown);
    // /dev/stdout into a file: written into that file, the link itself untouched.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("captured.json");
    let status = std::process::Command::new(bin())
        .current_dir(root())
        .args([
            "export",
            &small_compact(),
            "-s",
            "original",
            "--tools-only",
            "-q",
            "--force",
            "-o",
            "/dev/stdout",
        ])
        .stdout(std::fs::File::create(&file).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), shown);
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    if !tools::mkfifo(&fifo, "a_named_pipe_is_written_through") {
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    export_original_tools(&fifo.to_string_lossy())
        .arg("-q")
        .assert()
        .success();
    let read = reader.join().unwrap();
    let shown = stdout_of(&["show", &small_compact(), "-s", "original", "--tools-only"]);
    assert_eq!(read, shown);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        names.len(),
        1,
        "still only the pipe: nothing renamed over it"
    );
}

#[test]
fn a_folder_that_is_a_file_is_one_plain_line() {
    // Binds root too, unlike permissions.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    let target = format!("{}/out.json", file.display());
    let line = one_line_failure(&mut export_original_tools(&target));
    assert_eq!(
        line,
        format!(
            "toolprism: cannot write in {}/: a part of the path is not a folder",
            file.display()
        )
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn a_read_only_folder_is_one_plain_line() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_ok() {
        eprintln!("skipped: permissions do not bind this user (root)");
        return;
    }
    let target = format!("{}/out.json", ro.display());
    let line = one_line_failure(&mut export_original_tools(&target));
    assert_eq!(
        line,
        format!(
            "toolprism: cannot write in {}/: permission denied",
            ro.display()
        )
    );
    assert!(!line.contains(".tmp") && !line.contains("os error"));
    assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
}

#[test]
fn a_closed_pipe_as_target_is_one_line() {
    let mut child = std::process::Command::new(bin())
        .current_dir(root())
        .args([
            "export",
            "samples/large.json",
            "-s",
            "original",
            "--pretty",
            "-o",
            "/dev/stdout",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "toolprism: cannot write /dev/stdout: the reader closed the pipe\n"
    );
}

// ------------------------------------------------------------ diff

#[test]
fn diff_has_git_headers_the_summary_first_and_no_comma_churn() {
    let out = stdout_of(&[
        "diff",
        "tests/fixtures/two-tools.json",
        "-s",
        "minimal",
        "--color",
        "never",
    ]);
    let expected = "\
minimal: 2 changed, 0 added, 0 removed, 0 deferred
tools array 333 → 261 bytes: first changed byte 66, −142 +70 bytes

diff --git a/read_file b/read_file
";
    assert!(out.starts_with(expected), "{out}");
    let body = &out[out.find("diff --git").expect("a git header")..];
    assert!(
        body.starts_with(
            "diff --git a/read_file b/read_file\n--- a/read_file\n+++ b/read_file\n@@ -1,12 +1,11 @@ changed: "
        ),
        "{body}"
    );
    // The removed parameter description is one removed line; the line above it is context.
    assert!(body.contains("         \"type\": \"string\"\n-        \"description\": \"Path of the file.\"\n       }\n"), "{body}");
    let minus: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    let plus: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    for m in &minus {
        let stripped = m[1..].trim_end_matches(',');
        assert!(
            !plus
                .iter()
                .any(|p| p[1..].trim_end_matches(',') == stripped),
            "a line only re-added for its comma: {m}"
        );
    }
}

#[test]
fn diff_stat_is_one_line_per_tool_and_a_total() {
    let out = stdout_of(&["diff", "samples/small.json", "-s", "minimal", "--stat"]);
    let stat: Vec<&str> = out.lines().filter(|l| l.contains(" | ")).collect();
    assert!(!stat.is_empty(), "{out}");
    let total = out.lines().last().unwrap();
    assert!(
        total.starts_with(&format!(" {} tool", stat.len())),
        "{total}"
    );
    assert!(!out.contains("diff --git"));
}

#[test]
fn diff_emphasizes_changed_words_in_colour() {
    let out = stdout_of(&[
        "diff",
        "tests/fixtures/two-tools.json",
        "-s",
        "minimal",
        "--color",
        "always",
    ]);
    assert!(
        out.contains(
            "\x1b[31m-  \"description\": \"Read a file from the \x1b[7mworkspace. Returns"
        ),
        "{out:?}"
    );
}

// ------------------------------------------------------------ manners

#[test]
fn comma_lists_and_repeats_give_each_strategy_once() {
    let out = stdout_of(&[
        "report",
        "samples/small.json",
        "-s",
        "minimal,defer",
        "-s",
        "minimal",
    ]);
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("strategy"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(rows, ["minimal", "defer"]);
}

#[test]
fn show_one_tool() {
    let out = stdout_of(&[
        "show",
        "samples/large.json",
        "-s",
        "minimal",
        "--tool",
        "bash",
    ]);
    let entry: Value = serde_json::from_str(&out).unwrap();
    let tools: Value = serde_json::from_str(&stdout_of(&[
        "show",
        "samples/large.json",
        "-s",
        "minimal",
        "--tools-only",
    ]))
    .unwrap();
    let expected = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "bash")
        .unwrap();
    assert_eq!(&entry, expected);
    let line = one_line_failure(toolprism().args([
        "show",
        "samples/large.json",
        "-s",
        "defer",
        "--tool",
        "mcp__github__create_issue",
    ]));
    assert!(
        line.starts_with(
            "toolprism: samples/large.json: `defer` sends no `mcp__github__create_issue` (deferred"
        ),
        "{line}"
    );
}

#[test]
fn did_you_mean_for_strategies_and_tools() {
    let line =
        one_line_failure(toolprism().args(["report", "samples/small.json", "-s", "minimall"]));
    assert!(line.contains("did you mean `minimal`?"), "{line}");
    let line = one_line_failure(toolprism().args([
        "diff",
        "samples/small.json",
        "-s",
        "minimal",
        "--tool",
        "create_issue",
    ]));
    assert_eq!(
        line,
        "toolprism: samples/small.json: no tool named `create_issue` in the capture or the `minimal` projection; did you mean `mcp__github__create_issue`?"
    );
}

#[test]
fn color_is_accepted_by_every_subcommand() {
    for args in [
        vec!["report", "samples/small.json", "--color", "never"],
        vec![
            "show",
            "samples/small.json",
            "-s",
            "minimal",
            "--color",
            "always",
        ],
        vec![
            "diff",
            "samples/small.json",
            "-s",
            "minimal",
            "--color",
            "never",
        ],
        vec![
            "export",
            "samples/small.json",
            "-s",
            "minimal",
            "-o",
            "-",
            "--color",
            "never",
        ],
        vec!["strategies", "--color", "never"],
    ] {
        toolprism().args(&args).assert().success();
    }
}

#[test]
fn plurals_and_one_no_tools_message() {
    let one = stdout_of(&["report", "tests/fixtures/one-tool.json", "-s", "original"]);
    assert!(
        one.starts_with("tests/fixtures/one-tool.json: anthropic-messages, 1 tool, "),
        "{one}"
    );
    let none = stdout_of(&["report", "tests/fixtures/no-tools.json"]);
    assert!(none.starts_with("tests/fixtures/no-tools.json: openai-chat, 0 tools, 2 bytes, 1 token (o200k_base)\nthe capture has no tools"), "{none}");
    assert_eq!(
        none.matches("the capture has no tools").count(),
        1,
        "{none}"
    );
}

#[test]
fn empty_and_binary_files_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "\n").unwrap();
    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe").unwrap();
    let line = one_line_failure(toolprism().arg("report").arg(&empty));
    assert_eq!(
        line,
        format!("toolprism: {}: empty: no JSON in it", empty.display())
    );
    let line = one_line_failure(toolprism().arg("report").arg(&binary));
    assert_eq!(
        line,
        format!("toolprism: {}: not JSON: binary data", binary.display())
    );
}

#[test]
fn report_fits_the_terminal_and_keeps_pipes_whole() {
    let args = ["report", "samples/large.json", "--per-tool", "-s", "defer"];
    let Some(coloured) = on_terminal(&args, 80, "") else {
        return;
    };
    // On a terminal the status marks are coloured; colour takes no cells.
    assert!(coloured.contains("\x1b[1;33mok !"), "{coloured}");
    let shown = strip_sgr(&coloured);
    for line in shown.lines() {
        assert!(toolprism::text::width(line) <= 80, "{line:?}");
    }
    // The shortened names are the TUI's (an MCP prefix collapsed, a middle cut), and two
    // different tools never read alike.
    let rows: Vec<&str> = shown
        .lines()
        .skip_while(|l| !l.starts_with("  tool "))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A wrapped reason continues under its column: not a row.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(rows.len() >= 46, "{shown}");
    let mut unique = rows.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), rows.len(), "names alike: {rows:?}");
    assert!(rows.iter().any(|n| n.starts_with("github›")), "{rows:?}");
    let piped = stdout_of(&args);
    assert!(
        piped.lines().any(|l| toolprism::text::width(l) > 80),
        "pipes are not wrapped"
    );
    // Into a pipe every name is whole; on the terminal a long one may be shortened, visibly.
    let json: Value = serde_json::from_str(&stdout_of(&[
        "report",
        "samples/large.json",
        "-s",
        "defer",
        "--json",
    ]))
    .unwrap();
    for tool in json["strategies"][0]["per_tool"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert!(
            piped.lines().any(|l| l.starts_with(&format!("  {name} "))),
            "{name} whole"
        );
    }
    assert!(shown.contains('…'), "names shortened visibly at 80 columns");
}

#[test]
fn the_man_page_is_generated_from_the_grammar() {
    let man = stdout_of(&["man"]);
    assert!(
        man.starts_with(".ie \\n(.g .ds Aq"),
        "{}",
        &man[..80.min(man.len())]
    );
    assert!(man.contains(".TH toolprism 1"), "roff title");
    for word in ["report", "show", "diff", "export", "completions"] {
        assert!(man.contains(word), "{word}");
    }
}
/// `--help` names what exists once installed (the manual page, the commands that explain
/// themselves), not a file of the source tree first; the index it names in the source ships.
#[test]
fn help_points_at_documents_that_exist() {
    let help = stdout_of(&["--help"]);
    let installed = help.split("In the source:").next().unwrap();
    for command in [
        "toolprism man",
        "toolprism strategies",
        "toolprism settings",
    ] {
        assert!(installed.contains(command), "{command} in --help");
        let sub: Vec<&str> = command.split(' ').skip(1).collect();
        assert!(!stdout_of(&sub).is_empty(), "{command} prints");
    }
    assert!(!installed.contains("docs/"), "{installed}");
    assert!(help.contains("docs/README.md"));
    assert!(root().join("docs/README.md").is_file());
    assert!(Path::new(&root().join("docs/UNTRUSTED-TEXT.md")).is_file());
}

#[test]
fn a_refused_export_writes_no_store_either() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("short.json");
    std::fs::write(&out, "precious").unwrap();
    let store = dir.path().join("store");
    let line = one_line_failure(
        toolprism()
            .args(["export", "samples/leanctx-chat.json", "-s", "shorten", "-o"])
            .arg(&out)
            .arg("--store")
            .arg(&store),
    );
    assert_eq!(
        line,
        format!(
            "toolprism: {} exists (use --force to replace it)",
            out.display()
        )
    );
    assert!(
        !store.exists(),
        "the store is not written for a refused export"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
}

/// A problem of the file system is said in words, never as the system's `(os error N)`: by
/// `record` creating its trace, `session --follow` and `session` on a folder.
#[test]
fn io_problems_are_said_in_words_by_record_and_follow() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let looped = format!("{}/trace.jsonl", a.display());
    let missing = format!("{}/missing.jsonl", dir.path().display());
    let cases = [
        (
            one_line_failure(toolprism().args(["record", "-o", &looped, "--", "true"])),
            "cannot create the trace: too many levels of symbolic links",
        ),
        (
            one_line_failure(toolprism().args(["session", "--follow", &missing])),
            "cannot read: no such file or folder",
        ),
        (
            one_line_failure(toolprism().args(["session", &a.to_string_lossy()])),
            "cannot read: too many levels of symbolic links",
        ),
    ];
    for (line, said) in cases {
        assert!(line.ends_with(said), "{line}");
        assert!(!line.contains("os error"), "{line}");
    }
}
