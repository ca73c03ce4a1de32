"""Pages against a hand-written handler: instructions per GET + POST, and per rendered input (callgrind).

Three cases, each with two contenders in one process (`PYTHONHASHSEED=0`):

- `flat`: a page with one secret field (`Flat`), GET then POST of a valid answer;
- `groups`: a page with groups (`Rich`: a nested address, 3 contact rows, a small file), GET then
  a multipart POST of a valid answer;
- `big`: the GET of a ~2,000-input page (`Big`: 95 rows of 20 text fields, 1,900 inputs);
- `question_flat`, `question_groups`: the whole page question on 2025-11-25, a tool call from an
  in-memory `mcp.Client` to the answer in the tool: the URL-mode consent round trip, the page's
  GET and POST (the client's URL callback plays the browser), the answer reaching the waiting
  tool, `notifications/elicitation/complete`, the tool's result.

`typed_elicit` is `serve_pages` on an `MCPServer` (its routes, the in-memory store, pages minted
and opened before counting starts; in a whole question, `ctx.elicit_page` in an `@elicits` tool).
`hand` is what a developer would write without it: one Starlette route per page that renders the
same form with string joins (escaped with markupsafe), the same security headers and a
double-submit CSRF token, parses the same body (`parse_qsl`, or Starlette's multipart parser) and
validates the same pydantic model; in a whole question, a plain SDK tool that opens the page,
asks `ctx.elicit_url`, waits for the page's answer and sends `send_elicit_complete`. Both are
called as ASGI apps directly (no HTTP client in between), the same requests for both, and a
whole question's client is the same `mcp.Client(mode="legacy")` with the same callback.

Counted as `tests/bench/instructions.py` counts a round trip: under callgrind, instrumentation
switched on after the warm-up (what the warm-up left alive collected, then frozen with
`gc.freeze()`, so that a full collection walking it does not land in one stretch and not the
other), then for each contender and case a stretch of N and one of M requests between markers;
per request = (M stretch - N stretch) / (M - N). Without valgrind,
`--profile CASE` shows where typed_elicit's time goes (cProfile).

Run: `python -m tests.bench.pages [--quick]`.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, SecretStr

from typed_elicit import Accepted, ElicitContext, elicits, form
from typed_elicit.pages import FileLimits, UploadedFile

ORIGIN = "https://pages.example"
GOAL_RATIO = 1.3
"""The issue's goal: a page's GET + POST at most this many times the hand-written handler's."""
GOAL_QUESTION = 1.3
"""The issue's goal: a whole page question at most this many times the hand-written one's."""
GOAL_PER_INPUT = 30_000
"""The issue's goal: rendering at most this many instructions per input."""
FULL = (3, 4, 14)
QUICK = (1, 1, 3)
"""(warm-up requests, N, M) per contender and case."""
QUESTIONS = ("question_flat", "question_groups")
"""The whole-question cases: a tool call that asks the page of `flat` or `groups`."""
CASES = ("flat", "groups", "big", *QUESTIONS)
CONTENDERS = ("typed_elicit", "hand")
BIG_ROWS, BIG_FIELDS = 95, 20


@form(page=True, message="Connect your bank")
class Flat(BaseModel):
    api_key: Annotated[SecretStr, Field(min_length=8, title="API key")]


class Address(BaseModel):
    street: Annotated[str, Field(min_length=2)]
    city: str
    postcode: str


class Contact(BaseModel):
    name: str
    phone: str


@form(page=True, message="Tell us who to contact")
class Rich(BaseModel):
    name: str
    address: Address
    contacts: list[Contact] = Field(min_length=3, max_length=5)
    scan: Annotated[UploadedFile, FileLimits(max_bytes=2048, media_types=("text/plain",))]


Row = type(
    "Row",
    (BaseModel,),
    {"__annotations__": {f"c{i:02d}": str for i in range(BIG_FIELDS)}, "__module__": __name__},
)


@form(page=True, message="Fill in the sheet")
class Big(BaseModel):
    rows: list[Row] = Field(min_length=BIG_ROWS, max_length=BIG_ROWS)  # type: ignore[valid-type]


