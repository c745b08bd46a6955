"""Random valid islands: the generator (`generator`, its random steps in C in `_gen`).
May import the top modules (`errors`, `version`, `compiled`) and `rules/`; never `agents/`, `formats/`,
`sandbox/`, `play/`, `grading/`, `view/`, `gym/` or `cli/`.
"""
