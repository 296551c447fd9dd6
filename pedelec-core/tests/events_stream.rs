//! `EventStream` is a `futures_core::Stream`: combinators work on it, a lagging subscriber
//! is told how many events it missed, and the stream ends with the session.

mod support;

use pedelec_core::session::SessionEvent;
use pedelec_core::skills::SkillSet as _;
use pedelec_core::{CallOptions, Session};
use serde_json::json;
use support::*;
use tokio_stream::StreamExt as _;

#[tokio::test]
async fn events_are_a_stream_for_combinators() {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let events = session.events();
    session
        .call_with(
            "update_counter",
            json!({"delta": 1}),
            CallOptions::new().call_id("c1"),
        )
        .await;
    drop(session);
    // Filter and collect with `StreamExt`; the stream ends once the session is gone.
    let started: Vec<String> = events
        .filter_map(|event| match event {
            SessionEvent::CallStarted { call_id, .. } => Some(call_id),
            _ => None,
        })
        .collect()
        .await;
    assert_eq!(started, ["c1"]);
}

#[tokio::test]
async fn a_lagging_stream_reports_what_it_missed() {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .event_capacity(2)
        .create()
        .unwrap();
    let mut events = session.events();
    for i in 0..3 {
        session
            .call_with(
                "update_counter",
                json!({"delta": 1}),
                CallOptions::new().call_id(format!("c{i}")),
            )
            .await;
    }
    // Six events were sent into a buffer of two: the first four are gone.
    assert_eq!(
        events.next().await,
        Some(SessionEvent::Lagged { missed: 4 })
    );
    assert!(matches!(
        events.next().await,
        Some(SessionEvent::CallStarted { call_id, .. }) if call_id == "c2"
    ));
    assert!(matches!(
        events.try_recv(),
        Some(SessionEvent::CallFinished { call_id, .. }) if call_id == "c2"
    ));
    assert_eq!(events.try_recv(), None);
}
