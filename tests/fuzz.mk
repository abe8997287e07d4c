# tests/fuzz.mk - fuzzing the front end and fusion (tests/fuzz/).
#
# One target, tests/fuzz/fuzz_plan.c: plan text in, lexed, parsed, checked,
# fused and its masks analysed; no crash, leak, undefined behaviour or
# silent failure.  Built two ways:
#   - tests/fuzz/replay (make check): the target with a plain main that
#     runs every seed through it, with the project's compiler and
#     sanitizers;
#   - tests/fuzz/fuzz_plan (make fuzz): the libFuzzer target, built with
#     FUZZ_CC (clang) when configure found one that links with
#     -fsanitize=fuzzer,address,undefined; make fuzz-run runs it for
#     FUZZ_SECONDS (CI: 120) and fails on any finding, which it leaves in
#     tests/fuzz/findings/.
# The seeds: every plans/*.fp, every bad plan under tests/ and
# tests/fuzz/corpus/ (reproducers of past findings: add one per fix).

check_PROGRAMS += tests/fuzz/replay
TESTS += tests/fuzz/replay
tests_fuzz_replay_SOURCES = tests/fuzz/fuzz_plan.c tests/fuzz/fuzz_plan.h tests/fuzz/replay.c
tests_fuzz_replay_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
tests_fuzz_replay_CPPFLAGS = -I$(srcdir)/generator -I$(srcdir)/tests/fuzz $(AM_CPPFLAGS)
tests_fuzz_replay_LDADD = generator/libfggen.a -lm
EXTRA_DIST += tests/fuzz/corpus tests/fuzz/plan.dict

# The generator's front end, fusion and kernel model: all the target calls.
FG_FUZZ_SRCS = \
	$(srcdir)/tests/fuzz/fuzz_plan.c \
	$(srcdir)/generator/util/arena.c \
	$(srcdir)/generator/util/diag.c \
	$(srcdir)/generator/front/lex.c \
	$(srcdir)/generator/front/expr.c \
	$(srcdir)/generator/front/parse.c \
	$(srcdir)/generator/front/parse_expr.c \
	$(srcdir)/generator/front/dump.c \
	$(srcdir)/generator/front/dump_ir.c \
	$(srcdir)/generator/front/check.c \
	$(srcdir)/generator/front/check_names.c \
	$(srcdir)/generator/front/check_order.c \
	$(srcdir)/generator/front/check_aux.c \
	$(srcdir)/generator/middle/algebra.c \
	$(srcdir)/generator/middle/verify.c \
	$(srcdir)/generator/middle/powsum.c \
	$(srcdir)/generator/middle/masks.c \
	$(srcdir)/generator/middle/mask_emit.c \
	$(srcdir)/generator/middle/fuse.c \
	$(srcdir)/generator/middle/rules.c \
	$(srcdir)/generator/middle/variants.c \
	$(srcdir)/generator/middle/kernel.c \
	$(srcdir)/generator/middle/kernel_score.c \
	$(srcdir)/generator/middle/kernel_chains.c \
	$(srcdir)/generator/middle/kernel_rows.c \
	$(srcdir)/generator/middle/kernel_sched.c \
	$(srcdir)/generator/middle/tune.c \
	$(srcdir)/generator/middle/wisdom.c \
	$(srcdir)/generator/middle/dump_kernel.c \
	$(NULL)
FUZZ_SECONDS = 120
# The seed folders; libFuzzer adds what it finds to the first one.
FUZZ_SEEDS = $(srcdir)/plans $(srcdir)/tests/bad $(srcdir)/tests/cuda-bad \
	$(srcdir)/tests/plans $(srcdir)/tests/fuzz/corpus
FUZZ_FLAGS = -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-dict=$(srcdir)/tests/fuzz/plan.dict
CLEANFILES += tests/fuzz/fuzz_plan tests/fuzz/fuzz.log

if HAVE_FUZZER
fuzz: tests/fuzz/fuzz_plan

tests/fuzz/fuzz_plan: $(FG_FUZZ_SRCS) $(srcdir)/tests/fuzz/fuzz_plan.h $(srcdir)/generator/generator.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) -g -O1 $(FUZZ_SANITIZE_CFLAGS) -I$(srcdir)/generator -I$(srcdir)/tests/fuzz \
	  -o $@ $(FG_FUZZ_SRCS) -lm

# libFuzzer's progress goes to tests/fuzz/fuzz.log; its end (the totals,
# or the finding and its stack) is printed.
fuzz-run: fuzz
	@rm -rf tests/fuzz/work && $(MKDIR_P) tests/fuzz/work tests/fuzz/findings
	@echo "fuzz-run: $(FUZZ_SECONDS) s of tests/fuzz/fuzz_plan, log in tests/fuzz/fuzz.log"
	@./tests/fuzz/fuzz_plan -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) \
	  -artifact_prefix=tests/fuzz/findings/ tests/fuzz/work $(FUZZ_SEEDS) \
	  >tests/fuzz/fuzz.log 2>&1; rc=$$?; \
	tail -n 80 tests/fuzz/fuzz.log; rm -rf tests/fuzz/work; \
	if test $$rc -ne 0; then echo "fuzz-run: FAILED (exit $$rc): see tests/fuzz/findings/"; \
	else echo "fuzz-run: no finding"; fi; test $$rc -eq 0
else
fuzz fuzz-run:
	@echo "$@: skipped: configure found no clang that links with -fsanitize=fuzzer,address,undefined (see FUZZ_CC)"
endif

clean-local: fuzz-clean
fuzz-clean:
	-rm -rf tests/fuzz/work
	-rmdir tests/fuzz/findings 2>/dev/null || :

.PHONY: fuzz fuzz-run fuzz-clean
