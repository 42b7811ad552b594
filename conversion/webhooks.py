"""Callback URLs: which ones this server calls, and one signed POST to one of them.

No SSRF: a callback's host must be named in AXIYA_WEBHOOK_ALLOWED_HOSTS, exactly as in the URL
(a host name or an IP address). Its addresses are resolved, and every one of them must be
public, unless that address itself, or a network holding it (`10.0.0.0/8`), is listed too (a
receiver on the same machine or network is allowed by listing `127.0.0.1`, say). The check runs
when the job is submitted (a 400 with CALLBACK_URL_REFUSED) and again at every delivery, and the
connection goes to an address that this check passed (a name that resolves elsewhere between the
check and the connection changes nothing). Redirects are not followed: a 3xx is a failed try.

The signature (docs: README, "Notifications"): `X-Axiya-Signature: sha256=<hex>`, the HMAC-SHA256
of the exact body under the user's webhook secret. The body holds its own `timestamp` (Unix
seconds, also sent as `X-Axiya-Timestamp`), so a receiver that checks the signature and refuses
a timestamp older than a few minutes cannot be replayed an old message; `X-Axiya-Delivery` is
the same on every retry of one message (deduplicate on it).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from axiya.config import config
from conversion.pipeline.errors import CallbackRefused

SIGNATURE_HEADER = "X-Axiya-Signature"
TIMESTAMP_HEADER = "X-Axiya-Timestamp"
DELIVERY_HEADER = "X-Axiya-Delivery"
EVENT_HEADER = "X-Axiya-Event"
MAX_URL_CHARS = 2000


@dataclass(frozen=True)
class Target:
    """A callback URL that passed the check, and the addresses it may be reached at."""

    url: str
    scheme: str
    host: str
    port: int
    path: str  # with its query
    addresses: tuple[str, ...]


def _allowed() -> tuple[set[str], list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    names: set[str] = set()
    networks = []
    for entry in config().webhooks.allowed_hosts:
        entry = entry.strip().lower().strip("[]")
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            names.add(entry.rstrip("."))
        else:
            if "/" not in entry:
                names.add(entry)  # a listed address is also a host one may call by it
    return names, networks


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise CallbackRefused(f"The callback host {host} could not be resolved ({exc}).") from exc
    return list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in infos))


def check_url(url: str) -> Target:
    """The callback URL as this server may call it now, or CallbackRefused saying why not."""
    url = (url or "").strip()
    if len(url) > MAX_URL_CHARS:
        raise CallbackRefused(f"The callback URL is longer than {MAX_URL_CHARS} characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise CallbackRefused(f"The callback URL is not a valid URL ({exc}).") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CallbackRefused("The callback URL must be an http:// or https:// URL with a host.")
    if parts.username or parts.password:
        raise CallbackRefused("The callback URL must not hold a user name or password.")
    host = parts.hostname.lower().rstrip(".")
    names, networks = _allowed()
    if host not in names:
        listed = ", ".join(sorted(names)) or "none: callbacks are off"
        raise CallbackRefused(
            f"This server does not call {host}: the hosts it may call are set by its "
            f"administrator in AXIYA_WEBHOOK_ALLOWED_HOSTS ({listed})."
        )
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = _resolve(host, port)
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if not ip.is_global and not any(ip in net for net in networks):
            raise CallbackRefused(
                f"The callback host {host} resolves to {address}, a private or local address: "
                f"list that address (or its network) in AXIYA_WEBHOOK_ALLOWED_HOSTS to allow it."
            )
    path = parts.path or "/"
    return Target(
        url=url,
        scheme=parts.scheme,
        host=host,
        port=port,
        path=f"{path}?{parts.query}" if parts.query else path,
        addresses=tuple(addresses),
    )


def signature(secret: str, body: bytes) -> str:
    """The X-Axiya-Signature value of `body`: sha256=<hex of HMAC-SHA256(secret, body)>."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_matches(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does (constant-time comparison)."""
    return hmac.compare_digest(signature(secret, body), header or "")


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to an address the check passed, whatever the name resolves to now."""

    def __init__(self, address: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, address: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        # The certificate is checked against the URL's host name, not the address.
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post(target: Target, body: bytes, headers: dict[str, str]) -> int:
    """POST `body` to the target once (no redirects followed); returns the HTTP status.
    OSError (refused, timed out, TLS) when no answer came."""
    timeout = config().webhooks.timeout_s
    last: OSError | None = None
    for address in target.addresses:
        if target.scheme == "https":
            conn: http.client.HTTPConnection = _PinnedHTTPS(
                address, target.host, target.port, timeout=timeout,
                context=ssl.create_default_context(),
            )  # fmt: skip
        else:
            conn = _PinnedHTTP(address, target.host, target.port, timeout=timeout)
        try:
            conn.request(
                "POST",
                target.path,
                body=body,
                headers={"Content-Type": "application/json", "User-Agent": "Axiya-Webhook/1",
                         **headers},
            )  # fmt: skip
            response = conn.getresponse()
            response.read(64 * 1024)  # a bounded read: the answer's body is not used
            return response.status
        except (OSError, http.client.HTTPException) as exc:  # the next address, if any
            last = exc if isinstance(exc, OSError) else OSError(f"bad answer: {exc!r}")
        finally:
            conn.close()
    raise last or OSError(f"{target.host} has no address to call")
