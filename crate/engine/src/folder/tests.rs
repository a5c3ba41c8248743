//! Folder sessions: each crossing pass in each language it serves, every candidate valid.

use super::*;
use crate::reduce::tests::drive_engine;
use crate::tree::Parser;

type Files = Vec<(String, String)>;

fn files(list: &[(&str, &str)]) -> Files {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

fn text<'a>(files: &'a Files, path: &str) -> Option<&'a str> {
    files
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, t)| t.as_str())
}

/// Reduces `list` with `oracle` over the candidate tree, asserting that every file a
/// grammar covers parses in every query; the best tree.
fn reduce(list: &[(&str, &str)], oracle: impl Fn(&Files) -> bool) -> Files {
    let settings = Settings {
        format: false,
        ..Settings::default()
    };
    let mut session = FolderSession::folder(files(list), settings).unwrap();
    drive_engine(&mut session, 2, true, |q| {
        let tree = bundle::decode(&q.text).expect("a query is a bundle");
        for (path, text) in &tree {
            if let Some(lang) = crate::grammars::detect_from_name(path) {
                let parsed = Parser::new(lang).parse_with_raw(text).0;
                assert!(parsed.error.is_none(), "{path} does not parse:\n{text}");
            }
        }
        oracle(&tree)
    });
    session
        .best_files()
        .into_iter()
        .filter_map(|(p, t)| Some((p.to_string(), t?.to_string())))
        .collect()
}

