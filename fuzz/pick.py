#!/usr/bin/env python3
"""pick.py TARGET...: copies at most 40 files of min/TARGET (the -merge=1 minimized corpus),
spread evenly over their sizes, into corpus/TARGET, keeping its regression-* files."""
import os, shutil, sys
root = os.path.dirname(os.path.abspath(__file__))
for t in sys.argv[1:]:
    src = os.path.join(root, "min", t)
    dst = os.path.join(root, "corpus", t)
    files = sorted((os.path.getsize(os.path.join(src, f)), f) for f in os.listdir(src))
    files = [f for f in files if f[0] <= 2048]
    n = 40
    if len(files) > n:
        files = [files[round(i * (len(files) - 1) / (n - 1))] for i in range(n)]
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(dst):
        if not f.startswith("regression-"):
            os.remove(os.path.join(dst, f))
    for _, f in files:
        shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    print(t, len(os.listdir(dst)), "files", sum(os.path.getsize(os.path.join(dst, f)) for f in os.listdir(dst)), "bytes")
