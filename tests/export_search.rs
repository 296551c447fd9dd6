//! Deferred tools in provider exports (DESIGN §12): golden exports of a composed, namespaced,
//! partly deferred skill set on every target in every `Search` mode, the first request of a
//! 500-tool catalog against its full export, and transcripts written from each provider's
//! documentation replayed through `call_provider` (search → the tool loaded → the tool
//! called → a validated result). Refresh the goldens with `UPDATE_EXPECT=1 cargo test
//! --test export_search` and review the diff.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use pedelec::context::Caller;
use pedelec::export::{Choice, Export, ExportOptions, Search, Target};
use pedelec::{CallOptions, Session, SkillsInput, ToolArgs, ToolDefinition, skills, tool};
use serde::Deserialize;
use serde_json::{Value, json};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/export/search");

static REFUND_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod billing {
    use super::{AtomicUsize, Deserialize, Ordering, ToolArgs, skills, tool};

    /// How many times `billing.refund_invoice` ran (each test that calls it checks its own
    /// increment under the lock).
    pub static REFUNDS: AtomicUsize = AtomicUsize::new(0);

    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct RefundArgs {
        /// The invoice to refund, like `INV-1042`.
        #[arg(pattern = "^INV-[0-9]+$")]
        invoice_id: String,
        /// How much to refund, in cents; the whole invoice when absent.
        #[arg(minimum = 1)]
        amount_cents: Option<u64>,
    }

    /// Refund an invoice, in full or in part.
    #[tool(defer, scopes = ["billing:write"])]
    pub fn refund_invoice(args: RefundArgs) -> String {
        REFUNDS.fetch_add(1, Ordering::SeqCst);
        match args.amount_cents {
            Some(cents) => format!("refunded {cents} cents of {}", args.invoice_id),
            None => format!("refunded {}", args.invoice_id),
        }
    }

    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct ListInvoicesArgs {
        /// The customer whose invoices to list.
        customer_id: String,
        /// At most this many, newest first.
        #[arg(minimum = 1, maximum = 50)]
        limit: u32,
    }

    /// List a customer's invoices, newest first.
    #[tool(defer)]
    pub fn list_invoices(args: ListInvoicesArgs) -> Vec<String> {
        (1..=args.limit.min(3))
            .map(|i| format!("INV-{i}0{}", args.customer_id.len()))
            .collect()
    }

    skills![
        namespace = "billing",
        guidance = "Invoices and refunds.",
        tools = [refund_invoice, list_invoices],
    ];
}

mod crm {
    use super::{Deserialize, ToolArgs, skills, tool};

    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct FindCustomerArgs {
        /// A name or an email address.
        query: String,
    }

    /// Find a customer by name or email.
    #[tool(defer)]
    pub fn find_customer(args: FindCustomerArgs) -> Vec<String> {
        vec![format!("cus_{}", args.query.len())]
    }

    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct AddNoteArgs {
        /// The customer.
        customer_id: String,
        /// The note.
        #[arg(min_length = 1)]
        text: String,
    }

    /// Add a note to a customer's record.
    #[tool]
    pub fn add_note(args: AddNoteArgs) -> bool {
        !args.text.is_empty() && !args.customer_id.is_empty()
    }

    skills![
        namespace = "crm",
        guidance = "Customers and deals.",
        tools = [find_customer, add_note],
    ];
}

#[derive(Debug, Deserialize, ToolArgs)]
struct PingArgs {}

/// Check that the back office answers.
#[tool]
fn ping(args: PingArgs) -> &'static str {
    let PingArgs {} = args;
    "pong"
}

// A composed, namespaced, partly deferred skill set.
skills![
    pub enum Office,
    guidance = "Back office: invoices, refunds and customers.",
    include = [billing::ToolName as Billing, crm::ToolName as Crm],
    tools = [ping],
];

use billing::REFUNDS;

fn session() -> Session<Office> {
    Session::builder(Office::skills()).create().unwrap()
}

