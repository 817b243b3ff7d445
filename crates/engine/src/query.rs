//! Queries over the active generation of one repository.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use sextant_store::{NodeRow, SearchFilters, Store};

use crate::home::DataDir;
use crate::types::*;
use crate::{Error, Result};

/// A symbol argument that does not name exactly one symbol.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SymbolError {
    #[error("no symbol matches {query:?}{}", suggest(.suggestions))]
    NotFound {
        query: String,
        suggestions: Vec<String>,
    },
    #[error("{query:?} is ambiguous: {} symbols match; use a qualified name or a stable id", .candidates.len())]
    Ambiguous {
        query: String,
        candidates: Vec<Symbol>,
    },
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean: {}?", s.join(", "))
    }
}

/// An indexed repository opened for queries.
#[derive(Debug)]
pub struct Repo {
    pub root: PathBuf,
    pub data: DataDir,
    store: Store,
    pub(crate) generation: i64,
    /// The generation it was opened on ([`Repo::reset_view`] goes back to it).
    pub(crate) opened: i64,
    /// Texts that replace the disk's in span reads: a workspace's overlay, then a request's
    /// virtual files (`None`: deleted in the workspace). See [`crate::workspace`].
    pub(crate) texts: std::collections::BTreeMap<String, Option<String>>,
    /// Which view answers (consistency mode, workspace, revision...).
    pub(crate) view: crate::workspace::ViewInfo,
}

pub(crate) fn to_symbol(n: NodeRow) -> Symbol {
    Symbol {
        id: n.id,
        stable_id: n.stable_id,
        kind: n.kind,
        name: n.name,
        qualified_name: n.qname,
        language: n.language,
        path: n.path,
        start_line: n.span.start_line,
        end_line: n.span.end_line,
        start_col: n.span.start_col,
        signature: n.signature,
        doc: n.doc,
        visibility: n.visibility,
        modifiers: n
            .modifiers
            .split(',')
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect(),
        complexity: n.complexity,
        parent_id: n.parent_id,
    }
}

/// Splits a qualified name into segments on any separator.
pub(crate) fn segments(text: &str) -> Vec<&str> {
    text.split(['.', ':', '\\', '/', '#'])
        .filter(|s| !s.is_empty())
        .collect()
}

const CALL_KINDS: &[&str] = &["calls", "instantiates"];

impl Repo {
    /// Opens the repository containing `start` (the nearest indexed ancestor).
    pub fn find(start: &Path) -> Result<Repo> {
        Repo::open(&crate::pipeline::find_root(start))
    }

    /// Opens the index of the repository at `root`.
    pub fn open(root: &Path) -> Result<Repo> {
        Repo::open_in(&crate::home::data_home(), root)
    }

    /// Opens the index of the repository at `root` kept under the data home `home`.
    pub fn open_in(home: &Path, root: &Path) -> Result<Repo> {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let data = DataDir::in_home(home, &root);
        if !data.exists() {
            return Err(Error::NotIndexed(root.display().to_string()));
        }
        let store = Store::open_read_only(&data.db())?;
        let generation = store.active_generation_id()?;
        if generation == 0 {
            return Err(Error::NotIndexed(root.display().to_string()));
        }
        Ok(Repo {
            root,
            data,
            store,
            generation,
            opened: generation,
            texts: Default::default(),
            view: Default::default(),
        })
    }

    pub(crate) fn sym(&self, id: i64) -> Result<Option<Symbol>> {
        Ok(self.store.node(id)?.map(to_symbol))
    }

    /// Symbols by name: exact name first, then prefix, then BM25 over words of identifiers,
    /// qualified names, signatures and docs; when none of those finds anything, names within
    /// edit distance 2 (`fuzzy`). Without text (only with a filter), every symbol passing the
    /// filters, by qualified name (see [`Repo::search_page`]).
    pub fn search(&self, query: &str, options: &SearchOptions) -> Result<Vec<SearchHit>> {
        Ok(self.search_page(query, options)?.hits)
    }

