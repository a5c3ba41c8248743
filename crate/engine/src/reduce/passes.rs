//! The single-program passes in one table: each one's name (the statistics', and what
//! `--skip-pass` takes), what it does, and how it starts. When each runs is the strategies'
//! schedules ([`super::strategy`]).

use super::{
    bare_field, chains, chunks, clauses, ddmin, definitions, dependencies, effects, error_regions,
    file_scope, format, hdd, implicit_int, inline, join, local, lone_tokens, merge, perses, rename,
    roots, tag_into_use, transform, types, unwrap, update, Pass, Program,
};

/// A single-program pass: a row of [`PASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    Comments,
    Perses,
    Hdd,
    DdminLines,
    DdminTokens,
    Transform,
    Dependencies,
    Inline,
    Merge,
    ErrorRegions,
    LineMarkers,
    Unwrap,
    Types,
    Rename,
    ImplicitInt,
    Format,
    Local,
    Update,
    Effects,
    TagIntoUse,
    Join,
    Chunks,
    Unused,
    Bodies,
    Terminators,
    Chains,
    Extensions,
    Roots,
    Clauses,
    FileScope,
    BareField,
}

/// A row of the table.
pub struct PassInfo {
    pub kind: PassKind,
    pub name: &'static str,
    /// One line: what it tries.
    pub about: &'static str,
    /// The pass, fresh over a program; `true` for a coarse round (see [`PassKind::start`]).
    start: fn(&Program, bool) -> Box<dyn Pass>,
}

const fn row(
    kind: PassKind,
    name: &'static str,
    about: &'static str,
    start: fn(&Program, bool) -> Box<dyn Pass>,
) -> PassInfo {
    PassInfo {
        kind,
        name,
        about,
        start,
    }
}

