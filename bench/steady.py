#!/usr/bin/env python3
"""fusegen and its peer in steady state, case by case, in one process.

A GPU that holds its power at a limit (an H200 at 700 W under these
kernels) lowers its clock while a kernel runs, so a 30-launch median
depends on what ran just before it: the same case's median moved by a
quarter between passes of one call (bench/NOTES.md, 2026-11-29).  Here each
case runs about --seconds back to back, first by fusegen-bench --seconds,
then by its peer, and each reports the median of the second half of its
launches, when the clock has settled to what the case itself draws.

The peer is timed by the shared bench's own peers.py (named by --peers-py
and imported: its case definitions and run_case as they are; only its
bench_ms, 3 warm-ups and a median of 25, is replaced by variants_flex.py's
loop with --seconds): cuDNN through SDPA where SDPA can express the case, else
FlexAttention.  With nvidia-smi on the path, the SM clock, the
instantaneous power and the active clock-event reasons are sampled every
20 ms, and each phase reports their mean over its busy samples.

usage: steady.py --bench PATH/fusegen-bench --peers-py PATH/peers.py
                 [--cases bench/cases.tsv] [--only ID,ID] [--seconds 3]
                 [--out FILE]
Writes one JSON object per case (both programs' ms and TFLOP/s, clocks,
power) to --out and a table to stdout.  Needs a CUDA machine with PyTorch;
not part of `make check`.
"""
import argparse
import contextlib
import datetime
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SMI_FIELDS = ["timestamp", "clocks.sm", "power.draw.instant", "utilization.gpu",
              "clocks_event_reasons.active"]


def load_peers(path):
    """peers.py as the module "peers", importable by name: torch.compile's
    workers import the module of the score_mod they compile (loaded from a
    spec alone, Flex failed with "No module named 'peers'", 2026-11-29)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("peers", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["peers"] = mod
    spec.loader.exec_module(mod)
    return mod


def start_smi(path):
    """nvidia-smi sampling into path, or None where it cannot run."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None, None
    fields = list(SMI_FIELDS)
    probe = subprocess.run([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"],
                           capture_output=True, text=True)
    if probe.returncode != 0:  # an older driver: the averaged power
        fields[2] = "power.draw"
    proc = subprocess.Popen([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits",
                             "-lms", "20"], stdout=open(path, "w"), stderr=subprocess.DEVNULL)
    return proc, fields[2]


def read_smi(path):
    rows = []
    try:
        for line in open(path):
            f = [x.strip() for x in line.split(",")]
            try:
                ts = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                rows.append((ts, float(f[1]), float(f[2]), float(f[3]), int(f[4], 16)))
            except (ValueError, IndexError):
                pass
    except OSError:
        pass
    return rows


def phase_stats(rows, t0, t1):
    """Mean SM MHz and W over the busy samples of [t0, t1]; the reasons' union."""
    s = [r for r in rows if t0 <= r[0] <= t1 and r[3] >= 90]
    if not s:
        return None
    reasons = 0
    for r in s:
        reasons |= r[4]
    return dict(samples=len(s), mhz=sum(r[1] for r in s) / len(s), watts=sum(r[2] for r in s) / len(s),
                reasons="%#x" % reasons)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="the built bench/fusegen-bench")
    ap.add_argument("--peers-py", required=True, help="the shared bench's peers.py")
    ap.add_argument("--cases", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.tsv"))
    ap.add_argument("--only", default="")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    if not 0.5 <= a.seconds <= 60:
        ap.error("--seconds must be between 0.5 and 60")

    import torch
    peers = load_peers(a.peers_py)
    secs = a.seconds

    # the timing loop of bench/variants_flex.py (beside this file), in its
    # steady-state form
    from variants_flex import bench_ms
    peers.bench_ms = lambda fn, reps=25: bench_ms(fn, reps, seconds=secs)
    cases = peers.read_cases(a.cases)
    if a.only:
        keep = set(a.only.split(","))
        cases = [c for c in cases if c["id"] in keep]
    flex = None
    tmp = tempfile.mkdtemp(prefix="fg-steady.")
    smi_path = os.path.join(tmp, "smi.csv")
    smi, power_field = start_smi(smi_path)
    sink = open(a.out, "w") if a.out else None
    results = []
    try:
        for c in cases:
            fj = os.path.join(tmp, c["id"] + ".jsonl")
            f0 = time.time()
            subprocess.run([a.bench, "--cases", a.cases, "--only", c["id"], "--seconds", str(secs),
                            "--out", fj], stderr=subprocess.DEVNULL)
            f1 = time.time()
            fg = [json.loads(l) for l in open(fj) if l.startswith('{"case"')] if os.path.exists(fj) else []
            fg = fg[0] if fg else {}
            time.sleep(1)
            plain = not c["softcap"] and not c["alibi"] and not c["window"]
            peer = "sdpa-cudnn" if plain else "flex"
            if peer == "flex" and flex is None:
                from torch.nn.attention.flex_attention import flex_attention
                flex = torch.compile(flex_attention, dynamic=False)
            p0 = time.time()
            with contextlib.redirect_stdout(sys.stderr):  # peers.py prints its rows
                rows = peers.run_case(c, [peer], "cuda", flex)
            p1 = time.time()
            pr = rows[0] if rows else {}
            smi_rows = read_smi(smi_path)
            r = dict(case=c["id"], seconds=secs, power=power_field,
                     fusegen=dict(ms=fg.get("ms"), tflops=fg.get("tflops"), kv_gbs=fg.get("kv_gbs"),
                                  launches=fg.get("launches"), config=fg.get("config"),
                                  clock=phase_stats(smi_rows, f0 + 0.5, f1)),
                     peer=dict(name=peer, ms=pr.get("ms"), tflops=pr.get("tflops"), kv_gbs=pr.get("kv_gbs"),
                               note=pr.get("note"), clock=phase_stats(smi_rows, p0 + 0.5, p1)))
            fm, pm = r["fusegen"]["ms"], r["peer"]["ms"]
            r["ratio"] = pm / fm if fm and pm else None
            results.append(r)
            if sink:
                sink.write(json.dumps(r) + "\n")
                sink.flush()
            print("steady: %s done" % c["id"], file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
            time.sleep(1)
    finally:
        if smi:
            smi.terminate()
        shutil.rmtree(tmp, ignore_errors=True)

    def clk(s):
        return "%5.0f %4.0f" % (s["mhz"], s["watts"]) if s else "    -    -"

    print("steady state, %g s a program and case (median of the second half of the launches);" % secs)
    print("MHz and W: means over the busy samples (W: %s); ratio: peer ms / fusegen ms" % power_field)
    print("%-16s %9s %10s  %-10s %9s %10s  %6s" % ("case", "fusegen", "MHz    W", "peer", "peer", "MHz    W",
                                                "ratio"))
    for r in results:
        dc = "-dc-" in r["case"]
        unit = "kv_gbs" if dc else "tflops"
        fv, pv = r["fusegen"][unit], r["peer"][unit]
        print("%-16s %9s %10s  %-10s %9s %10s  %6s" % (
            r["case"], "%.1f" % fv if fv else "-", clk(r["fusegen"]["clock"]), r["peer"]["name"],
            "%.1f" % pv if pv else "-", clk(r["peer"]["clock"]), "%.3f" % r["ratio"] if r["ratio"] else "-"))
    print("(TFLOP/s for prefill, GB/s of K+V for decode)")


if __name__ == "__main__":
    main()
