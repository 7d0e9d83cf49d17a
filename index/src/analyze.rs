//! From every file's facts to what the review needs: importers and callers
//! of each changed file's symbols, and the uses the change left stale.

mod uses;

use crate::ChangeInput;
use crate::extract::{Def, FileFacts, Ref};
use crate::lang::Lang;
use crate::resolve::Resolver;
use crate::scan::{ScannedFile, quote};
use crate::tree::StoredTree;
use crate::tree::build::Edges;
use revu_domain::code_index::{
    CodeIndex, IndexedFile, MAX_SITES, Omission, Site, Symbol, SymbolChange, SymbolKind, Taken,
};
use revu_domain::diff::{FilePatch, FileStatus};
use revu_domain::paths::is_test_path;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use uses::{Bound, Target};

/// Most importers listed per file.
const MAX_IMPORTERS: usize = 50;
/// Most stale uses reported per review.
const MAX_OMISSIONS: usize = 500;

/// One indexed file.
struct Rec<'a> {
    lang: Lang,
    facts: FileFacts,
    /// The text, for a changed file; scanned files keep quotes instead.
    src: Option<&'a [u8]>,
    quotes: HashMap<u32, String>,
}

impl Rec<'_> {
    /// A scanned file of a language, and its path.
    fn scanned(f: ScannedFile) -> (String, Self) {
        let rec = Rec {
            lang: f.lang.unwrap_or(Lang::Python),
            facts: f.facts,
            src: None,
            quotes: f.quotes,
        };
        (f.path, rec)
    }
}

struct Graph<'a> {
    resolver: Resolver,
    recs: HashMap<usize, Rec<'a>>,
    /// Id → ids of the files that import it: every file's for a full
    /// index; for a warm one, those whose imports were resolved here (the
    /// summary's edges give the rest).
    importers: HashMap<usize, Vec<usize>>,
    /// For a warm index, the files whose edges in the summary no longer
    /// hold: the changed files, and those resolved again.
    resolved: HashSet<usize>,
    /// Name → its uses, as (file id, reference).
    uses: HashMap<String, Vec<(usize, usize)>>,
    /// (family, name) → definitions at head.
    defined: HashMap<(Lang, String), usize>,
}

/// The summary of the base tree a warm index takes the files the change
/// left alone from, and the paths the change touched.
pub(crate) struct Prior<'t> {
    pub tree: Arc<StoredTree>,
    pub changed: &'t HashSet<String>,
    /// Files the change left alone whose imports are resolved again: they
    /// import a package (a directory) the change adds a file to.
    pub reresolve: &'t HashSet<String>,
    /// (family, name) → definitions in the files the change left alone,
    /// for the names the change defines or took away (from the summary's
    /// postings: the files themselves are mostly not read).
    pub defined: &'t HashMap<(Lang, String), usize>,
}

/// The index of `change`; with `keep_edges`, the import graph too, for a
/// summary of the tree.
pub(crate) fn analyze(
    change: &ChangeInput,
    heads: BTreeMap<String, (Lang, FileFacts)>,
    bases: &BTreeMap<String, (Lang, FileFacts)>,
    scanned: Vec<ScannedFile>,
    prior: Option<Prior<'_>>,
    keep_edges: bool,
) -> (CodeIndex, Option<Edges>) {
    let (graph, forward) = Graph::build(change, heads, scanned, prior, keep_edges);
    let edges = forward.map(|forward| Edges {
        paths: (0..graph.resolver.len())
            .map(|id| graph.resolver.path(id).to_owned())
            .collect(),
        forward,
    });
    let mut index = CodeIndex::default();
    for patch in &change.diff.files {
        let path = patch.path();
        let Some(lang) = Lang::of(path) else { continue };
        let file = graph.file(patch, lang, bases, &mut index);
        index.files.insert(path.to_owned(), file);
    }
    index
        .omissions
        .sort_by(|a, b| (&a.site, &a.symbol).cmp(&(&b.site, &b.symbol)));
    index.omissions.dedup();
    index.omissions.truncate(MAX_OMISSIONS);
    index.taken.sort();
    index.taken.dedup();
    (index, edges)
}

