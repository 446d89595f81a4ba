//! The inspector driven without a terminal: keys and mouse go through the real key table and
//! `update`, frames are drawn into ratatui's `TestBackend`, and the main screens are kept as
//! insta snapshots at several sizes.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use toolprism::export::Inputs;
use toolprism::matrix::{Mark, Sort, SortColumn, TotalRow};
use toolprism::measure::Encoding;
use toolprism::tui::app::{Overlay, Tab};
use toolprism::tui::dialogs::export::ExportDialog;
use toolprism::tui::dialogs::settings::SettingsDialog;
use toolprism::tui::state::{Detail, Pane, SortKey};
use toolprism::tui::worker::Worker;
use toolprism::tui::{App, Effect, Msg, WriteError, update, write_export};
use toolprism::{Capture, Settings, Strategy};

const SAMPLE: &str = include_str!("fixtures/tui-sample.json");

struct Harness {
    app: App,
    worker: Worker,
}

impl Harness {
    fn with(json: &str, settings: Settings, color: bool) -> Harness {
        Harness::named(json, "tests/fixtures/tui-sample.json", settings, color)
    }

    fn named(json: &str, path: &str, settings: Settings, color: bool) -> Harness {
        let capture = Arc::new(Capture::from_bytes(json.as_bytes()).expect("sample loads"));
        let mut app = App::new(
            capture.clone(),
            path.into(),
            settings,
            Encoding::O200kBase,
            color,
        );
        // Frames must not depend on where the tests run.
        app.ctx.cwd = "/work/project".into();
        app.ctx.home = Some("/home/user".into());
        let mut h = Harness {
            app,
            worker: Worker::new(capture),
        };
        h.settle();
        h
    }

    fn new() -> Harness {
        Harness::with(SAMPLE, Settings::default(), false)
    }

    /// Run the computations the app asked for, synchronously, and feed the results back.
    fn settle(&mut self) {
        loop {
            let effects = std::mem::take(&mut self.app.effects);
            if effects.is_empty() {
                return;
            }
            for effect in effects {
                if let Effect::Compute(job) = effect {
                    let mut out = Vec::new();
                    self.worker.run(&job, &mut |m| out.push(m), &mut || false);
                    for m in out {
                        update(&mut self.app, Msg::Worker(m));
                    }
                } else {
                    self.app.effects.push(effect);
                    return;
                }
            }
        }
    }

    /// Press keys: plain characters, or `<tab>`, `<enter>`, `<esc>`, `<down>`, `<up>`, `<bs>`,
    /// `<c-c>`.
    fn keys(&mut self, script: &str) -> &mut Harness {
        let mut rest = script;
        while let Some(c) = rest.chars().next() {
            let (code, mods, len) = if c == '<' {
                let end = rest.find('>').expect("closed key name");
                let name = &rest[1..end];
                let (code, mods) = match name {
                    "tab" => (KeyCode::Tab, KeyModifiers::NONE),
                    "enter" => (KeyCode::Enter, KeyModifiers::NONE),
                    "esc" => (KeyCode::Esc, KeyModifiers::NONE),
                    "down" => (KeyCode::Down, KeyModifiers::NONE),
                    "up" => (KeyCode::Up, KeyModifiers::NONE),
                    "bs" => (KeyCode::Backspace, KeyModifiers::NONE),
                    "pgdn" => (KeyCode::PageDown, KeyModifiers::NONE),
                    "c-c" => (KeyCode::Char('c'), KeyModifiers::CONTROL),
                    "c-u" => (KeyCode::Char('u'), KeyModifiers::CONTROL),
                    "c-w" => (KeyCode::Char('w'), KeyModifiers::CONTROL),
                    "c-p" => (KeyCode::Char('p'), KeyModifiers::CONTROL),
                    "home" => (KeyCode::Home, KeyModifiers::NONE),
                    "end" => (KeyCode::End, KeyModifiers::NONE),
                    "left" => (KeyCode::Left, KeyModifiers::NONE),
                    "lt" => (KeyCode::Char('<'), KeyModifiers::NONE),
                    other => panic!("unknown key <{other}>"),
                };
                (code, mods, end + 1)
            } else {
                (KeyCode::Char(c), KeyModifiers::NONE, c.len_utf8())
            };
            update(&mut self.app, Msg::Key(KeyEvent::new(code, mods)));
            self.settle();
            rest = &rest[len..];
        }
        self
    }

    fn resize(&mut self, w: u16, h: u16) -> &mut Harness {
        update(&mut self.app, Msg::Resize(w, h));
        self
    }

    fn draw(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        self.resize(w, h);
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
        terminal
            .draw(|f| toolprism::tui::view::render(&self.app, f))
            .expect("draws");
        terminal
    }

    fn screen(&mut self, w: u16, h: u16) -> String {
        let terminal = self.draw(w, h);
        let buffer = terminal.backend().buffer();
        let mut out = String::new();
        for y in 0..h {
            for x in 0..w {
                out.push_str(buffer[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    fn click(&mut self, column: u16, row: u16) {
        update(
            &mut self.app,
            Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column,
                row,
                modifiers: KeyModifiers::NONE,
            }),
        );
    }

    fn wheel(&mut self, down: bool, column: u16, row: u16) {
        let kind = if down {
            MouseEventKind::ScrollDown
        } else {
            MouseEventKind::ScrollUp
        };
        update(
            &mut self.app,
            Msg::Mouse(MouseEvent {
                kind,
                column,
                row,
                modifiers: KeyModifiers::NONE,
            }),
        );
    }

    fn selected_name(&self) -> String {
        let strategy = self.app.strategy();
        let projection = self.app.ctx.projection(strategy).expect("projected");
        projection.outcomes[self.app.selected_outcome().expect("a selection")]
            .name
            .to_string()
    }
}

fn snapshot(name: &str, h: &mut Harness, w: u16, height: u16) {
    let terminal = h.draw(w, height);
    insta::assert_snapshot!(name, terminal.backend());
}

// ---- snapshots of the main screens -------------------------------------------------------

#[test]
fn overview_screens() {
    let mut h = Harness::new();
    h.keys("o");
    snapshot("overview_120x35", &mut h, 120, 35);
    snapshot("overview_80x24", &mut h, 80, 24);
    snapshot("overview_40x10", &mut h, 40, 10);
}

#[test]
fn strategy_screens() {
    let mut h = Harness::new();
    h.keys("3");
    snapshot("progressive_entries_120x35", &mut h, 120, 35);
    snapshot("progressive_entries_80x24", &mut h, 80, 24);
    h.keys("r");
    snapshot("progressive_request_80x24", &mut h, 80, 24);
    // minimal changes every description: the diffs have something to show.
    h.keys("4ejjjjjd");
    assert_eq!(h.selected_name(), "mcp__github__create_issue");
    snapshot("minimal_diff_unified_120x35", &mut h, 120, 35);
    snapshot("minimal_diff_unified_80x24", &mut h, 80, 24);
    h.keys("d");
    snapshot("minimal_diff_split_120x35", &mut h, 120, 35);
}

#[test]
fn added_text_screens() {
    let mut settings = Settings::default();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, false);
    h.keys("0a");
    snapshot("defer_added_120x35", &mut h, 120, 35);
    h.keys("G");
    snapshot("defer_tool_search_120x35", &mut h, 120, 35);
}

#[test]
fn dialogs() {
    let mut h = Harness::new();
    h.keys("?");
    snapshot("help_80x24", &mut h, 80, 24);
    h.keys("<esc>S");
    snapshot("settings_120x35", &mut h, 120, 35);
    h.keys("<esc>2x");
    snapshot("export_80x24", &mut h, 80, 24);
    h.keys("<esc>/git");
    snapshot("search_80x24", &mut h, 80, 24);
}

#[test]
fn tiny_terminals() {
    let mut h = Harness::new();
    snapshot("too_small_20x5", &mut h, 20, 5);
    snapshot("too_small_1x1", &mut h, 1, 1);
}

/// Every screen at the four sizes the issue names, as whole frames.
#[test]
fn every_screen_at_the_four_sizes() {
    let screens = [
        ("matrix", ""),
        ("overview", "o"),
        ("strategy_entries", "4"),
        ("strategy_diff", "4d"),
        ("strategy_request", "4r"),
        ("help", "?"),
        ("settings", "S"),
        ("export", "4x"),
    ];
    for (name, script) in screens {
        let mut h = Harness::new();
        h.keys(script);
        for (w, hh) in [(200, 50), (120, 35), (80, 24), (40, 12)] {
            snapshot(&format!("screen_{name}_{w}x{hh}"), &mut h, w, hh);
        }
    }
}

/// The screens README.md shows (its pictures are checked against these snapshots by
/// `tests/cli.rs`): the home screen and the overview of `samples/large.json`.
#[test]
fn readme_screens_of_the_large_sample() {
    let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/large.json"))
        .expect("the sample");
    let mut h = Harness::named(&json, "samples/large.json", Settings::default(), false);
    snapshot("readme_matrix_large_120x35", &mut h, 120, 35);
    h.keys("o");
    snapshot("readme_overview_large_120x35", &mut h, 120, 35);
}

// ---- the matrix, the home screen ---------------------------------------------------------

#[test]
fn matrix_screens() {
    let mut h = Harness::new();
    snapshot("matrix_200x50", &mut h, 200, 50);
    snapshot("matrix_120x35", &mut h, 120, 35);
    snapshot("matrix_80x24", &mut h, 80, 24);
    snapshot("matrix_40x12", &mut h, 40, 12);
    // Panned to the last strategy at 80 columns: the hidden ones are counted on the left.
    h.resize(80, 24).keys("lllllllllll");
    snapshot("matrix_panned_80x24", &mut h, 80, 24);
}

#[test]
fn matrix_rows_are_the_costliest_first_and_cells_carry_marks() {
    let mut settings = Settings::default();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, false);
    let m = h.app.matrix();
    let names: Vec<&str> = (0..m.shown.len()).map(|i| m.name(i).unwrap()).collect();
    // Eight capture tools, then the tool_search that the defer strategies add.
    assert_eq!(names.len(), 10);
    let mut added = names[8..].to_vec();
    added.sort_unstable();
    assert_eq!(added, ["tool_search", "tool_search_tool_regex"]);
    let tokens: Vec<usize> = (0..8)
        .map(|i| m.row(i).unwrap().original_tokens.expect("counted"))
        .collect();
    assert!(tokens.windows(2).all(|w| w[0] >= w[1]), "{tokens:?}");
    // `original` is the capture's own column, not a strategy column.
    assert_eq!(m.columns.len(), Strategy::ALL.len() - 1);
    assert_eq!(
        Some(m.model.original.total_tokens),
        h.app.ctx.capture_tokens()
    );
    let col = |s: Strategy| {
        let c = toolprism::tui::matrix::strategies()
            .iter()
            .position(|&x| x == s)
            .unwrap();
        m.columns[c].expect("measured")
    };
    // shorten sends every tool of this sample unchanged, at its original size.
    for i in 0..8 {
        let row = m.row(i).unwrap();
        let cell = row.cells[col(Strategy::Shorten)];
        assert_eq!(
            (cell.tokens, cell.mark),
            (row.original_tokens, Mark::Kept),
            "{}",
            row.name
        );
    }
    // tool_search exists only where a strategy adds it.
    let search = m.row(8).unwrap();
    assert_eq!(search.cells[col(Strategy::Defer)].mark, Mark::Added);
    assert_eq!(search.cells[col(Strategy::Full)].mark, Mark::Absent);
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("=unchanged") || screen.contains("= unchanged"),
        "the legend is on screen:\n{screen}"
    );
}

