"""Shared fixtures: the three protocol eras, scripted users, in-memory and loopback-HTTP clients."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import uvicorn
from hypothesis import settings
from mcp import Client
from mcp.client.session import ElicitationFnT
from mcp.server.mcpserver import MCPServer

from tests import error_record
from typed_elicit import testing as kit
from typed_elicit._core.versions import ProtocolVersion


def redis_for_this_process(base: str, worker: str | None) -> str:
    """The Redis URL this test process uses: `base`, or under pytest-xdist worker `gwN` its database + N.

    Parallel workers flush their own database only (tests/stores/test_redis.py flushes it), so no
    worker sees another's keys. Redis has databases 0 to 15.

    Raises:
        pytest.UsageError: If the worker's database would be past 15.
    """
    if worker is None:
        return base
    url, _, database = base.rpartition("/")
    number = int(database or 0) + int(worker.removeprefix("gw"))
    if number > 15:
        raise pytest.UsageError(
            f"xdist worker {worker} would use Redis database {number}, past the 16 (0-15) Redis has: "
            f"run fewer workers (-n) or give TYPED_ELICIT_TEST_REDIS a lower database ({base})"
        )
    return f"{url}/{number}"


# Every test module reads TYPED_ELICIT_TEST_REDIS (database 1 unless set: 1 to 15 for -n up to 15);
# examples/replicated_transfer.py reads TYPED_ELICIT_STORE (database 0 unless set): both point at this
# process's own database. A pytest this process starts inherits both, already derived (the marker).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER") or ""
if os.environ.get("TYPED_ELICIT_TEST_REDIS_WORKER") != _WORKER:
    _BASE = os.environ.get("TYPED_ELICIT_TEST_REDIS", "redis://127.0.0.1:6379/1")
    os.environ["TYPED_ELICIT_TEST_REDIS"] = redis_for_this_process(_BASE, _WORKER or None)
    os.environ["TYPED_ELICIT_TEST_REDIS_WORKER"] = _WORKER
    if os.environ.get("TYPED_ELICIT_STORE", _BASE) == _BASE:
        os.environ["TYPED_ELICIT_STORE"] = os.environ["TYPED_ELICIT_TEST_REDIS"]

settings.register_profile("default", deadline=None, derandomize=True, database=None)
settings.register_profile("fast", settings.get_profile("default"), max_examples=10)
settings.register_profile("thorough", settings.get_profile("default"), max_examples=1000)
settings.load_profile(os.environ.get("TYPED_ELICIT_HYPOTHESIS", "default"))
"""Hypothesis profiles, chosen by TYPED_ELICIT_HYPOTHESIS: `default` (100 examples a property, the
same ones on every run, no example database), `fast` (10) and `thorough` (1,000)."""


def examples(n: int) -> int:
    """`n` examples under the default profile, scaled by the profile in force (at least one)."""
    return max(1, n * settings.default.max_examples // 100)


ERAS = ("2025-06-18", "2025-11-25", "2026-07-28")
PUSH_ERAS = ERAS[:2]
BOUND = 10.0
"""Seconds any single wait in a test may take before it fails (never reached when green)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Each protocol era in turn."""
    return str(request.param)


@pytest.fixture(params=PUSH_ERAS)
def push_era(request: pytest.FixtureRequest) -> str:
    """Each era where the server asks mid-call (elicitation/create)."""
    return str(request.param)


Connect = Callable[..., Any]


@pytest.fixture
def connect() -> Connect:
    """`async with connect(server_or_url, era, user) as client:` on the requested era.

    The testing kit's `connect`: its `era_target` maps each era to a client connection.
    """

    def open_client(
        target: kit.Target, era: ProtocolVersion, callback: ElicitationFnT | None = None, **options: Any
    ) -> AbstractAsyncContextManager[Client]:
        return kit.connect(target, era, elicitation_callback=callback, **options)

    return open_client


ROOT = Path(__file__).resolve().parents[1]


def example_output(name: str) -> list[str]:
    """The lines `examples/<name>` prints, run as a reader runs it from the repository root."""
    done = subprocess.run(
        [sys.executable, f"examples/{name}"], capture_output=True, text=True, timeout=60, check=True, cwd=ROOT
    )
    return done.stdout.splitlines()


def task_count() -> int:
    """How many asyncio tasks exist right now (to show nothing leaks)."""
    return len(asyncio.all_tasks())


class _Uvicorn(uvicorn.Server):
    """A uvicorn server that reports when it is ready, so tests wait on an event, not a sleep."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


@asynccontextmanager
async def serve_http(server: MCPServer, **app_options: Any) -> AsyncIterator[str]:
    """Serve `server` over streamable HTTP on a random loopback port; yields the endpoint URL.

    `app_options` go to `streamable_http_app` (e.g. `stateless_http=True`).
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        http = _Uvicorn(
            uvicorn.Config(
                server.streamable_http_app(**app_options),
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=2,
            )
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve, [sock])
            with anyio.fail_after(BOUND):
                await http.ready.wait()
            try:
                yield f"http://127.0.0.1:{port}/mcp"
            finally:
                http.should_exit = True


# --- every typed_elicit error the run builds carries its documented fields (tests/error_record.py) ---

LAST = "test_every_error_raised_in_the_suite_carries_its_documented_fields"
"""The test that reads the record: it runs after every other test (`pytest_collection_modifyitems`)."""


def pytest_configure(config: pytest.Config) -> None:
    error_record.RECORD.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    error_record.RECORD.uninstall()


def pytest_runtest_setup(item: pytest.Item) -> None:
    error_record.RECORD.test = item.nodeid


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test that made an error lacking its documented data fails itself (under xdist, the last
    test below sees only its own worker's record)."""
    before = len(error_record.RECORD.shortfalls)
    result = yield
    made = error_record.RECORD.shortfalls[before:]
    assert not made, "typed_elicit errors lacking documented data: " + "; ".join(map(str, made))
    return result


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: getattr(item, "originalname", item.name) == LAST)
