"""Store URLs: one Redis (`redis://`, `rediss://`, `unix://`), a cluster, or a Sentinel-watched master.

- `redis://[user:password@]host:port/db`, `rediss://...` (TLS), `unix:///path?db=0`: read by
  redis-py itself, after the checks below (redis-py quietly reads some malformed URLs as
  database 0).
- `redis+cluster://[user:password@]host:port[,host:port...]`, `rediss+cluster://...`: a
  Redis Cluster, found through any of the nodes listed (database 0 only).
- `redis+sentinel://[user:password@]host:port[,host:port...]/service[/db]`,
  `rediss+sentinel://...`: the master Sentinel reports for `service`, found through any
  of the sentinels listed. The credentials are the master's (and its replicas').

A URL is refused with `StoreUrlError`, whose message never quotes it (it may carry a
password); `Target.where` says where the store is, without credentials, for messages and logs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from typed_elicit.errors import StoreUrlError

_DATABASE: Final = re.compile(r"^[0-9]{1,9}$")
_SERVICE: Final = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")
SINGLE_SCHEMES: Final = ("redis", "rediss", "unix")
CLUSTER_SCHEMES: Final = ("redis+cluster", "rediss+cluster")
SENTINEL_SCHEMES: Final = ("redis+sentinel", "rediss+sentinel")
_SCHEMES: Final = "redis://, rediss://, unix://, redis+cluster:// or redis+sentinel:// (rediss+... for TLS)"
_ANY_FORM: Final = (
    "write it as redis://host:6379/0 (one Redis), redis+cluster://host:port,host:port (a cluster) "
    "or redis+sentinel://host:port,host:port/service/db (a master Sentinel watches)"
)
_PORT: Final = "has a port that is not a number from 1 to 65535"
TLS_OPTIONS: Final = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs", "ssl_check_hostname")
"""The query arguments a cluster or Sentinel URL takes (all for TLS: `rediss+...` only)."""
_FORMS: Final = {
    "cluster": "{scheme}://[user:password@]host:port,host:port (any nodes of the cluster; "
    "database 0 only{tls})",
    "sentinel": "{scheme}://[user:password@]host:port,host:port/service/db (the sentinels, the name of the "
    "master they monitor, and the database{tls})",
}


def _advice(scheme: str, kind: Literal["cluster", "sentinel"]) -> str:
    """How to write a URL of `scheme` (a cluster or Sentinel one), for `StoreUrlError`."""
    tls = "; TLS options as ?ssl_ca_certs=/path/ca.pem" if scheme.startswith("rediss") else ""
    return "write it as " + _FORMS[kind].format(scheme=scheme, tls=tls)


@dataclass(frozen=True)
class Target:
    """Where a store URL points: one Redis, a cluster, or a Sentinel-watched master."""

    kind: Literal["single", "cluster", "sentinel"]
    where: str
    """Where it is, without credentials (e.g. `"redis 127.0.0.1:6379 db 3"`)."""
    tls: bool = False
    hosts: tuple[tuple[str, int], ...] = ()
    """The cluster nodes or sentinels listed, or the one Redis' host and port (none for a socket)."""
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    service: str = ""
    db: int = 0
    tls_options: dict[str, str | bool] = field(default_factory=dict[str, "str | bool"], repr=False)


def parse_store_url(url: str) -> Target:
    """Check a store URL as `RedisStore.from_url` takes it, and say where it points.

    Args:
        url: The URL.

    Returns:
        Its target (`where` has no credentials).

    Raises:
        StoreUrlError: If `url` is not a well-formed store URL.
    """
    parts = urlsplit(url)
    scheme = parts.scheme
    if scheme not in (*SINGLE_SCHEMES, *CLUSTER_SCHEMES, *SENTINEL_SCHEMES):
        raise StoreUrlError(f"starts with {_SCHEMES}", advice=_ANY_FORM)
    kind: Literal["cluster", "sentinel"] = "cluster" if scheme in CLUSTER_SCHEMES else "sentinel"
    if not url[len(scheme) + 1 :].startswith("//"):
        raise StoreUrlError(
            f"needs two slashes after {scheme}: (with one, its host and database are ignored)",
            **({} if scheme in SINGLE_SCHEMES else {"advice": _advice(scheme, kind)}),
        )
    if scheme in SINGLE_SCHEMES:
        return _single(parts)
    return _many(parts, kind)


