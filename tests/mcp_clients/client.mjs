// Drives a pedelec MCP server with the official TypeScript SDK (@modelcontextprotocol/sdk)
// and prints what it saw as one JSON object; `tests/mcp_clients.rs` checks it.
//
//     node client.mjs stdio COMMAND [ARG...]   # spawns the server, talks over stdio
//     node client.mjs http URL                 # streamable HTTP; token in PEDELEC_MCP_TOKEN
//     node client.mjs features stdio|http TARGET [ARG...]
//                                              # icons, and elicitation answered accept / decline / cancel
//     node client.mjs oauth URL                # OAuth access tokens in PEDELEC_TOKEN_WRITER
//                                              # (counter:write) and PEDELEC_TOKEN_READER
//     node client.mjs gateway URL              # remote servers' tools mounted behind pedelec,
//                                              # with OAuth and a rate limit of five calls
//     node client.mjs policy URL               # a deferred tool found and called, a rate
//                                              # limit, a tool the caller may not call
//
// The SDK validates every tool result against the tool's outputSchema itself (callTool
// throws when structuredContent does not conform); this script only records what happened.
// Run with NODE_PATH pointing at the node_modules that `cargo xtask mcp-clients` installs.

import { createRequire } from "node:module";
import path from "node:path";

import { elicitationAndIcons, failure } from "./features.mjs";

const require = createRequire(path.resolve(process.env.MCP_CLIENTS_NODE ?? ".", "index.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");


async function scenario(client) {
  const report = {};
  report.server = client.getServerVersion()?.name;
  report.server_version = client.getServerVersion()?.version;
  report.server_title = client.getServerVersion()?.title;
  report.capabilities = Object.keys(client.getServerCapabilities() ?? {}).sort();
  report.instructions = client.getInstructions();
  const { tools } = await client.listTools();
  report.tools = tools;
  const names = new Set(tools.map((t) => t.name));
  const call = async (name, args, options) => {
    try {
      return await client.callTool({ name, arguments: args }, undefined, options);
    } catch (e) {
      return { raised: failure(e) };
    }
  };
  report.update_counter = await call("update_counter", { delta: 2 });
  report.get_current_page = await call("get_current_page", {});
  report.bad_args = await call("update_counter", { delta: "x" });
  report.unknown_tool = await call("update_countr", { delta: 1 });
  report.timeout = await call("render_page", {});
  if (names.has("count_to")) {
    const updates = [];
    const result = await call("count_to", { n: 3 }, {
      onprogress: (p) => updates.push([p.progress, p.total ?? null, p.message ?? null]),
    });
    report.progress = { result, updates };
    report.no_progress_token = await call("count_to", { n: 2 });
    // Abort after 300 ms: the SDK sends `notifications/cancelled` (and closes the HTTP
    // request); the server must go on answering.
    report.cancelled = await call("count_to", { n: 100000 }, { signal: AbortSignal.timeout(300) });
    report.after_cancel = await call("update_counter", { delta: 1 });
  }
  if (names.has("run_code")) {
    // Code mode: find a tool's declaration, then one program making three calls.
    report.code_search = await call("search_tools", { query: "change the counter", limit: 3 });
    report.code_run = await call("run_code", {
      code: [
        "const a = await update_counter({ delta: 1 });",
        "const b = await update_counter({ delta: 1 });",
        "const page = await get_current_page();",
        "console.log('counter', page.counter);",
        "return [a.value, b.value, page.counter];",
      ].join("\n"),
    });
    report.code_error = await call("run_code", { code: "\nawait update_counter({ delta: 'lots' });" });
  }
  return report;
}

async function connect(transport) {
  const client = new Client({ name: "pedelec-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

async function overHttp(url, headers, statuses) {
  const fetchRecording = async (input, init) => {
    const response = await fetch(input, init);
    statuses?.push(response.status);
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchRecording,
  });
  const client = await connect(transport);
  try {
    return await scenario(client);
  } finally {
    await client.close();
  }
}

// Icons in `tools/list`, and `reset_counter` asking the user (`elicitation/create`, the SDK
// being on 2025-11-25) answered accept, decline, cancel.
async function features(transport) {
  const plan = [["accept", { confirm: true }], ["decline"], ["cancel"], ["accept", { approve: true }], ["decline"], ["cancel"]];
  const asked = [];
  const client = new Client({ name: "pedelec-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    const [action, content] = plan.shift();
    return content ? { action, content } : { action };
  });
  await client.connect(transport);
  const report = { asked };
  try {
    await elicitationAndIcons(client, report);
  } finally {
    await client.close();
  }
  return report;
}

// What a caller with `token` sees: its tools, a call of each kind, and every HTTP answer's
// status with its `WWW-Authenticate` challenge.
async function oauthScenario(url, token) {
  const responses = [];
  const report = { responses };
  const fetchRecording = async (input, init) => {
    const response = await fetch(input, init);
    responses.push([response.status, response.headers.get("www-authenticate")]);
    return response;
  };
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchRecording,
  });
  let client;
  try {
    client = await connect(transport);
    const { tools } = await client.listTools();
    report.tools = tools.map((t) => t.name).sort();
    for (const [name, args] of [["get_current_page", {}], ["update_counter", { delta: 1 }]]) {
      try {
        report[name] = await client.callTool({ name, arguments: args });
      } catch (e) {
        report[name] = { raised: failure(e) };
      }
    }
  } catch (e) {
    report.error = failure(e);
  } finally {
    await client?.close();
  }
  return report;
}
// A deferred tool found with `search_tools` and called with `call_tool`, then four calls of
// `hello` under a limit of four calls per caller, and `reset_counter`, which needs a scope
// this anonymous caller lacks (the same scenario as client.py's `policy`).
async function policy(url) {
  const report = {};
  const client = await connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name, args) => {
    try {
      return await client.callTool({ name, arguments: args });
    } catch (e) {
      return { raised: failure(e) };
    }
  };
  try {
    const { tools } = await client.listTools();
    report.tools = tools.map((t) => t.name).sort();
    report.search = await call("search_tools", { query: "refund the last invoice", limit: 3 });
    try {
      report.found = JSON.parse(report.search.content[0].text).tools.map((t) => t.name);
    } catch (e) {
      report.found = { raised: failure(e) };
    }
    report.deferred = await call("call_tool", { name: "refund_last_invoice", arguments: {} });
    report.calls = [];
    for (let i = 0; i < 4; i++) {
      report.calls.push(await call("hello", {}));
    }
    report.forbidden = await call("reset_counter", {});
  } finally {
    await client.close();
  }
  return report;
}

