#!/usr/bin/env python3
"""FlexAttention on the attention variants of bench/variants.tsv (relbias,
docmask, diffattn as two calls and a subtraction; causal as the reference), timed as the shared peers.py times: 3
warm-ups, then each launch alone between CUDA events, the median of 25.

The inputs mean what the fusegen plans compute (plans/relbias.fp,
plans/docmask.fp) with the values bench/fusegen-bench.c gives them: a
per-head table of 64 biases read at clamp(query position - key, 0, 63);
document ids along the keys, documents of 512-1535 keys from the same
fixed pseudo-random sequence, causal inside a document.  FLOPs count 4*d
per visible (query, key) pair, as peers.py does.  Writes one JSON object
per case (peers.py's schema, peer "flex") to --out, a table to stderr.

With --seconds S, each case runs at least S seconds back to back and the
median of the second half of its launches is reported (steady state, as
fusegen-bench --seconds: a GPU at its power limit settles its clock).

usage: variants_flex.py [--cases bench/variants.tsv] [--out FILE] [--seconds S]
Needs a CUDA machine with PyTorch; not part of `make check`.
"""
import argparse
import json
import sys
import time

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def read_cases(path):
    cols, out = None, []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# id"):
            cols = line[2:].split("\t")
            continue
        if not line or line.startswith("#"):
            continue
        c = dict(zip(cols, line.split("\t")))
        for k in ("b", "hq", "hkv", "sq", "sk", "d", "causal"):
            c[k] = int(c[k])
        out.append(c)
    return out


def doc_ids(n):
    """fusegen-bench.c's document ids: the same LCG, the same lengths."""
    r, left, ident, ids = 0x9E3779B97F4A7C15, 0, -1, []
    for _ in range(n):
        if left == 0:
            r = (r * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            left = 512 + ((r >> 33) % 1024)
            ident += 1
        ids.append(ident)
        left -= 1
    return torch.tensor(ids, dtype=torch.int32)


def bench_ms(fn, reps=25, seconds=0.0):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    start = time.time()
    while len(times) < reps or time.time() - start < seconds:
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    if seconds > 0:  # steady state: the second half
        times = times[len(times) // 2:]
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="bench/variants.tsv")
    ap.add_argument("--out", default=None)
    ap.add_argument("--seconds", type=float, default=0.0)
    args = ap.parse_args()
    if not 0 <= args.seconds <= 3600:
        ap.error("--seconds must be 0 to 3600")
    dev = "cuda"
    flex = torch.compile(flex_attention, dynamic=False)
    out = open(args.out, "w") if args.out else sys.stdout
    for c in read_cases(args.cases):
        B, H, M, N, D = c["b"], c["hq"], c["sq"], c["sk"], c["d"]
        off = N - M
        g = torch.Generator(device=dev).manual_seed(0)
        q = torch.randn(B, H, M, D, device=dev, dtype=torch.bfloat16, generator=g)
        k = torch.randn(B, H, N, D, device=dev, dtype=torch.bfloat16, generator=g)
        v = torch.randn(B, H, N, D, device=dev, dtype=torch.bfloat16, generator=g)
        table = torch.randn(H, 64, device=dev, generator=g).to(torch.bfloat16).float()
        seg = doc_ids(N).to(dev).expand(B, N).contiguous()
        variant = c["variant"]
        if variant in ("sigmoid", "siggate"):  # Flex always normalises by a softmax
            print(f"{c['id']:16} flex: not expressible (no softmax chain)", file=sys.stderr)
            continue

        def causal(b, h, qi, ki):
            return ki <= qi + off

        def docmask(b, h, qi, ki):
            return (seg[0, ki] == seg[0, qi + off]) & (ki <= qi + off)

        def relbias(score, b, h, qi, ki):
            return score + table[h, (qi + off - ki).clamp(0, 63)]

        mask = docmask if variant == "docmask" else causal
        # the masks read neither the head nor (one id sequence for every
        # batch row) the batch: one block mask broadcast over both, which
        # also keeps create_block_mask's dense [B, H, M, N] pass small;
        # no mask for a non-causal row (fa1 is global attention)
        block = create_block_mask(mask, None, None, M, N, device=dev) if int(c["causal"]) else None
        mod = relbias if variant == "relbias" else None
        run = lambda: flex(q, k, v, score_mod=mod, block_mask=block, scale=D ** -0.5)
        maps = 1
        if variant == "diffattn":  # two calls and a subtraction, lam = 0.8
            q2 = torch.randn(B, H, M, D, device=dev, dtype=torch.bfloat16, generator=g)
            k2 = torch.randn(B, H, N, D, device=dev, dtype=torch.bfloat16, generator=g)
            run = lambda: (flex(q, k, v, block_mask=block, scale=D ** -0.5)
                           - 0.8 * flex(q2, k2, v, block_mask=block, scale=D ** -0.5))
            maps = 2
        ms = bench_ms(run, seconds=args.seconds)
        if variant == "docmask":
            s = seg[0].cpu()
            pos = torch.arange(N)
            start = torch.zeros(N, dtype=torch.long)
            for i in range(1, N):
                start[i] = start[i - 1] if s[i] == s[i - 1] else i
            pairs = float((pos - start + 1)[off:].sum())
        elif not int(c["causal"]):
            pairs = float(M) * N
        else:
            pairs = float(sum(min(i + off, N - 1) + 1 for i in range(M)))
        flops = 4.0 * D * B * H * pairs * maps
        rec = {"id": c["id"], "peer": "flex", "ms": ms, "tflops": flops / ms / 1e9,
               "note": variant}
        out.write(json.dumps(rec) + "\n")
        out.flush()
        print(f"{c['id']:16} flex {ms:8.3f} ms {flops / ms / 1e9:7.1f} TFLOP/s",
              file=sys.stderr)
        del q, k, v, block
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
