"""Talking to a server: reading `--answer` values, printing the exchange, calling a tool."""

from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Final, TextIO, cast

import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext, Transport
from mcp.client.session import ElicitationFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from typed_elicit._core.text import clean, in_words
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._wire.describe import describe
from typed_elicit.client._handler import (
    FieldSpec,
    FormRequest,
    UrlRequest,
    read_request,
)
from typed_elicit.client._responder import Responder
from typed_elicit.errors import RequestedSchemaError
from typed_elicit.testing._kit import connect

from ._common import EXIT_OK, EXIT_PROBLEMS, UsageError


def parse_pairs(pairs: Sequence[str], option: str, syntax: str = "key=value") -> dict[str, str]:
    """Split `key=value` arguments (`syntax` is how the error message writes one).

    Raises:
        UsageError: An argument has no `=`, or nothing before it.
    """
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{option} takes {syntax}, got {pair!r}")
        result[key] = value
    return result


def coerce(raw: str, *, text: bool) -> Any:
    """Read a command-line value: `raw` itself when `text`, else JSON when it parses, else text."""
    if text:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def read_answer(raw: str, spec: FieldSpec) -> Any:
    """Read one `--answer` value for the field it answers.

    Text and single-choice fields take the text as typed. A multi-select takes a JSON
    array, or option values separated by commas (empty text picks none). Numbers and
    booleans are read as JSON; text that is not JSON is kept, so the form's check can
    say what is wrong with it.

    Args:
        raw: The text after `FIELD=`.
        spec: The field, as the server's question describes it.

    Returns:
        The value to check against the field.
    """
    if spec.kind == "multi_choice" and not raw.lstrip().startswith("["):
        return [part.strip() for part in raw.split(",") if part.strip()]
    return coerce(raw, text=spec.kind in ("string", "choice"))


class CommandLineAnswers(Responder):
    """A `Responder` whose values are `--answer` texts, read per field of each question."""

    def __init__(self, answers: Mapping[str, str], *, invent: bool) -> None:
        """Answer from `answers` (field name to raw text); `invent` as for `Responder`."""
        super().__init__(invent=invent)
        self._raw = dict(answers)

    def respond(
        self, params: types.ElicitRequestParams, context: ClientRequestContext | None = None
    ) -> types.ElicitResult | types.ErrorData:
        """Read the answers for this question's fields, then answer it as `Responder` does."""
        try:
            request = read_request(context, params)
        except RequestedSchemaError:
            request = None
        fields = request.form.fields if isinstance(request, FormRequest) else ()
        self.values = {
            spec.name: read_answer(self._raw[spec.name], spec) for spec in fields if spec.name in self._raw
        }
        return super().respond(params, context)

    def _how_to_answer(self, fields: Sequence[FieldSpec]) -> str:
        """The flags that would have answered `fields`."""
        return "pass " + " ".join(f"--answer {clean(spec.name, one_line=True)}=VALUE" for spec in fields)


def sample_argument(schema: Mapping[str, Any] | None) -> Any:
    """A placeholder for a required tool argument the demo was not given."""
    schema = schema or {}
    options: list[Any] | None = schema.get("enum")
    if options:
        return options[0]
    samples: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    return samples.get(str(schema.get("type")), "demo")


def transcript(inner: ElicitationFnT, out: TextIO) -> ElicitationFnT:
    """Prints each question and the answer sent, around another callback.

    Questions are printed too when the inner callback does not show them: when a `Responder` answers.
    """

    async def callback(
        context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if isinstance(inner, Responder):
            _print_question(context, params, out)
        result = await inner(context, params)
        if isinstance(result, types.ErrorData):
            out.write(f"-> error {result.code}: {clean(result.message)}\n")
        else:
            content = "" if result.content is None else " " + json.dumps(result.content)
            out.write(f"-> {result.action}{content}\n")
            if isinstance(inner, Responder) and inner.log and inner.log[-1].reason:
                out.write(f"   because {clean(inner.log[-1].reason)}\n")
        out.flush()
        return result

    return callback


def _print_question(context: Any, params: types.ElicitRequestParams, out: TextIO) -> None:
    try:
        request = read_request(context, params)
    except RequestedSchemaError:
        out.write(f"<- the server asks (unusable form): {clean(params.message)}\n")
        return
    who = clean(request.server_name or "the server", one_line=True)
    out.write(f"<- {who} asks: {clean(request.message)}\n")
    if isinstance(request, UrlRequest):
        out.write(f"   URL: {clean(request.url, one_line=True)}\n")
        return
    out.writelines(f"   {field_line(spec)}\n" for spec in request.form.fields)


def field_line(spec: FieldSpec) -> str:
    """One field as the transcript shows it: `name: Title (kind in words: options, limits, default, need)`.

    The wire name comes first: it is what `--answer` takes; options are shown by value
    for the same reason. Every text from the server is cleaned (`clean`).
    """
    about = describe(spec)
    if spec.kind in ("choice", "multi_choice"):
        values = ", ".join(clean(option.value, one_line=True) for option in spec.options)
        kind = f"{'one' if spec.kind == 'choice' else 'several'} of: {values}"
    else:
        kind = in_words(about.person_kind)
    parts = [kind, *about.limits]
    if about.has_default:
        parts.append(f"default {json.dumps(about.default)}")
    parts.append("required" if about.required else "optional")
    name = clean(spec.name, one_line=True)
    if about.title:
        name += f": {clean(about.title, one_line=True)}"
    return f"{name} ({', '.join(parts)})"


_ARGUMENT_WORDS: Final = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "true or false",
    "array": "list, as JSON",
    "object": "object, as JSON",
}
"""A tool argument's JSON Schema type, as `--arg` takes it."""


