#!/usr/bin/env python3
"""Builds tests/data/tool-corpus.json, a corpus of REAL public tool definitions with calls and an
oracle's verdicts (run by hand; the output is committed). It measures how pedelec loads, exports
and validates JSON Schemas as people write them, so every `inputSchema` is kept VERBATIM as its
source publishes it (`default: null`, `$schema`, `anyOf`, open objects, Python-ish BFCL types...).

Sources (see tests/data/README.md for URLs, licenses and copyright lines):

- `mcp-servers`: public MCP servers from npm and PyPI, installed into a scratch directory, each
  started over stdio with dummy credentials and asked `initialize`, `notifications/initialized`,
  `tools/list` (following `nextCursor`), timed out after 25 s. The servers and versions that
  answered are pinned in `SERVERS` below; each server is kept under its own license (read from
  its package). These tools have no recorded calls: their calls are all `mutated` (derived from
  the schema: a minimal valid-looking instance, then broken on purpose).
- `LiveMCPBench` (icip-cas, Apache-2.0): `tools/LiveMCPTool/tools.json` (the tool lists of 70
  MCP servers as returned by `tools/list`) and, as `recorded` calls, the `execute-tool` calls of
  the agent trajectories in `baseline/output/` and `evaluator/output/*/`.
- `BFCL` (gorilla, Apache-2.0): the functions of the single-turn categories (`simple_python`,
  `simple_java`, `simple_javascript`, `multiple`, `parallel`, `parallel_multiple`, `live_simple`,
  `live_multiple`, `live_parallel`, `live_parallel_multiple`) with their `possible_answer` ground
  truth as `recorded` calls (for each parameter the first accepted value; a parameter whose only
  accepted value is "" is left out). BFCL writes Python/Java-ish types ("dict", "float",
  "tuple", "any", "String"...) that are not JSON Schema: python-jsonschema refuses those schemas,
  so those tools carry `oracle_error`. `BFCL-openapi` is the same functions converted by BFCL's
  own `GORILLA_TO_OPENAPI` mapping (ported from `bfcl_eval/model_handler/utils.py`), a separate
  source label. Only functions with ground truth are kept, a seeded sample of them: as many
  as fit in 3 MB after the other sources.

To stay under 3 MB, servers with more than PER_SERVER tools are sampled down (a seed per
server) and at most BIG_PER_SERVER schemas longer than BIG_SCHEMA characters are kept per
server. Only permissively licensed servers are kept (see PERMISSIVE, LICENSE_OVERRIDES).

Each call is {"args", "valid", "origin"}: `valid` is python-jsonschema's verdict
(Draft202012Validator, `format` not asserted, no remote refs). When the validator raises on the
schema itself (SchemaError, unresolvable $ref), the tool gets `oracle_error` and its calls no
`valid`. Mutated calls come from a fixed seed: drop a required property, change a value's type,
add an unknown property, put an out-of-enum string where an enum is expected. At most 6 calls a
tool; identical (server, name, schema) are kept once.

Usage:
  gen_tool_corpus.py harvest SCRATCH             # npm/pip install SERVERS into SCRATCH, list tools
                                                  # -> SCRATCH/mcp-tools.json
  gen_tool_corpus.py build SCRATCH GORILLA_CHECKOUT LIVEMCPBENCH_CHECKOUT OUT.json
  gen_tool_corpus.py stats OUT.json               # counts per source and of each schema quirk
(the checkouts may be git directories without a work tree: files are read with `git show`).
Needs `jsonschema` (4.x) and, for `harvest`, node/npm and python3 -m venv.
"""
import copy, glob, json, os, queue, random, re, subprocess, sys, threading, time

# ---------------------------------------------------------------------------------------------
# Stage 1: harvest tool lists from real MCP servers.
# (registry, package, version, argv after the entry point, extra env). Dummy credentials only.
D = "x"
SERVERS = []  # filled below; versions pinned to those that answered tools/list
def _s(reg, pkg, ver, args=(), env=None):
    SERVERS.append({"registry": reg, "package": pkg, "version": ver, "args": list(args), "env": env or {}})