#[test]
fn matrix_cursor_sorts_filters_opens_and_exports_its_column() {
    let mut h = Harness::new();
    h.resize(200, 50);
    let minimal = Strategy::ALL
        .iter()
        .position(|&s| s == Strategy::Minimal)
        .unwrap();
    for _ in 0..minimal {
        h.keys("l");
    }
    assert_eq!(h.app.strategy(), Strategy::Minimal);
    h.keys("j");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 1);
    let selected = |h: &Harness| {
        h.app
            .matrix()
            .name(h.app.matrix_tab.cursor.rows.selected)
            .unwrap()
            .to_owned()
    };
    let before = selected(&h);
    // s sorts by the cursor's column, largest first, and keeps the selected tool selected
    // (as lazygit and k9s do), wherever the new order puts it.
    h.keys("s");
    assert_eq!(
        h.app.matrix_tab.sort,
        Sort {
            column: SortColumn::Strategy(Strategy::Minimal),
            descending: true
        }
    );
    assert_eq!(selected(&h), before);
    h.keys("s");
    assert_eq!(selected(&h), before, "the other way round too");
    h.keys("s");
    h.keys("g");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    let sent = |h: &Harness| -> Vec<usize> {
        let m = h.app.matrix();
        let c = m.columns[minimal - 1].unwrap();
        (0..m.shown.len())
            .map(|i| m.row(i).unwrap().cells[c].tokens.unwrap_or(0))
            .collect()
    };
    let down = sent(&h);
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "{down:?}");
    assert!(h.screen(200, 50).contains("▼minimal"));
    h.keys("s");
    let up = sent(&h);
    assert!(up.windows(2).all(|w| w[0] <= w[1]), "{up:?}");
    assert!(h.screen(200, 50).contains("▲minimal"));
    // f keeps the tools minimal changes (all eight: it rewrites every schema), and the
    // status line gives the filtered subtotal.
    h.keys("f");
    assert_eq!(h.app.matrix_tab.changed_by, Some(Strategy::Minimal));
    let m = h.app.matrix();
    let c = m.columns[minimal - 1].unwrap();
    assert_eq!(m.shown.len(), 8);
    assert!((0..8).all(|i| m.row(i).unwrap().cells[c].mark.is_change()));
    let (original, per_column) = m.subtotal();
    // Any key clears the transient message that confirmed the filter.
    h.keys("jk");
    let status = h.screen(200, 50).lines().nth(48).unwrap().to_owned();
    assert!(
        status.contains(&format!(
            "8 of 10 tools · original {} tokens → minimal {} tokens · changed by minimal",
            toolprism::text::thousands(original),
            toolprism::text::thousands(per_column[minimal - 1])
        )),
        "{status}"
    );
    // Enter opens that tool under that strategy.
    let name = m
        .name(h.app.matrix_tab.cursor.rows.selected)
        .unwrap()
        .to_owned();
    h.keys("<enter>");
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Minimal));
    assert_eq!(h.selected_name(), name);
    // Esc goes back to the matrix, its cursor where it was.
    h.keys("<esc>");
    assert_eq!(h.app.tab, Tab::Matrix);
    assert_eq!(h.app.strategy(), Strategy::Minimal);
    // Esc clears the f filter, then does nothing (the home screen never quits on Esc).
    h.keys("<esc>");
    assert_eq!(h.app.matrix_tab.changed_by, None);
    h.keys("<esc>");
    assert!(!h.app.quit);
    // x exports the cursor's strategy.
    h.keys("x");
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Export(ExportDialog {
            strategy: Strategy::Minimal,
            ..
        }))
    ));
}

#[test]
fn matrix_search_ranks_the_exact_name_first() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("/git<enter>");
    let m = h.app.matrix();
    let names: Vec<&str> = (0..m.shown.len()).map(|i| m.name(i).unwrap()).collect();
    assert_eq!(
        names,
        vec![
            "git",
            "mcp__github__create_issue",
            "mcp__github__list_pull_requests"
        ]
    );
    // The search text is highlighted in every name shown: "git" three times.
    let found = toolprism::tui::theme::Theme::new(false).found();
    let terminal = h.draw(120, 35);
    let highlighted: String = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .filter(|c| c.modifier == found.add_modifier)
        .map(ratatui::buffer::Cell::symbol)
        .collect();
    assert_eq!(highlighted, "gitgitgit");
    h.keys("<esc>");
    // The eight capture tools and the two that defer and search add.
    assert_eq!(h.app.matrix().shown.len(), 10);
}

#[test]
fn a_refused_strategy_reads_refused_and_cannot_be_exported() {
    let json = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[
        {"name":"a","description":"first","input_schema":{"type":"object"}},
        {"name":"a","description":"second","input_schema":{"type":"object"}}]}"#;
    let mut h = Harness::with(json, Settings::default(), false);
    let direct = Strategy::ALL
        .iter()
        .position(|&s| s == Strategy::Direct)
        .unwrap();
    let m = h.app.matrix();
    let c = m.columns[direct - 1].unwrap();
    assert_eq!(m.row(0).unwrap().cells[c].mark, Mark::Refused);
    assert_eq!(m.model.total_text(Some(c), TotalRow::TotalSent), "refused");
    for _ in 0..direct {
        h.keys("l");
    }
    assert_eq!(h.app.strategy(), Strategy::Direct);
    assert!(h.screen(200, 50).contains("refused"));
    h.keys("x");
    assert!(
        h.app.overlay.is_none(),
        "a refused projection has nothing to export"
    );
    assert!(h.screen(200, 50).contains("direct refuses this capture"));
}

#[test]
fn a_strategy_that_does_nothing_says_why_and_names_the_key() {
    let mut h = Harness::new();
    // shorten: the sample has no expand tool, so nothing is shortened.
    h.keys("9");
    let (text, error) = h.app.banner().expect("a banner");
    assert!(
        text.starts_with(
            "shorten does not apply here · S edits shorten.expand_tool · no expand tool in the \
             capture"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("press S and set shorten.expand_tool=ctx_expand to see what it would do"),
        "{text}"
    );
    assert!(!error);
    let screen = h.screen(120, 35);
    assert!(
        screen
            .lines()
            .nth(2)
            .unwrap()
            .starts_with(" shorten does not apply here · S edits shorten.expand_tool · "),
        "{screen}"
    );
    // The note that says so names the key, not a CLI flag.
    assert!(!screen.contains("--set"), "{screen}");
    // S opens the settings on that key.
    h.keys("S");
    let at = Settings::KEYS
        .iter()
        .position(|k| k.key == "shorten.expand_tool")
        .unwrap();
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Settings(SettingsDialog { selected, .. })) if selected == at
    ));
    // A strategy that acts has no banner; nor has the baseline.
    h.keys("<esc>4");
    assert_eq!(h.app.banner(), None);
    h.keys("1");
    assert_eq!(h.app.banner(), None);
}

#[test]
fn a_refused_strategy_has_an_error_banner() {
    let json = r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[
        {"name":"a","description":"first","input_schema":{"type":"object"}},
        {"name":"a","description":"second","input_schema":{"type":"object"}}]}"#;
    let mut h = Harness::with(json, Settings::default(), false);
    h.keys("5");
    let (text, error) = h.app.banner().expect("a banner");
    assert!(error);
    assert!(
        text.starts_with("direct refuses this capture: a3s code refuses this tool list"),
        "{text}"
    );
    // Nothing is sent and nothing is pending: its figure cells are dashes, not the "still
    // computing" mark.
    let screen = h.screen(200, 30);
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("removed")).collect();
    assert!(!rows.is_empty(), "{screen}");
    assert!(rows.iter().all(|l| !l.contains('…')), "{screen}");
}

#[test]
fn choices_toggle_and_the_header_says_settings_changed() {
    let mut h = Harness::new();
    assert!(!h.screen(120, 50).contains("setting changed"));
    let at = Settings::KEYS
        .iter()
        .position(|k| k.key == "defer.eligible")
        .unwrap();
    h.keys("S");
    for _ in 0..at {
        h.keys("j");
    }
    // Enter moves a choice to its next value at once: no text to type.
    h.keys("<enter>");
    assert_eq!(
        h.app.ctx.settings.get("defer.eligible").as_deref(),
        Some("all")
    );
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Settings(SettingsDialog { editing: None, .. }))
    ));
    // 50 rows: with the session's cache.* settings the overlay fills a 35-row screen.
    let header = h.screen(120, 50).lines().next().unwrap().to_owned();
    assert!(header.contains("[1 setting changed]"), "{header}");
    h.keys("<enter>");
    assert_eq!(
        h.app.ctx.settings.get("defer.eligible").as_deref(),
        Some("mcp")
    );
    assert!(!h.screen(120, 50).contains("setting changed"));
}

#[test]
fn z_gives_the_detail_the_whole_screen() {
    let mut h = Harness::new();
    h.keys("4z");
    assert!(h.app.strategy_tab.zoom);
    assert_eq!(h.app.strategy_tab.focus, Pane::Detail);
    let screen = h.screen(120, 35);
    assert!(!screen.contains("Tools · minimal"), "{screen}");
    snapshot("zoomed_entries_120x35", &mut h, 120, 35);
    h.keys("z");
    assert!(h.screen(120, 35).contains("Tools · minimal"));
}

#[test]
fn help_opens_on_this_views_keys_filters_and_lists_the_glyphs() {
    let mut h = Harness::new();
    h.keys("4?");
    let screen = h.screen(120, 35);
    let first = screen.lines().nth(2).unwrap();
    assert!(first.contains("Strategy view (this view)"), "{screen}");
    h.keys("/enlarge");
    let screen = h.screen(120, 35);
    assert!(screen.contains("Keys matching /enlarge▏"), "{screen}");
    assert!(screen.contains("enlarge the detail"), "{screen}");
    assert!(
        !screen.contains("next tool"),
        "only matching lines:\n{screen}"
    );
    // Esc clears the filter, then closes the help; neither quits.
    h.keys("<enter><esc>");
    assert!(matches!(h.app.overlay, Some(Overlay::Help(ref help)) if help.filter.is_empty()));
    h.keys("<esc>");
    assert!(h.app.overlay.is_none() && !h.app.quit);
    // Every glyph is explained, and the filter finds them.
    h.keys("?/deferred<enter>");
    let screen = h.screen(120, 35);
    assert!(screen.contains("Glyphs"), "{screen}");
    assert!(screen.contains("= ~ + × »"), "{screen}");
    snapshot("help_glyphs_120x35", &mut h, 120, 35);
}

#[test]
fn export_dialog_edits_like_a_shell_line_and_expands_the_home_folder() {
    let mut h = Harness::new();
    h.keys("0x");
    let path = |h: &Harness| match &h.app.overlay {
        Some(Overlay::Export(ExportDialog { path, .. })) => (path.text.clone(), path.cursor),
        _ => panic!("export dialog open"),
    };
    // The default is next to the capture, in the folder it was read from.
    assert_eq!(
        path(&h),
        ("tests/fixtures/tui-sample.defer.json".to_owned(), 36)
    );
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("into /work/project/tests/fixtures"),
        "the folder it lands in, whole:\n{screen}"
    );
    // Home, type at the start; End; Ctrl-W deletes the last word; Ctrl-U all before the cursor.
    h.keys("<c-u><home>~/out/tui-sample.defer.json<home><end>");
    assert_eq!(path(&h), ("~/out/tui-sample.defer.json".to_owned(), 27));
    let screen = h.screen(120, 35);
    assert!(screen.contains("into /home/user/out"), "{screen}");
    h.keys("<c-w>");
    assert_eq!(path(&h), ("~/out/".to_owned(), 6));
    h.keys("x.json<left><left><left><left><left><left><c-u>");
    assert_eq!(path(&h), ("x.json".to_owned(), 0));
    let screen = h.screen(120, 35);
    assert!(screen.contains("path ▏x.json"), "{screen}");
    assert!(
        screen.contains("into /work/project"),
        "a relative path lands in the working folder:\n{screen}"
    );
    // Tools only says what it leaves out; defer adds a reminder only when it defers, so here
    // the tools array is all there is to say.
    h.keys("<tab>");
    assert!(
        h.screen(120, 35)
            .contains("tools only: the `tools` array alone")
    );
    h.keys("<c-u><end><c-u>~/t.json<enter>");
    let written: Vec<_> = h
        .app
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Write { path, .. } => Some(path.display().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(written, vec!["/home/user/t.json"]);
    snapshot("export_editing_80x24", &mut h, 80, 24);
}

