# A block comment that never ends.
plan open_comment
dim R, C
/* the axes follow,
axis r: R, c: C
