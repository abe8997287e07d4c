#!/bin/sh
# Call 3 (thirty-fifth session): the retuned rows (call 2) against the carried
# ones.  A = 32fee41's generated/ (.carry/genA: the wisdom carried over QR),
# B = the working tree (the same kernels, the bf16 D 128 rows of six plans
# retuned).  Both built side by side; B's gpu_check --small; then A and B
# alternately, 2 s a case, twice, on every prefill case of bench/cases.tsv.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
rm -rf /tmp/srcA && cp -a . /tmp/srcA && cp .carry/genA/generated/* /tmp/srcA/generated/ && touch /tmp/srcA/generated/stamp
( cd /tmp/srcA && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench >> build.log 2>&1; echo "A build rc $?" ) > $W/build-A.txt 2>&1 &
touch generated/stamp
OUT=$W/b RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-b.log 2>&1
wait
cat $W/build-A.txt
[ -x $B/tests/gpu_check ] || { echo "B build failed"; tail -30 $W/run-b.log; exit 1; }
[ -x /tmp/srcA/b/bench/fusegen-bench ] || { echo "A build failed"; tail -30 /tmp/srcA/b/build.log; }
echo "built at $(( `date +%s` - T0 )) s"
(cd $B && timeout 100 ./tests/gpu_check --small) > $W/smallB.txt 2>&1; echo "B --small rc $?: `grep -E 'passed, .* failed' $W/smallB.txt`"
{ grep '^# id' bench/cases.tsv; grep -E -- '-pf-' bench/cases.tsv; } > $W/pf.tsv
for r in 1 2; do for V in A B; do
  if [ $V = A ]; then bb=/tmp/srcA/b/bench/fusegen-bench; else bb=$B/bench/fusegen-bench; fi
  [ `left 560` -gt 50 ] || break 2
  timeout `left 580` $bb --cases $W/pf.tsv --seconds 2 --out $W/$V-$r.jsonl > $W/$V-$r.txt 2>&1
  echo "== $V run $r at $(( `date +%s` - T0 )) s"
done; done
python3 - $W <<'PY'
import json,sys,glob,os
W=sys.argv[1]; res={}
for f in sorted(glob.glob(W+'/[AB]-[12].jsonl')):
    v=os.path.basename(f)[:3]
    for l in open(f):
        try: d=json.loads(l)
        except Exception: continue
        if 'case' in d: res.setdefault(d['case'],{})[v]=d.get('tflops')
cols=['A-1','B-1','A-2','B-2']
print('case'.ljust(16),' '.join(c.rjust(7) for c in cols))
for c,r in res.items(): print(c.ljust(16),' '.join(('%7.1f'%r[k]) if r.get(k) else '      -' for k in cols))
PY
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls $OUT