/// The dialog's layouts are the CLI's: as captured (the default), compact (no whitespace: what
/// the tokens count), pretty; `^p` cycles through them and the write is laid out so.
#[test]
fn export_dialog_layouts_are_as_captured_compact_and_pretty() {
    use toolprism::export::Layout;
    let mut h = Harness::new();
    h.keys("2x");
    let layout = |h: &Harness| match &h.app.overlay {
        Some(Overlay::Export(dialog)) => dialog.layout,
        other => panic!("export dialog open: {other:?}"),
    };
    assert_eq!(layout(&h), Layout::AsCaptured);
    h.keys("<c-p>");
    assert_eq!(layout(&h), Layout::Compact);
    h.keys("<c-u>out.json<enter>");
    let bytes = h
        .app
        .effects
        .iter()
        .find_map(|e| match e {
            Effect::Write { bytes, .. } => Some(String::from_utf8(bytes.clone()).unwrap()),
            _ => None,
        })
        .expect("a write");
    let value: serde_json::Value = serde_json::from_str(&bytes).unwrap();
    assert_eq!(
        bytes,
        format!("{}\n", serde_json::to_string(&value).unwrap())
    );
    // The dialog stays open until the write is reported.
    h.keys("<c-p>");
    assert_eq!(layout(&h), Layout::Pretty);
    h.keys("<c-p>");
    assert_eq!(layout(&h), Layout::AsCaptured);
}

#[test]
fn tools_only_says_it_drops_the_added_reminder() {
    let mut settings = Settings::default();
    settings.set("zero.release", "2ea36cf").unwrap();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, false);
    h.keys("0x<tab>");
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("tools only leaves out the text defer adds outside the tools"),
        "{screen}"
    );
}

#[test]
fn y_copies_the_selected_tool_as_escaped_json() {
    let json = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[\
        {\"name\":\"evil\",\"description\":\"a\u{202e}b\",\"input_schema\":{\"type\":\"object\"}}]}";
    let mut h = Harness::with(json, Settings::default(), false);
    let copied = |h: &mut Harness| -> Vec<String> {
        std::mem::take(&mut h.app.effects)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Copy(text) => Some(text),
                _ => None,
            })
            .collect()
    };
    // On the matrix, the capture column copies the original entry.
    h.keys("y");
    assert_eq!(
        copied(&mut h),
        vec![r#"{"name":"evil","description":"a\u202eb","input_schema":{"type":"object"}}"#]
    );
    // In a strategy tab, the entry as that strategy sends it (minimal rewrites it).
    h.keys("4y");
    let text = copied(&mut h);
    assert_eq!(text.len(), 1);
    assert!(!text[0].contains('\u{202e}'), "{}", text[0]);
    let value: serde_json::Value = serde_json::from_str(&text[0]).expect("valid JSON");
    assert_eq!(value["name"], "evil");
    // OSC 52 has no answer: the status says where it was sent, not that it arrived.
    assert!(
        h.screen(120, 35)
            .contains("sent evil (minimal) (90 B) to the terminal's clipboard (OSC 52)")
            || h.screen(120, 35).contains("sent evil (minimal)"),
        "{}",
        h.screen(120, 35)
    );
}

#[test]
fn quitting_asks_when_the_settings_were_changed() {
    let mut settings = Settings::default();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::new();
    // Reset to defaults is no change: q quits at once.
    h.keys("SR<esc>q");
    assert!(h.app.quit);
    let mut h = Harness::new();
    h.app.ctx.settings = settings;
    h.keys("q");
    assert!(!h.app.quit);
    assert_eq!(h.app.overlay, Some(Overlay::QuitConfirm));
    h.keys("n");
    assert!(h.app.overlay.is_none() && !h.app.quit);
    h.keys("qy");
    assert!(h.app.quit);
}

#[test]
fn ctrl_z_asks_the_loop_to_suspend() {
    let mut h = Harness::new();
    update(
        &mut h.app,
        Msg::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL)),
    );
    assert!(matches!(h.app.effects.as_slice(), [Effect::Suspend]));
}

// ---- no panic at any size, on any screen -------------------------------------------------

#[test]
fn every_screen_draws_at_every_size() {
    let sizes = [
        (1, 1),
        (2, 2),
        (10, 3),
        (39, 9),
        (40, 10),
        (41, 11),
        (60, 20),
        (80, 24),
        (109, 30),
        (110, 30),
        (200, 60),
        (300, 12),
        (12, 300),
    ];
    let scripts = [
        "",
        "lllllllllll",
        "/git",
        "o",
        "3",
        "3d",
        "3dd",
        "3r",
        "-a",
        "?",
        "S",
        "Sj<enter>",
        "2x",
        "/zzz",
        "7",
    ];
    for script in scripts {
        let mut h = Harness::new();
        h.keys(script);
        for (w, hh) in sizes {
            h.draw(w, hh);
        }
        // Shrinking and growing again keeps working too.
        for (w, hh) in sizes.iter().rev() {
            h.draw(*w, *hh);
        }
    }
}

// ---- key-driven state ---------------------------------------------------------------------

#[test]
fn overview_navigation_and_opening() {
    let mut h = Harness::new();
    assert_eq!(h.app.tab, Tab::Matrix, "the matrix is the home screen");
    h.keys("o");
    assert_eq!(h.app.tab, Tab::Overview);
    h.keys("jj");
    assert_eq!(h.app.overview.selected(), 2);
    h.keys("k");
    assert_eq!(h.app.overview.selected(), 1);
    h.keys("<enter>");
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Full));
    h.keys("o");
    assert_eq!(h.app.tab, Tab::Overview);
    h.keys("G");
    assert_eq!(h.app.overview.selected(), Strategy::ALL.len() - 1);
    h.keys("g");
    assert_eq!(h.app.overview.selected(), 0);
}

#[test]
fn strategy_keys_and_tabs() {
    let mut h = Harness::new();
    for (i, key) in toolprism::tui::keys::STRATEGY_KEYS.into_iter().enumerate() {
        h.keys(&key.to_string());
        assert_eq!(h.app.tab, Tab::Strategy(Strategy::ALL[i]), "key {key}");
    }
    h.keys("]");
    assert_eq!(h.app.tab, Tab::Matrix);
    h.keys("]");
    assert_eq!(h.app.tab, Tab::Overview);
    h.keys("[[");
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Append));
}

#[test]
fn tool_selection_moves_and_survives_a_strategy_switch() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1jj");
    assert_eq!(h.app.strategy_tab.tools.selected, 2);
    assert_eq!(h.selected_name(), "bash");
    h.keys("2");
    assert_eq!(
        h.selected_name(),
        "bash",
        "same tool under another strategy"
    );
    h.keys("G");
    assert_eq!(h.app.strategy_tab.tools.selected, h.app.rows().len() - 1);
    h.keys("g");
    assert_eq!(h.app.strategy_tab.tools.selected, 0);
    h.keys("<down><down><up>");
    assert_eq!(h.app.strategy_tab.tools.selected, 1);
}

#[test]
fn focus_and_detail_views() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("3");
    assert_eq!(h.app.strategy_tab.focus, Pane::Tools);
    h.keys("<tab>");
    assert_eq!(h.app.strategy_tab.focus, Pane::Detail);
    h.keys("j");
    assert_eq!(
        h.app.strategy_tab.tools.selected, 0,
        "j scrolls the detail, not the table"
    );
    h.keys("<tab>d");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Unified);
    h.keys("d");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Split);
    h.keys("d");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Entries);
    h.keys("r");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Request);
    h.keys("e");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Entries);
}

#[test]
fn search_filters_by_name_and_text_and_esc_clears() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1");
    let all = h.app.rows().len();
    assert_eq!(all, 8);
    h.keys("/github");
    assert!(h.app.search.typing);
    assert_eq!(h.app.rows().len(), 2, "two github tools by name");
    h.keys("<enter>");
    assert!(!h.app.search.typing);
    assert_eq!(h.app.search.input.text, "github");
    // Text search: a word only in a description.
    h.keys("<esc>/knowledge graph");
    assert_eq!(h.app.rows().len(), 1);
    assert_eq!(h.selected_name(), "mcp__memory__store");
    h.keys("<esc>");
    assert_eq!(h.app.rows().len(), all);
    assert!(h.app.search.input.text.is_empty());
    // Backspace widens the match again.
    h.keys("/gitx");
    assert_eq!(h.app.rows().len(), 0);
    h.keys("<bs>");
    assert!(!h.app.rows().is_empty());
    // `q` is text while searching, not quit.
    h.keys("q");
    assert!(!h.app.quit);
    assert_eq!(h.app.search.input.text, "gitq");
}

#[test]
fn sort_cycles_through_every_order() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1");
    assert_eq!(h.app.strategy_tab.sort, SortKey::Original);
    h.keys("s");
    assert_eq!(h.app.strategy_tab.sort, SortKey::Saving);
    h.keys("s");
    assert_eq!(h.app.strategy_tab.sort, SortKey::Size);
    let figures = h
        .app
        .ctx
        .figures(Strategy::Original)
        .expect("measured")
        .clone();
    let sizes: Vec<usize> = h
        .app
        .rows()
        .iter()
        .map(|&i| figures.per_tool[i].original_tokens())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    h.keys("s");
    assert_eq!(h.app.strategy_tab.sort, SortKey::Name);
    let projection = h.app.ctx.projection(Strategy::Original).unwrap().clone();
    let names: Vec<&str> = h
        .app
        .rows()
        .iter()
        .map(|&i| projection.outcomes[i].name.as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    h.keys("s");
    assert_eq!(h.app.strategy_tab.sort, SortKey::Original);
}

#[test]
fn the_search_and_a_setting_value_edit_at_a_cursor_like_the_export_path() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1");
    // The search: a character typed after Home goes first, ^W and ^U delete before the cursor.
    h.keys("/ithub<home>g");
    assert_eq!(h.app.search.input.text, "github");
    assert_eq!(
        h.app.rows().len(),
        2,
        "the text typed at the cursor filters"
    );
    let status = h.screen(120, 35).lines().nth(33).unwrap().to_owned();
    assert!(
        status.contains("/g▏ithub"),
        "the cursor is drawn where it is: {status}"
    );
    h.keys("<end> list<c-w>");
    assert_eq!(h.app.search.input.text, "github ");
    h.keys("<left><c-u>");
    assert_eq!(h.app.search.input.text, " ");
    h.keys("<esc>");
    // A setting's value: the same keys.
    let index = Settings::KEYS
        .iter()
        .position(|k| k.key == "defer.threshold")
        .unwrap();
    h.keys("S");
    for _ in 0..index {
        h.keys("j");
    }
    h.keys("<enter><c-u>12<left>3<end><bs>");
    let Some(Overlay::Settings(SettingsDialog {
        editing: Some(value),
        ..
    })) = &h.app.overlay
    else {
        panic!("a value is being typed");
    };
    assert_eq!((value.text.as_str(), value.cursor), ("13", 2));
    h.keys("<enter>");
    assert_eq!(h.app.ctx.settings.defer_threshold(), 13);
}

