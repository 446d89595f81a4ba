//! End to end: the real binary in a real terminal (tmux). Each test uses its own tmux server
//! socket and waits for screen text instead of sleeping; without tmux they skip with a message.

use std::process::Command;

use crate::support::tmux::Tmux;

const SAMPLE: &str = include_str!("fixtures/tui-sample.json");

/// The inspector on the sample in a `width`x`height` terminal, with `env` exported first.
fn inspect(name: &str, size: (u16, u16), env: &[(&str, &str)]) -> Option<Tmux> {
    let exports: String = env
        .iter()
        .map(|(k, v)| format!("export {k}={v}; "))
        .collect();
    let line = format!("{exports}$BIN sample.json");
    Tmux::program(
        &format!("tui-{name}"),
        size,
        &[("sample.json", SAMPLE)],
        &line,
    )
}

/// The pane's alternate-screen and mouse-tracking flags (`1` when on).
fn modes(t: &Tmux) -> String {
    t.display("alt=#{alternate_on} mouse=#{mouse_any_flag}")
}

#[test]
fn start_navigate_and_quit() {
    let Some(t) = inspect("nav", (120, 35), &[]) else {
        return;
    };
    t.wait_for("▼original");
    assert_eq!(
        modes(&t),
        "alt=1 mouse=1",
        "alternate screen and mouse capture while running"
    );
    // Measured figures arrive from the worker.
    t.wait("token figures", |s| {
        s.contains("tokens") && !s.contains("… tokens")
    });
    t.keys(&["3"]);
    t.wait_for("Tools · progressive");
    t.keys(&["j", "j"]);
    t.wait_for("original · bash");
    t.keys(&["d"]);
    t.wait_for("diff · bash");
    t.keys(&["?"]);
    t.wait_for("Keys · / filters");
    t.keys(&["Escape"]);
    t.wait("help closed", |s| !s.contains("Keys · / filters"));
    t.keys(&["q"]);
    assert_eq!(t.wait_exit(), 0);
    // The alternate screen is gone and mouse capture is off: the shell's screen is back.
    assert_eq!(modes(&t), "alt=0 mouse=0");
    let after = t.screen();
    assert!(!after.contains("Tools · progressive"), "{after}");
}

#[test]
fn a_panic_restores_the_terminal() {
    if !cfg!(debug_assertions) {
        eprintln!("release build: the panic trigger is compiled out, skipping");
        return;
    }
    // Without a backtrace: its length (the frames above the panic) would decide whether the
    // panic's message is still on the pane.
    let env = [("TOOLPRISM_TUI_TEST_PANIC", "1"), ("RUST_BACKTRACE", "0")];
    let Some(t) = inspect("panic", (100, 30), &env) else {
        return;
    };
    assert_eq!(t.wait_exit(), 101, "Rust's panic status");
    assert_eq!(modes(&t), "alt=0 mouse=0");
    let after = t.wait_for("the terminal was restored");
    assert!(after.contains("test panic requested"), "{after}");
}

#[test]
fn export_from_the_tui() {
    let Some(t) = inspect("export", (100, 30), &[]) else {
        return;
    };
    t.wait_for("▼original");
    t.keys(&["2"]);
    t.wait_for("Tools · full");
    t.keys(&["x"]);
    t.wait_for("Export full");
    t.keys(&["Enter"]);
    t.wait_for("exported full request body to");
    let written = std::fs::read_to_string(t.path("sample.full.json")).expect("exported file");
    let body: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert!(body.get("messages").is_some());
    // A second export to the same path asks before overwriting.
    t.keys(&["x"]);
    t.wait_for("Export full");
    t.keys(&["Enter"]);
    t.wait_for("Overwrite it?");
    t.keys(&["n", "Escape"]);
    // Tools only, to a typed name.
    t.keys(&["x", "Tab"]);
    t.wait_for("sample.full.tools.json");
    for _ in 0.."sample.full.tools.json".len() {
        t.keys(&["BSpace"]);
    }
    t.literal("mine.json");
    t.keys(&["Enter"]);
    t.wait_for("exported full tools to");
    let tools: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.path("mine.json")).unwrap()).unwrap();
    assert!(tools.is_array());
    t.keys(&["C-c"]);
    assert_eq!(t.wait_exit(), 130, "Ctrl-C: as a shell reports it");
}

#[test]
fn resize_down_and_up_again() {
    let Some(t) = inspect("resize", (120, 35), &[("NO_COLOR", "1")]) else {
        return;
    };
    t.wait_for("▼original");
    t.keys(&["3"]);
    t.wait_for("Tools · progressive");
    t.cmd(&["resize-window", "-t", "t", "-x", "60", "-y", "20"]);
    t.wait("a 60-column layout", |s| {
        s.contains("Tools · progressive") && s.lines().all(|l| l.chars().count() <= 60)
    });
    t.cmd(&["resize-window", "-t", "t", "-x", "30", "-y", "8"]);
    t.wait_for("toolprism needs 40x10");
    t.cmd(&["resize-window", "-t", "t", "-x", "100", "-y", "30"]);
    t.wait_for("Tools · progressive");
    t.keys(&["Escape"]);
    t.wait_for("▼original");
    // Esc on the home screen never quits; q does.
    t.keys(&["Escape"]);
    t.wait_for("this is the home screen · q quits");
    t.keys(&["q"]);
    assert_eq!(t.wait_exit(), 0);
}

#[test]
fn sigterm_and_sighup_restore_the_terminal_like_q() {
    for (signal, status) in [("-TERM", 128 + 15), ("-HUP", 128 + 1)] {
        let Some(t) = inspect(&format!("sig{}", &signal[1..]), (100, 30), &[]) else {
            return;
        };
        t.wait_for("▼original");
        assert_eq!(modes(&t), "alt=1 mouse=1");
        let pid = t.child_pid().to_string();
        let killed = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(killed.success());
        // Like q, but with the status a shell reports for a command the signal ended.
        assert_eq!(t.wait_exit(), status, "{signal} ends the inspector");
        assert_eq!(modes(&t), "alt=0 mouse=0", "{signal} restores the terminal");
    }
}
