// The part of the `features` scenario both TypeScript SDKs (v1 in client.mjs, v2 in
// client_v2.mjs) run the same way, with a connected `client`: icons in `tools/list`, and
// `reset_counter` asking the user three times, then `set_counter` waiting three times for
// the user's approval (the answers come from the client's `elicitation/create` handler:
// accept, decline, cancel), between calls that show the counter's value.

export const failure = (e) => `${e?.name ?? "Error"}: ${e?.message ?? e}`;

// `client.callTool`, a thrown error recorded as `{ raised }`.
export function caller(client) {
  return async (name, args) => {
    try {
      return await client.callTool({ name, arguments: args });
    } catch (e) {
      return { raised: failure(e) };
    }
  };
}

export async function elicitationAndIcons(client, report) {
  const call = caller(client);
  report.tools = (await client.listTools()).tools;
  report.before_reset = await call("update_counter", { delta: 5 });
  report.elicited = [];
  for (let i = 0; i < 3; i++) report.elicited.push(await call("reset_counter", {}));
  report.after_reset = await call("get_current_page", {});
  report.approved = [];
  for (let i = 0; i < 3; i++) report.approved.push(await call("set_counter", { value: 7 + i }));
  report.after_set = await call("get_current_page", {});
}