#[test]
fn settings_editor_changes_settings_and_recomputes_everything() {
    let mut h = Harness::new();
    let before = h.app.ctx.generation;
    // defer.threshold is the 14th key.
    let index = Settings::KEYS
        .iter()
        .position(|k| k.key == "defer.threshold")
        .unwrap();
    h.keys("S");
    for _ in 0..index {
        h.keys("j");
    }
    h.keys("<enter>");
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Settings(SettingsDialog {
            editing: Some(_),
            ..
        }))
    ));
    // Replace "auto" (the release's 3) by "2".
    h.keys("<bs><bs><bs><bs>2");
    update(
        &mut h.app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    // The app asks for a computation of every strategy under the new settings.
    let jobs: Vec<_> = h
        .app
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Compute(job) => Some(job.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].strategies.len(), Strategy::ALL.len());
    assert_eq!(jobs[0].settings.defer_threshold(), 2);
    h.settle();
    assert_eq!(h.app.ctx.settings.defer_threshold(), 2);
    assert!(h.app.ctx.generation > before);
    for s in Strategy::ALL {
        assert!(
            h.app.ctx.figures(s).is_some(),
            "{s} measured under the new settings"
        );
    }
    // A bad value is refused with the reason and changes nothing.
    h.keys("<enter><bs>x<enter>");
    match &h.app.overlay {
        Some(Overlay::Settings(SettingsDialog { error: Some(e), .. })) => {
            assert!(e.contains("defer.threshold"), "{e}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    assert_eq!(h.app.ctx.settings.defer_threshold(), 2);
    // Esc cancels the edit, R resets every setting.
    h.keys("<esc>R");
    assert_eq!(h.app.ctx.settings, Settings::default());
    h.keys("<esc>");
    assert!(h.app.overlay.is_none());
}

#[test]
fn encoding_switch_is_cached_per_encoding() {
    let mut h = Harness::new();
    let o200k = h.app.ctx.capture_tokens().expect("counted");
    h.keys("E");
    assert_eq!(h.app.ctx.encoding, Encoding::Cl100kBase);
    let cl100k = h.app.ctx.capture_tokens().expect("counted");
    assert_ne!(o200k, cl100k, "the encodings count differently");
    h.keys("E");
    // Back to o200k: everything is cached, no new job is needed.
    assert!(h.app.effects.is_empty());
    assert_eq!(h.app.ctx.capture_tokens(), Some(o200k));
    assert!(!h.app.ctx.is_busy());
}

#[test]
fn export_writes_atomically_and_asks_before_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.json");
    let mut h = Harness::new();
    h.keys("2x");
    let Some(Overlay::Export(ExportDialog { path, .. })) = &h.app.overlay else {
        panic!("export dialog open");
    };
    assert_eq!(path.text, "tests/fixtures/tui-sample.full.json");
    // Replace the default path.
    let clear = "<bs>".repeat(path.text.chars().count());
    h.keys(&clear);
    h.keys(&target.display().to_string().replace('<', "<lt>"));
    h.keys("<enter>");
    let run = |h: &mut Harness| {
        let effects = std::mem::take(&mut h.app.effects);
        for effect in effects {
            if let Effect::Write {
                path,
                bytes,
                overwrite,
                what,
            } = effect
            {
                let result = write_export(&path, &bytes, overwrite, &h.app.ctx.inputs);
                update(&mut h.app, Msg::Written { what, result });
            }
        }
    };
    run(&mut h);
    assert!(h.app.overlay.is_none());
    let (message, error) = h.app.status.clone().expect("a status");
    assert!(!error);
    assert!(message.contains("out.json"), "{message}");
    let written = std::fs::read_to_string(&target).unwrap();
    let value: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert!(value.get("tools").is_some(), "the whole request body");

    // Again, tools only, same path: the file exists, so the app asks first.
    h.keys("x<tab>");
    h.keys("<c-u>");
    h.keys(&target.display().to_string().replace('<', "<lt>"));
    h.keys("<enter>");
    run(&mut h);
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Export(ExportDialog { confirm: true, .. }))
    ));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        written,
        "untouched"
    );
    // No keeps it; yes overwrites.
    h.keys("n");
    assert!(matches!(
        h.app.overlay,
        Some(Overlay::Export(ExportDialog { confirm: false, .. }))
    ));
    h.keys("<enter>");
    run(&mut h);
    h.keys("y");
    run(&mut h);
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(value.is_array(), "tools only");
    assert!(h.app.overlay.is_none());
}

#[test]
fn write_export_refuses_to_clobber() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("x.json");
    std::fs::write(&target, "old").unwrap();
    assert_eq!(
        write_export(&target, b"new", false, &Inputs::new()),
        Err(WriteError::Exists)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    write_export(&target, b"new", true, &Inputs::new()).unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    let missing = dir.path().join("no/such/dir/x.json");
    assert!(matches!(
        write_export(&missing, b"x", false, &Inputs::new()),
        Err(WriteError::Failed(_))
    ));
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
}

#[test]
fn quit_keys() {
    for script in ["q", "<c-c>", "3<esc>q", "S<c-c>", "/abc<c-c>"] {
        let mut h = Harness::new();
        h.keys(script);
        assert!(h.app.quit, "{script} quits");
        // Ctrl-C ends the program as an interruption (exit status 130), q as a quit.
        assert_eq!(h.app.interrupted, script.ends_with("<c-c>"), "{script}");
    }
    // Esc goes back and closes, and never quits.
    for script in [
        "<esc>",
        "<esc><esc><esc>",
        "3<esc><esc>",
        "o<esc><esc>",
        "?<esc><esc>",
    ] {
        let mut h = Harness::new();
        h.keys(script);
        assert!(!h.app.quit, "{script} does not quit");
        assert_eq!(h.app.tab, Tab::Matrix, "{script} ends on the matrix");
    }
    // q closes the help instead of quitting.
    let mut h = Harness::new();
    h.keys("?q");
    assert!(!h.app.quit);
    assert!(h.app.overlay.is_none());
}

#[test]
fn mouse_selects_and_scrolls() {
    let mut h = Harness::new();
    h.keys("o");
    h.draw(120, 35);
    // Overview rows start below the header, the tab bar, the border and the table header.
    h.click(10, 2 + 2 + 3);
    assert_eq!(h.app.overview.selected(), 3);
    h.wheel(true, 10, 8);
    assert_eq!(h.app.overview.selected(), 6);
    // A second click on the chosen row opens it.
    h.click(10, 2 + 2 + 6);
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Code));
    h.keys("o");
    // Click a tab: find where "2 full" is drawn.
    let screen = h.screen(120, 35);
    let tabs_line = screen.lines().nth(1).unwrap();
    let column = tabs_line.find("2 full").unwrap() as u16;
    h.click(column, 1);
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Full));
    // Click the sixth tool row (the one with the longest entry).
    h.click(10, 2 + 2 + 5);
    assert_eq!(h.app.strategy_tab.tools.selected, 5);
    assert_eq!(h.selected_name(), "mcp__github__create_issue");
    assert_eq!(h.app.strategy_tab.focus, Pane::Tools);
    // Wheel over the detail focuses and scrolls it (its scroll range is what was drawn: the
    // event loop draws after every event).
    h.draw(120, 35);
    h.wheel(true, 100, 20);
    assert_eq!(h.app.strategy_tab.focus, Pane::Detail);
    assert!(h.app.strategy_tab.detail.scroll.offset > 0);
    h.wheel(false, 100, 20);
    assert_eq!(h.app.strategy_tab.detail.scroll.offset, 0);
}

// ---- quality bars ------------------------------------------------------------------------

#[test]
fn monochrome_frames_set_no_colour_but_keep_the_selection_visible() {
    for script in ["", "o", "3", "3jd", "3jdd", "3r", "?", "S", "2x", "/git"] {
        let mut h = Harness::new();
        h.keys(script);
        let terminal = h.draw(120, 35);
        let buffer = terminal.backend().buffer();
        let mut reversed = 0;
        for cell in buffer.content() {
            assert_eq!(
                cell.fg,
                Color::Reset,
                "{script}: fg colour at {:?}",
                cell.symbol()
            );
            assert_eq!(cell.bg, Color::Reset, "{script}: bg colour");
            if cell.modifier.contains(ratatui::style::Modifier::REVERSED) {
                reversed += 1;
            }
        }
        assert!(reversed > 0, "{script}: something is shown reversed");
    }
}

#[test]
fn colour_theme_uses_colour() {
    let mut h = Harness::with(SAMPLE, Settings::default(), true);
    h.keys("3");
    let terminal = h.draw(120, 35);
    assert!(
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .any(|c| c.fg != Color::Reset)
    );
}

#[test]
fn hostile_text_never_reaches_the_buffer_raw() {
    let mut h = Harness::new();
    // ESC, RLO and ZWSP in mcp__memory__store; line breaks elsewhere are not flagged.
    assert_eq!(h.app.ctx.hidden_in(7), 3);
    assert_eq!(h.app.ctx.hidden_in(0), 0);
    h.keys("1/memory");
    for script in ["<enter>", "d", "d", "r"] {
        h.keys(script);
        let terminal = h.draw(120, 35);
        if script == "<enter>" {
            // The pretty JSON escapes ESC itself; the bidi override and the zero-width space
            // are shown as visible tokens.
            let screen = format!("{}", terminal.backend());
            assert!(screen.contains("⟨U+202E⟩"), "{screen}");
            assert!(screen.contains("⟨U+200B⟩"), "{screen}");
        }
        for cell in terminal.backend().buffer().content() {
            for c in cell.symbol().chars() {
                assert!(
                    !c.is_control()
                        && !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}'),
                    "raw {c:?} in the frame"
                );
            }
        }
    }
}

#[test]
fn a_thousand_tools_first_frame_before_any_counting() {
    let tools: Vec<String> = (0..1000)
        .map(|i| {
            format!(
                r#"{{"name":"mcp__srv__tool_{i}","description":"Tool number {i}. It does a thing with a long explanation that goes on for a while.","input_schema":{{"type":"object","properties":{{"x":{{"type":"string"}}}}}}}}"#
            )
        })
        .collect();
    let json = format!(
        r#"{{"model":"m","messages":[{{"role":"user","content":"hi"}}],"tools":[{}]}}"#,
        tools.join(",")
    );
    let capture = Arc::new(Capture::from_bytes(json.as_bytes()).unwrap());
    let start = std::time::Instant::now();
    let mut app = App::new(
        capture,
        "big.json".into(),
        Settings::default(),
        Encoding::O200kBase,
        false,
    );
    update(&mut app, Msg::Resize(120, 35));
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).unwrap();
    terminal
        .draw(|f| toolprism::tui::view::render(&app, f))
        .unwrap();
    // Nothing was counted on this thread: the work waits for the worker.
    assert!(app.ctx.capture_tokens().is_none());
    assert!(app.ctx.is_busy());
    assert!(matches!(app.effects.as_slice(), [Effect::Compute(_)]));
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("1,000 tools"), "{screen}");
    assert!(screen.contains("projecting"), "{screen}");
    // Generous bound: no token counting happened, only JSON serialization.
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn worker_thread_reports_progress_and_finishes() {
    let capture = Arc::new(Capture::from_bytes(SAMPLE.as_bytes()).unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = toolprism::tui::worker::spawn(capture.clone(), tx);
    let mut app = App::new(
        capture,
        "s.json".into(),
        Settings::default(),
        Encoding::O200kBase,
        false,
    );
    for effect in std::mem::take(&mut app.effects) {
        if let Effect::Compute(job) = effect {
            jobs.send(job).unwrap();
        }
    }
    let mut progress = 0;
    while app.ctx.is_busy() {
        let msg = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the worker answers");
        if matches!(msg, toolprism::tui::worker::WorkerMsg::Progress { .. }) {
            progress += 1;
        }
        update(&mut app, Msg::Worker(msg));
    }
    assert!(progress > 0);
    for s in Strategy::ALL {
        assert!(app.ctx.figures(s).is_some());
    }
}

#[test]
fn switching_to_an_unready_strategy_puts_it_first() {
    let capture = Arc::new(Capture::from_bytes(SAMPLE.as_bytes()).unwrap());
    let mut app = App::new(
        capture,
        "s.json".into(),
        Settings::default(),
        Encoding::O200kBase,
        false,
    );
    let first = match app.effects.pop() {
        Some(Effect::Compute(job)) => job,
        other => panic!("a job first, got {other:?}"),
    };
    assert_eq!(first.strategies[0], Strategy::Original);
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('4'), KeyModifiers::NONE)),
    );
    match app.effects.pop() {
        Some(Effect::Compute(job)) => {
            assert_eq!(job.strategies[0], Strategy::Minimal);
            assert_eq!(job.generation, first.generation);
        }
        other => panic!("a new job, got {other:?}"),
    }
}

#[test]
fn narrow_tool_table_switches_between_tokens_and_bytes() {
    let mut h = Harness::new();
    h.keys("4");
    let tokens = h.screen(120, 35);
    assert!(tokens.contains("tokens  → sent"), "{tokens}");
    h.keys("b");
    let bytes = h.screen(120, 35);
    assert!(bytes.contains("bytes   → sent"), "{bytes}");
    // 849 bytes for mcp__github__create_issue as sent (its entry's bytes in the fixture), as
    // in the wide table.
    assert!(bytes.contains("849"), "{bytes}");
    // A wide table shows both whatever the switch says.
    let wide = h.screen(80, 24);
    assert!(wide.contains("tokens") && wide.contains("bytes"), "{wide}");
}

#[test]
fn captures_without_tools_draw_everywhere() {
    for json in [
        r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#,
        r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[]}"#,
        r#"{"tools":[]}"#,
    ] {
        let mut h = Harness::with(json, Settings::default(), false);
        for script in ["", "1", "1d", "1dd", "1r", "7a", "x", "<esc>/a", "<esc>S"] {
            h.keys(script);
            for (w, hh) in [(120, 35), (80, 24), (40, 10), (1, 1)] {
                h.draw(w, hh);
            }
        }
        assert!(h.app.rows().is_empty());
    }
}

// ---- reading long text: view modes, wrapping, search matches ------------------------------

const HOSTILE: &str = include_str!("../samples/hostile.json");

/// Every row of the frame, as text.
fn rows_of(screen: &str) -> Vec<&str> {
    screen.lines().collect()
}

