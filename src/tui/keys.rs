//! The one table of key bindings. Key handling, the footer hints and the help overlay are all
//! generated from [`BINDINGS`], so what the help says is what the keys do.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::strategy::Strategy;

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
    /// Asking whether to write a request a provider will reject.
    ConfirmInvalid,
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
            Context::ConfirmInvalid => "Write a rejected request?",
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
    /// The JSON's layout: as captured, compact or pretty (export dialog).
    Pretty,
    /// Group the matrix's rows by MCP server, or not.
    GroupServers,
    /// Fold or unfold the cursor's server (grouped matrix).
    Fold,
    /// Fold every server, or unfold them all.
    FoldAll,
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

const ESC: Key = code(KeyCode::Esc);
const ENTER: Key = code(KeyCode::Enter);
const TAB: Key = code(KeyCode::Tab);
const BACK_TAB: Key = code(KeyCode::BackTab);
const BACKSPACE: Key = code(KeyCode::Backspace);
const UP: Key = code(KeyCode::Up);
const DOWN: Key = code(KeyCode::Down);
const LEFT: Key = code(KeyCode::Left);
const RIGHT: Key = code(KeyCode::Right);
const PAGE_UP: Key = code(KeyCode::PageUp);
const PAGE_DOWN: Key = code(KeyCode::PageDown);
const HOME: Key = code(KeyCode::Home);
const END: Key = code(KeyCode::End);
const SPACE: Key = k(' ');

impl Key {
    /// How the help and the footer write the key: `q`, `^d`, `Space`, `PgDn`, `↓`.
    pub fn name(self) -> String {
        let Key(code, mods) = self;
        let base = match code {
            KeyCode::Char(' ') => "Space".to_owned(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Esc => "Esc".to_owned(),
            KeyCode::Enter => "Enter".to_owned(),
            KeyCode::Tab => "Tab".to_owned(),
            KeyCode::BackTab => "⇧Tab".to_owned(),
            KeyCode::Backspace => "Backspace".to_owned(),
            KeyCode::Up => "↑".to_owned(),
            KeyCode::Down => "↓".to_owned(),
            KeyCode::Left => "←".to_owned(),
            KeyCode::Right => "→".to_owned(),
            KeyCode::PageUp => "PgUp".to_owned(),
            KeyCode::PageDown => "PgDn".to_owned(),
            KeyCode::Home => "Home".to_owned(),
            KeyCode::End => "End".to_owned(),
            other => format!("{other:?}"),
        };
        if mods.contains(KeyModifiers::CONTROL) {
            format!("^{base}")
        } else if mods.contains(KeyModifiers::ALT) {
            format!("M-{base}")
        } else {
            base
        }
    }
}

/// Whether and how a binding shows in the footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Footer {
    /// Only in the help.
    No,
    /// Its keys, then its help text.
    Help,
    /// Its keys, then this word.
    Word(&'static str),
    /// Its first key and the next binding's first key (`h l column`, `n N match`: a pair of
    /// bindings, each with its own line in the help), then this word.
    Pair(&'static str),
}

/// One binding: in a context, these keys do this.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// Where it applies.
    pub context: Context,
    /// What the keys do.
    pub action: Action,
    /// The keys the help and the footer write, in this order (the label is made from them).
    pub keys: &'static [Key],
    /// Keys bound too but not written, to keep the label short.
    pub aliases: &'static [Key],
    /// Whether and how the footer shows it.
    pub footer: Footer,
    /// What the help says.
    pub help: &'static str,
}

impl Binding {
    /// Every key bound, written or not.
    pub fn all_keys(&self) -> impl Iterator<Item = &Key> {
        self.keys.iter().chain(self.aliases)
    }

