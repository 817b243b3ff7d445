//! All of `sextant-engine`'s integration tests in one binary: one link instead of one per file, which
//! keeps CI's build time and disk use down. Each module is the file of the same name beside this one.

mod analytics;
mod cache;
mod changes;
mod eval;
mod export;
mod graph;
mod live;
mod query_abuse;
mod resolve;
mod search_filters;
mod switch;
mod watch;
mod workspace;