#[test]
fn v_shows_the_strings_as_text_and_switches_back() {
    use toolprism::tui::textview::ViewMode;
    let mut h = Harness::new();
    h.resize(120, 35).keys("3");
    assert_eq!(h.app.strategy_tab.detail.view_mode, ViewMode::Json);
    h.keys("v");
    assert_eq!(h.app.strategy_tab.detail.view_mode, ViewMode::Text);
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Entries);
    let screen = h.screen(120, 35);
    // The description's `\n\n` is a blank row between its two paragraphs, not an escape.
    let rows = rows_of(&screen);
    let at = rows
        .iter()
        .position(|r| {
            r.contains("│  Read a file from disk. Returns its contents with line numbers.│")
        })
        .expect("the description as text");
    assert!(
        rows[at + 1]
            .ends_with("│                                                                │"),
        "{screen}"
    );
    assert!(
        rows[at + 2].contains("│  Use this before editing a file.   "),
        "{screen}"
    );
    // progressive joined the paragraphs: its text view has them in one paragraph, wrapped
    // at a word (the row is full to its last cell: no space is counted past the word).
    let sent = rows
        .iter()
        .rposition(|r| {
            r.contains("│  Read a file from disk. Returns its contents with line numbers.│")
        })
        .expect("the projected description");
    assert!(sent > at, "{screen}");
    assert!(
        rows[sent + 1].contains("│  Use this before editing a file.  "),
        "{screen}"
    );
    assert!(!screen.contains(r"\n"), "{screen}");
    for (w, hh) in [(200, 50), (120, 35), (80, 24), (40, 12)] {
        snapshot(&format!("progressive_text_{w}x{hh}"), &mut h, w, hh);
    }
    h.keys("v");
    assert_eq!(h.app.strategy_tab.detail.view_mode, ViewMode::Json);
    // From a diff, v goes to the entries' text view.
    h.keys("d");
    assert_eq!(h.app.strategy_tab.detail.shows, Detail::Unified);
    h.keys("v");
    assert_eq!(
        (
            h.app.strategy_tab.detail.shows,
            h.app.strategy_tab.detail.view_mode
        ),
        (Detail::Entries, ViewMode::Text)
    );
}

#[test]
fn hostile_text_in_the_text_view_is_made_visible() {
    let mut h = Harness::with(HOSTILE, Settings::default(), false);
    h.keys("1v");
    snapshot("hostile_text_120x35", &mut h, 120, 35);
    h.keys("j");
    snapshot("hostile_text_second_80x24", &mut h, 80, 24);
    for (w, hh) in [(120, 35), (80, 24)] {
        let terminal = h.draw(w, hh);
        for cell in terminal.backend().buffer().content() {
            for c in cell.symbol().chars() {
                assert!(
                    !c.is_control()
                        && !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{ad}' | '\u{feff}'),
                    "raw {c:?} in the frame"
                );
            }
        }
    }
}