const GATEWAY_CALLS = [
  ["rs.add", { a: 2, b: 3 }],
  ["everything.echo", { message: "through pedelec" }],
  ["rs.fail", {}],
  ["everything.get-sum", { a: 1, b: 2 }],
  ["rs.echo", { text: "fifth" }],
  ["rs.echo", { text: "over the limit" }],
];

// What a caller with `token` sees of the mounted remotes (the same scenario as client.py's
// `gateway_scenario`).
async function gatewayScenario(url, token) {
  const report = {};
  const client = await connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  try {
    report.listChanged = client.getServerCapabilities()?.tools?.listChanged ?? null;
    const { tools } = await client.listTools();
    report.tools = tools.map((t) => t.name).sort();
    report.listed = tools.filter((t) => t.name === "rs.add");
    report.calls = [];
    for (const [name, args] of GATEWAY_CALLS) {
      if (!report.tools.includes(name)) continue;
      try {
        report.calls.push(await client.callTool({ name, arguments: args }));
      } catch (e) {
        report.calls.push({ raised: failure(e) });
      }
    }
  } finally {
    await client.close();
  }
  return report;
}

async function main() {
  const [mode, target, ...rest] = process.argv.slice(2);
  let report;
  if (mode === "stdio") {
    const client = await connect(new StdioClientTransport({ command: target, args: rest, env: process.env }));
    try {
      report = await scenario(client);
    } finally {
      await client.close();
    }
  } else if (mode === "http") {
    const token = process.env.PEDELEC_MCP_TOKEN ?? "";
    const auth = token ? { Authorization: `Bearer ${token}` } : {};
    report = await overHttp(target, auth);
    for (const [name, headers] of [
      ["without_token", {}],
      ["wrong_token", { Authorization: "Bearer wrong" }],
      ["foreign_origin", { ...auth, Origin: "http://evil.example" }],
    ]) {
      const statuses = [];
      try {
        await overHttp(target, headers, statuses);
        report[name] = { connected: true, statuses };
      } catch (e) {
        report[name] = { error: failure(e), statuses };
      }
    }
  } else if (mode === "features") {
    const [where, ...args] = [target, ...rest];
    const token = process.env.PEDELEC_MCP_TOKEN ?? "";
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const transport = where === "stdio"
      ? new StdioClientTransport({ command: args[0], args: args.slice(1), env: process.env })
      : new StreamableHTTPClientTransport(new URL(args[0]), { requestInit: { headers } });
    report = await features(transport);
  } else if (mode === "policy") {
    report = await policy(target);
  } else if (mode === "oauth") {
    report = {};
    for (const [who, variable] of [["writer", "PEDELEC_TOKEN_WRITER"], ["reader", "PEDELEC_TOKEN_READER"], ["nobody", null]]) {
      report[who] = await oauthScenario(target, variable ? process.env[variable] : null);
    }
  } else if (mode === "gateway") {
    report = {
      writer: await gatewayScenario(target, process.env.PEDELEC_TOKEN_WRITER),
      reader: await gatewayScenario(target, process.env.PEDELEC_TOKEN_READER),
      nobody: await oauthScenario(target, null),
    };
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  console.log(JSON.stringify(report));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