    /// The keys as written: their names with spaces between, a run of three or more
    /// consecutive characters as a range (`1-9`).
    pub fn label(&self) -> String {
        let names: Vec<String> = self.keys.iter().map(|k| k.name()).collect();
        let next = |a: &str, b: &str| -> bool {
            let (mut a, mut b) = (a.chars(), b.chars());
            match (a.next(), a.next(), b.next(), b.next()) {
                (Some(x), None, Some(y), None) => u32::from(x) + 1 == u32::from(y),
                _ => false,
            }
        };
        let mut words = Vec::new();
        let mut i = 0;
        while i < names.len() {
            let mut j = i;
            while j + 1 < names.len() && next(&names[j], &names[j + 1]) {
                j += 1;
            }
            if j >= i + 2 {
                words.push(format!("{}-{}", names[i], names[j]));
                i = j + 1;
            } else {
                words.push(names[i].clone());
                i += 1;
            }
        }
        words.join(" ")
    }
}

const fn b(
    context: Context,
    action: Action,
    keys: &'static [Key],
    aliases: &'static [Key],
    footer: Footer,
    help: &'static str,
) -> Binding {
    Binding {
        context,
        action,
        keys,
        aliases,
        footer,
        help,
    }
}

/// The strategy keys, in `Strategy::ALL` order (the top row, left to right, then `A` for
/// `append`, the row having no key left): one per strategy, or this does not compile.
pub const STRATEGY_KEYS: [char; Strategy::ALL.len()] = [
    '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', '\\', 'A',
];

/// A strategy's key.
pub const fn strategy_key(strategy: Strategy) -> char {
    STRATEGY_KEYS[strategy.index()]
}

/// The strategy a key opens.
pub fn strategy_of_key(c: char) -> Option<Strategy> {
    Strategy::ALL.into_iter().find(|&s| strategy_key(s) == c)
}

/// The top row of [`STRATEGY_KEYS`] as keys (the footer's `1-9 0 - = \`); `A` has its own
/// line in the help, so the footer keeps its width.
const STRATEGY_BINDING_KEYS: [Key; Strategy::ALL.len() - 1] = {
    let mut keys = [k('0'); Strategy::ALL.len() - 1];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = k(STRATEGY_KEYS[i]);
        i += 1;
    }
    keys
};

/// The last of [`STRATEGY_KEYS`], after the top row.
const LAST_STRATEGY_KEY: [Key; 1] = [k(STRATEGY_KEYS[Strategy::ALL.len() - 1])];

use Action as A;
use Context as C;
use Footer::{Help, No, Pair, Word};

