#!/usr/bin/env python3
"""The median over passes of each case (ms, and the figure of merit at that
median) of the fusegen-bench files given, as one fusegen.jsonl on stdout
(for compare.py).  usage: median.py t1.jsonl t2.jsonl ..."""
import json, statistics, sys
head, rows = None, {}
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if "case" not in r:
            head = head or r
            continue
        rows.setdefault(r["case"], []).append(r)
print(json.dumps(head))
for c, rs in rows.items():
    rs.sort(key=lambda r: r["ms"])
    m = rs[(len(rs) - 1) // 2]          # the lower median: a measured row
    print(json.dumps(m))
