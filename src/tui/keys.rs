//! The one table of key bindings. Key handling, the footer hints and the help overlay are all
//! generated from [`BINDINGS`], so what the help says is what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a key is pressed: the top overlay, or the screen under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Everywhere no dialog is open.
    Global,
    /// The home screen: tools × strategies.
    Matrix,
    /// The overview screen.
    Overview,
    /// A strategy's side-by-side screen.
    Strategy,
    /// Typing a search.
    Search,
    /// The settings editor, choosing a key.
    Settings,
    /// The settings editor, typing a value.
    SettingsEdit,
    /// The export dialog.
    Export,
    /// Asking whether to overwrite an existing file.
    Confirm,
    /// Asking whether to quit with changed settings.
    QuitConfirm,
    /// The help overlay.
    Help,
    /// Typing the help's filter.
    HelpSearch,
    /// A trace's session view: the turns, the chart, the strategies' totals.
    Session,
    /// A turn's tools against the previous turn of its thread.
    TurnDiff,
}

impl Context {
    /// The heading the help overlay gives this context.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Matrix => "Matrix (home)",
            Context::QuitConfirm => "Quit?",
            Context::Overview => "Overview",
            Context::Strategy => "Strategy view",
            Context::Search => "Search",
            Context::Settings => "Settings",
            Context::SettingsEdit => "Editing a setting",
            Context::Export => "Export",
            Context::Confirm => "Overwrite?",
            Context::Help => "Help",
            Context::HelpSearch => "Filtering the help",
            Context::Session => "Session view (a trace)",
            Context::TurnDiff => "Turn diff (session)",
        }
    }

    /// Whether printable keys are text here (nothing falls through to the screen's bindings).
    pub fn is_text_input(self) -> bool {
        matches!(
            self,
            Context::Search | Context::SettingsEdit | Context::Export | Context::HelpSearch
        )
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the program.
    Quit,
    /// Close the top dialog, clear the filter, or leave.
    Back,
    /// Open or close the help overlay.
    Help,
    /// Move up one row (or scroll up).
    Up,
    /// Move down one row (or scroll down).
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first row.
    Top,
    /// To the last row.
    Bottom,
    /// Scroll the detail left.
    Left,
    /// Scroll the detail right.
    Right,
    /// The next tab.
    NextTab,
    /// The previous tab.
    PrevTab,
    /// The overview tab.
    Overview,
    /// A strategy tab by its key (`1`-`9`, `0`, `-`); resolved from the key pressed.
    StrategyKey,
    /// Open the selected strategy (overview).
    Open,
    /// Move the focus to the other pane.
    FocusNext,
    /// Cycle the detail: entries, unified diff, side-by-side diff.
    DiffMode,
    /// Show the selected tool's original and projected entries.
    Entries,
    /// Show the request-level view.
    Request,
    /// Show the text the strategy adds (reminder, catalogs).
    Added,
    /// Wrap long lines in the entries view on or off.
    Wrap,
    /// Tokens or bytes in a tool table too narrow for both.
    Units,
    /// Start a search.
    Search,
    /// Cycle the sort order.
    Sort,
    /// Open the settings editor.
    Settings,
    /// Switch the encoding.
    Encoding,
    /// Open the export dialog.
    Export,
    /// Confirm the dialog.
    Confirm,
    /// Toggle the dialog's choice.
    Toggle,
    /// Delete the character before the cursor.
    Backspace,
    /// Answer yes.
    Yes,
    /// Answer no.
    No,
    /// Put every setting back to its default.
    Reset,
    /// Keep only the tools the cursor's strategy changes (matrix).
    FilterChanged,
    /// The matrix, the home screen.
    Matrix,
    /// Suspend to the shell (Ctrl-Z).
    Suspend,
    /// The detail takes the whole body, or gives it back.
    Zoom,
    /// Delete from the start of the line to the cursor.
    KillToStart,
    /// Delete the word before the cursor.
    KillWord,
    /// Copy the selected tool's JSON to the clipboard.
    Copy,
    /// The next turn where the cache broke (session view).
    NextBreak,
    /// The previous turn where the cache broke (session view).
    PrevBreak,
    /// Swap the chart and the totals on a small terminal (session view).
    Panes,
    /// The entries as pretty JSON, or as the text of their strings.
    ViewMode,
    /// The next search match.
    NextMatch,
    /// The previous search match.
    PrevMatch,
}

