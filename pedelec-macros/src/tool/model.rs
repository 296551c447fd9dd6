//! The validated model of one `#[tool]` function: what the expansion needs and nothing
//! else, borrowed from the parsed function. Built from the attribute keys and the
//! signature, recording every problem; when something is wrong, the model is still built,
//! with stand-ins, so the fallback expansion can keep the tool nameable.

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{FnArg, ItemFn, LitInt, LitStr, ReturnType, Type};

use super::attr::{Description, Hint, ToolAttr, name_message};
use crate::util::Errors;

/// One `#[tool]` function.
pub struct Tool<'a> {
    /// The function, emitted unchanged (it is the tool's inline handler).
    pub item: &'a ItemFn,
    /// The wire name.
    pub name: String,
    /// The description (a literal, or an expression checked by a generated `const`).
    pub description: Desc,
    /// `timeout_ms`, when set.
    pub timeout_ms: Option<LitInt>,
    /// `title`, when set.
    pub title: Option<LitStr>,
    /// The MCP hints set, in a fixed order.
    pub hints: Vec<Hint>,
    /// `scopes`, when set (never empty then).
    pub scopes: Vec<LitStr>,
    /// `max_concurrency`, when set.
    pub max_concurrency: Option<LitInt>,
    /// `icon`, when set.
    pub icon: Option<LitStr>,
    /// The `TaskSupport` variant, when not the default.
    pub task: Option<&'static str>,
    /// The `example`s, in order.
    pub examples: Vec<LitStr>,
    /// `defer`.
    pub defer: bool,
    /// `version`, when set.
    pub version: Option<LitInt>,
    /// `approval`, when set.
    pub approval: Option<super::attr::ApprovalAttr>,
    /// `exactly_once`.
    pub exactly_once: bool,
    /// `callers`, when set: `(direct, program)`.
    pub callers: Option<(bool, bool)>,
    /// How the tool is called; `None` when the signature is not a tool's (the fallback
    /// then emits a stub call).
    pub call: Option<Call<'a>>,
}

/// The description as the expansion emits it.
pub enum Desc {
    /// Known text (from the key or the doc comment); empty only in a fallback.
    Text(String),
    /// An expression the compiler evaluates (and a generated `const` checks).
    Expr(syn::Expr),
}

/// How to call the function.
pub struct Call<'a> {
    /// `async fn` (awaited in place) or plain `fn` (run on the blocking pool).
    pub is_async: bool,
    /// The argument struct's type, when there is one.
    pub args: Option<&'a Type>,
    /// Whether the function takes the `ToolCallContext` (always last).
    pub ctx: bool,
    /// The result.
    pub output: Output<'a>,
}

/// What the function returns.
pub enum Output<'a> {
    /// Nothing (`()`, serialized as `null`).
    Unit,
    /// A value: `T: Serialize`.
    Value(&'a Type),
    /// A `Result`-like type (a path whose last segment is `Result`): the success type is
    /// its first generic argument, or, when it has none (an alias such as
    /// `fmt::Result`), whatever `IntoToolResult` says.
    Result {
        /// The whole return type.
        ty: &'a Type,
        /// Its first generic argument.
        ok: Option<&'a Type>,
    },
}

