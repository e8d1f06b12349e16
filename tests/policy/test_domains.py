"""The domain policy itself: what matches, and that narrowing never widens."""

from __future__ import annotations

import pytest

from weblens.errors import UrlNotAllowedError
from weblens.policy import DomainPolicy, normalise_domain


@pytest.mark.parametrize(
    ("written", "domain"),
    [("example.com", "example.com"), ("*.Example.COM", "example.com"), ("https://www.example.com/a?b", "example.com"),
     ("docs.example.com:8443", "docs.example.com"), ("bücher.example", "xn--bcher-kva.example")],
)
def test_domains_are_written_as_people_write_them(written: str, domain: str) -> None:
    assert normalise_domain(written) == domain


@pytest.mark.parametrize("bad", ["", "not a domain", "a..b", "exa$mple.com", "x" * 300 + ".com"])
def test_what_is_not_a_domain_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="not a domain name"):
        normalise_domain(bad)


def test_subdomains_are_included_and_lookalikes_are_not() -> None:
    policy = DomainPolicy.of(allow=["example.com"])
    assert policy.allows("https://example.com/") and policy.allows("https://a.b.example.com/x")
    assert policy.allows("http://WWW.EXAMPLE.COM./x")
    assert not policy.allows("https://badexample.com/") and not policy.allows("https://example.com.evil.net/")
    assert not policy.allows("javascript:alert(1)")


def test_block_beats_allow() -> None:
    policy = DomainPolicy.of(allow=["example.com"], block=["ads.example.com"])
    assert policy.allows("https://docs.example.com/") and not policy.allows("https://x.ads.example.com/")
    with pytest.raises(UrlNotAllowedError, match=r"ads\.example\.com is on the blocked domains") as info:
        policy.check("https://ads.example.com/banner")
    assert info.value.code == "url_not_allowed"


def test_a_caller_can_narrow_the_policy_but_never_widen_it() -> None:
    operator = DomainPolicy.of(allow=["example.com", "example.org"], block=["ads.example.com"])
    wider = operator.narrowed(DomainPolicy.of(allow=["example.com", "evil.net"]))
    assert wider.allow == frozenset({"example.com"})  # evil.net was never allowed
    narrower = operator.narrowed(DomainPolicy.of(allow=["docs.example.com"], block=["old.docs.example.com"]))
    assert narrower.allows("https://docs.example.com/") and not narrower.allows("https://example.com/")
    assert not narrower.allows("https://old.docs.example.com/") and "ads.example.com" in narrower.block
    unblocking = operator.narrowed(DomainPolicy())  # a caller with no policy of its own changes nothing
    assert not unblocking.allows("https://ads.example.com/")


def test_disjoint_allow_lists_allow_nothing() -> None:
    policy = DomainPolicy.of(allow=["example.com"]).narrowed(DomainPolicy.of(allow=["example.org"]))
    assert policy.allows_nothing and not policy.allows("https://example.com/")
    assert DomainPolicy.of(allow=["a.example"], block=["example"]).allows_nothing
    assert not DomainPolicy().allows_nothing and DomainPolicy().allows("https://anything.example/")