# npm
_s("npm", "@modelcontextprotocol/server-everything", "2026.8.31")
_s("npm", "@modelcontextprotocol/server-filesystem", "2026.8.31", ["{fsroot}"])
_s("npm", "@modelcontextprotocol/server-memory", "2026.8.31")
_s("npm", "@modelcontextprotocol/server-sequential-thinking", "2026.8.31")
_s("npm", "@modelcontextprotocol/server-github", "2025.4.8")
_s("npm", "@modelcontextprotocol/server-brave-search", "0.6.2")
_s("npm", "@modelcontextprotocol/server-puppeteer", "2025.5.12")
_s("npm", "@modelcontextprotocol/server-slack", "2025.4.25")
_s("npm", "@modelcontextprotocol/server-gitlab", "2025.4.25")
_s("npm", "@modelcontextprotocol/server-google-maps", "0.6.2")
_s("npm", "@modelcontextprotocol/server-postgres", "0.6.2", ["postgresql://127.0.0.1:9/x"])
_s("npm", "@playwright/mcp", "0.0.86", ["--headless"])
_s("npm", "@notionhq/notion-mcp-server", "2.5.2")
_s("npm", "firecrawl-mcp", "3.22.2")
_s("npm", "tavily-mcp", "0.2.22")
_s("npm", "exa-mcp-server", "3.4.1")
_s("npm", "@upstash/context7-mcp", "4.1.1")
_s("npm", "mcp-server-kubernetes", "4.1.7")
_s("npm", "@sentry/mcp-server", "0.36.0", ["--access-token=x"])
_s("npm", "@browserbasehq/mcp-server-browserbase", "2.4.3")
_s("npm", "chrome-devtools-mcp", "1.11.0")
_s("npm", "@circleci/mcp-server-circleci", "0.20.0")
_s("npm", "mongodb-mcp-server", "3.0.4")
_s("npm", "@zereight/mcp-gitlab", "2.1.64")
_s("npm", "@executeautomation/playwright-mcp-server", "1.0.12")
_s("npm", "@winor30/mcp-server-datadog", "1.8.0")
_s("npm", "@antv/mcp-server-chart", "0.9.10")
_s("npm", "@hubspot/mcp-server", "0.4.0")
_s("npm", "@shortcut/mcp", "0.25.0")
_s("npm", "@brave/brave-search-mcp-server", "2.1.4")
_s("npm", "@aashari/mcp-server-atlassian-jira", "3.3.0")
_s("npm", "@mapbox/mcp-server", "0.2.0")
_s("npm", "@openbnb/mcp-server-airbnb", "0.3.0")
_s("npm", "@cyanheads/git-mcp-server", "2.15.3")
_s("npm", "airtable-mcp-server", "1.14.0")
_s("npm", "@pinecone-database/mcp", "0.3.0")
_s("npm", "@postman/postman-mcp-server", "2.13.0")
_s("npm", "@cocal/google-calendar-mcp", "2.6.3")
_s("npm", "@softeria/ms-365-mcp-server", "0.155.0")
_s("npm", "@mondaydotcomorg/monday-api-mcp", "3.3.0", ["-t", "x"])
_s("npm", "argocd-mcp", "0.9.0", ["stdio"])
_s("npm", "@wonderwhy-er/desktop-commander", "0.2.52")
_s("npm", "next-devtools-mcp", "0.4.0")
_s("npm", "@shopify/dev-mcp", "1.16.0")
# PyPI
_s("pypi", "mcp-server-fetch", "2026.10.24")
_s("pypi", "mcp-server-git", "2026.10.19")
_s("pypi", "mcp-server-time", "2026.10.19", ["--local-timezone=UTC"])

# Tried and left out: they did not answer tools/list here (no network, a native module not
# built by --ignore-scripts, a broken dependency, or a connection needed at start-up):
#   npm @modelcontextprotocol/server-redis@2025.4.25: TimeoutError
#   npm @supabase/mcp-server-supabase@0.13.0: RuntimeError
#   npm @stripe/mcp@0.3.3: TimeoutError
#   npm @heroku/mcp-server@1.2.8: EOFError
#   npm @azure-devops/mcp@2.10.0: EOFError
#   npm @apify/actors-mcp-server@0.10.6: TimeoutError
#   npm @benborla29/mcp-server-mysql@2.0.9: EOFError
#   npm @dynatrace-oss/dynatrace-mcp-server@2.1.2: EOFError
#   pypi mcp-server-sqlite@2025.4.25: EOFError

DUMMY_ENV = {
    "BRAVE_API_KEY": D, "GITHUB_PERSONAL_ACCESS_TOKEN": D, "GITLAB_PERSONAL_ACCESS_TOKEN": D,
    "GITLAB_API_URL": "http://127.0.0.1:9/api/v4", "GOOGLE_MAPS_API_KEY": D, "SLACK_BOT_TOKEN": "xoxb-x",
    "SLACK_TEAM_ID": "T0", "TAVILY_API_KEY": "tvly-x", "FIRECRAWL_API_KEY": "fc-x", "EXA_API_KEY": D,
    "SUPABASE_ACCESS_TOKEN": "sbp_x", "STRIPE_SECRET_KEY": "sk_test_x", "SENTRY_ACCESS_TOKEN": D,
    "HEROKU_API_KEY": D, "CIRCLECI_TOKEN": D, "DATADOG_API_KEY": D, "DATADOG_APP_KEY": D,
    "PRIVATE_APP_ACCESS_TOKEN": D, "SHORTCUT_API_TOKEN": D, "APIFY_TOKEN": D, "ATLASSIAN_SITE_NAME": D,
    "ATLASSIAN_USER_EMAIL": "x@example.com", "ATLASSIAN_API_TOKEN": D, "MYSQL_HOST": "127.0.0.1",
    "MYSQL_USER": D, "MYSQL_PASS": D, "MYSQL_DB": D, "MAPBOX_ACCESS_TOKEN": "pk.x", "AIRTABLE_API_KEY": D,
    "PINECONE_API_KEY": D, "POSTMAN_API_KEY": D, "DT_ENVIRONMENT": "https://x.apps.dynatrace.com",
    "ARGOCD_BASE_URL": "http://127.0.0.1:9", "ARGOCD_API_TOKEN": D, "NOTION_TOKEN": D,
    "OPENAPI_MCP_HEADERS": "{}", "BROWSERBASE_API_KEY": D, "BROWSERBASE_PROJECT_ID": D,
    "GOOGLE_OAUTH_CREDENTIALS": "{fsroot}/gcp-oauth.keys.json", "MONDAY_TOKEN": D, "REDIS_URL": "redis://127.0.0.1:9",
    "PUPPETEER_SKIP_DOWNLOAD": "1", "DO_NOT_TRACK": "1", "MDB_MCP_TELEMETRY": "disabled",
}

