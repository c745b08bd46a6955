"""Agents: the built-in policies, the knowledge they reason with, and the registry that
turns an `--agent` spec (a name, `package.module:Class`, `file.py:Class` or a plugin)
into an agent. Importing this package is cheap; each agent's module loads on use."""
