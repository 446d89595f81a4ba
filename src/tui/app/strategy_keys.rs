//! A strategy tab's keys and what they read: moving in the tool table and the detail,
//! the detail's views, the search's next match, the banner and what `y` copies.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
    /// The rows of the entries view (at the current size, in its mode and wrapping) that
    /// contain the search text, in either pane: where `n`/`N` go in the selected tool.
    pub fn detail_matches(&self) -> Vec<usize> {
        if self.search.input.text.is_empty() || self.strategy_tab.detail.shows != Detail::Entries {
            return Vec::new();
        }
        let Some(detail) = self.frame_layout().detail else {
            return Vec::new();
        };
        let (left, right) = layout::entry_panes(detail);
        let (original, sent) = self.selected_entries().unwrap_or((None, None));
        let matches = |entry: Option<&Value>, pane: Rect| {
            entry.map_or_else(Vec::new, |e| {
                let cells = pane.width.saturating_sub(2) as usize;
                let rows = textview::entry_rows(
                    e,
                    self.strategy_tab.detail.view_mode,
                    cells,
                    self.strategy_tab.detail.wrap,
                );
                textview::match_rows(&rows, &self.search.input.text)
            })
        };
        let mut rows = matches(original, left);
        rows.extend(matches(sent, right));
        rows.sort_unstable();
        rows.dedup();
        rows
    }

    /// `n` (`forward`) or `N`: the next search match. In a strategy tab, the next row of the
    /// selected tool's entries that holds the search text, then the next matching tool
    /// (wrapping); in the matrix, the next matching tool (wrapping).
    pub(super) fn next_match(&mut self, forward: bool) {
        if self.search.input.text.is_empty() {
            self.set_status("n and N move between matches: search first with /", false);
            return;
        }
        let step = |at: usize, len: usize| {
            if forward {
                (at + 1) % len
            } else {
                (at + len - 1) % len
            }
        };
        match self.tab {
            Tab::Matrix => {
                // Subtotal rows are not matches: the steps go from tool to tool.
                let tools = self.matrix().tool_positions();
                let len = tools.len();
                if len == 0 {
                    self.set_status(
                        format!(
                            "no tool matches \"{}\"",
                            crate::text::safe(&self.search.input.text)
                        ),
                        false,
                    );
                    return;
                }
                let here = self.matrix_tab.cursor.rows.selected;
                let row = match tools.iter().position(|&t| t == here) {
                    Some(k) => step(k, len),
                    // From a subtotal row: the next tool below it, or the last one above.
                    None if forward => tools.iter().position(|&t| t > here).unwrap_or(0),
                    None => tools.iter().rposition(|&t| t < here).unwrap_or(len - 1),
                };
                self.select_cell(tools[row]);
                self.set_status(format!("tool {} of {len} matching", row + 1), false);
            }
            Tab::Strategy(_) => {
                let len = self.rows().len();
                if len == 0 {
                    self.set_status(
                        format!(
                            "no tool matches \"{}\"",
                            crate::text::safe(&self.search.input.text)
                        ),
                        false,
                    );
                    return;
                }
                let here = self.detail_matches();
                let next = if forward {
                    here.iter()
                        .find(|&&r| self.strategy_tab.detail.found_at.is_none_or(|f| r > f))
                } else {
                    here.iter()
                        .rev()
                        .find(|&&r| self.strategy_tab.detail.found_at.is_some_and(|f| r < f))
                };
                let found = match next {
                    Some(&r) => Some(r),
                    None => {
                        self.select_row(step(self.strategy_tab.tools.selected, len));
                        let here = self.detail_matches();
                        if forward { here.first() } else { here.last() }.copied()
                    }
                };
                self.strategy_tab.detail.found_at = found;
                self.strategy_tab.detail.scroll.offset = found.unwrap_or(0);
                let here = self.detail_matches();
                let tool = format!(
                    "tool {} of {len} matching",
                    self.strategy_tab.tools.selected + 1
                );
                let text = match found.and_then(|r| here.iter().position(|&x| x == r)) {
                    Some(i) => format!("match {} of {} in this tool · {tool}", i + 1, here.len()),
                    None => tool,
                };
                self.set_status(text, false);
            }
            Tab::Overview => {}
        }
    }

    pub(super) fn table_height(&self) -> usize {
        pane_rows(self.frame_layout().table)
    }

    pub(super) fn detail_height(&self) -> usize {
        pane_rows(self.frame_layout().detail)
    }

    pub(super) fn select_row(&mut self, row: usize) {
        let (len, height) = (self.rows().len(), self.table_height());
        self.strategy_tab.tools.select(row, len, height);
        let detail = &mut self.strategy_tab.detail;
        detail.scroll.offset = 0;
        detail.found_at = None;
        detail.hscroll = 0;
    }

    /// Keep the selection on the same tool after the rows changed (filter, sort, strategy).
    pub(super) fn resync(&mut self, keep: Option<(Option<usize>, String)>) {
        let rows = self.rows();
        let found = keep.and_then(|(original, name)| {
            let projection = self.ctx.projection(self.strategy())?;
            rows.iter().position(|&i| {
                let o = &projection.outcomes[i];
                match original {
                    Some(index) => o.original == Some(index),
                    None => o.original.is_none() && *o.name == *name,
                }
            })
        });
        self.select_row(found.unwrap_or(self.strategy_tab.tools.selected));
    }

    pub(super) fn selected_key(&self) -> Option<(Option<usize>, String)> {
        let projection = self.ctx.projection(self.strategy())?;
        let o = projection.outcomes.get(self.selected_outcome()?)?;
        Some((o.original, o.name.to_string()))
    }

    pub(super) fn move_by(&mut self, delta: isize) {
        match self.tab {
            Tab::Matrix => {
                let (len, height) = (self.matrix().len(), self.matrix_height());
                self.matrix_tab.cursor.rows.move_by(delta, len, height);
            }
            Tab::Overview => {
                let chosen = self.overview.strategies.step(delta, Strategy::ALL.len());
                self.overview.strategies.selected = chosen;
                self.overview.notes.offset = 0;
            }
            Tab::Strategy(_) => {
                if self.strategy_tab.focus == Pane::Detail {
                    let max = self.detail_rows().saturating_sub(self.detail_height());
                    self.strategy_tab.detail.scroll.scroll_by(delta, max);
                } else {
                    let row = self
                        .strategy_tab
                        .tools
                        .selected
                        .saturating_add_signed(delta);
                    self.select_row(row);
                }
            }
        }
    }

    /// Rows the notes pane scrolls by a page: its height less the row that says what is
    /// below.
    pub(super) fn notes_page(&self) -> usize {
        pane_rows(self.frame_layout().notes)
    }

    pub(super) fn page(&self) -> isize {
        if self.tab == Tab::Matrix {
            return self.matrix_height() as isize;
        }
        match self.strategy_tab.focus {
            Pane::Tools => self.table_height() as isize,
            Pane::Detail => self.detail_height() as isize,
        }
    }

    /// Moving: the cursor, the tabs, the focus. Whether `action` was one of these.
    pub(super) fn act_move(&mut self, action: Action, index: Option<usize>) -> bool {
        match action {
            Action::Matrix => self.switch_tab(Tab::Matrix),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.move_by(isize::MIN / 2),
            Action::Bottom => self.move_by(isize::MAX / 2),
            Action::Left => {
                self.strategy_tab.detail.hscroll =
                    self.strategy_tab.detail.hscroll.saturating_sub(8);
            }
            Action::Right => {
                self.strategy_tab.detail.hscroll =
                    (self.strategy_tab.detail.hscroll + 8).min(100_000);
            }
            Action::NextTab => {
                let n = Tab::all().count();
                self.switch_tab(Tab::from_index((self.tab.index() + 1) % n));
            }
            Action::PrevTab => {
                let n = Tab::all().count();
                self.switch_tab(Tab::from_index((self.tab.index() + n - 1) % n));
            }
            Action::Overview => self.switch_tab(Tab::Overview),
            Action::StrategyKey => {
                if let Some(&s) = index.and_then(|i| Strategy::ALL.get(i)) {
                    self.switch_tab(Tab::Strategy(s));
                }
            }
            Action::Open => self.switch_tab(Tab::Strategy(self.strategy())),
            Action::FocusNext => {
                self.strategy_tab.focus = match self.strategy_tab.focus {
                    Pane::Tools => Pane::Detail,
                    Pane::Detail => Pane::Tools,
                }
            }
            Action::Zoom => {
                if matches!(self.tab, Tab::Strategy(_)) {
                    self.strategy_tab.zoom = !self.strategy_tab.zoom;
                    self.strategy_tab.focus = if self.strategy_tab.zoom {
                        Pane::Detail
                    } else {
                        Pane::Tools
                    };
                }
            }
            _ => return false,
        }
        true
    }

    /// The detail pane's views and the search matches in it. Whether `action` was one of these.
    pub(super) fn act_detail(&mut self, action: Action) -> bool {
        match action {
            Action::DiffMode => {
                self.strategy_tab.detail.shows = match self.strategy_tab.detail.shows {
                    Detail::Entries => Detail::Unified,
                    Detail::Unified => Detail::Split,
                    _ => Detail::Entries,
                };
                self.strategy_tab.detail.scroll.offset = 0;
            }
            Action::Entries => self.set_detail(Detail::Entries),
            Action::Request => self.set_detail(Detail::Request),
            Action::Added => {
                if self.ctx.has_added(self.strategy()) {
                    self.set_detail(Detail::Added);
                } else {
                    self.set_status(
                        format!("{} adds no text and no tools", self.strategy()),
                        false,
                    );
                }
            }
            Action::Wrap => {
                self.strategy_tab.detail.wrap = !self.strategy_tab.detail.wrap;
                self.strategy_tab.detail.scroll.offset = 0;
                self.strategy_tab.detail.hscroll = 0;
                self.strategy_tab.detail.found_at = None;
            }
            Action::ViewMode => {
                // From a diff or the request, `v` goes to the text view; in the entries it
                // switches between the two views.
                self.strategy_tab.detail.view_mode = match (
                    self.strategy_tab.detail.shows,
                    self.strategy_tab.detail.view_mode,
                ) {
                    (Detail::Entries, ViewMode::Text) => ViewMode::Json,
                    _ => ViewMode::Text,
                };
                self.set_detail(Detail::Entries);
                self.strategy_tab.detail.found_at = None;
                let what = match self.strategy_tab.detail.view_mode {
                    ViewMode::Json => "JSON view: the entries as pretty JSON",
                    ViewMode::Text => "text view: each string of the entries with its line breaks",
                };
                self.set_status(format!("{what} · v switches"), false);
            }
            Action::NextMatch => self.next_match(true),
            Action::PrevMatch => self.next_match(false),
            Action::Units => {
                self.strategy_tab.bytes_view = !self.strategy_tab.bytes_view;
                let units = if self.strategy_tab.bytes_view {
                    "bytes"
                } else {
                    "tokens"
                };
                self.set_status(format!("the tool table shows {units}"), false);
            }
            _ => return false,
        }
        true
    }

    /// The one line above a strategy tab that answers "why did this do nothing?"
    /// ([`StrategyScreen::banner`]); `None` on another tab.
    pub fn banner(&self) -> Option<(String, bool)> {
        self.strategy_screen()?.banner()
    }

    /// What `y` copies: the selected tool's entry as compact JSON (as the strategy sends it,
    /// or the original when it sends nothing), with every unsafe character JSON-escaped so
    /// the text pasted is our own. Returns it and how the status line names it.
    pub fn copy_text(&self) -> Option<(String, String)> {
        let json =
            |entry: &Value| crate::sanitize::json_for_terminal(&tool::compact(entry)).into_owned();
        match self.tab {
            Tab::Strategy(s) => {
                let (original, sent) = self.selected_entries()?;
                let (entry, how) = match (sent, original) {
                    (Some(e), _) => (e, s.id().to_owned()),
                    (None, Some(e)) => (e, "original".to_owned()),
                    (None, None) => return None,
                };
                let name = tool::name(entry).unwrap_or("the tool");
                Some((json(entry), format!("{} ({how})", crate::text::safe(name))))
            }
            Tab::Matrix => {
                let m = self.matrix();
                let row = m.row(self.matrix_tab.cursor.rows.selected)?;
                let strategy = self.strategy();
                let sent = (self.matrix_tab.cursor.col > 0)
                    .then(|| {
                        let c = matrix::strategies().iter().position(|&x| x == strategy)?;
                        let outcome = m.cell(row, c)?.outcome?;
                        let p = self.ctx.projection(strategy)?;
                        let at = p.outcomes.get(outcome)?.projected?;
                        Some(p.sent.as_ref()?.get(at)?.entry(&self.ctx.capture).clone())
                    })
                    .flatten();
                let (entry, how) = match (sent, row.origin) {
                    (Some(e), _) => (e, strategy.id().to_owned()),
                    (None, crate::matrix::Origin::Capture(i)) => (
                        self.ctx.capture.tools().get(i)?.clone(),
                        "original".to_owned(),
                    ),
                    (None, crate::matrix::Origin::Added(_)) => return None,
                };
                let name = crate::text::safe(tool::name(&entry).unwrap_or("the tool"));
                Some((json(&entry), format!("{name} ({how})")))
            }
            Tab::Overview => None,
        }
    }

    pub(super) fn set_detail(&mut self, detail: Detail) {
        self.strategy_tab.detail.shows = detail;
        self.strategy_tab.detail.scroll.offset = 0;
        self.strategy_tab.detail.hscroll = 0;
    }
}
