"""A class graded: submissions and intake, the results store, the ranking, the contest, similarity, check-agent.
May import `play/` and `sandbox/` and all below them: the top modules (`errors`, `version`, `compiled`),
`rules/`, `islands/`, `agents/`, `formats/`; never `view/`, `gym/` or `cli/`.
"""