/// The files one changed file is reached from.
struct Reach {
    /// The file itself (and its old path when renamed).
    own: Vec<usize>,
    direct: BTreeSet<usize>,
    transitive: BTreeSet<usize>,
    same_package: Vec<usize>,
}

impl<'a> Graph<'a> {
    fn build(
        change: &'a ChangeInput,
        heads: BTreeMap<String, (Lang, FileFacts)>,
        scanned: Vec<ScannedFile>,
        prior: Option<Prior<'_>>,
        keep_edges: bool,
    ) -> (Graph<'a>, Option<Vec<Vec<usize>>>) {
        // Paths the change took away stay resolvable, so that what still
        // imports them is found.
        let gone: Vec<String> = change
            .diff
            .files
            .iter()
            .filter(|p| matches!(p.status, FileStatus::Deleted | FileStatus::Renamed))
            .filter_map(|p| p.old_path.clone())
            .filter(|old| Lang::of(old).is_some())
            .collect();
        let mut resolver = match &prior {
            Some(p) => Resolver::over(
                p.tree.clone(),
                heads.keys().cloned().collect(),
                gone.clone(),
            ),
            None => Resolver::default(),
        };
        let mut recs: HashMap<usize, Rec<'a>> = HashMap::new();
        for f in &scanned {
            if let Some(text) = &f.manifest {
                resolver.manifest(&f.path, text);
            }
        }
        let mut head_ids = HashSet::new();
        for (path, (lang, facts)) in heads {
            let src = change.head.get(&path).map(Vec::as_slice);
            let rec = Rec {
                lang,
                facts,
                src,
                quotes: HashMap::new(),
            };
            if let Some(id) = resolver.add(&path) {
                head_ids.insert(id);
                recs.insert(id, rec);
            }
        }
        // The files the scan read, in path order (as a full scan gives
        // them).
        for f in scanned.into_iter().filter(|f| f.lang.is_some()) {
            let (path, rec) = Rec::scanned(f);
            if let Some(id) = resolver.add(&path) {
                recs.entry(id).or_insert(rec);
            }
        }
        for old in &gone {
            resolver.add(old);
        }
        resolver.finish();
        let mut ids: Vec<usize> = recs.keys().copied().collect();
        ids.sort_unstable();
        let mut importers: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut forward: Option<Vec<Vec<usize>>> =
            keep_edges.then(|| vec![Vec::new(); resolver.len()]);
        let mut uses: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        let mut defined: HashMap<(Lang, String), usize> = HashMap::new();
        // A warm index resolves only the imports of the changed files and
        // of those resolved again; the summary has the rest.
        let resolved: HashSet<usize> = prior
            .as_ref()
            .map(|p| {
                p.changed
                    .iter()
                    .chain(p.reresolve.iter())
                    .filter_map(|path| resolver.id(path))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(p) = &prior {
            defined.clone_from(p.defined);
        }
        for &id in &ids {
            let Some(rec) = recs.get(&id) else { continue };
            let from = resolver.path(id).to_owned();
            let resolves = prior.is_none() || resolved.contains(&id);
            for import in rec.facts.imports.iter().filter(|_| resolves) {
                for target in resolver.resolve(&from, rec.lang, import) {
                    if target != id {
                        importers.entry(target).or_default().push(id);
                        if let Some(forward) = forward.as_mut() {
                            forward[id].push(target);
                        }
                    }
                }
            }
            for (i, r) in rec.facts.refs.iter().enumerate() {
                uses.entry(r.name.clone()).or_default().push((id, i));
            }
            // A warm index counts the definitions of the files it did not
            // read from the summary: only the changed files' are added.
            if prior.is_some() && !head_ids.contains(&id) {
                continue;
            }
            for d in &rec.facts.defs {
                *defined
                    .entry((rec.lang.family(), d.name.clone()))
                    .or_default() += 1;
            }
        }
        for list in importers.values_mut() {
            list.sort_unstable();
            list.dedup();
        }
        let graph = Graph {
            resolver,
            recs,
            importers,
            resolved,
            uses,
            defined,
        };
        (graph, forward)
    }

    fn rec(&self, id: usize) -> Option<&Rec<'a>> {
        self.recs.get(&id)
    }

    /// The files that import file `id`.
    fn importers_of(&self, id: usize) -> Vec<usize> {
        let mut out = self.importers.get(&id).cloned().unwrap_or_default();
        if let (Some(tree), Some(i)) = (self.resolver.tree(), self.resolver.in_tree(id)) {
            let before = out.len();
            out.extend(
                tree.importers_of(i as usize)
                    .into_iter()
                    .filter_map(|f| self.resolver.id_in_tree(f))
                    .filter(|f| *f != id && !self.resolved.contains(f)),
            );
            if out.len() > before {
                out.sort_unstable();
                out.dedup();
            }
        }
        out
    }

    fn reach(&self, patch: &FilePatch, lang: Lang) -> Reach {
        let mut own: Vec<usize> = [patch.new_path.as_deref(), patch.old_path.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(|p| self.resolver.id(p))
            .collect();
        own.dedup();
        let direct: BTreeSet<usize> = own
            .iter()
            .flat_map(|&id| self.importers_of(id))
            .filter(|id| !own.contains(id))
            .collect();
        let mut transitive = BTreeSet::new();
        let mut queue: VecDeque<usize> = own.iter().copied().collect();
        let mut seen: HashSet<usize> = own.iter().copied().collect();
        while let Some(id) = queue.pop_front() {
            for i in self.importers_of(id) {
                if seen.insert(i) {
                    transitive.insert(i);
                    queue.push_back(i);
                }
            }
        }
        let same_package = if matches!(lang, Lang::Go | Lang::Java) {
            self.resolver
                .same_dir(patch.path())
                .into_iter()
                .filter(|&id| self.rec(id).is_some_and(|r| r.lang == lang))
                .collect()
        } else {
            Vec::new()
        };
        Reach {
            own,
            direct,
            transitive,
            same_package,
        }
    }

    /// The references named `name` in files of `family`.
    fn uses_of<'g>(
        &'g self,
        name: &str,
        family: Lang,
    ) -> impl Iterator<Item = (usize, &'g Ref)> + 'g {
        self.uses
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(move |&(id, i)| {
                let rec = self.rec(id)?;
                let r = rec.facts.refs.get(i)?;
                (rec.lang.family() == family).then_some((id, r))
            })
    }

    fn site(&self, id: usize, line: u32) -> Site {
        Site::at(self.resolver.path(id), line)
    }

    fn quote(&self, id: usize, line: u32) -> String {
        let Some(rec) = self.rec(id) else {
            return String::new();
        };
        match rec.src {
            Some(src) => quote(src, line).unwrap_or_default(),
            None => rec.quotes.get(&line).cloned().unwrap_or_default(),
        }
    }

    fn file(
        &self,
        patch: &FilePatch,
        lang: Lang,
        bases: &BTreeMap<String, (Lang, FileFacts)>,
        index: &mut CodeIndex,
    ) -> IndexedFile {
        let reach = self.reach(patch, lang);
        let head_id = patch.new_path.as_deref().and_then(|p| self.resolver.id(p));
        let head = head_id.and_then(|id| self.rec(id));
        let symbols = head.map_or_else(Vec::new, |rec| {
            rec.facts
                .defs
                .iter()
                .map(|d| {
                    let target = Target {
                        def: d,
                        lang,
                        path: patch.path(),
                        classes: &rec.facts.classes,
                        imports: &rec.facts.imports,
                    };
                    self.symbol(&target, head_id, &reach, patch)
                })
                .collect()
        });
        let base = patch
            .old_path
            .as_deref()
            .and_then(|p| bases.get(p))
            .map(|(_, f)| f);
        if let Some(base) = base {
            let head_defs = head.map_or(&[][..], |r| r.facts.defs.as_slice());
            self.omissions(patch, lang, base, head_defs, &reach, index);
        }
        IndexedFile {
            language: lang.name().to_owned(),
            direct_importers: reach.direct.len(),
            transitive_importers: reach.transitive.len(),
            importers: reach
                .direct
                .iter()
                .take(MAX_IMPORTERS)
                .map(|&id| self.resolver.path(id).to_owned())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            symbols,
        }
    }

    fn symbol(
        &self,
        t: &Target<'_>,
        head_id: Option<usize>,
        reach: &Reach,
        patch: &FilePatch,
    ) -> Symbol {
        let d = t.def;
        let mut callers = BTreeSet::new();
        let mut sites = BTreeSet::new();
        // Test file → the first line there that names it.
        let mut tests: BTreeMap<&str, u32> = BTreeMap::new();
        for (id, r) in self.uses_of(&d.name, t.lang.family()) {
            let own = Some(id) == head_id;
            if r.import || (own && (d.line..=d.end_line).contains(&r.line)) {
                continue;
            }
            if self.bound(t, reach, id, r) == Bound::Other {
                continue;
            }
            callers.insert((id, r.caller.unwrap_or(0)));
            sites.insert(self.site(id, r.line));
            let path = self.resolver.path(id);
            if is_test_path(path) {
                let first = tests.entry(path).or_insert(r.line);
                *first = (*first).min(r.line);
            }
        }
        let changed = patch
            .added_lines()
            .any(|(n, _)| (d.line..=d.end_line).contains(&n));
        let tests: Vec<(&str, u32)> = tests.into_iter().take(MAX_SITES).collect();
        // Where the tests name it matters to a reviewer of a change to it;
        // for the rest it would only make the bundle larger.
        let test_sites = if changed {
            tests.iter().map(|&(f, l)| Site::at(f, l)).collect()
        } else {
            Vec::new()
        };
        Symbol {
            name: d.name.clone(),
            kind: d.kind,
            line: d.line,
            end_line: d.end_line,
            changed,
            callers: callers.len(),
            sites: sites.into_iter().take(MAX_SITES).collect(),
            tests: tests.into_iter().map(|(f, _)| f.to_owned()).collect(),
            test_sites,
        }
    }

    /// What the change took away from `base` that is still used.
    fn omissions(
        &self,
        patch: &FilePatch,
        lang: Lang,
        base: &FileFacts,
        head: &[Def],
        reach: &Reach,
        index: &mut CodeIndex,
    ) {
        let head_names: HashSet<&str> = head.iter().map(|d| d.name.as_str()).collect();
        let base_names: HashSet<&str> = base.defs.iter().map(|d| d.name.as_str()).collect();
        let family = lang.family();
        let mut seen = HashSet::new();
        for b in &base.defs {
            if !seen.insert(b.name.as_str()) {
                continue;
            }
            let change = if head_names.contains(b.name.as_str()) {
                match self.arity_change(b, base, head, family, lang) {
                    Some(found) => found,
                    None => continue,
                }
            } else if self.defined.contains_key(&(family, b.name.clone())) {
                // Moved, or still defined elsewhere: not taken away.
                continue;
            } else {
                match renamed_to(b, patch, head, &base_names) {
                    Some(to) => Changed::Renamed(to),
                    None => Changed::Removed,
                }
            };
            index.taken.push(Taken {
                symbol: b.name.clone(),
                kind: b.kind,
                file: patch.path().to_owned(),
                line: b.line,
                change: match change {
                    Changed::Removed => "removed",
                    Changed::Renamed(_) => "renamed",
                    Changed::Arity { .. } => "changed",
                }
                .to_owned(),
            });
            let target = Target {
                def: b,
                lang,
                path: patch.old_path.as_deref().unwrap_or(patch.path()),
                classes: &base.classes,
                imports: &base.imports,
            };
            for (id, r) in self.uses_of(&b.name, family) {
                // A check that the old name is gone, kept to fail clearly.
                if r.raise_guard {
                    continue;
                }
                let (checked, doubt) = match self.bound(&target, reach, id, r) {
                    Bound::Use(how) => (how, None),
                    Bound::Doubt(why) => (String::new(), Some(why)),
                    Bound::Other => continue,
                };
                let symbol_change = match &change {
                    Changed::Removed => SymbolChange::Removed,
                    Changed::Renamed(to) => SymbolChange::Renamed { to: to.clone() },
                    Changed::Arity {
                        was,
                        now,
                        takes_self,
                    } => {
                        let Some(n) = r.call_args else { continue };
                        if (*takes_self && r.path_call) || !was.accepts(n) || now.accepts(n) {
                            continue;
                        }
                        SymbolChange::Arity {
                            was: was.describe(),
                            now: now.describe(),
                            passed: n,
                        }
                    }
                };
                index.omissions.push(Omission {
                    symbol: b.name.clone(),
                    kind: b.kind,
                    change: symbol_change,
                    defined_in: patch.path().to_owned(),
                    defined_line: b.line,
                    site: self.site(id, r.line),
                    text: self.quote(id, r.line),
                    checked,
                    doubt,
                });
            }
        }
    }

    /// The arity change of function `b`, when the language checks it and
    /// the name is one function in the repository and in each side of its
    /// file (no overloads to confuse).
    fn arity_change(
        &self,
        b: &Def,
        base: &FileFacts,
        head: &[Def],
        family: Lang,
        lang: Lang,
    ) -> Option<Changed> {
        if !lang.checks_arity() || !matches!(b.kind, SymbolKind::Function | SymbolKind::Method) {
            return None;
        }
        let was = b.arity?;
        let once = |defs: &[Def]| defs.iter().filter(|d| d.name == b.name).count() == 1;
        if !once(&base.defs) || !once(head) {
            return None;
        }
        if self.defined.get(&(family, b.name.clone())) != Some(&1) {
            return None;
        }
        let h = head.iter().find(|d| d.name == b.name)?;
        let now = h.arity?;
        (now != was).then_some(Changed::Arity {
            was,
            now,
            takes_self: h.takes_self,
        })
    }
}

enum Changed {
    Removed,
    Renamed(String),
    Arity {
        was: crate::extract::Arity,
        now: crate::extract::Arity,
        takes_self: bool,
    },
}

/// The new name of `b`, when one new definition of its kind stands where it
/// stood: in the hunk that removed it, at the same offset if several do.
fn renamed_to(
    b: &Def,
    patch: &FilePatch,
    head: &[Def],
    base_names: &HashSet<&str>,
) -> Option<String> {
    let hunk = patch.hunks.iter().find(|h| {
        let end = h.old_start + h.old_lines.max(1);
        (h.old_start..end).contains(&b.line)
    })?;
    let new_end = hunk.new_start + hunk.new_lines.max(1);
    let candidates: Vec<&Def> = head
        .iter()
        .filter(|h| h.kind == b.kind && !base_names.contains(h.name.as_str()))
        .filter(|h| (hunk.new_start..new_end).contains(&h.line))
        .collect();
    let mut names: Vec<&str> = candidates.iter().map(|d| d.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() == 1 {
        return Some(names[0].to_owned());
    }
    let offset = b.line - hunk.old_start;
    let at: Vec<&str> = candidates
        .iter()
        .filter(|h| h.line - hunk.new_start == offset)
        .map(|d| d.name.as_str())
        .collect();
    (at.len() == 1).then(|| at[0].to_owned())
}
