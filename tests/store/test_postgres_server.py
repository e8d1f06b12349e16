"""The test PostgreSQL server itself: a database per test, whatever else is connected."""

from __future__ import annotations

import psycopg
import pytest

from weblens.testing.postgres import PostgresCommandError, PostgresServer


def test_a_new_database_is_made_while_another_session_sits_in_template1(postgres_server: PostgresServer) -> None:
    # An autovacuum worker visiting template1 on a loaded machine is such a session: copied from
    # template1, CREATE DATABASE fails with "source database is being accessed by other users".
    with psycopg.connect(postgres_server.url("template1")):
        url = postgres_server.create_database()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_failed_statement_says_what_psql_said(postgres_server: PostgresServer) -> None:
    with pytest.raises(PostgresCommandError, match='database "no_such_db" does not exist'):
        postgres_server.sql("DROP DATABASE no_such_db")