/// One key (a code and the modifiers that matter: Ctrl and Alt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(pub KeyCode, pub KeyModifiers);

const fn k(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::NONE)
}

const fn code(c: KeyCode) -> Key {
    Key(c, KeyModifiers::NONE)
}

const fn ctrl(c: char) -> Key {
    Key(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// One binding: in a context, these keys do this.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Where it applies.
    pub context: Context,
    /// The keys.
    pub keys: &'static [Key],
    /// How the keys are written in hints and the help.
    pub label: &'static str,
    /// What they do.
    pub action: Action,
    /// What the help says.
    pub help: &'static str,
    /// Shown in the footer.
    pub hint: bool,
}

const fn b(
    context: Context,
    keys: &'static [Key],
    label: &'static str,
    action: Action,
    help: &'static str,
    hint: bool,
) -> Binding {
    Binding {
        context,
        keys,
        label,
        action,
        help,
        hint,
    }
}

/// The strategy keys, in `Strategy::ALL` order.
pub const STRATEGY_KEYS: [char; 12] = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];

use Action as A;
use Context as C;

/// Every binding. Order matters twice: the first match wins, and the help lists them in order.
pub const BINDINGS: &[Binding] = &[
    // Dialogs first: they take keys before the screen does.
    b(
        C::Help,
        &[code(KeyCode::Esc), k('q'), k('?')],
        "Esc q ?",
        A::Back,
        "clear the filter, else close the help",
        true,
    ),
    b(
        C::Help,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "scroll down",
        true,
    ),
    b(
        C::Help,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "scroll up",
        true,
    ),
    b(
        C::Help,
        &[code(KeyCode::PageDown), k(' '), ctrl('d')],
        "PgDn Space",
        A::PageDown,
        "page down",
        false,
    ),
    b(
        C::Help,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp",
        A::PageUp,
        "page up",
        false,
    ),
    b(
        C::Help,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "top",
        false,
    ),
    b(
        C::Help,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "end",
        false,
    ),
    b(
        C::Help,
        &[k('/')],
        "/",
        A::Search,
        "filter the keys and glyphs",
        true,
    ),
    b(
        C::HelpSearch,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Confirm,
        "keep the filter",
        true,
    ),
    b(
        C::HelpSearch,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "clear the filter",
        true,
    ),
    b(
        C::HelpSearch,
        &[code(KeyCode::Backspace)],
        "Backspace",
        A::Backspace,
        "delete a character",
        false,
    ),
    b(
        C::HelpSearch,
        &[code(KeyCode::Down)],
        "↓",
        A::Down,
        "scroll down",
        false,
    ),
    b(
        C::HelpSearch,
        &[code(KeyCode::Up)],
        "↑",
        A::Up,
        "scroll up",
        false,
    ),
    b(
        C::Search,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Confirm,
        "keep the filter",
        true,
    ),
    b(
        C::Search,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "clear the filter",
        true,
    ),
    b(
        C::Search,
        &[code(KeyCode::Backspace)],
        "Backspace",
        A::Backspace,
        "delete a character",
        false,
    ),
    b(
        C::Search,
        &[code(KeyCode::Down)],
        "↓",
        A::Down,
        "next match",
        false,
    ),
    b(
        C::Search,
        &[code(KeyCode::Up)],
        "↑",
        A::Up,
        "previous match",
        false,
    ),
    b(
        C::Settings,
        &[code(KeyCode::Esc), k('q'), k('S')],
        "Esc q",
        A::Back,
        "close the settings",
        true,
    ),
    b(
        C::Settings,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "next setting",
        true,
    ),
    b(
        C::Settings,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "previous setting",
        true,
    ),
    b(
        C::Settings,
        &[code(KeyCode::Enter), k(' ')],
        "Enter",
        A::Confirm,
        "edit the value (encoding: switch)",
        true,
    ),
    b(
        C::Settings,
        &[k('R')],
        "R",
        A::Reset,
        "every setting back to its default",
        true,
    ),
    b(
        C::SettingsEdit,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Confirm,
        "apply: re-project and re-measure everything",
        true,
    ),
    b(
        C::SettingsEdit,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "cancel",
        true,
    ),
    b(
        C::SettingsEdit,
        &[code(KeyCode::Backspace)],
        "Backspace",
        A::Backspace,
        "delete a character",
        false,
    ),
    b(
        C::Export,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Confirm,
        "write the file",
        true,
    ),
    b(
        C::Export,
        &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        "Tab",
        A::Toggle,
        "request body or tools only",
        true,
    ),
    b(
        C::Export,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "cancel",
        true,
    ),
    b(
        C::Export,
        &[code(KeyCode::Backspace)],
        "Backspace",
        A::Backspace,
        "delete a character",
        false,
    ),
    b(
        C::Export,
        &[code(KeyCode::Left)],
        "←",
        A::Left,
        "cursor left",
        false,
    ),
    b(
        C::Export,
        &[code(KeyCode::Right)],
        "→",
        A::Right,
        "cursor right",
        false,
    ),
    b(
        C::Export,
        &[code(KeyCode::Home), ctrl('a')],
        "Home ^a",
        A::Top,
        "cursor to the start",
        false,
    ),
    b(
        C::Export,
        &[code(KeyCode::End), ctrl('e')],
        "End ^e",
        A::Bottom,
        "cursor to the end",
        false,
    ),
    b(
        C::Export,
        &[ctrl('u')],
        "^u",
        A::KillToStart,
        "delete to the start",
        false,
    ),
    b(
        C::Export,
        &[ctrl('w')],
        "^w",
        A::KillWord,
        "delete the word before the cursor",
        false,
    ),
    b(
        C::Confirm,
        &[k('y'), k('Y')],
        "y",
        A::Yes,
        "overwrite the file",
        true,
    ),
    b(
        C::Confirm,
        &[k('n'), k('N'), code(KeyCode::Esc)],
        "n Esc",
        A::No,
        "keep it, choose another path",
        true,
    ),
    b(
        C::QuitConfirm,
        &[k('y'), k('Y'), k('q')],
        "y",
        A::Yes,
        "quit and drop the changed settings",
        true,
    ),
    b(
        C::QuitConfirm,
        &[k('n'), k('N'), code(KeyCode::Esc)],
        "n Esc",
        A::No,
        "stay",
        true,
    ),
    // Screens.
    b(
        C::Matrix,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "next tool",
        true,
    ),
    b(
        C::Matrix,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "previous tool",
        false,
    ),
    b(
        C::Matrix,
        &[k('h'), code(KeyCode::Left)],
        "h l",
        A::Left,
        "previous column (the strategy columns pan)",
        true,
    ),
    b(
        C::Matrix,
        &[k('l'), code(KeyCode::Right)],
        "l →",
        A::Right,
        "next column",
        false,
    ),
    b(
        C::Matrix,
        &[code(KeyCode::PageDown), ctrl('d'), k(' ')],
        "PgDn ^d",
        A::PageDown,
        "page down",
        false,
    ),
    b(
        C::Matrix,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp ^u",
        A::PageUp,
        "page up",
        false,
    ),
    b(
        C::Matrix,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "first tool",
        false,
    ),
    b(
        C::Matrix,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "last tool",
        false,
    ),
    b(
        C::Matrix,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Open,
        "open this tool under this strategy (entries side by side, diff)",
        true,
    ),
    b(
        C::Matrix,
        &[k('s')],
        "s",
        A::Sort,
        "sort by the cursor's column (again: the other way)",
        true,
    ),
    b(
        C::Matrix,
        &[k('f')],
        "f",
        A::FilterChanged,
        "only the tools the cursor's strategy changes (again: all)",
        true,
    ),
    b(
        C::Matrix,
        &[k('/')],
        "/",
        A::Search,
        "filter tools by name and text",
        true,
    ),
    b(
        C::Matrix,
        &[k('n')],
        "n N",
        A::NextMatch,
        "next tool matching the search (N: previous)",
        true,
    ),
    b(
        C::Matrix,
        &[k('N')],
        "N",
        A::PrevMatch,
        "previous tool matching the search",
        false,
    ),
    b(
        C::Matrix,
        &[k('x')],
        "x",
        A::Export,
        "export the cursor's strategy",
        true,
    ),
    b(
        C::Matrix,
        &[k('o')],
        "o",
        A::Overview,
        "the overview: strategy table, bars and notes",
        true,
    ),
    b(
        C::Matrix,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "clear the search, then the f filter (never quits)",
        false,
    ),
    b(
        C::Overview,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "back to the matrix",
        false,
    ),
    b(
        C::Overview,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "next strategy",
        true,
    ),
    b(
        C::Overview,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "previous strategy",
        false,
    ),
    b(
        C::Overview,
        &[code(KeyCode::Enter), k('l'), code(KeyCode::Right)],
        "Enter",
        A::Open,
        "open the strategy side by side",
        true,
    ),
    b(
        C::Overview,
        &[code(KeyCode::PageDown), ctrl('d'), k(' ')],
        "PgDn ^d",
        A::PageDown,
        "scroll the notes down",
        true,
    ),
    b(
        C::Overview,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp ^u",
        A::PageUp,
        "scroll the notes up",
        false,
    ),
    b(
        C::Overview,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "first strategy",
        false,
    ),
    b(
        C::Overview,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "last strategy",
        false,
    ),
    b(
        C::Strategy,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "next tool (or scroll the detail)",
        true,
    ),
    b(
        C::Strategy,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "previous tool (or scroll the detail)",
        false,
    ),
    b(
        C::Strategy,
        &[code(KeyCode::PageDown), ctrl('d'), k(' ')],
        "PgDn ^d",
        A::PageDown,
        "page down",
        false,
    ),
    b(
        C::Strategy,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp ^u",
        A::PageUp,
        "page up",
        false,
    ),
    b(
        C::Strategy,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "first tool (or top of the detail)",
        false,
    ),
    b(
        C::Strategy,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "last tool (or end of the detail)",
        false,
    ),
    b(
        C::Strategy,
        &[k('h'), code(KeyCode::Left)],
        "h ←",
        A::Left,
        "scroll the detail left",
        false,
    ),
    b(
        C::Strategy,
        &[k('l'), code(KeyCode::Right)],
        "l →",
        A::Right,
        "scroll the detail right",
        false,
    ),
    b(
        C::Strategy,
        &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        "Tab",
        A::FocusNext,
        "focus the tools or the detail",
        true,
    ),
    b(
        C::Strategy,
        &[k('d')],
        "d",
        A::DiffMode,
        "detail: entries → unified diff → side-by-side diff",
        true,
    ),
    b(
        C::Strategy,
        &[k('e')],
        "e",
        A::Entries,
        "detail: original and projected entries",
        false,
    ),
    b(
        C::Strategy,
        &[k('v')],
        "v",
        A::ViewMode,
        "entries as JSON or as text (each string, its \\n as line breaks)",
        true,
    ),
    b(
        C::Strategy,
        &[k('r')],
        "r",
        A::Request,
        "detail: request-level bytes and prompt-cache prefix",
        true,
    ),
    b(
        C::Strategy,
        &[k('a')],
        "a",
        A::Added,
        "detail: added text (reminder, catalog, added tools)",
        true,
    ),
    b(
        C::Strategy,
        &[k('z')],
        "z",
        A::Zoom,
        "enlarge the detail to the whole screen, or give the tools back",
        false,
    ),
    b(
        C::Strategy,
        &[k('w')],
        "w",
        A::Wrap,
        "wrap long lines on or off",
        false,
    ),
    b(
        C::Strategy,
        &[k('b')],
        "b",
        A::Units,
        "tokens or bytes in the tool table (both when wide)",
        false,
    ),
    b(
        C::Strategy,
        &[k('/')],
        "/",
        A::Search,
        "filter tools by name and text",
        true,
    ),
    b(
        C::Strategy,
        &[k('n')],
        "n N",
        A::NextMatch,
        "next search match in the entries, then the next matching tool (N: back)",
        true,
    ),
    b(
        C::Strategy,
        &[k('N')],
        "N",
        A::PrevMatch,
        "previous search match",
        false,
    ),
    b(
        C::Strategy,
        &[k('s')],
        "s",
        A::Sort,
        "sort: original order → saving → size → name",
        true,
    ),
    b(
        C::Strategy,
        &[k('x')],
        "x",
        A::Export,
        "export this projection",
        true,
    ),
    b(
        C::Strategy,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "clear the filter, else back to the matrix",
        false,
    ),
    b(
        C::Global,
        &[
            k('1'),
            k('2'),
            k('3'),
            k('4'),
            k('5'),
            k('6'),
            k('7'),
            k('8'),
            k('9'),
            k('0'),
            k('-'),
            k('='),
        ],
        "1-9 0 - =",
        A::StrategyKey,
        "open a strategy (in the order of the overview)",
        true,
    ),
    b(
        C::Global,
        &[k('y')],
        "y",
        A::Copy,
        "copy the selected tool's JSON (as sent) to the clipboard (OSC 52)",
        false,
    ),
    b(
        C::Global,
        &[k('m')],
        "m",
        A::Matrix,
        "the matrix (home)",
        false,
    ),
    b(
        C::Global,
        &[k('o'), k('`')],
        "o",
        A::Overview,
        "the overview: strategy table, bars and notes",
        false,
    ),
    b(C::Global, &[k(']')], "]", A::NextTab, "next tab", false),
    b(C::Global, &[k('[')], "[", A::PrevTab, "previous tab", false),
    b(
        C::Global,
        &[k('S')],
        "S",
        A::Settings,
        "edit the settings and the encoding",
        true,
    ),
    b(
        C::Global,
        &[k('E')],
        "E",
        A::Encoding,
        "switch the encoding (o200k_base / cl100k_base)",
        false,
    ),
    b(C::Global, &[k('?')], "?", A::Help, "this help", true),
    b(
        C::Global,
        &[k('q')],
        "q",
        A::Quit,
        "quit (asks when the settings were changed)",
        true,
    ),
    b(
        C::Global,
        &[ctrl('z')],
        "^z",
        A::Suspend,
        "suspend to the shell (fg resumes)",
        false,
    ),
    b(
        C::Global,
        &[ctrl('c')],
        "^c",
        A::Quit,
        "quit at once, from anywhere",
        false,
    ),
    // The session view (a trace) and its turn diff: screens of their own, no global fallback.
    b(
        C::Session,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "next turn (or strategy, with the strategies focused)",
        true,
    ),
    b(
        C::Session,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "previous turn (or strategy)",
        false,
    ),
    b(
        C::Session,
        &[code(KeyCode::PageDown), ctrl('d')],
        "PgDn",
        A::PageDown,
        "a page of turns down",
        false,
    ),
    b(
        C::Session,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp",
        A::PageUp,
        "a page of turns up",
        false,
    ),
    b(
        C::Session,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "first turn",
        false,
    ),
    b(
        C::Session,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "last turn",
        false,
    ),
    b(
        C::Session,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Open,
        "open the turn in the single-request views; Esc comes back",
        true,
    ),
    b(
        C::Session,
        &[k('d')],
        "d",
        A::DiffMode,
        "the turn's tools against the previous turn of its thread",
        true,
    ),
    b(
        C::Session,
        &[k('n')],
        "n",
        A::NextBreak,
        "next turn with a break mark (▲ cache broke, * a list changed)",
        true,
    ),
    b(
        C::Session,
        &[k('N')],
        "N",
        A::PrevBreak,
        "previous turn with a break mark",
        false,
    ),
    b(
        C::Session,
        &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        "Tab",
        A::FocusNext,
        "focus the turns or the strategies (what the chart shows)",
        true,
    ),
    b(
        C::Session,
        &[k(' ')],
        "Space",
        A::Toggle,
        "show or hide the selected strategy on the chart",
        true,
    ),
    b(
        C::Session,
        &[k('v')],
        "v",
        A::Panes,
        "chart or totals, where only one fits",
        false,
    ),
    b(
        C::Session,
        &[code(KeyCode::Esc)],
        "Esc",
        A::Back,
        "back to the turns (never quits)",
        false,
    ),
    b(C::Session, &[k('?')], "?", A::Help, "keys and glyphs", true),
    b(C::Session, &[k('q'), ctrl('c')], "q", A::Quit, "quit", true),
    b(
        C::TurnDiff,
        &[code(KeyCode::Esc), k('d')],
        "Esc d",
        A::Back,
        "back to the session view",
        true,
    ),
    b(
        C::TurnDiff,
        &[k('j'), code(KeyCode::Down)],
        "j ↓",
        A::Down,
        "scroll down",
        true,
    ),
    b(
        C::TurnDiff,
        &[k('k'), code(KeyCode::Up)],
        "k ↑",
        A::Up,
        "scroll up",
        false,
    ),
    b(
        C::TurnDiff,
        &[code(KeyCode::PageDown), k(' '), ctrl('d')],
        "PgDn Space",
        A::PageDown,
        "page down",
        false,
    ),
    b(
        C::TurnDiff,
        &[code(KeyCode::PageUp), ctrl('u')],
        "PgUp",
        A::PageUp,
        "page up",
        false,
    ),
    b(
        C::TurnDiff,
        &[k('g'), code(KeyCode::Home)],
        "g Home",
        A::Top,
        "top",
        false,
    ),
    b(
        C::TurnDiff,
        &[k('G'), code(KeyCode::End)],
        "G End",
        A::Bottom,
        "end",
        false,
    ),
    b(
        C::TurnDiff,
        &[code(KeyCode::Enter)],
        "Enter",
        A::Open,
        "open the turn's request in the single-request views",
        true,
    ),
    b(
        C::TurnDiff,
        &[k('?')],
        "?",
        A::Help,
        "keys and glyphs",
        true,
    ),
    b(
        C::TurnDiff,
        &[k('q'), ctrl('c')],
        "q",
        A::Quit,
        "quit",
        true,
    ),
];

