#!/usr/bin/env python3
"""Builds pedelec-core/tests/data/search-eval.json, the search evaluation set, from two public
benchmarks (run once; the output is committed):

- BFCL (gorilla, Apache-2.0): the functions of `simple_python`, `live_simple`, `multiple` and
  `live_multiple` as one catalog (each name once), and their questions with the function
  each one calls (from `possible_answer` for the `multiple` sets);
- MetaTool (MIT): its 199 tools and, per tool, up to 6 of the ToolE queries labelled with it
  (a fixed seed).

Usage: gen_search_eval.py GORILLA_CHECKOUT METATOOL_CHECKOUT OUT.json
(the checkouts may be git directories without a work tree: files are read with `git show`).
"""
import csv, io, json, random, subprocess, sys

def read(repo, path):
    try:
        return open(f"{repo}/{path}", encoding="utf-8").read()
    except FileNotFoundError:
        return subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], check=True,
                              capture_output=True, text=True).stdout

def lines(repo, path):
    return [json.loads(l) for l in read(repo, path).splitlines() if l.strip()]

def args_of(params, depth=0):
    """The argument names and descriptions of a BFCL `parameters`, as a plain object schema."""
    props = {}
    for name, p in (params or {}).get("properties", {}).items():
        node = {"type": "string"}
        if isinstance(p, dict) and p.get("description"):
            node["description"] = str(p["description"])[:600]
        if isinstance(p, dict) and depth < 2 and p.get("properties"):
            node = {"type": "object", "properties": args_of(p, depth + 1)["properties"],
                    **({"description": node["description"]} if "description" in node else {})}
        props[name] = node
    return {"type": "object", "properties": props}

def bfcl(repo):
    d = "berkeley-function-call-leaderboard/bfcl_eval/data"
    tools, queries = {}, []
    for name in ["simple_python", "live_simple", "multiple", "live_multiple"]:
        answers = {}
        if "multiple" in name:
            for a in lines(repo, f"{d}/possible_answer/BFCL_v4_{name}.json"):
                truth = a["ground_truth"]
                if len(truth) == 1:
                    answers[a["id"]] = next(iter(truth[0]))
        for entry in lines(repo, f"{d}/BFCL_v4_{name}.json"):
            for f in entry["function"]:
                if f["name"] not in tools and f.get("description"):
                    tools[f["name"]] = {"name": f["name"], "description": f["description"][:1500],
                                        "argsSchema": args_of(f.get("parameters"))}
            gold = entry["function"][0]["name"] if "multiple" not in name else answers.get(entry["id"])
            turn = entry["question"][0]
            text = " ".join(m["content"] for m in turn if m.get("role") == "user")
            if gold and gold in tools and text.strip():
                queries.append({"query": text[:1000], "gold": gold})
    return list(tools.values()), queries

def metatool(repo):
    des = json.loads(read(repo, "dataset/plugin_des.json"))
    rows = list(csv.DictReader(io.StringIO(read(repo, "dataset/data/all_clean_data.csv"))))
    by_tool = {}
    for r in rows:
        by_tool.setdefault(r["Tool"], []).append(r["Query"])
    rng = random.Random(2026)
    queries = []
    for tool in sorted(by_tool):
        qs = sorted(set(by_tool[tool]))
        rng.shuffle(qs)
        queries += [{"query": q, "gold": tool} for q in qs[:6]]
    tools = [{"name": n, "description": d, "argsSchema": {"type": "object", "properties": {}}}
             for n, d in des.items()]
    return tools, queries

def main():
    gorilla, meta, out = sys.argv[1:4]
    sets = []
    for name, source, license, (tools, queries) in [
        ("bfcl", "https://github.com/ShishirPatil/gorilla (berkeley-function-call-leaderboard, BFCL v4)", "Apache-2.0", bfcl(gorilla)),
        ("metatool", "https://github.com/HowieHwong/MetaTool (ToolE dataset)", "MIT", metatool(meta)),
    ]:
        sets.append({"name": name, "source": source, "license": license,
                     "tools": tools, "queries": queries})
        print(f"{name}: {len(tools)} tools, {len(queries)} queries", file=sys.stderr)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"sets": sets}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")

main()