fn clerk() -> CallOptions {
    CallOptions::new().caller(Caller::new("clerk").with_scopes(["billing:write"]))
}

const MODES: [Search; 3] = [Search::Off, Search::Provider, Search::Client];

fn mode_name(search: Search) -> &'static str {
    match search {
        Search::Off => "off",
        Search::Provider => "provider",
        _ => "client",
    }
}

fn export(target: Target, search: Search) -> Export<Office> {
    Office::export(target, ExportOptions::default().search(search)).unwrap()
}

#[test]
fn goldens_for_every_target_and_mode() {
    for target in Target::ALL {
        for search in MODES {
            let export = export(target, search);
            let mut text = serde_json::to_string_pretty(export.tools()).unwrap();
            text.push('\n');
            let path = format!("{GOLDEN}/{target}-{}.json", mode_name(search));
            expect_test::expect_file![path].assert_eq(&text);
        }
    }
}

#[test]
fn each_mode_lays_out_what_the_provider_documents() {
    // Off: every tool in full, as without deferral.
    let off = export(Target::OpenAiResponses, Search::Off);
    assert_eq!(off.search(), Search::Off);
    assert_eq!(off.tools().as_array().unwrap().len(), 5);
    assert!(off.tools().to_string().find("defer_loading").is_none());

    // OpenAI Responses, hosted: namespaces, deferred functions marked, `tool_search` added.
    let hosted = export(Target::OpenAiResponses, Search::Provider);
    let tools = hosted.tools().as_array().unwrap();
    let kinds: Vec<&str> = tools.iter().map(|t| t["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["namespace", "namespace", "function", "tool_search"]);
    assert_eq!(tools[0]["name"], "billing");
    assert_eq!(tools[0]["description"], "Invoices and refunds.");
    assert_eq!(tools[0]["tools"][0]["name"], "refund_invoice");
    assert_eq!(tools[0]["tools"][0]["defer_loading"], true);
    assert_eq!(tools[1]["tools"][1]["name"], "add_note");
    assert!(tools[1]["tools"][1].get("defer_loading").is_none());
    assert_eq!(tools[3], json!({"type": "tool_search"}));

    // OpenAI Responses, client: deferred functions left out; what to search is said.
    let client = export(Target::OpenAiResponses, Search::Client);
    let tools = client.tools().as_array().unwrap();
    assert_eq!(tools.len(), 3, "{tools:?}");
    let search = &tools[2];
    assert_eq!(search["type"], "tool_search");
    assert_eq!(search["execution"], "client");
    assert!(
        search["description"]
            .as_str()
            .unwrap()
            .contains("billing (Invoices and refunds.)"),
        "{search}"
    );

    // Anthropic: every tool sent, the deferred ones marked; the search tool by mode.
    let server = export(Target::Anthropic, Search::Provider);
    let tools = server.tools().as_array().unwrap();
    assert_eq!(tools.len(), 6);
    assert_eq!(
        tools[5],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    assert_eq!(tools[0]["name"], "billing_refund_invoice");
    assert_eq!(tools[0]["defer_loading"], true);
    let client = export(Target::Anthropic, Search::Client);
    assert_eq!(client.tools()[5]["name"], "search_tools");
    assert_eq!(client.tools()[5]["strict"], true);

    // Chat Completions and Gemini have no provider search: `Provider` is `Client`.
    for target in [
        Target::OpenAiChat,
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::Mcp,
    ] {
        let export = export(target, Search::Provider);
        assert_eq!(export.search(), Search::Client, "{target}");
        let text = export.tools().to_string();
        assert!(text.contains("search_tools"), "{target}");
        assert!(!text.contains("refund_invoice"), "{target}: {text}");
        assert!(text.contains("add_note"), "{target}");
    }
    assert!(
        export(Target::Mcp, Search::Client)
            .tools()
            .to_string()
            .contains("\"call_tool\"")
    );

    // A skill set without deferred tools (read from Core's manifest, which has no
    // deferral): nothing to search, every mode is `Off`.
    let manifest =
        SkillsInput::from_json(&serde_json::to_value(Office::manifest()).unwrap()).unwrap();
    for target in Target::ALL {
        let plain = manifest
            .export(target, ExportOptions::default().search(Search::Client))
            .unwrap();
        assert_eq!(plain.search(), Search::Off);
        assert_eq!(
            plain.tools(),
            manifest
                .export(target, ExportOptions::default())
                .unwrap()
                .tools()
        );
    }
}

#[test]
fn the_model_sees_less_before_a_search() {
    let hosted = export(Target::OpenAiResponses, Search::Provider);
    let seen = hosted.in_context();
    // A namespace of deferred functions shows its name and description only; a deferred
    // function would show its name and description; the others stay whole.
    assert_eq!(
        seen[0],
        json!({"type": "namespace", "name": "billing", "description": "Invoices and refunds."})
    );
    assert_eq!(seen[1]["tools"].as_array().unwrap().len(), 1);
    let anthropic = export(Target::Anthropic, Search::Provider);
    assert_eq!(anthropic.in_context().as_array().unwrap().len(), 3);
    let chat = export(Target::OpenAiChat, Search::Client);
    assert_eq!(&chat.in_context(), chat.tools());
}

#[test]
fn a_tool_choice_cannot_name_what_the_request_does_not_declare() {
    let export = export(Target::OpenAiResponses, Search::Client);
    assert!(
        export
            .tool_choice(&[Office::Ping], Choice::Required)
            .is_ok()
    );
    let deferred = export
        .tool_choice(
            &[Office::Billing(billing::ToolName::RefundInvoice)],
            Choice::Required,
        )
        .unwrap_err();
    assert!(
        deferred
            .to_string()
            .contains("`billing.refund_invoice` is deferred in this export"),
        "{deferred}"
    );
    let namespaced = export
        .tool_choice(&[Office::Crm(crm::ToolName::AddNote)], Choice::Auto)
        .unwrap_err();
    assert!(
        namespaced.to_string().contains("in a namespace"),
        "{namespaced}"
    );
    // Without search, every tool can be named.
    let off = Office::export(Target::OpenAiResponses, ExportOptions::default()).unwrap();
    assert!(
        off.tool_choice(
            &[Office::Billing(billing::ToolName::RefundInvoice)],
            Choice::Required
        )
        .is_ok()
    );
}

/// A generated catalog: `spaces` namespaces of ten tools each, every tool deferred but one
/// per namespace, with four documented arguments (the shape of a team's composed sets).
fn catalog(spaces: usize) -> SkillsInput {
    let mut tools = Vec::new();
    let verbs = [
        "get", "list", "create", "update", "delete", "search", "export", "import", "archive",
        "restore",
    ];
    for s in 0..spaces {
        for (v, verb) in verbs.iter().enumerate() {
            let schema = pedelec::ToolArgsSchema::from_json(&json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": format!("The id of the record in area {s}."), "minLength": 1},
                    "limit": {"type": "integer", "description": "At most this many results.", "minimum": 1, "maximum": 100},
                    "fields": {"type": "array", "items": {"type": "string"}, "description": "Which fields to return; every field when absent."},
                    "dry_run": {"type": "boolean", "description": "Check the request without applying it."}
                },
                "required": ["id"],
                "additionalProperties": false
            }))
            .unwrap();
            let name = format!("area{s}.{verb}_record");
            let description =
                format!("{verb} a record of business area {s}, with the fields asked for.");
            tools.push(ToolDefinition::new(name, description, schema).with_defer(v != 0));
        }
    }
    SkillsInput::new("A large generated catalog.", tools)
}

