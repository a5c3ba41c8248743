//! JavaScript: how a file is recognised, and every node kind of tree-sitter-javascript that
//! the passes, the witness rules and the layout look for.

use crate::kinds::*;

/// JavaScript: one namespace for variables and properties.
pub const KINDS: Kinds = Kinds {
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
        function_declarations: &["function_declaration"],
        ..NO_NAMES
    },
    optional_terminators: &[";"],
    extensions: &[],
    extension_words: &[],
    string_text: &["string_fragment"],
    links: Some(Links::Import),
    variables: Variables {
        // Functions of every form: their parameters are theirs.
        scopes: &[
            "program",
            "statement_block",
            "function_declaration",
            "generator_function_declaration",
            "function_expression",
            "generator_function",
            "arrow_function",
            "method_definition",
            "class_body",
            "for_statement",
        ],
        functions: &["function_declaration", "arrow_function"],
        declarations: &["variable_declarator"],
        bare_parameters: Some("formal_parameters"),
        wrappers: &["variable_declarator"],
        not_uses_under: &["formal_parameters", "labeled_statement"],
        typed: false,
        ..NO_VARIABLES
    },
    witness: Witness {
        assignments: &["assignment_expression", "augmented_assignment_expression"],
        update: Some("update_expression"),
        integers: &["number"],
        literal_values: &["number"],
        calls: &["call_expression"],
        arguments: &["arguments"],
        oracles: &["console.log"],
        initialized: &["variable_declarator"],
        guards: &[
            "if_statement",
            "else_clause",
            "while_statement",
            "do_statement",
            "for_statement",
            "for_in_statement",
        ],
        else_clause: Some("else_clause"),
        if_statement: Some("if_statement"),
        blocks: &["statement_block"],
        ..NO_WITNESS
    },
    layout: Layout {
        inline_braces: &[
            "array_pattern",
            "assignment_pattern",
            "object",
            "object_assignment_pattern",
            "object_pattern",
            "pair_pattern",
            "regex_pattern",
            "rest_pattern",
            "shorthand_property_identifier_pattern",
            "template_substitution",
        ],
        prefixes: &["unary_expression"],
        glued: &[
            "string",
            "string_fragment",
            "template_string",
            "template_substitution",
        ],
        do_loops: &["do_statement"],
        attributes: &["import_attribute", "jsx_attribute"],
        updates: &["update_expression"],
        angle_brackets: &["template_string", "template_substitution"],
        spaced_colons: &["ternary_expression"],
        keywords_before_paren: &["if", "for", "while", "switch", "return", "catch"],
        keep_newlines: true,
        ..NO_LAYOUT
    },
    detect: Detect {
        extensions: &["js", "mjs", "cjs", "jsx"],
        clues: &[
            ("function ", 3),
            ("const ", 2),
            ("=> ", 2),
            ("console.", 2),
            ("let ", 1),
            ("===", 2),
        ],
        base: 0,
    },
    ..STATEMENTS_AND_EXPRESSIONS
};
