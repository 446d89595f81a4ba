//! What a newcomer meets on the command line and in the docs: near misses suggested, one rule
//! for lists, `toolprism settings`, and docs that name only what exists.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;
use toolprism::Settings;

use crate::support::command::{fails_with, root, stdout_of};

#[test]
fn a_typed_subcommand_is_suggested() {
    assert_eq!(
        fails_with(&["reprot", "samples/small.json"]),
        "toolprism: `reprot` is neither a file nor a subcommand; did you mean `report`? (see --help)"
    );
    assert_eq!(
        fails_with(&["--color", "never", "sesion"]),
        "toolprism: `sesion` is neither a file nor a subcommand; did you mean `session`? (see --help)"
    );
    // A file that does not exist, near no subcommand, is still a file.
    let line = fails_with(&["no-such-capture.json"]);
    assert!(line.contains("no-such-capture.json: cannot read"), "{line}");
}

#[test]
fn an_option_of_other_subcommands_names_them() {
    assert_eq!(
        fails_with(&["session", "samples/traces/bare-torn.jsonl", "--turn", "2"]),
        "toolprism: unexpected argument `--turn`: `--turn` belongs to `report`, `show`, `diff` and `export`, not to `session` (see toolprism session --help)"
    );
    assert_eq!(
        fails_with(&[
            "diff",
            "samples/small.json",
            "-s",
            "minimal",
            "--tool",
            "raed_file"
        ]),
        "toolprism: samples/small.json: no tool named `raed_file` in the capture or the `minimal` projection; did you mean `read_file`?"
    );
}

#[test]
fn strategies_are_a_comma_list_everywhere() {
    let trace = "samples/traces/bare-torn.jsonl";
    let ids = |args: &[&str]| -> Vec<String> {
        let json: Value = serde_json::from_str(&stdout_of(args)).unwrap();
        json["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let comma = ids(&["session", trace, "-s", "original,direct", "--json"]);
    let repeated = ids(&["session", trace, "-s", "original", "-s", "direct", "--json"]);
    assert_eq!(comma, ["original", "direct"]);
    assert_eq!(comma, repeated);
    let report = ids(&[
        "report",
        "samples/small.json",
        "-s",
        "original,direct",
        "--json",
    ]);
    assert_eq!(report, comma);
}

#[test]
fn settings_lists_every_key_with_value_default_and_strategies() {
    let text = stdout_of(&["settings", "--set", "vtcode.release=0.169.2"]);
    for key in Settings::KEYS {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{}=", key.key))),
            "{} listed",
            key.key
        );
    }
    assert!(text.contains("vtcode.release=0.169.2  *\n"), "{text}");
    assert!(text.contains("vtcode.progressive=auto\n"), "{text}");
    assert!(
        text.contains(
            "    default 0.181.2; one of 0.181.2, 0.169.2; changes full, progressive, minimal\n"
        ),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stdout_of(&["settings", "--json"])).unwrap();
    let rows = json["settings"].as_array().unwrap();
    assert_eq!(rows.len(), Settings::KEYS.len());
    let defer = rows.iter().find(|r| r["key"] == "defer.threshold").unwrap();
    assert_eq!(defer["value"], "auto");
    assert_eq!(
        defer["strategies"],
        serde_json::json!(["defer", "defer-catalog"])
    );
    let release = rows.iter().find(|r| r["key"] == "zero.release").unwrap();
    assert_eq!(release["choices"], serde_json::json!(["0.8.0", "2ea36cf"]));
    let prompt = rows.iter().find(|r| r["key"] == "adaptive.prompt").unwrap();
    assert_eq!(
        prompt["value"],
        Value::Null,
        "unset is null, as in report --json"
    );
    assert!(fails_with(&["settings", "--set", "nope=1"]).contains("unknown setting `nope`"));
}

/// The markdown files a user reads.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| PathBuf::from("docs").join(e.unwrap().file_name()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The code a doc shows: its backtick spans, and the lines of its fenced blocks (a
/// `<!-- snapshot -->` picture is a screen, not code, and is skipped). With the line number.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut code = Vec::new();
    let mut fence: Option<bool> = None;
    let mut picture = false;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim_start().starts_with("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(picture),
            };
            continue;
        }
        match fence {
            Some(false) => code.push((n, line.split(" # ").next().unwrap_or("").to_owned())),
            Some(true) => {}
            None => {
                picture = line.starts_with("<!-- snapshot:");
                for (i, span) in line.split('`').enumerate() {
                    if i % 2 == 1 {
                        code.push((n, span.to_owned()));
                    }
                }
            }
        }
    }
    code
}

/// Every long flag of every subcommand, and the top level's, from `--help`.
fn flags() -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let top = stdout_of(&["--help"]);
    // `help` takes a subcommand's name, not `--help`.
    let subcommands =
        std::iter::once("").chain(subcommands_of(&top).into_iter().filter(|&s| s != "help"));
    for sub in subcommands {
        let args: Vec<&str> = [sub, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let help = stdout_of(&args);
        for word in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if let Some(name) = word.strip_prefix("--")
                && !name.is_empty()
            {
                flags.insert(format!("--{name}"));
            }
        }
    }
    flags
}

/// The subcommands the top level's `--help` lists (a new one is covered without naming it here).
fn subcommands_of(help: &str) -> BTreeSet<&str> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

