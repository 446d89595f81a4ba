//! Output that fits the terminal it is printed on (issue 45): `report` and `session` at 80
//! columns keep every line inside the width, cutting or folding with a mark and naming what
//! they leave out; `session` on a terminal is paged as `diff` is.

use crate::support::command::{bin, root};
use crate::support::sgr::strip_sgr;
use crate::support::tools;

/// The text `args` prints on a pseudo-terminal `columns` wide, colour stripped, with `env`.
fn on_terminal(args: &str, columns: usize, env: &[(&str, &str)], test: &str) -> Option<String> {
    let command = format!("COLUMNS={columns} '{}' {args}", bin());
    let out = tools::in_pty(&command, &root(), env, &[], test)?;
    assert!(out.status.success(), "{args}: {out:?}");
    Some(strip_sgr(&String::from_utf8(out.stdout).unwrap()).replace("\r\n", "\n"))
}

/// The lines of `text` wider than `columns` cells.
fn too_wide(text: &str, columns: usize) -> Vec<String> {
    text.lines()
        .filter(|l| toolprism::text::width(l) > columns)
        .map(str::to_owned)
        .collect()
}

#[test]
fn report_at_80_columns_keeps_every_line_inside() {
    let Some(text) = on_terminal(
        "report samples/large.json",
        80,
        &[],
        "report_at_80_columns_keeps_every_line_inside",
    ) else {
        return;
    };
    assert_eq!(too_wide(&text, 80), Vec::<String>::new(), "{text}");
    // The note column, with less room than a word, is cut with a mark, not wrapped past
    // the edge where the terminal would break `deferred,` mid-word.
    let defer = text.lines().find(|l| l.starts_with("defer ")).unwrap();
    assert!(defer.ends_with('…'), "{text}");
    // The per-tool tables and the per-server one too: the strategies that do not fit are named.
    let Some(text) = on_terminal(
        "report samples/large.json --per-tool --by-server",
        80,
        &[],
        "report_at_80_columns_keeps_every_line_inside",
    ) else {
        return;
    };
    assert_eq!(too_wide(&text, 80), Vec::<String>::new(), "{text}");
    let servers = text
        .split("Per server")
        .nth(1)
        .unwrap()
        .replace("\n    ", " ");
    assert!(
        servers.contains("  not shown for width: adaptive, code"),
        "{servers}"
    );
}

#[test]
fn session_on_a_terminal_fits_and_names_the_columns_it_leaves_out() {
    let trace = "session samples/traces/claude-code-mcp-reconnect.jsonl";
    for columns in [80, 120] {
        let Some(text) = on_terminal(
            trace,
            columns,
            &[("PAGER", "cat")],
            "session_on_a_terminal_fits_and_names_the_columns_it_leaves_out",
        ) else {
            return;
        };
        assert_eq!(too_wide(&text, columns), Vec::<String>::new(), "{text}");
        let joined = text.replace("\n    ", " ");
        assert!(joined.contains("  not shown for width: "), "{text}");
        // The turns keep their number, thread, cache state, agreement and what changed.
        let header = text.lines().find(|l| l.starts_with("  turn  ")).unwrap();
        for kept in ["thread", "cache", "agrees", "what changed"] {
            assert!(header.contains(kept), "{header}");
        }
        // A 130-character user id is shortened with a mark.
        assert!(
            text.contains("(user_id user_3f1c0d9e8b7a6f5e4d3c2b…"),
            "{text}"
        );
    }
    // Into a pipe, every column and the whole key.
    let piped = crate::support::command::stdout_of(&[
        "session",
        "samples/traces/claude-code-mcp-reconnect.jsonl",
    ]);
    assert!(!piped.contains("not shown for width"), "{piped}");
    assert!(piped.contains("modelled"), "{piped}");
}

#[test]
fn session_on_a_terminal_is_paged() {
    let Some(text) = on_terminal(
        "session samples/traces/claude-code-mcp-reconnect.jsonl",
        100,
        &[("PAGER", "echo through-the-pager; cat")],
        "session_on_a_terminal_is_paged",
    ) else {
        return;
    };
    assert!(text.starts_with("through-the-pager\n"), "{text}");
    assert!(text.contains("Session totals"), "{text}");
}

/// Smaller things a newcomer met (issue 45), each in the words it should have had.
mod smaller {
    use crate::support::command::{fails_with, stdout_of};

    #[test]
    fn a_mistyped_setting_is_suggested() {
        assert_eq!(
            fails_with(&["report", "samples/small.json", "--set", "defer.treshold=3"]),
            "toolprism: --set: unknown setting `defer.treshold`; did you mean `defer.threshold`? (`toolprism settings` lists them)"
        );
    }

    #[test]
    fn an_mcp_config_given_as_a_capture_points_at_toolprism_mcp() {
        let line = fails_with(&["report", "samples/mcp/.mcp.json"]);
        assert!(
            line.contains(
                "an MCP client config (`mcpServers`), not a request: `toolprism mcp FILE`"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_negative_budget_is_a_plain_error() {
        let line = fails_with(&["report", "samples/small.json", "--budget", "-5"]);
        assert!(
            line.contains("`-5` is no budget: give a whole number of tokens"),
            "{line}"
        );
        assert!(!line.contains("-- -5"), "{line}");
    }

    #[test]
    fn nothing_piped_in_says_what_was_expected() {
        let out = std::process::Command::new(crate::support::command::bin())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let line = String::from_utf8(out.stderr).unwrap();
        assert!(
            line.starts_with("toolprism: <stdin>: empty: `toolprism` reads a capture"),
            "{line}"
        );
    }

    #[test]
    fn a_tool_named_as_the_matrix_shows_it_is_suggested() {
        for typed in [
            "github_create_issue",
            "github›create_issue",
            "github›create_isue",
        ] {
            let line = fails_with(&[
                "diff",
                "samples/small.json",
                "-s",
                "minimal",
                "--tool",
                typed,
            ]);
            assert!(
                line.ends_with("did you mean `mcp__github__create_issue`?"),
                "{typed}: {line}"
            );
        }
    }

    #[test]
    fn help_lists_the_strategies_once() {
        for command in ["mcp", "report"] {
            let help = stdout_of(&[command, "--help"]);
            assert_eq!(
                help.matches("defer-catalog:").count(),
                1,
                "{command}: {help}"
            );
        }
    }

    #[test]
    fn per_server_rows_are_the_costliest_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two-servers.json");
        let long = "A description long enough to cost more than the other server's. ".repeat(8);
        let capture = serde_json::json!({
            "model": "claude-sonnet-4-5",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {"name": "mcp__cheap__x", "description": "x", "input_schema": {"type": "object"}},
                {"name": "mcp__dear__y", "description": long, "input_schema": {"type": "object"}},
            ]
        });
        std::fs::write(&path, capture.to_string()).unwrap();
        let out = stdout_of(&[
            "report",
            path.to_str().unwrap(),
            "--by-server",
            "-s",
            "original",
        ]);
        let table = out.split("Per server").nth(1).unwrap();
        let dear = table.find("  dear ").unwrap();
        let cheap = table.find("  cheap ").unwrap();
        assert!(dear < cheap, "{table}");
    }
}
