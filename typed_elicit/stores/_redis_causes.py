"""Why a Redis operation failed, in words a user can act on: never a password, a key or a value.

- `cause_of`: the cause and its fix from what redis-py raised (authentication, permissions,
  TLS certificate verification, a port that does not speak TLS, a refused connection, a
  timeout), and whether the command may have reached Redis.
- `named`: runs one command and finds out what an exception cannot say: a `rediss://` URL
  on a plain port leaves the TLS handshake waiting (so the port is asked in plain text,
  `answers_plain_text`), and Sentinel says only that it found no master (so the sentinels
  are asked why, `sentinel_trouble`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio

from typed_elicit.errors import StoreUnavailable
from typed_elicit.errors._server_state import ClaimLeft, StoreOperation

_E = TypeVar("_E", bound=BaseException)

_AUTH_FIX: Final = (
    "Check the user name and password in the store URL (user:password@host; percent-encode @, : and / "
    "in them) and that the ACL user exists and is on; calls work again once Redis accepts them."
)
_PERMISSION_FIX: Final = (
    "Grant the store's ACL user the rights RedisStore needs: its keys and channels (~prefix* &prefix*) "
    "and the commands set, get, del, publish, subscribe and unsubscribe (see docs/redis_deployments.md)."
)
_CERTIFICATE_FIX: Final = (
    "Name the CA that signed the server's certificate in the store URL (?ssl_ca_certs=/path/ca.pem: a "
    "private CA is not among the system's), and connect to a host name the certificate names."
)
NOT_TLS_FIX: Final = (
    "Use redis:// for a plain port, or rediss:// with the port where Redis speaks TLS (its tls-port)."
)
_RESET_FIX: Final = (
    "If that port speaks TLS (a TLS port resets a plain connection), use rediss://; otherwise check that "
    "the store is running and reachable from this server; calls work again as soon as it answers."
)
_TLS_FIX: Final = (
    "Check the store's TLS settings: the CA (ssl_ca_certs=), a client certificate if the server asks "
    "for one (ssl_certfile=, ssl_keyfile=), and that the port speaks TLS."
)
_SENTINEL_AUTH_FIX: Final = (
    "The URL's user and password are the master's (and its replicas'); for sentinels with a password of "
    "their own, build the client by hand: redis.asyncio.sentinel.Sentinel(hosts, sentinel_kwargs="
    "{'password': ...}), then RedisStore(sentinel.master_for(service, password=...)) (see "
    "docs/redis_deployments.md)."
)
_SERVICE_FIX: Final = (
    "Check the service name after the sentinels in the store URL: it is the name in the sentinels' "
    "`sentinel monitor <name> ...` line (SENTINEL MASTERS lists them)."
)
_NOT_TLS_REASONS: Final = frozenset(
    {
        "WRONG_VERSION_NUMBER",
        "RECORD_LAYER_FAILURE",
        "PACKET_LENGTH_TOO_LONG",
        "UNKNOWN_PROTOCOL",
        "HTTP_REQUEST",
    }
)
"""OpenSSL's reasons when what answered the handshake was not TLS."""


@dataclass(frozen=True)
class Cause:
    """Why an operation failed: `StoreUnavailable.cause` and `.fix`, and whether Redis may have run it."""

    words: str
    fix: str = ""
    """What to do; empty for the general advice (the store runs, is reachable, or needs more time)."""
    reached: bool = True
    """False when the command certainly never ran (it failed connecting, or was refused unread)."""

    def unavailable(
        self,
        operation: StoreOperation,
        *,
        store: str,
        namespace: str,
        timeout: float,
        claimed: ClaimLeft = "no",
    ) -> StoreUnavailable:
        """The `StoreUnavailable` that ends `operation` for this cause."""
        return StoreUnavailable.during(
            operation,
            store=store,
            namespace=namespace,
            cause=self.words,
            timeout=timeout,
            fix=self.fix,
            claimed=claimed,
        )


def cause_of(error: BaseException, *, timeout: float) -> Cause:
    """The cause of `error`, raised by redis-py (or the store's deadline) during an operation.

    Args:
        error: What was raised.
        timeout: The store's per-operation timeout (for the words of a timeout).

    Returns:
        The cause, worded from the exception's type and TLS reason only (never its message,
        which may quote a host's reply).
    """
    from redis import exceptions

    if isinstance(error, Explained):
        return error.cause
    if _linked(error, exceptions.AuthenticationError) is not None:
        return Cause("authentication failed (AuthenticationError)", _AUTH_FIX, reached=False)
    if _linked(error, exceptions.NoPermissionError) is not None:
        return Cause(
            "the ACL user lacks a right this operation needs (NoPermissionError)",
            _PERMISSION_FIX,
            reached=False,
        )
    tls = _linked(error, ssl.SSLError)
    if isinstance(tls, ssl.SSLCertVerificationError):
        reason = str(tls.verify_message or tls.reason or "the certificate was refused")
        return Cause(f"TLS certificate verification failed ({reason})", _CERTIFICATE_FIX, reached=False)
    if tls is not None:
        if tls.reason in _NOT_TLS_REASONS:
            return Cause(
                f"the server does not speak TLS on this port ({tls.reason})", NOT_TLS_FIX, reached=False
            )
        return Cause(
            f"the TLS handshake failed ({tls.reason or type(tls).__name__})", _TLS_FIX, reached=False
        )
    if _linked(error, ConnectionRefusedError) is not None:
        return Cause("connection refused", reached=False)
    if _linked(error, ConnectionResetError) is not None:
        return Cause("the server reset the connection (ConnectionResetError)", _RESET_FIX)
    if isinstance(error, TimeoutError | exceptions.TimeoutError):
        return Cause(f"no answer within {timeout:g} s")
    return Cause(type(error).__name__)


