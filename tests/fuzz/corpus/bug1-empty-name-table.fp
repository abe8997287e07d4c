plan p
schedule { reduce c: rolling }