def _connection(server: str, protocol: str, callback: ElicitationFnT) -> AbstractAsyncContextManager[Client]:
    """A client for `server` on `protocol`: the testing kit's era mapping, or the SDK's `auto`.

    Raises:
        UsageError: `server` is empty.
    """
    transport: Transport
    if server.startswith(("http://", "https://")):
        transport = streamable_http_client(server)
    else:
        argv = shlex.split(server)
        if not argv:
            raise UsageError("SERVER is empty: give a command or an http(s) URL")
        transport = stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=Path.cwd()))
    if protocol == "auto":
        return Client(transport, mode="auto", elicitation_callback=callback)
    return connect(transport, cast("ProtocolVersion", protocol), elicitation_callback=callback)


def _pick_tool(tools: Mapping[str, types.Tool], wanted: str | None, companion: str | None) -> str:
    """The tool to call: `wanted`, else the first one that is not the fallback's companion tool.

    Raises:
        UsageError: `wanted` is not a tool of the server, or the server has no tool to pick.
    """
    if wanted is not None:
        if wanted not in tools:
            known = ", ".join(clean(t, one_line=True) for t in tools) or "no tools"
            raise UsageError(f"no tool {clean(wanted, one_line=True)!r}; the server has: {known}")
        return wanted
    real = [name for name in tools if name != companion]
    if not real:
        only = f"only {companion!r}, the fallback's companion tool" if tools else "no tools"
        raise UsageError(f"the server has {only}; name a tool with --tool NAME")
    return real[0]


def _missing_arguments(tool: str, schema: Mapping[str, Any], missing: Sequence[str]) -> UsageError:
    properties: dict[str, Any] = schema.get("properties", {})
    shown = [clean(key, one_line=True) for key in missing]
    kinds = [_ARGUMENT_WORDS.get(str(properties.get(key, {}).get("type")), "any value") for key in missing]
    names = ", ".join(f"{key} ({kind})" for key, kind in zip(shown, kinds, strict=True))
    how = " ".join(f"--arg {key}=VALUE" for key in shown)
    return UsageError(
        f"the tool {clean(tool, one_line=True)!r} needs argument(s) that were not given: {names}; pass {how}"
    )


async def call_tool(
    client: Client,
    tool: str | None,
    raw_args: dict[str, str],
    out: TextIO,
    *,
    companion: str | None = None,
    invent: bool = False,
) -> int:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    name = _pick_tool(tools, tool, companion)
    others = [t for t in tools if t not in (name, companion)]
    if tool is None and others:
        also = ", ".join(clean(other, one_line=True) for other in others)
        out.write(f"(the server also has: {also}; pick one with --tool NAME)\n")
    schema = tools[name].input_schema
    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    arguments = {
        key: coerce(value, text=properties.get(key, {}).get("type") == "string")
        for key, value in raw_args.items()
    }
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing and not invent:
        raise _missing_arguments(name, schema, missing)
    for key in missing:
        arguments[key] = sample_argument(properties.get(key))
    out.write(f"=> call {clean(name, one_line=True)} {json.dumps(arguments)}\n")
    out.flush()
    result = await client.call_tool(name, arguments)
    for block in result.content:
        text = (
            block.text if isinstance(block, types.TextContent) else json.dumps(block.model_dump(mode="json"))
        )
        out.write(f"<= {'error: ' if result.is_error else ''}{clean(text)}\n")
    if not result.content and result.structured_content is not None:
        out.write(f"<= {json.dumps(result.structured_content)}\n")
    return EXIT_PROBLEMS if result.is_error else EXIT_OK


def answering(args: argparse.Namespace, out: TextIO, *, invent: bool) -> tuple[ElicitationFnT, bool]:
    """Who answers the questions (`--answer` values, or the person at the terminal), printed.

    A person answers in the terminal with `--interactive`, or on a terminal at both ends
    (unless `--scripted`).

    Returns:
        The callback, and whether a person answers in the terminal.

    Raises:
        UsageError: An `--answer` has no `=`, or `--interactive` lacks prompt_toolkit.
    """
    interactive = not args.scripted and bool(args.interactive or (sys.stdin.isatty() and sys.stdout.isatty()))
    if interactive and importlib.util.find_spec("prompt_toolkit") is None:
        hint = "terminal forms need prompt_toolkit: pip install 'typed-elicit[cli]'"
        if args.interactive:
            raise UsageError(hint)
        sys.stderr.write(f"{hint}; answering without asking\n")
        interactive = False
    answers = parse_pairs(args.answer, "--answer")
    inner: ElicitationFnT
    if interactive:
        from typed_elicit.client._terminal import TerminalForms

        inner = TerminalForms().handler()
    else:
        inner = CommandLineAnswers(answers, invent=invent)
    return transcript(inner, out), interactive


async def run_call(args: argparse.Namespace, out: TextIO) -> int:
    """Connect to SERVER, call TOOL and answer its questions."""
    callback, _ = answering(args, out, invent=False)
    raw_args = parse_pairs(args.arg, "--arg")
    async with _connection(args.server, args.protocol, callback) as client:
        out.write(f"connected: protocol {clean(str(client.protocol_version), one_line=True)}\n")
        return await call_tool(client, args.tool, raw_args, out)
