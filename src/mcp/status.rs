//! What reaching each MCP server gave, as the views show it: `toolprism mcp` fills it from its
//! listings and hands it to the inspector, so a server that failed is on screen beside the
//! tools of those that did not (the command line prints the same statuses as its own lines).

/// How reaching one server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    /// Every page of its tools listed.
    Listed,
    /// It did not start, exited, answered with an error, or spoke something else.
    Failed,
    /// Start-up and listing took longer than the timeout.
    Timeout,
    /// It needs authorization toolprism does not do.
    Auth,
    /// Not started: its config turns it off.
    Skipped,
}

impl ServerState {
    /// The word the views show: `listed`, `failed`, `timeout`, `auth`, `skipped`.
    pub fn word(self) -> &'static str {
        match self {
            ServerState::Listed => "listed",
            ServerState::Failed => "failed",
            ServerState::Timeout => "timeout",
            ServerState::Auth => "auth",
            ServerState::Skipped => "skipped",
        }
    }
}

/// One server's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// Its name in its config (raw: sanitize to draw).
    pub name: String,
    /// How reaching it ended.
    pub state: ServerState,
    /// Tools listed.
    pub tools: usize,
    /// Why it was not listed (already masked; raw otherwise: sanitize to draw).
    pub reason: Option<String>,
}

impl ServerStatus {
    /// Whether its tools are in the request.
    pub fn listed(&self) -> bool {
        self.state == ServerState::Listed
    }

    /// `listed · 3 tools`, `failed: the server exited`: sanitized, one line.
    pub fn summary(&self) -> String {
        if self.listed() {
            let noun = if self.tools == 1 { "tool" } else { "tools" };
            return format!("listed · {} {noun}", crate::text::thousands(self.tools));
        }
        match &self.reason {
            Some(reason) => crate::text::safe(&format!("{}: {reason}", self.state.word())),
            None => self.state.word().to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_one_safe_line() {
        let failed = ServerStatus {
            name: "broken".into(),
            state: ServerState::Failed,
            tools: 0,
            reason: Some("the server exited\n\u{1b}[31mred".into()),
        };
        let summary = failed.summary();
        assert!(
            summary.starts_with("failed: the server exited"),
            "{summary}"
        );
        assert!(
            !summary.contains('\n') && !summary.contains('\u{1b}'),
            "{summary}"
        );
        let listed = ServerStatus {
            name: "github".into(),
            state: ServerState::Listed,
            tools: 1,
            reason: None,
        };
        assert_eq!(listed.summary(), "listed · 1 tool");
    }
}
