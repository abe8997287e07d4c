#!/bin/sh
# Call 3 (forty-second session): where docmask-pf-32k's attention kernel
# spends its instructions and its stalls, per SASS instruction.  A alone (the
# committed generated/, HF).  ncu (clocks as found) on one launch of the
# attention kernel with the source counters (executed instructions and warp
# stall samples per instruction), its SASS with them as CSV; the same for
# causal-pf-32k's, to set beside; cuobjdump's SASS of docmask's library.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; A=/tmp/fg-build; mkdir -p $W/a
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/a RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run-a.log 2>&1
[ -x $A/bench/fusegen-bench ] || { echo "A build failed"; tail -30 $W/run-a.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"
{ grep '^# id' bench/variants.tsv; grep -E '^docmask-pf-32k' bench/variants.tsv; } > $W/v.tsv
{ grep '^# id' bench/cases.tsv; grep -E '^causal-pf-32k' bench/cases.tsv; } > $W/c.tsv
for c in docmask-pf-32k causal-pf-32k; do
  [ `left 540` -gt 60 ] || break
  if [ $c = docmask-pf-32k ]; then cs=$W/v.tsv; else cs=$W/c.tsv; fi
  timeout `left 540` ncu --clock-control none -k "regex:fh_attn_fwd" --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section InstructionStats --import-source no \
    -o /tmp/ncu-$c $A/bench/fusegen-bench --cases $cs --only $c --reps 20 > $W/ncu-$c.log 2>&1
  echo "ncu $c rc $? at $(( `date +%s` - T0 )) s"
  ncu -i /tmp/ncu-$c.ncu-rep --print-details all > $W/ncu-$c.txt 2>&1
  ncu -i /tmp/ncu-$c.ncu-rep --page source --csv --print-source sass > $W/sass-$c.csv 2> $W/sass-$c.err
  echo "  source page rc $?: `wc -l < $W/sass-$c.csv` lines"; head -c 300 $W/sass-$c.err
  gzip -9 $W/sass-$c.csv
done
o=`find $A -name '*docmask_cuda*.o' | head -1`; echo "object: $o"
cuobjdump -sass "$o" > $W/docmask.sass 2>&1
echo "sass: `wc -l < $W/docmask.sass` lines"; gzip -9 $W/docmask.sass
echo "done at $(( `date +%s` - T0 )) s"
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' --exclude=a . && ls -la $OUT
