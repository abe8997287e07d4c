m4_dnl c/rowreduce.m4 - row reductions on the CPU: the shared fused-schedule body.
m4_include([[[c/fused.m4]]])m4_dnl
