//! All of `sextant-cli`'s integration tests in one binary: one link instead of one per file, which
//! keeps CI's build time and disk use down. Each module is the file of the same name beside this one.

mod analytics;
mod changes;
mod cli;
mod common;
mod concurrency;
mod export;
mod graph;
mod mcp;
mod mcp_analytics;
mod mcp_http;
mod mcp_node;
mod mcp_workspace;
mod search_filters;
mod setup;
mod watch;
