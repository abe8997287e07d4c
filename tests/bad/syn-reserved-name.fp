# Names beginning with fg_ or m4_ belong to the generator.
plan fg_attention
dim m4_len
axis fg_r: m4_len
