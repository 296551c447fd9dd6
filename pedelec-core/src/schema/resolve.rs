//! A schema naming derived types ([`Named`](super::node::Named)) as the wire form sees it:
//! each type inlined where it is used, and, inside the types of a cycle (a type that
//! contains itself, or types that contain each other), `{"$ref": "#/$defs/<name>"}` for
//! every type of that cycle, each with its `$defs` entry where the cycle is entered.
//!
//! Built once, at run time, where a schema leaves the program (serialized, compiled for
//! validation, checked): every reader after it sees plain nodes, with `$ref`s and `$defs`
//! only where a type contains itself. Never on the call path: a session compiles its
//! schemas when it is built.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Serialize, Serializer};

use super::node::{AdditionalProperties, Def, Named, SchemaNode, SchemaRef, serialize_root};

impl SchemaNode {
    /// The schema as its wire form describes it: every type it names (see
    /// [`SchemaNode::named`]) inlined, with `$ref`s where a type is met again inside
    /// itself and the `$defs` entries of every type of such a cycle. Borrowed when the
    /// schema names no type.
    #[must_use]
    pub fn resolved(&self) -> Cow<'_, SchemaNode> {
        if !names_any(self) {
            return Cow::Borrowed(self);
        }
        let mut graph = Graph::default();
        graph.visit(self, None);
        graph.close();
        Cow::Owned(graph.emit(self, None))
    }
}

impl Serialize for SchemaNode {
    /// The wire form: standard JSON Schema keywords only, `properties` in declaration order,
    /// and, when the schema holds a recursive type, its `$defs` last.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_root(&self.resolved(), serializer)
    }
}

/// Whether a node of the tree rooted at `node` names a type.
fn names_any(node: &SchemaNode) -> bool {
    node.named.is_some()
        || children(node).any(names_any)
        || node.defs().iter().any(|d| names_any(d.schema()))
}

/// The child nodes of `node` (not its `$defs`).
fn children(node: &SchemaNode) -> impl Iterator<Item = &SchemaNode> {
    let values = match &node.additional_properties {
        Some(AdditionalProperties::Schema(values)) => Some(&**values),
        _ => None,
    };
    node.items
        .as_deref()
        .into_iter()
        .chain(
            node.properties
                .iter()
                .flat_map(|p| p.iter().map(|p| &p.schema)),
        )
        .chain(values)
        .chain(node.one_of.iter().flat_map(|b| b.iter()))
}

/// One type named in the schema.
struct Type {
    named: Named,
    /// The types its body names (outside other types' bodies), each once.
    next: Vec<usize>,
    /// The types reachable from it (itself when it is on a cycle).
    reach: Vec<bool>,
}

/// The types a schema names and which contain which.
#[derive(Default)]
struct Graph {
    types: Vec<Type>,
    /// A type by its body's address.
    index: HashMap<usize, usize>,
}

impl Graph {
    /// Adds the types named in the tree rooted at `node` (a body of type `from`).
    fn visit(&mut self, node: &SchemaNode, from: Option<usize>) {
        if let Some(named) = node.named {
            let key = named.body as usize;
            let (id, new) = match self.index.get(&key) {
                Some(&id) => (id, false),
                None => {
                    let id = self.types.len();
                    self.types.push(Type {
                        named,
                        next: Vec::new(),
                        reach: Vec::new(),
                    });
                    self.index.insert(key, id);
                    (id, true)
                }
            };
            if let Some(from) = from
                && !self.types[from].next.contains(&id)
            {
                self.types[from].next.push(id);
            }
            if new {
                self.visit(named.body(), Some(id));
            }
            return;
        }
        for child in children(node) {
            self.visit(child, from);
        }
        for def in node.defs() {
            self.visit(def.schema(), from);
        }
    }

    /// Computes what each type reaches.
    fn close(&mut self) {
        let n = self.types.len();
        for start in 0..n {
            let mut reach = vec![false; n];
            let mut stack = self.types[start].next.clone();
            while let Some(t) = stack.pop() {
                if !reach[t] {
                    reach[t] = true;
                    stack.extend(&self.types[t].next);
                }
            }
            self.types[start].reach = reach;
        }
    }

    fn cyclic(&self, t: usize) -> bool {
        self.types[t].reach[t]
    }

    /// Whether `a` and `b` are on one cycle.
    fn together(&self, a: usize, b: usize) -> bool {
        self.types[a].reach[b] && self.types[b].reach[a]
    }

