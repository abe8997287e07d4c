# Latin-1, not UTF-8.
plan latin
doc "café"
