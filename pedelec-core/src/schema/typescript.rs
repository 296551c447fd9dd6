//! An argsSchema as a TypeScript type, for code mode (DESIGN §15): a program sees each tool
//! as a function `name(args: {…}): Promise<…>`, and a model reads that signature.
//!
//! One renderer, run when code mode is turned on (`code::api::functions`): microseconds a
//! tool, where rendering by `const` evaluation cost every build about 20 ms a tool, code mode
//! or not. It writes into an [`Out`]: first with no buffer, to measure, then into a buffer of
//! exactly that length (its `const fn`s are what remains of rendering at compile time; they
//! cost nothing at run time).
//!
//! The type is what a value must look like, not every bound: `minimum`, `pattern` and the
//! like are left to validation, whose error names the argument.

use super::node::{
    AdditionalProperties, Literal, Path, SchemaKind, SchemaNode, Step, branches, cow_slice, deref,
    properties, step, str_of, target,
};
use pedelec_rules::Number;

/// Where the renderer writes: a buffer, or nothing (it counts).
pub struct Out<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Out<'a> {
    /// Counts the bytes written, keeping none.
    #[must_use]
    pub const fn measure() -> Out<'static> {
        Out {
            buf: &mut [],
            len: 0,
        }
    }

    /// Writes into `buf`, which must be as long as what [`measure`](Self::measure) counted.
    pub const fn into(buf: &'a mut [u8]) -> Out<'a> {
        Out { buf, len: 0 }
    }

    /// How many bytes were written (or counted).
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    const fn byte(&mut self, b: u8) {
        if self.len < self.buf.len() {
            self.buf[self.len] = b;
        }
        self.len += 1;
    }

    const fn push(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            self.byte(bytes[i]);
            i += 1;
        }
    }

    /// `s` inside a `/** … */` comment, on one line: line breaks become spaces and `*/`
    /// cannot end the comment early.
    const fn comment_text(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        let mut space = false;
        let mut started = false;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\n' || b == b'\r' || b == b'\t' || b == b' ' {
                space = true;
            } else {
                if space && started {
                    self.byte(b' ');
                }
                space = false;
                started = true;
                if b == b'/' && i > 0 && bytes[i - 1] == b'*' {
                    self.byte(b'\\');
                }
                self.byte(b);
            }
            i += 1;
        }
    }

    /// `s` as a JSON (and JavaScript) string literal.
    const fn string_literal(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = s.as_bytes();
        self.byte(b'"');
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'"' => self.push("\\\""),
                b'\\' => self.push("\\\\"),
                b'\n' => self.push("\\n"),
                b'\r' => self.push("\\r"),
                b'\t' => self.push("\\t"),
                0..0x20 => {
                    self.push("\\u00");
                    self.byte(HEX[(b >> 4) as usize]);
                    self.byte(HEX[(b & 0xf) as usize]);
                }
                _ => self.byte(b),
            }
            i += 1;
        }
        self.byte(b'"');
    }

    const fn integer(&mut self, negative: bool, mut n: u64) {
        if negative {
            self.byte(b'-');
        }
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while count > 0 {
            count -= 1;
            self.byte(digits[count]);
        }
    }

    /// A property name: as written when it is an identifier, quoted otherwise.
    const fn key(&mut self, name: &str) {
        if is_identifier(name) {
            self.push(name);
        } else {
            self.string_literal(name);
        }
    }
}

/// Whether `name` can be written bare in JavaScript (ASCII identifiers only).
#[must_use]
pub const fn is_identifier(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$') {
            return false;
        }
        i += 1;
    }
    true
}

/// Writes a tool's signature after its name: `(args: {…}): Promise<…>` (`(): Promise<…>`
/// for a tool without arguments), with the type
/// declarations of its recursive types before it (`type Node = …;`, each on its own line).
/// `output` is the output schema's node, if the tool has one.
pub const fn signature(args: &SchemaNode, output: Option<&SchemaNode>, out: &mut Out<'_>) {
    write_signature(args, output, out, &mut Seen::new());
}

const fn write_signature(
    args: &SchemaNode,
    output: Option<&SchemaNode>,
    out: &mut Out<'_>,
    seen: &mut Seen,
) {
    let root = target(args);
    let closed_and_empty = properties(root).is_empty()
        && matches!(
            root.additional_properties,
            Some(AdditionalProperties::Bool(false))
        );
    if closed_and_empty {
        out.push("(");
    } else {
        out.push("(args: ");
        ts_type(args, 1, out, None, seen);
    }
    out.push("): Promise<");
    match output {
        Some(node) => ts_type(node, 1, out, None, seen),
        None => out.push("unknown"),
    }
    out.push(">");
}

