# A plan that declares no name at all: the checker's name table is empty.
plan p
schedule { reduce c: rolling }
