//! The rooms of the workspace: no two modules of one crate import each
//! other, directly or through others.
//!
//! Every `.rs` file under each crate's `src/` is a module (`lib.rs` the crate
//! root, `foo/mod.rs` and `foo.rs` the module `foo`, `foo/bar.rs` the module
//! `foo::bar`); a binary's `main.rs` is a crate of its own and is left out.
//! An edge from a module to another is a path that names it: `crate::x`
//! (in a `use` or anywhere in the code), `super::x` and `self::x`, and a path
//! that starts with the name of a child module. A path is resolved to the
//! deepest module it names; a name the crate root re-exports (`pub use
//! x::Name`) is resolved to the module it comes from. Edges to the crate root
//! itself, the crate's facade, are not counted. Comments, strings and every
//! item under `#[cfg(test)]` (a `mod tests`, a fixture function) are not
//! code of the module's and make no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates checked: a name and the source directory, from this crate's
/// manifest directory.
const CRATES: [(&str, &str); 5] = [
    ("algorithms", "../algorithms/src"),
    ("workloads", "../workloads/src"),
    ("harness", "src"),
    ("schema", "schema/src"),
    ("report", "../report/src"),
];

/// Cycles allowed: none. An entry here would name a crate and the set of
/// modules that reach each other; the test also fails on an entry that is gone.
const ALLOWED_CYCLES: &[(&str, &[&str])] = &[];