MODELS: dict[str, type[BaseModel]] = {"flat": Flat, "groups": Rich, "big": Big}
BOUNDARY = "benchboundary7MA4YWxkTrZu0gW"


def _multipart(fields: list[tuple[str, str]], files: list[tuple[str, str, str, bytes]]) -> bytes:
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields
    ]
    for name, filename, media, data in files:
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: {media}\r\n\r\n"
        )
        parts.append(head.encode() + data + b"\r\n")
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def answer_body(case: str, csrf: str) -> tuple[bytes, str]:
    """The POST body of a valid answer for `case`, and its content type."""
    if case == "flat":
        body = f"_csrf={csrf}&_action=accept&api_key=s3cret-value-42"
        return body.encode(), "application/x-www-form-urlencoded"
    fields = [
        ("_csrf", csrf),
        ("_action", "accept"),
        ("name", "Ada Lovelace"),
        ("address.street", "12 Rue de la Paix"),
        ("address.city", "Paris"),
        ("address.postcode", "75002"),
        ("contacts._n", "3"),
    ]
    for i in range(3):
        fields += [(f"contacts.{i}.name", f"Contact {i}"), (f"contacts.{i}.phone", f"+33 1 23 45 67 0{i}")]
    body = _multipart(fields, [("scan", "scan.txt", "text/plain", b"a small scanned text\n" * 20)])
    return body, f"multipart/form-data; boundary={BOUNDARY}"


# --- calling an ASGI app directly ----------------------------------------------------------------

Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


async def call(app: Asgi, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b"") -> Any:
    """One request to `app`: (status, headers as (name, value) pairs, body)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "https",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in [("host", "pages.example"), *headers]],
        "client": ("127.0.0.1", 5000),
        "server": ("pages.example", 443),
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    out: dict[str, Any] = {"body": b""}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = [(k.decode(), v.decode()) for k, v in message["headers"]]
        else:
            out["body"] += message.get("body", b"")

    await app(scope, receive, send)
    return out["status"], out["headers"], out["body"]


_CSRF = re.compile(rb'name="_csrf" value="([0-9a-f]+)"')


async def get_and_post(app: Asgi, case: str, path: str) -> None:
    """What a browser does with a page: GET it, then POST a valid answer with its cookie and token."""
    status, headers, html = await call(app, "GET", path, [])
    assert status == 200, status
    if case == "big":
        return
    cookie = next(v.split(";", 1)[0] for k, v in headers if k == "set-cookie")
    found = _CSRF.search(html)
    assert found is not None
    body, kind = answer_body(case, found.group(1).decode())
    status, _, done = await call(
        app, "POST", path, [("cookie", cookie), ("origin", ORIGIN), ("content-type", kind)], body
    )
    assert status == 200, (status, done[:300])
    assert b"Thank you" in done


# --- the contenders -------------------------------------------------------------------------------


Unit = Callable[[], Awaitable[None]]
"""One counted request (GET + POST, or a GET), or one whole question."""


def _browser(app: Asgi, case: str) -> Any:
    """The client's URL callback: it opens the page like a browser, answers it, then consents."""
    from urllib.parse import urlsplit

    from mcp.types import ElicitResult

    async def browse(context: Any, params: Any) -> ElicitResult:
        await get_and_post(app, case, urlsplit(params.url).path)
        return ElicitResult(action="accept")

    return browse


async def _questions(server: Any, app: Asgi, case: str, count: int, stack: AsyncExitStack) -> list[Unit]:
    """`count` whole questions: calls of `server`'s tool `case` from one client on 2025-11-25."""
    from mcp import Client

    page_case = case.removeprefix("question_")
    client = await stack.enter_async_context(
        Client(server, mode="legacy", elicitation_callback=_browser(app, page_case))
    )

    async def ask() -> None:
        result = await client.call_tool(case, {})
        assert not result.is_error, result
        assert result.content[0].text == "done", result  # type: ignore[union-attr]

    return [ask] * count


