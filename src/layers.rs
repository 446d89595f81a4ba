//! The engine's layers, lowest first, and a test that keeps its imports one-way: a module may
//! name modules of its own layer or below, never above. The TUI is the top layer; nothing in
//! the engine names it.

/// Every top-level module of the library, by layer, lowest first.
const LAYERS: &[&[&str]] = &[
    // Leaves: text for people, the sanitizer, load errors, notes, JSON as a writer wrote it,
    // the processes toolprism started.
    &[
        "text",
        "sanitize",
        "error",
        "note",
        "written",
        "descendants",
    ],
    // What a request holds: the capture, one tool entry, traces of many requests.
    &["capture", "tool", "tool_changes", "trace"],
    // The models over a capture: projections, measuring, settings, the strategy ids.
    &[
        "projection",
        "measure",
        "compact",
        "settings",
        "strategy",
        "setting_key",
    ],
    // The origins' rules.
    &["strategies"],
    // Running a strategy on a capture.
    &["pipeline"],
    // What users read: reports, the matrix, diffs, exports, sessions.
    &["report", "matrix", "diff", "export", "session", "memo"],
    // The user's MCP servers: their configs, their tools as each host sends them, figures
    // per server (over reports).
    &["mcp"],
    // Recording a session (feature `record`): the proxy that writes traces.
    &["record"],
    // The terminal.
    &["tui"],
];