#[test]
fn json_strings_wrap_with_a_hanging_indent() {
    let mut h = Harness::new();
    h.keys("3");
    let screen = h.screen(120, 35);
    let rows = rows_of(&screen);
    let at = rows
        .iter()
        .position(|r| {
            r.contains(r#"│  "description": "Read a file from disk. Returns its contents"#)
        })
        .expect("the description line");
    // The continuation starts under the string's first character, after `"description": "`.
    assert!(
        rows[at + 1].contains(r"│                  with line numbers.\n\nUse this before editing"),
        "{screen}"
    );
}

#[test]
fn diffs_wrap_at_words_with_a_mark_and_cut_lines_say_so() {
    let mut h = Harness::new();
    h.keys("4ejjjjjd");
    assert_eq!(h.selected_name(), "mcp__github__create_issue");
    let screen = h.screen(80, 24);
    let rows = rows_of(&screen);
    let first = rows
        .iter()
        .position(|r| r.contains(r#"│-  "description": "Create a new issue"#))
        .expect("the removed description");
    // Every continuation carries the sign and the mark, and no word is split.
    assert!(rows[first].ends_with("gets  │"), "{screen}");
    assert!(rows[first + 1].starts_with("│-↪a title, "), "{screen}");
    assert!(
        rows[first + 4].starts_with("│-↪when the user asks"),
        "{screen}"
    );
    // Without wrapping, a long line ends with the cut mark instead of stopping silently.
    h.keys("w");
    let screen = h.screen(80, 24);
    let cut = rows_of(&screen)
        .into_iter()
        .find(|r| r.contains(r#"│-  "description": "Create a new issue"#))
        .expect("the removed description")
        .to_owned();
    assert!(cut.ends_with("›│"), "{cut}");
    assert!(!screen.contains('↪'), "{screen}");
    snapshot("minimal_diff_unwrapped_80x24", &mut h, 80, 24);
}

#[test]
fn search_ranks_the_exact_name_first_in_the_tool_table() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1/git<enter>");
    let names: Vec<String> = h
        .app
        .rows()
        .iter()
        .map(|&i| {
            h.app.ctx.projection(Strategy::Original).unwrap().outcomes[i]
                .name
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "git",
            "mcp__github__create_issue",
            "mcp__github__list_pull_requests"
        ]
    );
}

#[test]
fn n_and_n_shift_move_between_matches_and_tools() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("1n");
    assert_eq!(
        h.app.status.as_ref().unwrap().0,
        "n and N move between matches: search first with /"
    );
    h.keys("/github<enter>");
    assert_eq!(h.selected_name(), "mcp__github__create_issue");
    let matches = h.app.detail_matches();
    assert!(matches.len() >= 2, "{matches:?}");
    h.keys("n");
    assert_eq!(h.app.strategy_tab.detail.found_at, Some(matches[0]));
    assert_eq!(h.app.strategy_tab.detail.scroll.offset, matches[0]);
    let status = h.app.status.clone().unwrap().0;
    assert_eq!(
        status,
        format!(
            "match 1 of {} in this tool · tool 1 of 2 matching",
            matches.len()
        )
    );
    h.keys("n");
    assert_eq!(h.app.strategy_tab.detail.found_at, Some(matches[1]));
    // Past the last match of this tool: the first of the next matching tool.
    for _ in 2..matches.len() {
        h.keys("n");
    }
    h.keys("n");
    assert_eq!(h.selected_name(), "mcp__github__list_pull_requests");
    assert_eq!(
        h.app.strategy_tab.detail.found_at,
        h.app.detail_matches().first().copied()
    );
    // N goes back to the last match of the first tool.
    h.keys("N");
    assert_eq!(h.selected_name(), "mcp__github__create_issue");
    assert_eq!(h.app.strategy_tab.detail.found_at, matches.last().copied());
    // The matches are highlighted.
    let terminal = h.draw(120, 35);
    let buffer = terminal.backend().buffer();
    let found = buffer
        .content()
        .iter()
        .filter(|c| {
            c.modifier
                .contains(ratatui::style::Modifier::BOLD | ratatui::style::Modifier::REVERSED)
        })
        .count();
    assert!(found >= "github".len() * 2, "{found} highlighted cells");
    snapshot("search_matches_120x35", &mut h, 120, 35);
    // In the matrix, n and N go from tool to tool, wrapping.
    h.keys("m");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    h.keys("n");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 1);
    h.keys("n");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    h.keys("N");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 1);
    assert_eq!(h.app.status.as_ref().unwrap().0, "tool 2 of 2 matching");
}

#[test]
fn the_status_line_gives_the_matching_tools_subtotal() {
    let mut h = Harness::new();
    h.resize(120, 35).keys("4/github");
    let screen = h.screen(120, 35);
    let status = rows_of(&screen)[33].trim_end().to_owned();
    // create_issue 177 → 82 and list_pull_requests 85 → 74 under minimal (the tool table).
    assert_eq!(
        status,
        " /github▏  2 matches · 262 → 156 tokens in their entries · Enter keeps · Esc clears"
    );
    h.keys("<enter>");
    let screen = h.screen(120, 35);
    assert_eq!(
        rows_of(&screen)[33].trim_end(),
        " 2 of 8 tools match \"github\": 262 → 156 tokens under minimal · sort original order"
    );
    // The matrix gives its own subtotal, while typing too.
    h.keys("m<esc>/git");
    let screen = h.screen(120, 35);
    assert_eq!(
        rows_of(&screen)[33].trim_end(),
        " /git▏  3 matches · original 314 tokens in their entries · Enter keeps · Esc clears"
    );
    h.keys("<bs><bs><bs>github<enter>");
    let screen = h.screen(120, 35);
    assert!(
        rows_of(&screen)[33].starts_with(" 2 of 10 tools · original 262 tokens"),
        "{screen}"
    );
}

// ---- settings: the figures stay in sight ---------------------------------------------------

#[test]
fn settings_show_the_figures_they_change_before_and_after() {
    use toolprism::tui::dialogs::settings::SettingsView;
    use toolprism::tui::input::Input;
    // zero's seed release (2ea36cf): the reminder form and threshold 10 these figures show.
    let mut seed = Settings::default();
    seed.set("zero.release", "2ea36cf").unwrap();
    let mut h = Harness::with(SAMPLE, seed, false);
    h.resize(120, 35).keys("0S");
    let Some(Overlay::Settings(SettingsDialog { selected, .. })) = h.app.overlay.clone() else {
        panic!("the settings are open");
    };
    let view = SettingsView::new(&h.app.ctx, selected, None, None);
    assert_eq!(view.rows[view.selected].key, "defer.threshold");
    assert_eq!(
        view.figures,
        ["defer: 641 tokens", "defer-catalog: 641 tokens"]
    );
    // While a value is typed the figures stay; once applied they read before → after.
    h.keys("<enter><bs><bs><bs><bs>2");
    let view = SettingsView::new(&h.app.ctx, selected, Some(&Input::new("2")), None);
    assert!(view.editing);
    assert_eq!(view.rows[view.selected].value, "2▏");
    assert_eq!(view.figures.len(), 2);
    snapshot("settings_editing_120x35", &mut h, 120, 35);
    h.keys("<enter>");
    let view = SettingsView::new(&h.app.ctx, selected, None, None);
    assert_eq!(
        view.figures,
        // defer sends more at threshold 2: tool_search and the reminder cost more than the
        // three withheld tools (the strategy tab says 641 → 721 too).
        [
            "defer: 641 → 721 tokens (+80)",
            "defer-catalog: 641 → 490 tokens (-151)"
        ]
    );
    snapshot("settings_after_120x35", &mut h, 120, 35);
    // At 40x12 the list scrolls to the chosen row and the figures stay under it.
    snapshot("settings_after_40x12", &mut h, 40, 12);
    let screen = h.screen(40, 12);
    assert!(screen.contains("defer.threshold"), "{screen}");
    // The encoding changes every strategy: three are listed, the rest counted.
    h.keys("G<enter>");
    let last = Settings::KEYS.len();
    let view = SettingsView::new(&h.app.ctx, last, None, None);
    assert_eq!(view.rows[view.selected].key, "encoding");
    assert_eq!(view.figures.len(), 4);
    assert_eq!(view.figures[3], "and 11 more strategies (the overview, o)");
    // The last change was defer.threshold, not the encoding: no before → after here.
    assert!(
        view.figures.iter().all(|f| !f.contains('→')),
        "{:?}",
        view.figures
    );
}

// ---- the overview's notes pane scrolls and says what it hides ------------------------------

#[test]
fn overview_notes_scroll_and_say_how_many_are_hidden() {
    let mut h = Harness::new();
    h.keys("oj");
    let screen = h.screen(80, 24);
    let rows = rows_of(&screen);
    // The notes pane's last inner row (above its border) announces the hidden notes.
    let last = rows[20];
    assert!(last.starts_with("│23 more notes ↓ PgDn "), "{screen}");
    snapshot("overview_notes_80x24", &mut h, 80, 24);
    h.keys("<pgdn>");
    assert!(h.app.overview.notes.offset > 0);
    snapshot("overview_notes_scrolled_80x24", &mut h, 80, 24);
    // Scrolling stops at the end, which says so.
    for _ in 0..100 {
        h.keys("<pgdn>");
    }
    assert_eq!(h.app.overview.notes.offset, h.app.notes_scroll_max());
    let screen = h.screen(80, 24);
    assert!(screen.contains("end of the notes ↑ PgUp"), "{screen}");
    // Choosing another strategy starts its notes at the top; j still moves the strategy.
    h.keys("j");
    assert_eq!(
        (h.app.overview.selected(), h.app.overview.notes.offset),
        (2, 0)
    );
}

#[test]
fn tool_table_names_shrink_visibly_and_stay_distinct() {
    let mut h = Harness::new();
    h.keys("3");
    let screen = h.screen(120, 35);
    // A 23-cell name column (the `!` of the flagged tool takes one): the MCP prefix goes
    // first, then the middle; once one MCP name is collapsed, every MCP name of the column is
    // (one scheme per column), and a name that is not MCP stays whole.
    assert!(screen.contains("┃ = github›create_issue  "), "{screen}");
    assert!(screen.contains("┃ = github›list…ll_requests "), "{screen}");
    assert!(screen.contains("┃ = !memory›store "), "{screen}");
    assert!(!screen.contains("mcp__memory__store "), "{screen}");
    assert!(!screen.contains("mcp__github__list_pull_re "), "{screen}");
}

#[test]
fn a_terminal_too_short_for_the_notes_says_they_are_hidden() {
    let mut h = Harness::new();
    h.keys("o");
    let screen = h.screen(60, 20);
    let rows = rows_of(&screen);
    assert!(
        rows[17].starts_with("┗ 23 notes hidden: too few rows ━"),
        "{screen}"
    );
    h.keys("<pgdn>");
    assert_eq!(h.app.overview.notes.offset, 0);
    assert_eq!(
        h.app.status.as_ref().unwrap().0,
        "the notes need a taller terminal"
    );
    snapshot("overview_notes_hidden_60x20", &mut h, 60, 20);
}

/// A figure is never cut: the title, the status line and the detail's info line drop whole
/// fields (the capture's token total last) instead of writing `30,5…` or `590 → 5`.
#[test]
fn numbers_are_never_cut_in_the_title_status_or_info_line() {
    use toolprism::tui::view::{fit_fields, title_fields};
    let parts = [
        "samples/large.json",
        "anthropic-messages",
        "46 tools",
        "35.2 KB",
        "30,512 tokens",
        "o200k_base",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(
        title_fields(parts.clone(), "large.json", 200),
        parts.join(" · ")
    );
    assert_eq!(
        title_fields(parts.clone(), "large.json", 50),
        "large.json · 46 tools · 30,512 tokens"
    );
    assert_eq!(
        title_fields(parts.clone(), "large.json", 26),
        "large.json · 30,512 tokens"
    );
    assert_eq!(
        title_fields(parts.clone(), "large.json", 20),
        "lar… · 30,512 tokens"
    );
    assert_eq!(
        title_fields(parts.clone(), "large.json", 13),
        "30,512 tokens"
    );
    assert_eq!(title_fields(parts, "large.json", 5), "");
    assert_eq!(
        fit_fields(
            "original: 8,168 → 8,168 tokens (saved 0.00%) · 46 → 46 tools",
            40
        ),
        "original: 8,168 → 8,168 tokens"
    );
    let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/large.json"))
        .unwrap();
    let cut_number = |row: &str| {
        let chars: Vec<char> = row.chars().collect();
        chars
            .windows(2)
            .any(|w| w[1] == '…' && (w[0].is_ascii_digit() || w[0] == ','))
    };
    for script in ["", "4"] {
        let mut h = Harness::named(&json, "samples/large.json", Settings::default(), false);
        h.keys(script);
        for w in [40u16, 52, 60, 80, 100, 120] {
            let screen = h.screen(w, 24);
            let rows: Vec<&str> = screen.lines().collect();
            for row in [rows[0], rows[rows.len() - 2]] {
                assert!(!cut_number(row), "{w} columns: {row:?}\n{screen}");
            }
            if script == "4" {
                let info = rows.iter().find(|r| r.contains("entries │"));
                if let Some(info) = info {
                    assert!(!cut_number(info), "{w} columns: {info:?}");
                }
            }
        }
    }
}

/// Names with emoji, skin tones and combining marks are measured as the terminal draws them
/// (by grapheme cluster): every matrix row keeps its columns where the plain rows have them.
#[test]
fn emoji_and_combining_names_keep_the_matrix_columns_in_place() {
    let names = ["warn⚠️_tool", "👍🏽_thumbs", "cafe\u{301}_menu", "plain_tool"];
    let tools: Vec<serde_json::Value> = names
        .iter()
        .map(|n| {
            serde_json::json!({
                "name": n,
                "description": "Does one thing. Then another thing entirely.",
                "input_schema": {"type": "object", "properties": {}}
            })
        })
        .collect();
    let json = serde_json::json!({
        "model": "m", "max_tokens": 1,
        "messages": [{"role": "user", "content": "hi there"}],
        "tools": tools
    })
    .to_string();
    for w in [200u16, 120, 80, 60] {
        let mut h = Harness::with(&json, Settings::default(), false);
        let terminal = h.draw(w, 24);
        let buffer = terminal.backend().buffer();
        // The column (in cells) of the first `=` or `~` mark on each body row.
        let mark_at = |y: u16| -> Option<u16> {
            (0..w).find(|&x| matches!(buffer[(x, y)].symbol(), "=" | "~"))
        };
        let rows: Vec<(String, Option<u16>)> = (0..24)
            .filter_map(|y| {
                let row: String = (0..w).map(|x| buffer[(x, y)].symbol()).collect();
                names
                    .iter()
                    .any(|n| row.contains(&n[..4]))
                    .then(|| (row, mark_at(y)))
            })
            .collect();
        assert_eq!(rows.len(), names.len(), "{w}: {rows:?}");
        let first = rows[0].1;
        assert!(first.is_some(), "{w}: {rows:?}");
        for (row, at) in &rows {
            assert_eq!(*at, first, "{w} columns, shifted: {row:?}");
        }
    }
}

#[test]
fn f_on_a_strategy_that_only_reorders_says_so() {
    let mut h = Harness::new();
    let direct = Strategy::ALL
        .iter()
        .position(|&s| s == Strategy::Direct)
        .unwrap();
    for _ in 0..direct {
        h.keys("l");
    }
    assert_eq!(h.app.strategy(), Strategy::Direct);
    h.keys("f");
    let screen = h.screen(120, 35);
    assert!(
        screen.contains("direct changes no tool: only their order changed"),
        "{screen}"
    );
}

#[test]
fn enter_on_an_added_tool_opens_it_where_it_is_added_or_says_why_not() {
    let mut settings = Settings::default();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, false);
    h.resize(200, 50);
    let m = h.app.matrix();
    let row = (0..m.shown.len())
        .find(|&i| m.name(i) == Some("tool_search"))
        .expect("tool_search is a row");
    let defer = 1 + toolprism::tui::matrix::strategies()
        .iter()
        .position(|&s| s == Strategy::Defer)
        .unwrap();
    drop(m);
    for _ in 0..row {
        h.keys("<down>");
    }
    // On `original`'s column: not in the capture; the status names who adds it.
    h.keys("<enter>");
    assert_eq!(h.app.tab, Tab::Matrix, "nothing opened");
    let status = h.app.status.clone().expect("a status").0;
    assert!(
        status.starts_with("tool_search is not in the capture:") && status.contains("defer"),
        "{status}"
    );
    // On `full`'s column (which adds nothing): the same, naming full.
    h.keys("l");
    h.keys("<enter>");
    let status = h.app.status.clone().expect("a status").0;
    assert!(
        status.starts_with("full does not send tool_search"),
        "{status}"
    );
    // On defer's column: its entry opens, selected in defer's tab.
    for _ in 1..defer {
        h.keys("l");
    }
    h.keys("<enter>");
    assert_eq!(h.app.tab, Tab::Strategy(Strategy::Defer));
    let screen = h.screen(200, 50);
    assert!(screen.contains("tool_search"), "{screen}");
    let (_, sent) = h.app.selected_entries().expect("an entry selected");
    let sent = sent.expect("defer sends it");
    assert_eq!(sent["name"], "tool_search", "{sent}");
}

#[test]
fn a_column_that_sends_nothing_is_folded_and_named() {
    let mut h = Harness::new();
    let disabled = toolprism::tui::matrix::strategies()
        .iter()
        .position(|&s| s == Strategy::Disabled)
        .unwrap();
    let m = h.app.matrix();
    assert!(m.folded[disabled], "disabled sends nothing");
    // Only columns of `×` fold: `code` has no gateway to send in this sample; the others
    // send tools.
    let code = toolprism::tui::matrix::strategies()
        .iter()
        .position(|&s| s == Strategy::Code)
        .unwrap();
    let folded: Vec<usize> = (0..m.folded.len()).filter(|&c| m.folded[c]).collect();
    assert_eq!(folded, vec![code, disabled], "{:?}", m.folded);
    drop(m);
    let screen = h.screen(200, 50);
    let header = screen.lines().find(|l| l.contains("▼original")).unwrap();
    assert!(!header.contains("disabled"), "folded away: {header}");
    assert!(
        screen.contains("folded: code, disabled (each sends no tool)"),
        "{screen}"
    );
    // The cursor on it unfolds it.
    for _ in 0..=disabled {
        h.keys("l");
    }
    assert_eq!(h.app.strategy(), Strategy::Disabled);
    let screen = h.screen(200, 50);
    let header = screen.lines().find(|l| l.contains("▼original")).unwrap();
    assert!(header.contains("disabled"), "{header}");
}

// ---- nothing cut without a mark ----------------------------------------------------------

use crate::support::cuts::unmarked_cuts;

#[test]
fn nothing_is_cut_without_a_mark_on_any_screen_at_four_sizes() {
    let screens = [
        ("matrix", ""),
        ("overview", "o"),
        ("strategy_entries", "4"),
        ("strategy_text", "4v"),
        ("strategy_diff", "4d"),
        ("strategy_request", "4r"),
        ("help", "?"),
        ("help_end", "?G"),
        ("settings", "S"),
        ("export", "4x"),
    ];
    let mut found = Vec::new();
    for (name, script) in screens {
        let mut h = Harness::new();
        h.keys(script);
        cuts_at_four_sizes(name, &mut h, &mut found);
        h.resize(120, 35);
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

/// Each word of `h`'s screen at 200x50, 120x35, 80x24 and 60x20 that is cut without a mark
/// (against the same screen 400 columns wide), named after `name`, into `found`.
fn cuts_at_four_sizes(name: &str, h: &mut Harness, found: &mut Vec<String>) {
    for (w, hh) in [(200, 50), (120, 35), (80, 24), (60, 20)] {
        let narrow = h.screen(w, hh);
        let wide = h.screen(400, hh);
        for (row, word) in unmarked_cuts(&narrow, &wide) {
            found.push(format!("{name} {w}x{hh} row {row}: `{word}`"));
        }
    }
}

#[test]
fn the_cut_finder_finds_a_cut_and_passes_a_whole_word() {
    let wide = "┃ saved 56.94% of it   ┃\n";
    assert_eq!(
        unmarked_cuts("┃ saved 56.┃\n", wide),
        [(0, "56.".to_owned())]
    );
    assert!(unmarked_cuts("┃ saved 56.94%┃\n", wide).is_empty());
    assert!(unmarked_cuts("┃ saved 56…┃\n", wide).is_empty());
    // Text under an overlay's left border is hidden, not cut.
    let under = "xx ┏━━┓\nhid┃ab┃\nxx ┗━━┛\n";
    assert!(unmarked_cuts(under, "x ab\n").is_empty());
}

/// The foreground of the first cell of `text` on row `y` of a drawn screen.
fn fg_of(terminal: &Terminal<TestBackend>, y: u16, text: &str) -> Option<Color> {
    let buffer = terminal.backend().buffer();
    let width = buffer.area.width;
    let row: Vec<&str> = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
    let joined = row.concat();
    let at = joined.find(text)?;
    let x = joined[..at].chars().count() as u16;
    Some(buffer[(x, y)].fg)
}

#[test]
fn colours_mean_one_thing() {
    let mut h = Harness::with(SAMPLE, Settings::default(), true);
    // The overview: saving nothing (original, 0.00%) is not painted as a saving.
    h.keys("o");
    let terminal = h.draw(120, 35);
    let screen = h.screen(120, 35);
    let y = screen
        .lines()
        .position(|l| l.contains(" original") && l.contains("0.00%"))
        .expect("original's row") as u16;
    let zero = fg_of(&terminal, y, "0.00%").expect("0.00% drawn");
    assert_ne!(zero, Color::Green, "0.00% is no saving");
    // The matrix: an added tool's cell is a cost, red, as `report --matrix` paints it.
    let mut settings = Settings::default();
    settings.set("defer.threshold", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, true);
    let terminal = h.draw(200, 50);
    let screen = h.screen(200, 50);
    let y = screen
        .lines()
        .position(|l| l.contains("tool_search ") && l.contains('+'))
        .expect("the added tool_search row") as u16;
    let row: String = screen.lines().nth(y as usize).unwrap().to_owned();
    let plus = row.find(" +").map(|i| row[..i].chars().count() as u16 + 1);
    let buffer = terminal.backend().buffer();
    let x = plus.expect("a + mark");
    // The figure before the mark carries the cell's colour.
    let figure = (0..x).rev().find(|&x| {
        buffer[(x, y)].symbol().chars().all(|c| c.is_ascii_digit())
            && !buffer[(x, y)].symbol().trim().is_empty()
    });
    assert_eq!(buffer[(figure.expect("a figure"), y)].fg, Color::Red);
}

#[test]
fn the_matrix_marks_a_rejected_original_as_the_overview_does() {
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/duplicate-names.json"
    ))
    .unwrap();
    let mut h = Harness::named(&json, "duplicate-names.json", Settings::default(), false);
    let matrix = h.screen(120, 35);
    assert!(matrix.contains("▼original!"), "{matrix}");
    h.keys("o");
    let overview = h.screen(120, 35);
    assert!(overview.contains("original!"), "{overview}");
    let cli = crate::support::command::stdout_of(&[
        "report",
        "tests/fixtures/duplicate-names.json",
        "--matrix",
    ]);
    assert!(cli.contains("original! "), "{cli}");
}

#[test]
fn sorted_by_saving_follows_the_saved_column_as_shown() {
    let json = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/large.json"))
        .unwrap();
    let mut h = Harness::named(&json, "samples/large.json", Settings::default(), false);
    h.keys("4s");
    assert_eq!(h.app.strategy_tab.sort.label(), "saving");
    let screen = h.screen(200, 50);
    let shown: Vec<f64> = screen
        .lines()
        .filter(|l| l.starts_with('┃'))
        .filter_map(|l| {
            // The tool pane only: up to its right border.
            let pane = l[3..].split('┃').next()?;
            let number = pane.split_whitespace().find(|w| w.ends_with('%'))?;
            number.trim_end_matches('%').parse().ok()
        })
        .collect();
    assert!(shown.len() > 10, "{screen}");
    assert!(
        shown.windows(2).all(|w| w[0] >= w[1]),
        "the saved column descends: {shown:?}"
    );
}

#[test]
fn codex_on_a_shape_it_never_sends_offers_no_setting() {
    let mut h = Harness::new();
    h.keys("\\");
    let (banner, _) = h
        .app
        .banner()
        .expect("codex does not apply to a Messages capture");
    assert!(banner.contains("no setting changes this"), "{banner}");
    assert!(!banner.contains("mcp.prefixes"), "{banner}");
}

/// The overview names the costliest MCP server with the tokens `report --by-server` gives it
/// (the same grouping), and a capture without MCP tools names none.
#[test]
fn the_overview_names_the_costliest_server_as_report_by_server_does() {
    let mut h = Harness::new();
    h.keys("o");
    let costliest = toolprism::tui::overview::costliest_server(&h.app.ctx).expect("MCP tools");
    let out = crate::support::command::toolprism()
        .args([
            "report",
            "tests/fixtures/tui-sample.json",
            "--by-server",
            "-s",
            "original",
            "--json",
        ])
        .current_dir(crate::support::command::root())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let servers = report["servers"].as_array().unwrap();
    let top = servers
        .iter()
        .filter(|s| s["mcp"] == true)
        .max_by_key(|s| s["tokens"].as_u64())
        .unwrap();
    assert_eq!(costliest.name, top["name"].as_str().unwrap());
    assert_eq!(Some(costliest.tokens as u64), top["tokens"].as_u64());
    let all: u64 = servers.iter().filter_map(|s| s["tokens"].as_u64()).sum();
    assert!((costliest.pct - costliest.tokens as f64 * 100.0 / all as f64).abs() < 1e-9);
    let text = format!("{:?}", h.draw(120, 35).backend());
    assert!(text.contains(&format!(
        "costliest server: {}, {} tokens",
        costliest.name, costliest.tokens
    )));
    // Fitted: the shortest form, or none when even that does not fit.
    assert_eq!(costliest.line(22).as_deref(), Some(" costliest: github "));
    assert_eq!(costliest.line(5), None);
    let plain = r#"{"model": "m", "messages": [], "tools": [{"name": "read_file", "description": "Read.", "input_schema": {"type": "object"}}]}"#;
    let mut h = Harness::with(plain, Settings::default(), false);
    h.keys("o");
    assert_eq!(toolprism::tui::overview::costliest_server(&h.app.ctx), None);
}

// ---- the matrix with a thousand rows: said once, clicked to the cell ----------------------

/// The cell column where `word` starts on `line` (cells, not bytes).
fn cell_of(line: &str, word: &str) -> u16 {
    line[..line
        .find(word)
        .unwrap_or_else(|| panic!("{word} in {line}"))]
        .chars()
        .count() as u16
}

#[test]
fn a_click_on_a_matrix_cell_selects_its_row_and_its_column() {
    let mut h = Harness::new();
    let screen = h.screen(120, 35);
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines.iter().position(|l| l.contains("▼original")).unwrap();
    let minimal = cell_of(lines[header], "minimal");
    h.click(minimal + 2, (header + 3) as u16);
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 2);
    assert_eq!(h.app.strategy(), Strategy::Minimal);
    // The original's column, on another row.
    let original = cell_of(lines[header], "original");
    h.click(original + 1, (header + 1) as u16);
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    assert_eq!(h.app.matrix_tab.cursor.col, 0);
    assert_eq!(h.app.strategy(), Strategy::Original);
    // A header picks the column and keeps the row; a name keeps both.
    h.click(cell_of(lines[header], "full") + 1, header as u16);
    assert_eq!(h.app.strategy(), Strategy::Full);
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    h.click(3, (header + 4) as u16);
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 3);
    assert_eq!(h.app.strategy(), Strategy::Full);
    // What was clicked is drawn as the cursor's cell: its column's header is highlighted.
    let screen = h.screen(120, 35);
    assert!(screen.lines().nth(header).unwrap().contains("full"));
}