#[test]
fn the_first_request_of_500_tools_is_under_15_percent_of_the_full_export() {
    let skills = catalog(50);
    assert_eq!(skills.tools().len(), 500);
    // Lax: Anthropic's strict mode takes at most 20 strict tools in a request, which the
    // full export (and 50 namespaces' first tools) would pass.
    let lax = ExportOptions::default().strict(false);
    let mut report = String::new();
    for target in Target::ALL {
        // The full export: every definition in the target's form (in requests of 50
        // tools: OpenAI takes at most 128 in one).
        let full: usize = skills
            .tools()
            .chunks(50)
            .map(|chunk| {
                let part = SkillsInput::new("A large generated catalog.", chunk.to_vec());
                let export = part.export(target, lax).unwrap();
                serde_json::to_vec(export.tools()).unwrap().len()
            })
            .sum();
        for search in [Search::Provider, Search::Client] {
            let export = skills.export(target, lax.search(search)).unwrap();
            let first = serde_json::to_vec(&export.in_context()).unwrap().len();
            #[allow(clippy::cast_precision_loss, reason = "byte counts")]
            let share = first as f64 / full as f64;
            writeln!(
                report,
                "{target:<16} {:<9} {first:>7} of {full:>7} bytes ({:.1}%)",
                mode_name(search),
                share * 100.0
            )
            .unwrap();
            assert!(share <= 0.15, "{target} {search:?}: {share}\n{report}");
        }
    }
    println!("{report}");
}

