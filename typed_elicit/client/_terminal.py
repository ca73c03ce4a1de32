r"""Answer elicitation questions in a terminal, built on prompt_toolkit.

Needs the `cli` extra (`pip install 'typed-elicit[cli]'`). Every text the server sent
(message, titles, descriptions, option labels, URL) goes through `clean`: control
characters are replaced and bidi controls and other invisible characters shown escaped
(`\u202e`), so a server cannot move the cursor, recolour the terminal or make a text
read in another order than it was sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.styles import Style

from typed_elicit._core.results import Accepted, Cancelled, Declined
from typed_elicit._core.text import clean, in_words
from typed_elicit._wire.describe import describe
from typed_elicit.client._handler import (
    FieldSpec,
    FormRequest,
    UrlAnswer,
    UrlRequest,
    check_value,
    elicitation_handler,
)
from typed_elicit.errors import InvalidResponse

if TYPE_CHECKING:
    from mcp.client.session import ElicitationFnT
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output
    from pydantic import BaseModel


STYLE = Style.from_dict({"asks": "bold", "label": "bold", "hint": "ansibrightblack", "error": "ansired"})
_YES = ("y", "yes", "true")
_NO = ("n", "no", "false")
_NONE = "-"
"""Typed for a multi-select, picks no option (an empty line takes the default)."""


class _Stop(Exception):
    def __init__(self, outcome: Declined | Cancelled) -> None:
        self.outcome = outcome


_OMIT: Any = object()


class TerminalForms:
    """Shows each question in the terminal and reads the answer, field by field.

    The user sees which server asks and why, then each field's title, description,
    type, default and options. A value that does not fit is explained and asked
    again. At the first prompt the user may answer, decline or cancel; during the
    form, Ctrl-C cancels and Ctrl-D declines.
    """

    def __init__(self, *, input: Input | None = None, output: Output | None = None) -> None:
        """Create a renderer on the current terminal, or on the given prompt_toolkit input/output."""
        self._session: PromptSession[str] = PromptSession(input=input, output=output, style=STYLE)
        self._output = output

    def say(self, *parts: tuple[str, str]) -> None:
        """Print one styled line (`("class:hint", "text")` pairs)."""
        print_formatted_text(FormattedText(list(parts)), output=self._output, style=STYLE)

    async def form(self, request: FormRequest) -> Accepted[BaseModel] | Declined | Cancelled:
        """Ask a form-mode question.

        Args:
            request: The question.

        Returns:
            The user's validated answer, or their refusal.
        """
        self._header(request.server_name, request.message)
        if request.form.title:
            self.say(("class:label", clean(request.form.title, one_line=True)))
        try:
            choice = await self._menu("Answer? [Y]es / [d]ecline / [c]ancel", "y", ("y", "d", "c"))
            if choice != "y":
                return Declined() if choice == "d" else Cancelled()
            if request.form.fields:
                self.say(("class:hint", "(Ctrl-C cancels, Ctrl-D declines; Enter takes the [default])"))
            values: dict[str, Any] = {}
            for spec in request.form.fields:
                value = await self._field(spec)
                if value is not _OMIT:
                    values[spec.name] = value
        except _Stop as stop:
            return stop.outcome
        accepted = request.accept(values)
        self.say(("class:hint", "Sending: "), ("", _summary(request.form.content(accepted.data))))
        return accepted

    async def url(self, request: UrlRequest) -> UrlAnswer:
        """Ask for consent to open a URL; the URL is shown in full and never opened here.

        Args:
            request: The question.

        Returns:
            `accept` (consent), `decline` or `cancel`.
        """
        self._header(request.server_name, request.message)
        self.say(("class:label", "URL: "), ("", clean(request.url, one_line=True)))
        try:
            choice = await self._menu("Open this URL? [y]es / [N]o / [c]ancel", "n", ("y", "n", "c"))
        except _Stop as stop:
            return "decline" if isinstance(stop.outcome, Declined) else "cancel"
        if choice == "y":
            self.say(("class:hint", "Open it in your browser, then come back here."))
            return "accept"
        return "decline" if choice == "n" else "cancel"

    def handler(self) -> ElicitationFnT:
        """This renderer as the SDK's `elicitation_callback`."""
        return elicitation_handler(self.form, url=self.url)

    def _header(self, server: str | None, message: str) -> None:
        self.say()
        self.say(("class:asks", f"{clean(server, one_line=True) if server else 'The server'} asks:"))
        self.say(("", clean(message)))

    async def _read(self, prompt: str) -> str:
        try:
            return (await self._session.prompt_async(prompt)).strip()
        except KeyboardInterrupt:
            raise _Stop(Cancelled()) from None
        except EOFError:
            raise _Stop(Declined()) from None

    async def _menu(self, prompt: str, default: str, keys: Sequence[str]) -> str:
        while True:
            answer = (await self._read(f"{prompt} ") or default).lower()[:1]
            if answer in keys:
                return answer
            self.say(("class:error", f"  Type one of: {', '.join(keys)}"))

    async def _field(self, spec: FieldSpec) -> Any:
        self._describe(spec)
        default = _default_text(spec)
        shown = f" [{clean(default, one_line=True)}]" if default else ""
        while True:
            # The default is shown in brackets, not typed into the line: what the user
            # types replaces it, and an empty line takes it.
            raw = await self._read(f"{clean(spec.label, one_line=True)}{shown}: ") or default
            try:
                value = _parse(spec, raw)
                if value is _OMIT:
                    if spec.required and not spec.has_default:
                        raise ValueError("this field is required")
                    return _OMIT
                return check_value(spec, value)
            except InvalidResponse as exc:
                problems = "; ".join(clean(message, one_line=True) for _, message in exc.errors)
                self.say(("class:error", f"  {problems}; try again"))
            except ValueError as exc:
                self.say(("class:error", f"  {clean(str(exc), one_line=True)}; try again"))

    def _describe(self, spec: FieldSpec) -> None:
        head = clean(spec.label, one_line=True)
        if spec.title and spec.title != spec.name:
            head += f" ({clean(spec.name, one_line=True)})"
        self.say(("", ""))
        self.say(("class:label", head), ("class:hint", f"  {_type_text(spec)}"))
        if spec.description:
            self.say(("class:hint", f"  {clean(spec.description)}"))
        for number, option in enumerate(spec.options, 1):
            label = clean(option.title, one_line=True)
            value = "" if option.title == option.value else f" [{clean(option.value, one_line=True)}]"
            self.say(("", f"  {number}) {label}{value}"))