def rpc_list_tools(cmd, env, cwd, timeout=25):
    """initialize + notifications/initialized + tools/list (following nextCursor) over stdio."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, cwd=cwd)
    q, err = queue.Queue(), []
    def rd():
        for line in p.stdout:
            q.put(line)
        q.put(None)
    threading.Thread(target=rd, daemon=True).start()
    threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True).start()
    deadline = time.time() + timeout
    def send(o):
        p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
    def wait(i):
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no answer in time")
            try:
                line = q.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no answer in time")
            if line is None:
                raise EOFError("server exited")
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("id") == i and ("result" in m or "error" in m):
                if "error" in m:
                    raise RuntimeError(json.dumps(m["error"])[:300])
                return m["result"]
    tools, info = [], {}
    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "pedelec-tool-corpus", "version": "0.1"}}})
        info = wait(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        cursor, i = None, 2
        while i < 50:
            send({"jsonrpc": "2.0", "id": i, "method": "tools/list",
                  "params": {"cursor": cursor} if cursor else {}})
            r = wait(i)
            tools += r.get("tools", [])
            cursor, i = r.get("nextCursor"), i + 1
            if not cursor:
                break
        return {"serverInfo": info.get("serverInfo"), "tools": tools}
    except Exception as ex:  # noqa: BLE001 - a failing server is reported, not fatal
        time.sleep(0.2)
        return {"error": f"{type(ex).__name__}: {ex}", "tools": tools,
                "stderr": b"".join(e for e in err if e).decode(errors="replace")[-600:]}
    finally:
        p.kill()

def pkg_dir(scratch, pkg):
    return os.path.join(scratch, "npm", pkg.replace("/", "_").replace("@", "_"))

COPYRIGHT = re.compile(r"^\s*(copyright\s*(\(c\)|©|&copy;|\d)|\(c\)\s*\d|©)", re.I)

def copyright_line(path):
    for l in open(path, encoding="utf-8", errors="replace"):
        if COPYRIGHT.match(l) and "[yyyy]" not in l and "{yyyy}" not in l:
            return l.strip()
    return None

def license_of(root):
    """(license, copyright line) of an installed npm package directory: the package.json
    `license`, else the LICENSE text's kind; the LICENSE's first copyright line, else the
    package.json author."""
    meta = json.load(open(os.path.join(root, "package.json")))
    lic = meta.get("license") or (meta.get("licenses") or [{}])[0].get("type")
    line, text = None, ""
    for f in sorted(glob.glob(os.path.join(root, "LICEN[SC]E*"))):
        text = open(f, encoding="utf-8", errors="replace").read()
        line = copyright_line(f)
        break
    if not lic or lic.startswith("SEE LICENSE"):
        lic = "MIT" if "MIT License" in text or "Permission is hereby granted, free of charge" in text \
            else "Apache-2.0" if "Apache License" in text else lic
    if not line:
        a = meta.get("author")
        a = a.get("name") if isinstance(a, dict) else a
        line = f"no copyright line in the package; author: {a}" if a else "no copyright line in the package"
    return lic, line

def npm_entry(scratch, s):
    d = pkg_dir(scratch, s["package"])
    root = os.path.join(d, "node_modules", s["package"])
    if not os.path.exists(root):
        os.makedirs(d, exist_ok=True)
        if not os.path.exists(os.path.join(d, "package.json")):
            json.dump({"name": "x", "private": True}, open(os.path.join(d, "package.json"), "w"))
        spec = s["package"] + (f"@{s['version']}" if s["version"] else "")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
                        "--loglevel=error", spec], cwd=d, timeout=600, capture_output=True)
    meta = json.load(open(os.path.join(root, "package.json")))
    b = meta.get("bin")
    if isinstance(b, dict):
        short = s["package"].split("/")[-1]
        b = b.get(short) or b.get(s.get("bin", "")) or next(iter(b.values()))
    return ["node", os.path.join(root, b)], meta["version"], root

def pip_entry(scratch, s):
    venv = os.path.join(scratch, "pyenv")
    if not os.path.exists(venv):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    spec = s["package"] + (f"=={s['version']}" if s["version"] else "")
    subprocess.run([f"{venv}/bin/pip", "install", "-q", spec], capture_output=True, timeout=600)
    ver = subprocess.run([f"{venv}/bin/pip", "show", s["package"]], capture_output=True,
                         text=True).stdout
    ver = next((l.split(":", 1)[1].strip() for l in ver.splitlines() if l.startswith("Version:")), None)
    site = glob.glob(f"{venv}/lib/python3*/site-packages/{s['package'].replace('-', '_')}-*.dist-info")
    lic, line = (None, None)
    if site:
        m = open(os.path.join(site[0], "METADATA"), encoding="utf-8").read()
        lic = next((l.split(":", 1)[1].strip() for l in m.splitlines()
                    if l.startswith("License-Expression:") or l.startswith("License:")), None)
        for f in glob.glob(os.path.join(site[0], "**", "LICEN*"), recursive=True):
            line = copyright_line(f)
            if line:
                break
    return [f"{venv}/bin/{s['package']}"], ver, (lic, line or "no copyright line in the package")

def harvest(scratch):
    scratch = os.path.abspath(scratch)
    for sub in ("fsroot", "home"):
        os.makedirs(os.path.join(scratch, sub), exist_ok=True)
    json.dump({"installed": {"client_id": "x.apps.googleusercontent.com", "client_secret": "x",
                             "redirect_uris": ["http://localhost"]}},
              open(os.path.join(scratch, "fsroot", "gcp-oauth.keys.json"), "w"))
    out = []
    for s in SERVERS:
        try:
            if s["registry"] == "npm":
                cmd, ver, root = npm_entry(scratch, s)
                lic = license_of(root)
            else:
                cmd, ver, lic = pip_entry(scratch, s)
        except Exception as ex:  # noqa: BLE001
            print(f"{s['package']}: not installed ({ex})", file=sys.stderr)
            continue
        env = {"PATH": os.environ["PATH"], "HOME": os.path.join(scratch, "home"), **DUMMY_ENV, **s["env"]}
        env = {k: v.replace("{fsroot}", os.path.join(scratch, "fsroot")) for k, v in env.items()}
        args = [a.replace("{fsroot}", os.path.join(scratch, "fsroot")) for a in s["args"]]
        r = rpc_list_tools(cmd + args, env, os.path.join(scratch, "fsroot"))
        print(f"{s['registry']} {s['package']}@{ver}: {len(r['tools'])} tools {r.get('error', '')}",
              file=sys.stderr)
        out.append({**s, "version": ver, "license": lic[0], "copyright": lic[1], **r})
    json.dump(out, open(os.path.join(scratch, "mcp-tools.json"), "w"), indent=1)

# ---------------------------------------------------------------------------------------------
# Stage 2: the corpus.
import hashlib
from jsonschema import Draft202012Validator
from referencing import Registry

MAX_CALLS = 6
MAX_RECORDED = 3000    # recorded calls longer than this (JSON chars) are skipped if others exist
BIG_SCHEMA = 8_000     # past this (JSON chars), at most BIG_PER_SERVER schemas of a server are kept
BIG_PER_SERVER = 2
PER_SERVER = 40        # at most this many tools of one server (a seeded sample, in listing order)
SIZE_LIMIT = 3_000_000
BFCL_DIR = "berkeley-function-call-leaderboard/bfcl_eval/data"
BFCL_SETS = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
             "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
             "live_parallel_multiple"]

def read(repo, path):
    try:
        return open(f"{repo}/{path}", encoding="utf-8").read()
    except FileNotFoundError:
        return subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], check=True,
                              capture_output=True, text=True).stdout

def ls(repo, folder):
    if os.path.isdir(f"{repo}/{folder}"):
        return sorted(f"{folder}/{f}" for f in os.listdir(f"{repo}/{folder}"))
    out = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", "HEAD", f"{folder}/"],
                         check=True, capture_output=True, text=True).stdout
    return sorted(out.split())

def lines(repo, path):
    return [json.loads(l) for l in read(repo, path).splitlines() if l.strip()]

# -- the oracle ------------------------------------------------------------------------------
def oracle(schema, calls):
    """Sets each call's `valid`; returns an error message when the validator raises instead."""
    # Draft202012Validator.check_schema, with its first error chosen deterministically.
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)
    errs = sorted(meta.iter_errors(schema),
                  key=lambda e: ([str(p) for p in e.absolute_path], e.validator, e.message))
    if errs:
        e = errs[0]
        return f"SchemaError at /{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"[:300]
    try:
        v = Draft202012Validator(schema, registry=Registry())  # no retrieval: remote refs fail
        verdicts = [not any(True for _ in v.iter_errors(c["args"])) for c in calls]
    except Exception as ex:  # noqa: BLE001 - SchemaError, Unresolvable, re.error...
        msg = getattr(ex, "message", None) or str(ex)
        return f"{type(ex).__name__}: {msg}"[:300]
    for c, ok in zip(calls, verdicts):
        c["valid"] = ok
    return None

