"""Text in and out: map files, game records (logs), atomic writes, the map generator."""