impl<'a> Tool<'a> {
    /// Builds the model from the parsed attribute and function, recording problems.
    pub fn new(attr: ToolAttr, item: &'a ItemFn, errors: &mut Errors) -> Self {
        let fn_name = item.sig.ident.unraw().to_string();
        let name = match attr.name {
            Some(lit) => lit.value(),
            None if attr.name_given => fn_name.clone(),
            None => {
                if let Err(problem) = pedelec_rules::check_tool_name(&fn_name) {
                    errors.at(
                        &item.sig.ident,
                        format!(
                            "the function name `{fn_name}` is not a valid tool name: {}",
                            name_message(&problem, &fn_name, ("#[tool(name = ", ")]"))
                        ),
                    );
                }
                fn_name.clone()
            }
        };
        let description = match attr.description {
            Some(Description::Lit(lit)) => Desc::Text(lit.value()),
            Some(Description::Expr(expr)) => Desc::Expr(expr),
            None if attr.description_given => Desc::Text(String::new()),
            None => Desc::Text(doc_description(item, &fn_name, errors)),
        };
        Tool {
            item,
            name,
            description,
            timeout_ms: attr.timeout_ms,
            title: attr.title,
            hints: attr.hints,
            scopes: attr.scopes,
            max_concurrency: attr.max_concurrency,
            icon: attr.icon,
            task: attr.task,
            examples: attr.examples,
            defer: attr.defer,
            version: attr.version,
            approval: attr.approval,
            exactly_once: attr.exactly_once,
            callers: attr.callers,
            call: signature(item, errors),
        }
    }
}

/// The doc comment as the description, read like every doc comment pedelec reads (the
/// derive's `docs::description`: one implementation for tools, types and fields).
fn doc_description(item: &ItemFn, fn_name: &str, errors: &mut Errors) -> String {
    // A `#[doc = include_str!(…)]` cannot be read by a macro; the description would
    // silently lose it.
    let not_literal = item.attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv)
            if nv.path.is_ident("doc")
                && !matches!(
                    &nv.value,
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    })
                ) =>
        {
            Some(&nv.value)
        }
        _ => None,
    });
    let text = crate::derive::docs::description(&item.attrs).unwrap_or_default();
    if let Some(value) = not_literal {
        errors.at(
            value,
            "the doc comment of a `#[tool]` is its description, and this `#[doc = …]` is not a \
             string literal a macro can read; give the description with \
             `#[tool(description = …)]`",
        );
    } else if text.is_empty() {
        let has_doc = item.attrs.iter().any(|a| a.path().is_ident("doc"));
        let message = if has_doc {
            format!(
                "the doc comment of `{fn_name}` is empty, and it is the tool's description; \
                 explain what the tool does, its side effects and when to use it"
            )
        } else {
            format!(
                "the tool `{fn_name}` has no description; add a doc comment \
                 (`/// What the tool does, its side effects and when to use it.`) or \
                 `#[tool(description = \"…\")]`"
            )
        };
        errors.at(&item.sig.ident, message);
    }
    text
}

/// What a parameter is.
enum Param<'a> {
    Args(&'a Type),
    Ctx,
}

