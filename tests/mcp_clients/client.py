"""Drives a pedelec MCP server with the official Python SDK (`mcp`) and prints what it saw
as one JSON object; `tests/mcp_clients.rs` checks it.

    python client.py stdio COMMAND [ARG...]     # spawns the server, talks over stdio
    python client.py http URL                   # streamable HTTP; token in PEDELEC_MCP_TOKEN
    python client.py features stdio|http TARGET # icons, elicitation, a task (`Client`, auto mode)
    python client.py policy URL                 # a rate limit and a tool the caller may not call
    python client.py oauth URL                  # OAuth access tokens in PEDELEC_TOKEN_WRITER
                                                # (counter:write) and PEDELEC_TOKEN_READER
    python client.py gateway URL                # remote servers' tools mounted behind pedelec,
                                                # with OAuth (PEDELEC_TOKEN_WRITER, _READER)
                                                # and a rate limit of five calls per caller
    python client.py replicas URL               # replicas behind a load balancer: a task whose
                                                # form is answered with tasks/update, and an
                                                # idempotent call retried (`cargo xtask replicas`)

Every tool result is validated by the SDK itself against the tool's outputSchema (it raises
when structuredContent does not conform); this script only records what happened.
"""

import asyncio
import json
import os
import sys
import traceback
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

import mcp.types as types
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.extension import ClientExtension, ResultClaim
from mcp_types import Request, RequestParams, Result
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(result):
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


def failure(error):
    """An exception, with the messages of the exceptions it groups or wraps."""
    parts = [f"{type(error).__name__}: {error}"]
    for inner in getattr(error, "exceptions", ()) or ():
        parts.append(failure(inner))
    if error.__cause__ is not None:
        parts.append(failure(error.__cause__))
    return " | ".join(parts)


async def scenario(session):
    report = {}
    init = await session.initialize()
    report["server"] = init.server_info.name
    report["server_version"] = init.server_info.version
    report["server_title"] = init.server_info.title
    report["capabilities"] = sorted(
        k for k, v in init.capabilities.model_dump(exclude_none=True).items() if v is not None
    )
    report["instructions"] = init.instructions
    listed = await session.list_tools()
    report["tools"] = [dump(t) for t in listed.tools]
    names = {t.name for t in listed.tools}

    async def call(name, args, **kwargs):
        try:
            return dump(await session.call_tool(name, args, **kwargs))
        except Exception as e:  # the SDK's own checks (outputSchema validation) raise
            return {"raised": failure(e)}

    report["update_counter"] = await call("update_counter", {"delta": 2})
    report["get_current_page"] = await call("get_current_page", {})
    report["bad_args"] = await call("update_counter", {"delta": "x"})
    report["unknown_tool"] = await call("update_countr", {"delta": 1})
    report["timeout"] = await call("render_page", {})
    if "count_to" in names:
        updates = []

        async def on_progress(progress, total, message):
            updates.append([progress, total, message])

        report["progress"] = {
            "result": await call("count_to", {"n": 3}, progress_callback=on_progress),
            "updates": updates,
        }
        report["no_progress_token"] = await call("count_to", {"n": 2})
        # Give up after 300 ms: the SDK sends `notifications/cancelled` (stdio) or closes
        # the request (stateless HTTP); the server must go on answering.
        report["cancelled"] = await call("count_to", {"n": 100000}, read_timeout_seconds=0.3)
        report["after_cancel"] = await call("update_counter", {"delta": 1})
    if "run_code" in names:
        # Code mode: find a tool's declaration, then one program making three calls.
        report["code_search"] = await call("search_tools", {"query": "change the counter", "limit": 3})
        report["code_run"] = await call("run_code", {"code": (
            "const a = await update_counter({ delta: 1 });\n"
            "const b = await update_counter({ delta: 1 });\n"
            "const page = await get_current_page();\n"
            "console.log('counter', page.counter);\n"
            "return [a.value, b.value, page.counter];"
        )})
        report["code_error"] = await call("run_code", {"code": "\nawait update_counter({ delta: 'lots' });"})
    return report


async def over_http(url, headers, statuses=None):
    client = create_mcp_http_client(headers=headers)
    if statuses is not None:

        async def record(response):
            statuses.append(response.status_code)

        client.event_hooks = {**client.event_hooks, "response": [record]}
    async with client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                return await scenario(session)


TASKS = "io.modelcontextprotocol/tasks"


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    name_param = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    name_param = "taskId"


class UpdateParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTask(Request[UpdateParams, Literal["tasks/update"]]):
    name_param = "taskId"


