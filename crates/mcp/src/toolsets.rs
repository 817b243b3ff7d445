//! Toolsets: the tools a server lists, chosen by name (`--toolsets core,...` or the `[mcp]`
//! table of the config file). Every tool belongs to exactly one toolset; a toolset named here
//! but not built yet is refused with a message saying so, so configurations written for a later
//! version fail loudly instead of silently listing less.

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::SextantServer;

/// A group of tools listed together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Toolset {
    pub name: &'static str,
    pub description: &'static str,
    /// The tools of this set; empty for a set that is planned but not built yet.
    pub tools: &'static [&'static str],
}

/// Every toolset, in listing order.
pub const TOOLSETS: &[Toolset] = &[
    Toolset {
        name: "core",
        description: "find, read and navigate code: definitions, cards, source, references, calls, hierarchy, impact, changes, paths, grep, overview, index status",
        tools: &[
            "search",
            "symbol",
            "source",
            "references",
            "calls",
            "hierarchy",
            "impact",
            "changes",
            "path",
            "grep",
            "overview",
            "status",
            "index",
        ],
    },
    Toolset {
        name: "analytics",
        description: "graph analytics: Cypher queries and the graph schema, central symbols, bridges, communities, cycles, entry points, flows, dead code, complexity, architecture",
        tools: &[
            "query",
            "schema",
            "central",
            "bridges",
            "communities",
            "cycles",
            "entry_points",
            "flows",
            "dead_code",
            "complexity",
            "architecture",
        ],
    },
    Toolset {
        name: "history",
        description: "git history per symbol, churn, co-change (planned)",
        tools: &[],
    },
    Toolset {
        name: "surfaces",
        description: "HTTP routes, CLI commands, configuration keys (planned)",
        tools: &[],
    },
    Toolset {
        name: "docs",
        description: "documentation sections and stale symbol mentions (planned)",
        tools: &[],
    },
    Toolset {
        name: "workspace",
        description: "keep repositories' indexes fresh while serving (watch, unwatch, watched) and give concurrent agents isolated named workspaces (workspace_create, workspace_refresh, workspace_reset, workspace_list, workspace_delete)",
        tools: &[
            "watch",
            "unwatch",
            "watched",
            "workspace_create",
            "workspace_refresh",
            "workspace_reset",
            "workspace_list",
            "workspace_delete",
        ],
    },
];

/// The toolsets listed when none are chosen.
pub const DEFAULT_TOOLSETS: &[&str] = &["core"];

/// Parses a toolset selection (`core,analytics`; `all` for every built one).
pub fn parse(names: &[String]) -> Result<Vec<&'static Toolset>, String> {
    let mut chosen: Vec<&'static Toolset> = Vec::new();
    let names: Vec<&str> = names
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let names = if names.is_empty() {
        DEFAULT_TOOLSETS.to_vec()
    } else {
        names
    };
    for name in names {
        if name == "all" {
            for t in TOOLSETS.iter().filter(|t| !t.tools.is_empty()) {
                if !chosen.contains(&t) {
                    chosen.push(t);
                }
            }
            continue;
        }
        let Some(t) = TOOLSETS.iter().find(|t| t.name == name) else {
            let known: Vec<&str> = TOOLSETS.iter().map(|t| t.name).collect();
            return Err(format!(
                "unknown toolset `{name}`; known toolsets: {} (or `all`)",
                known.join(", ")
            ));
        };
        if t.tools.is_empty() {
            return Err(format!(
                "toolset `{name}` ({}) is not available in this version of sextant",
                t.description
            ));
        }
        if !chosen.contains(&t) {
            chosen.push(t);
        }
    }
    Ok(chosen)
}

/// Every tool this server implements, whatever the selection.
pub(crate) fn all_tools() -> ToolRouter<SextantServer> {
    SextantServer::read_tools()
        + SextantServer::graph_tools()
        + SextantServer::change_tools()
        + SextantServer::admin_tools()
        + SextantServer::analytics_tools()
        + SextantServer::workspace_tools()
}

