//! Semantic styles. View code asks for a meaning (`selected`, `removed`, `emphasis`), never a
//! colour, so the monochrome theme can carry every state with attributes alone.
//!
//! The monochrome theme sets no colour on any cell: with `NO_COLOR`, crossterm 0.29 turns each
//! colour change into a bare SGR 0 that would cancel the reverse/bold attributes that show the
//! selection, so a colourless frame is the only one whose attributes survive.

use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::BorderType;

use crate::projection::Status;

/// The styles of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// The colour theme (`color`) or the monochrome one.
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    /// Whether colours are used.
    pub fn is_color(self) -> bool {
        self.color
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// Plain text.
    pub fn text(self) -> Style {
        Style::new()
    }

    /// Secondary text (units, hints, unchanged lines).
    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Pane and dialog titles; the focused one also underlined.
    pub fn title(self, focused: bool) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if focused {
            style.add_modifier(Modifier::UNDERLINED)
        } else {
            style
        }
    }

    /// The border of a pane: thick when focused.
    pub fn border_type(self, focused: bool) -> BorderType {
        if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        }
    }

    /// The border's style.
    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan)
        } else {
            self.dim()
        }
    }

    /// The selected row: reversed, and bold when its pane has the focus.
    pub fn selected(self, focused: bool) -> Style {
        let style = Style::new().add_modifier(Modifier::REVERSED);
        if focused {
            style.add_modifier(Modifier::BOLD)
        } else {
            style
        }
    }

    /// The active tab.
    pub fn tab_active(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    /// A key in a hint or the help.
    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// A heading inside a pane.
    pub fn heading(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// Something the user should notice (lints, errors).
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// An error message.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// A good figure (a saving).
    pub fn good(self) -> Style {
        self.fg(Color::Green)
    }

    /// A bad figure (costs more).
    pub fn bad(self) -> Style {
        self.fg(Color::Red)
    }

    /// A tool's status word.
    pub fn status(self, status: Status) -> Style {
        match status {
            Status::Kept => self.dim(),
            Status::Changed => self.fg(Color::Yellow),
            Status::Removed => self.fg(Color::Red).add_modifier(Modifier::CROSSED_OUT),
            Status::Deferred => self.fg(Color::Magenta).add_modifier(Modifier::ITALIC),
            Status::Added => self.fg(Color::Green).add_modifier(Modifier::BOLD),
        }
    }

    /// A removed diff line.
    pub fn del(self) -> Style {
        self.fg(Color::Red)
    }

    /// An added diff line.
    pub fn ins(self) -> Style {
        self.fg(Color::Green)
    }

    /// The tint of a whole removed line, to the pane's edge (a dark red ground, as delta
    /// draws it); none without colour, where the `-` sign carries it.
    pub fn del_line(self) -> Style {
        if self.color {
            self.del().bg(Color::Indexed(52))
        } else {
            self.del()
        }
    }

    /// The tint of a whole added line (a dark green ground); none without colour.
    pub fn ins_line(self) -> Style {
        if self.color {
            self.ins().bg(Color::Indexed(22))
        } else {
            self.ins()
        }
    }

    /// The changed words inside a changed line: on a brighter ground on a tinted line, else
    /// reversed; reversed and underlined without colour, so the emphasis survives it.
    pub fn emphasis(self, base: Style) -> Style {
        if self.color {
            // On a tinted line, a brighter ground of the same hue (reversing a tint would
            // paint the word in the dark tint itself).
            match base.bg {
                Some(Color::Indexed(52)) => {
                    base.bg(Color::Indexed(124)).add_modifier(Modifier::BOLD)
                }
                Some(Color::Indexed(22)) => {
                    base.bg(Color::Indexed(28)).add_modifier(Modifier::BOLD)
                }
                _ => base.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            }
        } else {
            base.add_modifier(Modifier::REVERSED | Modifier::UNDERLINED)
        }
    }

    /// The filled part of a bar.
    pub fn bar(self, saving: bool) -> Style {
        if saving {
            self.fg(Color::Green)
        } else {
            self.fg(Color::Red)
        }
    }

    /// A search match: reversed and bold (a yellow block in colour; underlined too without
    /// colour, so it stands out of a selected row, which is reversed and bold).
    pub fn found(self) -> Style {
        let style = Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD);
        if self.color {
            style.fg(Color::Yellow)
        } else {
            style.add_modifier(Modifier::UNDERLINED)
        }
    }

    /// The text input being edited.
    pub fn input(self) -> Style {
        Style::new().add_modifier(Modifier::UNDERLINED)
    }
}
