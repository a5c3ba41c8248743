//! What the rewrites need to know of a language: which node kinds are typedefs, function
//! definitions, calls, array declarators, subscripts, initialised declarators, literals,
//! statements and expressions. A rewrite runs only where its kinds exist, so a language
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
}

/// C, and C++, whose grammar extends C's.
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
};

/// Rust, JavaScript and Java: so far only statements and expressions become trivial ones.
pub const STATEMENTS_AND_EXPRESSIONS: Kinds = Kinds {
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
};
