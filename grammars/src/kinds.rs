//! What Whittle needs to know of a language, as one table a language ([`Kinds`], filled in
//! `lang/<language>.rs`): which node kinds are typedefs, function definitions, calls, array
//! declarators, subscripts, initialised declarators, literals, statements and expressions;
//! how it names things ([`Names`], for renaming) and what its types look like ([`Types`]);
//! where its variables are declared and seen ([`Variables`], for the witness rules); what
//! the witness rules mutate ([`Witness`]); how a result is laid out ([`Layout`]); and how a
//! file of it is recognised ([`Detect`]). A rewrite runs only where its kinds exist, so a
//! language whose table leaves something out simply gets fewer rewrites.
//!
//! Fields named in comments are the grammar's field names the rewrites follow.

/// One language's table; `None` (or an empty list) where the language has no such node.
#[derive(Debug)]
pub struct Kinds {
    /// `typedef TYPE NAME;` (fields `type`, `declarator`).
    pub type_definition: Option<&'static str>,
    /// The kinds of a token that names a type (a typedef's name and its uses).
    pub type_names: &'static [&'static str],
    /// A function with a body (field `body`; its parameters under field `declarator`).
    pub function_definition: Option<&'static str>,
    /// What a function's body may become where only the function's type matters: `;` (a
    /// declaration) in C, a body that type-checks for any return type in Rust.
    pub stub_body: &'static str,
    /// The declarator that holds a function's name and `parameters`.
    pub function_declarator: &'static str,
    /// `...` in a parameter list: never dropped.
    pub variadic_parameter: &'static str,
    /// A call (fields `function`, `arguments`).
    pub call: Option<&'static str>,
    /// `NAME[N]` in a declaration (field `declarator`).
    pub array_declarator: Option<&'static str>,
    /// `a[i]` in an expression (field `argument`).
    pub subscript: Option<&'static str>,
    /// `NAME = VALUE` in a declaration (fields `declarator`, `value`).
    pub init_declarator: Option<&'static str>,
    /// Literals a constant may be propagated from.
    pub literals: &'static [&'static str],
    pub identifier: &'static str,
    /// Expressions that write a variable: assignment (field `left`), `++`/`--`, `&x`.
    pub assignment: &'static str,
    pub update: &'static str,
    pub address_of: &'static str,
    /// The supertypes (without the leading `_`) of statements and of expressions.
    pub statement: &'static str,
    pub expression: &'static str,
    /// The smallest statement and expression, which a larger one may become.
    pub trivial_statement: Option<&'static str>,
    pub trivial_expression: Option<&'static str>,
    pub names: Names,
    pub types: Types,
    /// Attributes that belong to the item after them (Rust's `#[cfg(test)]`): deleting the
    /// item deletes them.
    pub attributes: &'static [&'static str],
    /// `return VALUE` as an expression, in a language whose functions name their result type
    /// in a field `return_type` (Rust): such a function may return nothing instead.
    pub return_expression: Option<&'static str>,
    /// Tokens that may go from the end of a statement where they stand alone (JavaScript's
    /// `;`, which automatic semicolon insertion supplies at a line break or a `}`); the
    /// validity check says where.
    pub optional_terminators: &'static [&'static str],
    /// Keywords of compiler extensions that a program may go without, each with the
    /// parenthesized argument after it (GNU C's `__attribute__((...))` and asm labels): the
    /// grammar often cannot parse them (`namespace std __attribute__ ((...)) {`).
    pub extensions: &'static [&'static str],
    /// Keywords of extensions that go alone (`__extension__`, `__restrict`).
    pub extension_words: &'static [&'static str],
    /// C's preprocessor: lines that start with `#` are directives.
    pub directives: bool,
    /// A declaration of variables or functions (`int x, f(void);`).
    pub declaration: Option<&'static str>,
    /// A statement that is an expression (`f(x);`).
    pub expression_statement: Option<&'static str>,
    /// A field's declaration in a struct or class body.
    pub field_declaration: Option<&'static str>,
    /// A struct's body whose last field may end without its `;` (GNU C: gcc and clang
    /// accept `struct { int a }` with a warning). The grammar cannot parse the result: see
    /// the bare-field pass.
    pub bare_last_field: Option<&'static str>,
    /// The token that is a string literal's text between its escapes.
    pub string_text: &'static [&'static str],
    /// How one file names another, in a folder (`folder/links.rs` reads the lines).
    pub links: Option<Links>,
    pub roots: Roots,
    pub variables: Variables,
    pub witness: Witness,
    pub layout: Layout,
    pub detect: Detect,
}