/// Every binding, one a line: where, what, the keys written, the keys bound but not written,
/// the footer, the help. Order matters twice: the first match wins, and the help lists them
/// in order.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    // Dialogs first: they take keys before the screen does.
    b(C::Help,           A::Back,          &[ESC, k('q'), k('?')],         &[],               Help,             "clear the filter, else close the help"),
    b(C::Help,           A::Down,          &[k('j'), DOWN],                &[],               Help,             "scroll down"),
    b(C::Help,           A::Up,            &[k('k'), UP],                  &[],               Help,             "scroll up"),
    b(C::Help,           A::PageDown,      &[PAGE_DOWN, SPACE, ctrl('d')], &[],               No,               "page down"),
    b(C::Help,           A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "page up"),
    b(C::Help,           A::Top,           &[k('g'), HOME],                &[],               No,               "top"),
    b(C::Help,           A::Bottom,        &[k('G'), END],                 &[],               No,               "end"),
    b(C::Help,           A::Search,        &[k('/')],                      &[],               Word("search"),   "filter the keys and glyphs"),
    b(C::HelpSearch,     A::Confirm,       &[ENTER],                       &[],               Help,             "keep the filter"),
    b(C::HelpSearch,     A::Back,          &[ESC],                         &[],               Help,             "clear the filter"),
    b(C::HelpSearch,     A::Backspace,     &[BACKSPACE],                   &[],               No,               "delete a character"),
    b(C::HelpSearch,     A::Down,          &[DOWN],                        &[],               No,               "scroll down"),
    b(C::HelpSearch,     A::Up,            &[UP],                          &[],               No,               "scroll up"),
    b(C::Search,         A::Confirm,       &[ENTER],                       &[],               Help,             "keep the filter"),
    b(C::Search,         A::Back,          &[ESC],                         &[],               Help,             "clear the filter"),
    b(C::Search,         A::Backspace,     &[BACKSPACE],                   &[],               No,               "delete a character"),
    b(C::Search,         A::Down,          &[DOWN],                        &[],               No,               "next match"),
    b(C::Search,         A::Up,            &[UP],                          &[],               No,               "previous match"),
    b(C::Search,         A::Left,          &[LEFT],                        &[],               No,               "cursor left"),
    b(C::Search,         A::Right,         &[RIGHT],                       &[],               No,               "cursor right"),
    b(C::Search,         A::Top,           &[HOME, ctrl('a')],             &[],               No,               "cursor to the start"),
    b(C::Search,         A::Bottom,        &[END, ctrl('e')],              &[],               No,               "cursor to the end"),
    b(C::Search,         A::KillToStart,   &[ctrl('u')],                   &[],               No,               "delete to the start"),
    b(C::Search,         A::KillWord,      &[ctrl('w')],                   &[],               No,               "delete the word before the cursor"),
    b(C::Settings,       A::Back,          &[ESC, k('q')],                 &[k('S')],         Help,             "close the settings"),
    b(C::Settings,       A::Down,          &[k('j'), DOWN],                &[],               Help,             "next setting"),
    b(C::Settings,       A::Up,            &[k('k'), UP],                  &[],               Help,             "previous setting"),
    b(C::Settings,       A::Confirm,       &[ENTER],                       &[SPACE],          Help,             "edit the value (encoding: switch)"),
    b(C::Settings,       A::Reset,         &[k('R')],                      &[],               Help,             "every setting back to its default"),
    b(C::SettingsEdit,   A::Confirm,       &[ENTER],                       &[],               Help,             "apply: re-project and re-measure everything"),
    b(C::SettingsEdit,   A::Back,          &[ESC],                         &[],               Help,             "cancel"),
    b(C::SettingsEdit,   A::Backspace,     &[BACKSPACE],                   &[],               No,               "delete a character"),
    b(C::SettingsEdit,   A::Left,          &[LEFT],                        &[],               No,               "cursor left"),
    b(C::SettingsEdit,   A::Right,         &[RIGHT],                       &[],               No,               "cursor right"),
    b(C::SettingsEdit,   A::Top,           &[HOME, ctrl('a')],             &[],               No,               "cursor to the start"),
    b(C::SettingsEdit,   A::Bottom,        &[END, ctrl('e')],              &[],               No,               "cursor to the end"),
    b(C::SettingsEdit,   A::KillToStart,   &[ctrl('u')],                   &[],               No,               "delete to the start"),
    b(C::SettingsEdit,   A::KillWord,      &[ctrl('w')],                   &[],               No,               "delete the word before the cursor"),
    b(C::Export,         A::Confirm,       &[ENTER],                       &[],               Help,             "write the file"),
    b(C::Export,         A::Toggle,        &[TAB],                         &[BACK_TAB],       Help,             "request body or tools only"),
    b(C::Export,         A::Back,          &[ESC],                         &[],               Help,             "cancel"),
    b(C::Export,         A::Backspace,     &[BACKSPACE],                   &[],               No,               "delete a character"),
    b(C::Export,         A::Left,          &[LEFT],                        &[],               No,               "cursor left"),
    b(C::Export,         A::Right,         &[RIGHT],                       &[],               No,               "cursor right"),
    b(C::Export,         A::Top,           &[HOME, ctrl('a')],             &[],               No,               "cursor to the start"),
    b(C::Export,         A::Bottom,        &[END, ctrl('e')],              &[],               No,               "cursor to the end"),
    b(C::Export,         A::Pretty,        &[ctrl('p')],                   &[],               No,               "layout: as captured, compact, pretty (2-space indent)"),
    b(C::Export,         A::KillToStart,   &[ctrl('u')],                   &[],               No,               "delete to the start"),
    b(C::Export,         A::KillWord,      &[ctrl('w')],                   &[],               No,               "delete the word before the cursor"),
    b(C::Confirm,        A::Yes,           &[k('y')],                      &[k('Y')],         Help,             "overwrite the file"),
    b(C::Confirm,        A::No,            &[k('n'), ESC],                 &[k('N')],         Help,             "keep it, choose another path"),
    b(C::ConfirmInvalid, A::Yes,           &[k('y')],                      &[k('Y')],         Help,             "write the request the provider will reject"),
    b(C::ConfirmInvalid, A::No,            &[k('n'), ESC],                 &[k('N')],         Help,             "do not write it"),
    b(C::QuitConfirm,    A::Yes,           &[k('y'), k('q')],              &[k('Y')],         Help,             "quit and drop the changed settings"),
    b(C::QuitConfirm,    A::No,            &[k('n'), ESC],                 &[k('N')],         Help,             "stay"),
    // Screens.
    b(C::Matrix,         A::Down,          &[k('j'), DOWN],                &[],               Word("move"),     "next tool"),
    b(C::Matrix,         A::Up,            &[k('k'), UP],                  &[],               No,               "previous tool"),
    b(C::Matrix,         A::Left,          &[k('h'), LEFT],                &[],               Pair("column"),   "previous column (the strategy columns pan)"),
    b(C::Matrix,         A::Right,         &[k('l'), RIGHT],               &[],               No,               "next column"),
    b(C::Matrix,         A::PageDown,      &[PAGE_DOWN, ctrl('d'), SPACE], &[],               No,               "page down"),
    b(C::Matrix,         A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "page up"),
    b(C::Matrix,         A::Top,           &[k('g'), HOME],                &[],               No,               "first tool"),
    b(C::Matrix,         A::Bottom,        &[k('G'), END],                 &[],               No,               "last tool"),
    b(C::Matrix,         A::Open,          &[ENTER],                       &[],               Word("open"),     "open this tool under this strategy (entries side by side, diff)"),
    b(C::Matrix,         A::Sort,          &[k('s')],                      &[],               Word("sort"),     "sort by the cursor's column (again: the other way)"),
    b(C::Matrix,         A::FilterChanged, &[k('f')],                      &[],               Word("changed"),  "only the tools the cursor's strategy changes (again: all)"),
    b(C::Matrix,         A::Search,        &[k('/')],                      &[],               Word("search"),   "filter tools by name and text"),
    b(C::Matrix,         A::NextMatch,     &[k('n')],                      &[],               Pair("match"),    "next tool matching the search"),
    b(C::Matrix,         A::PrevMatch,     &[k('N')],                      &[],               No,               "previous tool matching the search"),
    b(C::Matrix,         A::Export,        &[k('x')],                      &[],               Word("export"),   "export the cursor's strategy"),
    b(C::Matrix,         A::Overview,      &[k('o')],                      &[],               Word("overview"), "the overview: strategy table, bars and notes"),
    b(C::Matrix,         A::GroupServers,  &[k('b')],                      &[],               Word("servers"),  "group the tools by MCP server, a subtotal row each (again: one list)"),
    b(C::Matrix,         A::Fold,          &[k('z')],                      &[],               No,               "fold the cursor's server to its subtotal row, or unfold it (Enter on a subtotal too)"),
    b(C::Matrix,         A::FoldAll,       &[k('Z')],                      &[],               No,               "fold every server, or unfold them all"),
    b(C::Matrix,         A::Back,          &[ESC],                         &[],               No,               "clear the search, then the f filter (never quits)"),
    b(C::Overview,       A::Back,          &[ESC],                         &[],               No,               "back to the matrix"),
    b(C::Overview,       A::Down,          &[k('j'), DOWN],                &[],               Word("move"),     "next strategy"),
    b(C::Overview,       A::Up,            &[k('k'), UP],                  &[],               No,               "previous strategy"),
    b(C::Overview,       A::Open,          &[ENTER],                       &[k('l'), RIGHT],  Word("open"),     "open the strategy side by side"),
    b(C::Overview,       A::PageDown,      &[PAGE_DOWN, ctrl('d')],        &[SPACE],          Word("notes"),    "scroll the notes down"),
    b(C::Overview,       A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "scroll the notes up"),
    b(C::Overview,       A::Top,           &[k('g'), HOME],                &[],               No,               "first strategy"),
    b(C::Overview,       A::Bottom,        &[k('G'), END],                 &[],               No,               "last strategy"),
    b(C::Strategy,       A::Down,          &[k('j'), DOWN],                &[],               Word("move"),     "next tool (or scroll the detail)"),
    b(C::Strategy,       A::Up,            &[k('k'), UP],                  &[],               No,               "previous tool (or scroll the detail)"),
    b(C::Strategy,       A::PageDown,      &[PAGE_DOWN, ctrl('d'), SPACE], &[],               No,               "page down"),
    b(C::Strategy,       A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "page up"),
    b(C::Strategy,       A::Top,           &[k('g'), HOME],                &[],               No,               "first tool (or top of the detail)"),
    b(C::Strategy,       A::Bottom,        &[k('G'), END],                 &[],               No,               "last tool (or end of the detail)"),
    b(C::Strategy,       A::Left,          &[k('h'), LEFT],                &[],               No,               "scroll the detail left"),
    b(C::Strategy,       A::Right,         &[k('l'), RIGHT],               &[],               No,               "scroll the detail right"),
    b(C::Strategy,       A::FocusNext,     &[TAB],                         &[BACK_TAB],       Word("focus"),    "focus the tools or the detail"),
    b(C::Strategy,       A::DiffMode,      &[k('d')],                      &[],               Word("diff"),     "detail: entries → unified diff → side-by-side diff"),
    b(C::Strategy,       A::Entries,       &[k('e')],                      &[],               No,               "detail: original and projected entries"),
    b(C::Strategy,       A::ViewMode,      &[k('v')],                      &[],               Word("text"),     "entries as JSON or as text (each string, its \\n as line breaks)"),
    b(C::Strategy,       A::Request,       &[k('r')],                      &[],               Word("request"),  "detail: request-level bytes and prompt-cache prefix"),
    b(C::Strategy,       A::Added,         &[k('a')],                      &[],               Word("added"),    "detail: added text (reminder, catalog, added tools)"),
    b(C::Strategy,       A::Zoom,          &[k('z')],                      &[],               No,               "enlarge the detail to the whole screen, or give the tools back"),
    b(C::Strategy,       A::Wrap,          &[k('w')],                      &[],               No,               "wrap long lines on or off"),
    b(C::Strategy,       A::Units,         &[k('b')],                      &[],               No,               "tokens or bytes in the tool table (both when wide)"),
    b(C::Strategy,       A::Search,        &[k('/')],                      &[],               Word("search"),   "filter tools by name and text"),
    b(C::Strategy,       A::NextMatch,     &[k('n')],                      &[],               Pair("match"),    "next search match in the entries, then the next matching tool"),
    b(C::Strategy,       A::PrevMatch,     &[k('N')],                      &[],               No,               "previous search match"),
    b(C::Strategy,       A::Sort,          &[k('s')],                      &[],               Word("sort"),     "sort: original order → saving → size → name"),
    b(C::Strategy,       A::Export,        &[k('x')],                      &[],               Word("export"),   "export this projection"),
    b(C::Strategy,       A::Back,          &[ESC],                         &[],               No,               "clear the filter, else back to the matrix"),
    b(C::Global,         A::StrategyKey,   &STRATEGY_BINDING_KEYS,         &[],               Word("strategy"), "open a strategy (in the order of the overview)"),
    b(C::Global,         A::StrategyKey,   &LAST_STRATEGY_KEY,             &[],               No,               "open append (the top row has no key left for it)"),
    b(C::Global,         A::Copy,          &[k('y')],                      &[],               No,               "send the selected tool's JSON (as sent) to the terminal's clipboard (OSC 52)"),
    b(C::Global,         A::Matrix,        &[k('m')],                      &[],               No,               "the matrix (home)"),
    b(C::Global,         A::Overview,      &[k('o'), k('`')],              &[],               No,               "the overview: strategy table, bars and notes"),
    b(C::Global,         A::NextTab,       &[k(']')],                      &[],               No,               "next tab"),
    b(C::Global,         A::PrevTab,       &[k('[')],                      &[],               No,               "previous tab"),
    b(C::Global,         A::Settings,      &[k('S')],                      &[],               Word("settings"), "edit the settings and the encoding"),
    b(C::Global,         A::Encoding,      &[k('E')],                      &[],               No,               "switch the encoding (o200k_base / cl100k_base)"),
    b(C::Global,         A::Help,          &[k('?')],                      &[],               Word("help"),     "this help"),
    b(C::Global,         A::Quit,          &[k('q')],                      &[],               Word("quit"),     "quit (asks when the settings were changed)"),
    b(C::Global,         A::Suspend,       &[ctrl('z')],                   &[],               No,               "suspend to the shell (fg resumes)"),
    b(C::Global,         A::Quit,          &[ctrl('c')],                   &[],               No,               "quit at once, from anywhere"),
    // The session view (a trace) and its turn diff: screens of their own, no global fallback.
    b(C::Session,        A::Down,          &[k('j'), DOWN],                &[],               Word("move"),     "next turn (or strategy, with the strategies focused)"),
    b(C::Session,        A::Up,            &[k('k'), UP],                  &[],               No,               "previous turn (or strategy)"),
    b(C::Session,        A::PageDown,      &[PAGE_DOWN, ctrl('d')],        &[],               No,               "a page of turns down"),
    b(C::Session,        A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "a page of turns up"),
    b(C::Session,        A::Top,           &[k('g'), HOME],                &[],               No,               "first turn"),
    b(C::Session,        A::Bottom,        &[k('G'), END],                 &[],               No,               "last turn"),
    b(C::Session,        A::Open,          &[ENTER],                       &[],               Word("open"),     "open the turn in the single-request views; Esc comes back"),
    b(C::Session,        A::DiffMode,      &[k('d')],                      &[],               Word("diff"),     "the turn's tools against the previous turn of its thread"),
    b(C::Session,        A::NextBreak,     &[k('n')],                      &[],               Word("break"),    "next turn with a break mark (▲ cache broke, * a list changed)"),
    b(C::Session,        A::PrevBreak,     &[k('N')],                      &[],               No,               "previous turn with a break mark"),
    b(C::Session,        A::FocusNext,     &[TAB],                         &[BACK_TAB],       Word("focus"),    "focus the turns, the strategies (what the chart shows) or the turn's pane (↓ scrolls it)"),
    b(C::Session,        A::Toggle,        &[SPACE],                       &[],               Word("chart"),    "show or hide the selected strategy on the chart"),
    b(C::Session,        A::Panes,         &[k('v')],                      &[],               No,               "chart or totals, where only one fits"),
    b(C::Session,        A::Back,          &[ESC],                         &[],               No,               "back to the turns (never quits)"),
    b(C::Session,        A::Help,          &[k('?')],                      &[],               Word("help"),     "keys and glyphs"),
    b(C::Session,        A::Quit,          &[k('q')],                      &[ctrl('c')],      Help,             "quit"),
    b(C::TurnDiff,       A::Back,          &[ESC, k('d')],                 &[],               Word("back"),     "back to the session view"),
    b(C::TurnDiff,       A::Down,          &[k('j'), DOWN],                &[],               Word("scroll"),   "scroll down"),
    b(C::TurnDiff,       A::Up,            &[k('k'), UP],                  &[],               No,               "scroll up"),
    b(C::TurnDiff,       A::PageDown,      &[PAGE_DOWN, SPACE, ctrl('d')], &[],               No,               "page down"),
    b(C::TurnDiff,       A::PageUp,        &[PAGE_UP, ctrl('u')],          &[],               No,               "page up"),
    b(C::TurnDiff,       A::Top,           &[k('g'), HOME],                &[],               No,               "top"),
    b(C::TurnDiff,       A::Bottom,        &[k('G'), END],                 &[],               No,               "end"),
    b(C::TurnDiff,       A::Open,          &[ENTER],                       &[],               Word("open"),     "open the turn's request in the single-request views"),
    b(C::TurnDiff,       A::Help,          &[k('?')],                      &[],               Word("help"),     "keys and glyphs"),
    b(C::TurnDiff,       A::Quit,          &[k('q')],                      &[ctrl('c')],      Help,             "quit"),
];

