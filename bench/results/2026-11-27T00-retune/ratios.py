#!/usr/bin/env python3
"""Median over passes of each case's time for the tuned dispatch (t*.jsonl),
the default rules (u*.jsonl) and the other device's rows (o*.jsonl); prints
per case untuned/tuned and other/tuned, then geomean, best and worst.
usage: ratios.py DIR   (the jsonl files of one device's call)"""
import glob, json, math, statistics, sys

def load(pattern):
    t = {}
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            r = json.loads(line)
            if "case" in r and r.get("ms"):
                t.setdefault(r["case"], []).append(r["ms"])
    return {c: statistics.median(v) for c, v in t.items()}, len(glob.glob(pattern))

d = sys.argv[1]
t, nt = load(d + "/t*.jsonl")
u, nu = load(d + "/u*.jsonl")
o, no = load(d + "/o*.jsonl")
print(f"passes: tuned {nt}, untuned {nu}, other's {no}; ratio = time / tuned time (above 1: tuned faster)")
print(f"{'case':<18}{'tuned ms':>10}{'untuned/t':>11}{'other/t':>9}")
ru, ro = [], []
for c in t:
    a, b = u[c] / t[c], o[c] / t[c]
    ru.append((a, c)); ro.append((b, c))
    print(f"{c:<18}{t[c]:>10.4f}{a:>11.3f}{b:>9.3f}")
for name, r in (("untuned/tuned", ru), ("other's/tuned", ro)):
    g = math.exp(sum(math.log(x) for x, _ in r) / len(r))
    print(f"{name}: geomean {g:.3f}, best {max(r)[0]:.3f} ({max(r)[1]}), worst {min(r)[0]:.3f} ({min(r)[1]})")