/// `Ctrl-C` quits from every context, dialogs included.
pub fn is_interrupt(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c')
}

/// `Ctrl-Z` suspends from every context, dialogs included.
pub fn is_suspend(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z')
}

fn matches(binding_key: &Key, key: &KeyEvent) -> bool {
    // Shift is part of the character (`G`, `?`), so only Ctrl and Alt are compared.
    let mut mods = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    if key.code == KeyCode::Esc {
        // Two quick Escapes arrive as Alt-Esc in some terminals: still an Escape.
        mods.remove(KeyModifiers::ALT);
    }
    binding_key.0 == key.code && binding_key.1 == mods
}

/// The action a key triggers in `context` (the screen's context falls back to global), and
/// for a strategy key the strategy's index.
pub fn lookup(context: Context, key: &KeyEvent) -> Option<(Action, Option<usize>)> {
    let found = |ctx: Context| {
        BINDINGS
            .iter()
            .filter(|binding| binding.context == ctx)
            .find(|binding| binding.keys.iter().any(|k| matches(k, key)))
    };
    let binding = match context {
        C::Matrix | C::Overview | C::Strategy => found(context).or_else(|| found(C::Global)),
        other => found(other),
    }?;
    let strategy = match (binding.action, key.code) {
        (A::StrategyKey, KeyCode::Char(c)) => STRATEGY_KEYS.iter().position(|&s| s == c),
        _ => None,
    };
    Some((binding.action, strategy))
}

