//! What a compile job needs to know about a source before compiling it, read from its
//! tree-sitter parse (not regexes, so comments and strings cannot fool it): the Java class to
//! name the file after and to run, whether a Rust source is a program, whether a JavaScript
//! source is an ES module.

use tree_sitter::{Node, Parser, Tree};

use whittle::Lang;

fn parse(lang: Lang, source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.language()).ok()?;
    parser.parse(source, None)
}

fn top_level(tree: &Tree) -> Vec<Node<'_>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).collect()
}

fn name<'s>(node: Node<'_>, source: &'s str) -> Option<&'s str> {
    node.child_by_field_name("name")?
        .utf8_text(source.as_bytes())
        .ok()
}

fn has_modifier(node: Node<'_>, modifier: &str) -> bool {
    let mut cursor = node.walk();
    let found = node
        .children(&mut cursor)
        .filter(|c| c.kind() == "modifiers")
        .any(|m| {
            let mut c2 = m.walk();
            let hit = m.children(&mut c2).any(|t| t.kind() == modifier);
            hit
        });
    found
}

/// Java: where the source must live and which class to run.
#[derive(Debug, PartialEq, Eq)]
pub struct JavaNames {
    /// `a.b` from `package a.b;`.
    pub package: Option<String>,
    /// The file name's stem: the public top-level type, else `Main`.
    pub file_stem: String,
    /// The class to run: the first top-level class with `static void main`, else the file stem.
    pub main_class: String,
}

impl JavaNames {
    /// `a.b.Main` as `java` wants it.
    pub fn qualified_main(&self) -> String {
        match &self.package {
            Some(p) => format!("{p}.{}", self.main_class),
            None => self.main_class.clone(),
        }
    }
}

pub fn java_names(source: &str) -> JavaNames {
    let mut names = JavaNames {
        package: None,
        file_stem: "Main".into(),
        main_class: String::new(),
    };
    let Some(tree) = parse(Lang::Java, source) else {
        names.main_class = names.file_stem.clone();
        return names;
    };
    let mut public = None;
    let mut with_main = None;
    for node in top_level(&tree) {
        match node.kind() {
            "package_declaration" => {
                let text = node.utf8_text(source.as_bytes()).unwrap_or("");
                let p = text
                    .trim()
                    .trim_start_matches("package")
                    .trim_end_matches(';')
                    .trim();
                if !p.is_empty() {
                    names.package = Some(p.split_whitespace().collect());
                }
            }
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration" => {
                let Some(n) = name(node, source) else {
                    continue;
                };
                if public.is_none() && has_modifier(node, "public") {
                    public = Some(n.to_string());
                }
                if with_main.is_none() && declares_main(node, source) {
                    with_main = Some(n.to_string());
                }
            }
            _ => {}
        }
    }
    names.file_stem = public.unwrap_or_else(|| "Main".into());
    names.main_class = with_main.unwrap_or_else(|| names.file_stem.clone());
    names
}

fn declares_main(class: Node<'_>, source: &str) -> bool {
    let Some(body) = class.child_by_field_name("body") else {
        return false;
    };
    let mut cursor = body.walk();
    let found = body.named_children(&mut cursor).any(|m| {
        m.kind() == "method_declaration"
            && name(m, source) == Some("main")
            && has_modifier(m, "static")
    });
    found
}

/// Rust: whether the crate has a top-level `fn main` (then it is compiled as a program).
pub fn rust_has_main(source: &str) -> bool {
    let Some(tree) = parse(Lang::Rust, source) else {
        return source.contains("fn main");
    };
    let found = top_level(&tree)
        .into_iter()
        .any(|n| n.kind() == "function_item" && name(n, source) == Some("main"));
    found
}

/// JavaScript: whether the source uses `import`/`export` declarations (an ES module).
pub fn js_is_module(source: &str) -> bool {
    let Some(tree) = parse(Lang::JavaScript, source) else {
        return false;
    };
    let found = top_level(&tree)
        .into_iter()
        .any(|n| matches!(n.kind(), "import_statement" | "export_statement"));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_public_class_and_main() {
        let n = java_names("package a.b;\nclass Helper { public static class Inner {} }\npublic class Demo { public static void main(String[] a) {} }\n");
        assert_eq!(n.file_stem, "Demo");
        assert_eq!(n.main_class, "Demo");
        assert_eq!(n.qualified_main(), "a.b.Demo");
        let n = java_names(
            "// public class Nope\nclass Foo { static public void main(String[] a) {} }",
        );
        assert_eq!(n.file_stem, "Main");
        assert_eq!(n.main_class, "Foo");
        assert_eq!(java_names("int x").file_stem, "Main");
    }

    #[test]
    fn rust_and_js() {
        assert!(rust_has_main("// x\nfn main() {}"));
        assert!(!rust_has_main(
            "pub fn f() {} // fn main()\nmod m { fn main() {} }"
        ));
        assert!(js_is_module("import fs from 'fs';\nconsole.log(1)"));
        assert!(!js_is_module("const s = 'import x from y'; console.log(s)"));
    }
}