/// One transcript: each step is what the model sent (written from the provider's
/// documentation) and what `call_provider` answered.
#[derive(Default)]
struct Transcript(String);

impl Transcript {
    fn step(&mut self, model: &Value, answer: &Value) {
        writeln!(self.0, "model:  {model}").unwrap();
        writeln!(self.0, "answer: {answer}").unwrap();
    }

    fn note(&mut self, text: &str) {
        writeln!(self.0, "# {text}").unwrap();
    }

    fn check(&self, name: &str) {
        let path = format!("{GOLDEN}/transcripts/{name}.txt");
        expect_test::expect_file![path].assert_eq(&self.0);
    }
}

/// The result text of an answer (the `{"ok": …}` object) in each target's form.
fn result_of(target: Target, answer: &Value) -> Value {
    let text = match target {
        Target::OpenAiChat | Target::Anthropic => answer["content"].as_str(),
        Target::OpenAiResponses => answer["output"].as_str(),
        Target::Gemini | Target::GeminiOpenApi => {
            return answer["functionResponse"]["response"].clone();
        }
        Target::Mcp => answer["content"][0]["text"].as_str(),
    };
    serde_json::from_str(text.unwrap()).unwrap()
}

#[tokio::test]
async fn openai_responses_hosted_search_then_a_namespaced_call() {
    let _lock = REFUND_LOCK.lock().await;
    let session = session();
    let export = export(Target::OpenAiResponses, Search::Provider);
    let mut t = Transcript::default();
    t.note("the hosted search runs at OpenAI: its items need no answer");
    let searched = json!({"type": "tool_search_call", "id": "ts_1", "call_id": null, "execution": "server", "status": "completed", "arguments": {"query": "refund invoice"}});
    let loaded = json!({"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed", "tools": [{"type": "namespace", "name": "billing", "description": "Invoices and refunds.", "tools": [export.tools()[0]["tools"][0]]}]});
    assert_eq!(export.loaded_by(&loaded), ["billing.refund_invoice"]);
    t.step(&searched, &Value::Null);
    t.note("the loaded function is called in its namespace");
    let before = REFUNDS.load(Ordering::SeqCst);
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": "billing", "name": "refund_invoice", "arguments": "{\"invoice_id\":\"INV-1042\",\"amount_cents\":null}"});
    let answer = session.call_provider_with(&export, &call, clerk()).await;
    t.step(&call, &answer);
    assert_eq!(
        result_of(Target::OpenAiResponses, &answer),
        json!({"ok": true, "value": "refunded INV-1042"})
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
    t.note("arguments the schema refuses: the handler does not run");
    let bad = json!({"type": "function_call", "call_id": "call_2", "namespace": "billing", "name": "refund_invoice", "arguments": "{\"invoice_id\":\"1042\",\"amount_cents\":null}"});
    let answer = session.call_provider_with(&export, &bad, clerk()).await;
    t.step(&bad, &answer);
    assert_eq!(
        result_of(Target::OpenAiResponses, &answer)["error"]["code"],
        "TOOL_ARGS_INVALID"
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
    // The same through the text route.
    let raw = session
        .call_provider_raw_with(&export, &call.to_string(), clerk())
        .await;
    assert_eq!(
        serde_json::from_str::<Value>(&raw).unwrap(),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "{\"ok\":true,\"value\":\"refunded INV-1042\"}"})
    );
    t.check("openai-responses-hosted");
}

