//! The agent loop example: what `cargo run --example agent_loop -- --provider <p>` prints is
//! `tests/golden/export/agent_loop/<p>.txt` (refresh with `UPDATE_EXPECT=1 cargo test
//! --test export_agent_loop` and review the diff).

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/agent_loop.rs"]
mod agent_loop;

use pedelec::export::Target;

#[tokio::test]
async fn each_providers_transcript_matches_its_golden_file() {
    for target in [
        Target::OpenAiChat,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::Gemini,
        Target::GeminiOpenApi,
    ] {
        let transcript = agent_loop::transcript(target).await.unwrap();
        let path = format!(
            "{}/tests/golden/export/agent_loop/{target}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        expect_test::expect_file![path].assert_eq(&transcript);
    }
}
