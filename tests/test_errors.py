"""The error tree maps one-to-one onto the closed set of result codes."""

from __future__ import annotations

import inspect

import weblens.errors as errors
from weblens.errors import ERROR_CODES, WeblensError, error_class_for


def test_every_code_has_exactly_one_class_and_back() -> None:
    classes = [
        obj
        for obj in vars(errors).values()
        if inspect.isclass(obj) and issubclass(obj, WeblensError)
    ]
    codes = [cls.code for cls in classes]
    assert sorted(codes) == sorted(ERROR_CODES)
    assert len(set(codes)) == len(codes)
    for cls in classes:
        assert error_class_for(cls.code) is cls


def test_retryable_defaults() -> None:
    assert errors.RateLimitedError("x").retryable
    assert errors.ToolTimeoutError("x").retryable
    assert errors.UpstreamError("x", status=502).retryable
    assert not errors.UpstreamError("x", status=400).retryable
    assert not errors.NotConfiguredError("x").retryable