    /// The ranked search of a non-empty query: at most `limit` hits in a total order.
    pub(crate) fn search_ranked(
        &self,
        query: &str,
        filters: &SearchFilters,
        limit: u32,
    ) -> Result<Vec<SearchHit>> {
        let limit = limit.clamp(1, crate::SEARCH_CAP);
        let filters = filters.clone();
        let query = query.trim();
        let mut hits: Vec<SearchHit> = Vec::new();
        let mut seen: HashSet<i64> = HashSet::new();
        let mut add = |rows: Vec<NodeRow>, matched: &'static str, hits: &mut Vec<SearchHit>| {
            for row in rows {
                if hits.len() as u32 >= limit {
                    break;
                }
                if seen.insert(row.id) {
                    hits.push(SearchHit {
                        symbol: to_symbol(row),
                        matched,
                    });
                }
            }
        };
        let last = segments(query).last().copied().unwrap_or(query).to_string();
        self.store.snapshot(|store| {
            if !last.is_empty() {
                add(
                    store.search_exact(self.generation, &last, &filters, limit)?,
                    "exact",
                    &mut hits,
                );
                if (hits.len() as u32) < limit {
                    add(
                        store.search_prefix(self.generation, &last, &filters, limit)?,
                        "prefix",
                        &mut hits,
                    );
                }
            }
            // Words fill the list, unless one identifier was asked for and found exactly: then
            // loosely related symbols would only be noise (and the slow part of the search).
            let exact_found = hits.iter().any(|h| h.matched == "exact");
            let several_words = query.split_whitespace().nth(1).is_some();
            if (hits.len() as u32) < limit
                && (several_words || !exact_found)
                && let Some(fts) = sextant_search::fts_query(query)
            {
                add(
                    store.search_fts(self.generation, &fts, &filters, limit)?,
                    "text",
                    &mut hits,
                );
            }
            // Nothing close enough: names within a small edit distance (typos, wrong case).
            if hits.is_empty() && !several_words && last.len() >= 3 {
                for name in self.suggestions(&last)? {
                    if (hits.len() as u32) >= limit {
                        break;
                    }
                    add(
                        store.search_exact(self.generation, &name, &filters, limit)?,
                        "fuzzy",
                        &mut hits,
                    );
                }
            }
            Ok::<(), Error>(())
        })?;
        Ok(hits)
    }

    /// Resolves a symbol argument: a stable id (`sym_…`), a qualified name (any separator,
    /// suffix match on whole segments), a file path, or a plain name.
    pub fn resolve_symbol(&self, text: &str) -> Result<Symbol> {
        let text = text.trim();
        if text.starts_with("sym_")
            && let Some(n) = self
                .store
                .nodes_by_stable_id(self.generation, text)?
                .into_iter()
                .next()
        {
            return Ok(to_symbol(n));
        }
        if let Some(file) = self.store.file_at(self.generation, text)?
            && let Some(s) = self.sym(file.node_id)?
        {
            return Ok(s);
        }
        let segs = segments(text);
        let Some(name) = segs.last().copied() else {
            return Err(SymbolError::NotFound {
                query: text.to_string(),
                suggestions: Vec::new(),
            }
            .into());
        };
        let exact_q = self.store.nodes_by_qname(self.generation, text, 50)?;
        let mut candidates: Vec<NodeRow> = if !exact_q.is_empty() {
            exact_q
        } else {
            self.store
                .nodes_by_name(self.generation, name, 500)?
                .into_iter()
                .filter(|n| n.kind != "file")
                .filter(|n| {
                    let q = segments(&n.qname);
                    q.len() >= segs.len() && q[q.len() - segs.len()..] == segs[..]
                })
                .collect()
        };
        if candidates.len() > 1 {
            // A prototype and its definition are one symbol: answer with the definition.
            let defined: Vec<String> = candidates
                .iter()
                .filter(|n| !n.modifiers.split(',').any(|m| m == "declaration"))
                .map(|n| n.qname.clone())
                .collect();
            candidates.retain(|n| {
                !n.modifiers.split(',').any(|m| m == "declaration") || !defined.contains(&n.qname)
            });
        }
        if candidates.len() > 1 && segs.len() == 1 {
            // Prefer definitions over sections that merely share a heading.
            let code: Vec<NodeRow> = candidates
                .iter()
                .filter(|n| n.kind != "doc_section" && n.kind != "document")
                .cloned()
                .collect();
            if !code.is_empty() {
                candidates = code;
            }
        }
        match candidates.len() {
            1 => Ok(to_symbol(candidates.remove(0))),
            0 => Err(SymbolError::NotFound {
                query: text.to_string(),
                suggestions: self.suggestions(name)?,
            }
            .into()),
            _ => Err(SymbolError::Ambiguous {
                query: text.to_string(),
                candidates: candidates.into_iter().take(20).map(to_symbol).collect(),
            }
            .into()),
        }
    }

    /// Names close to `name` (case-insensitive equal, prefix, or within edit distance 2).
    fn suggestions(&self, name: &str) -> Result<Vec<String>> {
        let lower = name.to_lowercase();
        let mut scored: Vec<(usize, String)> = self
            .store
            .all_names(self.generation)?
            .into_iter()
            .filter_map(|n| {
                let l = n.to_lowercase();
                let d = if l == lower {
                    0
                } else if l.starts_with(&lower) && lower.len() >= 3 {
                    1
                } else {
                    sextant_search::edit_distance(&l, &lower, 2)
                };
                (d <= 2).then_some((d, n))
            })
            .collect();
        scored.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.len().cmp(&b.1.len()))
                .then(a.1.cmp(&b.1))
        });
        scored.dedup_by(|a, b| a.1 == b.1);
        Ok(scored.into_iter().take(5).map(|(_, n)| n).collect())
    }

    pub(crate) fn neighbors(&self, hits: Vec<sextant_store::EdgeHit>) -> Result<Vec<Neighbor>> {
        let mut out = Vec::with_capacity(hits.len());
        for h in hits {
            if let Some(symbol) = self.sym(h.other)? {
                out.push(Neighbor {
                    symbol,
                    edge_kind: h.kind,
                    provenance: h.provenance,
                    confidence: h.confidence,
                    rule: h.rule,
                    site: h.site.map(|(path, line, col)| Site { path, line, col }),
                });
            }
        }
        Ok(out)
    }

    /// The card of a symbol: where, what, members, neighbour counts, top callers and callees.
    pub fn card(&self, symbol: &Symbol) -> Result<SymbolCard> {
        self.store.snapshot(|_| {
            let parent = match symbol.parent_id {
                Some(p) => self.sym(p)?,
                None => None,
            };
            let mut members: Vec<Symbol> = self
                .store
                .children(symbol.id)?
                .into_iter()
                .map(to_symbol)
                .collect();
            // Members defined elsewhere (Rust impl blocks, Go methods, C++ out-of-line).
            if symbol.kind != "file" && symbol.kind != "document" {
                let depth = segments(&symbol.qualified_name).len() + 1;
                for n in self.store.nodes_with_qname_prefix(
                    self.generation,
                    &symbol.qualified_name,
                    500,
                )? {
                    let segs = segments(&n.qname);
                    let starts = segs.len() == depth
                        && segs[..depth - 1] == segments(&symbol.qualified_name)[..];
                    if starts && !members.iter().any(|m| m.id == n.id) {
                        members.push(to_symbol(n));
                    }
                }
            }
            let incoming = self.store.edges_to(self.generation, symbol.id, &[])?;
            let outgoing = self.store.edges_from(self.generation, symbol.id, &[])?;
            let count = |hits: &[sextant_store::EdgeHit]| {
                let mut c: Vec<(String, u64)> = Vec::new();
                for h in hits {
                    match c.iter_mut().find(|(k, _)| *k == h.kind) {
                        Some((_, n)) => *n += 1,
                        None => c.push((h.kind.clone(), 1)),
                    }
                }
                c.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                c
            };
            let incoming_counts = count(&incoming);
            let outgoing_counts = count(&outgoing);
            let callers = self.neighbors(
                incoming
                    .into_iter()
                    .filter(|h| CALL_KINDS.contains(&h.kind.as_str()))
                    .take(10)
                    .collect(),
            )?;
            let callees = self.neighbors(
                outgoing
                    .into_iter()
                    .filter(|h| CALL_KINDS.contains(&h.kind.as_str()))
                    .take(10)
                    .collect(),
            )?;
            Ok(SymbolCard {
                symbol: symbol.clone(),
                parent,
                members,
                incoming: incoming_counts,
                outgoing: outgoing_counts,
                callers,
                callees,
            })
        })
    }

    /// How complete "who uses `symbol`" is: unresolved or ambiguous sites with the same name.
    pub(crate) fn completeness_in(
        &self,
        symbol: &Symbol,
        ref_kinds: &[&str],
        found: &[Neighbor],
    ) -> Result<Completeness> {
        if symbol.kind == "document" || symbol.kind == "doc_section" {
            return Ok(Completeness::Unknown {
                reason: "references to documents and their sections are not analysed".into(),
            });
        }
        if symbol.kind == "file" {
            return Ok(Completeness::Exact);
        }
        let (unresolved, sample) = self.store.unresolved_named(
            self.generation,
            &symbol.name,
            ref_kinds,
            interoperating(&symbol.language),
            5,
        )?;
        let ambiguous = found.iter().filter(|n| n.provenance == "ambiguous").count() as u64;
        if unresolved == 0 && ambiguous == 0 {
            return Ok(Completeness::Exact);
        }
        Ok(Completeness::LowerBound {
            unresolved,
            ambiguous,
            sample: sample.into_iter().map(unresolved_site).collect(),
        })
    }

    /// Every resolved reference to a symbol (optionally of some edge kinds), with completeness.
    pub fn references(&self, symbol: &Symbol, kinds: &[String]) -> Result<References> {
        self.store.snapshot(|_| {
            let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
            let hits: Vec<sextant_store::EdgeHit> = self
                .store
                .edges_to(self.generation, symbol.id, &kinds)?
                .into_iter()
                .filter(|h| h.kind != "contains")
                .collect();
            let references = self.neighbors(hits)?;
            let ref_kinds: Vec<&str> = if kinds.is_empty() {
                Vec::new()
            } else {
                kinds
                    .iter()
                    .flat_map(|k| edge_to_ref_kinds(k))
                    .copied()
                    .collect()
            };
            let completeness = self.completeness_in(symbol, &ref_kinds, &references)?;
            Ok(References {
                target: symbol.clone(),
                references,
                completeness,
            })
        })
    }

    /// Callers (`incoming = true`) or callees of a symbol, breadth first to `depth`, cycle-safe,
    /// at most `per_level` nodes per level.
    pub fn calls(
        &self,
        symbol: &Symbol,
        incoming: bool,
        depth: u32,
        per_level: u32,
    ) -> Result<CallGraph> {
        let depth = depth.clamp(1, 10);
        self.store.snapshot(|_| {
            let mut steps = Vec::new();
            let mut visited: HashSet<i64> = HashSet::from([symbol.id]);
            let mut frontier: VecDeque<i64> = VecDeque::from([symbol.id]);
            let mut truncated = false;
            let mut unresolved_total = 0u64;
            let mut ambiguous_total = 0u64;
            let mut sample = Vec::new();
            for level in 1..=depth {
                let mut next = VecDeque::new();
                let mut count = 0u32;
                for id in frontier.drain(..) {
                    let hits = if incoming {
                        self.store.edges_to(self.generation, id, CALL_KINDS)?
                    } else {
                        self.store.edges_from(self.generation, id, CALL_KINDS)?
                    };
                    if level == 1 {
                        let found = self.neighbors(hits.clone())?;
                        let completeness = if incoming {
                            self.completeness_in(symbol, &["call", "instantiate"], &found)?
                        } else {
                            let unresolved = self.store.unresolved_from(
                                self.generation,
                                id,
                                &["call", "instantiate"],
                            )?;
                            let ambiguous =
                                found.iter().filter(|n| n.provenance == "ambiguous").count() as u64;
                            if unresolved.is_empty() && ambiguous == 0 {
                                Completeness::Exact
                            } else {
                                Completeness::LowerBound {
                                    unresolved: unresolved.len() as u64,
                                    ambiguous,
                                    sample: unresolved
                                        .into_iter()
                                        .take(5)
                                        .map(unresolved_site)
                                        .collect(),
                                }
                            }
                        };
                        if let Completeness::LowerBound {
                            unresolved,
                            ambiguous,
                            sample: s,
                        } = completeness
                        {
                            unresolved_total += unresolved;
                            ambiguous_total += ambiguous;
                            sample = s;
                        }
                    }
                    for n in self.neighbors(hits)? {
                        if !visited.insert(n.symbol.id) {
                            continue;
                        }
                        if count >= per_level {
                            truncated = true;
                            continue;
                        }
                        count += 1;
                        next.push_back(n.symbol.id);
                        steps.push(CallStep {
                            depth: level,
                            neighbor: n,
                            from: id,
                        });
                    }
                }
                if next.is_empty() {
                    break;
                }
                frontier = next;
            }
            let completeness = if unresolved_total == 0 && ambiguous_total == 0 {
                Completeness::Exact
            } else {
                Completeness::LowerBound {
                    unresolved: unresolved_total,
                    ambiguous: ambiguous_total,
                    sample,
                }
            };
            Ok(CallGraph {
                root: symbol.clone(),
                direction: if incoming { "callers" } else { "callees" },
                depth,
                steps,
                truncated,
                completeness,
            })
        })
    }

    fn read_lines(
        &self,
        path: &str,
        start: u32,
        end: u32,
        context: u32,
        hash: Option<&str>,
    ) -> Result<SourceSpan> {
        if sextant_vfs::is_secret_path(path) {
            return Err(Error::Io(format!(
                "{path}: refusing to read a secret-bearing file"
            )));
        }
        // A workspace's or a request's text (checked when it was given) needs no file on disk.
        let abs = match self.texts.get(path) {
            Some(_) => self.root.join(path),
            None => sextant_vfs::confine(&self.root, path)?.1,
        };
        let file = match self.texts.get(path) {
            Some(Some(text)) => sextant_vfs::SourceFile {
                hash: sextant_vfs::blob_id(text.as_bytes()),
                size: text.len() as u64,
                text: text.clone(),
                lossy: false,
                stat: None,
            },
            Some(None) => {
                return Err(Error::Io(format!(
                    "{path}: deleted in workspace {}",
                    self.view.workspace.as_deref().unwrap_or("-")
                )));
            }
            None => sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX)
                .map_err(|e| Error::Io(format!("{path}: {} ({})", e.reason.as_str(), e.detail)))?,
        };
        let stale = hash.is_some_and(|h| h != file.hash);
        let lines: Vec<&str> = file.text.lines().collect();
        let total = lines.len() as u32;
        let first = start.saturating_sub(context).max(1);
        let last = end.saturating_add(context).min(total.max(1));
        let text = if total == 0 || first > total {
            String::new()
        } else {
            lines[(first - 1) as usize..last as usize].join("\n")
        };
        Ok(SourceSpan {
            path: path.to_string(),
            start_line: first,
            end_line: last.max(first),
            text,
            stale,
            symbol: None,
        })
    }

    /// The source of a symbol's definition, with `context` lines around it.
    pub fn source_of(&self, symbol: &Symbol, context: u32) -> Result<SourceSpan> {
        let hash = self
            .store
            .file_at(self.generation, &symbol.path)?
            .map(|f| f.hash);
        let mut span = self.read_lines(
            &symbol.path,
            symbol.start_line,
            symbol.end_line,
            context,
            hash.as_deref(),
        )?;
        span.symbol = Some(symbol.clone());
        Ok(span)
    }

    /// Lines `start..=end` of a file inside the repository.
    pub fn source_range(
        &self,
        path: &str,
        start: u32,
        end: u32,
        context: u32,
    ) -> Result<SourceSpan> {
        let hash = self.store.file_at(self.generation, path)?.map(|f| f.hash);
        self.read_lines(path, start.max(1), end.max(start), context, hash.as_deref())
    }

    /// Lines `start..=end` of `text`, an unsaved version of the repository file `path` (an
    /// editor buffer): the path is checked like [`Repo::source_range`], the disk is not read.
    pub fn virtual_range(
        &self,
        path: &str,
        text: &str,
        start: u32,
        end: u32,
        context: u32,
    ) -> Result<SourceSpan> {
        sextant_vfs::confine(&self.root, path)?;
        if sextant_vfs::is_secret_path(path) {
            return Err(Error::Io(format!(
                "{path}: refusing to read a secret-bearing file"
            )));
        }
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len() as u32;
        let start = start.max(1);
        let first = start.saturating_sub(context).max(1);
        let last = end.max(start).saturating_add(context).min(total.max(1));
        let text = if total == 0 || first > total {
            String::new()
        } else {
            lines[(first - 1) as usize..last as usize].join("\n")
        };
        Ok(SourceSpan {
            path: path.to_string(),
            start_line: first,
            end_line: last.max(first),
            text,
            stale: false,
            symbol: None,
        })
    }

    /// Node, edge, reference and unresolved histograms.
    pub fn stats(&self) -> Result<Stats> {
        self.store.snapshot(|s| {
            let mut edges = s.edge_histogram(self.generation)?;
            let contains: u64 = s
                .node_histogram(self.generation)?
                .iter()
                .filter(|(k, _)| k != "file")
                .map(|(_, n)| n)
                .sum();
            edges.insert(0, ("contains/asserted".into(), contains));
            Ok(Stats {
                nodes: s.node_histogram(self.generation)?,
                edges,
                references: s.ref_histogram(self.generation)?,
                unresolved: s.unresolved_histogram(self.generation)?,
                languages: s.language_histogram(self.generation)?,
            })
        })
    }

    /// Every edge as `src -kind/provenance/rule-> dst @ path:line` lines, ordered by site
    /// (for tests and debugging).
    pub fn edge_lines(&self) -> Result<Vec<String>> {
        Ok(self
            .store
            .all_edges(self.generation)?
            .into_iter()
            .map(|e| {
                let site = e
                    .site
                    .map(|(p, l)| format!(" @ {p}:{l}"))
                    .unwrap_or_default();
                format!(
                    "{} -{}/{}/{}-> {}{site}",
                    e.src, e.kind, e.provenance, e.rule, e.dst
                )
            })
            .collect())
    }

    /// Every unresolved reference as `path:line name (receiver) reason` lines.
    pub fn unresolved_lines(&self) -> Result<Vec<String>> {
        Ok(self
            .store
            .all_unresolved(self.generation)?
            .into_iter()
            .map(|(p, l, n, r, reason)| {
                let recv = r.map(|r| format!("{r}.")).unwrap_or_default();
                format!("{p}:{l} {recv}{n} [{reason}]")
            })
            .collect())
    }

    /// The generation answers come from.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// The commit the active generation was built from (`None` outside git).
    pub fn commit(&self) -> Result<Option<String>> {
        Ok(self
            .store
            .generation(self.generation)?
            .and_then(|g| g.commit))
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Unresolved reference sites naming `symbol` (what could add to its references), at most
    /// `limit`, with their total.
    pub fn unresolved_sites(
        &self,
        symbol: &Symbol,
        ref_kinds: &[&str],
        limit: u32,
    ) -> Result<(u64, Vec<UnresolvedSite>)> {
        let (total, rows) = self.store.unresolved_named(
            self.generation,
            &symbol.name,
            ref_kinds,
            interoperating(&symbol.language),
            limit,
        )?;
        Ok((total, rows.into_iter().map(unresolved_site).collect()))
    }

    /// The text of each `(path, line)` (trimmed, at most `max_len` bytes), reading every file
    /// once through `sextant-vfs`; sites that cannot be read (deleted, secret, outside the
    /// repository) are left out.
    pub fn line_excerpts(
        &self,
        sites: &[(String, u32)],
        max_len: usize,
    ) -> std::collections::HashMap<(String, u32), String> {
        let mut by_file: std::collections::BTreeMap<&str, Vec<u32>> = Default::default();
        for (path, line) in sites {
            by_file.entry(path.as_str()).or_default().push(*line);
        }
        let mut out = std::collections::HashMap::new();
        for (path, lines) in by_file {
            if sextant_vfs::is_secret_path(path) {
                continue;
            }
            let file = match self.texts.get(path) {
                Some(Some(text)) => text.clone(),
                Some(None) => continue,
                None => {
                    let Ok((_, abs)) = sextant_vfs::confine(&self.root, path) else {
                        continue;
                    };
                    match sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX) {
                        Ok(file) => file.text,
                        Err(_) => continue,
                    }
                }
            };
            let text: Vec<&str> = file.lines().collect();
            for line in lines {
                let Some(l) = text.get((line as usize).wrapping_sub(1)) else {
                    continue;
                };
                let mut l = l.trim();
                if l.len() > max_len {
                    let mut cut = max_len;
                    while !l.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    l = &l[..cut];
                }
                out.insert((path.to_string(), line), crate::redact::snippet(l));
            }
        }
        out
    }

    /// The symbol with this node id in the active generation.
    pub fn symbol_by_id(&self, id: i64) -> Result<Option<Symbol>> {
        self.sym(id)
    }

    /// Bytes an agent would read to see every `(path, line)` site with grep-style context:
    /// the 41 lines around each distinct site at the file's average line length, at most the
    /// whole file. Paths that are not indexed files count nothing.
    pub fn reading_cost(&self, sites: &[(String, u32)]) -> Result<u64> {
        let mut by_file: std::collections::BTreeMap<&str, HashSet<u32>> = Default::default();
        for (path, line) in sites {
            by_file.entry(path.as_str()).or_default().insert(*line);
        }
        let mut total = 0u64;
        for (path, lines) in by_file {
            let Some(file) = self.store.file_at(self.generation, path)? else {
                continue;
            };
            let avg = file.size / u64::from(file.lines.max(1));
            let window = lines.len() as u64 * 41 * avg.max(1);
            total += window.min(file.size);
        }
        Ok(total)
    }
}

