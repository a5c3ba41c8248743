//! What the rewrites need to know of a language: which node kinds are typedefs, function
//! definitions, calls, array declarators, subscripts, initialised declarators, literals,
//! statements and expressions; how it names things ([`Names`], for renaming) and what its
//! types look like ([`Types`]). A rewrite runs only where its kinds exist, so a language
//! whose table leaves something out simply gets fewer rewrites.
//!
//! Fields named in comments are the grammar's field names the rewrites follow.

/// One language's table; `None` (or an empty list) where the language has no such node.
#[derive(Debug)]
pub struct Kinds {
    /// `typedef TYPE NAME;` (fields `type`, `declarator`).
    pub type_definition: Option<&'static str>,
    /// The kinds of a token that names a type (a typedef's name and its uses).
    pub type_names: &'static [&'static str],
    /// A function with a body (field `declarator`).
    pub function_definition: Option<&'static str>,
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
}

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
    /// Nodes that declare their `name` child (functions, classes, fields, ...).
    pub named: &'static [&'static str],
    /// Where else a name is declared: (parent kind, field); `""` for any parent, `None` for
    /// a child without a field.
    pub declared_at: &'static [(&'static str, Option<&'static str>)],
    /// Nodes whose declarations are local to them (functions, lambdas).
    pub scopes: &'static [&'static str],
    /// Words never given nor taken away, beyond the grammar's keywords: `main`, type names
    /// the grammar lexes as one kind of token.
    pub reserved: &'static [&'static str],
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
}

const NO_NAMES: Names = Names {
    kinds: &[],
    pinned: &[],
    pinned_under: &[],
    opaque: &[],
    apart: &[],
    tag_specifiers: &[],
    tags_apart: false,
    named: &[],
    declared_at: &[],
    scopes: &[],
    reserved: &[],
};

const NO_TYPES: Types = Types {
    plain: None,
    typed: &[],
    replaceable: &[],
    kept: &[],
    droppable: &[],
    modifiers: None,
    words: None,
    pointer_declarator: None,
    implicit: None,
};

const C_DECLARED_AT: &[(&str, Option<&str>)] = &[
    ("", Some("declarator")),
    ("labeled_statement", Some("label")),
];

const C_PREPROCESSOR: &[&str] = &[
    "preproc_def",
    "preproc_function_def",
    "preproc_params",
    "preproc_ifdef",
    "preproc_defined",
    "preproc_call",
];

const C_TYPES: Types = Types {
    plain: Some("int"),
    typed: &[
        "declaration",
        "parameter_declaration",
        "function_definition",
        "field_declaration",
        "type_definition",
        "type_descriptor",
    ],
    replaceable: &[
        "primitive_type",
        "sized_type_specifier",
        "type_identifier",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
    ],
    kept: &["void"],
    droppable: &["type_qualifier", "storage_class_specifier"],
    modifiers: None,
    words: Some("sized_type_specifier"),
    pointer_declarator: Some("pointer_declarator"),
    implicit: Some("int"),
};

/// C.
pub const C: Kinds = Kinds {
    type_definition: Some("type_definition"),
    type_names: &["type_identifier", "primitive_type"],
    function_definition: Some("function_definition"),
    function_declarator: "function_declarator",
    variadic_parameter: "variadic_parameter",
    call: Some("call_expression"),
    array_declarator: Some("array_declarator"),
    subscript: Some("subscript_expression"),
    init_declarator: Some("init_declarator"),
    literals: &["number_literal", "true", "false"],
    identifier: "identifier",
    assignment: "assignment_expression",
    update: "update_expression",
    address_of: "pointer_expression",
    statement: "statement",
    expression: "expression",
    trivial_statement: Some("0;"),
    trivial_expression: Some("0"),
    names: Names {
        kinds: &[
            "identifier",
            "type_identifier",
            "field_identifier",
            "statement_identifier",
            // tree-sitter-c lexes `uint32_t` and friends so, typedef or not.
            "primitive_type",
        ],
        pinned: &[],
        pinned_under: C_PREPROCESSOR,
        opaque: &["preproc_arg"],
        apart: &["field_identifier", "statement_identifier"],
        tag_specifiers: &["struct_specifier", "union_specifier", "enum_specifier"],
        tags_apart: true,
        named: &["enumerator"],
        declared_at: C_DECLARED_AT,
        scopes: &["function_definition"],
        reserved: &["main", "int", "char", "void", "bool", "float", "double"],
    },
    types: C_TYPES,
    attributes: &[],
    return_expression: None,
    optional_terminators: &[],
    extensions: &[
        "__attribute__",
        "__attribute",
        "__asm__",
        "__asm",
        "__declspec",
        "alignas",
        "_Alignas",
    ],
    extension_words: &[
        "__extension__",
        "__restrict",
        "__restrict__",
        "__inline",
        "__inline__",
    ],
};