# -- mutated calls ---------------------------------------------------------------------------
def types_of(node):
    t = node.get("type") if isinstance(node, dict) else None
    return [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []

def sample(node, rng, depth=0):
    """A plausible instance of a schema node (required properties only, first enum value...)."""
    if not isinstance(node, dict) or depth > 6:
        return "x"
    for k in ("const", "default", "examples", "enum"):
        if k in node and node[k] is not None:
            v = node[k]
            return copy.deepcopy(v[0] if k in ("enum", "examples") and isinstance(v, list) and v else v)
    for k in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(k), list) and node[k]:
            alts = [a for a in node[k] if isinstance(a, dict) and a.get("type") != "null"] or node[k]
            return sample(alts[0], rng, depth + 1)
    ts = [t for t in types_of(node) if t != "null"]
    t = ts[0] if ts else ("object" if "properties" in node else "array" if "items" in node else "string")
    if t in ("object", "dict"):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        req = node.get("required") if isinstance(node.get("required"), list) else []
        return {k: sample(props.get(k, {}), rng, depth + 1) for k in req if isinstance(k, str)}
    if t in ("array", "list", "tuple"):
        n = node.get("minItems", 1) if isinstance(node.get("minItems"), int) else 1
        return [sample(node.get("items", {}), rng, depth + 1) for _ in range(min(n, 3))]
    if t in ("integer", "int"):
        m = node.get("minimum", node.get("exclusiveMinimum", 0))
        return int(m) + 1 if isinstance(m, (int, float)) and not isinstance(m, bool) else 1
    if t in ("number", "float"):
        m = node.get("minimum", 0)
        return float(m) + 1.5 if isinstance(m, (int, float)) and not isinstance(m, bool) else 1.5
    if t in ("boolean", "bool"):
        return True
    n = node.get("minLength", 1) if isinstance(node.get("minLength"), int) else 1
    return "x" * max(n, 1) if node.get("format") != "uri" else "https://example.com/x"

