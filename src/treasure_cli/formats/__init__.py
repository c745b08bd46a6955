"""Text in and out: map files, game records (logs), atomic writes, the agent protocol's JSON, hint kinds from files."""
