"""The SSRF guard's policy: fetches reach only public addresses.

`SsrfGuard.check_url` refuses a URL whose host is a non-public literal in any spelling
(`127.1`, `2130706433`, `0x7f.0.0.1`, `[::ffff:127.0.0.1]`, `[64:ff9b::a00:1]`) before
any network work; `SsrfGuard.resolve` resolves a name once and checks every address.
`weblens.net.guarded` builds the client that connects only to addresses checked here.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import httpx

from weblens.errors import BlockedError, ToolValidationError, UpstreamError

__all__ = [
    "METADATA_ADDRESSES", "ResolveError", "Resolver", "SsrfGuard", "default_port", "is_loopback_name", "parse_ip",
    "system_resolver",
]  # fmt: skip

_NOT_IN_HOST_NAMES = re.compile(r"[\s%<>\"{}|\\^`]")
"""Characters no host name or address literal contains (httpx keeps them, percent-encoded)."""
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Async `(host, port) -> addresses`; tests inject one mapping names to private addresses."""

METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254", "fd00:ec2::254", "100.100.100.200",
        # AWS ECS task credentials and EKS Pod Identity: they hand out IAM credentials too
        "169.254.170.2", "169.254.170.23", "fd00:ec2::23",
        "fd20:ce::254",  # Google Cloud's metadata server over IPv6
    )
)  # fmt: skip
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_V4_COMPATIBLE = ipaddress.ip_network("::/96")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_ALLOWED_SCHEMES = ("http", "https")
_CATEGORIES: tuple[tuple[str, Callable[[IPAddress], bool]], ...] = (
    ("unspecified", lambda ip: ip.is_unspecified),
    ("loopback", lambda ip: ip.is_loopback),
    ("link-local", lambda ip: ip.is_link_local),
    ("multicast", lambda ip: ip.is_multicast),
    ("carrier-grade NAT (100.64.0.0/10)", lambda ip: ip in _CGNAT),
    ("unique-local", lambda ip: ip.version == 6 and ip in _UNIQUE_LOCAL),
    ("reserved", lambda ip: ip.is_reserved),
    ("private", lambda ip: ip.is_private),
    ("non-public", lambda ip: not ip.is_global),
)
# allow_private opens these; metadata, multicast, unspecified and reserved stay shut.
_PRIVATE_KINDS = frozenset({"loopback", "link-local", "carrier-grade NAT (100.64.0.0/10)", "unique-local", "private"})


