m4_dnl c/attention.m4 - attention on the CPU: the shared fused-schedule body.
m4_include([[[c/fused.m4]]])m4_dnl