#[tokio::test]
async fn openai_responses_client_search_loads_then_calls() {
    let _lock = REFUND_LOCK.lock().await;
    let session = session();
    let export = export(Target::OpenAiResponses, Search::Client);
    let mut t = Transcript::default();
    t.note("the model asks the client to search");
    let search = json!({"type": "tool_search_call", "id": "ts_1", "call_id": "call_s1", "execution": "client", "status": "completed", "arguments": {"query": "refund a customer's invoice"}});
    let answer = session.call_provider_with(&export, &search, clerk()).await;
    t.step(&search, &answer);
    assert_eq!(answer["type"], "tool_search_output");
    assert_eq!(answer["call_id"], "call_s1");
    assert_eq!(answer["tools"][0]["type"], "namespace");
    assert_eq!(answer["tools"][0]["tools"][0]["name"], "refund_invoice");
    assert_eq!(export.loaded_by(&answer)[0], "billing.refund_invoice");
    t.note("the loaded function is called");
    let before = REFUNDS.load(Ordering::SeqCst);
    let call = json!({"type": "function_call", "call_id": "call_2", "namespace": "billing", "name": "refund_invoice", "arguments": "{\"invoice_id\":\"INV-7\",\"amount_cents\":250}"});
    let answer = session.call_provider_with(&export, &call, clerk()).await;
    t.step(&call, &answer);
    assert_eq!(
        result_of(Target::OpenAiResponses, &answer)["value"],
        "refunded 250 cents of INV-7"
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
    t.check("openai-responses-client");

    // A caller without `billing:write` does not find the refund.
    let anonymous = session.call_provider(&export, &search).await;
    assert!(
        !export
            .loaded_by(&anonymous)
            .contains(&"billing.refund_invoice".to_owned()),
        "{anonymous}"
    );
}

#[tokio::test]
async fn anthropic_server_search_then_the_call() {
    let _lock = REFUND_LOCK.lock().await;
    let session = session();
    let export = export(Target::Anthropic, Search::Provider);
    let mut t = Transcript::default();
    t.note("the BM25 search runs at Anthropic (server_tool_use, tool_search_tool_result)");
    let searched = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "refund invoice"}});
    let result = json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "billing_refund_invoice"}]}});
    t.step(&searched, &Value::Null);
    t.step(&result, &Value::Null);
    let before = REFUNDS.load(Ordering::SeqCst);
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "billing_refund_invoice", "input": {"invoice_id": "INV-9"}});
    let answer = session.call_provider_with(&export, &call, clerk()).await;
    t.step(&call, &answer);
    assert_eq!(
        result_of(Target::Anthropic, &answer)["value"],
        "refunded INV-9"
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
    t.check("anthropic-server");
}