#[test]
fn a_refused_column_says_so_once_not_on_every_row() {
    let mut settings = Settings::default();
    settings.set("a3s.max_tools", "2").unwrap();
    let mut h = Harness::with(SAMPLE, settings, false);
    // `direct` is the fourth strategy column: bring it into view.
    h.keys("llll");
    assert_eq!(h.app.strategy(), Strategy::Direct);
    for (w, hh) in [(200, 50), (80, 24)] {
        let screen = h.screen(w, hh);
        let lines: Vec<&str> = screen.lines().collect();
        let header = lines.iter().position(|l| l.contains("▼original")).unwrap();
        let rule = lines.iter().position(|l| l.contains("────")).unwrap();
        let body = &lines[header + 1..rule];
        let said: Vec<&&str> = body.iter().filter(|l| l.contains("refused")).collect();
        assert_eq!(said.len(), 1, "{w}x{hh}:\n{screen}");
        assert!(
            body[0].contains("refused"),
            "the first row drawn says it:\n{screen}"
        );
        // Scrolled, the first row drawn says it still.
        h.keys("G");
        let screen = h.screen(w, hh);
        let lines: Vec<&str> = screen.lines().collect();
        let first = lines[header + 1];
        assert!(first.contains("refused"), "{w}x{hh}:\n{screen}");
        h.keys("g");
    }
}

