#!/bin/sh
# Call 3 (twenty-fifth session): call 2's ncu step again (its case files were read from the
# wrong folder), on the same warm machine's T build (/tmp/binT from call 2).
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; mkdir -p $W
ls -la /tmp/binT > $W/checks.txt 2>&1 || exit 1
for c in docmask-pf-8k docmask-pf-32k causal-pf-8k; do
  (grep '^#' bench/variants.tsv; grep -E "^$c	" bench/variants.tsv) > /tmp/n-$c.tsv
  (cd /tmp/binT && timeout `left 280` ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy --section SchedulerStats ./fusegen-bench --cases /tmp/n-$c.tsv --out /tmp/n.jsonl > $W/ncu-$c.txt 2>&1)
  echo "ncu $c rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
done
cat $W/checks.txt | tail -3
for c in docmask-pf-8k docmask-pf-32k causal-pf-8k; do echo "== ncu $c"; grep -E "Throughput|Duration|Pipe|Stall|Warp Cycles|Eligible|Issued Warp|Achieved Occ|L2 Hit|Executed Ipc A|No Eligible|Active Warps" $W/ncu-$c.txt | sed 's/  */ /g' | head -40; done
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
