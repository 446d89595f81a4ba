//! Settings as an identity: two settings are one key (of the memo, of the printed `settings`)
//! exactly when every key is, and what a strategy reads beyond its tool list is what its module
//! declares.

use std::collections::BTreeSet;
use std::hash::{BuildHasher, RandomState};

use toolprism::capture::Capture;
use toolprism::settings::Settings;
use toolprism::strategies::registry::reads;
use toolprism::strategy::{Input, Strategy};

/// A value `key` takes other than its default: another choice, another number, another name.
fn other_value(key: &toolprism::setting_key::SettingKey) -> String {
    let default = key.default_value();
    let next = default.parse::<usize>().map(|n| (n + 1).to_string());
    let choices = key
        .choices()
        .unwrap_or_default()
        .iter()
        .map(|c| (*c).to_owned());
    let candidates = choices.chain(next).chain(
        [
            "7",
            "zz__",
            "ctx_expand",
            "a prompt",
            "0.3",
            "7m",
            "vocabulary",
            "true",
        ]
        .map(String::from),
    );
    candidates
        .into_iter()
        .find(|v| {
            let mut s = Settings::default();
            s.set(key.key, v).is_ok() && s.get(key.key) != Some(default.clone())
        })
        .unwrap_or_else(|| panic!("no other value found for {}", key.key))
}

#[test]
fn every_setting_changes_the_memo_key_and_the_printed_settings() {
    let hasher = RandomState::new();
    let default = Settings::default();
    for key in Settings::KEYS {
        let mut changed = Settings::default();
        let value = other_value(key);
        changed.set(key.key, &value).unwrap();
        assert_ne!(changed, default, "{}={value} leaves the key alone", key.key);
        assert_ne!(
            hasher.hash_one(&changed),
            hasher.hash_one(&default),
            "{}={value} hashes as the default",
            key.key
        );
        assert_ne!(
            changed.to_string(),
            default.to_string(),
            "{}={value} prints as the default",
            key.key
        );
        // What is printed (the JSON `settings`: a key with no value is null) is what is in
        // force: read back, it is the same settings.
        let mut replayed = Settings::default();
        for (name, value) in toolprism::report::settings_map(&changed) {
            if let Some(value) = value.as_str() {
                replayed.set(&name, value).unwrap();
            }
        }
        assert_eq!(
            replayed, changed,
            "{} does not survive its own print",
            key.key
        );
    }
}

#[test]
fn a_number_set_to_the_releases_value_is_not_the_release_following_it() {
    // `vtcode.release=0.169.2` gives progressive 1024 by the release; `search` pins its own
    // release and reads 1500 unless `vtcode.progressive` was set.
    let mut by_release = Settings::default();
    by_release.apply("vtcode.release=0.169.2").unwrap();
    let mut set = by_release.clone();
    set.apply("vtcode.progressive=1024").unwrap();
    assert_eq!(by_release.progressive_chars(), set.progressive_chars());
    assert_ne!(by_release, set);
    assert_ne!(by_release.to_string(), set.to_string());
    assert_eq!(
        by_release.get("vtcode.progressive").as_deref(),
        Some("auto")
    );
    assert_eq!(set.get("vtcode.progressive").as_deref(), Some("1024"));

    let long = "A sentence of some length here. ".repeat(40);
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [{"name": "mcp__srv__big", "description": long, "input_schema": {"type": "object"}},
                  {"name": "local", "description": long, "input_schema": {"type": "object"}}],
    });
    let capture = Capture::from_bytes(body.to_string().as_bytes()).unwrap();
    let search = |s: &Settings| {
        toolprism::project(&capture, Strategy::Search, s).tools_json(&capture, false)
    };
    assert_ne!(
        search(&by_release),
        search(&set),
        "search reads the two apart, so the memo must too"
    );
    // The release moves the number only while it is not set, in either order.
    let mut later = Settings::default();
    later.apply("vtcode.progressive=700").unwrap();
    later.apply("vtcode.release=0.169.2").unwrap();
    assert_eq!(later.progressive_chars(), 700);
    let mut zero = Settings::default();
    zero.apply("zero.release=2ea36cf").unwrap();
    assert_eq!(
        (zero.defer_threshold(), zero.get("defer.threshold")),
        (10, Some("auto".into()))
    );
}