/// Every pass, in `PassKind`'s order (a test holds them to it).
pub const PASSES: &[PassInfo] = &[
    row(
        PassKind::Comments,
        "comments",
        "deletes comments: all at once, then in chunks",
        |p, _| Box::new(lone_tokens::comments(p)),
    ),
    row(
        PassKind::Perses,
        "perses",
        "syntax-guided: a node goes, or a descendant takes its place (Perses)",
        |p, coarse| Box::new(perses::Perses::new(p, coarse)),
    ),
    row(
        PassKind::Hdd,
        "hdd",
        "ddmin over the nodes of each tree level, from the root down (HDD)",
        |p, _| Box::new(hdd::Hdd::new(p)),
    ),
    row(
        PassKind::DdminLines,
        "ddmin-lines",
        "ddmin over lines",
        |p, _| Box::new(ddmin::DdminUnits::lines(p)),
    ),
    row(
        PassKind::DdminTokens,
        "ddmin-tokens",
        "ddmin over tokens",
        |p, _| Box::new(ddmin::DdminUnits::tokens(p)),
    ),
    row(
        PassKind::Transform,
        "transform",
        "rewrites: inlines typedefs, drops parameters, folds and zeroes expressions",
        |p, _| Box::new(transform::pass(p)),
    ),
    row(
        PassKind::Dependencies,
        "dependencies",
        "deletes a declaration together with every use of it",
        |p, _| Box::new(dependencies::pass(p)),
    ),
    row(
        PassKind::Inline,
        "inline",
        "inlines a variable read once: its read gets its initial value",
        |p, _| Box::new(inline::pass(p)),
    ),
    row(
        PassKind::Merge,
        "merge",
        "a name's uses take another name in scope, and its declaration goes",
        |p, _| Box::new(merge::pass(p)),
    ),
    row(
        PassKind::ErrorRegions,
        "error-regions",
        "reduces inside the regions the grammar could not parse, without the tree",
        |p, coarse| Box::new(error_regions::ErrorRegions::new(p, coarse)),
    ),
    row(
        PassKind::LineMarkers,
        "line-markers",
        "deletes the preprocessor's line markers (`# 12 \"file.h\"`)",
        |p, _| Box::new(ddmin::DdminUnits::line_markers(p)),
    ),
    row(
        PassKind::Unwrap,
        "unwrap",
        "replaces a braced construct (namespace, mod, class, if, loop) by its contents; a named scope takes its paths and imports with it (`m::X` to `X`)",
        |p, _| Box::new(unwrap::pass(p)),
    ),
    row(
        PassKind::Types,
        "types",
        "makes types plain: drops qualifiers, types become `int`, pointers go",
        |p, _| Box::new(types::pass(p)),
    ),
    row(
        PassKind::Rename,
        "rename",
        "renames every declared symbol to the shortest free name (a, b, ...)",
        |p, coarse| Box::new(rename::Rename::new(p, coarse)),
    ),
    row(
        PassKind::ImplicitInt,
        "implicit-int",
        "C only: leaves out `int` where C89 lets it go (`f() {...}`)",
        |p, _| Box::new(implicit_int::pass(p)),
    ),
    row(
        PassKind::Format,
        "format",
        "lays the result out afresh (kept only if still interesting)",
        |_, _| Box::new(format::Format::default()),
    ),
    row(
        PassKind::Local,
        "local",
        "small exhaustive edits across nodes, after the fixpoint (Vulcan's local search)",
        |p, _| Box::new(local::pass(p)),
    ),
    row(
        PassKind::Update,
        "update",
        "a small statement reading a variable becomes `x++;`",
        |p, _| Box::new(update::pass(p)),
    ),
    row(
        PassKind::Effects,
        "effects",
        "a branch or loop becomes its condition, a `return E;` its value: `E;`",
        |p, _| Box::new(effects::pass(p)),
    ),
    row(
        PassKind::TagIntoUse,
        "tag-into-use",
        "a struct, union or enum defined alone moves into its one use: `struct S {...} x;`; a JavaScript function declared alone and used once as a value, too",
        |p, _| Box::new(tag_into_use::pass(p)),
    ),
    row(
        PassKind::Join,
        "join",
        "two neighbouring blocks with the same head become one: `namespace n {A} namespace n {B}` to `namespace n {A B}`",
        |p, _| Box::new(join::pass(p)),
    ),
    row(
        PassKind::Chunks,
        "chunks",
        "by text alone: runs of `;`/`}`-ended chunks of each nesting level, outermost first (as C-Vise's line passes)",
        |p, _| Box::new(chunks::Chunks::new(p)),
    ),
    row(
        PassKind::Unused,
        "unused",
        "by text alone: definitions whose name nothing else uses, many at once (as C-Vise's remove-unused-function)",
        |p, _| Box::new(definitions::Definitions::new(p, definitions::Goal::Unused)),
    ),
    row(
        PassKind::Bodies,
        "bodies",
        "C and C++, by text alone: function definitions become declarations, many at once (as C-Vise's replace-function-def-with-decl)",
        |p, _| Box::new(definitions::Definitions::new(p, definitions::Goal::Bodies)),
    ),
    row(
        PassKind::Terminators,
        "terminators",
        "JavaScript: deletes the `;` a statement may end without (automatic semicolon insertion), all at once, then in chunks",
        |p, _| Box::new(lone_tokens::terminators(p)),
    ),
    row(
        PassKind::Chains,
        "chains",
        "a node nested in its own kind again and again loses levels by ddmin (`((((x))))`)",
        |p, _| Box::new(chains::pass(p)),
    ),
    row(
        PassKind::Extensions,
        "extensions",
        "deletes compiler extensions with their argument (`__attribute__((...))`): all at once, then (in fine rounds) in chunks",
        |p, coarse| Box::new(lone_tokens::extensions(p, coarse)),
    ),
    row(
        PassKind::Roots,
        "roots",
        "by text alone: ddmin over the definitions as roots, each candidate keeping only what the roots left reach by name; then the roots' statements, each with what only it reached",
        |p, coarse| Box::new(roots::Roots::new(p, coarse)),
    ),
    row(
        PassKind::Clauses,
        "clauses",
        "an optional part goes with its keyword, after the fixpoint: `impl T for S` to `impl S`, `let x: T` to `let x`; then a keyword alone (`new E()` to `E()`)",
        |p, _| Box::new(clauses::pass(p)),
    ),
    row(
        PassKind::FileScope,
        "file-scope",
        "C only, after the fixpoint: a local `int` declaration moves to file scope, where implicit int may drop its type",
        |p, _| Box::new(file_scope::pass(p)),
    ),
    row(
        PassKind::BareField,
        "bare-field",
        "C only: leaves out the `;` of a struct's last field, as gcc and clang allow (`struct { int a }`)",
        |p, _| Box::new(bare_field::pass(p)),
    ),
];

impl PassKind {
    pub fn info(self) -> &'static PassInfo {
        &PASSES[self as usize]
    }

    /// Its name, as the statistics give it.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Option<PassKind> {
        PASSES.iter().find(|p| p.name == name).map(|p| p.kind)
    }

    /// The pass, fresh over `prog`. A `coarse` round tries only edits that remove a sizeable
    /// share of the program.
    pub fn start(self, prog: &Program, coarse: bool) -> Box<dyn Pass> {
        (self.info().start)(prog, coarse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_kinds_and_names_are_unique() {
        for (i, p) in PASSES.iter().enumerate() {
            assert_eq!(p.kind as usize, i, "{} is out of place", p.name);
            assert_eq!(PassKind::from_name(p.name), Some(p.kind));
        }
        assert_eq!(PASSES.len(), PassKind::BareField as usize + 1);
    }
}
