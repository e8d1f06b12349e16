"""The operator's domain policy: an allow-list and a block-list of domains, subdomains included.

One `DomainPolicy` per process comes from config (`policy.allow_domains`,
`policy.block_domains`); search drops results outside it and fetch refuses URLs outside
it before any request, on every redirect hop. A caller may narrow it (`narrowed`), never
widen it: allow-lists intersect, block-lists add up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from weblens.errors import UrlNotAllowedError

__all__ = ["DomainPolicy", "host_in", "normalise_domain", "normalise_host"]

_MAX_DOMAIN_CHARS = 253
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
_SHOWN = 5
"""How many policy entries an error message names."""


def normalise_host(host: str) -> str:
    """A host as the policy compares it: lower case, IDNA, no trailing dot, no `www.`."""
    host = host.strip().rstrip(".").lower()
    with contextlib.suppress(UnicodeError):  # not IDNA-encodable: compare it as written
        host = host.encode("idna").decode("ascii")
    return host.removeprefix("www.")


def normalise_domain(text: str) -> str:
    """`example.com` from `example.com`, `*.example.com`, `https://www.Example.com/path`;
    ValueError for something that is not a domain name."""
    raw = text.strip()
    if "://" in raw:
        raw = urlsplit(raw).hostname or ""
    raw = raw.split("/", 1)[0].rsplit("@", 1)[-1]
    if raw.count(":") == 1:  # host:port
        raw = raw.split(":", 1)[0]
    domain = normalise_host(raw.removeprefix("*.").lstrip("."))
    labels = domain.split(".")
    if (
        not domain
        or len(domain) > _MAX_DOMAIN_CHARS
        or any(not label or len(label) > 63 or not set(label) <= _LABEL_CHARS for label in labels)
    ):
        raise ValueError(f"{text!r} is not a domain name (e.g. example.com)")
    return domain


def host_in(host: str, domain: str) -> bool:
    """Whether `host` (normalised) is `domain` or one of its subdomains."""
    return host == domain or host.endswith("." + domain)


def _within_any(domain: str, domains: Iterable[str]) -> str | None:
    return next((d for d in domains if host_in(domain, d)), None)


def _intersect(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """The domains allowed by both lists: the narrower of every pair that overlaps."""
    return frozenset(x for x in a if _within_any(x, b)) | frozenset(y for y in b if _within_any(y, a))


def _listed(domains: Iterable[str]) -> str:
    ordered = sorted(domains)
    more = f" and {len(ordered) - _SHOWN} more" if len(ordered) > _SHOWN else ""
    return ", ".join(ordered[:_SHOWN]) + more


@dataclass(frozen=True)
class DomainPolicy:
    """`allow` None: every domain not blocked; an empty `allow`: nothing at all."""

    allow: frozenset[str] | None = None
    block: frozenset[str] = frozenset()

    @classmethod
    def of(cls, allow: Iterable[str] | None = None, block: Iterable[str] = ()) -> DomainPolicy:
        """A policy from domain names as people write them (ValueError names a bad one)."""
        allowed = None if allow is None else frozenset(normalise_domain(d) for d in allow)
        return cls(allowed, frozenset(normalise_domain(d) for d in block))

    @property
    def active(self) -> bool:
        return self.allow is not None or bool(self.block)

    @property
    def allows_nothing(self) -> bool:
        """True when no URL at all can pass (e.g. every allowed domain is also blocked)."""
        return self.allow is not None and all(_within_any(d, self.block) for d in self.allow)

    def narrowed(self, other: DomainPolicy | None) -> DomainPolicy:
        """A policy no wider than this one or `other`: allow-lists intersect, block-lists add up."""
        if other is None:
            return self
        if self.allow is None or other.allow is None:
            allow = self.allow if other.allow is None else other.allow
        else:
            allow = _intersect(self.allow, other.allow)
        return DomainPolicy(allow, self.block | other.block)

    def refusal(self, url: str) -> str | None:
        """Why `url` is not allowed, or None when it is."""
        if not self.active:
            return None
        try:
            host = urlsplit(url.strip()).hostname
        except ValueError:
            host = None
        if not host:
            return "it has no host name the domain policy could check"
        host = normalise_host(host)
        blocked = _within_any(host, self.block)
        if blocked is not None:
            return f"{host} is on the blocked domains ({blocked})"
        if self.allow is not None and _within_any(host, self.allow) is None:
            if not self.allow:
                return "the domain policy allows no domain at all"
            return f"{host} is outside the allowed domains ({_listed(self.allow)})"
        return None

    def allows(self, url: str) -> bool:
        return self.refusal(url) is None

    def check(self, url: str, *, action: str = "fetch") -> None:
        """Raise `UrlNotAllowedError` (code `url_not_allowed`) unless `url` is allowed."""
        reason = self.refusal(url)
        if reason is not None:
            raise UrlNotAllowedError(
                f"not allowed to {action} {url}: {reason}", details={"url": url, "policy": "domains"}
            )