def retype(v):
    if isinstance(v, bool):
        return "true"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return 12345
    if isinstance(v, list):
        return "not-an-array"
    if isinstance(v, dict):
        return "not-an-object"
    return {"unexpected": True}

def find_enum(schema, args, path=()):
    """Paths (in args) of properties whose schema has an `enum` of strings."""
    out = []
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not isinstance(args, dict):
        return out
    for k, sub in props.items():
        if not isinstance(sub, dict):
            continue
        en = sub.get("enum") or (sub.get("items") or {}).get("enum") if isinstance(sub.get("items"), dict) else sub.get("enum")
        if isinstance(en, list) and en:
            out.append(path + (k,))
        elif k in args and isinstance(args[k], dict) and len(path) < 2:
            out += find_enum(sub, args[k], path + (k,))
    return out

def set_path(d, path, v):
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = v

def mutations(schema, base, rng):
    """Deterministic broken variants of a call (each names what it did)."""
    out = []
    if not isinstance(base, dict):
        return out
    schema = schema if isinstance(schema, dict) else {}
    req = [k for k in (schema.get("required") or []) if isinstance(k, str) and k in base] \
        if isinstance(schema.get("required"), list) else []
    if req:
        a = copy.deepcopy(base); del a[rng.choice(req)]
        out.append(a)
    if base:
        k = rng.choice(sorted(base))
        a = copy.deepcopy(base); a[k] = retype(a[k])
        out.append(a)
    a = copy.deepcopy(base); a["unexpected_extra_property"] = "surprise"
    out.append(a)
    enums = find_enum(schema, base)
    if enums:
        path = rng.choice(enums)
        a = copy.deepcopy(base)
        props, node = schema, None
        for k in path:
            node = props.get("properties", {}).get(k, {}); props = node
        set_path(a, path, ["NOT_AN_ENUM_VALUE"] if node.get("type") == "array" else "NOT_AN_ENUM_VALUE")
        out.append(a)
    return out

def make_calls(key, schema, recorded):
    rng = random.Random("tool-corpus/" + key)
    seen, calls = set(), []
    small = [a for a in recorded if len(json.dumps(a)) <= MAX_RECORDED]
    recorded = small or sorted(recorded, key=lambda a: len(json.dumps(a)))[:1]
    for a in recorded:
        j = json.dumps(a, sort_keys=True)
        if j not in seen and len(calls) < 3:
            seen.add(j); calls.append({"args": a, "origin": "recorded"})
    base = recorded[0] if recorded and isinstance(recorded[0], dict) else None
    if base is None:
        base = sample(schema, rng) if isinstance(schema, dict) else {}
        if not isinstance(base, dict):
            base = {}
        calls.append({"args": base, "origin": "mutated"}); seen.add(json.dumps(base, sort_keys=True))
    for a in mutations(schema, base, rng):
        j = json.dumps(a, sort_keys=True)
        if j not in seen and len(calls) < MAX_CALLS:
            seen.add(j); calls.append({"args": a, "origin": "mutated"})
    return calls

# -- sources ---------------------------------------------------------------------------------
# Packages whose package.json does not name the license plainly (checked by hand).
MCP_REFERENCE = ("Apache-2.0 (MIT for contributions not yet relicensed), see "
                 "https://github.com/modelcontextprotocol/servers/blob/main/LICENSE")
LICENSE_OVERRIDES = {
    "@modelcontextprotocol/server-everything": MCP_REFERENCE,
    "@modelcontextprotocol/server-filesystem": MCP_REFERENCE,
    "@modelcontextprotocol/server-memory": MCP_REFERENCE,
    "@modelcontextprotocol/server-sequential-thinking": MCP_REFERENCE,
}
# Only permissive licenses; e.g. @sentry/mcp-server (FSL-1.1-ALv2) and @mapbox/mcp-server
# (Mapbox TOS) answered tools/list but are left out for that reason.
PERMISSIVE = ("MIT", "Apache-2.0", "ISC", "BSD-2-Clause", "BSD-3-Clause")