/// C++, whose grammar extends C's. Its names share one namespace (but labels): members are
/// used unqualified inside their class, and a class's name is its constructors'.
pub const CPP: Kinds = Kinds {
    names: Names {
        kinds: &[
            "identifier",
            "type_identifier",
            "field_identifier",
            "namespace_identifier",
            "statement_identifier",
            "primitive_type",
        ],
        apart: &["statement_identifier"],
        tag_specifiers: &[
            "struct_specifier",
            "union_specifier",
            "enum_specifier",
            "class_specifier",
        ],
        tags_apart: false,
        named: &[
            "enumerator",
            "namespace_definition",
            "optional_type_parameter_declaration",
            "alias_declaration",
        ],
        declared_at: &[
            ("", Some("declarator")),
            ("labeled_statement", Some("label")),
            ("reference_declarator", None),
            ("type_parameter_declaration", None),
        ],
        scopes: &["function_definition", "lambda_expression"],
        reserved: &[
            "main", "int", "char", "void", "bool", "float", "double", "auto",
        ],
        ..C.names
    },
    types: Types {
        replaceable: &[
            "primitive_type",
            "sized_type_specifier",
            "type_identifier",
            "struct_specifier",
            "union_specifier",
            "enum_specifier",
            "class_specifier",
            "template_type",
            "qualified_identifier",
        ],
        // C++ has no implicit int.
        implicit: None,
        ..C_TYPES
    },
    ..C
};

/// What Rust's, JavaScript's and Java's tables start from: statements and expressions become
/// trivial ones; each table adds how its language names things.
const STATEMENTS_AND_EXPRESSIONS: Kinds = Kinds {
    type_definition: None,
    type_names: &[],
    function_definition: None,
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
};

/// Rust: one namespace for all names (conservative: a type and a value may share a name).
pub const RUST: Kinds = Kinds {
    attributes: &["attribute_item"],
    return_expression: Some("return_expression"),
    names: Names {
        kinds: &["identifier", "type_identifier", "field_identifier"],
        pinned: &["shorthand_field_identifier"],
        named: &[
            "function_item",
            "struct_item",
            "enum_item",
            "union_item",
            "trait_item",
            "type_item",
            "const_item",
            "static_item",
            "mod_item",
            "field_declaration",
            "enum_variant",
            "function_signature_item",
            "type_parameter",
        ],
        declared_at: &[
            ("", Some("pattern")),
            ("closure_parameters", None),
            ("tuple_pattern", None),
            ("ref_pattern", None),
            ("mut_pattern", None),
        ],
        scopes: &["function_item", "closure_expression"],
        reserved: &["main", "bool", "char", "str", "self", "crate", "super"],
        ..NO_NAMES
    },
    ..STATEMENTS_AND_EXPRESSIONS
};

/// JavaScript: one namespace for variables and properties.
pub const JAVASCRIPT: Kinds = Kinds {
    names: Names {
        kinds: &["identifier", "property_identifier"],
        pinned: &[
            "shorthand_property_identifier",
            "shorthand_property_identifier_pattern",
        ],
        named: &[
            "variable_declarator",
            "function_declaration",
            "generator_function_declaration",
            "function_expression",
            "class_declaration",
            "class",
            "method_definition",
        ],
        declared_at: &[
            ("field_definition", Some("property")),
            ("pair", Some("key")),
            ("formal_parameters", None),
            ("arrow_function", Some("parameter")),
            ("assignment_pattern", Some("left")),
            ("catch_clause", Some("parameter")),
            ("for_in_statement", Some("left")),
        ],
        scopes: &[
            "function_declaration",
            "generator_function_declaration",
            "function_expression",
            "arrow_function",
            "method_definition",
        ],
        reserved: &["constructor", "arguments", "undefined", "eval", "prototype"],
        ..NO_NAMES
    },
    optional_terminators: &[";"],
    extensions: &[],
    extension_words: &[],
    ..STATEMENTS_AND_EXPRESSIONS
};

/// Java: one namespace for types, methods, fields and variables.
pub const JAVA: Kinds = Kinds {
    names: Names {
        kinds: &["identifier", "type_identifier"],
        named: &[
            "variable_declarator",
            "method_declaration",
            "constructor_declaration",
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "enum_constant",
            "formal_parameter",
            "catch_formal_parameter",
        ],
        declared_at: &[
            ("type_parameter", None),
            ("inferred_parameters", None),
            ("lambda_expression", Some("parameters")),
        ],
        scopes: &[
            "method_declaration",
            "constructor_declaration",
            "lambda_expression",
        ],
        reserved: &["main", "var", "record", "yield"],
        ..NO_NAMES
    },
    // No plain type (`int` would not do for a class), but modifiers may go.
    types: Types {
        modifiers: Some("modifiers"),
        ..NO_TYPES
    },
    ..STATEMENTS_AND_EXPRESSIONS
};