/// The footer hints for a context: `(keys, what)`, most useful first.
pub fn hints(context: Context) -> Vec<(&'static str, &'static str)> {
    let short = |b: &Binding| -> &'static str {
        match b.action {
            A::Quit => "quit",
            A::Help => "help",
            A::Down
                if matches!(
                    b.context,
                    C::Matrix | C::Overview | C::Strategy | C::Session
                ) =>
            {
                "move"
            }
            A::Left if b.context == C::Matrix => "column",
            A::FilterChanged => "changed",
            A::Down if b.context == C::TurnDiff => "scroll",
            A::Back if b.context == C::TurnDiff => "back",
            A::Toggle if b.context == C::Session => "chart",
            A::NextBreak => "break",
            A::Overview => "overview",
            A::Zoom => "zoom",
            A::PageDown if b.context == C::Overview => "notes",
            A::ViewMode => "text",
            A::NextMatch => "match",
            A::Open => "open",
            A::FocusNext => "focus",
            A::DiffMode => "diff",
            A::Request => "request",
            A::Added => "added",
            A::Search => "search",
            A::Sort => "sort",
            A::Export => "export",
            A::Settings => "settings",
            A::StrategyKey => "strategy",
            _ => b.help,
        }
    };
    let own = BINDINGS
        .iter()
        .filter(|b| b.context == context && b.hint)
        .map(|b| (b.label, short(b)));
    if matches!(context, C::Matrix | C::Overview | C::Strategy) {
        own.chain(
            BINDINGS
                .iter()
                .filter(|b| b.context == C::Global && b.hint)
                .map(|b| (b.label, short(b))),
        )
        .collect()
    } else {
        own.collect()
    }
}

