# The plan must start with 'plan NAME', once.
dim R, C
plan first
plan second
