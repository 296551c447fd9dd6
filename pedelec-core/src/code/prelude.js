// What a program finds before it starts (code mode, `interp.rs`): each tool as an async
// function, `ToolError`, and `console`. Evaluated once per interpreter, before its program
// arrives (a warm worker has it ready), as a function of the host's two entry points; it
// answers `declare`, which defines the tools the program's caller may call (called once,
// when the program arrives), and `settle`, which settles a call's promise.
(function (call, print) {
  "use strict";
  class ToolError extends Error {
    constructor(code, message, details) {
      super(message);
      this.name = "ToolError";
      this.code = code;
      if (details !== undefined) this.details = details;
    }
  }
  const pending = new Map();
  const settle = (id, ok, json) => {
    const waiting = pending.get(id);
    pending.delete(id);
    const value = JSON.parse(json);
    if (ok) return waiting.resolve(value);
    const error = new ToolError(value.code, value.message, value.details);
    // Where the program made the call, not where the answer arrived.
    error.stack = waiting.site.stack;
    waiting.reject(error);
  };
  // The host answers a call it refuses at once (unknown tool, invalid args, limit): the
  // error is thrown here, at the program's call, before any tool runs.
  const tool = (name) => function (args) {
    const text = args === undefined ? "{}" : JSON.stringify(args);
    const id = call(name, text === undefined ? "null" : text);
    if (typeof id === "string") {
      const e = JSON.parse(id);
      throw new ToolError(e.code, e.message, e.details);
    }
    const site = new Error();
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject, site }));
  };
  // A name nobody declared is still a function: its call says which tools there are.
  const lookup = (prefix, known) => new Proxy(known, {
    get(target, key) {
      if (key in target || typeof key !== "string" || key === "then" || key === "toJSON") {
        return target[key];
      }
      return tool(prefix + key);
    },
  });
  const show = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return String(v);
    try {
      const text = JSON.stringify(v);
      return text === undefined ? String(v) : text;
    } catch (_) {
      return String(v);
    }
  };
  const log = (...values) => print(values.map(show).join(" "));
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };
  globalThis.ToolError = ToolError;
  const declare = (names, paths) => {
    const known = Object.create(null);
    const spaces = new Map();
    for (let i = 0; i < names.length; i++) {
      const f = tool(names[i]);
      known[names[i]] = f;
      const path = paths[i];
      // The host gives a path only where it reaches the tool: no global and no other tool
      // takes any of its prefixes (otherwise the declaration says `tools["…"]`).
      if (path === null) continue;
      let target = globalThis;
      let prefix = "";
      for (let j = 0; j < path.length - 1; j++) {
        prefix += path[j] + ".";
        if (!spaces.has(prefix)) {
          const space = Object.create(null);
          spaces.set(prefix, space);
          target[path[j]] = lookup(prefix, space);
        }
        target = spaces.get(prefix);
      }
      target[path[path.length - 1]] = f;
    }
    globalThis.tools = lookup("", known);
  };
  return { declare, settle };
})