/// The help overlay's sections, in table order: a context and its `(keys, help)` lines.
pub fn help_sections() -> Vec<(Context, Vec<(&'static str, &'static str)>)> {
    let order = [
        C::Global,
        C::Matrix,
        C::Overview,
        C::Strategy,
        C::Session,
        C::TurnDiff,
        C::Search,
        C::Settings,
        C::SettingsEdit,
        C::Export,
        C::Confirm,
        C::QuitConfirm,
        C::Help,
        C::HelpSearch,
    ];
    order
        .into_iter()
        .map(|ctx| {
            let lines = BINDINGS
                .iter()
                .filter(|b| b.context == ctx)
                .map(|b| (b.label, b.help))
                .collect();
            (ctx, lines)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn strategy_keys_map_in_order() {
        let (action, index) = lookup(C::Strategy, &key(KeyCode::Char('0'))).unwrap();
        assert_eq!(action, A::StrategyKey);
        assert_eq!(index, Some(9));
        assert_eq!(
            lookup(C::Overview, &key(KeyCode::Char('-'))).unwrap().1,
            Some(10)
        );
    }

    #[test]
    fn screen_keys_fall_back_to_global_but_dialogs_do_not() {
        assert_eq!(
            lookup(C::Strategy, &key(KeyCode::Char('q'))).unwrap().0,
            A::Quit
        );
        assert_eq!(lookup(C::Search, &key(KeyCode::Char('q'))), None);
        assert_eq!(
            lookup(C::Help, &key(KeyCode::Char('q'))).unwrap().0,
            A::Back
        );
    }

    #[test]
    fn shift_is_part_of_the_character() {
        let shifted = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(lookup(C::Strategy, &shifted).unwrap().0, A::Bottom);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(is_interrupt(&ctrl_c));
        assert_eq!(lookup(C::Strategy, &ctrl_c).unwrap().0, A::Quit);
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b2 in &BINDINGS[i + 1..] {
                let same_scope = a.context == b2.context
                    || (a.context == C::Global
                        && matches!(b2.context, C::Matrix | C::Overview | C::Strategy))
                    || (b2.context == C::Global
                        && matches!(a.context, C::Matrix | C::Overview | C::Strategy));
                if a.context != b2.context && same_scope {
                    // A screen binding may deliberately shadow a global one (Esc, [, ]).
                    continue;
                }
                if same_scope {
                    for key in a.keys {
                        assert!(
                            !b2.keys.contains(key),
                            "{key:?} bound twice in {:?}",
                            a.context
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn help_lists_every_binding() {
        let listed: usize = help_sections().iter().map(|(_, lines)| lines.len()).sum();
        assert_eq!(listed, BINDINGS.len());
    }
}