def terminal_handler(*, input: Input | None = None, output: Output | None = None) -> ElicitationFnT:
    """An `elicitation_callback` that asks the person at the terminal.

    Args:
        input: prompt_toolkit input (the terminal by default).
        output: prompt_toolkit output (the terminal by default).

    Returns:
        A callback for `mcp.Client(..., elicitation_callback=...)`.
    """
    return TerminalForms(input=input, output=output).handler()


def _type_text(spec: FieldSpec) -> str:
    """The hint after a field's label: how to answer, then `describe`'s limits, default and need."""
    about = describe(spec)
    if spec.kind == "choice":
        parts = ["pick one: number or value"]
    elif spec.kind == "multi_choice":
        parts = ["pick any: numbers or values, comma-separated"]
        if spec.default:
            parts.append(f"{_NONE} for none")
    else:
        parts = [in_words(about.person_kind)]
    parts.extend(about.limits)
    if about.has_default:
        parts.append(f"default {_show(about.default)}")
    parts.append("required" if about.required else "optional")
    return ", ".join(parts)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(clean(str(v), one_line=True) for v in cast("list[object]", value)) or "none"
    return clean(str(value), one_line=True)


def _summary(content: dict[str, Any]) -> str:
    return ", ".join(f"{clean(k, one_line=True)}={_show(v)}" for k, v in content.items()) or "(no fields)"


def _default_text(spec: FieldSpec) -> str:
    if not spec.has_default:
        return ""
    if spec.kind == "boolean":
        return "y" if spec.default else "n"
    if isinstance(spec.default, list):
        return ", ".join(spec.default)
    return str(spec.default)


def _pick(spec: FieldSpec, token: str) -> str:
    if token.isdigit() and 1 <= int(token) <= len(spec.options):
        return spec.options[int(token) - 1].value
    for option in spec.options:
        if token in (option.value, option.title):
            return option.value
    raise ValueError(f"{clean(token, one_line=True)!r} is not one of the options")


def _parse(spec: FieldSpec, raw: str) -> Any:
    if spec.kind == "multi_choice":
        if raw == _NONE:
            return []
        return [_pick(spec, token.strip()) for token in raw.split(",") if token.strip()]
    if raw == "" and not (spec.kind == "string" and spec.required):
        return _OMIT
    if spec.kind == "boolean":
        if raw.lower() in _YES:
            return True
        if raw.lower() in _NO:
            return False
        raise ValueError("answer y or n")
    if spec.kind == "choice":
        return _pick(spec, raw)
    if spec.kind == "integer":
        try:
            return int(raw)
        except ValueError:
            raise ValueError("expected a whole number") from None
    if spec.kind == "number":
        try:
            number = float(raw)
        except ValueError:
            raise ValueError("expected a number") from None
        return int(number) if number.is_integer() and "." not in raw else number
    return raw