def _parse_ipv4_number(part: str) -> int:
    lowered = part.lower()
    if lowered.startswith("0x"):
        return int(lowered[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8)
    return int(part, 10)


def _parse_loose_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """inet_aton's forms: `127.1`, `2130706433`, `0177.0.0.1`, `0x7f.1` (browsers accept them too)."""
    parts = host.rstrip(".").split(".")
    if not 1 <= len(parts) <= 4 or not all(parts):
        return None
    try:
        numbers = [_parse_ipv4_number(p) for p in parts]
    except ValueError:
        return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = 0
    for n in head:
        value = value << 8 | n
    value = value << 8 * (5 - len(numbers)) | last
    return ipaddress.IPv4Address(value)


def parse_ip(host: str) -> IPAddress | None:
    """The address a host literal names, in any spelling; None for a hostname."""
    text = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    return None if ":" in text else _parse_loose_ipv4(text)


def _embedded_v4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside a mapped, NAT64, 6to4, Teredo or IPv4-compatible IPv6 one."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or ip in _NAT64_LOCAL or (ip in _V4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:
        return ip.sixtofour
    return ip.teredo[1] if ip.teredo is not None else None


ALLOW_HINT = (
    "; to reach a service of your own, list it in WEBLENS_FETCH_ALLOWED_HOSTS (host or host:port)"
    " or set WEBLENS_FETCH_ALLOW_PRIVATE=true"
)
"""How an operator lets a refused (non-metadata) address through: metadata endpoints never are."""


class ResolveError(OSError):
    """The name did not resolve (the transport reports it as a connection error)."""


def _is_metadata(ip: IPAddress) -> bool:
    inner = _embedded_v4(ip)
    return ip in METADATA_ADDRESSES or (inner is not None and inner in METADATA_ADDRESSES)


def _category(ip: IPAddress) -> str | None:
    for name, test in _CATEGORIES:
        if test(ip):
            return name
    return None


@dataclass
class SsrfGuard:
    """The policy: which addresses a fetch may reach. Metadata endpoints are never reachable."""

    allow_private: bool = False
    allowed_hosts: Sequence[str] = ()
    resolver: Resolver | None = None
    _allowed: set[tuple[str, int | None]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._allowed = {_parse_host_entry(entry) for entry in self.allowed_hosts}

    def is_allowed_host(self, host: str, port: int | None) -> bool:
        """Whether `host[:port]` is listed in allowed_hosts (e.g. a self-hosted service)."""
        name = host.strip("[]").lower().rstrip(".")
        return (name, None) in self._allowed or (name, port) in self._allowed

    def blocked_reason(self, ip: IPAddress) -> str | None:
        """Why this address may not be reached, or None when it may."""
        if ip in METADATA_ADDRESSES:
            return f"{ip} is a cloud metadata endpoint"
        inner = _embedded_v4(ip)
        if inner is not None:
            reason = self.blocked_reason(inner)
            return f"{ip} embeds {reason}" if reason else None
        kind = _category(ip)
        if kind is None or (self.allow_private and kind in _PRIVATE_KINDS):
            return None
        article = "an" if kind[0] in "aeiou" else "a"
        return f"{ip} is {article} {kind} address"

    def check_ip(self, ip: IPAddress, host: str) -> None:
        reason = self.blocked_reason(ip)
        if reason is not None:
            shown = "" if str(ip) == host.strip("[]") else f"{host} resolves to "
            hint = "" if _is_metadata(ip) else ALLOW_HINT
            raise BlockedError(f"refused to fetch: {shown}{reason} (SSRF guard){hint}", details={"host": host})

    def check_url(self, url: str | httpx.URL) -> httpx.URL:
        """Refuse a URL that cannot be public before any network work; return it parsed."""
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, TypeError) as exc:
            self._check_unparsable(str(url))
            raise ToolValidationError(f"not a valid URL: {url!s:.200}: {exc}") from None
        if parsed.scheme not in _ALLOWED_SCHEMES:
            scheme = parsed.scheme or "relative"
            raise ToolValidationError(f"only http and https URLs can be fetched, not {scheme!r} ones")
        try:
            host = parsed.host
        except UnicodeError as exc:  # a malformed punycode label (`xn--`) fails only when decoded
            raise ToolValidationError(f"not a valid URL: {url!s:.200}: bad host name: {exc}") from None
        if not host:
            raise ToolValidationError(f"the URL {url!s:.200} has no host")
        if _NOT_IN_HOST_NAMES.search(host):  # `not a url at all`: say so rather than ask DNS about it
            raise ToolValidationError(f"not a valid URL: {url!s:.200}: {host!r} is not a host name")
        ip = parse_ip(host)
        if self.is_allowed_host(host, parsed.port or default_port(parsed.scheme)):
            if ip is not None and _is_metadata(ip):
                self.check_ip(ip, host)
            return parsed
        if ip is not None:
            self.check_ip(ip, host)
        elif is_loopback_name(host) and not self.allow_private:
            raise BlockedError(f"refused to fetch: {host} is a loopback name (SSRF guard){ALLOW_HINT}")
        return parsed

    def _check_unparsable(self, url: str) -> None:
        """httpx rejects some spellings (`0177.0.0.1`); still say why they are refused."""
        try:
            host = urllib.parse.urlsplit(url).hostname or ""
        except ValueError:
            return
        ip = parse_ip(host)
        if ip is not None and not self.is_allowed_host(host, None):
            self.check_ip(ip, host)

    async def check_target(self, url: str | httpx.URL) -> httpx.URL:
        """Everything a fetch checks before connecting, for a URL handed to a remote fetcher.

        Firecrawl (or any scraping service) fetches the URL itself, so it cannot be pinned;
        what can be done is refuse what `web_fetch` refuses: the scheme, literal addresses,
        names resolving to non-public addresses, and anything outside allowed_hosts' exceptions.
        """
        parsed = self.check_url(url)
        try:
            await self.resolve(parsed.host, parsed.port or default_port(parsed.scheme))
        except ResolveError as exc:
            raise UpstreamError(str(exc), retryable=True) from None
        return parsed

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Resolve once and check every address; the caller must connect to one of these."""
        literal = parse_ip(host)
        if literal is not None:
            addresses = [literal]
        else:
            resolve = self.resolver or system_resolver
            try:
                found = await resolve(host, port)
            except (OSError, UnicodeError) as exc:  # UnicodeError: a name IDNA cannot encode (`a..b`)
                raise ResolveError(f"could not resolve {host}: {exc}") from exc
            addresses = [ip for ip in (parse_ip(a) for a in found) if ip is not None]
            if not addresses:
                raise ResolveError(f"could not resolve {host}")
        allowed = self.is_allowed_host(host, port)
        for ip in addresses:
            if allowed and not _is_metadata(ip):
                continue
            self.check_ip(ip, host)
        return addresses


def is_loopback_name(host: str) -> bool:
    """`localhost` and names under `.localhost` (RFC 6761: always the machine itself)."""
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _parse_host_entry(entry: str) -> tuple[str, int | None]:
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
    host, sep, port = entry.rpartition(":")
    if sep and port.isdigit() and ":" not in host:
        return host.rstrip("."), int(port)
    return entry.rstrip("."), None


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's resolver (getaddrinfo), off the event loop."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))
