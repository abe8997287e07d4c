# bench/local.mk - fusegen-bench, the benchmark of the generated CUDA
# kernels (`make bench`, JSON lines beside the shared peers.py's).  Not
# installed: a check program, built by `make check` in every configuration
# (without CUDA it only maps cases, --dry-run), so that its case mapping and
# FLOP counts are checked without a GPU (bench/dry-run-check.sh).
# bench/run-gpu.sh is the one script for a device call (docs in its header).

check_PROGRAMS += bench/fusegen-bench
BENCHMARKS += bench/fusegen-bench
bench_fusegen_bench_SOURCES = bench/fusegen-bench.c
bench_fusegen_bench_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
bench_fusegen_bench_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/generated $(AM_CPPFLAGS)
if HAVE_CUDA
bench_fusegen_bench_CPPFLAGS += $(CUDA_CPPFLAGS)
bench_fusegen_bench_LDADD = libfusegen_cuda.a libfusegen_cpu.a $(CUDA_LDFLAGS) $(CUDA_LIBS) -lm
else
bench_fusegen_bench_LDADD = libfusegen_cpu.a -lm
endif

TESTS += bench/dry-run-check.sh
EXTRA_DIST += bench/dry-run-check.sh bench/dry-run-cases.tsv bench/cases.tsv \
	bench/run-gpu.sh bench/RESULTS.md

# bench/plot: the committed results as a bar chart (bench/results.svg, with
# gnuplot); plot-check.sh runs it on a made-up run and measures the bars.
TESTS += bench/plot-check.sh
EXTRA_DIST += bench/plot bench/plot-check.sh bench/plot-tuning

# rows-bench: the row-reduction kernels on bench/rows.tsv (GPU only; with
# bench/rows_torch.py beside it in the same call, bench/run-gpu.sh step rows).
if HAVE_CUDA
check_PROGRAMS += bench/rows-bench
bench_rows_bench_SOURCES = bench/rows-bench.c
bench_rows_bench_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
bench_rows_bench_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/generated $(CUDA_CPPFLAGS) $(AM_CPPFLAGS)
bench_rows_bench_LDADD = libfusegen_cuda.a libfusegen_cpu.a $(CUDA_LDFLAGS) $(CUDA_LIBS) -lm
endif
EXTRA_DIST += bench/rows-bench.c bench/rows.tsv bench/rows_torch.py
EXTRA_DIST += bench/variants.tsv bench/variants_flex.py bench/steady.py