#[tokio::test]
async fn anthropic_client_search_answers_tool_references() {
    let _lock = REFUND_LOCK.lock().await;
    let session = session();
    let export = export(Target::Anthropic, Search::Client);
    let mut t = Transcript::default();
    let search = json!({"type": "tool_use", "id": "toolu_s", "name": "search_tools", "input": {"query": "list the invoices of a customer"}});
    let answer = session.call_provider_with(&export, &search, clerk()).await;
    t.step(&search, &answer);
    assert_eq!(answer["type"], "tool_result");
    assert_eq!(
        answer["content"][0],
        json!({"type": "tool_reference", "tool_name": "billing_list_invoices"})
    );
    assert_eq!(export.loaded_by(&answer)[0], "billing.list_invoices");
    let call = json!({"type": "tool_use", "id": "toolu_2", "name": "billing_list_invoices", "input": {"customer_id": "cus_1", "limit": 2}});
    let answer = session.call_provider_with(&export, &call, clerk()).await;
    t.step(&call, &answer);
    assert_eq!(
        result_of(Target::Anthropic, &answer)["value"],
        json!(["INV-105", "INV-205"])
    );
    let bad =
        json!({"type": "tool_use", "id": "toolu_3", "name": "search_tools", "input": {"q": "x"}});
    let answer = session.call_provider_with(&export, &bad, clerk()).await;
    t.step(&bad, &answer);
    assert_eq!(answer["is_error"], true);
    t.check("anthropic-client");
}

#[tokio::test]
async fn chat_and_gemini_search_tools_then_declare_and_call() {
    let _lock = REFUND_LOCK.lock().await;
    let session = session();
    for target in [Target::OpenAiChat, Target::Gemini, Target::GeminiOpenApi] {
        let export = export(target, Search::Client);
        let mut t = Transcript::default();
        let (search, call) = match target {
            Target::OpenAiChat => (
                json!({"id": "call_s", "type": "function", "function": {"name": "search_tools", "arguments": "{\"query\":\"find a customer by email\"}"}}),
                json!({"id": "call_c", "type": "function", "function": {"name": "crm_find_customer", "arguments": "{\"query\":\"ada@example.com\"}"}}),
            ),
            // Gemini takes dots in names.
            _ => (
                json!({"functionCall": {"name": "search_tools", "args": {"query": "find a customer by email"}}}),
                json!({"functionCall": {"name": "crm.find_customer", "args": {"query": "ada@example.com"}}}),
            ),
        };
        let provider_name = export.provider_name("crm.find_customer").unwrap();
        let answer = session.call_provider_with(&export, &search, clerk()).await;
        t.step(&search, &answer);
        let loaded = export.loaded_by(&answer);
        assert_eq!(loaded[0], "crm.find_customer", "{target}: {answer}");
        // The next request declares what was loaded.
        let before = export.tools().to_string();
        let next = export.tools_with(&loaded);
        assert!(!before.contains(provider_name), "{target}");
        assert!(next.to_string().contains(provider_name), "{target}");
        writeln!(t.0, "tools:  {next}").unwrap();
        let answer = session.call_provider_with(&export, &call, clerk()).await;
        t.step(&call, &answer);
        assert_eq!(
            result_of(target, &answer)["value"],
            json!(["cus_15"]),
            "{target}"
        );
        t.check(&format!("{target}-client"));
    }
}

#[tokio::test]
async fn mcp_export_searches_and_calls_through_call_tool() {
    let session = session();
    let export = export(Target::Mcp, Search::Client);
    let search =
        json!({"name": "search_tools", "arguments": {"query": "find customer", "limit": 1}});
    let answer = session.call_provider_with(&export, &search, clerk()).await;
    assert_eq!(answer["isError"], false);
    assert_eq!(
        answer["structuredContent"]["tools"][0]["name"],
        "crm.find_customer"
    );
    assert_eq!(export.loaded_by(&answer), ["crm.find_customer"]);
    let call = json!({"name": "call_tool", "arguments": {"name": "crm.find_customer", "arguments": {"query": "abc"}}});
    let answer = session.call_provider_with(&export, &call, clerk()).await;
    assert_eq!(result_of(Target::Mcp, &answer)["value"], json!(["cus_3"]));
    let bad = json!({"name": "call_tool", "arguments": {"name": "crm.find_customer", "arguments": {"query": 3}}});
    let answer = session.call_provider_with(&export, &bad, clerk()).await;
    assert_eq!(
        result_of(Target::Mcp, &answer)["error"]["code"],
        "TOOL_ARGS_INVALID"
    );
}
