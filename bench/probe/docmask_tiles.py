#!/usr/bin/env python3
"""docmask's tile classes at fusegen-bench's documents (bench/fusegen-bench.c:
the same LCG, documents of 512-1535 keys), for a few row-block and key-tile
shapes, with the classes taken per group of rows (64) or per warp (16): the
share of full, masked with the span atoms known (rows and keys of one
document), masked from values (VALS) and empty (sub)tiles, and the share of
the computed elements that are visible.  No GPU; a measurement aid for
bench/NOTES.md (thirty-eighth session).

usage: bench/probe/docmask_tiles.py [N]   (keys = rows, default 8192)
"""
import sys


def doc_ids(n):
    r, left, ident, ids = 0x9E3779B97F4A7C15, 0, -1, []
    for _ in range(n):
        if left == 0:
            r = (r * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            left = 512 + ((r >> 33) % 1024)
            ident += 1
        ids.append(ident)
        left -= 1
    return ids


def run(s, bm, bn, wr):
    n = len(s)
    start = {}
    for j, v in enumerate(s):
        start.setdefault(v, j)
    cnt = {"full": 0, "known": 0, "vals": 0, "none": 0}
    tiles = pairs = 0
    for m0 in range(0, n, bm):
        m1 = min(m0 + bm, n)
        nb = min(start[s[i]] for i in range(m0, m1))
        tlo, thi = nb // bn, (m1 + bn - 1) // bn
        tiles += thi - tlo
        for t in range(tlo, thi):
            n0, n1 = t * bn, min(t * bn + bn, n)
            for w0 in range(m0, m1, wr):
                w1 = min(w0 + wr, m1)
                vis = sum(1 for i in range(w0, w1) for j in range(n0, n1) if s[j] == s[i] and j <= i)
                pairs += vis
                one = len(set(s[w0:w1])) == 1 and len(set(s[n0:n1])) == 1
                if vis == (w1 - w0) * (n1 - n0):
                    cnt["full"] += 1
                elif vis == 0:
                    cnt["none"] += 1
                else:
                    cnt["known" if one else "vals"] += 1
    tot = sum(cnt.values())
    shares = ", ".join("%s %.1f %%" % (k, 100.0 * v / tot) for k, v in cnt.items())
    print("BM %d BN %d, classes per %d rows: %d tiles, %s; %.1f %% of the computed elements visible"
          % (bm, bn, wr, tiles, shares, 100.0 * pairs / (tiles * bm * bn)))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    s = doc_ids(n)
    for bm, bn, wr in ((64, 64, 64), (64, 64, 16), (128, 128, 64), (128, 128, 16)):
        run(s, bm, bn, wr)


if __name__ == "__main__":
    main()