class Ours:
    """`serve_pages` on an MCPServer: pages minted and opened ahead, one per request; a tool per question."""

    def __init__(self) -> None:
        from mcp.server.mcpserver import MCPServer
        from starlette.applications import Starlette

        from typed_elicit.pages import serve_pages

        self.server = MCPServer("bench-pages")
        serve_pages(self.server, ORIGIN)
        self.app: Asgi = Starlette(routes=list(self.server._custom_starlette_routes))  # pyright: ignore[reportPrivateUsage]

        def tool(model: type[BaseModel]) -> Any:
            @elicits(model)
            async def ask(ctx: ElicitContext) -> str:
                answer = await ctx.elicit_page(model)
                assert isinstance(answer, Accepted), answer
                return "done"

            return ask

        for case in QUESTIONS:
            self.server.tool(name=case)(tool(MODELS[case.removeprefix("question_")]))

    async def units(self, case: str, count: int, stack: AsyncExitStack) -> list[Unit]:
        if case in QUESTIONS:
            return await _questions(self.server, self.app, case, count, stack)
        from urllib.parse import urlsplit

        from typed_elicit._calls.plugs import host_for
        from typed_elicit._forms.reduce import page_reduced

        host: Any = host_for(self.server)
        model = MODELS[case]
        out: list[Unit] = []
        for _ in range(count):
            page = host.mint("bench", "bench:1", 3600.0)
            await host.open(
                page, model, str(model.__doc__ or "Please answer"), "bench", None, page_reduced(model)
            )
            out.append(partial(get_and_post, self.app, case, urlsplit(host.url(page)).path))
        return out


class Hand:
    """The hand-written equivalent (see `tests/bench/_hand_pages.py`); a plain SDK tool per question."""

    def __init__(self) -> None:
        from mcp.server.mcpserver import MCPServer

        from ._hand_pages import HandPages

        self.pages = HandPages(ORIGIN)
        self.app: Asgi = self.pages.app
        self.server = MCPServer("bench-hand")

        def tool(case: str) -> Any:
            async def ask(ctx: Context) -> str:
                import anyio

                path = self.pages.open(case)
                page_id = path.rsplit("/", 1)[1]
                page = self.pages.pages[page_id]
                consent = await ctx.elicit_url(str(MODELS[case].__doc__), ORIGIN + path, page_id)
                if consent.action != "accept":
                    return consent.action
                with anyio.fail_after(3600.0):
                    await page["done"].wait()
                del self.pages.pages[page_id]
                await ctx.session.send_elicit_complete(page_id, related_request_id=ctx.request_id)
                assert isinstance(page["answer"], BaseModel)  # (MODELS of `bench` when run as __main__)
                return "done"

            return ask

        for case in QUESTIONS:
            self.server.tool(name=case)(tool(case.removeprefix("question_")))

    async def units(self, case: str, count: int, stack: AsyncExitStack) -> list[Unit]:
        if case in QUESTIONS:
            return await _questions(self.server, self.app, case, count, stack)
        return [partial(get_and_post, self.app, case, self.pages.open(case)) for _ in range(count)]


async def _stretches(warmup: int, n: int, m: int, cases: tuple[str, ...], counting: bool) -> None:
    from .instructions import _instrumentation_on  # pyright: ignore[reportPrivateUsage]

    contenders = {"typed_elicit": Ours(), "hand": Hand()}
    async with AsyncExitStack() as stack:
        units = {
            (name, case): await contender.units(case, warmup + n + m, stack)
            for name, contender in contenders.items()
            for case in cases
        }
        for todo in units.values():
            for unit in todo[:warmup]:
                await unit()
        gc.collect()
        gc.freeze()  # what warm-up made lives on: no full collection walks it inside one stretch only
        if counting:
            _instrumentation_on()
        for todo in units.values():
            rest = iter(todo[warmup:])
            for calls in (n, m):
                os.getppid()
                for _ in range(calls):
                    await next(rest)()
        os.getppid()


def worker(warmup: int, n: int, m: int) -> None:
    """Inside valgrind: warm up uninstrumented, switch instrumentation on, then the marked stretches."""
    import anyio

    anyio.run(_stretches, warmup, n, m, CASES, True)


