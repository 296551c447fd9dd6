// Drives a pedelec MCP server with v2 of the official TypeScript SDK
// (@modelcontextprotocol/client, MCP 2026-07-28) and its tasks extension
// (@modelcontextprotocol/ext-tasks), and prints what it saw as one JSON object;
// `tests/mcp_clients.rs` checks it.
//
//     node client_v2.mjs features stdio COMMAND [ARG...]
//     node client_v2.mjs features http URL     # token in PEDELEC_MCP_TOKEN
//
// `features`: icons in `tools/list`; `reset_counter` asking the user, answered accept,
// decline and cancel (input-required results the SDK fulfils through its
// `elicitation/create` handler); over HTTP, `count_to` as a task through ext-tasks
// (created, polled, its result fetched; another one cancelled). ext-tasks sends the
// extension's requests through a dispatcher the host provides (`rawDispatch`): here a plain
// POST, which also records every task request and its answer.
// Run with MCP_CLIENTS_NODE naming the directory `cargo xtask mcp-clients` installs them in.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { elicitationAndIcons } from "./features.mjs";

// An ES module of a package installed there, by its `exports` (the packages export no
// `require` entry, and an ES module's imports do not follow NODE_PATH).
const installed = path.resolve(process.env.MCP_CLIENTS_NODE ?? ".", "node_modules");
function load(name, subpath = ".") {
  const dir = path.join(installed, name);
  let target = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).exports[subpath];
  while (typeof target === "object") target = target.import ?? target.default;
  return import(pathToFileURL(path.join(dir, target)).href);
}
const { Client, StreamableHTTPClientTransport } = await load("@modelcontextprotocol/client");
const { StdioClientTransport } = await load("@modelcontextprotocol/client", "./stdio");
const { createTaskSessionFromClient } = await load("@modelcontextprotocol/ext-tasks", "./client");

const PROTOCOL = "2026-07-28";
const clientInfo = { name: "pedelec-test", version: "0.0.0" };
const capabilities = { elicitation: {} };

// The tasks extension's requests, POSTed as MCP 2026-07-28 asks (its headers beside the
// body's `_meta`, which ext-tasks frames), each recorded in `log` by task.
function dispatcher(url, auth, log) {
  let ids = 0;
  const tasks = new Map();
  const entry = (id) => {
    if (!tasks.has(id)) {
      tasks.set(id, { polled: [] });
      log.push(tasks.get(id));
    }
    return tasks.get(id);
  };
  return async (request, options) => {
    const body = { jsonrpc: "2.0", id: `task-request-${++ids}`, ...request };
    const headers = {
      ...auth,
      ...(options?.context?.headers ?? {}),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL,
      "Mcp-Method": body.method,
    };
    if (body.method === "tools/call") headers["Mcp-Name"] = body.params.name;
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: options?.signal });
    const answer = await response.json();
    const result = answer.result;
    if (body.method === "tools/call" && result?.resultType === "task") {
      entry(result.taskId).created = result.status;
    } else if (body.method === "tasks/get" && result) {
      const task = entry(body.params.taskId);
      task.polled.push(result.status);
      task.final = result;
    } else if (body.method === "tasks/cancel") {
      entry(body.params.taskId).cancel = result ?? { error: answer.error };
    }
    return "error" in answer ? { kind: "error", error: answer.error } : { kind: "result", result };
  };
}

async function features(where, target, rest) {
  const token = process.env.PEDELEC_MCP_TOKEN ?? "";
  const auth = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = where === "stdio"
    ? new StdioClientTransport({ command: target, args: rest, env: process.env })
    : new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: auth } });
  const plan = [["accept", { confirm: true }], ["decline"], ["cancel"], ["accept", { approve: true }], ["decline"], ["cancel"]];
  const asked = [];
  const client = new Client(clientInfo, { capabilities, versionNegotiation: { mode: { pin: PROTOCOL } } });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params);
    const [action, content] = plan.shift();
    return content ? { action, content } : { action };
  });
  await client.connect(transport);
  const report = { asked, protocol: client.getProtocolEra() === "modern" ? PROTOCOL : "legacy" };
  try {
    await elicitationAndIcons(client, report);
    if (where === "http") {
      report.tasks = [];
      const session = createTaskSessionFromClient(client, {
        endpointId: "pedelec-test",
        rawDispatch: dispatcher(target, auth, report.tasks),
        v2RequestFraming: { protocolVersion: PROTOCOL, clientInfo, clientCapabilities: capabilities },
      });
      try {
        const task = { task: { preference: "require" } };
        const done = await session.callTool("count_to", { n: 60 }, task);
        const { outcome } = await done.settle();
        report.task = outcome.status === "completed" ? outcome.result : { outcome };
        const cancelled = await session.callTool("count_to", { n: 100000 }, task);
        // Cancelled after a poll that saw it working; the server must then report it
        // `cancelled`.
        await session.task(cancelled.handle.taskId).snapshot();
        await cancelled.cancel();
        await session.task(cancelled.handle.taskId).snapshot();
        report.task_cancelled = (await cancelled.settle()).outcome.status;
      } finally {
        await session.close();
      }
    }
  } finally {
    await client.close();
  }
  return report;
}

async function main() {
  const [mode, where, target, ...rest] = process.argv.slice(2);
  if (mode !== "features") throw new Error(`unknown mode ${mode}`);
  console.log(JSON.stringify(await features(where, target, rest)));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
