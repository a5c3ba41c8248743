//! C++: how a file is recognised, and every node kind of tree-sitter-cpp that the passes,
//! the witness rules and the layout look for. Its grammar extends C's, and so does its table.

use super::c::{C_TYPES, KINDS as C};
use crate::kinds::*;

/// C++, whose grammar extends C's. Its names share one namespace (but labels): members are
/// used unqualified inside their class, and a class's name is its constructors'.
pub const KINDS: Kinds = Kinds {
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
        reserved: &["int", "char", "void", "bool", "float", "double", "auto"],
        imports: &["using_declaration"],
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
        class: Some(("class_specifier", "access_specifier", "public", "struct")),
        ..C_TYPES
    },
    witness: Witness {
        guards: &[
            "if_statement",
            "else_clause",
            "while_statement",
            "do_statement",
            "for_statement",
            "for_range_loop",
        ],
        literal_values: &[
            "char_literal",
            "compound_literal_expression",
            "initializer_list",
            "literal_suffix",
            "number_literal",
            "raw_string_literal",
            "string_literal",
            "user_defined_literal",
        ],
        ..C.witness
    },
    layout: Layout {
        inline_braces: &[
            "char_literal",
            "compound_literal_expression",
            "field_initializer",
            "field_initializer_list",
            "initializer_list",
            "initializer_pair",
            "lambda_capture_initializer",
            "literal_suffix",
            "number_literal",
            "raw_string_literal",
            "string_literal",
            "user_defined_literal",
        ],
        prefixes: &[
            "abstract_function_declarator",
            "abstract_pointer_declarator",
            "abstract_reference_declarator",
            "ms_pointer_modifier",
            "pointer_declarator",
            "pointer_expression",
            "pointer_type_declarator",
            "reference_declarator",
            "unary_expression",
        ],
        glued: &[
            "char_literal",
            "character",
            "compound_literal_expression",
            "concatenated_string",
            "literal_suffix",
            "number_literal",
            "raw_string_content",
            "raw_string_delimiter",
            "raw_string_literal",
            "string_content",
            "string_literal",
            "system_lib_string",
            "user_defined_literal",
        ],
        angle_brackets: &[
            "template_argument_list",
            "template_declaration",
            "template_function",
            "template_instantiation",
            "template_method",
            "template_parameter_list",
            "template_template_parameter_declaration",
            "template_type",
        ],
        access: &["access_specifier"],
        spaced_colons: &[
            "base_class_clause",
            "conditional_expression",
            "field_initializer_list",
            "for_range_loop",
        ],
        macros: &[],
        keywords_before_paren: &["if", "for", "while", "switch", "return", "catch"],
        ..C.layout
    },
    detect: Detect {
        extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "ii"],
        clues: &[
            ("template <", 3),
            ("template<", 3),
            ("std::", 2),
            ("namespace ", 2),
            ("class ", 1),
            ("#include <iostream>", 2),
        ],
        base: 0,
    },
    roots: Roots {
        containers: &["namespace"],
        // A braced list, a structured binding, typeid, a coroutine, `<=>`, aligned and
        // destroying `new`/`delete`, a range `for` over a type with free begin and end.
        implicit: &[
            "initializer_list",
            "tuple_size",
            "tuple_element",
            "get",
            "type_info",
            "coroutine_traits",
            "coroutine_handle",
            "strong_ordering",
            "weak_ordering",
            "partial_ordering",
            "align_val_t",
            "destroying_delete_t",
            "nothrow_t",
            "begin",
            "end",
        ],
    },
    // C++ compilers want every member's `;`.
    bare_last_field: None,
    ..C
};