def mcp_servers(scratch):
    tools, sources = [], []
    for s in json.load(open(os.path.join(scratch, "mcp-tools.json"))):
        s["license"] = LICENSE_OVERRIDES.get(s["package"], s["license"])
        if not s["tools"] or not str(s["license"]).startswith(PERMISSIVE):
            if s["tools"]:
                print(f"left out {s['package']}: license {s['license']}", file=sys.stderr)
            continue
        name = f"{s['registry']}:{s['package']}@{s['version']}"
        url = (f"https://www.npmjs.com/package/{s['package']}/v/{s['version']}" if s["registry"] == "npm"
               else f"https://pypi.org/project/{s['package']}/{s['version']}/")
        sources.append({"name": name, "kind": "mcp-server (tools/list over stdio)", "url": url,
                        "license": s["license"], "copyright": s["copyright"]})
        for t in s["tools"]:
            tools.append((name, s["package"], t, []))
    return tools, sources

def livemcpbench(repo):
    name = "LiveMCPBench"
    tools, index = [], {}
    for entry in json.loads(read(repo, "tools/LiveMCPTool/tools.json")):
        for key, srv in (entry.get("tools") or {}).items():
            for t in srv.get("tools") or []:
                rec = []
                tools.append((name, srv.get("server_name") or key, t, rec))
                index.setdefault((srv.get("server_name") or key, t["name"]), rec)
                index.setdefault((key, t["name"]), rec)
    files = ls(repo, "baseline/output") + [f for d in ls(repo, "evaluator/output") for f in ls(repo, d)]
    for f in files:
        if not f.endswith(".json"):
            continue
        for task in json.loads(read(repo, f)):
            for m in task.get("messages", []):
                for tc in m.get("tool_calls") or []:
                    if tc["function"]["name"] != "execute-tool":
                        continue
                    try:
                        a = json.loads(tc["function"]["arguments"])
                    except ValueError:
                        continue
                    params = a.get("params")
                    if isinstance(params, str):
                        try:
                            params = json.loads(params)
                        except ValueError:
                            pass
                    rec = index.get((a.get("server_name"), a.get("tool_name")))
                    if rec is not None and params is not None:
                        rec.append(params)
    return tools, [{"name": name, "kind": "MCP benchmark (tool catalog + agent trajectories)",
                    "url": "https://github.com/icip-cas/LiveMCPBench", "license": "Apache-2.0",
                    "copyright": "no copyright line in the repository (its LICENSE is the bare Apache-2.0 text); authors: the LiveMCPBench team, ICIP-CAS"}]

def bfcl_pick(opts):
    """The first accepted value of a BFCL ground-truth option list (None: leave it out)."""
    for o in opts if isinstance(opts, list) else [opts]:
        if o != "":
            return (True, bfcl_value(o))
    return (False, None)

def bfcl_value(v):
    if isinstance(v, dict):
        out = {}
        for k, opts in v.items():
            ok, x = bfcl_pick(opts)
            if ok:
                out[k] = x
        return out
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return [bfcl_value(x) for x in v]
    return v

GORILLA_TO_OPENAPI = {"integer": "integer", "number": "number", "float": "number", "string": "string",
    "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array", "dict": "object",
    "object": "object", "tuple": "array", "any": "string", "byte": "integer", "short": "integer",
    "long": "integer", "double": "number", "char": "string", "ArrayList": "array", "Array": "array",
    "HashMap": "object", "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
    "String": "string", "Bigint": "integer"}

def bfcl_cast(props, mapping=GORILLA_TO_OPENAPI):
    """Port of BFCL's `_cast_to_openai_type` (bfcl_eval/model_handler/utils.py)."""
    for key, value in props.items():
        if "type" not in value:
            value["type"] = "string"
        else:
            t = value["type"]
            if t == "float":
                value["format"] = "float"
                value["description"] = value.get("description", "") + " This is a float type value."
            value["type"] = mapping.get(t, "string")
        if value["type"] in ("array", "object"):
            if "properties" in value:
                value["properties"] = bfcl_cast(value["properties"], mapping)
            elif "items" in value:
                value["items"]["type"] = mapping[value["items"]["type"]]
                if value["items"]["type"] == "array" and "items" in value["items"]:
                    value["items"]["items"]["type"] = mapping[value["items"]["items"]["type"]]
                elif value["items"]["type"] == "object" and "properties" in value["items"]:
                    value["items"]["properties"] = bfcl_cast(value["items"]["properties"], mapping)
    return props

def bfcl_openapi(params):
    p = copy.deepcopy(params)
    p["type"] = "object"
    p["properties"] = bfcl_cast(p.get("properties", {}))
    return p

