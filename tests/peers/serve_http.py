"""Serve an MCPServer from a Python file over streamable HTTP on loopback, for the peer tests.

    python tests/peers/serve_http.py tests/peers/servers/interop_server.py [--attr NAME] [--port 0]
        [--replica NAME] [--stateless] [--json-response]

- Loads the file by path and takes `--attr` (default: `build_server`, then `mcp`, then
  `server`). A callable is called as a factory; when `PEERS_STATE_KEYS` is set it is
  called with `request_state_security=RequestStateSecurity(keys=..., ttl=PEERS_STATE_TTL)`.
- Binds 127.0.0.1 (never another interface) on `--port` (0 = a free port chosen by the
  kernel, no race), then prints exactly one line `READY http://127.0.0.1:<port>/mcp` on
  stdout so a script can wait for it with a timeout.
- `--replica NAME` (load-balancer tests): adds `x-replica: NAME` to every response and
  prefixes the SDK's random `mcp-session-id` with `NAME.` on the way out (stripping it on the
  way in), so nginx can route a push-era session back to the replica that owns it with a
  `map` on the session header (open-source nginx cannot learn sessions from responses).
- Exits on SIGTERM/SIGINT (uvicorn's graceful shutdown, bounded to 3 s).

Environment:
    PEERS_STATE_KEYS  comma-separated request-state secrets (>= 32 bytes each); keys[0] seals.
    PEERS_STATE_TTL   request-state lifetime in seconds (default 600).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = b"mcp-session-id"


def load_server(path: str, attr: str | None) -> Any:
    """Import the file at `path` and return its MCPServer (calling a factory if needed)."""
    file = Path(path).resolve()
    spec = importlib.util.spec_from_file_location(file.stem, file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"serve_http: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    sys.path.insert(0, str(file.parent))
    spec.loader.exec_module(module)
    names = [attr] if attr else ["build_server", "mcp", "server"]
    for name in names:
        obj = getattr(module, name, None)
        if obj is None:
            continue
        if callable(obj) and not hasattr(obj, "streamable_http_app"):
            keys = os.environ.get("PEERS_STATE_KEYS")
            if keys:
                from mcp.server.mcpserver import RequestStateSecurity

                ttl = float(os.environ.get("PEERS_STATE_TTL", "600"))
                security = RequestStateSecurity(keys=[k for k in keys.split(",") if k], ttl=ttl)
                return obj(request_state_security=security)
            return obj()
        if os.environ.get("PEERS_STATE_KEYS"):
            raise SystemExit(f"serve_http: PEERS_STATE_KEYS is set but {path}:{name} is not a factory")
        return obj
    raise SystemExit(f"serve_http: {path} defines none of {', '.join(names)}")


class ReplicaTag:
    """ASGI wrapper: tag responses with the replica name and namespace session ids by replica."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app = app
        self.name = name.encode()
        self.prefix = self.name + b"."

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Rewrite the session header in both directions and add `x-replica`."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = []
        for key, value in scope["headers"]:
            if key == SESSION_HEADER and value.startswith(self.prefix):
                value = value[len(self.prefix) :]
            headers.append((key, value))
        scope = {**scope, "headers": headers}

        async def tagged_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                out: list[tuple[bytes, bytes]] = []
                for key, value in message.get("headers", []):
                    if key.lower() == SESSION_HEADER:
                        value = self.prefix + value
                    out.append((key, value))
                out.append((b"x-replica", self.name))
                message = {**message, "headers": out}
            await send(message)

        await self.app(scope, receive, tagged_send)


def main() -> None:
    """Parse the command line and serve until terminated."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", help="Python file defining the MCPServer (or a build_server factory)")
    parser.add_argument("--attr", help="attribute to serve (default: build_server, mcp, server)")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--replica", help="replica name for load-balancer tests")
    parser.add_argument("--stateless", action="store_true", help="stateless streamable HTTP")
    parser.add_argument("--json-response", action="store_true", help="JSON responses instead of SSE")
    args = parser.parse_args()

    server = load_server(args.file, args.attr)
    store_url = os.environ.get("PEERS_STORE_URL")
    if store_url:  # replicas sharing one store (tests/peers/replicas.sh: Redis)
        from typed_elicit.stores import configure

        configure(server, store=store_url)
    app: ASGIApp = server.streamable_http_app(
        stateless_http=args.stateless, json_response=args.json_response, host="127.0.0.1"
    )
    if args.replica:
        app = ReplicaTag(app, args.replica)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    port = sock.getsockname()[1]

    config = uvicorn.Config(
        app,
        log_level=os.environ.get("PEERS_LOG_LEVEL", "warning"),
        timeout_graceful_shutdown=3,
        lifespan="on",
    )
    userver = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.ensure_future(userver.serve(sockets=[sock]))
        while not userver.started and not task.done():
            await asyncio.sleep(0.02)
        if userver.started:
            print(f"READY http://127.0.0.1:{port}/mcp", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
