use super::*;
use crate::tree::Parser;
use crate::Lang;

/// Every (rule, before, after) the rules offer on `text`.
fn offers(lang: Lang, text: &str) -> Vec<(Rule, String, String)> {
    let tree = Parser::new(lang).parse(text);
    assert!(tree.error.is_none(), "{text}");
    let sites = RuleSites::of(&tree);
    let mut out = vec![];
    for rule in sites.rules() {
        for s in sites.of_rule(rule) {
            for c in &s.choices {
                out.push((
                    rule,
                    text[s.start as usize..s.end as usize].to_string(),
                    c.clone(),
                ));
            }
        }
    }
    out
}

fn has(offers: &[(Rule, String, String)], rule: Rule, before: &str, after: &str) -> bool {
    offers
        .iter()
        .any(|(r, b, a)| *r == rule && b.trim() == before && a.trim() == after)
}

fn lacks_rule(offers: &[(Rule, String, String)], rule: Rule) -> bool {
    !offers.iter().any(|(r, _, _)| *r == rule)
}

/// Every single edit the rules offer keeps the program parsing.
fn all_parse(lang: Lang, text: &str) {
    let tree = Parser::new(lang).parse(text);
    let sites = RuleSites::of(&tree);
    let mut parser = Parser::new(lang);
    for rule in sites.rules() {
        for s in sites.of_rule(rule) {
            for c in &s.choices {
                let m = format!(
                    "{}{}{}",
                    &text[..s.start as usize],
                    c,
                    &text[s.end as usize..]
                );
                assert!(
                    parser.is_valid(&m),
                    "{} made an invalid program:\n{m}",
                    rule.name()
                );
            }
        }
    }
}

const C: &str = "int g;\nlong h;\nint f(int a, int *p) {\n  int b = 7;\n  unsigned short u = 0x10U;\n  const int k = 2;\n  b += a * 3;\n  if (a < b && !u) b = b - 1;\n  u++;\n  printf(\"%d\", b + 1);\n  return ~a | b;\n}\n";

#[test]
fn c_variables_are_replaced_by_visible_ones_of_the_same_type() {
    let o = offers(Lang::C, C);
    assert!(has(&o, Rule::Variable, "a", "b"));
    assert!(has(&o, Rule::Variable, "a", "g"), "globals are visible");
    assert!(
        !o.iter()
            .any(|(r, b, a)| *r == Rule::Variable && b == "a" && a == "h"),
        "long is not int"
    );
    assert!(
        !o.iter().any(|(r, _, a)| *r == Rule::Variable && a == "p"),
        "int * is not int"
    );
    assert!(
        !o.iter().any(|(r, _, a)| *r == Rule::Variable && a == "f"),
        "a function is no variable"
    );
    assert!(has(&o, Rule::UnaryInsert, "a", "!a"));
}

#[test]
fn c_operators_change_within_their_class() {
    let o = offers(Lang::C, C);
    assert!(has(&o, Rule::ArithmeticOp, "*", "/"));
    assert!(has(&o, Rule::RelationalOp, "<", ">="));
    assert!(has(&o, Rule::LogicalOp, "&&", "||"));
    assert!(has(&o, Rule::BitwiseOp, "|", "^"));
    assert!(has(&o, Rule::AssignmentOp, "+=", "-="));
    assert!(
        !has(&o, Rule::ArithmeticOp, "*", "<"),
        "no operator leaves its class"
    );
    assert!(has(&o, Rule::UnaryReplace, "++", "--"));
    assert!(has(&o, Rule::UnaryReplace, "!", "~"));
    assert!(has(&o, Rule::UnaryRemove, "~", ""));
}

#[test]
fn c_constants_take_the_papers_values_and_keep_their_suffix() {
    let o = offers(Lang::C, C);
    for (rule, after) in [
        (Rule::ConstZero, "0"),
        (Rule::ConstOne, "1"),
        (Rule::ConstMinusOne, "-1"),
        (Rule::ConstPlusOne, "8"),
        (Rule::ConstMinusOneStep, "6"),
        (Rule::ConstDouble, "14"),
    ] {
        assert!(has(&o, rule, "7", after), "{}", rule.name());
    }
    assert!(has(&o, Rule::ConstPlusOne, "0x10U", "17U"));
    // `b - 1` becomes `b - (-1)`, never `b - -1` glued into `b--1`.
    assert!(has(&o, Rule::ConstMinusOne, "2", "-1"));
    assert!(o
        .iter()
        .any(|(r, b, a)| *r == Rule::ConstMinusOne && b == "1" && a == "(-1)"));
}

