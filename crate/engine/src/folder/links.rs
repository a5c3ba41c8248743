//! The lines by which one file of a folder names another: C's `#include "h"`, Rust's
//! `mod m;`, JavaScript's `import ... from './m.js'` and `require('./m')`. Read from the text line by line (a
//! link is one line in practice), resolved against the folder's paths.

use crate::grammars::kinds::Links;
use crate::Lang;

/// A line linking a file to another (or to something outside the folder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The line, with its line break: removed or replaced whole.
    pub line: String,
    /// Where the line starts in the file's text.
    pub start: usize,
    /// The file of the folder it names, if it names one.
    pub target: Option<String>,
    /// A Rust `mod`'s name and what comes before `mod` (`pub `): to inline it as a block.
    pub module: Option<(String, String)>,
    /// A JavaScript import that may take the module's text in its place: `import './m'` or
    /// `import { a, b } from './m'` (names as the module declares them).
    pub plain_import: bool,
}

/// The links of a file at `path` with `text`; `exists` says whether a path is in the folder.
pub fn links(lang: Lang, path: &str, text: &str, exists: &dyn Fn(&str) -> bool) -> Vec<Link> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let found = match lang.kinds().links {
            Some(Links::Include) => include(path, line, exists),
            Some(Links::Module) => module(path, line, exists),
            Some(Links::Import) => {
                import(path, line, exists).or_else(|| require(path, line, exists))
            }
            None => None,
        };
        if let Some(mut link) = found {
            link.start = start;
            out.push(link);
        }
        start += line.len();
    }
    out
}

fn link(line: &str, target: Option<String>) -> Link {
    Link {
        line: line.to_string(),
        start: 0,
        target,
        module: None,
        plain_import: false,
    }
}

/// `#include "spec"`: relative to the includer's folder, then to the folder's root.
fn include(path: &str, line: &str, exists: &dyn Fn(&str) -> bool) -> Option<Link> {
    let rest = line.trim().strip_prefix('#')?.trim_start();
    let spec = rest
        .strip_prefix("include")?
        .trim_start()
        .strip_prefix('"')?;
    let spec = &spec[..spec.find('"')?];
    let target = [join(dir_of(path), spec), normalize(spec)]
        .into_iter()
        .flatten()
        .find(|p| exists(p));
    Some(link(line, target))
}

/// `mod name;` (with a visibility before it): `name.rs` or `name/mod.rs` beside a crate root
/// or `mod.rs`, else in the folder named after the file.
fn module(path: &str, line: &str, exists: &dyn Fn(&str) -> bool) -> Option<Link> {
    let body = line.trim().strip_suffix(';')?.trim_end();
    let words: Vec<&str> = body.split_whitespace().collect();
    let [prefix @ .., "mod", name] = words.as_slice() else {
        return None;
    };
    if !prefix.iter().all(|w| w.starts_with("pub"))
        || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    let dir = match file {
        "lib.rs" | "main.rs" | "mod.rs" => dir_of(path).to_string(),
        _ => path.strip_suffix(".rs").unwrap_or(path).to_string(),
    };
    let target = [format!("{name}.rs"), format!("{name}/mod.rs")]
        .into_iter()
        .filter_map(|f| join(&dir, &f))
        .find(|p| exists(p));
    let mut found = link(line, target);
    let prefix = prefix.iter().map(|w| format!("{w} ")).collect();
    found.module = Some((name.to_string(), prefix));
    Some(found)
}

/// `import ... from 'spec'` or `import 'spec'` on one line; a relative spec is resolved
/// as a bundler would (`.js`, `.mjs`, `/index.js` added).
fn import(path: &str, line: &str, exists: &dyn Fn(&str) -> bool) -> Option<Link> {
    let t = line.trim().trim_end_matches(';').trim_end();
    let after = t.strip_prefix("import")?;
    if !after.starts_with([' ', '{', '\'', '"', '*']) || !t.ends_with(['\'', '"']) {
        return None;
    }
    let quote = t.chars().last()?;
    let inner = &t[..t.len() - 1];
    let spec = &inner[inner.rfind(quote)? + 1..];
    let mut found = link(line, relative_module(path, spec, exists));
    // What is imported: nothing (`import './m'`) or names in braces, none renamed.
    let what = after[..after.len() - (t.len() - inner.rfind(quote)?)].trim();
    let names = what
        .strip_prefix('{')
        .and_then(|w| w.trim_end().strip_suffix("from"))
        .and_then(|w| w.trim_end().strip_suffix('}'));
    found.plain_import = what.is_empty() || names.is_some_and(|n| !n.contains(" as "));
    Some(found)
}

