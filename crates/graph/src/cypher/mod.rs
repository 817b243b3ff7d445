//! A read-only openCypher subset over [`crate::Graph`] (issue 6).
