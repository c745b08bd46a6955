"""Agents: the built-in policies, the knowledge they reason with, the registry of `--agent` specs.
May import the top modules (`errors`, `version`, `compiled`), `rules/` and `islands/`; never `formats/`,
`sandbox/`, `play/`, `grading/`, `view/`, `gym/` or `cli/`.

The registry turns a name, `package.module:Class`, `file.py:Class` or a plugin into an agent.
Importing this package is cheap; each agent's module loads on use."""