def _single(parts: SplitResult) -> Target:
    """The target of a redis://, rediss:// or unix:// URL (after the checks redis-py does not make)."""
    query = parse_qs(parts.query)
    db_values = query.get("db")
    if db_values is not None and (len(db_values) != 1 or not _DATABASE.match(db_values[0])):
        raise StoreUrlError("has a db= that is not one database number")
    if parts.scheme == "unix":
        if not parts.path:
            raise StoreUrlError("of the unix:// kind names no socket path")
        db = db_values[0] if db_values else "0"
        return Target("single", f"redis unix socket db {int(db)}")
    if not parts.hostname:
        raise StoreUrlError("names no host")
    port = _port(parts.netloc, 6379)
    if port is None:
        raise StoreUrlError(_PORT)
    path = parts.path[1:]  # after the port: "" or "/" (database 0), or "/<database>"
    if path and not _DATABASE.match(path):
        raise StoreUrlError(
            "has a path that is not a database number (/0, /1, ...), which redis-py would ignore "
            "and use database 0"
        )
    db = db_values[0] if db_values else (path or "0")
    where = f"redis {parts.hostname}:{port} db {int(db)}"
    return Target("single", where, tls=parts.scheme == "rediss", hosts=((parts.hostname, port),))


def _port(netloc: str, default: int) -> int | None:
    """The port of `netloc` (`default` if it names none), or None if it is no port (0 included)."""
    try:
        port = urlsplit(f"//{netloc}").port
    except ValueError:  # not a number, or above 65535
        return None
    if port is None:
        return default
    return port or None  # (port 0 is no port: redis-py would connect to its default)


def _many(parts: SplitResult, kind: Literal["cluster", "sentinel"]) -> Target:
    """A cluster or Sentinel URL: several `host:port`, credentials, a service and database."""
    scheme = parts.scheme
    advice = _advice(scheme, kind)
    userinfo, at, hostlist = parts.netloc.rpartition("@")
    username = password = None
    if at:
        name, _, secret = userinfo.partition(":")
        username = unquote(name) or None
        password = unquote(secret) or None
    default_port = 6379 if kind == "cluster" else 26379
    hosts: list[tuple[str, int]] = []
    for item in hostlist.split(","):
        host = urlsplit(f"//{item}")
        if not host.hostname:
            raise StoreUrlError(f"of the {scheme}:// kind lists no host, or an empty one", advice=advice)
        port = _port(item, default_port)
        if port is None:
            raise StoreUrlError(f"of the {scheme}:// kind {_PORT}", advice=advice)
        hosts.append((host.hostname, port))
    service, _, db = parts.path[1:].partition("/")
    if kind == "cluster":
        if parts.path not in ("", "/", "/0"):
            raise StoreUrlError(
                f"of the {scheme}:// kind names a database: a cluster has database 0 only", advice=advice
            )
        service = ""
    elif not service:
        raise StoreUrlError(
            f"of the {scheme}:// kind names no service (the name of the master Sentinel monitors)",
            advice=advice,
        )
    elif not _SERVICE.match(service):
        raise StoreUrlError(
            f"of the {scheme}:// kind has a service name that is not 1 to 200 letters, digits, "
            "'.', '_' or '-' (the name of the master Sentinel monitors, as in its configuration)",
            advice=advice,
        )
    if db and not _DATABASE.match(db):
        raise StoreUrlError(
            f"of the {scheme}:// kind has a database that is not one number after the service",
            advice=advice,
        )
    tls = scheme.startswith("rediss")
    options: dict[str, str | bool] = {}
    for name, values in parse_qs(parts.query, keep_blank_values=True).items():
        if name not in TLS_OPTIONS or not tls or len(values) != 1:
            raise StoreUrlError(
                f"of the {scheme}:// kind has a query argument other than the TLS ones "
                f"({', '.join(TLS_OPTIONS)}, once each, with rediss+...)",
                advice=advice,
            )
        value = values[0]
        options[name] = value.lower() in ("1", "true", "yes") if name == "ssl_check_hostname" else value
    listed = ",".join(f"{host}:{port}" for host, port in hosts)
    where = (
        f"redis cluster {listed}"
        if kind == "cluster"
        else f"redis sentinel {listed} service {service} db {int(db or 0)}"
    )
    return Target(kind, where, tls, tuple(hosts), username, password, service, int(db or 0), options)
