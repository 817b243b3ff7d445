//! Graph algorithms over [`crate::Graph`] (issue 6): PageRank, betweenness, communities, strongly connected components, reachability.
