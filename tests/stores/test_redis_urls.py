"""Cluster and Sentinel store URLs: read as written, refused with the fix, never quoted (no Redis needed)."""

from __future__ import annotations

import logging

import pytest
from mcp.server.mcpserver import MCPServer

from typed_elicit.errors import StoreUrlError
from typed_elicit.stores import RedisStore, configure
from typed_elicit.stores._redis_urls import parse_store_url


@pytest.mark.parametrize(
    ("url", "where"),
    [
        ("redis+cluster://10.0.0.1:7000", "redis cluster 10.0.0.1:7000"),
        ("redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2/", "redis cluster 10.0.0.1:7000,10.0.0.2:6379"),
        (
            "rediss+cluster://app:s3cret@n1:7000,n2:7001/0?ssl_ca_certs=/ca.pem",
            "redis cluster n1:7000,n2:7001",
        ),
        ("redis+sentinel://s1,s2:26380/mymaster", "redis sentinel s1:26379,s2:26380 service mymaster db 0"),
        ("redis+sentinel://:s3cret@s1:26379/mymaster/4", "redis sentinel s1:26379 service mymaster db 4"),
        ("rediss+sentinel://u:s3cret@[::1]:26379/svc-1/2", "redis sentinel ::1:26379 service svc-1 db 2"),
        ("redis://:s3cret@127.0.0.1:6379/3", "redis 127.0.0.1:6379 db 3"),
    ],
)
def test_a_cluster_or_sentinel_url_says_where_it_points_without_its_password(url: str, where: str) -> None:
    target = parse_store_url(url)
    assert target.where == where
    assert "s3cret" not in repr(target)


def test_a_url_gives_the_credentials_and_tls_options_to_the_client() -> None:
    target = parse_store_url(
        "rediss+sentinel://app%40x:p%2Fw@s1:1/svc/1?ssl_ca_certs=/ca.pem&ssl_check_hostname=false"
    )
    assert (target.kind, target.username, target.password, target.service, target.db) == (
        "sentinel", "app@x", "p/w", "svc", 1,
    )  # fmt: skip
    assert target.tls_options == {"ssl_ca_certs": "/ca.pem", "ssl_check_hostname": False}


@pytest.mark.parametrize(
    "url",
    [
        "redis+cluster:/:s3cret@10.0.0.1:7000",
        "redis+cluster://:s3cret@",
        "redis+cluster://:s3cret@10.0.0.1:7000,,10.0.0.2:7000",
        "redis+cluster://:s3cret@10.0.0.1:notaport",
        "redis+cluster://:s3cret@10.0.0.1:7000/3",
        "redis+cluster://:s3cret@10.0.0.1:7000?db=0",
        "redis+cluster://:s3cret@10.0.0.1:7000?ssl_ca_certs=/ca.pem",
        "redis+sentinel://:s3cret@s1:26379",
        "redis+sentinel://:s3cret@s1:26379/",
        "redis+sentinel://:s3cret@s1:26379/mymaster/x",
        "redis+sentinel://:s3cret@s1:26379/mymaster/1/2",
        "redis+sentinel://:s3cret@s1:26379/my master",
        "sentinel://:s3cret@s1:26379/mymaster",
    ],
)
def test_a_malformed_cluster_or_sentinel_url_is_refused_with_the_fix_and_never_its_password(url: str) -> None:
    for build in (lambda: RedisStore.from_url(url), lambda: configure(MCPServer("bad"), store=url)):
        with pytest.raises(StoreUrlError) as raised:
            build()
        message = str(raised.value)
        assert "write it as" in message
        assert "s3cret" not in message
        assert "s3cret" not in repr(raised.value.args)


def test_replicas_are_refused_on_a_cluster_and_when_negative() -> None:
    with pytest.raises(ValueError, match="0 on a Redis Cluster"):
        RedisStore.from_url("redis+cluster://127.0.0.1:7000", replicas=1)
    with pytest.raises(ValueError, match="0 or more"):
        RedisStore.from_url("redis://127.0.0.1:6379/0", replicas=-1)


def test_a_cluster_or_sentinel_store_logs_where_it_is_and_connects_to_nothing_yet(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="typed_elicit.stores"):
        RedisStore.from_url("redis+cluster://:s3cret@127.0.0.1:1,127.0.0.1:2")
        RedisStore.from_url("redis+sentinel://:s3cret@127.0.0.1:3/svc/5", replicas=1)
    assert [r.getMessage() for r in caplog.records if r.name == "typed_elicit.stores"] == [
        "RedisStore on redis cluster 127.0.0.1:1,127.0.0.1:2",
        "RedisStore on redis sentinel 127.0.0.1:3 service svc db 5",
    ]
    assert "s3cret" not in caplog.text