/// `text` without the first `line` in it (lines that go together go one at a time, each
/// found again in what is left); whether it was there.
pub fn cut_line(text: &mut String, line: &str) -> bool {
    let Some(at) = text.find(line) else {
        return false;
    };
    text.replace_range(at..at + line.len(), "");
    true
}

/// The one-line `use` declarations of `text` whose path starts with module `name` (after
/// `crate::`, `self::` or `super::`), each with its line break.
pub fn uses_of_module(text: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let Some(path) = t.strip_suffix(';').and_then(|t| {
            let rest = t.strip_prefix("pub").map_or(t, |r| {
                // `pub`, `pub(crate)`: the visibility and the space after it.
                r.split_once(' ').map_or("", |(_, after)| after)
            });
            rest.trim_start().strip_prefix("use ")
        }) else {
            continue;
        };
        let mut path = path.trim();
        for prefix in ["crate::", "self::", "super::"] {
            path = path.strip_prefix(prefix).unwrap_or(path);
        }
        let rest = path.strip_prefix(name);
        if rest.is_some_and(|r| r.is_empty() || r.starts_with("::")) {
            out.push(line.to_string());
        }
    }
    out
}

/// A line calling CommonJS's `require('spec')`, resolved as `import`'s spec is. Such a line
/// goes (with its file, or as an unused link) but is never inlined.
fn require(path: &str, line: &str, exists: &dyn Fn(&str) -> bool) -> Option<Link> {
    let at = line.find("require(")? + "require(".len();
    let rest = line[at..].trim_start();
    let quote = rest.chars().next().filter(|&c| c == '\'' || c == '"')?;
    let spec = &rest[1..];
    let spec = &spec[..spec.find(quote)?];
    Some(link(line, relative_module(path, spec, exists)))
}

