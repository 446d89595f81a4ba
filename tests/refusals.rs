//! Refused and invalid projections in the interactive view: a refused strategy shows `refused`
//! instead of figures and cannot be exported; an export of a request a provider would reject
//! asks first.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use toolprism::measure::Encoding;
use toolprism::tui::app::Overlay;
use toolprism::tui::worker::Worker;
use toolprism::tui::{App, Effect, Msg, update, write_export};
use toolprism::{Capture, Settings};

struct View {
    app: App,
    worker: Worker,
}

impl View {
    fn open(path: &str) -> View {
        let text = std::fs::read_to_string(path).unwrap();
        let capture = Arc::new(Capture::from_bytes(text.as_bytes()).unwrap());
        let app = App::new(
            capture.clone(),
            path.into(),
            Settings::default(),
            Encoding::O200kBase,
            false,
        );
        let mut view = View {
            app,
            worker: Worker::new(capture),
        };
        view.settle();
        view
    }

    /// Run the computations the app asked for and feed the results back; writes stay queued.
    fn settle(&mut self) {
        loop {
            let effects = std::mem::take(&mut self.app.effects);
            let mut computed = false;
            for effect in effects {
                match effect {
                    Effect::Compute(job) => {
                        computed = true;
                        let mut out = Vec::new();
                        self.worker.run(&job, &mut |m| out.push(m), &mut || false);
                        for m in out {
                            update(&mut self.app, Msg::Worker(m));
                        }
                    }
                    other => self.app.effects.push(other),
                }
            }
            if !computed {
                return;
            }
        }
    }

    fn keys(&mut self, keys: &str) {
        for c in keys.chars() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            update(
                &mut self.app,
                Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)),
            );
            self.settle();
        }
    }

    fn backspaces(&mut self, n: usize) {
        for _ in 0..n {
            update(
                &mut self.app,
                Msg::Key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE)),
            );
        }
    }

    fn screen(&mut self, w: u16, h: u16) -> Vec<String> {
        update(&mut self.app, Msg::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| toolprism::tui::view::render(&self.app, f))
            .unwrap();
        let buffer = terminal.backend().buffer();
        (0..h)
            .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect())
            .collect()
    }

    /// Perform the queued writes; return how many there were.
    fn write(&mut self) -> usize {
        let effects = std::mem::take(&mut self.app.effects);
        let mut writes = 0;
        for effect in effects {
            if let Effect::Write {
                path,
                bytes,
                overwrite,
                what,
            } = effect
            {
                writes += 1;
                let result = write_export(&path, &bytes, overwrite, &self.app.ctx.inputs);
                update(&mut self.app, Msg::Written { what, result });
            }
        }
        writes
    }

    fn export_error(&self) -> (bool, Option<String>) {
        match &self.app.overlay {
            Some(Overlay::Export(dialog)) => (dialog.confirm, dialog.error.clone()),
            other => panic!("export dialog open, not {other:?}"),
        }
    }
}

#[test]
fn refused_strategies_show_refused_instead_of_figures() {
    let mut view = View::open("tests/fixtures/duplicate-names.json");
    // The overview's strategy table (the home screen is the matrix).
    view.keys("o");
    let screen = view.screen(120, 35);
    for id in ["direct", "adaptive", "code", "disabled"] {
        // The overview's row, not the tab bar above it.
        let row = screen
            .iter()
            .filter(|l| !l.contains("Overview"))
            .find(|l| l.contains(&format!(" {id} ")))
            .unwrap_or_else(|| panic!("a row for {id}:\n{}", screen.join("\n")));
        assert!(row.contains("refused"), "{row}");
        assert!(
            !row.contains('%'),
            "no saving for a refused strategy: {row}"
        );
    }
    // The status bar of a refused strategy says so instead of figures.
    view.keys("5");
    let screen = view.screen(120, 35);
    assert!(
        screen
            .iter()
            .any(|l| l.contains("direct: refused by the host, no figures")),
        "{}",
        screen.join("\n")
    );
}

#[test]
fn a_refused_projection_is_not_exported() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.json");
    let mut view = View::open("tests/fixtures/duplicate-names.json");
    view.keys("5x");
    // No dialog opens: the status line says why, in the error style.
    assert!(view.app.overlay.is_none(), "{:?}", view.app.overlay);
    assert_eq!(
        view.app.status,
        Some((
            "direct refuses this capture: there is no projection to export".to_owned(),
            true
        ))
    );
    assert_eq!(view.write(), 0, "nothing written");
    assert!(!target.exists());
}

#[test]
fn an_invalid_request_is_exported_only_when_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("defer.json");
    let mut view = View::open("samples/large.json");
    view.keys("0x");
    view.backspaces(80);
    view.keys(&format!("{}\n", target.display()));
    assert_eq!(view.write(), 0, "asks first");
    let (confirm, error) = view.export_error();
    assert!(confirm);
    assert_eq!(
        error.as_deref(),
        Some(
            "a provider would reject this request: tool_choice names `mcp__github__create_issue`, which this projection does not send (deferred): the provider will reject the request"
        )
    );
    // No keeps the dialog and writes nothing; yes writes.
    view.keys("n");
    assert_eq!(view.write(), 0);
    assert!(!target.exists());
    view.keys("\n");
    assert!(view.export_error().0, "asked again");
    view.keys("y");
    assert_eq!(view.write(), 1);
    assert!(view.app.overlay.is_none(), "written and closed");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert!(written["tools"].is_array());
}