    /// The types of `t`'s cycle, `t` first, then in the order its body meets them.
    fn cycle(&self, t: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            if !out.contains(&u) {
                out.push(u);
                stack.extend(
                    self.types[u]
                        .next
                        .iter()
                        .rev()
                        .filter(|&&v| self.together(t, v)),
                );
            }
        }
        out
    }

    /// `node` as the wire form sees it, inside the cycle of type `inside` (if any).
    fn emit(&self, node: &SchemaNode, inside: Option<usize>) -> SchemaNode {
        if let Some(named) = node.named {
            let t = self.index[&(named.body as usize)];
            let mut out = match inside {
                Some(c) if self.cyclic(t) && self.together(c, t) => {
                    SchemaNode::reference(named.name())
                }
                _ if self.cyclic(t) => {
                    let mut body = self.emit(named.body(), Some(t));
                    // After the entries the body brings itself (a hand-written schema's).
                    let own = body.defs.take().map(Cow::into_owned).unwrap_or_default();
                    let defs: Vec<Def> = self
                        .cycle(t)
                        .into_iter()
                        .map(|u| {
                            let named = self.types[u].named;
                            Def {
                                name: Cow::Borrowed(named.name()),
                                schema: SchemaRef::Owned(Box::new(
                                    self.emit(named.body(), Some(t)),
                                )),
                            }
                        })
                        .chain(own)
                        .collect();
                    body.defs = Some(Cow::Owned(defs));
                    body
                }
                _ => self.emit(named.body(), inside),
            };
            if node.description.is_some() {
                out.description.clone_from(&node.description);
            }
            return out;
        }
        let mut out = node.clone();
        let owned = |n: &SchemaNode| SchemaRef::Owned(Box::new(self.emit(n, inside)));
        if let Some(items) = &node.items {
            out.items = Some(owned(items));
        }
        if let Some(props) = &node.properties {
            let mut props = props.to_vec();
            for p in &mut props {
                p.schema = self.emit(&p.schema, inside);
            }
            out.properties = Some(Cow::Owned(props));
        }
        if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties {
            out.additional_properties = Some(AdditionalProperties::Schema(owned(values)));
        }
        if let Some(branches) = &node.one_of {
            let branches = branches.iter().map(|b| self.emit(b, inside)).collect();
            out.one_of = Some(Cow::Owned(branches));
        }
        if let Some(defs) = &node.defs {
            let defs = defs
                .iter()
                .map(|d| Def {
                    name: d.name.clone(),
                    schema: owned(d.schema()),
                })
                .collect();
            out.defs = Some(Cow::Owned(defs));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::node::Property;
    use super::super::typescript::render;
    use super::*;

    // `Folder { files: Vec<File> }`, `File { parent: Option<Folder> }`, as the derive
    // writes them: each body a `static`, each schema naming it.
    const FOLDER: SchemaNode = SchemaNode::named("Folder", &FOLDER_BODY);
    const FILE: SchemaNode = SchemaNode::named("File", &FILE_BODY);
    static FOLDER_BODY: SchemaNode = SchemaNode::object(
        const {
            &[Property::new(
                "files",
                SchemaNode::array(const { &FILE }),
                true,
            )]
        },
    )
    .closed();
    static FILE_BODY: SchemaNode =
        SchemaNode::object(const { &[Property::new("parent", FILE_PARENT, false)] }).closed();
    const FILE_PARENT: SchemaNode = FOLDER.with_description("The folder it links to.");
    static ARGS_BODY: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("root", FOLDER, true),
                Property::new("n", SchemaNode::integer(), true),
            ]
        },
    )
    .closed();
    const ARGS: SchemaNode = SchemaNode::named("Args", &ARGS_BODY);

    #[test]
    fn every_type_of_a_cycle_gets_its_entry_where_the_cycle_is_entered() {
        let folder = json!({
            "type": "object",
            "properties": {"files": {"type": "array", "items": {"$ref": "#/$defs/File"}}},
            "required": ["files"],
            "additionalProperties": false
        });
        let file = json!({
            "type": "object",
            "properties": {"parent": {"$ref": "#/$defs/Folder", "description": "The folder it links to."}},
            "additionalProperties": false
        });
        let args = ARGS.to_json();
        assert_eq!(args["properties"]["root"], folder);
        assert_eq!(args["$defs"], json!({"Folder": folder, "File": file}));
        assert_eq!(
            args["properties"]["n"],
            json!({"type": "integer"}),
            "a node naming no type is kept"
        );
        // Read back from JSON (its `$defs` at the root), it has the same wire form;
        // resolved once, nothing is named.
        assert_eq!(SchemaNode::from_json(&args).unwrap().to_json(), args);
        assert_eq!(SchemaNode::from_json(&FOLDER.to_json()).unwrap(), FOLDER);
        assert!(!names_any(&ARGS.resolved()));
        assert!(matches!(SchemaNode::integer().resolved(), Cow::Borrowed(_)));
    }

    #[test]
    fn const_readers_see_through_the_names_and_stop_at_a_cycle() {
        // Read at compile time: the root is an object, its form not flat.
        const ROOT: &SchemaNode = &ARGS;
        const { assert!(ROOT.is_object()) };
        const { assert!(!ROOT.is_flat_form()) };
        assert_eq!(
            render(&ARGS, None),
            "type Folder = {\n  files: {\n    /** The folder it links to. */\n    parent?: Folder;\n  }[];\n};\n\
             (args: {\n  root: {\n    files: {\n      /** The folder it links to. */\n      parent?: Folder;\n    }[];\n  };\n  n: number;\n})"
                .to_owned()
                + ": Promise<unknown>"
        );
        assert_eq!(super::super::mcp_header::problem(&ARGS), None);
        // A keyword on a named type applies to a copy of its body.
        const NAMED_STRING: SchemaNode = SchemaNode::named("Code", &CODE);
        static CODE: SchemaNode = SchemaNode::string();
        let limited = const { NAMED_STRING.with_max_length(3) };
        assert_eq!(limited.to_json(), json!({"type": "string", "maxLength": 3}));
    }
}
