//! Java: how a file is recognised, and every node kind of tree-sitter-java that the passes,
//! the witness rules and the layout look for.

use crate::kinds::*;

/// Java: one namespace for types, methods, fields and variables.
pub const KINDS: Kinds = Kinds {
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
        reserved: &["var", "record", "yield"],
        entry: &["main"],
        ..NO_NAMES
    },
    // No plain type (`int` would not do for a class), but modifiers may go.
    types: Types {
        modifiers: Some("modifiers"),
        ..NO_TYPES
    },
    field_declaration: Some("field_declaration"),
    string_text: &["string_fragment"],
    variables: Variables {
        scopes: &[
            "program",
            "block",
            "method_declaration",
            "class_body",
            "for_statement",
        ],
        functions: &["method_declaration"],
        // A field is a variable of its class.
        declarations: &["local_variable_declaration", "field_declaration"],
        parameters: &["formal_parameter"],
        wrappers: &["variable_declarator"],
        not_uses_under: &[
            "formal_parameters",
            "labeled_statement",
            "scoped_identifier",
        ],
        ..NO_VARIABLES
    },
    witness: Witness {
        update: Some("update_expression"),
        integers: &["decimal_integer_literal", "hex_integer_literal"],
        literal_values: &[
            "binary_integer_literal",
            "character_literal",
            "class_literal",
            "decimal_floating_point_literal",
            "decimal_integer_literal",
            "hex_floating_point_literal",
            "hex_integer_literal",
            "null_literal",
            "octal_integer_literal",
            "string_literal",
        ],
        calls: &["method_invocation"],
        arguments: &["argument_list"],
        oracles: &["System.out.println", "System.out.print"],
        declarations: &["local_variable_declaration"],
        initialized: &["variable_declarator"],
        guards: &[
            "if_statement",
            "while_statement",
            "do_statement",
            "for_statement",
            "enhanced_for_statement",
        ],
        if_statement: Some("if_statement"),
        blocks: &["block"],
        ..NO_WITNESS
    },
    layout: Layout {
        inline_braces: &[
            "array_initializer",
            "binary_integer_literal",
            "character_literal",
            "class_literal",
            "decimal_floating_point_literal",
            "decimal_integer_literal",
            "element_value_array_initializer",
            "hex_floating_point_literal",
            "hex_integer_literal",
            "null_literal",
            "octal_integer_literal",
            "record_pattern",
            "record_pattern_body",
            "record_pattern_component",
            "static_initializer",
            "string_literal",
            "type_pattern",
            "underscore_pattern",
        ],
        prefixes: &["method_reference", "unary_expression"],
        glued: &[
            "binary_integer_literal",
            "character_literal",
            "class_literal",
            "decimal_floating_point_literal",
            "decimal_integer_literal",
            "hex_floating_point_literal",
            "hex_integer_literal",
            "multiline_string_fragment",
            "null_literal",
            "octal_integer_literal",
            "string_fragment",
            "string_interpolation",
            "string_literal",
        ],
        do_loops: &["do_statement"],
        updates: &["update_expression"],
        angle_brackets: &["template_expression", "type_arguments"],
        access: &["array_access", "field_access"],
        spaced_colons: &["enhanced_for_statement", "ternary_expression"],
        keywords_before_paren: &[
            "if",
            "for",
            "while",
            "switch",
            "return",
            "catch",
            "synchronized",
        ],
        ..NO_LAYOUT
    },
    detect: Detect {
        extensions: &["java"],
        clues: &[
            ("public class ", 3),
            ("System.out", 2),
            ("import java.", 2),
            ("package ", 1),
            ("public static void main", 2),
        ],
        base: 0,
    },
    ..STATEMENTS_AND_EXPRESSIONS
};