/// What the `roots` pass needs to know besides the text: which blocks hold definitions, and
/// which names a compiler looks up where the program does not write them.
#[derive(Debug)]
pub struct Roots {
    /// Keywords of a block whose chunks are definitions again (C++'s `namespace`, Rust's
    /// `mod`); `extern "C" {` is one in every language.
    pub containers: &'static [&'static str],
    /// Names the compiler looks up on its own (C++'s `initializer_list` for a braced list,
    /// `tuple_size` for a structured binding): what defines them stays while anything does.
    pub implicit: &'static [&'static str],
}

pub const NO_ROOTS: Roots = Roots {
    containers: &[],
    implicit: &[],
};

/// How a language names things: what renaming needs. A name is renamed only where the
/// program declares it; names it cannot see declared (a library's, a macro's) stay.
#[derive(Debug)]
pub struct Names {
    /// Kinds of tokens that name something: variables, functions, types, fields, labels.
    pub kinds: &'static [&'static str],
    /// Name kinds that never change: a shorthand `{ x }` names a field and a variable at once.
    pub pinned: &'static [&'static str],
    /// Names whose parent is one of these stay (a macro's name and parameters).
    pub pinned_under: &'static [&'static str],
    /// Tokens whose text may use names the tree does not show (a macro's body): every word
    /// in them stays.
    pub opaque: &'static [&'static str],
    /// Name kinds with a namespace apart from the ordinary one (C's fields, labels).
    pub apart: &'static [&'static str],
    /// Type specifiers whose `name` is a tag; one with a `body` declares it (`struct S *p`
    /// only names it).
    pub tag_specifiers: &'static [&'static str],
    /// Whether tags have a namespace apart (C) or share the ordinary one (C++).
    pub tags_apart: bool,
    /// Declarations of a function written the same as an expression of it (JavaScript's
    /// `function f() {...}`): one used once as a value may be written where it is used.
    pub function_declarations: &'static [&'static str],
    /// Nodes that declare their `name` child (functions, classes, fields, ...).
    pub named: &'static [&'static str],
    /// Declarations that bring in a scope's names by the scope's name (`use a::X;`, `using
    /// namespace n;`): when the scope is unwrapped they go with it.
    pub imports: &'static [&'static str],
    /// Where else a name is declared: (parent kind, field); `""` for any parent, `None` for
    /// a child without a field.
    pub declared_at: &'static [(&'static str, Option<&'static str>)],
    /// Nodes whose declarations are local to them (functions, lambdas).
    pub scopes: &'static [&'static str],
    /// Words never given nor taken away, beyond the grammar's keywords: type names the
    /// grammar lexes as one kind of token.
    pub reserved: &'static [&'static str],
    /// Where a program's run starts (`main`): never given, but renamed like any name, alone
    /// (the test decides: a property that runs the program needs it).
    pub entry: &'static [&'static str],
}

/// What the types pass needs: which declarations have a type, and which types may become
/// the plain one.
#[derive(Debug)]
pub struct Types {
    /// The type others become (`int`); `None`: no types pass.
    pub plain: Option<&'static str>,
    /// Nodes whose `type` field may become plain: declarations, parameters, functions
    /// (their return type), fields, typedefs, casts.
    pub typed: &'static [&'static str],
    /// Kinds of type that may become plain.
    pub replaceable: &'static [&'static str],
    /// Texts of types that stay (`void`: `f(void)`, `void *`).
    pub kept: &'static [&'static str],
    /// Specifiers that may go: qualifiers (`const`) and storage classes (`static`).
    pub droppable: &'static [&'static str],
    /// Lists of modifiers whose every keyword may go (Java's `public static abstract`).
    pub modifiers: Option<&'static str>,
    /// A type of several words (`long long`, `unsigned char`), each of which may go.
    pub words: Option<&'static str>,
    /// `*NAME` in a declaration (field `declarator`).
    pub pointer_declarator: Option<&'static str>,
    /// The type a function's declaration may leave out (C89's implicit int). The grammar
    /// cannot parse the result: see the implicit-int pass.
    pub implicit: Option<&'static str>,
    /// `const`, `volatile`, `restrict`: a qualifier the witness rules add and remove.
    pub qualifier: Option<&'static str>,
    /// `extern`, `static`: a declaration with `extern` declares no variable of its own.
    pub storage_class: Option<&'static str>,
    /// A one-word built-in type (`int`, `char`) that a modifier may join (`unsigned int`).
    pub primitive: Option<&'static str>,
    /// A class whose members are private until a label says otherwise, the label's kind, its
    /// public text, and the keyword of a type whose members are public: `class C { public:
    /// ...}` may be `struct C { ...}` (C++).
    pub class: Option<(&'static str, &'static str, &'static str, &'static str)>,
}

