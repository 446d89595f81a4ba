//! The bytes a frame writes under `NO_COLOR=1`. In a process of its own (this test binary run
//! again for this one test): crossterm reads `NO_COLOR` once per process, and the variable
//! would reach every test and child process running beside it.
//!
//! crossterm 0.29 turns every colour change into a bare `ESC[;m` (SGR 0) when `NO_COLOR` is
//! set, which cancels the reverse/bold attributes that show the selection. The monochrome
//! theme sets no colour, so none of those resets can appear and the attributes survive.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use toolprism::measure::Encoding;
use toolprism::tui::worker::Worker;
use toolprism::tui::{App, Effect, Msg, update};
use toolprism::{Capture, Settings};

const SAMPLE: &str = include_str!("fixtures/tui-sample.json");

/// A writer whose bytes stay readable after the backend took it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn frame_bytes(color: bool) -> Vec<u8> {
    let capture = Arc::new(Capture::from_bytes(SAMPLE.as_bytes()).unwrap());
    let mut app = App::new(
        capture.clone(),
        "s.json".into(),
        Settings::default(),
        Encoding::O200kBase,
        color,
    );
    let mut worker = Worker::new(capture);
    for effect in std::mem::take(&mut app.effects) {
        if let Effect::Compute(job) = effect {
            let mut out = Vec::new();
            worker.run(&job, &mut |m| out.push(m), &mut || false);
            for m in out {
                update(&mut app, Msg::Worker(m));
            }
        }
    }
    update(&mut app, Msg::Resize(100, 30));
    let out = Shared::default();
    let mut terminal = Terminal::new(CrosstermBackend::new(out.clone())).unwrap();
    terminal
        .resize(ratatui::layout::Rect::new(0, 0, 100, 30))
        .unwrap();
    terminal
        .draw(|f| toolprism::tui::view::render(&app, f))
        .unwrap();
    drop(terminal);
    out.0.borrow().clone()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Set in the child process the test runs in.
const CHILD: &str = "TOOLPRISM_NO_COLOR_CHILD";

#[test]
fn no_color_keeps_the_selection_reversed() {
    if std::env::var_os(CHILD).is_none() {
        let (_, module) = module_path!()
            .split_once("::")
            .expect("a module of the test binary");
        let name = format!("{module}::no_color_keeps_the_selection_reversed");
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name, "--test-threads=1"])
            .env(CHILD, "1")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        assert!(
            stdout.contains("1 passed"),
            "the child ran the test: {stdout}"
        );
        return;
    }
    assert_eq!(std::env::var("NO_COLOR").as_deref(), Ok("1"));
    let mono = frame_bytes(false);
    assert!(
        contains(&mono, b"\x1b[7m"),
        "the selection is drawn reversed"
    );
    assert!(
        !contains(&mono, b"\x1b[;m"),
        "no colour change, so crossterm never writes its attribute-cancelling reset"
    );
    // With colour asked for explicitly, the inspector turns crossterm's suppression off, and
    // colours are written for real instead of as resets.
    crossterm::style::Colored::set_ansi_color_disabled(false);
    let colored = frame_bytes(true);
    assert!(!contains(&colored, b"\x1b[;m"));
    assert!(contains(&colored, b"\x1b[38;5;"), "colours are written");
}