fn capture(message: &str) -> Capture {
    let tool = |name: &str, text: &str| serde_json::json!({"name": name, "description": text, "input_schema": {"type": "object"}});
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": message}],
        "tools": [
            tool("read_file", "Read a file from disk."),
            tool("run_command", "Run a shell command."),
            tool("search_web", "Search the web for pages."),
            tool("mcp__git__log", "Show the git log of a repository."),
            tool("mcp__git__diff", "Show a diff between two commits."),
            tool("mcp__git__blame", "Show who changed each line."),
            tool("mcp__db__query", "Run a SQL query against the database."),
        ],
    });
    Capture::from_bytes(body.to_string().as_bytes()).unwrap()
}

#[test]
fn what_a_strategy_reads_beyond_its_tools_is_what_its_module_declares() {
    let mut settings = Settings::default();
    settings.apply("adaptive.selector=vocabulary").unwrap();
    let greeting = capture("hi");
    let task = capture("please query the database and show the git diff of main.rs");
    let none = BTreeSet::new();
    let loaded: BTreeSet<String> = ["mcp__git__log".to_owned()].into();
    let sent = |c: &Capture, s: Strategy, l: &BTreeSet<String>| {
        toolprism::pipeline::project_loaded(c, s, &settings, l).tools_json(c, false)
    };
    for strategy in Strategy::ALL {
        let context_differs = sent(&greeting, strategy, &none) != sent(&task, strategy, &none);
        assert_eq!(
            context_differs,
            reads(strategy, Input::Context),
            "{strategy}: reads the conversation, or declares so wrongly"
        );
        let loaded_differs = sent(&task, strategy, &none) != sent(&task, strategy, &loaded);
        assert_eq!(
            loaded_differs,
            reads(strategy, Input::Loaded),
            "{strategy}: reads the loaded set, or declares so wrongly"
        );
    }
}

/// A capture every strategy has something to do with: MCP tools of two servers, long
/// descriptions and parameter descriptions, a `program` gateway, an expand tool, a conversation.
fn rich_capture() -> Capture {
    let long = "Does one thing well. ".repeat(90);
    let param = "The value to use, described at some length here. ".repeat(20);
    let tool = |name: &str| {
        serde_json::json!({"name": name, "description": long, "input_schema": {
            "type": "object",
            "properties": {"value": {"type": "string", "description": param}}}})
    };
    let names = [
        "read_file",
        "bash",
        "program",
        "ctx_expand",
        "mcp__git__log",
        "mcp__git__diff",
        "mcp__git__blame",
        "mcp__db__query",
        "mcp__db__schema",
        "mcp__db__tables",
        "mcp__web__fetch",
        "mcp__web__search",
    ];
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "query the database tables and fetch the page"}],
        "tools": names.map(tool),
    });
    Capture::from_bytes(body.to_string().as_bytes()).unwrap()
}

#[test]
fn a_setting_that_changes_a_projection_declares_that_strategy() {
    let capture = rich_capture();
    let project = |s: Strategy, settings: &Settings| {
        let p = toolprism::project(&capture, s, settings);
        (p.request_json(&capture, false), p.status.word())
    };
    let mut undeclared = Vec::new();
    for key in Settings::KEYS {
        let mut changed = Settings::default();
        changed.set(key.key, &other_value(key)).unwrap();
        // Lower numbers bite harder: a cap of 7 cuts what a cap one higher would not.
        if matches!(key.kind, toolprism::setting_key::ValueKind::Number) {
            changed.set(key.key, "7").unwrap();
        }
        for strategy in Strategy::ALL {
            if project(strategy, &Settings::default()) != project(strategy, &changed)
                && !key.affects(strategy)
            {
                undeclared.push(format!("{} changes {strategy}", key.key));
            }
        }
    }
    assert!(undeclared.is_empty(), "undeclared: {undeclared:?}");
}
