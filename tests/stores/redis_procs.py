"""Redis processes the deployment tests start themselves: plain, TLS, a cluster, Sentinel.

Every process runs in a temporary directory on a free port of 127.0.0.1, keeps nothing on
disk, and is stopped by the object that started it (never by name). Every wait is a bounded
loop on a condition (`wait_until`); nothing sleeps for a fixed time.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from mcp_types import ElicitResult

BOUND = 10.0
"""Seconds any wait for a process may take (never reached when green)."""
POLL = 0.02
"""Seconds between two checks of a condition (the only pause in these helpers)."""


def require_redis_server() -> str:
    """The `redis-server` binary, or skip the test saying how to get one."""
    path = shutil.which("redis-server")
    if path is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until(condition: Callable[[], bool], what: str, timeout: float = BOUND) -> None:
    """Return as soon as `condition()` holds; fail the test if it does not within `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        with suppress(redis.RedisError, OSError):
            if condition():
                return
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:g} s for {what}")
        time.sleep(POLL)


@dataclass
class Proc:
    """One `redis-server` (or sentinel) process on 127.0.0.1:`port`."""

    port: int
    args: list[str]
    directory: Path
    process: subprocess.Popen[bytes] | None = None
    client_kwargs: dict[str, Any] = field(default_factory=dict)

    def start(self) -> None:
        assert self.process is None
        self.process = subprocess.Popen(
            [require_redis_server(), *self.args],
            cwd=self.directory,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: bool(self.client().ping()), f"redis-server on port {self.port}")

    def client(self, **overrides: Any) -> redis.Redis:
        """A short-lived synchronous client (as the admin: the test's own checks)."""
        settings = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0, **self.client_kwargs, **overrides}
        return redis.Redis(host="127.0.0.1", port=self.port, **settings)

    def stop(self) -> None:
        """Stop the process and wait for it (killed if it does not stop in time)."""
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=BOUND)

    def kill(self) -> None:
        """Kill the process at once (no shutdown: what a crash looks like)."""
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait(timeout=BOUND)


BASE = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"]


@contextmanager
def processes() -> Iterator[list[Proc]]:
    """Collects the processes a test starts, and stops every one of them at the end."""
    started: list[Proc] = []
    try:
        yield started
    finally:
        for proc in started:
            proc.stop()


def plain(directory: Path, *extra: str, client_kwargs: dict[str, Any] | None = None) -> Proc:
    """A stand-alone `redis-server` (not started yet)."""
    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    return Proc(port, ["--port", str(port), *BASE, *extra], directory, client_kwargs=client_kwargs or {})


def answer(**content: Any) -> ElicitResult:
    """An accepted answer as the wire carries it (no checks: the server's are under test)."""
    return ElicitResult(action="accept", content=content)


async def a_claim_and_a_wait_failing(store: Any) -> list[tuple[Any, float]]:
    """A claim, then a wait, on a `RedisStore` that cannot serve them: each one's error, and its seconds.

    Fails the test unless both end with `StoreUnavailable` of their own operation.
    """
    import anyio

    import typed_elicit._core.clock as clock
    from typed_elicit.errors import StoreUnavailable

    failures: list[tuple[Any, float]] = []
    calls = {
        "claim": lambda: store.claim("round:failing", clock.now() + 60),
        "wait": lambda: store.wait("page:failing", 30.0),
    }
    for operation, call in calls.items():
        began = anyio.current_time()
        with anyio.fail_after(BOUND), pytest.raises(StoreUnavailable) as raised:
            await call()
        assert raised.value.operation == operation
        failures.append((raised.value, anyio.current_time() - began))
    return failures


# --- TLS -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Certificates:
    ca: Path
    cert: Path
    key: Path


def make_certificates(directory: Path) -> Certificates:
    """A CA and a server certificate for 127.0.0.1 it signed, made with the openssl CLI."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed")
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_key = directory / "ca.pem", directory / "ca.key"
    cert, key, csr = directory / "server.pem", directory / "server.key", directory / "server.csr"
    ext = directory / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")

    def run(*args: str | Path) -> None:
        subprocess.run([openssl, *map(str, args)], check=True, capture_output=True, timeout=BOUND)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        ca_key,
        "-out",
        ca,
        "-days",
        "2",
        "-subj",
        "/CN=typed-elicit test CA",
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1")
    run(
        "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
        "-days", "2", "-extfile", ext,
    )  # fmt: skip
    return Certificates(ca, cert, key)


def tls(directory: Path, certificates: Certificates, *extra: str) -> Proc:
    """A `redis-server` that speaks TLS only (no plain port); clients need not show a certificate."""
    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    args = [
        "--port", "0", "--tls-port", str(port), *BASE,
        "--tls-cert-file", str(certificates.cert), "--tls-key-file", str(certificates.key),
        "--tls-ca-cert-file", str(certificates.ca), "--tls-auth-clients", "no", *extra,
    ]  # fmt: skip
    admin = {"ssl": True, "ssl_ca_certs": str(certificates.ca)}
    return Proc(port, args, directory, client_kwargs=admin)


# --- a cluster -------------------------------------------------------------------------------------


def cluster(directory: Path, started: list[Proc], masters: int = 3) -> list[Proc]:
    """A local cluster of `masters` masters (no replicas), created and covering every slot."""
    nodes: list[Proc] = []
    for index in range(masters):
        node_dir = directory / f"node{index}"
        node_dir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        args = [
            "--port", str(port), *BASE, "--cluster-enabled", "yes",
            "--cluster-config-file", str(node_dir / "nodes.conf"), "--cluster-node-timeout", "1000",
            "--cluster-port", str(free_port()),  # (the default, port + 10000, may be taken or too high)
        ]  # fmt: skip
        node = Proc(port, args, node_dir)
        started.append(node)
        node.start()
        nodes.append(node)
    cli = shutil.which("redis-cli")
    if cli is None:
        pytest.skip("redis-cli is not installed (Debian: apt-get install redis-tools)")
    subprocess.run(
        [
            cli,
            "--cluster",
            "create",
            *(f"127.0.0.1:{n.port}" for n in nodes),
            "--cluster-replicas",
            "0",
            "--cluster-yes",
        ],
        check=True,
        capture_output=True,
        timeout=BOUND * 3,
    )
    for node in nodes:
        wait_until(lambda node=node: _cluster_ok(node), f"cluster node {node.port} to see every slot")
    return nodes


def _cluster_ok(node: Proc) -> bool:
    info = node.client().execute_command("CLUSTER", "INFO")
    text = info.decode() if isinstance(info, bytes) else str(info)
    return "cluster_state:ok" in text and "cluster_slots_ok:16384" in text


def node_ids(nodes: list[Proc]) -> dict[int, str]:
    """Each node's cluster id, by port."""
    return {n.port: n.client().execute_command("CLUSTER", "MYID").decode() for n in nodes}


def owner_of(nodes: list[Proc], slot: int) -> Proc:
    """The node that serves `slot` now (as the first running node sees it)."""
    running = next(n for n in nodes if n.process is not None)
    port = owner_port(running, slot)
    return next(n for n in nodes if n.port == port)


def owner_port(node: Proc, slot: int) -> int:
    """The port of the master that serves `slot`, as `node` sees it."""
    for start, end, master, *_ in node.client().execute_command("CLUSTER", "SLOTS"):
        if start <= slot <= end:
            return int(master[1])
    raise AssertionError(f"no node serves slot {slot}")


def move_slot(nodes: list[Proc], slot: int, target: Proc) -> None:
    """Migrate `slot` with its keys to `target` (CLUSTER SETSLOT, MIGRATE), and tell every node."""
    source = owner_of(nodes, slot)
    ids = node_ids([n for n in nodes if n.process is not None])
    src, dst = source.client(), target.client()
    dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[source.port])
    src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[target.port])
    while keys := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
        src.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)
    for node in (target, source, *(n for n in nodes if n not in (source, target) and n.process)):
        node.client().execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[target.port])
    for node in nodes:
        if node.process is not None:
            wait_until(
                lambda node=node: owner_port(node, slot) == target.port, f"node {node.port} to see the move"
            )


# --- Sentinel --------------------------------------------------------------------------------------


SERVICE = "typed-elicit-test"


@dataclass
class SentinelGroup:
    master: Proc
    replica: Proc
    sentinels: list[Proc]

    def sentinel_hosts(self) -> str:
        return ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)

    def master_port(self) -> int:
        """The master's port as the first sentinel reports it."""
        _host, port = (
            self.sentinels[0].client().execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        )
        return int(port)


def sentinel_group(
    directory: Path,
    started: list[Proc],
    *,
    master_args: tuple[str, ...] = (),
    password: str | None = None,
    sentinel_password: str | None = None,
) -> SentinelGroup:
    """One master, one replica of it and three sentinels watching them (quorum 2), all started.

    `password` is the master's and replica's; `sentinel_password` the sentinels' own (`requirepass`
    on each sentinel, and `sentinel sentinel-pass` so they still talk to each other).
    """
    auth = ("--requirepass", password, "--masterauth", password) if password else ()
    admin = {"password": password} if password else {}
    sync_now = ("--repl-diskless-sync-delay", "0")  # (the default waits 5 s for more replicas)
    master = plain(directory / "master", *auth, *sync_now, *master_args, client_kwargs=admin)
    started.append(master)
    master.start()
    replica = plain(
        directory / "replica", *auth, "--replicaof", "127.0.0.1", str(master.port), client_kwargs=admin
    )
    started.append(replica)
    replica.start()
    wait_until(
        lambda: (
            replica.client().info("replication").get("master_link_status") == "up"
            and master.client().info("replication").get("slave0", {}).get("state") == "online"
        ),
        "the replica to sync and the master to count it online",
    )
    ports = [free_port() for _ in range(3)]
    ids = [f"{index + 1:040x}" for index in range(3)]  # fixed ids: each sentinel knows the others at once
    sentinels: list[Proc] = []
    for index, port in enumerate(ports):
        sentinel_dir = directory / f"sentinel{index}"
        sentinel_dir.mkdir(parents=True, exist_ok=True)
        conf = sentinel_dir / "sentinel.conf"
        lines = [
            f"port {port}",
            "bind 127.0.0.1",
            f"sentinel myid {ids[index]}",
            f"sentinel monitor {SERVICE} 127.0.0.1 {master.port} 2",
            f"sentinel down-after-milliseconds {SERVICE} 400",
            f"sentinel failover-timeout {SERVICE} 3000",
            f"sentinel parallel-syncs {SERVICE} 1",
            f"sentinel known-replica {SERVICE} 127.0.0.1 {replica.port}",
            *(
                f"sentinel known-sentinel {SERVICE} 127.0.0.1 {other} {ids[j]}"
                for j, other in enumerate(ports)
                if j != index
            ),
        ]
        if password:
            lines.append(f"sentinel auth-pass {SERVICE} {password}")
        if sentinel_password:
            lines += [f"requirepass {sentinel_password}", f"sentinel sentinel-pass {sentinel_password}"]
        conf.write_text("\n".join(lines) + "\n")
        own = {"password": sentinel_password} if sentinel_password else {}
        sentinel = Proc(port, [str(conf), "--sentinel"], sentinel_dir, client_kwargs=own)
        started.append(sentinel)
        sentinel.start()
        sentinels.append(sentinel)
    group = SentinelGroup(master, replica, sentinels)
    for sentinel in sentinels:
        wait_until(
            lambda sentinel=sentinel: _sentinel_sees_all(sentinel),
            f"sentinel {sentinel.port} to see the replica and the other sentinels",
        )
    return group


def _sentinel_sees_all(sentinel: Proc) -> bool:
    client = sentinel.client()
    replicas = client.execute_command("SENTINEL", "REPLICAS", SERVICE)
    others = client.execute_command("SENTINEL", "SENTINELS", SERVICE)
    return len(replicas) == 1 and len(others) == 2


# --- the docs' examples, run on the processes above ---------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def an_example_on_two_replicas(
    name: str, tool: str, env: dict[str, str]
) -> tuple[list[str], list[int]]:
    """Run `examples/<name>.py` as two replicas on the store `env` names; answer on one, resend on both.

    Returns:
        What each of the three final rounds returned (the first answer, then two resends),
        and the amounts the example applied.
    """
    import os
    import runpy

    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import InputRequiredResult

    from tests.stores.test_redis import KEY, session_on, text
    from typed_elicit.stores._config import store_for

    saved = {key: os.environ.get(key) for key in [*env, "MCP_STATE_KEYS"]}
    os.environ.update({**env, "MCP_STATE_KEYS": KEY.hex()})
    try:
        example = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"example_{name}")
        one, two = example["build_server"](), example["build_server"]()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    outcomes: list[str] = []
    async with session_on(one) as on_one, session_on(two) as on_two:
        with anyio.fail_after(BOUND):
            asked = await on_one.call_tool(tool, {}, allow_input_required=True)
            assert isinstance(asked, InputRequiredResult)
            for session in (on_two, on_one, on_two):
                try:
                    done = await session.call_tool(
                        tool,
                        {},
                        input_responses={"q0": answer(amount=250)},
                        request_state=asked.request_state,
                        allow_input_required=True,
                    )
                    outcomes.append(text(done))
                except MCPError as error:
                    outcomes.append(f"refused {error.error.code}")
    for server in (one, two):
        await store_for(server).aclose()  # type: ignore[attr-defined]
    return outcomes, list(example["APPLIED"])