class CreatedTask(Result):
    """A `tools/call` answered with a task (`resultType: "task"`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str
    status: str


ANY = TypeAdapter(dict[str, Any])


class Tasks(ClientExtension):
    """The tasks extension, as a host would write it with the SDK's extension API: a task
    is polled with `tasks/get` until it ends; with `cancel_next`, it is cancelled with
    `tasks/cancel` after its first poll. Every step is recorded in `log`."""

    identifier = TASKS

    def __init__(self, elicit=None):
        self.log = []
        self.cancel_next = False
        # With `elicit`, a task waiting for a form (`input_required`) is answered with
        # `tasks/update`.
        self.elicit = elicit

    def claims(self):
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created, ctx):
        log = {"created": created.status, "polled": []}
        self.log.append(log)
        params = TaskParams(task_id=created.task_id)
        cancel, self.cancel_next = self.cancel_next, False
        for _ in range(2000):
            got = await ctx.session.send_request(GetTask(method="tasks/get", params=params), ANY)
            log["polled"].append(got.get("status"))
            if got.get("status") in ("completed", "failed", "cancelled"):
                log["final"] = got
                break
            if cancel:
                cancel = False
                log["cancel"] = await ctx.session.send_request(
                    CancelTask(method="tasks/cancel", params=params), ANY
                )
            if got.get("status") == "input_required" and self.elicit is not None:
                answers = {}
                for key, request in got.get("inputRequests", {}).items():
                    asked = TypeAdapter(types.ElicitRequestParams).validate_python(request["params"])
                    answers[key] = dump(await self.elicit(None, asked))
                update = UpdateParams(task_id=created.task_id, input_responses=answers)
                log["updated"] = await ctx.session.send_request(
                    UpdateTask(method="tasks/update", params=update), ANY
                )
                continue
            await asyncio.sleep(got.get("pollIntervalMs", 50) / 1000)
        final = log.get("final", {})
        if final.get("status") == "completed":
            return types.CallToolResult.model_validate(final["result"])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"task {final.get('status')}")],
            is_error=True,
        )


async def features(target):
    """Icons in `tools/list`, `reset_counter` and `set_counter`'s approval answered accept /
    decline / cancel, and
    `count_to` as a task: completed, then cancelled."""
    plan = [
        ("accept", {"confirm": True}),
        ("decline", None),
        ("cancel", None),
        ("accept", {"approve": True}),
        ("decline", None),
        ("cancel", None),
    ]
    asked = []

    async def elicit(context, params):
        asked.append(dump(params))
        action, content = plan.pop(0)
        return types.ElicitResult(action=action, content=content)

    tasks = Tasks()
    report = {"asked": asked, "tasks": tasks.log}
    mode = os.environ.get("PEDELEC_CLIENT_MODE", "auto")
    token = os.environ.get("PEDELEC_MCP_TOKEN", "")
    http = None
    if isinstance(target, str) and token:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        target = streamable_http_client(target, http_client=http)
    async with http if http is not None else _nothing():
        return await features_with(target, mode, elicit, tasks, report)


class _nothing:
    async def __aenter__(self):
        return None

    async def __aexit__(self, *exc):
        return False


async def features_with(target, mode, elicit, tasks, report):
    async with Client(target, mode=mode, elicitation_callback=elicit, extensions=[tasks]) as client:
        report["protocol"] = client.protocol_version
        listed = await client.list_tools()
        report["tools"] = [dump(t) for t in listed.tools]

        async def call(name, args):
            try:
                return dump(await asyncio.wait_for(client.call_tool(name, args), 60))
            except Exception as e:
                return {"raised": failure(e)}

        report["before_reset"] = await call("update_counter", {"delta": 5})
        report["elicited"] = [await call("reset_counter", {}) for _ in range(3)]
        report["after_reset"] = await call("get_current_page", {})
        report["approved"] = [await call("set_counter", {"value": 7 + i}) for i in range(3)]
        report["after_set"] = await call("get_current_page", {})
        report["task"] = await call("count_to", {"n": 60})
        tasks.cancel_next = True
        report["task_cancelled"] = await call("count_to", {"n": 100000})
    return report


async def replicas(url):
    """Through a load balancer in front of replicas sharing one store, each request landing
    where it may: `confirm` as a task whose form is answered with `tasks/update`, then
    `charge` called three times with one idempotency key (`_meta`)."""

    async def elicit(context, params):
        return types.ElicitResult(action="accept", content={"ok": True})

    tasks = Tasks(elicit)
    report = {"tasks": tasks.log}
    async with Client(url, elicitation_callback=elicit, extensions=[tasks]) as client:
        report["protocol"] = client.protocol_version
        report["task"] = dump(
            await asyncio.wait_for(client.call_tool("confirm", {"id": 50, "ms": 0}), 60)
        )
        meta = {"dev.pedelec/idempotencyKey": "python-retry"}
        report["charges"] = [
            dump(await client.call_tool("charge", {"id": 60, "ms": 0}, meta=meta))
            for _ in range(3)
        ]
    return report


async def policy(url):
    """A deferred tool found with `search_tools` and called with `call_tool`, then four
    calls of `hello` under a limit of four calls per caller, and a call of `reset_counter`,
    which needs a scope this anonymous caller lacks."""
    report = {}
    async with Client(url) as client:
        listed = await client.list_tools()
        report["tools"] = sorted(t.name for t in listed.tools)
        found = dump(await client.call_tool("search_tools", {"query": "refund the last invoice", "limit": 3}))
        report["search"] = found
        try:
            report["found"] = [t["name"] for t in json.loads(found["content"][0]["text"])["tools"]]
        except Exception as e:
            report["found"] = {"raised": failure(e)}
        report["deferred"] = dump(await client.call_tool(
            "call_tool", {"name": "refund_last_invoice", "arguments": {}}))
        report["calls"] = []
        for _ in range(4):
            report["calls"].append(dump(await client.call_tool("hello", {})))
        try:
            report["forbidden"] = dump(await client.call_tool("reset_counter", {}))
        except Exception as e:
            report["forbidden"] = {"raised": failure(e)}
    return report


async def oauth_scenario(url, token):
    """What a caller with `token` sees: its tools, a call of each kind, and every HTTP
    answer's status with its `WWW-Authenticate` challenge."""
    responses = []

    async def record(response):
        responses.append([response.status_code, response.headers.get("www-authenticate")])

    report = {"responses": responses}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = create_mcp_http_client(headers=headers)
    client.event_hooks = {**client.event_hooks, "response": [record]}
    try:
        async with client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    report["tools"] = sorted(t.name for t in listed.tools)
                    for name, args in [("get_current_page", {}), ("update_counter", {"delta": 1})]:
                        try:
                            report[name] = dump(await asyncio.wait_for(session.call_tool(name, args), 20))
                        except Exception as e:
                            report[name] = {"raised": failure(e)}
    except Exception as e:
        report["error"] = failure(e)
    return report