/// The recursive types a signature refers to, in the order met (at most [`Seen::MAX`]; a
/// further one is declared each time it is met).
struct Seen {
    names: [&'static str; Seen::MAX],
    bodies: [Option<&'static SchemaNode>; Seen::MAX],
    len: usize,
}

impl Seen {
    const MAX: usize = 32;

    const fn new() -> Self {
        Seen {
            names: [""; Seen::MAX],
            bodies: [None; Seen::MAX],
            len: 0,
        }
    }

    /// Notes the type `name` (body `body`), once.
    const fn note(&mut self, name: &'static str, body: &'static SchemaNode) {
        let mut i = 0;
        while i < self.len {
            if pedelec_rules::str_eq(self.names[i], name) {
                return;
            }
            i += 1;
        }
        if self.len < Seen::MAX {
            self.names[self.len] = name;
            self.bodies[self.len] = Some(body);
            self.len += 1;
        }
    }
}

/// Writes the declarations of the types a signature refers to (`type Node = {…};`, one
/// per line): every `$defs` entry found in `args` and `output` (a resolved schema keeps them
/// where a cycle is entered, not only at the root), each name once, and each type met again
/// inside itself; nothing for the common schema without any.
pub fn declarations(args: &SchemaNode, output: Option<&SchemaNode>, out: &mut Out<'_>) {
    let mut declared = Vec::new();
    defs_of(args, out, &mut declared);
    if let Some(node) = output {
        defs_of(node, out, &mut declared);
    }
    let mut seen = Seen::new();
    write_signature(args, output, &mut Out::measure(), &mut seen);
    let mut i = 0;
    while i < seen.len {
        if let Some(body) = seen.bodies[i] {
            out.push("type ");
            out.push(seen.names[i]);
            out.push(" = ");
            let path = Path::inside(seen.names[i], body, None);
            ts_type(body, 1, out, Some(&path), &mut seen);
            out.push(";\n");
        }
        i += 1;
    }
}

/// Declares the `$defs` entries of the schema rooted at `node` (all of them, each name once),
/// skipping a name `declared` already holds.
fn defs_of<'a>(node: &'a SchemaNode, out: &mut Out<'_>, declared: &mut Vec<&'a str>) {
    for def in node.definitions() {
        let name = def.name();
        if !declared.contains(&name) {
            declared.push(name);
            out.push("type ");
            out.push(name);
            out.push(" = ");
            ts_type(def.schema(), 1, out, None, &mut Seen::new());
            out.push(";\n");
        }
    }
}

/// The TypeScript type of `node`; `depth` is the indentation of the members of an object.
const fn ts_type(
    node: &SchemaNode,
    depth: usize,
    out: &mut Out<'_>,
    path: Option<&Path<'_>>,
    seen: &mut Seen,
) {
    let here;
    let (node, path) = match step(node, path) {
        Step::Ref(name) => {
            if let Some(p) = Path::find(path, name) {
                seen.note(name, p.body());
            }
            out.push(name);
            return;
        }
        Step::Plain(node) => (node, path),
        Step::Enter(name, body) => {
            here = Path::inside(name, body, path);
            (body, Some(&here))
        }
    };
    if let Some(reference) = &node.reference {
        out.push(str_of(reference));
        return;
    }
    if let Some(values) = &node.enum_values {
        let values = cow_slice(values);
        if !values.is_empty() {
            let mut i = 0;
            while i < values.len() {
                if i > 0 {
                    out.push(" | ");
                }
                literal(&values[i], out);
                i += 1;
            }
            return;
        }
    }
    let one_of = branches(node);
    if !one_of.is_empty() {
        let mut i = 0;
        while i < one_of.len() {
            if i > 0 {
                out.push(" | ");
            }
            ts_type(&one_of[i], depth, out, path, seen);
            i += 1;
        }
        return;
    }
    match node.kind {
        Some(SchemaKind::String) => out.push("string"),
        Some(SchemaKind::Number | SchemaKind::Integer) => out.push("number"),
        Some(SchemaKind::Boolean) => out.push("boolean"),
        Some(SchemaKind::Array) => match &node.items {
            Some(items) => {
                let items = deref(items);
                let union = needs_parens(items, path);
                out.push(if union { "Array<" } else { "" });
                ts_type(items, depth, out, path, seen);
                out.push(if union { ">" } else { "[]" });
            }
            None => out.push("unknown[]"),
        },
        Some(SchemaKind::Object) => object(node, depth, out, path, seen),
        None => out.push("unknown"),
    }
}

/// Whether `T[]` would misread `node`'s type (a union).
const fn needs_parens(node: &SchemaNode, path: Option<&Path<'_>>) -> bool {
    let node = match step(node, path) {
        Step::Ref(_) => return false,
        Step::Plain(node) | Step::Enter(_, node) => node,
    };
    if node.reference.is_some() {
        return false;
    }
    if let Some(values) = &node.enum_values {
        return cow_slice(values).len() > 1;
    }
    branches(node).len() > 1
}

/// The description a property's comment shows: its own, or its type's where the type is
/// written out (not at a `$ref`).
const fn comment<'a>(node: &'a SchemaNode, path: Option<&Path<'_>>) -> Option<&'a str> {
    if let Some(d) = &node.description {
        return Some(str_of(d));
    }
    match step(node, path) {
        Step::Ref(_) | Step::Plain(_) => None,
        Step::Enter(_, body) => match &body.description {
            Some(d) => Some(str_of(d)),
            None => None,
        },
    }
}

const fn object(
    node: &SchemaNode,
    depth: usize,
    out: &mut Out<'_>,
    path: Option<&Path<'_>>,
    seen: &mut Seen,
) {
    let props = properties(node);
    let extra = &node.additional_properties;
    if props.is_empty() {
        match extra {
            Some(AdditionalProperties::Bool(false)) => out.push("{}"),
            Some(AdditionalProperties::Schema(schema)) => {
                out.push("{ [key: string]: ");
                ts_type(deref(schema), depth, out, path, seen);
                out.push(" }");
            }
            _ => out.push("{ [key: string]: unknown }"),
        }
        return;
    }
    out.push("{\n");
    let mut i = 0;
    while i < props.len() {
        let p = &props[i];
        if let Some(description) = comment(&p.schema, path) {
            indent(depth, out);
            out.push("/** ");
            out.comment_text(description);
            out.push(" */\n");
        }
        indent(depth, out);
        out.key(str_of(&p.name));
        out.push(if p.required { ": " } else { "?: " });
        ts_type(&p.schema, depth + 1, out, path, seen);
        out.push(";\n");
        i += 1;
    }
    match extra {
        Some(AdditionalProperties::Schema(schema)) => {
            indent(depth, out);
            out.push("[key: string]: ");
            ts_type(deref(schema), depth + 1, out, path, seen);
            out.push(";\n");
        }
        Some(AdditionalProperties::Bool(true)) => {
            indent(depth, out);
            out.push("[key: string]: unknown;\n");
        }
        _ => {}
    }
    indent(depth - 1, out);
    out.push("}");
}

const fn indent(depth: usize, out: &mut Out<'_>) {
    let mut i = 0;
    while i < depth {
        out.push("  ");
        i += 1;
    }
}

const fn literal(value: &Literal, out: &mut Out<'_>) {
    match value {
        Literal::Null => out.push("null"),
        Literal::Bool(true) => out.push("true"),
        Literal::Bool(false) => out.push("false"),
        Literal::Num(Number::Int(n)) => out.integer(*n < 0, n.unsigned_abs()),
        Literal::Num(Number::Uint(n)) => out.integer(false, *n),
        // A float's shortest decimal form is not `const`: its type says enough.
        Literal::Num(Number::Float(_)) => out.push("number"),
        Literal::Str(s) => out.string_literal(str_of(s)),
        Literal::Array(_) => out.push("unknown[]"),
        Literal::Object(_) => out.push("object"),
    }
}

/// A tool's signature: the declarations of its recursive types, then `(args: {…}):
/// Promise<…>`.
#[must_use]
pub fn render(args: &SchemaNode, output: Option<&SchemaNode>) -> String {
    let write = |out: &mut Out<'_>| {
        declarations(args, output, out);
        signature(args, output, out);
    };
    let mut counter = Out::measure();
    write(&mut counter);
    let mut buf = vec![0; counter.len()];
    write(&mut Out::into(&mut buf));
    String::from_utf8(buf).unwrap_or_default()
}
