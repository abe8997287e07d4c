#!/usr/bin/env python3
"""rows_torch.py - torch on the row-reduction cases of bench/rows.tsv, in the
same call as bench/rows-bench (bench/run-gpu.sh, step rows): softmax,
logsumexp, log_softmax, rms_norm and layer_norm over the last axis, outputs in the input's
dtype (as torch returns them), 5 warm-up calls then the median of 50 each
timed by CUDA events.  One JSON line per case, as rows-bench writes:
  {"id": ..., "impl": "torch", "ms": ..., "gbps": ...}
GB/s counts the input read and the outputs written once (rmsnorm: Y only,
torch keeps no per-row statistic).  Run on the GPU machine only; never part
of the build."""
import argparse
import json
import sys

import torch

p = argparse.ArgumentParser()
p.add_argument("--cases", default="bench/rows.tsv")
p.add_argument("--only", default="")
a = p.parse_args()
only = set(x for x in a.only.split(",") if x)
dtypes = {"bf16": torch.bfloat16, "fp16": torch.float16, "f32": torch.float32}


def op(plan, x):
    if plan == "softmax":
        return lambda: torch.softmax(x, -1)
    if plan == "logsumexp":
        return lambda: torch.logsumexp(x, -1)
    if plan == "logsoftmax":
        return lambda: torch.log_softmax(x, -1)
    if plan == "rmsnorm":
        return lambda: torch.nn.functional.rms_norm(x, (x.shape[-1],), eps=1e-6)
    if plan == "layernorm":
        w = torch.rand(x.shape[-1], device=x.device).to(x.dtype)
        b = torch.rand(x.shape[-1], device=x.device).to(x.dtype)
        return lambda: torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)
    return None


for line in open(a.cases):
    if line.startswith("#") or not line.strip():
        continue
    cid, plan, dtn, rows, cols = line.split()[:5]
    if only and cid not in only:
        continue
    rows, cols = int(rows), int(cols)
    x = (torch.rand(rows, cols, device="cuda") * 8 - 4).to(dtypes[dtn])
    f = op(plan, x)
    if f is None:
        print(f"{cid}: no torch operator for {plan}", file=sys.stderr)
        continue
    try:
        for _ in range(5):
            y = f()
        ts = []
        for _ in range(50):
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            y = f()
            e1.record()
            e1.synchronize()
            ts.append(e0.elapsed_time(e1))
    except Exception as exc:  # an operator this torch lacks: reported, not fatal
        print(f"{cid}: torch failed: {exc}", file=sys.stderr)
        continue
    ts.sort()
    ms = ts[len(ts) // 2]
    nbytes = x.numel() * x.element_size() + y.numel() * y.element_size()
    gbps = nbytes / (ms * 1e-3) / 1e9
    print(json.dumps({"id": cid, "impl": "torch", "ms": round(ms, 5), "gbps": round(gbps, 1)}))
    print(f"{cid:24s} torch   {ms:9.4f} ms {gbps:8.1f} GB/s", file=sys.stderr)
    sys.stdout.flush()
    del x, y
