"""SQL is written only in `core/store/`: it is the one package that knows the schema.

Search, ask, briefs and the rest read and write through the store's typed methods; a query
written elsewhere would break silently at the next migration and could bypass the store's
one writer thread. This reads every other module of the core for SQL in its string literals
(docstrings aside), for calls of DuckDB's `execute`/`sql`/`fetch...`, and for `import duckdb`.
"""

from __future__ import annotations

import ast
import re
import textwrap

from tests.conftest import REPO

CORE = REPO / "v2c_desktop" / "core"
STORE = CORE / "store"
#: Statements as the store writes them (upper-case keywords), not prose that says "select".
SQL = re.compile(
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b|\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?"
    r"(?:TABLE|INDEX|VIEW|SEQUENCE|MACRO|SCHEMA|TYPE)\b|\bDROP\s+(?:TABLE|INDEX|VIEW|SEQUENCE)\b"
    r"|\bALTER\s+TABLE\b|\bBEGIN\s+TRANSACTION\b|\bATTACH\s|\bCOPY\s+\w+\s+(?:TO|FROM)\b"
)
#: The methods of a DuckDB connection or relation that run SQL or read its results.
DUCKDB_CALLS = frozenset(
    {"execute", "executemany", "sql", "fetchall", "fetchone", "fetchmany", "fetchnumpy"}
    | {"fetchdf", "fetch_df", "fetch_arrow_table"}
)


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _literal(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with `?` where its values go."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else "?" for part in node.values
        )
    return None


def database_work_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each piece of SQL, DuckDB call or DuckDB import in a module."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    inside_fstring = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in docstrings or id(node) in inside_fstring:
            continue
        text = _literal(node)
        if text is not None and (match := SQL.search(text)):
            found.append((getattr(node, "lineno", 0), f"SQL: {match.group(0)[:40]!r}"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in DUCKDB_CALLS
        ):
            found.append((node.lineno, f"a DuckDB call: .{node.func.attr}()"))
        elif isinstance(node, ast.Import) and any(a.name == "duckdb" for a in node.names):
            found.append((node.lineno, "import duckdb"))
        elif isinstance(node, ast.ImportFrom) and node.module == "duckdb":
            found.append((node.lineno, "from duckdb import"))
    return sorted(found)


def test_no_sql_outside_the_store() -> None:
    modules = [p for p in sorted(CORE.rglob("*.py")) if STORE not in p.parents]
    assert len(modules) > 100  # the test reads the modules it should
    found = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for path in modules
        for line, what in database_work_in(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_store_is_where_the_sql_is() -> None:
    """The check finds the store's own SQL (it would find it anywhere else)."""
    found = [
        what
        for path in sorted(STORE.glob("*.py"))
        for _, what in database_work_in(path.read_text(encoding="utf-8"))
    ]
    assert sum(w.startswith("SQL") for w in found) > 50
    assert "import duckdb" in found and any(w.startswith("a DuckDB call") for w in found)


def test_the_check_tells_sql_from_prose() -> None:
    source = textwrap.dedent(
        '''
        """Select the best track from the list; delete from the cache what is stale."""
        import duckdb

        def chunks(conn, ids, table):
            """SELECT in a docstring is documentation."""
            label = "Select from the list"
            rows = conn.execute(
                "SELECT chunk_id, text FROM chunks WHERE chunk_id IN ?", [ids]
            )
            conn.sql(f"DELETE FROM {table} WHERE video_id = ?")
            query = ("UPDATE videos "
                     "SET title = ? WHERE id = ?")
            return rows, label, query
        '''
    )
    assert database_work_in(source) == [
        (3, "import duckdb"),
        (8, "a DuckDB call: .execute()"),
        (9, "SQL: 'SELECT chunk_id, text FROM'"),
        (11, "SQL: 'DELETE FROM'"),
        (11, "a DuckDB call: .sql()"),
        (12, "SQL: 'UPDATE videos SET'"),
    ]
