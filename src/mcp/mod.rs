//! The user's own MCP servers: their clients' configs ([`config`]), their tools as each host
//! sends them ([`host`]), a report's figures per server ([`by_server`]), what the hosts
//! refuse or drop ([`limits`]), how reaching each went ([`status`], what the view shows), and, with the `mcp` feature, reaching the servers
//! ([`client`]), ending what servers leave behind ([`reap`]) and asking Anthropic's endpoint for Claude's own count ([`count`]). docs/MCP.md is the reference for every format, rule and limit.

pub mod by_server;
#[cfg(feature = "mcp")]
pub mod client;
pub mod config;
#[cfg(feature = "mcp")]
pub mod count;
pub mod host;
pub mod limits;
#[cfg(feature = "mcp")]
pub mod reap;
pub mod status;
