"""Redis commands per page question, counted by Redis itself (`INFO commandstats`).

A page question (`ctx.elicit_page`) on a `RedisStore`, answered end to end: the client is asked
its consent, the "browser" (httpx on the server's own app) loads the page and submits it, the
tool gets the answer, the call ends. Each set-up runs on Redis processes of its own (a single
`redis-server`, and a three-master cluster), started on free ports in a temporary directory and
stopped at the end, so nothing else's commands are counted: what the server sends, per
question = (commandstats after - before) / questions, the benchmark's own `INFO` and `CLUSTER`
commands left out. Connections made per question (`total_connections_received`) show
reconnects; `HELLO` and `PING` are counted as commands.

Run alone: `python -m tests.bench.redis_counts [--quick]` prints one Markdown table with each
goal beside its measured figure.
"""

from __future__ import annotations

import argparse
import logging
import re
import secrets
import tempfile
from collections import Counter
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, cast

import anyio
import httpx2 as httpx
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit import Accepted, Declined, ElicitContext, elicits, form
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit.client import FormRequest, UrlAnswer, UrlRequest, elicitation_handler
from typed_elicit.pages import FileLimits, UploadedFile, serve_pages
from typed_elicit.stores import RedisStore, configure
from typed_elicit.testing import connect

ORIGIN = "https://pages.bench.example"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x17pixels\x17" * 40
ERAS = ("2025-11-25", "2026-07-28")
GOAL_WITH_FILE = 6.0
"""The issue's goal: at most this many commands per page question with a file, on either revision."""
BEFORE: dict[tuple[str, str, bool], float] = {
    ("single", "2025-11-25", True): 17,
    ("single", "2025-11-25", False): 13,
    ("single", "2026-07-28", True): 22,
    ("single", "2026-07-28", False): 18,
    ("cluster", "2025-11-25", True): 18,
    ("cluster", "2025-11-25", False): 14,
    ("cluster", "2026-07-28", True): 20,
    ("cluster", "2026-07-28", False): 16,
}
"""Commands per question at 4b4fc3e, the tree before issue 30's store work, counted by this module
(the issue's own count: 17 and 21 with a file on a single Redis)."""
_OWN = frozenset({"info", "cluster|info", "cluster|nodes", "cluster|slots", "cluster|shards", "config|get"})
"""The benchmark's own commands (reading the counters), left out of the counts."""
_BOUND = 30.0


@form(page=True, message="Send the scan")
class Scan(BaseModel):
    """A page form with one file."""

    title: str
    scan: Annotated[UploadedFile, FileLimits(max_bytes=4096, media_types=("image/png",))]


@form(page=True, message="Your token")
class Token(BaseModel):
    """A page form without a file."""

    title: str


@dataclass
class Count:
    """One set-up, one revision, with or without a file: commands per question, by command."""

    where: str
    era: str
    with_file: bool
    questions: int
    commands: Counter[str] = field(default_factory=Counter[str])
    connections: int = 0

    @property
    def per_question(self) -> float:
        """Every command Redis received from the server, per question."""
        return sum(self.commands.values()) / self.questions

    def of(self, name: str) -> float:
        """One command's calls per question."""
        return self.commands[name] / self.questions


def _stats(clients: list[Any]) -> tuple[Counter[str], int]:
    """Calls per command and connections received, summed over every node."""
    calls: Counter[str] = Counter()
    connections = 0
    for client in clients:
        for name, stats in client.info("commandstats").items():
            calls[str(name).removeprefix("cmdstat_").lower()] += int(stats["calls"])
        connections += int(client.info("stats")["total_connections_received"])
    return calls, connections


def build_server(url: str) -> MCPServer:
    """A server with two page questions on a `RedisStore` at `url`."""
    server = MCPServer("bench-redis-counts")
    configure(server, store=RedisStore.from_url(url, timeout=30.0))  # (counts, not speed: a busy machine)
    serve_pages(server, ORIGIN, poll_seconds=5.0)

    @server.tool()
    @elicits(Scan)
    async def with_file(ctx: ElicitContext) -> str:
        result = await ctx.elicit_page(Scan)
        assert isinstance(result, Accepted)
        return f"{len(result.data.scan.data)}"

    @server.tool()
    @elicits(Token)
    async def without_file(ctx: ElicitContext) -> str:
        result = await ctx.elicit_page(Token)
        assert isinstance(result, Accepted)
        return result.data.title

    return server


async def _no_form(request: FormRequest) -> Declined:
    raise AssertionError("a page question asks no form")


async def _ask(server: MCPServer, era: str, tool: str, questions: int) -> None:
    """Call `tool` `questions` times; the handler loads and submits each page."""
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=server.streamable_http_app()), base_url=ORIGIN)

    async def open_url(request: UrlRequest) -> UrlAnswer:
        path = request.url.removeprefix(ORIGIN)
        page = await http.get(path)
        token = re.search(r'name="_csrf" value="([0-9a-f]+)"', page.text)
        assert token is not None, page.status_code
        files = {"scan": ("scan.png", PNG, "image/png")} if tool == "with_file" else None
        done = await http.post(
            path,
            data={"title": "Dent", "_csrf": token.group(1), "_action": "accept"},
            files=files,
            headers={"Origin": ORIGIN},
        )
        assert done.status_code == 200, done.status_code
        return "accept"

    handler = elicitation_handler(_no_form, url=open_url)
    async with connect(server, cast("ProtocolVersion", era), elicitation_callback=handler) as client:
        for _ in range(questions):
            with anyio.fail_after(_BOUND):
                result = await client.call_tool(tool, {})
            assert not result.is_error, result