/// A relative spec (`./m`, `../lib/m.js`) resolved as a bundler would (`.js`, `.mjs`,
/// `/index.js` added); `None` for a package or a file not in the folder.
fn relative_module(path: &str, spec: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    if !(spec.starts_with("./") || spec.starts_with("../")) {
        return None;
    }
    ["", ".js", ".mjs", ".cjs", "/index.js"]
        .iter()
        .filter_map(|ext| join(dir_of(path), &format!("{spec}{ext}")))
        .find(|p| exists(p))
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `dir/rel` with `.` and `..` resolved; `None` if it leaves the folder.
fn join(dir: &str, rel: &str) -> Option<String> {
    normalize(&format!("{dir}/{rel}"))
}

fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The contents of `target` in place of `link`'s line: a header's text as is, a Rust
/// module's as a `mod name { ... }` block, a JavaScript module's with `export ` gone from
/// its declarations. `None` for what cannot be inlined: a JavaScript import other than a
/// plain one, or a module whose exports are not all declarations.
pub fn inlined(link: &Link, contents: &str) -> Option<String> {
    let mut body = contents.to_string();
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    if let Some((name, prefix)) = &link.module {
        return Some(format!("{prefix}mod {name} {{\n{body}}}\n"));
    }
    let import = link.line.trim_start().starts_with("import");
    if link.line.contains("require(") && !import {
        return None;
    }
    if !import {
        return Some(body);
    }
    if !link.plain_import {
        return None;
    }
    let mut out = String::new();
    for line in body.split_inclusive('\n') {
        let t = line.trim_start();
        match t.strip_prefix("export ") {
            // `export default`, `export { a }`, `export * from`: not a declaration.
            Some(rest) if rest.starts_with(['{', '*']) || rest.starts_with("default") => {
                return None
            }
            Some(rest) => {
                out.push_str(&line[..line.len() - t.len()]);
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_folder(paths: &'static [&'static str]) -> impl Fn(&str) -> bool {
        move |p| paths.contains(&p)
    }

    #[test]
    fn includes_resolve_beside_the_includer_then_from_the_root() {
        let exists = in_folder(&["src/a.h", "inc/b.h"]);
        let text =
            "#include <stdio.h>\n#include \"a.h\"\n  # include \"inc/b.h\"\n#include \"c.h\"\n";
        let got = links(Lang::C, "src/main.c", text, &exists);
        let targets: Vec<_> = got.iter().map(|l| l.target.as_deref()).collect();
        assert_eq!(targets, [Some("src/a.h"), Some("inc/b.h"), None]);
        assert_eq!(got[1].start, "#include <stdio.h>\n#include \"a.h\"\n".len());
    }

    #[test]
    fn rust_modules_resolve_as_rustc_does() {
        let exists = in_folder(&["src/a.rs", "src/b/mod.rs", "src/a/c.rs"]);
        let lib = links(
            Lang::Rust,
            "src/lib.rs",
            "mod a;\npub(crate) mod b;\nmod x { }\n",
            &exists,
        );
        assert_eq!(lib.len(), 2);
        assert_eq!(lib[0].target.as_deref(), Some("src/a.rs"));
        assert_eq!(lib[1].target.as_deref(), Some("src/b/mod.rs"));
        assert_eq!(
            inlined(&lib[1], "fn f() {}").unwrap(),
            "pub(crate) mod b {\nfn f() {}\n}\n"
        );
        let a = links(Lang::Rust, "src/a.rs", "pub mod c;\n", &exists);
        assert_eq!(a[0].target.as_deref(), Some("src/a/c.rs"));
    }

    /// Each link's target, in order.
    fn targets(links: &[Link]) -> Vec<Option<&str>> {
        links.iter().map(|l| l.target.as_deref()).collect()
    }

    #[test]
    fn javascript_imports_resolve_relative_specs() {
        let exists = in_folder(&["lib/m.js", "index.js"]);
        let text = "import { f } from './lib/m';\nimport fs from 'fs';\nimport '../x.js';\nconst importer = 1;\n";
        let got = links(Lang::JavaScript, "index.js", text, &exists);
        assert_eq!(targets(&got), [Some("lib/m.js"), None, None]);
    }

    #[test]
    fn a_rust_modules_use_lines_are_found_by_its_name() {
        let text = "use m::A;\npub use crate::m::{B, C};\npub(crate) use self::m;\nuse mm::D;\nuse other::m::E;\n";
        assert_eq!(
            uses_of_module(text, "m"),
            [
                "use m::A;\n",
                "pub use crate::m::{B, C};\n",
                "pub(crate) use self::m;\n"
            ]
        );
    }

    #[test]
    fn commonjs_requires_are_links_never_inlined() {
        let exists = in_folder(&["lib/m.js", "scan.cjs"]);
        let text = "const m = require('./lib/m');\nconst { s } = require(\"./scan\");\nconst fs = require('fs');\nm.required = 1;\n";
        let got = links(Lang::JavaScript, "index.js", text, &exists);
        assert_eq!(targets(&got), [Some("lib/m.js"), Some("scan.cjs"), None]);
        assert_eq!(inlined(&got[0], "module.exports = 1;\n"), None);
    }

    #[test]
    fn a_plain_javascript_import_takes_the_module_without_its_exports() {
        let exists = in_folder(&["m.js"]);
        let text = "import { f, g } from './m.js';\nimport { f as h } from './m.js';\nimport d from './m.js';\nimport './m.js';\n";
        let got = links(Lang::JavaScript, "index.js", text, &exists);
        let plain: Vec<bool> = got.iter().map(|l| l.plain_import).collect();
        assert_eq!(plain, [true, false, false, true]);
        let module = "export function f() {}\n  export const g = 1;\nconst x = 2;\n";
        assert_eq!(
            inlined(&got[0], module).unwrap(),
            "function f() {}\n  const g = 1;\nconst x = 2;\n"
        );
        assert_eq!(inlined(&got[1], module), None);
        assert_eq!(inlined(&got[0], "export default 1;\n"), None);
        assert_eq!(inlined(&got[3], "export { f };\n"), None);
    }
}