/// A crate's modules: module path (`""` for the root) -> the modules its
/// code names.
type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_module_imports_itself_through_others() {
    let mut failures = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for (krate, dir) in CRATES {
        let graph = crate_graph(&source_dir(dir));
        for component in cycles(&graph) {
            let allowed = ALLOWED_CYCLES.iter().position(|(name, modules)| {
                *name == krate
                    && modules.iter().copied().collect::<BTreeSet<_>>()
                        == component.iter().map(String::as_str).collect()
            });
            match allowed {
                Some(index) => {
                    allowed_seen.insert(index);
                }
                None => failures.push(format!(
                    "{krate}: {} (the modules that reach each other: {})",
                    describe_cycle(&graph, &component),
                    component.join(", ")
                )),
            }
        }
    }
    for (index, (krate, modules)) in ALLOWED_CYCLES.iter().enumerate() {
        if !allowed_seen.contains(&index) {
            failures.push(format!(
                "{krate}: the allowed cycle {modules:?} is gone: remove it from ALLOWED_CYCLES"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "import circles between modules:\n{}",
        failures.join("\n")
    );
}

/// The parser sees through what it must: comments, strings, nested modules,
/// grouped `use` trees, `super::`, re-exports of the root, and test items.
#[test]
fn edges_are_found_as_the_rules_say() {
    let files = [
        (
            "",
            "//! See `crate::c`.\npub mod a;\npub mod b;\nmod c;\npub use b::Thing;\n",
        ),
        (
            "a",
            "use crate::{b::{self, x}, Thing};\nfn f() { let s = \"crate::c\"; }\n\
             #[cfg(test)]\nmod tests { use crate::c::y; fn g() { let _ = '{'; } }\n",
        ),
        ("b", "pub struct Thing;\npub mod inner;\n"),
        (
            "b::inner",
            "use super::Thing;\nfn f() -> crate::c::Z { crate::c::Z::new() }\n",
        ),
        ("c", "fn f() {}\n"),
    ];
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| (*m).to_owned()).collect();
    let exports = root_exports(files[0].1, &modules);
    let edges = |module: &str, text: &str| module_edges(module, text, &modules, &exports);
    assert_eq!(edges("a", files[1].1), set(&["b"]));
    assert_eq!(edges("b::inner", files[3].1), set(&["b", "c"]));
    assert_eq!(edges("", files[0].1), set(&["b"]));
    let graph = Graph::from([
        ("a".to_owned(), set(&["b"])),
        ("b".to_owned(), set(&["c"])),
        ("c".to_owned(), set(&["a"])),
        ("d".to_owned(), set(&["a"])),
    ]);
    let found = cycles(&graph);
    assert_eq!(found, vec![vec!["a".to_owned(), "b".into(), "c".into()]]);
    assert_eq!(describe_cycle(&graph, &found[0]), "a -> b -> c -> a");
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// `dir` from this crate's manifest directory.
fn source_dir(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
}

/// Every `.rs` file under `dir`, as (module path, text), binaries left out.
fn module_files(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(dir).unwrap().with_extension("");
                let mut parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts == ["main"] || parts.first().is_some_and(|p| p == "bin") {
                    continue;
                }
                if parts == ["lib"] || parts.last().is_some_and(|p| p == "mod") {
                    parts.pop();
                }
                files.push((parts.join("::"), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The graph of the crate whose sources are in `dir`.
fn crate_graph(dir: &Path) -> Graph {
    let files = module_files(dir);
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let root = files
        .iter()
        .find(|(m, _)| m.is_empty())
        .map_or("", |(_, text)| text.as_str());
    let exports = root_exports(root, &modules);
    files
        .iter()
        .map(|(module, text)| {
            (
                module.clone(),
                module_edges(module, text, &modules, &exports),
            )
        })
        .collect()
}

/// The names the crate root re-exports from its modules (`pub use x::Name`):
/// name -> module.
fn root_exports(root: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let code = code_of(root);
    let mut exports = BTreeMap::new();
    for path in use_paths(&code) {
        let target = resolve("", &path, modules);
        if let (Some(name), Some(target)) = (path.last(), target)
            && !target.is_empty()
        {
            exports.insert(name.clone(), target);
        }
    }
    exports
}

/// The modules other than itself and the root that `module`'s code names.
fn module_edges(
    module: &str,
    text: &str,
    modules: &BTreeSet<String>,
    exports: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let code = code_of(text);
    let mut paths = use_paths(&code);
    paths.extend(inline_paths(&code));
    let mut edges = BTreeSet::new();
    for path in paths {
        let target = if path.len() == 2 && path[0] == "crate" {
            exports.get(&path[1]).cloned()
        } else {
            None
        }
        .or_else(|| resolve(module, &path, modules));
        if let Some(target) = target
            && !target.is_empty()
            && target != module
        {
            edges.insert(target);
        }
    }
    edges
}

/// The module a path names from `module`: its deepest prefix that is a
/// module (`None` for a path into another crate or a local item).
fn resolve(module: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        Some(first) => {
            let mut child = base.clone();
            child.push(first);
            if !modules.contains(&child.join("::")) {
                return None;
            }
        }
        None => return None,
    }
    let mut target = base.join("::");
    let mut walk = base;
    for segment in rest {
        walk.push(segment);
        let name = walk.join("::");
        if modules.contains(&name) {
            target = name;
        } else {
            break;
        }
    }
    Some(target)
}

/// Every path of every `use` declaration in `code`, its tree expanded
/// (`a::{b, c::d}` is `a::b` and `a::c::d`; `self` in a group is the prefix).
fn use_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let after = &rest[at + 3..];
        let Some(end) = after.find(';') else { break };
        expand(after[..end].trim(), &mut Vec::new(), &mut paths);
        rest = &after[end..];
    }
    paths
}

/// Expands one use tree under `prefix` into `out`.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim().trim_start_matches("::");
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = segments(&tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let depth = prefix.len();
        prefix.extend(head);
        for part in split_top(inner) {
            if part.trim() == "self" {
                out.push(prefix.clone());
            } else {
                expand(part, prefix, out);
            }
        }
        prefix.truncate(depth);
    } else {
        let plain = tree.split(" as ").next().unwrap_or(tree);
        let mut path = prefix.clone();
        path.extend(segments(plain));
        if path.last().is_some_and(|s| s == "*" || s == "self") {
            path.pop();
        }
        out.push(path);
    }
}

/// `a::b::` as its segments.
fn segments(text: &str) -> Vec<String> {
    text.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Splits a use group's inside at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The paths outside `use` declarations that start with `crate`, `super` or
/// `self`, or with any other name (resolved later, and kept only when it is
/// a child module): `a::b::c` in `a::b::c(x)` or `x: a::B`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    let mut i = 0;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1])) {
            let preceded_by_path = i >= 2 && &code[i - 2..i] == "::";
            let start = i;
            let mut end = i;
            loop {
                while end < bytes.len() && is_ident(bytes[end]) {
                    end += 1;
                }
                if code[end..].starts_with("::")
                    && end + 2 < bytes.len()
                    && is_ident(bytes[end + 2])
                {
                    end += 2;
                } else {
                    break;
                }
            }
            let text = &code[start..end];
            if !preceded_by_path && text.contains("::") {
                paths.push(segments(text));
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    paths
}

/// Where the word `word` starts in `text`, as a whole word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let at = from + at;
        let before = at == 0 || !is_ident(bytes[at - 1]);
        let after = bytes.get(at + word.len()).is_none_or(|&b| !is_ident(b));
        if before && after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `text` with comments and the insides of string and character literals
/// blanked, and every item under `#[cfg(test)]` removed.
fn code_of(text: &str) -> String {
    let blank = blank_literals(text);
    remove_test_items(&blank)
}

/// Comments, strings and character literals replaced by spaces (newlines
/// kept), so that braces and paths in them are not seen.
fn blank_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
        {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let closing: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let closing: Vec<char> = closing.chars().collect();
            out.push('"');
            j += 1;
            while j < chars.len() && chars[j..].iter().take(closing.len()).ne(closing.iter()) {
                out.push(blank(chars[j]));
                j += 1;
            }
            out.push('"');
            i = j + closing.len();
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\''), not a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                out.push_str("' '");
                i = j + 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                out.push_str("' '");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without the items under `#[cfg(test)]`: from the attribute to
/// the end of the item's braced body (an item without a body, `mod x;`, is
/// kept: its file is read as a module of its own).
fn remove_test_items(code: &str) -> String {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(ATTRIBUTE) {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let body = item.find('{');
        let semicolon = item.find(';');
        match (body, semicolon) {
            (Some(open), semicolon) if semicolon.is_none_or(|s| open < s) => {
                let mut depth = 0;
                let mut end = item.len();
                for (i, c) in item[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &item[end..];
            }
            _ => {
                out.push_str(&item[..ATTRIBUTE.len()]);
                rest = &item[ATTRIBUTE.len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The strongly connected sets of more than one module, each sorted, in
/// order (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        let graph = state.graph;
        for target in graph.get(node).into_iter().flatten() {
            let target = target.as_str();
            if !graph.contains_key(target) {
                continue;
            }
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found.sort();
    state.found
}

/// One cycle through a strongly connected set, as `a -> b -> a`, from its
/// first module by a shortest way back.
fn describe_cycle(graph: &Graph, component: &[String]) -> String {
    let inside: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let start = component[0].as_str();
    // Breadth-first from `start` within the set, back to `start`.
    let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut closing = None;
    while let Some(node) = queue.pop_front() {
        for target in graph.get(node).into_iter().flatten() {
            let target = target.as_str();
            if !inside.contains(target) {
                continue;
            }
            if target == start {
                closing = Some(node);
                break;
            }
            if !previous.contains_key(target) {
                previous.insert(target, node);
                queue.push_back(target);
            }
        }
        if closing.is_some() {
            break;
        }
    }
    let mut way = vec![start];
    let mut node = closing.unwrap_or(start);
    let mut back = Vec::new();
    while node != start {
        back.push(node);
        node = previous[node];
    }
    way.extend(back.into_iter().rev());
    way.push(start);
    way.join(" -> ")
}
