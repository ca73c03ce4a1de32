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


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:0/0",
        "rediss://:s3cret@127.0.0.1:0/0",
        "redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:0",
        "rediss+cluster://10.0.0.1:0",
        "redis+sentinel://:s3cret@s1:0/mymaster",
        "rediss+sentinel://s1:26379,s2:0/mymaster/1",
    ],
)
def test_port_0_is_refused_not_read_as_the_default_port(url: str) -> None:
    with pytest.raises(StoreUrlError) as raised:
        parse_store_url(url)
    assert "port" in raised.value.problem
    assert "1 to 65535" in str(raised.value)
    assert "s3cret" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "advice"),
    [
        ("redis+cluster://:s3cret@", "write it as redis+cluster://[user:password@]host:port,host:port"),
        ("redis+cluster://10.0.0.1:notaport", "write it as redis+cluster://"),
        ("redis+cluster://10.0.0.1:7000/3", "write it as redis+cluster://"),
        ("redis+cluster://10.0.0.1:7000?db=0", "write it as redis+cluster://"),
        ("rediss+cluster://10.0.0.1:7000?verify=no", "write it as rediss+cluster://"),
        (
            "redis+sentinel://s1:26379",
            "write it as redis+sentinel://[user:password@]host:port,host:port/service/db",
        ),
        ("redis+sentinel://s1:notaport/mymaster", "write it as redis+sentinel://"),
        ("redis+sentinel://s1:26379/mymaster/x", "write it as redis+sentinel://"),
        ("rediss+sentinel://s1:26379/mymaster?db=1", "write it as rediss+sentinel://"),
        ("redis://127.0.0.1:6379/x", "write it as redis://host:6379/0"),
        ("unix://", "write it as redis://host:6379/0"),
    ],
)
def test_each_url_error_gives_the_advice_for_the_scheme_used(url: str, advice: str) -> None:
    with pytest.raises(StoreUrlError) as raised:
        parse_store_url(url)
    message = str(raised.value)
    assert advice in message
    assert message.count("write it as") == 1
    if "+" in url.partition(":")[0]:
        assert "redis://host:6379/0" not in message  # (the single-node form is no advice for a cluster)


@pytest.mark.parametrize("service", ["my%20master", "svc$", "a" * 201, "s%C3%A9rvice"])
def test_a_sentinel_service_name_that_is_not_valid_is_called_invalid_not_missing(service: str) -> None:
    with pytest.raises(StoreUrlError) as raised:
        parse_store_url(f"redis+sentinel://:s3cret@s1:26379/{service}/0")
    assert "names no service" not in raised.value.problem
    assert "service name" in raised.value.problem
    assert "letters, digits" in raised.value.problem


def test_a_sentinel_url_without_a_service_is_called_missing() -> None:
    for url in ("redis+sentinel://s1:26379", "redis+sentinel://s1:26379/", "redis+sentinel://s1:26379//0"):
        with pytest.raises(StoreUrlError) as raised:
            parse_store_url(url)
        assert "names no service" in raised.value.problem