/// `path` as a compiler sees it: each line naming another file of the tree by `#include
/// "name"` or `mod name;` (the file `name.rs` beside it) replaced by that file's contents.
fn expanded(files: &Files, path: &str) -> String {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let Some(text) = text(files, path) else {
        return String::new();
    };
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim();
        let named = if let Some(rest) = t.strip_prefix("#include \"") {
            rest.strip_suffix('"').map(String::from)
        } else if let Some(rest) = t.strip_prefix("mod ") {
            rest.strip_suffix(';').map(|m| format!("{m}.rs"))
        } else {
            None
        };
        let linked = named.map(|n| {
            if dir.is_empty() {
                n
            } else {
                format!("{dir}/{n}")
            }
        });
        match linked {
            Some(f) => out.push_str(&expanded(files, &f)),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn paths(files: &Files) -> Vec<&str> {
    files.iter().map(|(p, _)| p.as_str()).collect()
}

#[test]
fn files_nothing_needs_are_deleted_whole_with_their_includes() {
    let best = reduce(
        &[
            (
                "main.c",
                "#include \"other.h\"\nint main(void) { return bug(); }\n",
            ),
            ("other.h", "int other(void);\n"),
            ("other.c", "int other(void) { return 1; }\n"),
            ("notes.txt", "nothing to see\n"),
        ],
        |t| text(t, "main.c").is_some_and(|m| m.contains("bug")),
    );
    assert_eq!(paths(&best), ["main.c"]);
    assert!(!best[0].1.contains("#include"), "{}", best[0].1);
}

#[test]
fn a_header_included_once_moves_into_its_includer() {
    let best = reduce(
        &[
            (
                "main.c",
                "#include \"bug.h\"\nint main(void) { return 0; }\n",
            ),
            ("bug.h", "int bug;\nint spare;\n"),
        ],
        |t| expanded(t, "main.c").contains("int bug"),
    );
    assert_eq!(paths(&best), ["main.c"]);
    assert!(best[0].1.contains("int bug") && !best[0].1.contains("#include"));
}

#[test]
fn a_header_included_twice_is_not_inlined() {
    let best = reduce(
        &[
            ("a.c", "#include \"b.h\"\nint a = B;\n"),
            ("main.c", "#include \"b.h\"\nint m = B;\n"),
            ("b.h", "#define B 1\n"),
        ],
        // As a compiler would see it: both files need B from b.h.
        |t| {
            let defines = text(t, "b.h").is_some_and(|h| h.contains("#define B"));
            ["a.c", "main.c"].iter().all(|f| {
                text(t, f).is_some_and(|c| c.contains("B;") && c.contains("#include \"b.h\""))
            }) && defines
        },
    );
    assert_eq!(paths(&best), ["a.c", "main.c", "b.h"]);
}

#[test]
fn an_unused_include_is_removed_c_and_cpp() {
    for (main, header) in [("main.c", "keep.h"), ("main.cpp", "keep.hpp")] {
        let line = format!("#include \"{header}\"\n");
        let best = reduce(
            &[
                (main, &format!("{line}int main() {{ return 0; }}\n")),
                (header, "int keep;\n"),
            ],
            |t| text(t, header).is_some_and(|h| h.contains("keep")) && text(t, main).is_some(),
        );
        assert_eq!(paths(&best), [main, header]);
        assert!(!text(&best, main).unwrap().contains("#include"), "{best:?}");
    }
}

#[test]
fn a_rust_module_file_becomes_an_inline_module() {
    let best = reduce(
        &[
            ("src/lib.rs", "mod m;\npub fn f() { m::bug(); }\n"),
            ("src/m.rs", "pub fn bug() {}\npub fn spare() {}\n"),
        ],
        |t| expanded(t, "src/lib.rs").contains("fn bug"),
    );
    assert_eq!(paths(&best), ["src/lib.rs"]);
    assert!(best[0].1.contains("fn bug"), "{}", best[0].1);
}

#[test]
fn an_unused_rust_module_goes_with_its_declaration() {
    let best = reduce(
        &[
            ("src/main.rs", "mod unused;\nfn main() { bug(); }\n"),
            ("src/unused.rs", "pub fn x() {}\n"),
        ],
        |t| text(t, "src/main.rs").is_some_and(|l| l.contains("bug")),
    );
    assert_eq!(paths(&best), ["src/main.rs"]);
    assert!(!best[0].1.contains("mod"), "{}", best[0].1);
}

#[test]
fn an_unused_javascript_import_is_removed() {
    let best = reduce(
        &[
            (
                "index.js",
                "import { f } from './lib.js';\nimport fs from 'fs';\nbug();\n",
            ),
            ("lib.js", "export function f() {}\n"),
        ],
        |t| text(t, "lib.js").is_some() && text(t, "index.js").is_some_and(|i| i.contains("bug")),
    );
    assert_eq!(paths(&best), ["index.js", "lib.js"]);
    assert!(
        !text(&best, "index.js").unwrap().contains("import"),
        "{best:?}"
    );
}

#[test]
fn a_rust_module_goes_with_its_use_lines() {
    // Here the `use` needs the module and the module its `use` (no pass takes one alone).
    let best = reduce(
        &[
            (
                "src/main.rs",
                "mod helpers;\nuse helpers::x;\nfn main() { bug(); }\n",
            ),
            ("src/helpers.rs", "pub fn x() {}\n"),
        ],
        |t| {
            let main = text(t, "src/main.rs").unwrap_or("");
            main.contains("bug") && main.contains("mod helpers") == main.contains("use helpers")
        },
    );
    assert_eq!(paths(&best), ["src/main.rs"]);
    assert!(!best[0].1.contains("helpers"), "{}", best[0].1);
}

#[test]
fn a_commonjs_module_goes_with_its_require_line() {
    // Here the `require` needs the file and the file its `require` (no pass takes one alone).
    let best = reduce(
        &[
            ("index.js", "const spare = require('./spare');\nbug();\n"),
            ("spare.js", "module.exports = 1;\n"),
        ],
        |t| {
            let index = text(t, "index.js").unwrap_or("");
            let spare = text(t, "spare.js");
            index.contains("bug()")
                && index.contains("require('./spare')") == spare.is_some()
                && spare.is_none_or(|s| s.contains("module.exports = 1"))
        },
    );
    assert_eq!(paths(&best), ["index.js"], "{best:?}");
    assert!(!best[0].1.contains("require"), "{}", best[0].1);
}

#[test]
fn a_javascript_module_imported_once_by_name_is_inlined() {
    let best = reduce(
        &[
            (
                "index.js",
                "import { f } from './lib.js';\nconsole.log(f());\n",
            ),
            (
                "lib.js",
                "export function f() { return 42; }\nexport const unused = 1;\n",
            ),
        ],
        |t| {
            // As node runs it: the module's declarations where they are imported.
            let index = text(t, "index.js").unwrap_or("");
            let lib = text(t, "lib.js").unwrap_or("");
            let seen = match index.contains("from './lib.js'") {
                true => index.replace("import { f } from './lib.js';", &lib.replace("export ", "")),
                false => index.to_string(),
            };
            seen.contains("function f() { return 42; }") && seen.contains("console.log(f())")
        },
    );
    assert_eq!(paths(&best), ["index.js"], "{best:?}");
    assert!(!best[0].1.contains("export"), "{}", best[0].1);
}

#[test]
fn the_largest_file_is_reduced_first() {
    let list = [
        ("small.c", "int s;\n"),
        (
            "big.c",
            "int a; int b; int c; int d; int e; int f; int bug;\n",
        ),
    ];
    let oracle = |t: &Files| {
        text(t, "big.c").is_some_and(|b| b.contains("bug")) && text(t, "small.c").is_some()
    };
    let settings = Settings {
        format: false,
        ..Settings::default()
    };
    let mut session = FolderSession::folder(files(&list), settings).unwrap();
    let first_file_step = std::cell::RefCell::new(None);
    drive_engine(&mut session, 1, false, |q| {
        let tree = bundle::decode(&q.text).unwrap();
        let changed: Vec<&str> = tree
            .iter()
            .filter(|(p, t)| list.iter().any(|(lp, lt)| lp == p && lt != t))
            .map(|(p, _)| p.as_str())
            .collect();
        let mut first = first_file_step.borrow_mut();
        if first.is_none() && tree.len() == 2 && changed.len() == 1 {
            *first = Some(changed[0].to_string());
        }
        oracle(&tree)
    });
    assert_eq!(first_file_step.into_inner().as_deref(), Some("big.c"));
    let best: Vec<_> = session
        .best_files()
        .into_iter()
        .map(|(p, t)| (p.to_string(), t.map(String::from)))
        .collect();
    let big = best[1].1.as_deref().unwrap();
    assert!(big.contains("bug") && !big.contains("int a"), "{big}");
    assert_eq!(best[0].1.as_deref(), Some(""));
}

#[test]
fn an_unused_rust_module_declaration_is_removed() {
    let best = reduce(
        &[
            ("src/lib.rs", "mod m;\npub fn bug() {}\n"),
            ("src/m.rs", "pub fn keep() {}\n"),
        ],
        |t| {
            text(t, "src/m.rs").is_some_and(|m| m.contains("keep"))
                && text(t, "src/lib.rs").is_some_and(|l| l.contains("bug"))
        },
    );
    assert_eq!(paths(&best), ["src/lib.rs", "src/m.rs"]);
    assert!(!best[0].1.contains("mod"), "{}", best[0].1);
}

#[test]
fn a_makefile_loses_the_flags_and_lines_the_test_does_not_need() {
    let makefile = "CFLAGS = -O2 -g -Wall -Wextra\nLDLIBS = -lm\nall: main\nclean:\n\trm -f main\n";
    let best = reduce(
        &[
            ("main.c", "int main(void) { return 0; }\n"),
            ("Makefile", makefile),
        ],
        // As make would see it: the build still passes -Wall and builds main.
        |t| text(t, "Makefile").is_some_and(|m| m.contains("-Wall") && m.contains("all: main")),
    );
    assert_eq!(text(&best, "Makefile"), Some("CFLAGS = -Wall\nall: main\n"));
}

/// The names before each `(` in `text` that `tail` follows (`(void);` a prototype,
/// `(void) {` a definition, `();` a call), sorted.
fn names_before(text: &str, tail: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .match_indices(tail)
        .map(|(at, _)| {
            let head = &text[..at];
            let start = head.rfind(|c: char| !c.is_alphanumeric() && c != '_');
            head[start.map_or(0, |s| s + 1)..].to_string()
        })
        .filter(|n| !n.is_empty() && n != "main")
        .collect();
    out.sort();
    out
}

/// Neither function of the `delete-symbol` tests is left in any file.
fn no_function_left(best: &Files) {
    for (path, text) in best {
        assert!(
            !text.contains("helper") && !text.contains("other"),
            "{path}: {text}"
        );
    }
}

/// A header declares two functions, a source defines them, main calls them: each may go
/// only from all three files at once. In C (`ext` "c", "h") or C++ ("cpp", "hpp").
fn shared_by_three_files(ext: [&str; 2]) {
    let [source, header] = ext.map(|e| format!("util.{e}"));
    let main = format!("main.{}", ext[0]);
    let header_text = "int helper(void);\nint other(void);\n";
    let source_text = "int helper(void) { return 1; }\nint other(void) { return 2; }\n";
    let main_text = format!(
        "#include \"{header}\"\nint bug;\nint main(void) {{ helper(); other(); return bug; }}\n"
    );
    // As a linker with -Werror would have it: every file kept, each function declared,
    // defined and called, none of them alone in one file; and the bug stays.
    let consistent = |t: &Files| {
        let (Some(h), Some(c), Some(m)) = (text(t, &header), text(t, &source), text(t, &main))
        else {
            return false;
        };
        let declared = names_before(h, "(void);");
        declared == names_before(c, "(void) {")
            && declared == names_before(m, "();")
            && m.contains("bug")
    };
    let best = reduce(
        &[
            (&main, &main_text),
            (&source, source_text),
            (&header, header_text),
        ],
        consistent,
    );
    // No other pass can take a function out of one file alone.
    no_function_left(&best);
}

#[test]
fn a_name_three_c_files_share_goes_from_all_of_them_at_once() {
    shared_by_three_files(["c", "h"]);
}

#[test]
fn a_name_three_cpp_files_share_goes_from_all_of_them_at_once() {
    shared_by_three_files(["cpp", "hpp"]);
}

/// `caller` calls what `callee` defines (`name() {}`), both kept: every function defined is
/// called (`name();`), and no other, while the caller still holds each of `kept`.
fn called_across(caller: (&str, &str), callee: (&str, &str), kept: &[&str]) {
    let consistent = |t: &Files| {
        let (Some(c), Some(d)) = (text(t, caller.0), text(t, callee.0)) else {
            return false;
        };
        names_before(d, "() {}") == names_before(c, "();") && kept.iter().all(|k| c.contains(k))
    };
    let best = reduce(&[caller, callee], consistent);
    no_function_left(&best);
}

#[test]
fn a_rust_function_another_module_calls_goes_from_both_at_once() {
    let util = "pub fn helper() {}\npub fn other() {}\n";
    let lib = "mod util;\npub fn bug() { util::helper(); util::other(); }\n";
    called_across(
        ("src/lib.rs", lib),
        ("src/util.rs", util),
        &["mod util;", "fn bug"],
    );
}

#[test]
fn a_java_method_another_class_calls_goes_from_both_at_once() {
    let util = "class Util {\n  static void helper() {}\n  static void other() {}\n}\n";
    let main = "class Main {\n  static int bug;\n  public static void main(String[] a) { Util.helper(); Util.other(); }\n}\n";
    called_across(("Main.java", main), ("Util.java", util), &["bug"]);
}

#[test]
fn a_javascript_export_another_module_imports_goes_from_both_at_once() {
    let m = "export function helper() {}\nexport function other() {}\n";
    let main = "import { helper, other } from './m.js';\nhelper();\nother();\nconst bug = 1;\n";
    // Every function m.js exports is imported (in one list) and called, and no other.
    let consistent = |t: &Files| {
        let (Some(m), Some(main)) = (text(t, "m.js"), text(t, "main.js")) else {
            return false;
        };
        let exported = names_before(m, "() {}");
        let list = main.split_once('{').and_then(|(_, r)| r.split_once('}'));
        let mut imported: Vec<String> = list
            .map_or("", |(names, _)| names)
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        imported.sort();
        exported == names_before(main, "();") && exported == imported && main.contains("bug")
    };
    let best = reduce(&[("main.js", main), ("m.js", m)], consistent);
    no_function_left(&best);
}

#[test]
fn the_command_loses_the_flags_and_files_the_test_does_not_need() {
    let best = reduce(
        &[
            ("a.c", "int bug;\n"),
            ("b.c", "int spare;\n"),
            (command::COMMAND, "gcc -O2 -Wall -o out -c ./a.c ./b.c"),
        ],
        // As the shell would run it: every file named exists, -Wall is on, one names the bug.
        |t| {
            let cmd = text(t, command::COMMAND).unwrap_or_default();
            let named: Vec<&str> = cmd
                .split(' ')
                .filter_map(|w| w.strip_prefix("./"))
                .collect();
            named.iter().all(|f| text(t, f).is_some())
                && cmd.contains("-Wall")
                && named
                    .iter()
                    .any(|f| text(t, f).is_some_and(|x| x.contains("bug")))
        },
    );
    // What the compile writes and where stays: without -c, a check would link.
    assert_eq!(
        text(&best, command::COMMAND),
        Some("gcc -Wall -o out -c ./a.c")
    );
    assert_eq!(paths(&best), ["a.c", command::COMMAND]);
}

/// Two folders as a pair: every query's trees parse and differ.
mod pairs {
    use super::*;
    use crate::folder::pair::FolderPairSession;
    use crate::pair::PairSettings;

    /// Reduces the pair with an oracle per side over its tree, asserting that every query
    /// is a tree whose parsed files all parse and whose two sides differ; the best trees.
    fn reduce(
        seed: &[(&str, &str)],
        variant: &[(&str, &str)],
        seed_ok: impl Fn(&Files) -> bool,
        variant_ok: impl Fn(&Files) -> bool,
    ) -> [Files; 2] {
        let settings = PairSettings {
            format: false,
            ..PairSettings::default()
        };
        let mut session =
            FolderPairSession::folder_pair(files(seed), files(variant), settings).unwrap();
        drive_engine(&mut session, 2, true, |q| {
            let tree = bundle::decode(&q.text).expect("a query is a bundle");
            for (path, text) in &tree {
                if let Some(lang) = crate::grammars::detect_from_name(path) {
                    let parsed = Parser::new(lang).parse_with_raw(text).0;
                    assert!(parsed.error.is_none(), "{path} does not parse:\n{text}");
                }
            }
            match q.side {
                Side::Seed => seed_ok(&tree),
                Side::Variant => variant_ok(&tree),
            }
        });
        let [s, v] = session.best_trees();
        [s, v].map(|tree| {
            let kept = tree
                .into_iter()
                .filter_map(|(p, t)| Some((p.to_string(), t?.to_string())));
            kept.collect()
        })
    }

    const MAIN: &str = "#include \"util.h\"\n\
int a(int x) { return x + 1; }\n\
int b(int x) { return x * 2; }\n\
int c(void) { return T; }\n";

    /// The bug: `main.c` subtracts, with `T` defined in `util.h`; the seed compiles
    /// (`main.c` there) and does not subtract.
    fn bug(tree: &Files) -> bool {
        let main = text(tree, "main.c").unwrap_or("");
        main.contains('-') && text(tree, "util.h").is_some_and(|h| h.contains("define T"))
    }

    #[test]
    fn two_folders_end_differing_in_one_token_of_one_file() {
        let util = "#define T 3\nint unused(void);\nint more(int);\n";
        let seed = [
            ("main.c", MAIN),
            ("util.h", util),
            ("README", "the seed's notes\n"),
            ("old.txt", "only the seed has it\n"),
        ];
        let subtracts = MAIN.replace("x + 1", "x - 1");
        let variant = [
            ("main.c", subtracts.as_str()),
            ("util.h", util),
            ("README", "the variant's notes\n"),
            ("new.txt", "only the variant has it\n"),
        ];
        let seed_ok = |t: &Files| text(t, "main.c").is_some_and(|m| !m.contains('-'));
        let [s, v] = reduce(&seed, &variant, seed_ok, bug);
        assert!(bug(&v) && seed_ok(&s), "{s:?}\n{v:?}");
        // Only main.c differs, by the operator and what it needs.
        let differing: Vec<&str> = v
            .iter()
            .filter(|(p, t)| text(&s, p) != Some(t))
            .map(|(p, _)| p.as_str())
            .chain(
                s.iter()
                    .filter(|(p, _)| text(&v, p).is_none())
                    .map(|(p, _)| p.as_str()),
            )
            .collect();
        assert_eq!(differing, ["main.c"], "{s:?}\n{v:?}");
        for path in ["README", "old.txt", "new.txt"] {
            assert!(text(&v, path).is_none(), "{path} kept: {v:?}");
        }
        // The header lost what the bug does not need, on both sides alike.
        assert_eq!(text(&v, "util.h").map(str::trim), Some("#define T"));
        let (sm, vm) = (text(&s, "main.c").unwrap(), text(&v, "main.c").unwrap());
        assert!(vm.len() < MAIN.len() / 2, "{vm}");
        let diff = crate::pair::unified_diff(sm, vm, "seed", "variant");
        let changed: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++"))
            .collect();
        assert_eq!(changed.len(), 2, "{diff}");
    }

    #[test]
    fn a_file_only_the_variant_needs_is_kept_and_the_trees_never_match() {
        // The bug needs a file the seed lacks; nothing else.
        let seed = [("lib.js", "function f(a) { return a; }\nf(1);\n")];
        let variant = [
            ("lib.js", "function f(a) { return a; }\nf(1);\n"),
            ("extra.js", "throw new Error('boom');\n"),
        ];
        let needs_extra = |t: &Files| text(t, "extra.js").is_some_and(|e| e.contains("throw"));
        let [s, v] = reduce(&seed, &variant, |t| !needs_extra(t), needs_extra);
        assert!(needs_extra(&v) && !needs_extra(&s));
        assert_ne!(s, v);
        // What both shared went from both.
        assert!(
            text(&v, "lib.js").is_none() && text(&s, "lib.js").is_none(),
            "{s:?}\n{v:?}"
        );
    }

    /// A header each side includes once is inlined on both sides; an unused include goes.
    #[test]
    fn a_header_included_once_is_inlined_on_both_sides() {
        let header = "#define T 3\nint more(int);\n";
        let main = "#include \"util.h\"\n#include \"spare.h\"\nint c(int x) { return x + T; }\n";
        let seed = [
            ("main.c", main),
            ("util.h", header),
            ("spare.h", "int spare;\n"),
        ];
        let minus = main.replace("x + T", "x - T");
        let variant = [
            ("main.c", minus.as_str()),
            ("util.h", header),
            ("spare.h", "int spare;\n"),
        ];
        // As a compiler sees it: the header's text where it is included.
        let seen = |t: &Files| expanded(t, "main.c");
        let seed_ok = |t: &Files| seen(t).contains("define T") && seen(t).contains('+');
        let bug = |t: &Files| seen(t).contains("define T") && seen(t).contains('-');
        let [s, v] = reduce(&seed, &variant, seed_ok, bug);
        assert_eq!(paths(&s), ["main.c"], "{s:?}");
        assert_eq!(paths(&v), ["main.c"], "{v:?}");
        assert!(bug(&v) && seed_ok(&s));
    }

    /// `mod m;` of a module both crates declare becomes `mod m { ... }` on both sides.
    #[test]
    fn a_rust_module_declared_once_is_inlined_on_both_sides() {
        let shapes = "pub fn area(w: i32, h: i32) -> i32 { w * h }\npub fn unused() {}\n";
        let main = "mod shapes;\nfn main() { let a = shapes::area(2, 3); println!(\"{}\", a); }\n";
        let seed = [("src/main.rs", main), ("src/shapes.rs", shapes)];
        let times = shapes.replace("w * h", "w + h");
        let variant = [("src/main.rs", main), ("src/shapes.rs", times.as_str())];
        let seen = |t: &Files| expanded(t, "src/main.rs");
        let seed_ok = |t: &Files| seen(t).contains("w * h");
        let bug = |t: &Files| seen(t).contains("w + h");
        let [s, v] = reduce(&seed, &variant, seed_ok, bug);
        assert_eq!(paths(&v), ["src/main.rs"], "{v:?}");
        assert_eq!(paths(&s), ["src/main.rs"], "{s:?}");
        // What the bug needs came from the module into main.rs.
        assert!(bug(&v) && seed_ok(&s), "{s:?}\n{v:?}");
    }

    /// Here a header and its include go together or not at all.
    #[test]
    fn a_header_goes_with_its_includes_on_both_sides() {
        let main = "#include \"spare.h\"\nint c(int x) { return x + 1; }\n";
        let seed = [("main.c", main), ("spare.h", "int spare;\n")];
        let minus = main.replace("x + 1", "x - 1");
        let variant = [("main.c", minus.as_str()), ("spare.h", "int spare;\n")];
        let whole = |t: &Files| {
            let main = text(t, "main.c").unwrap_or("");
            // Not inlined, and not emptied first.
            let apart = !main.contains("int spare")
                && text(t, "spare.h").is_none_or(|h| h.contains("int spare"));
            apart
                && main.contains("int c")
                && main.contains("spare.h") == text(t, "spare.h").is_some()
        };
        let seed_ok = |t: &Files| whole(t) && text(t, "main.c").is_some_and(|m| m.contains('+'));
        let bug = |t: &Files| whole(t) && text(t, "main.c").is_some_and(|m| m.contains('-'));
        let [s, v] = reduce(&seed, &variant, seed_ok, bug);
        assert_eq!(paths(&s), ["main.c"], "{s:?}");
        assert_eq!(paths(&v), ["main.c"], "{v:?}");
    }
}
