"""SOCKS proxies (`ALL_PROXY=socks5://…`, Clash, ssh -D, Tor) under the aiohttp transport.

The connector resolves the target the way any aiohttp connector does (so the SSRF
guard's resolver pins it exactly as for a direct connection) and asks the proxy to
connect to the resolved address; TLS then runs inside the tunnel with the *name* for
SNI and certificate checks. `aiohttp-socks` does the same through the proxy but uses
the address it was given for SNI, which is why this small connector exists.
"""

from __future__ import annotations

import socket
import urllib.parse
from typing import Any

import aiohttp
import python_socks
from aiohttp.abc import AbstractResolver, ResolveResult
from python_socks.async_.asyncio.v2 import Proxy

__all__ = ["SOCKS_SCHEMES", "SocksConnector", "remote_dns"]

_TYPES = {
    "socks5": python_socks.ProxyType.SOCKS5,
    "socks5h": python_socks.ProxyType.SOCKS5,
    "socks4": python_socks.ProxyType.SOCKS4,
    "socks4a": python_socks.ProxyType.SOCKS4,
}
SOCKS_SCHEMES = frozenset(_TYPES)


def remote_dns(proxy_url: str) -> bool:
    """`socks5h://` and `socks4a://` ask the proxy to resolve names (curl's convention)."""
    return urllib.parse.urlsplit(proxy_url).scheme.lower() in ("socks5h", "socks4a")


class PassThroughResolver(AbstractResolver):
    """Hands the name itself on, for a proxy that resolves names (`socks5h://`)."""

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[ResolveResult]:
        return [{"hostname": host, "host": host, "port": port, "family": family, "proto": 0, "flags": 0}]

    async def close(self) -> None:
        return None


class SocksConnector(aiohttp.TCPConnector):
    """A TCPConnector whose connections go through one SOCKS proxy."""

    def __init__(self, proxy_url: str, **kwargs: Any) -> None:
        parts = urllib.parse.urlsplit(proxy_url)  # checked by `ProxyTable`: it has a host and a port
        assert parts.hostname and parts.port
        self._proxy = Proxy(
            proxy_type=_TYPES[parts.scheme.lower()],
            host=parts.hostname,
            port=parts.port,
            username=urllib.parse.unquote(parts.username) if parts.username else None,
            password=urllib.parse.unquote(parts.password) if parts.password else None,
            rdns=remote_dns(proxy_url),
        )
        super().__init__(**kwargs)

    async def _wrap_create_connection(  # type: ignore[override]
        self,
        protocol_factory: Any,
        *,
        addr_infos: list[Any],
        req: aiohttp.ClientRequest,
        timeout: aiohttp.ClientTimeout,
        client_error: type[Exception] = aiohttp.ClientConnectorError,
        ssl: Any = None,
        server_hostname: str | None = None,
        **kwargs: Any,
    ) -> tuple[Any, Any]:
        host, port = addr_infos[0][4][0], addr_infos[0][4][1]
        try:
            stream = await self._proxy.connect(dest_host=host, dest_port=port, timeout=timeout.sock_connect)
            if ssl:  # the tunnel carries TLS for the name, whatever address the proxy was given
                stream = await stream.start_tls(hostname=server_hostname or req.host, ssl_context=ssl)
        except python_socks.ProxyTimeoutError as exc:
            raise aiohttp.ConnectionTimeoutError(f"the SOCKS proxy timed out: {exc}") from exc
        except (python_socks.ProxyError, python_socks.ProxyConnectionError) as exc:
            raise aiohttp.ClientProxyConnectionError(req.connection_key, OSError(str(exc))) from exc
        except OSError as exc:
            raise client_error(req.connection_key, exc) from exc
        transport = stream.writer.transport
        protocol = protocol_factory()
        protocol._weblens_stream = stream  # the stream's writer closes the transport when collected
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        return transport, protocol
