"""Random valid islands: the generator (`generator`, its random steps in C in `_gen`)."""