pub(crate) fn unresolved_site(s: sextant_store::RefSite) -> UnresolvedSite {
    UnresolvedSite {
        site: Site {
            path: s.path,
            line: s.line,
            col: s.col,
        },
        kind: s.kind,
        name: s.name,
        receiver: s.receiver,
        reason: s.reason,
        candidates: s.candidates,
    }
}

/// Languages whose code can refer to a definition written in `language` (a Python call never
/// reaches a Rust method): the unresolved sites that can make a "who uses it" answer incomplete.
/// Empty (no filter) for languages not listed.
pub(crate) fn interoperating(language: &str) -> &'static [&'static str] {
    match language {
        "python" => &["python"],
        "rust" => &["rust"],
        "go" => &["go"],
        "ruby" => &["ruby"],
        "php" => &["php"],
        "csharp" => &["csharp"],
        "java" | "kotlin" => &["java", "kotlin"],
        "c" | "cpp" => &["c", "cpp"],
        "typescript" | "tsx" | "javascript" => &["typescript", "tsx", "javascript"],
        _ => &[],
    }
}

fn edge_to_ref_kinds(edge_kind: &str) -> &'static [&'static str] {
    match edge_kind {
        "calls" => &["call", "decorate"],
        "instantiates" => &["instantiate", "call"],
        "uses_type" => &["type"],
        "inherits" => &["inherit"],
        "implements" => &["implement"],
        "reads" => &["read"],
        "writes" => &["write"],
        _ => &[],
    }
}