/// Reads the signature; `None` when it cannot be a tool's (each problem recorded).
fn signature<'a>(item: &'a ItemFn, errors: &mut Errors) -> Option<Call<'a>> {
    let sig = &item.sig;
    let mut ok = true;
    let mut fail = |errors: &mut Errors, tokens: &dyn ToTokens, message: &str| {
        errors.at(tokens, message);
        ok = false;
    };
    if !sig.generics.params.is_empty() {
        fail(
            errors,
            &sig.generics,
            "a `#[tool]` function cannot be generic: its argsSchema and result type must be \
             known; use concrete types",
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        fail(
            errors,
            where_clause,
            "a `#[tool]` function cannot have a `where` clause: its argsSchema and result \
             type must be known; use concrete types",
        );
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        fail(
            errors,
            unsafety,
            "a `#[tool]` function cannot be `unsafe`: nothing would uphold its safety \
             contract when a model calls it; make the function safe and keep the `unsafe` \
             block inside it",
        );
    }
    if let Some(variadic) = &sig.variadic {
        fail(
            errors,
            variadic,
            "a `#[tool]` function cannot be variadic: take an argument struct that \
             `#[derive(ToolArgs)]`",
        );
    }

    let mut params: Vec<Param<'a>> = Vec::new();
    let mut args_seen: Option<&Type> = None;
    for input in &sig.inputs {
        let pat_type = match input {
            FnArg::Receiver(receiver) => {
                fail(
                    errors,
                    &receiver.self_token,
                    "a `#[tool]` function cannot take `self`: make it a free function \
                     (outside the `impl` block), taking an argument struct and, optionally, \
                     the `ToolCallContext`",
                );
                continue;
            }
            FnArg::Typed(pat_type) => pat_type,
        };
        let ty = &*pat_type.ty;
        if is_ctx(ty) {
            if params.iter().any(|p| matches!(p, Param::Ctx)) {
                fail(
                    errors,
                    pat_type,
                    "a `#[tool]` function takes the `ToolCallContext` once; remove this \
                     parameter",
                );
            } else {
                params.push(Param::Ctx);
            }
            continue;
        }
        if let Type::Reference(reference) = ty
            && is_ctx(&reference.elem)
        {
            fail(
                errors,
                ty,
                "take the `ToolCallContext` by value: `ctx: ToolCallContext` (it is cheap to \
                 clone, and an `async` tool's future must own it)",
            );
            continue;
        }
        if params.iter().any(|p| matches!(p, Param::Ctx)) {
            fail(
                errors,
                pat_type,
                "the `ToolCallContext` parameter must come last: \
                 `fn tool(args: MyArgs, ctx: ToolCallContext)`",
            );
            continue;
        }
        if let Some(first) = args_seen {
            fail(
                errors,
                pat_type,
                &format!(
                    "a `#[tool]` function takes one argument struct (here `{}`); make this \
                     parameter a field of that struct",
                    first.to_token_stream()
                ),
            );
            continue;
        }
        if let Some(impl_trait) = find_impl_trait(ty) {
            fail(
                errors,
                impl_trait,
                "a `#[tool]` function cannot be generic: take a concrete argument struct that \
                 `#[derive(ToolArgs)]`",
            );
        }
        if let Type::Reference(_) = ty {
            fail(
                errors,
                ty,
                "take the argument struct by value: the arguments are deserialized for each \
                 call and owned by it",
            );
        }
        args_seen = Some(ty);
        params.push(Param::Args(ty));
    }

    let output = match &sig.output {
        ReturnType::Default => Output::Unit,
        ReturnType::Type(_, ty) => match &**ty {
            ty if let Some(impl_trait) = find_impl_trait(ty) => {
                fail(
                    errors,
                    impl_trait,
                    "a `#[tool]` function cannot return `impl Trait`: name the result type \
                     (it must implement `Serialize`)",
                );
                Output::Unit
            }
            Type::Tuple(tuple) if tuple.elems.is_empty() => Output::Unit,
            ty => result_ok(ty).map_or(Output::Value(ty), |ok| Output::Result { ty, ok }),
        },
    };

    ok.then(|| Call {
        is_async: sig.asyncness.is_some(),
        args: params.iter().find_map(|p| match p {
            Param::Args(ty) => Some(*ty),
            Param::Ctx => None,
        }),
        ctx: params.iter().any(|p| matches!(p, Param::Ctx)),
        output,
    })
}

/// The first `impl Trait` in `ty`, at any depth (`Vec<impl Serialize>`, …).
fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    struct Finder<'a>(Option<&'a syn::TypeImplTrait>);
    impl<'a> syn::visit::Visit<'a> for Finder<'a> {
        fn visit_type_impl_trait(&mut self, found: &'a syn::TypeImplTrait) {
            self.0.get_or_insert(found);
        }
    }
    let mut finder = Finder(None);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

/// `ToolCallContext`, by its path's last segment.
fn is_ctx(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "ToolCallContext" && s.arguments.is_empty()),
        Type::Paren(paren) => is_ctx(&paren.elem),
        _ => false,
    }
}

/// For a `Result`-like type (last path segment `Result`): `Some(first generic type
/// argument)`, or `Some(None)` when it has none.
#[allow(clippy::option_option)]
fn result_ok(ty: &Type) -> Option<Option<&Type>> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    Some(match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        }),
        _ => None,
    })
}