def bfcl(repo):
    raw, conv = [], []
    by_key = {}
    for cat in BFCL_SETS:
        answers = {a["id"]: a["ground_truth"] for a in lines(repo, f"{BFCL_DIR}/possible_answer/BFCL_v4_{cat}.json")}
        for entry in lines(repo, f"{BFCL_DIR}/BFCL_v4_{cat}.json"):
            funcs = {f["name"]: f for f in entry["function"]}
            calls = {}
            for gt in answers.get(entry["id"], []):
                for fname, args in gt.items():
                    calls.setdefault(fname, []).append(bfcl_value(args))
            for fname, f in funcs.items():
                k = (fname, json.dumps(f.get("parameters"), sort_keys=True))
                if k not in by_key:
                    by_key[k] = {"f": f, "calls": [], "cat": cat}
                by_key[k]["calls"] += calls.get(fname, [])
    for k, v in by_key.items():
        f = v["f"]
        t = {"name": f["name"], "description": f.get("description", ""), "inputSchema": f.get("parameters")}
        raw.append(("BFCL", f"BFCL {v['cat']}", t, v["calls"]))
        try:
            t2 = dict(t, inputSchema=bfcl_openapi(f.get("parameters") or {}))
            conv.append(("BFCL-openapi", f"BFCL {v['cat']}", t2, v["calls"]))
        except (KeyError, TypeError, AttributeError):
            conv.append(None)  # kept aligned with `raw`
    lic = {"license": "Apache-2.0", "copyright": "no copyright line in the repository (its LICENSE is the bare Apache-2.0 text); authors: the Gorilla / BFCL team, UC Berkeley"}
    return raw, conv, [
        {"name": "BFCL", "kind": "function-calling benchmark (functions + ground truth)",
         "url": "https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard/bfcl_eval/data", **lic},
        {"name": "BFCL-openapi", "kind": "the same, types converted by BFCL's GORILLA_TO_OPENAPI",
         "url": "https://github.com/ShishirPatil/gorilla/blob/main/berkeley-function-call-leaderboard/bfcl_eval/model_handler/utils.py", **lic}]

def entry_of(source, server, t, recorded):
    schema = t.get("inputSchema")
    key = f"{server}/{t.get('name')}/{json.dumps(schema, sort_keys=True)}"
    calls = make_calls(hashlib.sha256(key.encode()).hexdigest(), schema, recorded)
    e = {"source": source, "server": server, "name": t.get("name"), "description": t.get("description"),
         "inputSchema": schema, "calls": calls}
    err = oracle(schema, calls)
    if err:
        e["oracle_error"] = err
        for c in calls:
            c.pop("valid", None)
    else:
        e["calls"] = [{"args": c["args"], "valid": c["valid"], "origin": c["origin"]} for c in calls]
    return e

def dump(sources, tools):
    head = json.dumps({"sources": sources}, ensure_ascii=False, separators=(",", ":"))[:-1]
    body = ",\n".join(json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in tools)
    return head + ',\n"tools":[\n' + body + "\n]}\n"

def build(scratch, gorilla, live, out):
    mcp, mcp_src = mcp_servers(scratch)
    lmb, lmb_src = livemcpbench(live)
    braw, bconv, bsrc = bfcl(gorilla)
    seen, groups = set(), {}
    def fresh(server, t):
        k = (server, t.get("name"), json.dumps(t.get("inputSchema"), sort_keys=True))
        new = k not in seen
        seen.add(k)
        return new
    for name, group in [("mcp", mcp), ("lmb", lmb)]:
        for source, server, t, rec in group:
            if fresh(server, t):
                groups.setdefault(name, []).append(entry_of(source, server, t, rec))
    pairs = []  # (BFCL entry, its BFCL-openapi entry or None when that one is a duplicate)
    for r, c in zip(braw, bconv):
        if fresh(r[1], r[2]):
            pairs.append((entry_of(*r), entry_of(*c) if c and fresh(c[1], c[2]) else None))
    # Everything from live MCP servers and LiveMCPBench; BFCL (the largest) sampled to fit
    # SIZE_LIMIT, with a fixed seed, the same functions in both of its variants.
    tools, big, keep = [], {}, set()
    by_server = {}
    for e in groups.get("mcp", []) + groups.get("lmb", []):
        by_server.setdefault((e["source"], e["server"]), []).append(id(e))
    for k, ids in by_server.items():
        keep |= set(random.Random(f"{k[0]}/{k[1]}").sample(ids, min(len(ids), PER_SERVER)))
    print("servers sampled down to", PER_SERVER, "tools:",
          {k[1]: len(v) for k, v in by_server.items() if len(v) > PER_SERVER}, file=sys.stderr)
    for e in groups.get("mcp", []) + groups.get("lmb", []):
        if id(e) not in keep:
            continue
        if len(json.dumps(e["inputSchema"], ensure_ascii=False, separators=(",", ":"))) > BIG_SCHEMA:
            big[e["server"]] = big.get(e["server"], 0) + 1
            if big[e["server"]] > BIG_PER_SERVER:
                continue
        tools.append(e)
    print("giant schemas thinned:", {k: v - BIG_PER_SERVER for k, v in big.items() if v > BIG_PER_SERVER},
          file=sys.stderr)
    rng = random.Random(2026)
    idx = [i for i, (r, _) in enumerate(pairs)
           if any(c["origin"] == "recorded" for c in r["calls"])]  # functions with ground truth
    rng.shuffle(idx)
    sources = mcp_src + lmb_src + bsrc
    chosen = []
    size = len(dump(sources, tools))
    for i in idx:
        add = [e for e in pairs[i] if e]
        extra = sum(len(json.dumps(x, ensure_ascii=False, separators=(",", ":"))) + 2 for x in add)
        if size + extra > SIZE_LIMIT - 20_000:
            continue
        size += extra
        chosen += add
    tools += chosen
    open(out, "w", encoding="utf-8").write(dump(sources, tools))
    print(f"{len(tools)} tools, {size} bytes", file=sys.stderr)

