"""The public namespace: what users import from `weblens` stays deliberate."""

from __future__ import annotations

import weblens


def test_all_is_sorted_and_complete() -> None:
    names = list(weblens.__all__)
    assert names == sorted(names)
    public = {n for n in vars(weblens) if not n.startswith("_") and not isinstance(getattr(weblens, n), type(weblens))}
    assert public <= set(names) | {"annotations"}
    for name in names:
        assert hasattr(weblens, name), name