/// Each binding's label, made once ([`Binding::label`]), in [`BINDINGS`] order.
static LABELS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| BINDINGS.iter().map(Binding::label).collect());

/// The footer's labels of the [`Footer::Pair`] bindings, in [`BINDINGS`] order.
static PAIR_LABELS: std::sync::LazyLock<Vec<Option<String>>> = std::sync::LazyLock::new(|| {
    BINDINGS
        .iter()
        .enumerate()
        .map(|(i, b)| match b.footer {
            Pair(_) => {
                let first = |b: &Binding| b.keys.first().map(|k| k.name()).unwrap_or_default();
                let partner = BINDINGS.get(i + 1).map(first).unwrap_or_default();
                Some(format!("{} {partner}", first(b)))
            }
            _ => None,
        })
        .collect()
});

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
            .find(|binding| binding.all_keys().any(|k| matches(k, key)))
    };
    let binding = match context {
        C::Matrix | C::Overview | C::Strategy => found(context).or_else(|| found(C::Global)),
        other => found(other),
    }?;
    let strategy = match (binding.action, key.code) {
        (A::StrategyKey, KeyCode::Char(c)) => strategy_of_key(c).map(Strategy::index),
        _ => None,
    };
    Some((binding.action, strategy))
}

/// The footer hints for a context: `(keys, what)`, most useful first.
pub fn hints(context: Context) -> Vec<(&'static str, &'static str)> {
    let hint = |(i, b): (usize, &'static Binding)| -> Option<(&'static str, &'static str)> {
        match b.footer {
            No => None,
            Help => Some((LABELS[i].as_str(), b.help)),
            Word(word) => Some((LABELS[i].as_str(), word)),
            Pair(word) => Some((PAIR_LABELS[i].as_deref().unwrap_or_default(), word)),
        }
    };
    let of = |ctx: Context| {
        BINDINGS
            .iter()
            .enumerate()
            .filter(move |(_, b)| b.context == ctx)
            .filter_map(hint)
    };
    if matches!(context, C::Matrix | C::Overview | C::Strategy) {
        of(context).chain(of(C::Global)).collect()
    } else {
        of(context).collect()
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
        C::ConfirmInvalid,
        C::QuitConfirm,
        C::Help,
        C::HelpSearch,
    ];
    order
        .into_iter()
        .map(|ctx| {
            let lines = BINDINGS
                .iter()
                .enumerate()
                .filter(|(_, b)| b.context == ctx)
                .map(|(i, b)| (LABELS[i].as_str(), b.help))
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
                    for key in a.all_keys() {
                        assert!(
                            !b2.all_keys().any(|k| k == key),
                            "{key:?} bound twice in {:?}",
                            a.context
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn labels_are_made_from_the_keys() {
        let label = |ctx: Context, action: Action| {
            let i = BINDINGS
                .iter()
                .position(|b| b.context == ctx && b.action == action)
                .unwrap();
            LABELS[i].clone()
        };
        assert_eq!(label(C::Global, A::StrategyKey), "1-9 0 - = \\");
        assert_eq!(label(C::Help, A::Back), "Esc q ?");
        assert_eq!(label(C::Export, A::Top), "Home ^a");
        assert_eq!(label(C::Matrix, A::Left), "h ←");
        let footer = hints(C::Matrix);
        assert!(footer.contains(&("h l", "column")), "{footer:?}");
        assert!(footer.contains(&("n N", "match")), "{footer:?}");
        assert!(footer.contains(&("1-9 0 - = \\", "strategy")), "{footer:?}");
    }

    #[test]
    fn an_alias_still_does_what_its_binding_does() {
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(lookup(C::Help, &ctrl_d).unwrap().0, A::PageDown);
        assert_eq!(
            lookup(C::Overview, &key(KeyCode::Right)).unwrap().0,
            A::Open
        );
    }

    #[test]
    fn help_lists_every_binding() {
        let listed: usize = help_sections().iter().map(|(_, lines)| lines.len()).sum();
        assert_eq!(listed, BINDINGS.len());
    }
}