/// The router listing exactly the tools of `sets`.
pub(crate) fn router(sets: &[&Toolset]) -> ToolRouter<SextantServer> {
    let mut router = all_tools();
    let names: Vec<String> = router
        .list_all()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    for name in names {
        if !sets.iter().any(|s| s.tools.contains(&name.as_str())) {
            router.remove_route(&name);
        }
    }
    for route in router.map.values_mut() {
        if let Some(schema) = route.attr.output_schema.take() {
            let mut value = serde_json::Value::Object((*schema).clone());
            strip_docs(&mut value);
            if let serde_json::Value::Object(map) = value {
                route.attr.output_schema = Some(std::sync::Arc::new(map));
            }
        }
    }
    router
}

/// Output schemas keep every field, type and requirement but not their prose. Clients use them
/// to validate `structuredContent`; models see names, descriptions and input schemas (which keep
/// their descriptions: they guide the calls). The envelope's field documentation repeated in
/// thirteen output schemas was 60% of `tools/list` (206 KB pretty-printed before, 154 KB after;
/// see the snapshot). Output fields are documented on the Rust types and in docs/mcp.md.
fn strip_docs(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.remove("description");
            map.remove("title");
            for v in map.values_mut() {
                strip_docs(v);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_docs),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_implemented_tool_belongs_to_one_toolset() {
        for tool in all_tools().list_all() {
            let owners: Vec<&str> = TOOLSETS
                .iter()
                .filter(|t| t.tools.contains(&tool.name.as_ref()))
                .map(|t| t.name)
                .collect();
            assert_eq!(owners.len(), 1, "{} is in {owners:?}", tool.name);
        }
    }

    /// `tools/list` is part of the interface agents see: any change to a name, description or
    /// schema shows up here (review it, then `cargo insta accept`).
    #[test]
    fn tools_list_snapshot() {
        let mut tools = router(&parse(&[]).unwrap()).list_all();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let listed = serde_json::to_value(&tools).unwrap();
        insta::assert_json_snapshot!("tools_list", listed);
        // Deterministic: a second build lists the same bytes.
        let mut again = router(&parse(&[]).unwrap()).list_all();
        again.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(serde_json::to_value(&again).unwrap(), listed);
    }

    /// The analytics toolset's `tools/list` entries (names, descriptions, schemas).
    #[test]
    fn analytics_tools_list_snapshot() {
        let analytics = TOOLSETS.iter().find(|t| t.name == "analytics").unwrap();
        let mut tools = router(&[analytics]).list_all();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        let mut expected = analytics.tools.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        insta::assert_json_snapshot!(
            "tools_list_analytics",
            serde_json::to_value(&tools).unwrap()
        );
    }

    /// The workspace toolset's `tools/list` entries (names, descriptions, schemas).
    #[test]
    fn workspace_tools_list_snapshot() {
        let workspace = TOOLSETS.iter().find(|t| t.name == "workspace").unwrap();
        let mut tools = router(&[workspace]).list_all();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "unwatch",
                "watch",
                "watched",
                "workspace_create",
                "workspace_delete",
                "workspace_list",
                "workspace_refresh",
                "workspace_reset"
            ]
        );
        insta::assert_json_snapshot!(
            "tools_list_workspace",
            serde_json::to_value(&tools).unwrap()
        );
    }

    #[test]
    fn selections() {
        assert_eq!(parse(&[]).unwrap()[0].name, "core");
        assert_eq!(parse(&["core,core".into()]).unwrap().len(), 1);
        let e = parse(&["nope".into()]).unwrap_err();
        assert!(e.contains("unknown toolset `nope`"), "{e}");
        let e = parse(&["history".into()]).unwrap_err();
        assert!(e.contains("not available"), "{e}");
        let names = |sets: Vec<&Toolset>| sets.iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(
            names(parse(&["all".into()]).unwrap()),
            ["core", "analytics", "workspace"]
        );
        assert_eq!(
            names(parse(&["core,workspace".into()]).unwrap()),
            ["core", "workspace"]
        );
        assert_eq!(
            names(parse(&["core,analytics".into()]).unwrap()),
            ["core", "analytics"]
        );
        // The default lists core only.
        let listed: Vec<String> = router(&parse(&[]).unwrap())
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        assert!(!listed.iter().any(|n| n == "query"), "{listed:?}");
        let all = router(&parse(&["all".into()]).unwrap()).list_all();
        assert_eq!(
            all.len(),
            TOOLSETS.iter().map(|t| t.tools.len()).sum::<usize>()
        );
    }
}
