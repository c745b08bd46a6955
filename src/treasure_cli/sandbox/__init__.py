"""An agent behind the wall: how its process is started, limited, talked to and ended.

Imports the rules, agents and formats below it; never `play/`, `grading/`, `view/` or `cli/`.
"""
