"""Random valid islands: the generator (`generator`, its random steps in C in `_gen`), and a map's
style told from its terrain (`style`). Imports only the rules."""
