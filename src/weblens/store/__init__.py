"""State backends: local (SQLite, in-process) by default, PostgreSQL (and Redis) for a fleet."""
