"""The `typed-elicit` command: demo, schema, check and call.

Exit codes (every subcommand):

- 0: success.
- 1: the work was done and found problems: `check` found schema errors, `schema` was
  given a model that cannot be elicited, `call`/`demo` got a tool error.
- 2: usage error: bad arguments, or a module, model, example or tool that does not exist.
- 3: the server could not be reached or broke the protocol.
- 130: interrupted (Ctrl-C outside a form).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import pkgutil
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, Final, TextIO

import anyio
import mcp_types as types
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.client.session import ElicitationFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.manager import PromptManager
from mcp.server.mcpserver.resources.resource_manager import ResourceManager
from mcp.server.mcpserver.tools.tool_manager import ToolManager
from pydantic import BaseModel

from typed_elicit._client import (
    FieldSpec,
    FormRequest,
    PinnedHandshake,
    RequestedSchemaError,
    UrlRequest,
    read_request,
)
from typed_elicit._context import Policy
from typed_elicit._errors import SchemaError, TypedElicitError
from typed_elicit._fallback import installed
from typed_elicit._reducer import collecting_schema_errors, is_form, reduce_schema
from typed_elicit._responder import Responder
from typed_elicit._text import clean
from typed_elicit._versions import LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolVersion

__all__ = ["EXIT_CONNECTION", "EXIT_OK", "EXIT_PROBLEMS", "EXIT_USAGE", "main"]

EXIT_OK: Final = 0
EXIT_PROBLEMS: Final = 1
EXIT_USAGE: Final = 2
EXIT_CONNECTION: Final = 3
EXIT_INTERRUPTED: Final = 130

DEFAULT_EXAMPLE: Final = "deployment_wizard"
EXIT_CODES_HELP: Final = """exit codes:
  0    success
  1    problems found: schema errors (check, schema) or a tool error (call, demo)
  2    usage error: bad arguments, or no such module, model, example or tool
  3    the server could not be reached or broke the protocol
  130  interrupted"""
ANSWERS_HELP: Final = """answers (--answer FIELD=VALUE, repeatable; FIELD is the field's name on the wire):
  text, one choice   --answer name=Ada  --answer environment=staging  (as typed; a choice
                     takes the option's value, not its title)
  number, yes/no     --answer cpu_cores=4  --answer auto_scale=true  (JSON)
  several choices    --answer extras=wifi,bag  or  --answer 'extras=["wifi","bag"]'
                     (option values, comma-separated or a JSON array; extras= picks none)
A required field without an answer is declined"""


_FILE_PREFIX: Final = "_typed_elicit_cli_"


class UsageError(TypedElicitError):
    """The command line names something that does not exist or cannot be used."""


# --- loading user code -----------------------------------------------------------------------


def load_module(target: str) -> ModuleType:
    """Import a module by dotted name, or load a `.py` file by path.

    The current directory is put first on `sys.path`, as `python -m` does.

    Args:
        target: `package.module` or `path/to/file.py`.

    Returns:
        The module.

    Raises:
        UsageError: The module or file does not exist, or fails to import.
        SchemaError: A `@form` model in it cannot be elicited (raised at import).
    """
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    if target.endswith(".py") or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise UsageError(f"no such file: {target}")
        name = f"{_FILE_PREFIX}{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:  # pragma: no cover - any .py file has a loader
            raise UsageError(f"cannot load {target}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SchemaError:
            raise
        except Exception as exc:
            raise UsageError(f"cannot import {target}: {type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name is not None and target.startswith(exc.name):
            raise UsageError(
                f"no module named {target!r} (looked in the current directory and sys.path)"
            ) from None
        raise UsageError(f"cannot import {target}: {exc}") from exc
    except (SchemaError, UsageError):
        raise
    except Exception as exc:
        raise UsageError(f"cannot import {target}: {type(exc).__name__}: {exc}") from exc


def load_model(target: str) -> type[BaseModel]:
    """Resolve `MODULE:Model` to a pydantic model class.

    Args:
        target: A module (dotted or file path), a colon, and a class name.

    Returns:
        The model class.

    Raises:
        UsageError: The target is malformed, or names no model.
        SchemaError: The module failed to import because a `@form` model is bad.
    """
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"expected MODULE:Model, got {target!r}")
    model = getattr(load_module(module_name), attr, None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise UsageError(f"{target} is not a pydantic model")
    return model


def _walk(module: ModuleType) -> Iterator[ModuleType]:
    yield module
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{module.__name__}."):
        yield importlib.import_module(info.name)


def _forms_in(module: ModuleType) -> list[type[BaseModel]]:
    return [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, BaseModel) and is_form(obj)
    ]


def _servers_in(module: ModuleType) -> list[MCPServer[Any]]:
    return [obj for _, obj in inspect.getmembers(module) if isinstance(obj, MCPServer)]


def _registered(server: MCPServer[Any]) -> Iterator[tuple[str, str, Callable[..., Any]]]:
    """`(kind, name, function)` of every tool, prompt and resource template on `server`.

    The SDK has no public listing of the registered functions: read its managers,
    and skip any that a future SDK moves.
    """
    tools = getattr(server, "_tool_manager", None)
    if isinstance(tools, ToolManager):
        yield from (("tool", tool.name, tool.fn) for tool in tools.list_tools())
    prompts = getattr(server, "_prompt_manager", None)
    if isinstance(prompts, PromptManager):
        yield from (("prompt", prompt.name, prompt.fn) for prompt in prompts.list_prompts())
    resources = getattr(server, "_resource_manager", None)
    if isinstance(resources, ResourceManager):
        yield from (
            ("resource template", template.uri_template, template.fn)
            for template in resources.list_templates()
        )


def _elicits_functions_in(module: ModuleType) -> list[Callable[..., Any]]:
    """The functions decorated with `@elicits`: module-level ones and those registered on its servers."""
    found = [obj for _, obj in inspect.getmembers(module, callable) if _is_elicits(obj)]
    for server in _servers_in(module):
        found.extend(fn for _, _, fn in _registered(server) if _is_elicits(fn))
    return list(dict.fromkeys(found))


def _is_elicits(obj: object) -> bool:
    return isinstance(getattr(obj, "__typed_elicit_policy__", None), Policy)


def _models_of(function: Callable[..., Any]) -> tuple[type[BaseModel], ...]:
    models: tuple[type[BaseModel], ...] = getattr(function, "__typed_elicit_models__", ())
    return models


def _misplaced_fallbacks(module: ModuleType) -> list[str]:
    """A problem line per prompt or resource template with `@elicits(on_unsupported="fallback")`."""
    lines: list[str] = []
    for server in _servers_in(module):
        for kind, name, fn in _registered(server):
            policy = getattr(fn, "__typed_elicit_policy__", None)
            if kind != "tool" and isinstance(policy, Policy) and policy.on_unsupported == "fallback":
                origin = inspect.unwrap(fn)  # the SDK and @elicits wrap the user's function
                where = f"{_module_label(origin)}:{getattr(origin, '__qualname__', name)}"
                lines.append(
                    f"{where}: @elicits(on_unsupported='fallback') on the {kind} {name!r}: the fallback "
                    "re-runs a tool call, so it works for tools only (the call fails before the body "
                    "runs); pass on_unsupported='raise', 'defaults' or 'decline'"
                )
    return lines


def _module_label(model: type[BaseModel] | Callable[..., Any]) -> str:
    module_name: str = getattr(model, "__module__", "")
    if module_name.startswith(_FILE_PREFIX):
        source = inspect.getsourcefile(model)
        if source is not None:
            path = Path(source)
            return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)
    return module_name


# --- schema and check ------------------------------------------------------------------------


def run_schema(target: str, protocol: ProtocolVersion, dialect: bool, out: TextIO) -> int:
    """Print the wire schema of one model."""
    model = load_model(target)
    schema = reduce_schema(model, protocol_version=protocol, include_dialect=dialect)
    out.write(json.dumps(schema, indent=2) + "\n")
    return EXIT_OK


def run_check(targets: Sequence[str], protocols: Sequence[ProtocolVersion], out: TextIO) -> int:
    """Reduce the models of the given modules (and their submodules) on each revision.

    The models are those declared with `@form` and those named in `@elicits(...)`
    (with or without `@form`). Also reports `@elicits(on_unsupported="fallback")` on a
    prompt or resource template registered on a module's `MCPServer`.
    """
    problems: list[str] = []
    models: dict[type[BaseModel], None] = {}
    for target in targets:
        with collecting_schema_errors() as at_import:
            try:
                for module in _walk(load_module(target)):
                    functions = _elicits_functions_in(module)
                    models.update(dict.fromkeys(_forms_in(module)))
                    for function in functions:
                        models.update(dict.fromkeys(_models_of(function)))
                    problems.extend(_misplaced_fallbacks(module))
            except SchemaError as exc:
                at_import.append(exc)
        # A bad @form model is recorded and still found below, with its revisions; report
        # here only what stopped an import for another reason (e.g. @elicits(BadModel)).
        found = {model.__name__ for model in models}
        problems.extend(
            f"{target}: {line}" for exc in at_import if exc.model_name not in found for line in exc.problems
        )
    for model in models:
        where = f"{_module_label(model)}:{model.__qualname__}"
        seen: dict[str, list[str]] = {}
        for protocol in protocols:
            try:
                reduce_schema(model, protocol_version=protocol)
            except SchemaError as exc:
                for line in exc.problems:
                    seen.setdefault(line, []).append(protocol)
        problems.extend(f"{where} [{', '.join(revs)}]: {line}" for line, revs in seen.items())
    for line in problems:
        out.write(f"{line}\n")
    count = len(problems)
    out.write(
        f"checked {len(models)} form model(s) on {', '.join(protocols)}: "
        f"{count} problem{'s' if count != 1 else ''}\n"
    )
    return EXIT_PROBLEMS if problems else EXIT_OK


# --- talking to servers ----------------------------------------------------------------------


def parse_pairs(pairs: Sequence[str], option: str) -> dict[str, str]:
    """Split `key=value` arguments.

    Raises:
        UsageError: An argument has no `=`.
    """
    result: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{option} takes key=value, got {pair!r}")
        result[key] = value
    return result


def coerce(raw: str, schema: Mapping[str, Any] | None) -> Any:
    """Read a command-line value: text for string properties, JSON when it parses, else text."""
    if schema is not None and schema.get("type") == "string":
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
    if spec.kind in ("string", "choice"):
        return raw
    if spec.kind == "multi_choice":
        if raw.lstrip().startswith("["):
            return coerce(raw, None)
        return [part.strip() for part in raw.split(",") if part.strip()]
    return coerce(raw, None)


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


def sample_argument(schema: Mapping[str, Any] | None) -> Any:
    """A placeholder for a required tool argument the demo was not given."""
    schema = schema or {}
    options: list[Any] | None = schema.get("enum")
    if options:
        return options[0]
    samples: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    return samples.get(str(schema.get("type")), "demo")


class Transcript:
    """Prints each question and the answer sent, around another callback."""

    def __init__(self, inner: ElicitationFnT, out: TextIO, *, show_questions: bool) -> None:
        """Wrap `inner`; print questions too when the inner callback does not show them."""
        self._inner = inner
        self._out = out
        self._show_questions = show_questions

    async def __call__(
        self, context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """Print, delegate, print."""
        if self._show_questions:
            self._print_question(context, params)
        result = await self._inner(context, params)
        if isinstance(result, types.ErrorData):
            self._out.write(f"-> error {result.code}: {result.message}\n")
        else:
            content = "" if result.content is None else " " + json.dumps(result.content)
            self._out.write(f"-> {result.action}{content}\n")
            if isinstance(self._inner, Responder) and self._inner.log and self._inner.log[-1].reason:
                self._out.write(f"   because {self._inner.log[-1].reason}\n")
        self._out.flush()
        return result

    def _print_question(self, context: Any, params: types.ElicitRequestParams) -> None:
        try:
            request = read_request(context, params)
        except RequestedSchemaError:
            self._out.write(f"<- the server asks (unusable form): {clean(params.message)}\n")
            return
        who = clean(request.server_name or "the server", one_line=True)
        self._out.write(f"<- {who} asks: {clean(request.message)}\n")
        if isinstance(request, UrlRequest):
            self._out.write(f"   URL: {clean(request.url, one_line=True)}\n")
            return
        for spec in request.form.fields:
            options = f": {', '.join(o.value for o in spec.options)}" if spec.options else ""
            default = f", default {json.dumps(spec.default)}" if spec.has_default else ""
            need = "required" if spec.required and not spec.has_default else "optional"
            # The wire name first: it is what --answer takes.
            name = clean(spec.name, one_line=True)
            if spec.title and spec.title != spec.name:
                name += f": {clean(spec.title, one_line=True)}"
            self._out.write(f"   {name} ({spec.kind}{options}{default}, {need})\n")


def _connection(server: str, protocol: str, callback: ElicitationFnT) -> AbstractAsyncContextManager[Client]:
    if server.startswith(("http://", "https://")):
        transport: Any = streamable_http_client(server)
    else:
        argv = shlex.split(server)
        if not argv:
            raise UsageError("SERVER is empty: give a command or an http(s) URL")
        transport = stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], cwd=Path.cwd()))
    if protocol == "2025-06-18":
        return Client(PinnedHandshake(transport, protocol), mode="legacy", elicitation_callback=callback)
    mode = {"2025-11-25": "legacy", "auto": "auto"}.get(protocol, protocol)
    return Client(transport, mode=mode, elicitation_callback=callback)


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
    kinds = [clean(str(properties.get(key, {}).get("type", "any")), one_line=True) for key in missing]
    names = ", ".join(f"{key} ({kind})" for key, kind in zip(shown, kinds, strict=True))
    how = " ".join(f"--arg {key}=VALUE" for key in shown)
    return UsageError(
        f"the tool {clean(tool, one_line=True)!r} needs argument(s) that were not given: {names}; pass {how}"
    )


async def _call_tool(
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
        out.write(f"(the server also has: {', '.join(others)}; pick one with --tool NAME)\n")
    schema = tools[name].input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    arguments = {key: coerce(value, properties.get(key)) for key, value in raw_args.items()}
    missing = [key for key in schema.get("required", []) if key not in arguments]
    if missing and not invent:
        raise _missing_arguments(name, schema, missing)
    for key in missing:
        arguments[key] = sample_argument(properties.get(key))
    out.write(f"=> call {name} {json.dumps(arguments)}\n")
    out.flush()
    result = await client.call_tool(name, arguments)
    for block in result.content:
        text = (
            block.text if isinstance(block, types.TextContent) else json.dumps(block.model_dump(mode="json"))
        )
        out.write(f"<= {'error: ' if result.is_error else ''}{text}\n")
    if not result.content and result.structured_content is not None:
        out.write(f"<= {json.dumps(result.structured_content)}\n")
    return EXIT_PROBLEMS if result.is_error else EXIT_OK


def _answerer(interactive: bool, answers: dict[str, str], *, invent: bool) -> ElicitationFnT:
    if interactive:
        from typed_elicit._terminal import TerminalForms

        return TerminalForms().handler()
    return CommandLineAnswers(answers, invent=invent)


def _interactive(args: argparse.Namespace) -> bool:
    """Whether to ask in the terminal: `--interactive`, or a terminal on both ends.

    Raises:
        UsageError: `--interactive` was given but prompt_toolkit is not installed.
    """
    if args.scripted:
        return False
    wanted = bool(args.interactive or (sys.stdin.isatty() and sys.stdout.isatty()))
    if wanted and importlib.util.find_spec("prompt_toolkit") is None:
        hint = "terminal forms need prompt_toolkit: pip install 'typed-elicit[cli]'"
        if args.interactive:
            raise UsageError(hint)
        sys.stderr.write(f"{hint}; answering without asking\n")
        return False
    return wanted


async def run_call(args: argparse.Namespace, out: TextIO) -> int:
    """Connect to SERVER, call TOOL and answer its questions."""
    interactive = _interactive(args)
    callback = Transcript(
        _answerer(interactive, parse_pairs(args.answer, "--answer"), invent=False),
        out,
        show_questions=not interactive,
    )
    raw_args = parse_pairs(args.arg, "--arg")
    async with _connection(args.server, args.protocol, callback) as client:
        out.write(f"connected: protocol {client.protocol_version}\n")
        return await _call_tool(client, args.tool, raw_args, out)


def find_example(name: str) -> Path:
    """Find an example server by file path or by name in `./examples` or the source tree's `examples`.

    Raises:
        UsageError: No such example.
    """
    candidates = [Path(name)] if name.endswith(".py") else []
    for folder in (Path.cwd() / "examples", Path(__file__).resolve().parent.parent / "examples"):
        candidates.append(folder / f"{name}.py")
    for path in candidates:
        if path.is_file():
            return path
    raise UsageError(f"no example {name!r}; looked for {', '.join(map(str, candidates))}")


async def run_demo(args: argparse.Namespace, out: TextIO) -> int:
    """Run an example server in memory and answer its questions, printing the exchange."""
    from typed_elicit._testing import connect

    path = find_example(args.example)
    server = _server_of(load_module(str(path)), path)
    interactive = _interactive(args)
    callback = Transcript(
        _answerer(interactive, parse_pairs(args.answer, "--answer"), invent=True),
        out,
        show_questions=not interactive,
    )
    who = "you answer" if interactive else "a scripted user answers"
    out.write(f"demo: {path.name} (server {server.name!r}), protocol {args.protocol}; {who}\n")
    fallback = installed(server)
    async with connect(server, args.protocol, elicitation_callback=callback) as client:
        return await _call_tool(
            client,
            args.tool,
            parse_pairs(args.arg, "--arg"),
            out,
            companion=fallback.name if fallback is not None else None,
            invent=True,
        )


def _server_of(module: ModuleType, path: Path) -> MCPServer[Any]:
    found: object = getattr(module, "server", None)
    if isinstance(found, MCPServer):
        return found  # pyright: ignore[reportUnknownVariableType]  # MCPServer is generic in its lifespan
    raise UsageError(f"{path} has no MCPServer named `server`")


# --- the parser ------------------------------------------------------------------------------


def package_version() -> str:
    """The installed typed-elicit's version, from its distribution metadata."""
    try:
        return importlib.metadata.version("typed-elicit")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown: typed-elicit is not installed, only importable)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `typed-elicit`."""
    parser = argparse.ArgumentParser(
        prog="typed-elicit",
        description="Typed MCP elicitation: try it, check your models, talk to servers.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def sub(
        name: str, help_text: str, description: str, epilog: str = EXIT_CODES_HELP
    ) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=help_text,
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    def answering(p: argparse.ArgumentParser) -> None:
        who = p.add_mutually_exclusive_group()
        who.add_argument(
            "--interactive", action="store_true", help="answer in the terminal (default on a tty)"
        )
        who.add_argument("--scripted", action="store_true", help="answer without asking (default off a tty)")
        p.add_argument(
            "--answer",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help="answer for a field when answering without asking (see answers below)",
        )
        p.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE", help="a tool argument")

    demo = sub(
        "demo",
        "run an example server and answer its questions",
        "Run an example server in memory, call its tool and answer its questions: in the terminal "
        "when run on one, by a scripted user otherwise. Prints the whole exchange.",
        f"{ANSWERS_HELP}, except that the demo makes up a value for it.\n\n{EXIT_CODES_HELP}",
    )
    demo.add_argument(
        "example",
        nargs="?",
        default=DEFAULT_EXAMPLE,
        help=f"example name or .py file (default {DEFAULT_EXAMPLE})",
    )
    demo.add_argument("--protocol", choices=PROTOCOL_VERSIONS, default=LATEST_PROTOCOL_VERSION)
    demo.add_argument(
        "--tool", help="the tool to call (default: the first one listed, never the fallback's companion tool)"
    )
    answering(demo)

    schema = sub(
        "schema",
        "print a model's wire schema",
        "Print the requestedSchema a model becomes on one protocol revision.",
    )
    schema.add_argument("model", metavar="MODULE:Model", help="e.g. myapp.forms:Booking or forms.py:Booking")
    schema.add_argument("--protocol", choices=PROTOCOL_VERSIONS, default=LATEST_PROTOCOL_VERSION)
    schema.add_argument("--dialect", action="store_true", help='include "$schema"')

    check = sub(
        "check",
        "check every @form and @elicits model in modules",
        "Import modules (and their submodules), reduce every model declared with @form or named in "
        "@elicits(...) for every protocol revision, and list every schema error with the revisions "
        "that refuse it; also flag @elicits(on_unsupported='fallback') on a prompt or resource "
        "template. For CI and pre-commit.",
    )
    check.add_argument("modules", nargs="+", metavar="MODULE", help="dotted module or .py file")
    check.add_argument(
        "--protocol",
        action="append",
        choices=PROTOCOL_VERSIONS,
        dest="protocols",
        help="check only this revision (repeatable; default: all)",
    )

    call = sub(
        "call",
        "call a tool on any MCP server and answer its questions",
        "Connect to a server (a command run over stdio, or an http(s) URL), call a tool and answer its "
        "elicitations in the terminal (or from --answer values when not on a terminal). Every "
        "required tool argument must be given with --arg.",
        f"{ANSWERS_HELP}, with the reason printed.\n\n{EXIT_CODES_HELP}",
    )
    call.add_argument("server", metavar="SERVER", help='command line ("python server.py") or http(s) URL')
    call.add_argument("tool", metavar="TOOL", help="the tool to call")
    call.add_argument("--protocol", choices=("auto", *PROTOCOL_VERSIONS), default="auto")
    answering(call)
    return parser


async def _dispatch(args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "demo":
        return await run_demo(args, out)
    if args.command == "call":
        return await run_call(args, out)
    if args.command == "schema":
        return run_schema(args.model, args.protocol, args.dialect, out)
    return run_check(args.modules, args.protocols or PROTOCOL_VERSIONS, out)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run `typed-elicit`; returns the exit code (see the module docstring).

    Args:
        argv: Arguments without the program name (default: `sys.argv[1:]`).
        out: Where results go (default: standard output). Errors go to standard error.

    Returns:
        The exit code.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    stream = out or sys.stdout
    try:
        return anyio.run(_dispatch, args, stream)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except Exception as exc:
        error = _leaf(exc)
        if isinstance(error, UsageError):
            sys.stderr.write(f"{parser.prog} {args.command}: {error}\n")
            return EXIT_USAGE
        if isinstance(error, SchemaError):
            sys.stderr.write(f"{error}\n")
            return EXIT_PROBLEMS
        if args.command in ("call", "demo"):
            sys.stderr.write(
                f"{parser.prog} {args.command}: the server failed: {type(error).__name__}: {error}\n"
            )
            return EXIT_CONNECTION
        raise


def _leaf(exc: BaseException) -> BaseException:
    """The single error inside (nested) exception groups, as raised by task groups."""
    inner: Sequence[BaseException] | None = getattr(exc, "exceptions", None)
    while inner is not None and len(inner) == 1:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
