"""Games and results shown: the step model, the terminal view and its keys, the HTML pages.
May import `grading/`, `play/`, `sandbox/` and all below them: the top modules (`errors`, `version`,
`compiled`), `rules/`, `islands/`, `agents/`, `formats/`; never `gym/` or `cli/`.
"""
