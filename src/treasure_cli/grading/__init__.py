"""A class's agents graded: submissions, the results store, the ranking, similarity, check-agent.

Imports `play/` and `sandbox/` and everything below them; never `view/` or `cli/`.
"""