def count(
    where: str,
    url: str,
    admins: list[Any],
    questions: int,
    *,
    eras: tuple[str, ...] = ERAS,
    files: tuple[bool, ...] = (True, False),
    warmup: int = 2,
) -> list[Count]:
    """Each revision, with and without a file, on the store at `url`.

    Each server is warmed up first (connected to every master of a cluster, then `warmup`
    questions), so what is counted is what a question costs a running server.
    """
    counts: list[Count] = []
    for era in eras:
        for with_file in files:
            server = build_server(url)
            tool = "with_file" if with_file else "without_file"

            async def run(
                server: MCPServer = server, era: str = era, tool: str = tool, with_file: bool = with_file
            ) -> Count:
                await _connect_everywhere(server_store(server))
                await _ask(server, era, tool, warmup)
                before, conns_before = _stats(admins)
                await _ask(server, era, tool, questions)
                after, conns_after = _stats(admins)
                await server_store(server).aclose()
                commands = Counter({k: v for k, v in (after - before).items() if k not in _OWN})
                return Count(where, era, with_file, questions, commands, conns_after - conns_before)

            counts.append(anyio.run(run))
    return counts


async def _connect_everywhere(store: Any) -> None:
    """Have the store's pool grow to a few connections (two commands of one question may run at
    once); on a cluster, on every master, and its subscriber connected to each: warmed up."""
    client = store._client  # (the bench's look inside: which node serves which key)
    if not hasattr(client, "get_primaries"):
        async with anyio.create_task_group() as group:  # a few commands at once: the pool grown
            for _ in range(4):
                group.start_soon(store.get, "page:warm")
        return
    await store.get("page:warm")  # the slot map learnt
    seen: set[str] = set()
    while len(seen) < len(client.get_primaries()):
        page = secrets.token_hex(8)
        node = client.get_node_from_key(store._key(f"page:{page}"))
        if node.name not in seen:
            seen.add(node.name)
            await store.wait(f"page:{page}", 0.01)
            async with anyio.create_task_group() as group:  # a few commands at once: the pool grown
                for _ in range(4):
                    group.start_soon(store.get, f"page:{page}")


def server_store(server: MCPServer) -> Any:
    from typed_elicit.stores._config import store_for

    return store_for(server)


@contextmanager
def redis_setups(cluster: bool = True) -> Generator[list[tuple[str, str, list[Any]]]]:
    """A single `redis-server`, and a three-master cluster: (name, URL, admin clients), stopped after."""
    from tests.stores import redis_procs

    with tempfile.TemporaryDirectory(prefix="bench-redis-") as tmp, redis_procs.processes() as started:
        single = redis_procs.plain(Path(tmp) / "single")
        started.append(single)
        single.start()
        setups = [("single", f"redis://127.0.0.1:{single.port}/0", [single.client(decode_responses=True)])]
        if cluster:
            nodes = redis_procs.cluster(Path(tmp) / "cluster", started)
            hosts = ",".join(f"127.0.0.1:{n.port}" for n in nodes)
            admins = [n.client(decode_responses=True) for n in nodes]
            setups.append(("cluster", f"redis+cluster://{hosts}", admins))
        yield setups


def measure(questions: int, cluster: bool = True) -> list[Count]:
    """Count every set-up."""
    counts: list[Count] = []
    with redis_setups(cluster) as setups:
        for where, url, admins in setups:
            counts += count(where, url, admins, questions)
    return counts


def table(counts: list[Count]) -> str:
    """The Markdown table, each goal beside its measured figure."""
    lines = [
        "| Redis | revision | file | commands per question | goal | before | connections per question "
        "| commands |",
        "|---|---|---|---:|---|---:|---:|---|",
    ]
    for c in counts:
        before = BEFORE.get((c.where, c.era, c.with_file))
        most = GOAL_WITH_FILE if c.with_file else before
        goal = f"at most {GOAL_WITH_FILE:g}" if c.with_file else "no more than before"
        if most is not None:
            goal += ": met" if c.per_question <= most else ": **not met**"
        top = ", ".join(f"{name.upper()} {n / c.questions:.2f}" for name, n in c.commands.most_common())
        lines.append(
            f"| {c.where} | {c.era} | {'yes' if c.with_file else 'no'} | {c.per_question:.2f} | {goal} | "
            f"{'' if before is None else f'{before:g}'} | {c.connections / c.questions:.2f} | {top} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Count]:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.redis_counts", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 questions per set-up, single Redis only")
    parser.add_argument("--questions", type=int, default=None)
    args = parser.parse_args(argv)
    logging.disable(logging.INFO)  # (the page's own INFO lines, httpx's requests)
    questions = args.questions or (3 if args.quick else 20)
    counts = measure(questions, cluster=not args.quick)
    print(table(counts))
    return counts


if __name__ == "__main__":
    main()