#[test]
fn a_long_tool_name_is_never_split_without_a_mark() {
    let name = "mcp__confluence_enterprise__search_label_definitions_in_space";
    let json = format!(
        r#"{{"model":"m","messages":[{{"role":"user","content":"hi"}}],"tools":[{{"name":"{name}","description":"Search the labels of a space.","input_schema":{{"type":"object","properties":{{"q":{{"type":"string"}}}}}}}},{{"name":"bash","description":"Run a command.","input_schema":{{"type":"object"}}}}]}}"#
    );
    let mut found = Vec::new();
    for (screen, script) in [("entries", "1"), ("text", "1v"), ("matrix", "")] {
        let mut h = Harness::named(&json, "long.json", Settings::default(), false);
        h.keys(script);
        for (w, hh) in [(120, 35), (80, 24), (60, 20)] {
            let narrow = h.screen(w, hh);
            let wide = h.screen(400, hh);
            for (row, word) in unmarked_cuts(&narrow, &wide) {
                found.push(format!("{screen} {w}x{hh} row {row}: `{word}`"));
            }
            if screen == "entries" && w == 80 {
                // The JSON's name string does not fit its pane: it is broken, with the mark.
                assert!(narrow.contains("mcp__confluence_↪"), "{narrow}");
            }
            // Every piece of the name on screen is the whole name or carries a mark.
            for piece in narrow
                .split(|c: char| c.is_whitespace() || "\"│┃".contains(c))
                .filter(|p| p.starts_with("mcp__conf") || p.starts_with("confluence"))
            {
                let whole = piece.trim_end_matches([',', ':']);
                if whole != name && !piece.contains(['…', '↪', '›']) {
                    found.push(format!("{screen} {w}x{hh}: `{piece}`"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

// ---- the matrix grouped by MCP server (b, z, Z) ------------------------------------------

/// `report --by-server --json` of the sample, every strategy.
fn by_server_json() -> Vec<serde_json::Value> {
    let out = crate::support::command::toolprism()
        .args([
            "report",
            "tests/fixtures/tui-sample.json",
            "--by-server",
            "--json",
        ])
        .current_dir(crate::support::command::root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["servers"].as_array().unwrap().clone()
}

/// A subtotal row's figures are the ones `report --by-server` prints for its server (tools,
/// original tokens, each strategy's tokens), and each group's tools are drawn under it.
#[test]
fn grouped_subtotals_are_report_by_servers_figures() {
    use toolprism::tui::matrix::groups::{Figure, Group, ViewRow};
    let mut h = Harness::new();
    let plain = h.app.matrix();
    h.keys("b");
    let m = h.app.matrix();
    assert!(m.grouped());
    let servers = by_server_json();
    // Tools a strategy adds are no server's: `report --by-server` counts them in no row.
    let groups: Vec<_> = m
        .subtotals
        .iter()
        .filter(|s| s.group != Group::Added)
        .collect();
    assert_eq!(groups.len(), servers.len());
    assert_eq!(m.subtotals.last().map(|s| &s.group), Some(&Group::Added));
    for s in groups {
        let name = match &s.group {
            Group::Server(name) => name.clone(),
            _ => "(host)".to_owned(),
        };
        let row = servers
            .iter()
            .find(|r| r["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} in {servers:?}"));
        assert_eq!(Some(s.tools as u64), row["tools"].as_u64(), "{name}");
        assert_eq!(
            s.original.map(|t| t as u64),
            row["tokens"].as_u64(),
            "{name}"
        );
        for (c, figure) in s.columns.iter().enumerate() {
            let id = toolprism::tui::matrix::strategies()[c].id();
            let want = row["strategies"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["id"] == id)
                .unwrap_or_else(|| panic!("{id}"));
            match figure {
                Figure::Tokens(t) => assert_eq!(Some(*t as u64), want["tokens"].as_u64()),
                Figure::Refused => assert!(want["tokens"].is_null(), "{id}"),
                Figure::Measuring => panic!("{id} measured"),
                Figure::Unlisted => panic!("{id}: no server here is unlisted"),
            }
        }
    }
    // Every tool once, under its own server's subtotal; the host's tools in their own group.
    let mut under = None;
    let mut tools = 0;
    for line in &m.lines {
        match line {
            ViewRow::Subtotal(k) => under = Some(&m.subtotals[*k].group),
            ViewRow::Tool(r) => {
                tools += 1;
                let row = &m.model.all_rows()[*r];
                let name = &row.name;
                let expected = match (row.origin, name.strip_prefix("mcp__")) {
                    (toolprism::matrix::Origin::Added(_), _) => Group::Added,
                    (_, Some(rest)) => Group::Server(rest.split("__").next().unwrap().to_owned()),
                    (_, None) => Group::Host,
                };
                assert_eq!(under, Some(&expected), "{name}");
            }
        }
    }
    assert_eq!(tools, plain.shown.len());
    assert_eq!(m.len(), plain.len() + m.subtotals.len());
    // Groups in the sort's order: original tokens, costliest first.
    let originals: Vec<usize> = m.subtotals.iter().filter_map(|s| s.original).collect();
    assert!(originals.windows(2).all(|w| w[0] >= w[1]), "{originals:?}");
    // Sorting smallest first turns the groups round, and the tools within each.
    h.keys("s");
    let m = h.app.matrix();
    let originals: Vec<usize> = m.subtotals.iter().filter_map(|s| s.original).collect();
    assert!(originals.windows(2).all(|w| w[0] <= w[1]), "{originals:?}");
    // And `b` again gives the one list back.
    h.keys("b");
    assert!(!h.app.matrix().grouped());
    assert_eq!(h.app.matrix().len(), plain.len());
}

/// `z` folds the cursor's server to its subtotal row (from a tool of it too), Enter on a
/// subtotal row folds rather than opening a tool, `Z` folds or unfolds them all.
#[test]
fn a_server_folds_and_unfolds() {
    let mut h = Harness::new();
    h.keys("bg");
    let all = h.app.matrix().len();
    let first = h.app.matrix().subtotals[0].clone();
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    assert!(h.app.matrix().subtotal_at(0).is_some());
    h.keys("z");
    let m = h.app.matrix();
    assert!(m.subtotals[0].folded);
    assert_eq!(m.len(), all - first.shown);
    assert!(m.subtotal_at(1).is_some(), "the next server's row follows");
    h.keys("z");
    assert_eq!(h.app.matrix().len(), all);
    // From a tool of the server: the cursor goes to the server's row, folded.
    h.keys("jj");
    assert!(h.app.matrix().row(2).is_some());
    h.keys("z");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, 0);
    assert!(h.app.matrix().subtotals[0].folded);
    // Enter on a subtotal row unfolds it and opens nothing.
    h.keys("<enter>");
    assert_eq!(h.app.tab, Tab::Matrix);
    assert!(!h.app.matrix().subtotals[0].folded);
    assert_eq!(h.app.matrix().len(), all);
    h.keys("Z");
    let m = h.app.matrix();
    assert_eq!(m.len(), m.subtotals.len());
    assert!(m.subtotals.iter().all(|s| s.folded));
    let text = h.screen(120, 35);
    assert!(text.contains("▸ (host) (5 tools)"), "{text}");
    assert!(!text.contains("read_file"), "{text}");
    h.keys("Z");
    assert_eq!(h.app.matrix().len(), all);
    // The figures are drawn on the subtotal rows.
    let text = h.screen(200, 50);
    let s = &h.app.matrix().subtotals[0];
    let line = text
        .lines()
        .find(|l| l.contains(&format!("▾ {} (", s.group.label())))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(&s.original_text(true)),
        "{line} has {}",
        s.original_text(true)
    );
    assert!(line.contains(&s.cell_text(2)), "{line}");
}

/// The cursor moves over subtotal rows; on one, nothing that needs a tool acts on a wrong one
/// (Enter folds, y copies nothing); on a tool, Enter opens that tool.
#[test]
fn the_cursor_on_a_subtotal_row_opens_no_tool() {
    let mut h = Harness::new();
    h.keys("bg");
    let m = h.app.matrix();
    // Every row visited in turn, subtotal rows included.
    for at in 0..m.len() {
        assert_eq!(h.app.matrix_tab.cursor.rows.selected, at);
        let text = h.screen(80, 24);
        assert!(!text.is_empty());
        h.keys("j");
    }
    h.keys("g");
    h.keys("y");
    let status = h.app.status.clone().unwrap().0;
    assert!(status.contains("nothing to copy"), "{status}");
    assert!(h.app.effects.is_empty());
    // Under the first subtotal row, a tool of the capture: Enter opens it.
    h.keys("gj");
    let at = h.app.matrix_tab.cursor.rows.selected;
    let name = h.app.matrix().name(at).expect("a tool last").to_owned();
    h.keys("l<enter>");
    assert!(matches!(h.app.tab, Tab::Strategy(_)));
    assert_eq!(h.selected_name(), name);
}

/// The search and the `f` filter still apply: only the groups with a tool shown stay, each
/// subtotal says how many of its tools are shown, and `n` steps from tool to tool.
#[test]
fn search_and_filter_apply_to_the_grouped_rows() {
    use toolprism::tui::matrix::groups::ViewRow;
    let mut h = Harness::new();
    h.keys("b/mcp__<enter>");
    let m = h.app.matrix();
    assert!(m.subtotals.iter().all(|s| s.shown > 0));
    assert!(
        m.subtotals
            .iter()
            .all(|s| s.group != toolprism::tui::matrix::groups::Group::Host),
        "no host tool is named mcp__"
    );
    for (k, s) in m.subtotals.iter().enumerate() {
        let start = m
            .lines
            .iter()
            .position(|l| *l == ViewRow::Subtotal(k))
            .unwrap();
        let tools = m.lines[start + 1..]
            .iter()
            .take_while(|l| matches!(l, ViewRow::Tool(_)))
            .count();
        assert_eq!(tools, s.shown);
    }
    let positions = m.tool_positions();
    h.keys("n");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, positions[0]);
    h.keys("n");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, positions[1]);
    h.keys("N");
    assert_eq!(h.app.matrix_tab.cursor.rows.selected, positions[0]);
    // The f filter on a strategy that changes some tools: the counts say how many are left.
    h.keys("<esc>lllf");
    let m = h.app.matrix();
    let shown: usize = m.subtotals.iter().map(|s| s.shown).sum();
    assert_eq!(shown, m.shown.len());
    assert!(m.subtotals.iter().all(|s| s.shown > 0));
}

/// A capture without MCP tools: `b` says so and changes nothing.
#[test]
fn grouping_without_mcp_tools_says_so_and_changes_nothing() {
    let plain = r#"{"model": "m", "messages": [], "tools": [{"name": "read_file", "description": "Read.", "input_schema": {"type": "object"}}, {"name": "bash", "description": "Run.", "input_schema": {"type": "object"}}]}"#;
    let mut h = Harness::with(plain, Settings::default(), false);
    let before = h.screen(120, 35);
    h.keys("b");
    let status = h.app.status.clone().unwrap().0;
    assert!(status.contains("nothing to group"), "{status}");
    assert!(!h.app.matrix_tab.grouped);
    assert!(!h.app.matrix().grouped());
    h.app.status = None;
    assert_eq!(h.screen(120, 35), before);
    h.keys("z");
    assert!(
        h.app
            .status
            .clone()
            .unwrap()
            .0
            .contains("group the tools by server first")
    );
}

#[test]
fn nothing_is_cut_without_a_mark_in_the_grouped_matrix() {
    let mut found = Vec::new();
    for (name, script) in [("grouped", "b"), ("folded", "bjz"), ("panned", "blllll")] {
        let mut h = Harness::new();
        h.keys(script);
        cuts_at_four_sizes(name, &mut h, &mut found);
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_grouped_matrix_120x35() {
    let mut h = Harness::new();
    h.keys("bjjjz");
    snapshot("matrix_grouped_120x35", &mut h, 120, 35);
}

// ---- the MCP servers `toolprism mcp` reached -----------------------------------------------

use toolprism::mcp::status::{ServerState, ServerStatus};

/// The sample with what `toolprism mcp` would hand the view: github and memory listed, one
/// server failed with a long reason.
fn with_servers() -> Harness {
    let mut h = Harness::new();
    let listed = |name: &str, tools| ServerStatus {
        name: name.into(),
        state: ServerState::Listed,
        tools,
        reason: None,
    };
    h.app.set_servers(vec![
        listed("github", 2),
        listed("memory", 1),
        ServerStatus {
            name: "broken".into(),
            state: ServerState::Failed,
            tools: 0,
            reason: Some(
                "the server exited; stderr: python3: can't open file '/home/user/servers/broken_server.py': [Errno 2] No such file or directory"
                    .into(),
            ),
        },
    ]);
    h.settle();
    h
}

/// The row of `screen` that holds `needle`.
fn row_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{screen}"))
}

#[test]
fn the_overview_lists_each_server_and_why_one_failed() {
    let mut h = with_servers();
    h.keys("o");
    let wide = h.screen(120, 35);
    assert!(wide.contains("MCP servers · 2 of 3 listed"), "{wide}");
    assert!(
        row_with(&wide, "✓ github").contains("listed · 2 tools"),
        "{wide}"
    );
    let broken = row_with(&wide, "✗ broken");
    assert!(
        broken.contains("failed: the server exited; stderr: python3"),
        "{wide}"
    );
    // Too long for the pane: cut with a mark, inside the border.
    assert!(broken.trim_end().ends_with("…│"), "{broken}");
    let narrow = h.screen(80, 24);
    let broken = row_with(&narrow, "✗ broken");
    assert!(broken.contains("failed: the server"), "{narrow}");
    assert!(broken.contains('…'), "{broken}");
    // The strategy table keeps its rows; the notes give way (and say so).
    assert!(narrow.contains("notes hidden"), "{narrow}");
}

#[test]
fn the_grouped_matrix_shows_a_failed_server_as_a_group_without_tools() {
    let mut h = with_servers();
    h.keys("b");
    let wide = h.screen(120, 35);
    // Its status, a cut reason (the overview has it whole), and no figures.
    let broken = row_with(&wide, "✗ broken");
    assert!(broken.contains("✗ broken: failed: the"), "{broken}");
    assert!(broken.contains('…'), "{broken}");
    assert!(!broken.chars().any(|c| c.is_ascii_digit()), "{broken}");
    assert!(wide.contains("▾ github (2 tools)"), "{wide}");
    // First, so it shows without scrolling; the status line counts it.
    let narrow = h.screen(80, 24);
    let broken = row_with(&narrow, "✗ broken");
    assert!(broken.contains("✗ broken: failed"), "{broken}");
    assert!(
        narrow.contains("3 servers (1 not listed, first)"),
        "{narrow}"
    );
    // Ungrouped, the matrix lists tools only, as without servers.
    h.keys("b");
    assert!(!h.screen(120, 35).contains("✗ broken"));
}

#[test]
fn nothing_is_cut_without_a_mark_with_servers_at_four_sizes() {
    let mut found = Vec::new();
    for (name, script) in [("overview", "o"), ("matrix_grouped", "b")] {
        let mut h = with_servers();
        h.keys(script);
        cuts_at_four_sizes(name, &mut h, &mut found);
    }
    assert!(
        found.is_empty(),
        "cut without a mark:\n{}",
        found.join("\n")
    );
}

#[test]
fn more_servers_than_rows_say_how_many_more_and_no_size_panics() {
    let mut h = with_servers();
    let mut servers = h.app.ctx.servers.clone();
    for i in 0..12 {
        servers.push(ServerStatus {
            name: format!("extra{i}"),
            state: ServerState::Skipped,
            tools: 0,
            reason: Some("disabled in its config: not started".into()),
        });
    }
    h.app.set_servers(servers);
    h.keys("o");
    let screen = h.screen(80, 24);
    // A third of the body at most: three servers, then the count of the rest.
    assert!(
        screen.contains("… 12 more servers: they print on quit"),
        "{screen}"
    );
    for script in ["", "b"] {
        h.keys(script);
        for (w, hh) in [
            (1, 1),
            (10, 3),
            (40, 10),
            (41, 13),
            (60, 20),
            (300, 12),
            (12, 300),
        ] {
            h.draw(w, hh);
        }
    }
}

#[test]
fn a_servers_hostile_name_and_reason_never_reach_the_buffer_raw() {
    let mut h = Harness::new();
    h.app.set_servers(vec![ServerStatus {
        name: "evil\u{1b}[2J\u{202e}".into(),
        state: ServerState::Failed,
        tools: 0,
        reason: Some("exited\u{1b}]0;title\u{7}\r\nspoofed".into()),
    }]);
    for script in ["o", "<esc>mb"] {
        h.keys(script);
        let screen = h.screen(120, 35);
        assert!(screen.contains("evil"), "{screen}");
        for raw in ['\u{1b}', '\u{202e}', '\u{7}', '\r'] {
            assert!(!screen.contains(raw), "{raw:?} in {screen}");
        }
    }
}