/// The index status of the repository at `root` (works before the first index too).
pub fn status(root: &Path, skipped_sample: usize) -> Result<Status> {
    status_in(&crate::home::data_home(), root, skipped_sample)
}

/// [`status`] with an explicit data home.
pub fn status_in(home: &Path, root: &Path, skipped_sample: usize) -> Result<Status> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let data = DataDir::in_home(home, &root);
    let mut status = Status {
        root: root.clone(),
        data_dir: data.dir.clone(),
        ..Status::default()
    };
    if let Some(workdir) = sextant_git::discover(&root).and_then(|w| w.canonicalize().ok())
        && workdir == root
        && let Ok(head) = sextant_git::head(&root)
    {
        status.repo_commit = head.commit;
        status.repo_branch = head.branch;
    }
    if !data.exists() {
        return Ok(status);
    }
    let store = Store::open_read_only(&data.db())?;
    status.db_bytes = store.size_bytes();
    store.snapshot(|store| {
        let generation = store.active_generation_id()?;
        if generation == 0 {
            return Ok::<(), Error>(());
        }
        let Some(info) = store.generation(generation)? else {
            return Ok(());
        };
        status.indexed = true;
        status.generation = Some(generation);
        status.graph_commit = info.commit.clone();
        status.graph_branch = info.branch.clone();
        status.indexed_at = info.finished_at;
        status.last_index = info.stats.clone();
        status.stale = status.repo_commit.is_some() && status.repo_commit != info.commit;
        let files = store.files(generation)?;
        status.files = files.len() as u64;
        status.uncommitted_files = files.iter().filter(|f| f.uncommitted).count() as u64;
        status.languages = store.language_histogram(generation)?;
        let skipped = store.skipped(generation)?;
        let mut counts: Vec<(String, u64)> = Vec::new();
        for s in &skipped {
            match counts.iter_mut().find(|(k, _)| *k == s.reason) {
                Some((_, n)) => *n += 1,
                None => counts.push((s.reason.clone(), 1)),
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        status.skipped = counts;
        status.skipped_files = skipped
            .into_iter()
            .take(skipped_sample)
            .map(|s| SkippedFile {
                path: s.path,
                reason: s.reason,
                size: s.size,
            })
            .collect();
        Ok(())
    })?;
    Ok(status)
}
