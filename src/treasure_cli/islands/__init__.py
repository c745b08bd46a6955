"""Random valid islands (`generator`, its random steps in C in `_gen`) and a map's style (`style`).
May import the top modules (`errors`, `version`, `compiled`) and `rules/`; never `agents/`, `formats/`,
`sandbox/`, `play/`, `grading/`, `view/`, `gym/` or `cli/`.
"""
