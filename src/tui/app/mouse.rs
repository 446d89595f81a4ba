//! The mouse: the wheel scrolls the pane under it, a click picks a tab, a cell, a row or a
//! pane.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.overlay.is_some() {
            // Dialogs are keyboard-driven; the wheel scrolls the help.
            if let Some(Overlay::Help(_)) = self.overlay {
                match mouse.kind {
                    MouseEventKind::ScrollDown => self.act_help(Action::Down),
                    MouseEventKind::ScrollUp => self.act_help(Action::Up),
                    _ => {}
                }
            }
            return;
        }
        let layout = self.frame_layout();
        let at = Position::new(mouse.column, mouse.row);
        let inside = |r: Option<Rect>| r.is_some_and(|r| r.contains(at));
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let delta = if mouse.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                if inside(layout.detail) {
                    self.strategy_tab.focus = Pane::Detail;
                } else if inside(layout.table) {
                    self.strategy_tab.focus = Pane::Tools;
                }
                self.move_by(delta);
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if layout.tabs.contains(at) {
                    let tab = tabs::tab_spans(self.tab, layout.tabs.width)
                        .into_iter()
                        .find(|(_, x0, x1)| {
                            (layout.tabs.x + x0..layout.tabs.x + x1).contains(&mouse.column)
                        });
                    if let Some((tab, _, _)) = tab {
                        self.switch_tab(tab);
                    }
                } else if let Some(table) = layout
                    .table
                    .filter(|r| r.contains(at) && self.tab == Tab::Matrix)
                {
                    // A header row, then the body; the totals are not rows to select.
                    let totals = self.matrix().model.total_rows().len();
                    let body = matrix::body_rows(table.height, totals).0 as u16;
                    if mouse.row > table.y && mouse.row <= table.y + body {
                        let row =
                            self.matrix_tab.cursor.rows.offset + (mouse.row - table.y - 1) as usize;
                        self.select_cell(row);
                    }
                    // The cell's column too (a click on the header picks the column only).
                    if mouse.row <= table.y + body {
                        self.click_col(table, mouse.column);
                    }
                } else if let Some(table) = layout.table.filter(|r| r.contains(at)) {
                    self.strategy_tab.focus = Pane::Tools;
                    // Border and header rows come first.
                    let first = table.y + 2;
                    if mouse.row >= first && mouse.row < table.bottom().saturating_sub(1) {
                        let row = match self.tab {
                            Tab::Matrix => 0,
                            Tab::Overview => (mouse.row - first) as usize,
                            Tab::Strategy(_) => {
                                self.strategy_tab.tools.offset + (mouse.row - first) as usize
                            }
                        };
                        match self.tab {
                            Tab::Matrix => {}
                            Tab::Overview => {
                                // A click on the chosen strategy opens it.
                                if row == self.overview.strategies.selected {
                                    self.switch_tab(Tab::Strategy(self.strategy()));
                                } else if row < Strategy::ALL.len() {
                                    self.overview.strategies.selected = row;
                                }
                            }
                            Tab::Strategy(_) => {
                                if row < self.rows().len() {
                                    self.select_row(row);
                                }
                            }
                        }
                    }
                } else if inside(layout.detail) {
                    self.strategy_tab.focus = Pane::Detail;
                }
            }
            _ => {}
        }
    }
}
