"""The SSRF guard: every spelling of a non-public address is refused, names are pinned."""

from __future__ import annotations

import httpx
import pytest

from weblens.errors import BlockedError, ToolValidationError
from weblens.net.guarded import guarded_client, is_guarded
from weblens.net.ssrf import SsrfGuard, parse_ip
from weblens.testing import FakeServer, Reply
from weblens.testing.dns import MappedResolver

BLOCKED = {
    "loopback": "http://127.0.0.1/",
    "loopback, other /8 address": "http://127.9.8.7/",
    "loopback, short form": "http://127.1/",
    "loopback, decimal": "http://2130706433/",
    "loopback, octal": "http://0177.0.0.1/",
    "loopback, hex": "http://0x7f.0.0.1/",
    "loopback, hex number": "http://0x7f000001/",
    "loopback, IPv6": "http://[::1]/",
    "loopback, IPv4-mapped IPv6": "http://[::ffff:127.0.0.1]/",
    "loopback, IPv4-mapped IPv6 in hex": "http://[::ffff:7f00:1]/",
    "private 10/8": "http://10.0.0.1/",
    "private 172.16/12": "http://172.16.5.4/",
    "private 192.168/16": "http://192.168.1.1/",
    "private, decimal": "http://167772161/",
    "private, NAT64": "http://[64:ff9b::a00:1]/",
    "private, IPv4-mapped": "http://[::ffff:10.0.0.1]/",
    "link-local": "http://169.254.1.1/",
    "link-local IPv6": "http://[fe80::1]/",
    "CGNAT": "http://100.64.0.1/",
    "CGNAT top": "http://100.127.255.254/",
    "unique-local": "http://[fc00::1]/",
    "unique-local fd": "http://[fd12:3456::1]/",
    "multicast": "http://224.0.0.1/",
    "multicast IPv6": "http://[ff02::1]/",
    "reserved": "http://240.0.0.1/",
    "broadcast": "http://255.255.255.255/",
    "unspecified": "http://0.0.0.0/",
    "unspecified IPv6": "http://[::]/",
    "localhost name": "http://localhost/",
    "localhost subdomain": "http://app.localhost:8080/",
    "metadata AWS": "http://169.254.169.254/latest/meta-data/",
    "metadata AWS decimal": "http://2852039166/",
    "metadata AWS hex": "http://0xa9fea9fe/",
    "metadata AWS mapped": "http://[::ffff:169.254.169.254]/",
    "metadata AWS NAT64": "http://[64:ff9b::a9fe:a9fe]/",
    "metadata AWS IPv6": "http://[fd00:ec2::254]/",
    "metadata Alibaba": "http://100.100.100.200/",
    "metadata AWS ECS credentials": "http://169.254.170.2/v2/credentials/",
    "metadata AWS EKS Pod Identity": "http://169.254.170.23/v1/credentials",
    "metadata AWS EKS Pod Identity IPv6": "http://[fd00:ec2::23]/v1/credentials",
    "metadata GCP IPv6": "http://[fd20:ce::254]/computeMetadata/v1/",
}
METADATA = [name for name in BLOCKED if name.startswith("metadata")]


@pytest.mark.parametrize("name", list(BLOCKED))
def test_every_form_of_a_non_public_address_is_blocked(name: str) -> None:
    with pytest.raises(BlockedError) as info:
        SsrfGuard().check_url(BLOCKED[name])
    assert info.value.code == "blocked"
    assert "SSRF guard" in info.value.message


@pytest.mark.parametrize("name", METADATA)
def test_metadata_stays_blocked_with_allow_private_and_allowed_hosts(name: str) -> None:
    url = httpx.URL(BLOCKED[name])
    guard = SsrfGuard(allow_private=True, allowed_hosts=[url.host])
    with pytest.raises(BlockedError, match="metadata"):
        guard.check_url(url)


@pytest.mark.parametrize("url", ["http://10.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/"])
def test_allow_private_lets_private_addresses_through(url: str) -> None:
    assert SsrfGuard(allow_private=True).check_url(url).host


def test_public_addresses_and_names_pass() -> None:
    guard = SsrfGuard()
    for url in ("http://93.184.216.34/", "https://[2606:4700::1111]/", "https://example.com/a?b=c"):
        assert guard.check_url(url).scheme in ("http", "https")