/// The line by which a file names another of its folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// `#include "h"`.
    Include,
    /// `mod m;`, a file `m.rs` or `m/mod.rs` beside it.
    Module,
    /// `import ... from './m.js'`.
    Import,
}

/// Where a program's variables are declared and seen: what the witness rules need to swap
/// one variable for another of the same type in scope.
#[derive(Debug)]
pub struct Variables {
    /// Nodes that open a scope: the file, blocks, functions, classes, `for` loops.
    pub scopes: &'static [&'static str],
    /// Functions: a parameter belongs to one (a prototype's do not), locals are in one.
    pub functions: &'static [&'static str],
    /// Declarations of variables (fields `declarator`, `pattern` or `name`, and `type`).
    pub declarations: &'static [&'static str],
    /// Parameters, declared like variables.
    pub parameters: &'static [&'static str],
    /// A parameter list whose identifiers are the parameters (JavaScript's, untyped).
    pub bare_parameters: Option<&'static str>,
    /// Declarators that wrap the name with its value (`x = 1`): the name is their first child.
    pub wrappers: &'static [&'static str],
    /// An identifier whose parent is one of these is no variable's use (a parameter list, a
    /// label, a macro's definition, an attribute, a path).
    pub not_uses_under: &'static [&'static str],
    /// Whether declarations name types (JavaScript's do not: every variable is `any`).
    pub typed: bool,
}

/// What DiWi's witness rules mutate ([`Variables`] says which variables are in scope).
#[derive(Debug)]
pub struct Witness {
    /// Expressions with a binary operator token among their children.
    pub binary: &'static [&'static str],
    /// Assignments whose operator may become another.
    pub assignments: &'static [&'static str],
    /// An assignment of compound operators only (Rust's plain `=` is a kind of its own).
    pub compound_assignment: Option<&'static str>,
    pub unary: Option<&'static str>,
    /// `++`/`--` expressions.
    pub update: Option<&'static str>,
    /// The prefix operators (`!`, `-`, `~`): Rust has no `~`.
    pub prefix_operators: &'static [&'static str],
    /// Integer literals, whose value may change.
    pub integers: &'static [&'static str],
    /// Values a variable's initialiser may already be: it is not zeroed.
    pub literal_values: &'static [&'static str],
    /// Calls (a call's arguments follow its callee in one of `arguments`).
    pub calls: &'static [&'static str],
    pub arguments: &'static [&'static str],
    /// Calls whose arguments are how a test observes the program (its output): mutating them
    /// makes fake witnesses (DiWi §6, "test oracle challenge").
    pub oracles: &'static [&'static str],
    /// Declarations whose declarators may get `= 0` (in a function).
    pub declarations: &'static [&'static str],
    /// Declarators with a `value` that may become `0`.
    pub initialized: &'static [&'static str],
    /// Declarations whose primitive type may get a modifier (`int` to `long int`).
    pub modified: &'static [&'static str],
    /// Statements that guard another (`if`, loops) and `else`.
    pub guards: &'static [&'static str],
    pub else_clause: Option<&'static str>,
    pub if_statement: Option<&'static str>,
    /// Blocks: a guarded statement that already is one has its braces.
    pub blocks: &'static [&'static str],
}

