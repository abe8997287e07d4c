#!/usr/bin/env python3
"""Which wisdom row each benchmark case takes (fg_tune_lookup's rule: the
row of its dtype and head dim nearest its bucket (ceil(log2 keys),
ceil(log2(batch x query heads x rows))), the first of equals), for each
wisdom file given.  usage: configs.py cases.tsv WISDOM..."""
import math, sys
cases = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
def clog2(x): return max(0, math.ceil(math.log2(x)))
for wf in sys.argv[2:]:
    rows = [l.split() for l in open(wf) if l.startswith("row ")]
    print("==", wf)
    for c in cases:
        cid, plan, b, hq, hkv, sq, sk, d = c[0], c[1], *map(int, c[2:8])
        if sq == 1: plan += "_decode"
        k, w = clog2(sk), clog2(b * hq * sq)
        best = None
        for r in rows:
            if r[1] != plan or r[3] != "bf16" or int(r[4]) != d: continue
            dist = abs(int(r[5]) - k) + abs(int(r[6]) - w)
            if best is None or dist < best[0]: best = (dist, r)
        r = best[1]
        print(f"{cid:<16} bucket {k} {w}: row {r[5]} {r[6]} {r[7]:<12} {r[8]} ms, runner-up {r[9]} {r[10]} ms")
