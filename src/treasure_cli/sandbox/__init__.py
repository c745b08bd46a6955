"""An agent behind the wall: how its process is started, limited, talked to and ended.
May import the top modules (`errors`, `version`, `compiled`), `rules/`, `islands/`, `agents/` and
`formats/`; never `play/`, `grading/`, `view/`, `gym/` or `cli/`.
"""