#[test]
fn c_qualifiers_and_modifiers() {
    let o = offers(Lang::C, C);
    assert!(has(&o, Rule::QualifierRemove, "const", ""));
    assert!(o
        .iter()
        .any(|(r, _, a)| *r == Rule::QualifierInsertVolatile && a == "volatile "));
    assert!(o
        .iter()
        .any(|(r, _, a)| *r == Rule::QualifierInsertRestrict && a.trim() == "restrict"));
    assert!(has(&o, Rule::ModifierInsert, "int", "unsigned int"));
    assert!(has(&o, Rule::ModifierRemove, "unsigned short", "short"));
    assert!(has(
        &o,
        Rule::ModifierReplace,
        "unsigned short",
        "signed short"
    ));
    assert!(has(
        &o,
        Rule::ModifierReplace,
        "unsigned short",
        "unsigned long"
    ));
    assert!(
        has(&o, Rule::ModifierRemove, "long", "int"),
        "`long` without `long` is `int`"
    );
}

#[test]
fn output_calls_are_left_alone() {
    // The `1` in `printf("%d", b + 1)` is how the test sees the program: mutating it would
    // make a fake witness.
    let o = offers(Lang::C, C);
    let at = C.find("b + 1").unwrap();
    let tree = Parser::new(Lang::C).parse(C);
    let sites = RuleSites::of(&tree);
    for rule in sites.rules() {
        for s in sites.of_rule(rule) {
            assert!(
                !(s.start as usize >= at && (s.start as usize) < at + 5),
                "{} in printf",
                rule.name()
            );
        }
    }
    assert!(!o.is_empty());
}

#[test]
fn every_c_mutant_parses() {
    all_parse(Lang::C, C);
}

#[test]
fn cpp_shares_cs_rules() {
    let src = "int f(int a, int b) { unsigned x = 3; return a < b ? a + x : b; }\n";
    let o = offers(Lang::Cpp, src);
    assert!(has(&o, Rule::Variable, "a", "b"));
    assert!(has(&o, Rule::RelationalOp, "<", "<="));
    assert!(has(&o, Rule::ModifierReplace, "unsigned", "signed int"));
    all_parse(Lang::Cpp, src);
}

#[test]
fn rust_rules() {
    let src = "fn f(a: i32, b: i32) -> i32 { let mut x: i32 = 5i32; x += a; if !(a > b) { x = -x; } x * b }\n";
    let o = offers(Lang::Rust, src);
    assert!(has(&o, Rule::Variable, "a", "b"));
    assert!(has(&o, Rule::Variable, "x", "a"));
    assert!(has(&o, Rule::ArithmeticOp, "*", "+"));
    assert!(has(&o, Rule::RelationalOp, ">", "<"));
    assert!(has(&o, Rule::AssignmentOp, "+=", "-="));
    assert!(
        !has(&o, Rule::AssignmentOp, "+=", "="),
        "Rust's `=` is another kind of node"
    );
    assert!(has(&o, Rule::ConstPlusOne, "5i32", "6i32"));
    assert!(has(&o, Rule::UnaryRemove, "-", ""));
    assert!(lacks_rule(&o, Rule::QualifierInsertVolatile));
    all_parse(Lang::Rust, src);
}

#[test]
fn javascript_rules() {
    let src =
        "function f(a, b) { let x = 0x10; x += a; const y = -b; return !a || x++ > y * 3; }\n";
    let o = offers(Lang::JavaScript, src);
    assert!(
        has(&o, Rule::Variable, "a", "b"),
        "parameters are variables"
    );
    assert!(has(&o, Rule::Variable, "x", "y"));
    assert!(has(&o, Rule::LogicalOp, "||", "&&"));
    assert!(has(&o, Rule::UnaryReplace, "++", "--"));
    assert!(has(&o, Rule::ConstDouble, "0x10", "32"));
    assert!(has(&o, Rule::ConstZero, "3", "0"));
    all_parse(Lang::JavaScript, src);
}

#[test]
fn java_rules() {
    let src = "class A { int f(int a, long b) { int x = 10; x += a; int y = -a; return (x++ > y * 3 && !(b < 1)) ? x : y; } }\n";
    let o = offers(Lang::Java, src);
    assert!(has(&o, Rule::Variable, "x", "y"));
    assert!(has(&o, Rule::Variable, "x", "a"));
    assert!(
        !o.iter()
            .any(|(r, b, a)| *r == Rule::Variable && b == "x" && a == "b"),
        "long is not int"
    );
    assert!(has(&o, Rule::AssignmentOp, "+=", "*="));
    assert!(has(&o, Rule::ConstMinusOneStep, "10", "9"));
    assert!(has(&o, Rule::UnaryRemove, "!", ""));
    all_parse(Lang::Java, src);
}