class Explained(Exception):
    """An operation failed for a cause the store found out itself (`named`)."""

    def __init__(self, cause: Cause) -> None:
        super().__init__(cause.words)
        self.cause = cause


async def named(
    client: Any, command: Callable[[], Awaitable[Any]], tls_hosts: tuple[tuple[str, int], ...], timeout: float
) -> Any:
    """Run `command` (within the caller's deadline), finding out what its failure cannot say itself.

    Args:
        client: The store's client (a Sentinel-managed one is asked about its sentinels).
        command: The operation's command.
        tls_hosts: The hosts of a `rediss://` URL on which nothing has succeeded yet; half
            `timeout` into a command still unanswered, each is sent a plain-text `PING`, and
            one that answers as Redis does ends the command at once, named.
        timeout: The store's per-operation timeout.

    Returns:
        What the command returned.

    Raises:
        Explained: If a host answered in plain text, or Sentinel named no master.
    """
    if not tls_hosts:
        return await _sentinel_explained(client, command)
    found: list[Cause] = []
    with anyio.CancelScope() as scope:
        probe = asyncio.get_running_loop().create_task(
            _ask_in_plain_text(tls_hosts, timeout / 2, scope, found)
        )
        try:
            return await _sentinel_explained(client, command)
        finally:
            probe.cancel()
    raise Explained(found[0] if found else Cause("cancelled"))


async def _ask_in_plain_text(
    hosts: tuple[tuple[str, int], ...], delay: float, scope: anyio.CancelScope, found: list[Cause]
) -> None:
    await asyncio.sleep(delay)
    for host, port in hosts:
        with contextlib.suppress(OSError):  # (unreachable there: the operation says so)
            if await answers_plain_text(host, port):  # a `rediss://` URL on a plain port
                found.append(
                    Cause(
                        f"the server at {host}:{port} does not speak TLS: it answers in plain text",
                        NOT_TLS_FIX,
                        reached=False,
                    )
                )
                scope.cancel()
                return


async def _sentinel_explained(client: Any, command: Callable[[], Awaitable[Any]]) -> Any:
    """Run `command`; if Sentinel named no master, ask the sentinels why (within the same deadline).

    Raises:
        Explained: If Sentinel named no master.
    """
    from redis.asyncio.sentinel import MasterNotFoundError

    try:
        return await command()
    except MasterNotFoundError:
        pool = getattr(client, "connection_pool", None)
        manager = getattr(pool, "sentinel_manager", None)
        service = str(getattr(pool, "service_name", ""))
        known = None if manager is None else await sentinel_trouble(list(manager.sentinels), service)
        raise Explained(
            known or Cause(f"no sentinel named a master of {service!r} that is up (MasterNotFoundError)")
        ) from None


def _linked(error: BaseException, kind: type[_E]) -> _E | None:
    """`error` or the first exception it was raised from (cause or context) that is a `kind`."""
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and not any(current is known for known in seen):
        if isinstance(current, kind):
            return current
        seen.append(current)
        current = current.__cause__ or current.__context__
    return None


async def answers_plain_text(host: str, port: int) -> bool:
    """Whether `host:port` answers a plain-text `PING` as Redis does (`+PONG`, or `-NOAUTH ...`).

    A TLS port answers it with a TLS alert, or closes the connection.

    Raises:
        OSError: If nothing can be connected to there.
    """
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(b"PING\r\n")
        await writer.drain()
        return await reader.read(1) in (b"+", b"-")
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def sentinel_trouble(sentinels: list[Any], service: str) -> Cause | None:
    """Why no sentinel named a master for `service`: each sentinel asked once more, directly.

    Args:
        sentinels: The `redis.asyncio.Redis` clients of the sentinels (no retries).
        service: The service name the store URL gives.

    Returns:
        The most telling cause (a password the sentinels want, a service none of them
        monitors, no sentinel reachable), or None if a sentinel names a master (which is then
        down, or being replaced).
    """
    from redis import exceptions

    found: set[str] = set()
    for client in sentinels:
        try:
            reply = await client.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", service)
        except exceptions.AuthenticationError:
            found.add("auth")
        except exceptions.NoPermissionError:
            found.add("permission")
        except Exception:  # redis' errors, OSError: this sentinel is unreachable or failing
            found.add("unreachable")
        else:
            found.add("unknown" if reply is None else "named")
    causes = {
        "auth": Cause(
            "the sentinels refused the connection: they need a password of their own (AuthenticationError)",
            _SENTINEL_AUTH_FIX,
            reached=False,
        ),
        "permission": Cause(
            "the sentinels' ACL refuses the SENTINEL command (NoPermissionError)",
            _PERMISSION_FIX,
            reached=False,
        ),
        "unknown": Cause(f"no sentinel monitors a master named {service!r}", _SERVICE_FIX, reached=False),
        "unreachable": Cause("no sentinel answered", reached=False),
    }
    if "named" in found:  # a sentinel knows the master: it is down, or a failover is under way
        return None
    return next((cause for name, cause in causes.items() if name in found), None)