# ---------------------------------------------------------------------------------------------
# `stats OUT.json`: how often each schema quirk occurs (tools having it at least once).
KNOWN = {"$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment",
         "$vocabulary", "definitions", "type", "enum", "const", "properties", "required",
         "additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties",
         "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
         "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains",
         "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength", "maxLength",
         "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
         "multipleOf", "anyOf", "allOf", "oneOf", "not", "if", "then", "else", "title",
         "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
         "contentEncoding", "contentMediaType", "contentSchema"}
JSON_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
              "propertyNames", "additionalItems", "unevaluatedProperties", "unevaluatedItems")

def nodes(n, top=True):
    if not isinstance(n, dict):
        return
    yield n, top
    for k in SCHEMA_MAPS:
        if isinstance(n.get(k), dict):
            for v in n[k].values():
                yield from nodes(v, False)
    for k in SCHEMA_LISTS:
        if isinstance(n.get(k), list):
            for v in n[k]:
                yield from nodes(v, False)
    for k in SCHEMA_ONE:
        if isinstance(n.get(k), dict):
            yield from nodes(n[k], False)
        elif k == "items" and isinstance(n.get(k), list):
            for v in n[k]:
                yield from nodes(v, False)

def quirks(schema):
    q = set()
    if not isinstance(schema, dict):
        return {"schema not an object"}
    if "$schema" in schema:
        q.add(f"$schema ({schema['$schema']})")
    if schema.get("type") != "object":
        q.add(f"top-level type {schema.get('type')!r}")
    if schema.get("additionalProperties") is False:
        q.add("top-level additionalProperties: false")
    elif schema.get("additionalProperties") is None:
        q.add("top-level open object (no additionalProperties)")
    else:
        q.add("top-level additionalProperties: true/schema")
    if not schema.get("properties"):
        q.add("no properties at top level")
    for n, top in nodes(schema):
        for k in n:
            if k not in KNOWN:
                q.add("non-standard keyword: " + (k if not k.startswith("x-") else "x-*"))
        if "default" in n and n["default"] is None:
            q.add("default: null")
        for k in ("anyOf", "allOf", "oneOf", "not", "if", "$ref", "$defs", "definitions",
                  "const", "patternProperties", "prefixItems", "format", "pattern", "examples"):
            if k in n:
                q.add(k if k != "format" else f"format: {n['format']}")
        t = n.get("type")
        if isinstance(t, list):
            q.add("type array" + (" with null" if "null" in t else ""))
        elif isinstance(t, str) and t not in JSON_TYPES:
            q.add(f"non-JSON-Schema type ({t})")
        if isinstance(n.get("required"), bool):
            q.add("required: true/false on a property")
        if n.get("nullable") is not None:
            q.add("nullable")
        if t == "object" and not top and not n.get("properties") and "additionalProperties" not in n:
            q.add("free-form nested object")
        if isinstance(n.get("enum"), list) and isinstance(t, str):
            py = {"string": str, "integer": int, "number": (int, float), "boolean": bool}.get(t)
            if py and any(not isinstance(v, py) or (t != "boolean" and isinstance(v, bool)) for v in n["enum"]):
                q.add("enum disagrees with type")
        if isinstance(n.get("anyOf"), list) and {"type": "null"} in n["anyOf"]:
            q.add("anyOf with {type: null}")
        if isinstance(n.get("required"), list) and isinstance(n.get("properties"), dict):
            if any(r not in n["properties"] for r in n["required"]):
                q.add("required names a missing property")
    return q

def stats(path):
    import collections
    d = json.load(open(path, encoding="utf-8"))
    by, calls, oe = collections.Counter(), collections.Counter(), []
    per_src = collections.defaultdict(collections.Counter)
    for t in d["tools"]:
        src = t["source"] if ":" not in t["source"] else "mcp-servers"
        per_src[src]["tools"] += 1
        for c in t["calls"]:
            per_src[src][f"{c['origin']} {'valid' if c.get('valid') else 'invalid' if 'valid' in c else 'no verdict'}"] += 1
        if "oracle_error" in t:
            oe.append((t["source"], t["name"], t["oracle_error"]))
        for q in quirks(t["inputSchema"]):
            by[(src, q)] += 1
    for src, c in per_src.items():
        print(src, dict(c))
    allq = collections.Counter()
    for (src, q), n in by.items():
        allq[q] += n
    for q, n in allq.most_common():
        print(f"{n:6d}  {q}   " + ", ".join(f"{s}={by[(s, q)]}" for s in per_src if by[(s, q)]))
    errs = collections.Counter((s if ":" not in s else "mcp-servers", e.split(":")[0] + ": " + e.split(":", 1)[1][:70]) for s, _, e in oe)
    print(len(oe), "oracle errors")
    for k, n in errs.most_common(25):
        print(n, k)


if __name__ == "__main__":
    if sys.argv[1:2] == ["harvest"]:
        harvest(sys.argv[2])
    elif sys.argv[1:2] == ["build"]:
        build(*sys.argv[2:6])
    elif sys.argv[1:2] == ["stats"]:
        stats(sys.argv[2])
    else:
        sys.exit(__doc__)
