# plans/local.mk - the bundled fusion plans, installed beside the templates.
# Paths are relative to the top of the tree (included by Makefile.am).

plansdir = $(pkgdatadir)/plans
dist_plans_DATA = \
	plans/alibi.fp \
	plans/alibi_decode.fp \
	plans/base2.fp \
	plans/causal.fp \
	plans/causal_decode.fp \
	plans/diffattn.fp \
	plans/docmask.fp \
	plans/fa1.fp \
	plans/global.fp \
	plans/gqa.fp \
	plans/gqa_decode.fp \
	plans/layernorm.fp \
	plans/logsoftmax.fp \
	plans/logsumexp.fp \
	plans/maxlogit.fp \
	plans/moments.fp \
	plans/prefixlm.fp \
	plans/relbias.fp \
	plans/rmsnorm.fp \
	plans/rowmax.fp \
	plans/siggate.fp \
	plans/sigmoid.fp \
	plans/sinkwindow.fp \
	plans/softcap.fp \
	plans/softcap_decode.fp \
	plans/softmax.fp \
	plans/window.fp \
	$(NULL)