#[test]
fn integers_read_back() {
    assert_eq!(parse_integer("0x10UL"), Some((16, "UL")));
    assert_eq!(parse_integer("5i32"), Some((5, "i32")));
    assert_eq!(parse_integer("1_000"), Some((1000, "")));
    assert_eq!(parse_integer("1.5"), None);
    assert_eq!(parse_integer("1e5"), None);
    assert_eq!(parse_integer("010"), None, "octal is left alone");
}

#[test]
fn locals_without_a_value_get_one() {
    let src = "int g;\nint f(void) {\n  int i, j = 2;\n  int a[3];\n  int *p;\n  return i + j + a[0] + *p;\n}\n";
    let o = offers(Lang::C, src);
    let inits: Vec<&str> = o
        .iter()
        .filter(|(r, _, _)| *r == Rule::InitializerInsert)
        .map(|(_, _, a)| a.as_str())
        .collect();
    assert_eq!(
        inits,
        [" = 0", " = {0}", " = 0"],
        "i, a and p; not j, not the global g"
    );
    all_parse(Lang::C, src);
    let java = "class A { int f() { int x; int y = 1; x = y; return x; } }\n";
    let o = offers(Lang::Java, java);
    assert_eq!(
        o.iter()
            .filter(|(r, _, _)| *r == Rule::InitializerInsert)
            .count(),
        1
    );
    all_parse(Lang::Java, java);
}

#[test]
fn initial_values_that_are_no_literal_become_zero() {
    let src = "int g(void);\nint f(int *p) {\n  long c = *p;\n  int d = 5, e = g();\n  int a[2] = {1, 2};\n  return c + d + e + a[0];\n}\n";
    let o = offers(Lang::C, src);
    let zero: Vec<&str> = o
        .iter()
        .filter(|(r, _, _)| *r == Rule::InitializerZero)
        .map(|(_, b, _)| b.as_str())
        .collect();
    assert_eq!(
        zero,
        ["*p", "g()"],
        "not the literal 5, not the array's list"
    );
    all_parse(Lang::C, src);
    let js = "function f(a) { let x = a * 2; const y = 3; return x + y; }\n";
    let o = offers(Lang::JavaScript, js);
    assert!(has(&o, Rule::InitializerZero, "a * 2", "0"));
    all_parse(Lang::JavaScript, js);
}

/// Every body that `rule` puts in braces on `text`.
fn braced(lang: Lang, text: &str) -> Vec<String> {
    let o = offers(lang, text);
    o.into_iter()
        .filter(|(r, _, _)| *r == Rule::GuardBraces)
        .map(|(_, b, a)| {
            assert_eq!(a, format!("{{ {b} }}"));
            b
        })
        .collect()
}

#[test]
fn guarded_statements_get_braces() {
    let c = "int f(int a) {\n  if (a)\n    a++;\n    a--;\n  if (a) { a = 2; } else if (a > 1) a = 3; else a = 4;\n  while (a) a--;\n  for (;;) if (a) break;\n  do a++; while (a < 3);\n  return a;\n}\n";
    assert_eq!(
        braced(Lang::C, c),
        [
            "a++;",
            "a = 3;",
            "a = 4;",
            "a--;",
            "if (a) break;",
            "break;",
            "a++;"
        ],
        "not a block, not the `if` of an `else if`"
    );
    all_parse(Lang::C, c);
    let cpp = "int f(int *v) { for (int x : {1, 2}) v[x]++; return 0; }\n";
    assert_eq!(braced(Lang::Cpp, cpp), ["v[x]++;"]);
    all_parse(Lang::Cpp, cpp);
    let js =
        "function f(a) { if (a) return 1; else a = 2; for (const k in a) a[k]++; return a; }\n";
    assert_eq!(
        braced(Lang::JavaScript, js),
        ["return 1;", "a = 2;", "a[k]++;"]
    );
    all_parse(Lang::JavaScript, js);
    let java = "class A { int f(int a) { if (a > 0) a = 1; else a = 2; for (int x : new int[] {1}) a += x; return a; } }\n";
    assert_eq!(braced(Lang::Java, java), ["a = 1;", "a = 2;", "a += x;"]);
    all_parse(Lang::Java, java);
    let rust = "fn f(a: i32) -> i32 { if a > 0 { 1 } else { 2 } }\n";
    assert!(
        braced(Lang::Rust, rust).is_empty(),
        "Rust's guards have braces"
    );
}
