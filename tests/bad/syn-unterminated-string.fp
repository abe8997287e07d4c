# A doc string without its closing quote.
plan open_string
doc "Row softmax
dim R, C
