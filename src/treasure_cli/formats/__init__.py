"""Text in and out: map files, game records (logs), atomic writes, the agent protocol's JSON, hint kinds from files.
May import the top modules (`errors`, `version`, `compiled`), `rules/`, `islands/` and `agents/`; never
`sandbox/`, `play/`, `grading/`, `view/`, `gym/` or `cli/`.
"""