/// Files that describe the layers rather than belong to one.
const NOT_IN_A_LAYER: &[&str] = &["lib.rs", "layers.rs"];

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::{LAYERS, NOT_IN_A_LAYER};

    fn layer_of(module: &str) -> Option<usize> {
        LAYERS.iter().position(|layer| layer.contains(&module))
    }

    fn src() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
    }

    /// The engine's source files (everything under `src/` but the TUI, the CLI and the
    /// binary's `main.rs`, which sit above the library's layers), with their top-level module.
    fn engine_files() -> Vec<(String, PathBuf)> {
        let mut files = Vec::new();
        let mut stack = vec![src()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
                let path = entry.expect("a directory entry").path();
                let relative = path.strip_prefix(src()).expect("under src/");
                let top = relative
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                    .unwrap_or_default()
                    .trim_end_matches(".rs")
                    .to_owned();
                if matches!(top.as_str(), "tui" | "cli" | "main") {
                    continue;
                }
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !NOT_IN_A_LAYER.contains(&relative.to_str().unwrap_or_default())
                {
                    files.push((top, path));
                }
            }
        }
        files.sort();
        files
    }

    /// The names `lib.rs` re-exports at the crate root, with the module each comes from
    /// (`crate::Strategy` is a use of `strategy`).
    fn root_reexports(lib: &str) -> BTreeMap<String, String> {
        let mut names = BTreeMap::new();
        for statement in lib.split(';') {
            let Some(rest) = statement.trim().strip_prefix("pub use ") else {
                continue;
            };
            let Some((module, items)) = rest.split_once("::") else {
                continue;
            };
            for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
                names.insert(item.trim().to_owned(), module.trim().to_owned());
            }
        }
        names
    }

    /// The code of a Rust file without its comments (doc links name modules without using
    /// them).
    fn without_comments(text: &str) -> String {
        text.lines()
            .map(|line| line.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The first path segment after each `crate::` in `code`; in a group
    /// (`crate::{a::X, b::{Y, Z}}`) the first segment of each of its paths.
    fn crate_paths(code: &str) -> Vec<String> {
        let mut names = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 1;
                let mut start_of_path = true;
                let mut name = String::new();
                for c in group.chars() {
                    if depth == 1 && start_of_path && (c.is_alphanumeric() || c == '_') {
                        name.push(c);
                        continue;
                    }
                    if !name.is_empty() {
                        names.push(std::mem::take(&mut name));
                        start_of_path = false;
                    }
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 1 => start_of_path = true,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(name);
            }
        }
        names
    }

    /// The first segment of each path that leaves the file's top-level module through
    /// `super::`: in a top-level file (`src/x.rs`, `src/x/mod.rs`) `super::name` is
    /// `crate::name`; `depth` levels down it takes one `super::` more (a single `super::` in
    /// `src/x/y.rs` is `x` itself).
    fn super_paths(code: &str, relative: &Path) -> Vec<String> {
        // An inline module's `super::` (the tests' `use super::*`) is the file itself: the
        // tests come last, and are left out.
        let code = code.split("#[cfg(test)]").next().unwrap_or_default();
        let levels = relative.components().count() - usize::from(relative.ends_with("mod.rs"));
        let prefix = "super::".repeat(levels);
        let is_name = |c: char| c.is_alphanumeric() || c == '_';
        let mut paths = String::new();
        for (at, _) in code.match_indices(&prefix) {
            // Only where a path starts, and only as many `super::` as lead to the root.
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| is_name(c) || c == ':')
                || code[at + prefix.len()..].starts_with("super::")
            {
                continue;
            }
            paths.push_str(" crate::");
            paths.push_str(&code[at + prefix.len()..]);
        }
        let mut names = crate_paths(&paths);
        names.retain(|name| !name.is_empty());
        names
    }

    /// Every use of a module of a higher layer, as `file: module -> module`.
    fn upward_uses(extra: Option<(&str, &str)>) -> Vec<String> {
        let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
        let reexports = root_reexports(&without_comments(&lib));
        let mut found = Vec::new();
        for (top, path) in engine_files() {
            let mut code = without_comments(&std::fs::read_to_string(&path).expect("readable"));
            if let Some((file, line)) = extra
                && path.ends_with(file)
            {
                code.push_str(line);
            }
            let from = layer_of(&top).unwrap_or_else(|| panic!("module `{top}` has no layer"));
            let relative = path.strip_prefix(src()).expect("under src/");
            let mut names = crate_paths(&code);
            names.extend(super_paths(&code, relative));
            for name in names {
                let module = reexports.get(&name).cloned().unwrap_or(name);
                match layer_of(&module) {
                    Some(to) if to > from => {
                        found.push(format!("{}: {top} -> {module}", path.display()));
                    }
                    Some(_) => {}
                    None => panic!(
                        "{}: `crate::{module}` names no layered module",
                        path.display()
                    ),
                }
            }
        }
        found
    }

    #[test]
    fn every_library_module_has_a_layer() {
        let lib = without_comments(&std::fs::read_to_string(src().join("lib.rs")).unwrap());
        let declared: Vec<&str> = lib
            .lines()
            .filter_map(|line| line.trim().strip_prefix("pub mod "))
            .chain(
                lib.lines()
                    .filter_map(|line| line.trim().strip_prefix("mod ")),
            )
            .map(|rest| rest.trim_end_matches(';').trim())
            .filter(|module| *module != "layers")
            .collect();
        assert!(declared.len() > 10, "read lib.rs's modules: {declared:?}");
        for module in declared {
            assert!(layer_of(module).is_some(), "module `{module}` has no layer");
        }
    }

    #[test]
    fn the_engine_imports_only_downwards() {
        assert_eq!(upward_uses(None), Vec::<String>::new());
    }

    #[test]
    fn an_upward_import_is_caught() {
        // A group import, a re-exported root name and a plain path, each going up.
        let cases = [
            "\nuse crate::{tool, pipeline::project};\n",
            "\nfn f() -> crate::Strategy { todo!() }\n",
            "\nfn g() { crate::report::report(); }\n",
            "\nuse super::{tool, pipeline::project};\n",
            "\nfn h() { super::report::report(); }\n",
        ];
        for line in cases {
            let found = upward_uses(Some(("src/capture.rs", line)));
            assert_eq!(found.len(), 1, "{line}: {found:?}");
        }
        // Two levels down, one `super::` is the file's own module; two leave it.
        let deeper = (
            "src/mcp/by_server.rs",
            "\nfn k() { super::super::record::x(); }\n",
        );
        assert_eq!(upward_uses(Some(deeper)).len(), 1);
        let own = ("src/mcp/by_server.rs", "\nuse super::config::Server;\n");
        assert_eq!(upward_uses(Some(own)), Vec::<String>::new());
    }
}
