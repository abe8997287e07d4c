#!/bin/sh
# Call 4 (twenty-fifth session): where docmask-pf-8k's consumer warps stall, per SASS
# instruction: ncu with source counters and warp states on one launch of T's build (/tmp/binT
# from call 2, the same warm machine), the report exported as per-instruction CSV.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; mkdir -p $W
c=docmask-pf-8k
(grep '^#' bench/variants.tsv; grep -E "^$c	" bench/variants.tsv) > /tmp/n-$c.tsv
cd /tmp/binT || exit 1
timeout `left 200` ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats --section InstructionStats -o /tmp/dm8k -f ./fusegen-bench --cases /tmp/n-$c.tsv --out /tmp/n.jsonl > $W/ncu-run.txt 2>&1
echo "ncu rc $?" >> $W/checks.txt
ncu --import /tmp/dm8k.ncu-rep --page details --print-details all > $W/details.txt 2>&1
ncu --import /tmp/dm8k.ncu-rep --page source --csv --print-source sass > $W/sass.csv 2>$W/sass.err
echo "export rc $? `wc -l < $W/sass.csv` lines" >> $W/checks.txt
cuobjdump -sass -fun regex:fh_attn_fwd_kernel.*bfloat16.*fh_cfgILi128ELi64 ./fusegen-bench > $W/sass-h128d.txt 2>&1 || true
cat $W/checks.txt
grep -iE "stall|warp cycles" $W/details.txt | sed 's/  */ /g' | head -40
cd $W && gzip -9 sass.csv sass-h128d.txt 2>/dev/null; tar czf $OUT/call4.tgz . && ls -la $OUT $W