/// How a result is laid out (`layout.rs`): what each token's parent kind says of the spaces
/// and line breaks around it.
#[derive(Debug)]
pub struct Layout {
    /// Braces whose parent is one of these hold values, not statements: one line.
    pub inline_braces: &'static [&'static str],
    /// Parents in which `*`, `&`, `-`, `++` are prefixes: `*p`, `&x`, `int *p`.
    pub prefixes: &'static [&'static str],
    /// Parents whose tokens stay glued as written: literals, macro arguments.
    pub glued: &'static [&'static str],
    /// `do { ... } while (x);`: the `while` stays after the `}`.
    pub do_loops: &'static [&'static str],
    /// Attributes: a line break after their closing bracket.
    pub attributes: &'static [&'static str],
    /// Members of a block separated by commas besides the block's own (Rust's match arms).
    pub arms: &'static [&'static str],
    /// `x++`: no space before a postfix `++`.
    pub updates: &'static [&'static str],
    /// Parents whose `<` and `>` are brackets (`vector<int>`), not comparisons.
    pub angle_brackets: &'static [&'static str],
    /// `public:` on a line of its own.
    pub access: &'static [&'static str],
    /// Parents of a `:` with a space before it (`a ? b : c`, `class C : B`).
    pub spaced_colons: &'static [&'static str],
    /// Parents of a `!` glued to the word before (`m!(x)`).
    pub macros: &'static [&'static str],
    /// Words after which `(` is no call: `if (x)`, `while (x)`.
    pub keywords_before_paren: &'static [&'static str],
    /// Every newline of the original stays (JavaScript's automatic semicolons).
    pub keep_newlines: bool,
}

/// How a file is recognised as this language.
#[derive(Debug)]
pub struct Detect {
    /// File name extensions, lower case.
    pub extensions: &'static [&'static str],
    /// Constructs only this language has, each with its weight: a text scores the weights of
    /// those it contains.
    pub clues: &'static [(&'static str, i32)],
    /// What every text scores (C's: the fallback).
    pub base: i32,
}

pub(crate) const NO_NAMES: Names = Names {
    kinds: &[],
    pinned: &[],
    pinned_under: &[],
    opaque: &[],
    apart: &[],
    tag_specifiers: &[],
    tags_apart: false,
    function_declarations: &[],
    named: &[],
    imports: &[],
    declared_at: &[],
    scopes: &[],
    reserved: &[],
    entry: &[],
};

pub(crate) const NO_TYPES: Types = Types {
    plain: None,
    typed: &[],
    replaceable: &[],
    kept: &[],
    droppable: &[],
    modifiers: None,
    words: None,
    pointer_declarator: None,
    implicit: None,
    qualifier: None,
    storage_class: None,
    primitive: None,
    class: None,
};

pub(crate) const NO_VARIABLES: Variables = Variables {
    scopes: &[],
    functions: &[],
    declarations: &[],
    parameters: &[],
    bare_parameters: None,
    wrappers: &[],
    not_uses_under: &[],
    typed: true,
};

/// The operators of C and the languages that took them.
pub(crate) const NO_WITNESS: Witness = Witness {
    binary: &["binary_expression"],
    assignments: &["assignment_expression"],
    compound_assignment: None,
    unary: Some("unary_expression"),
    update: None,
    prefix_operators: &["!", "-", "~"],
    integers: &[],
    literal_values: &[],
    calls: &[],
    arguments: &[],
    oracles: &[],
    declarations: &[],
    initialized: &[],
    modified: &[],
    guards: &[],
    else_clause: None,
    if_statement: None,
    blocks: &[],
};

pub(crate) const NO_LAYOUT: Layout = Layout {
    inline_braces: &[],
    prefixes: &[],
    glued: &[],
    do_loops: &[],
    attributes: &[],
    arms: &[],
    updates: &[],
    angle_brackets: &[],
    access: &[],
    spaced_colons: &[],
    macros: &[],
    keywords_before_paren: &[],
    keep_newlines: false,
};

/// What Rust's, JavaScript's and Java's tables start from: statements and expressions become
/// trivial ones; each table adds how its language names things.
pub(crate) const STATEMENTS_AND_EXPRESSIONS: Kinds = Kinds {
    type_definition: None,
    type_names: &[],
    function_definition: None,
    stub_body: "",
    function_declarator: "",
    variadic_parameter: "",
    call: None,
    array_declarator: None,
    subscript: None,
    init_declarator: None,
    literals: &[],
    identifier: "identifier",
    assignment: "",
    update: "",
    address_of: "",
    statement: "statement",
    expression: "expression",
    trivial_statement: Some("0;"),
    trivial_expression: Some("0"),
    names: NO_NAMES,
    types: NO_TYPES,
    attributes: &[],
    return_expression: None,
    optional_terminators: &[],
    extensions: &[],
    extension_words: &[],
    directives: false,
    declaration: None,
    expression_statement: Some("expression_statement"),
    field_declaration: None,
    bare_last_field: None,
    string_text: &[],
    links: None,
    roots: NO_ROOTS,
    variables: NO_VARIABLES,
    witness: NO_WITNESS,
    layout: NO_LAYOUT,
    detect: Detect {
        extensions: &[],
        clues: &[],
        base: 0,
    },
};
