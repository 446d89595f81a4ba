//! The TUI's module graph stays a tree of imports (issue 30): no module of `src/tui` names a
//! module that names it back, directly or through others, and no file grows past the size a
//! reader takes in. A folder module (`app/` with its `mod.rs` and children) is one node: its
//! children are its own parts, and `super::` in a child is the folder module itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most lines a source file of the TUI (or the session analysis) may have.
const MAX_LINES: usize = 800;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every `.rs` file under `dir`, with its path relative to `dir`.
fn rust_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("a readable source folder") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), text));
            }
        }
    }
    files.sort();
    files
}

/// The code of a file without its comments (a doc link names a module without importing it).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of each path after `prefix` in `code`; in a group (`super::{a, b::C}`)
/// the first segment of each of its paths.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    let mut names = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        // `x::super::` is not a path that starts here.
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_name(c) || c == ':')
        {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start, mut name) = (1, true, String::new());
            for c in group.chars() {
                if depth == 1 && start && is_name(c) {
                    name.push(c);
                    continue;
                }
                if !name.is_empty() {
                    names.push(std::mem::take(&mut name));
                    start = false;
                }
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => start = true,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            names.push(rest.chars().take_while(|&c| is_name(c)).collect());
        }
    }
    names
}

/// The TUI's module graph: for each module (a file, or a folder module with its children),
/// the other TUI modules its code names through `super::`, `self::` (in the TUI's own
/// `mod.rs`), `super::super::` (in a folder module's child) or `crate::tui::`.
fn graph(files: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let node = |path: &Path| -> String {
        let first = path
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_owned()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|(p, _)| node(p))
        .filter(|m| m != "mod")
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in files {
        let from = node(path);
        let code = without_comments(text);
        let depth = path.components().count();
        let in_folder_child = depth > 1 && !path.ends_with("mod.rs");
        let mut named = paths_after(&code, "crate::tui::");
        if from == "mod" {
            named.extend(paths_after(&code, "self::"));
        } else if in_folder_child {
            // `super::` is the folder module itself; its siblings are one more level up.
            named.extend(paths_after(&code, "super::super::"));
        } else {
            named.extend(paths_after(&code, "super::"));
        }
        let to = edges.entry(from.clone()).or_default();
        for name in named {
            if name != from && modules.contains(&name) {
                to.insert(name);
            }
        }
    }
    edges
}

/// A cycle of the graph, as its modules in order (the first repeated at the end), if any.
fn a_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0: not visited, 1: on the current path, 2: done.
    fn visit(
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(at.to_owned(), 1);
        path.push(at.to_owned());
        for next in edges.get(at).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|m| m == next).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, edges, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(at.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for start in edges.keys() {
        if state.get(start.as_str()).copied().unwrap_or(0) == 0
            && let Some(cycle) = visit(start, edges, &mut state, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

fn tui_files() -> Vec<(PathBuf, String)> {
    rust_files(&root().join("src/tui"))
}

#[test]
fn the_tui_modules_import_one_another_without_a_cycle() {
    let files = tui_files();
    let edges = graph(&files);
    assert!(edges.len() > 20, "read the TUI's modules: {edges:?}");
    // The routing is at the top: no module names the app but the views over it.
    assert!(edges["app"].contains("matrix") && edges["app"].contains("context"));
    assert_eq!(a_cycle(&edges), None, "the TUI's imports: {edges:#?}");
}

#[test]
fn an_import_cycle_is_caught_in_each_form() {
    let file = |path: &str, text: &str| (PathBuf::from(path), text.to_owned());
    let base = [
        file("mod.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
        file("a.rs", "use super::b::Thing;\n"),
        file("c.rs", "// super::a in a comment is no import\n"),
        file("d/mod.rs", "mod part;\n"),
    ];
    assert_eq!(a_cycle(&graph(&base)), None);
    // Back from b to a: a plain path, a group, `crate::tui::`, and a folder module's child.
    let closing = [
        "fn f() { super::a::g(); }\n",
        "use super::{c, a::Other};\n",
        "fn f() -> crate::tui::a::X { todo!() }\n",
    ];
    for back in closing {
        let mut files = base.to_vec();
        files.push(file("b.rs", back));
        let cycle = a_cycle(&graph(&files));
        assert!(
            cycle
                .as_ref()
                .is_some_and(|c| c.contains(&"a".to_owned()) && c.contains(&"b".to_owned())),
            "{back}: {cycle:?}"
        );
    }
    let mut files = base.to_vec();
    files.push(file("b.rs", "use super::d::Y;\n"));
    files.push(file(
        "d/part.rs",
        "use super::super::a::Z;\nuse super::Own;\n",
    ));
    // a -> b -> d, whose child names a: a cycle through a folder module.
    let cycle = a_cycle(&graph(&files));
    assert!(cycle.is_some_and(|c| c.contains(&"d".to_owned())));
    // In the TUI's own mod.rs, `self::` names a child module.
    let rooted = [
        file("mod.rs", "pub use self::a::Run;\n"),
        file("a.rs", "use crate::tui::b::X;\n"),
        file("b.rs", "use super::a::Y;\n"),
    ];
    assert_eq!(graph(&rooted)["mod"], BTreeSet::from(["a".to_owned()]));
    assert!(a_cycle(&graph(&rooted)).is_some());
}

/// The files under `src/<dirs>` longer than `max` lines, with their lengths.
fn too_long(dirs: &[&str], max: usize) -> Vec<String> {
    let mut found = Vec::new();
    for dir in dirs {
        for (path, text) in rust_files(&root().join("src").join(dir)) {
            let lines = text.lines().count();
            if lines > max {
                found.push(format!("src/{dir}/{}: {lines} lines", path.display()));
            }
        }
    }
    found
}

#[test]
fn no_tui_file_is_over_800_lines() {
    assert_eq!(too_long(&["tui"], MAX_LINES), Vec::<String>::new());
}

#[test]
fn no_tui_or_session_file_is_over_800_lines() {
    assert_eq!(
        too_long(&["tui", "session"], MAX_LINES),
        Vec::<String>::new()
    );
}

#[test]
fn a_long_file_is_caught_in_a_folder_too() {
    let found = too_long(&["tui"], 100);
    assert!(
        found.iter().any(|f| f.starts_with("src/tui/app/mod.rs: ")),
        "{found:?}"
    );
    assert!(found.iter().all(|f| f.starts_with("src/tui/")), "{found:?}");
}
