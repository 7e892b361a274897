"""Per-address rate limits key a client by its address: IPv4 as it is, IPv6 by its /64."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from magdagdon.web.deps import client_address


def request_from(host: str) -> Request:
    return Request(
        {"type": "http", "method": "GET", "path": "/", "headers": [], "client": (host, 1)}
    )


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "testclient"),
    ],
)
def test_the_key_of_an_address(host: str, key: str) -> None:
    assert client_address(request_from(host)) == key


def test_one_ipv6_host_cannot_escape_the_limit_by_changing_address() -> None:
    from magdagdon.web.limits import RateLimiter

    limiter = RateLimiter(rate=1, burst=2)
    hosts = [f"2001:db8:0:1::{n:x}" for n in range(1, 6)]
    waits = [limiter.hit(client_address(request_from(h)), now=0.0) for h in hosts]
    assert waits[:2] == [None, None] and all(w is not None for w in waits[2:])
    assert limiter.hit(client_address(request_from("2001:db8:0:2::1")), now=0.0) is None