GATEWAY_CALLS = [
    ("rs.add", {"a": 2, "b": 3}),
    ("everything.echo", {"message": "through pedelec"}),
    ("rs.fail", {}),
    ("everything.get-sum", {"a": 1, "b": 2}),
    ("rs.echo", {"text": "fifth"}),
    ("rs.echo", {"text": "over the limit"}),
]


async def gateway_scenario(url, token):
    """What a caller with `token` sees of the mounted remotes: the tools it may call, `rs.add`
    as listed, and six calls under a limit of five per caller."""
    report = {}
    headers = {"Authorization": f"Bearer {token}"}
    async with create_mcp_http_client(headers=headers) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                report["listChanged"] = init.capabilities.tools.list_changed if init.capabilities.tools else None
                listed = await session.list_tools()
                report["tools"] = sorted(t.name for t in listed.tools)
                report["listed"] = [dump(t) for t in listed.tools if t.name == "rs.add"]
                report["calls"] = []
                for name, args in GATEWAY_CALLS:
                    if name not in report["tools"]:
                        continue
                    try:
                        report["calls"].append(dump(await asyncio.wait_for(session.call_tool(name, args), 30)))
                    except Exception as e:
                        report["calls"].append({"raised": failure(e)})
    return report


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report = await scenario(session)
    elif mode == "http":
        url = sys.argv[2]
        token = os.environ.get("PEDELEC_MCP_TOKEN", "")
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        report = await over_http(url, auth)
        # What the transport must refuse, as the SDK reports it.
        for name, headers in [
            ("without_token", {}),
            ("wrong_token", {"Authorization": "Bearer wrong"}),
            ("foreign_origin", {**auth, "Origin": "http://evil.example"}),
        ]:
            statuses = []
            try:
                await asyncio.wait_for(over_http(url, headers, statuses), 20)
                report[name] = {"connected": True, "statuses": statuses}
            except Exception as e:
                report[name] = {"error": failure(e), "statuses": statuses}
    elif mode == "features":
        if sys.argv[2] == "stdio":
            target = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:], env=dict(os.environ))
        else:
            target = sys.argv[3]
        report = await features(target)
    elif mode == "policy":
        report = await policy(sys.argv[2])
    elif mode == "replicas":
        report = await replicas(sys.argv[2])
    elif mode == "oauth":
        url = sys.argv[2]
        report = {}
        for who, var in [("writer", "PEDELEC_TOKEN_WRITER"), ("reader", "PEDELEC_TOKEN_READER"), ("nobody", None)]:
            token = os.environ[var] if var else None
            report[who] = await asyncio.wait_for(oauth_scenario(url, token), 60)
    elif mode == "gateway":
        url = sys.argv[2]
        report = {
            "writer": await asyncio.wait_for(gateway_scenario(url, os.environ["PEDELEC_TOKEN_WRITER"]), 120),
            "reader": await asyncio.wait_for(gateway_scenario(url, os.environ["PEDELEC_TOKEN_READER"]), 120),
            "nobody": await asyncio.wait_for(oauth_scenario(url, None), 60),
        }
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(json.dumps(report))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
