//! Tree-sitter grammars for Whittle, the same on native targets and wasm32.
//!
//! Each [`Lang`] gives its tree-sitter [`Language`] and its node-type metadata
//! ([`NodeTypes`]): which kinds are supertypes of which, and for every kind its fields and
//! unnamed children with `multiple`/`required` flags and allowed types. Reducers use that
//! metadata to know what may be deleted (optional or repeated children) and what may
//! replace what (a descendant whose kind the parent slot accepts).

mod detect;
pub mod kinds;
mod lang;
pub mod names;
mod node_types;

pub use detect::{detect, detect_from_content, detect_from_name};
pub use kinds::Kinds;
pub use node_types::{ChildSlot, KindInfo, NodeTypes, TypeRef};
pub use tree_sitter::Language;

use std::collections::HashSet;
use std::sync::OnceLock;

/// A language Whittle can parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    C,
    Cpp,
    Rust,
    JavaScript,
    Java,
}

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::C, Lang::Cpp, Lang::Rust, Lang::JavaScript, Lang::Java];

    /// The short name used on command lines, in URLs and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Rust => "rust",
            Lang::JavaScript => "javascript",
            Lang::Java => "java",
        }
    }

    /// Parses a name as given by a user: `c`, `cpp`/`c++`, `rust`/`rs`, `javascript`/`js`, `java`.
    pub fn from_name(name: &str) -> Option<Lang> {
        match name.to_ascii_lowercase().as_str() {
            "c" => Some(Lang::C),
            "cpp" | "c++" | "cxx" => Some(Lang::Cpp),
            "rust" | "rs" => Some(Lang::Rust),
            "javascript" | "js" => Some(Lang::JavaScript),
            "java" => Some(Lang::Java),
            _ => None,
        }
    }

    /// Whether this build has the language's grammar: every build but the page's first
    /// download, which leaves C++ out (the `cpp` feature).
    pub fn available(self) -> bool {
        self != Lang::Cpp || cfg!(feature = "cpp")
    }

    /// The grammar. Only for an [`available`](Lang::available) language: callers check first.
    pub fn language(self) -> Language {
        match self {
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            #[cfg(feature = "cpp")]
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            #[cfg(not(feature = "cpp"))]
            Lang::Cpp => panic!("this build has no C++ grammar (the `cpp` feature)"),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }

    /// The grammar's `node-types.json`, as shipped by its crate.
    pub fn node_types_json(self) -> &'static str {
        match self {
            Lang::C => tree_sitter_c::NODE_TYPES,
            #[cfg(feature = "cpp")]
            Lang::Cpp => tree_sitter_cpp::NODE_TYPES,
            #[cfg(not(feature = "cpp"))]
            Lang::Cpp => panic!("this build has no C++ grammar (the `cpp` feature)"),
            Lang::Rust => tree_sitter_rust::NODE_TYPES,
            Lang::JavaScript => tree_sitter_javascript::NODE_TYPES,
            Lang::Java => tree_sitter_java::NODE_TYPES,
        }
    }

    /// The node-type metadata, parsed once per language and kept for the process.
    pub fn node_types(self) -> &'static NodeTypes {
        static CACHE: [OnceLock<NodeTypes>; 5] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        CACHE[self as usize].get_or_init(|| {
            NodeTypes::from_json(self.node_types_json())
                .expect("a grammar crate shipped a node-types.json that does not parse")
        })
    }

    /// The language's table: what the passes, the witness rules, the layout and detection
    /// know of it (see [`kinds`]; one file a language under `lang/`).
    pub fn kinds(self) -> &'static Kinds {
        lang::table(self)
    }

    /// Whether `word` is one of the grammar's keywords (its unnamed tokens that are words)
    /// or a name the language reserves ([`Names::reserved`](kinds::Names), `entry`).
    pub fn is_reserved(self, word: &str) -> bool {
        static CACHE: [OnceLock<HashSet<&'static str>>; 5] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let words = CACHE[self as usize].get_or_init(|| {
            let language = self.language();
            let mut words: HashSet<&'static str> = (0..language.node_kind_count() as u16)
                .filter(|&id| !language.node_kind_is_named(id) && language.node_kind_is_visible(id))
                .filter_map(|id| language.node_kind_for_id(id))
                .filter(|kind| kind.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .collect();
            words.extend(self.kinds().names.reserved);
            words.extend(self.kinds().names.entry);
            words
        });
        words.contains(word)
    }

    /// Kinds of tokens that are comments in this language.
    pub fn is_comment_kind(self, kind: &str) -> bool {
        matches!(kind, "comment" | "line_comment" | "block_comment")
    }

    /// Kinds of nodes that the language's own lexer reads as one token, though the grammar
    /// builds them of two: Rust's lifetimes and loop labels (`'a`, `'_`).
    pub fn is_token_kind(self, kind: &str) -> bool {
        matches!((self, kind), (Lang::Rust, "lifetime" | "label"))
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_loads_and_parses_something() {
        let samples = [
            (Lang::C, "int main(void) { return 0; }"),
            (Lang::Cpp, "template <class T> T id(T x) { return x; }"),
            (Lang::Rust, "fn main() { let x = r#\"raw\"#; }"),
            (Lang::JavaScript, "const f = (a) => `t${a}`;"),
            (Lang::Java, "class A { int f() { return 1; } }"),
        ];
        for (lang, text) in samples {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.language()).unwrap();
            let tree = parser.parse(text, None).unwrap();
            assert!(
                !tree.root_node().has_error(),
                "{lang}: {}",
                tree.root_node().to_sexp()
            );
        }
    }

    #[test]
    fn keywords_and_reserved_words_are_reserved() {
        assert!(Lang::C.is_reserved("if") && Lang::C.is_reserved("do"));
        assert!(Lang::C.is_reserved("main") && Lang::C.is_reserved("int"));
        assert!(Lang::Rust.is_reserved("fn") && Lang::JavaScript.is_reserved("in"));
        assert!(!Lang::C.is_reserved("fn") && !Lang::C.is_reserved("a"));
    }

    #[test]
    fn names_round_trip() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_name(lang.name()), Some(lang));
        }
        assert_eq!(Lang::from_name("C++"), Some(Lang::Cpp));
        assert_eq!(Lang::from_name("cobol"), None);
    }
}