def test_the_reason_names_the_address_and_the_kind() -> None:
    with pytest.raises(BlockedError) as info:
        SsrfGuard().check_url("http://0x7f.1/")
    assert "127.0.0.1 is a loopback address" in info.value.message


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/", "gopher://x/", "not a url", "/relative"])
def test_only_http_and_https_urls(url: str) -> None:
    with pytest.raises(ToolValidationError):
        SsrfGuard().check_url(url)


def test_a_malformed_punycode_host_is_a_validation_error() -> None:
    with pytest.raises(ToolValidationError, match="bad host name"):
        SsrfGuard().check_url("http://xn--/")


async def test_a_name_idna_cannot_encode_is_a_resolve_failure_not_a_crash() -> None:
    # the system resolver raises UnicodeError (not OSError) for an empty or over-long label
    async with guarded_client(SsrfGuard(), timeout_s=5, connect_timeout_s=5, user_agent="t") as client:
        for url in ("http://a..b/", f"http://{'a' * 300}.example/"):
            with pytest.raises(httpx.ConnectError, match="could not resolve"):
                await client.get(url)


def test_parse_ip_reads_inet_aton_forms() -> None:
    assert str(parse_ip("0x7f.1")) == "127.0.0.1"
    assert str(parse_ip("10.1")) == "10.0.0.1"
    assert str(parse_ip("192.168.257")) == "192.168.1.1"
    assert parse_ip("example.com") is None
    assert parse_ip("1.2.3.4.5") is None
    assert parse_ip("256.1.1.1") is None


def test_allowed_hosts_match_host_and_port() -> None:
    guard = SsrfGuard(allowed_hosts=["127.0.0.1:8080", "intranet.local", "[::1]:9000"])
    assert guard.check_url("http://127.0.0.1:8080/x")
    assert guard.check_url("http://intranet.local:1234/")
    assert guard.check_url("http://[::1]:9000/")
    with pytest.raises(BlockedError):
        guard.check_url("http://127.0.0.1:8081/x")


@pytest.mark.parametrize("address", ["10.0.0.1", "127.0.0.1", "169.254.169.254", "::ffff:10.0.0.1", "fd00::1"])
async def test_a_public_name_resolving_to_a_private_address_is_blocked(address: str) -> None:
    guard = SsrfGuard(resolver=MappedResolver({"news.example": [address]}))
    with pytest.raises(BlockedError, match=r"news\.example resolves to"):
        await guard.resolve("news.example", 80)


async def test_one_private_answer_among_public_ones_blocks() -> None:
    guard = SsrfGuard(resolver=MappedResolver({"mixed.example": ["93.184.216.34", "10.0.0.1"]}))
    with pytest.raises(BlockedError):
        await guard.resolve("mixed.example", 80)


async def test_the_client_connects_to_the_checked_address_and_keeps_the_name() -> None:
    """Resolve once, connect to that IP: the Host header still carries the name."""
    with FakeServer() as server:
        server.route("GET", "/hello", Reply(body="hi"))
        resolve = MappedResolver({"pinned.example": ["127.0.0.1"]})
        guard = SsrfGuard(resolver=resolve, allowed_hosts=[f"pinned.example:{server.port}"])
        async with guarded_client(guard, timeout_s=5, connect_timeout_s=5, user_agent="t") as client:
            assert is_guarded(client)
            response = await client.get(f"http://pinned.example:{server.port}/hello")
        assert response.text == "hi"
        assert server.requests[0].headers["host"] == f"pinned.example:{server.port}"
        assert resolve.calls == ["pinned.example"]


async def test_the_client_refuses_a_name_that_resolves_to_loopback() -> None:
    with FakeServer() as server:
        server.route("GET", "/secret", Reply(body="internal"))
        guard = SsrfGuard(resolver=MappedResolver({"rebind.example": ["127.0.0.1"]}))
        async with guarded_client(guard, timeout_s=5, connect_timeout_s=5, user_agent="t") as client:
            with pytest.raises(BlockedError, match=r"rebind\.example resolves to 127\.0\.0\.1"):
                await client.get(f"http://rebind.example:{server.port}/secret")
        assert server.requests == []


async def test_without_allowed_hosts_the_local_test_server_is_blocked() -> None:
    with FakeServer() as server:
        server.route("GET", "/x", Reply(body="x"))
        async with guarded_client(SsrfGuard(), timeout_s=5, connect_timeout_s=5, user_agent="t") as client:
            with pytest.raises(BlockedError):
                await client.get(server.url("/x"))
        assert server.requests == []
