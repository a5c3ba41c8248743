//! `node-types.json` as Rust data: supertypes, fields and children of every node kind.

use serde::Deserialize;
use std::collections::{HashMap, HashSet};

/// A node kind as named in `node-types.json`: named nodes (`identifier`) or anonymous tokens (`";"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
pub struct TypeRef {
    #[serde(rename = "type")]
    pub kind: String,
    pub named: bool,
}

/// One place children go: a field, or the unnamed children of a kind.
#[derive(Clone, Debug, Deserialize)]
pub struct ChildSlot {
    pub multiple: bool,
    pub required: bool,
    pub types: Vec<TypeRef>,
}

/// What the grammar says of one named kind.
#[derive(Clone, Debug, Default)]
pub struct KindInfo {
    /// Fields in the order `node-types.json` lists them.
    pub fields: Vec<(String, ChildSlot)>,
    /// Children that are in no field.
    pub children: Option<ChildSlot>,
    /// For a supertype, its direct subtypes.
    pub subtypes: Vec<TypeRef>,
}

impl KindInfo {
    pub fn field(&self, name: &str) -> Option<&ChildSlot> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The slot a child sits in: its field's, or the unnamed children's.
    pub fn slot(&self, field: Option<&str>) -> Option<&ChildSlot> {
        match field {
            Some(f) => self.field(f),
            None => self.children.as_ref(),
        }
    }
}

#[derive(Deserialize)]
struct RawEntry {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
    #[serde(default)]
    fields: HashMap<String, ChildSlot>,
    children: Option<ChildSlot>,
    #[serde(default)]
    subtypes: Vec<TypeRef>,
}

/// All of a grammar's node-type metadata.
#[derive(Debug, Default)]
pub struct NodeTypes {
    kinds: HashMap<String, KindInfo>,
    /// For every kind, the supertypes that contain it, directly or through other supertypes.
    supertypes_of: HashMap<String, HashSet<String>>,
}

impl NodeTypes {
    pub fn from_json(json: &str) -> Result<NodeTypes, serde_json::Error> {
        let raw: Vec<RawEntry> = serde_json::from_str(json)?;
        let mut kinds = HashMap::new();
        for entry in raw.into_iter().filter(|e| e.named) {
            let mut fields: Vec<(String, ChildSlot)> = entry.fields.into_iter().collect();
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            kinds.insert(
                entry.kind,
                KindInfo {
                    fields,
                    children: entry.children,
                    subtypes: entry.subtypes,
                },
            );
        }
        let mut supertypes_of: HashMap<String, HashSet<String>> = HashMap::new();
        for (sup, info) in &kinds {
            let mut stack: Vec<&TypeRef> = info.subtypes.iter().collect();
            let mut seen = HashSet::new();
            while let Some(sub) = stack.pop() {
                if !seen.insert(&sub.kind) {
                    continue;
                }
                supertypes_of
                    .entry(sub.kind.clone())
                    .or_default()
                    .insert(sup.clone());
                if let Some(inner) = kinds.get(&sub.kind) {
                    stack.extend(inner.subtypes.iter());
                }
            }
        }
        Ok(NodeTypes {
            kinds,
            supertypes_of,
        })
    }

    pub fn kind(&self, kind: &str) -> Option<&KindInfo> {
        self.kinds.get(kind)
    }

    pub fn is_supertype(&self, kind: &str) -> bool {
        self.kinds.get(kind).is_some_and(|k| !k.subtypes.is_empty())
    }

    /// Supertypes that contain `kind`, directly or transitively.
    pub fn supertypes(&self, kind: &str) -> impl Iterator<Item = &str> {
        self.supertypes_of
            .get(kind)
            .into_iter()
            .flatten()
            .map(|s| s.as_str())
    }

    /// Whether a node of kind `kind` (named or not) may stand where `types` are allowed.
    pub fn accepts(&self, types: &[TypeRef], kind: &str, named: bool) -> bool {
        types.iter().any(|t| {
            (t.kind == kind && t.named == named)
                || (named
                    && self
                        .supertypes_of
                        .get(kind)
                        .is_some_and(|s| s.contains(&t.kind)))
        })
    }

    pub fn kind_names(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().map(|k| k.as_str())
    }
}

#[cfg(test)]
mod tests {
    use crate::Lang;

    #[test]
    fn every_grammar_has_metadata() {
        for lang in Lang::ALL {
            let nt = lang.node_types();
            assert!(nt.kind_names().count() > 50, "{lang} has few kinds");
        }
    }

    #[test]
    fn c_supertypes_and_fields() {
        let nt = Lang::C.node_types();
        assert!(nt.is_supertype("statement"));
        assert!(nt.supertypes("if_statement").any(|s| s == "statement"));
        let if_stmt = nt.kind("if_statement").unwrap();
        let alt = if_stmt.field("alternative").unwrap();
        assert!(!alt.required && !alt.multiple);
        let cond = if_stmt.field("condition").unwrap();
        assert!(cond.required);
        let body = nt
            .kind("compound_statement")
            .unwrap()
            .children
            .as_ref()
            .unwrap();
        assert!(body.multiple && !body.required);
        assert!(nt.accepts(&body.types, "return_statement", true));
        assert!(!nt.accepts(&body.types, "identifier", true));
    }
}