def measure(sizes: tuple[int, int, int]) -> dict[tuple[str, str], float] | str:
    """Instructions per request (GET + POST; GET alone for `big`), by (contender, case), or why not."""
    from .instructions import _total, missing, stretches  # pyright: ignore[reportPrivateUsage]

    problem = missing()
    if problem is not None:
        return f"callgrind skipped: {problem}"
    names = tuple(f"{name}:{case}" for name in CONTENDERS for case in CASES)
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        found = stretches("tests.bench.pages", names, sizes, Path(tmp), 3600.0)
        if isinstance(found, str):
            return found
        _, n, m = sizes
        out: dict[tuple[str, str], float] = {}
        for label, (dump_n, dump_m) in found.items():
            name, case = label.split(":")
            out[(name, case)] = (_total(dump_m) - _total(dump_n)) / (m - n)
        return out


def report(per: dict[tuple[str, str], float], sizes: tuple[int, int, int]) -> list[str]:
    """The Markdown table, each goal beside its measured figure."""
    inputs = BIG_ROWS * BIG_FIELDS
    lines = [
        "| what | typed_elicit | hand-written | ratio | goal | met |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for case, what in (
        ("flat", "flat page, one secret field: GET + POST"),
        ("groups", "page with groups: GET + POST"),
    ):
        ours, hand = per[("typed_elicit", case)], per[("hand", case)]
        ratio = ours / hand
        lines.append(
            f"| {what} | {ours / 1e6:.2f} M | {hand / 1e6:.2f} M | {ratio:.2f}x | "
            f"≤ {GOAL_RATIO:.1f}x | {'yes' if ratio <= GOAL_RATIO else '**no**'} |"
        )
    for case, what in (
        ("question_flat", "flat page, one secret field: whole question"),
        ("question_groups", "page with groups: whole question"),
    ):
        ours, hand = per[("typed_elicit", case)], per[("hand", case)]
        ratio = ours / hand
        lines.append(
            f"| {what} | {ours / 1e6:.2f} M | {hand / 1e6:.2f} M | {ratio:.2f}x | "
            f"≤ {GOAL_QUESTION:.1f}x | {'yes' if ratio <= GOAL_QUESTION else '**no**'} |"
        )
    ours, hand = per[("typed_elicit", "big")], per[("hand", "big")]
    lines.append(
        f"| render of a {inputs:,}-input page ({BIG_ROWS} rows x {BIG_FIELDS}): GET | {ours / 1e6:.2f} M | "
        f"{hand / 1e6:.2f} M | {ours / hand:.2f}x | | |"
    )
    lines.append(
        f"| its render per input | {ours / inputs:,.0f} | {hand / inputs:,.0f} | | ≤ {GOAL_PER_INPUT:,} | "
        f"{'yes' if ours / inputs <= GOAL_PER_INPUT else '**no**'} |"
    )
    warmup, n, m = sizes
    lines += [
        "",
        f"callgrind, `PYTHONHASHSEED=0`, {warmup} warm-up request(s) uninstrumented, stretches of "
        f"N = {n} and M = {m} requests (or whole questions); per request = (M - N stretch) / (M - N).",
    ]
    return lines


def profile(case: str, calls: int) -> None:
    """typed_elicit's `case` under cProfile: the functions with the most own time."""
    import anyio

    async def main() -> None:
        async with AsyncExitStack() as stack:
            todo = await Ours().units(case, calls + 2, stack)
            for unit in todo[:2]:
                await unit()
            gc.disable()  # the collector's pauses land on whichever function allocates: leave them out
            profiler = cProfile.Profile()
            profiler.enable()
            for unit in todo[2:]:
                await unit()
            profiler.disable()
            gc.enable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats("typed_elicit|markupsafe|starlette", 40)

    anyio.run(main)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.pages", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK} instead of {FULL} (a smoke run)")
    parser.add_argument("--profile", choices=CASES, help="cProfile typed_elicit's CASE instead of counting")
    parser.add_argument("--calls", type=int, default=20, help="requests profiled (with --profile)")
    parser.add_argument("--worker", nargs=3, type=int, metavar=("WARMUP", "N", "M"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return
    if args.profile:
        profile(args.profile, args.calls)
        return
    sizes = QUICK if args.quick else FULL
    per = measure(sizes)
    if isinstance(per, str):
        print(per)
        sys.exit(0 if per.startswith("callgrind skipped") else 1)
    print("\n".join(report(per, sizes)))


if __name__ == "__main__":
    main()
