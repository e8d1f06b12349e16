"""What every Python weblens supports (3.11 and newer) needs of its source, checked on the one running the suite."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def test_docstrings_are_unicode_text() -> None:
    """Python 3.13 strips a docstring's indentation when it compiles it, by way of UTF-8: a lone surrogate
    written as an escape in one (`"\\ud800"` unescaped) made `import weblens.app.server` fail there."""
    unencodable = []
    for path in sorted((ROOT / "src" / "weblens").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            doc = ast.get_docstring(node, clean=False) if isinstance(node, _DOCUMENTED) else None
            try:
                (doc or "").encode("utf-8")
            except UnicodeEncodeError:
                unencodable.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}")
    assert not unencodable