#[test]
fn docs_name_only_subcommands_paths_flags_and_settings_that_exist() {
    let help = stdout_of(&["--help"]);
    let subcommands = subcommands_of(&help);
    assert!(subcommands.contains("settings"), "{subcommands:?}");
    let flags = flags();
    let groups = [
        "mcp", "vtcode", "a3s", "adaptive", "code", "shorten", "defer", "zero", "search", "cache",
    ];
    let mut wrong = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        for (line, code) in code_of(&text) {
            let at = format!("{}:{line}", file.display());
            // `toolprism WORD`: a subcommand, an option, a placeholder, or a path that exists.
            for (i, _) in code.match_indices("toolprism ") {
                let before = code[..i].chars().last();
                if before.is_some_and(|c| !matches!(c, ' ' | '|' | '(' | '$')) {
                    continue;
                }
                let word = code[i + "toolprism ".len()..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("");
                let placeholder = word
                    .trim_matches(|c| c == '[' || c == ']')
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_');
                let fine = word.is_empty()
                    || word.starts_with('-')
                    || word == "="
                    || placeholder
                    || subcommands.contains(word)
                    || root().join(word).exists();
                if !fine {
                    wrong.push(format!(
                        "{at}: `toolprism {word}` names no subcommand or path"
                    ));
                }
            }
            // `--flag`: one some subcommand takes.
            for (i, _) in code.match_indices("--") {
                let name: String = code[i + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '-' || c.is_ascii_digit())
                    .collect();
                let after_word = code[..i]
                    .chars()
                    .last()
                    .is_some_and(|c| !matches!(c, ' ' | '(' | '[' | '`'));
                // Only a toolprism command's flags, or a flag named alone (`--budget N`); not
                // cargo's after `-- `.
                let ours = code[..i].contains("toolprism") && !code[..i].contains(" -- ")
                    || code.trim_start().starts_with("--") && !code.trim_start().starts_with("-- ");
                if !name.starts_with(|c: char| c.is_ascii_lowercase()) || after_word || !ours {
                    continue;
                }
                if !flags.contains(&format!("--{name}")) {
                    wrong.push(format!("{at}: `--{name}` is no option of toolprism"));
                }
            }
            // `group.key` (alone, or `group.key=V`): a setting.
            let token = code.trim();
            if let Some((group, _)) = token.split_once('.')
                && groups.contains(&group)
            {
                let key = token.split('=').next().unwrap_or(token);
                let shaped = key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.');
                if shaped
                    && !key.ends_with('.')
                    && !key.contains("KEY")
                    && Settings::KEYS.iter().all(|k| k.key != key)
                    && !key.ends_with(".rs")
                {
                    wrong.push(format!("{at}: `{key}` is no setting"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn export_says_what_a_strategy_needs() {
    let stderr = |args: &[&str]| {
        let out = crate::support::command::toolprism()
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let defer = stderr(&["export", "samples/small.json", "-s", "defer", "-o", "-"]);
    assert_eq!(
        defer,
        "toolprism: defer needs: `tool_search` is added: the host must implement it and answer its calls\n\
         toolprism: defer needs: 4 tools are withheld: the model reaches them only through the host's tool search\n"
    );
    let code = stderr(&["export", "samples/small.json", "-s", "code", "-o", "-"]);
    assert!(
        code.starts_with("toolprism: code needs: `code` does not apply to this capture (")
            && code.ends_with("what is written is the host's fallback, sending no tools\n"),
        "{code}"
    );
    let search = stderr(&["export", "samples/small.json", "-s", "search", "-o", "-"]);
    assert!(
        search.contains("`tool_search_tool_regex` (`tool_search_tool_regex_20251119`) is the provider's own tool")
            && search.contains("8 tools are sent with `defer_loading: true`"),
        "{search}"
    );
    // Nothing is asked of anyone by a strategy that only rewrites descriptions; -q silences.
    assert_eq!(
        stderr(&["export", "samples/small.json", "-s", "minimal", "-o", "-"]),
        ""
    );
    assert_eq!(
        stderr(&[
            "export",
            "samples/small.json",
            "-s",
            "defer",
            "-o",
            "-",
            "-q"
        ]),
        ""
    );
}

/// The README's first screen (24 lines) is for a newcomer: the two commands that run it and
/// its tests, how to install, and the three questions with the command for each, `mcp` said
/// to open the view on a terminal; docs/ has an index.
#[test]
fn the_readme_first_screen_says_how_to_install_and_what_it_answers() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first: String = readme.lines().take(24).collect::<Vec<_>>().join("\n");
    let top: Vec<&str> = readme.lines().take(6).collect();
    assert!(
        top.iter()
            .any(|l| l.starts_with("cargo run ") && l.contains("samples/")),
        "{top:?}"
    );
    assert!(top.iter().any(|l| l.starts_with("cargo test")), "{top:?}");
    for needed in [
        "cargo install --path .",
        "target/release/toolprism",
        "`toolprism mcp`",
        "on a terminal it opens the interactive view",
        "`toolprism record -- claude`",
        "`toolprism session trace.jsonl`",
        "opens the matrix",
        "tool search",
    ] {
        assert!(first.contains(needed), "{needed} in:\n{first}");
    }
    assert!(root().join("docs/README.md").is_file());
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    for doc in doc_files().iter().filter(|d| d.starts_with("docs/")) {
        let name = doc.file_name().unwrap().to_string_lossy().into_owned();
        if name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "{name} in docs/README.md"
            );
        }
    }
}
