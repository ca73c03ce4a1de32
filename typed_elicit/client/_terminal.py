r"""Answer elicitation questions in a terminal, built on prompt_toolkit.

Needs the `cli` extra (`pip install 'typed-elicit[cli]'`). Every text the server sent
(message, titles, descriptions, option labels, URL) goes through `clean`: control
characters are replaced and bidi controls and other invisible characters shown escaped
(`\u202e`), so a server cannot move the cursor, recolour the terminal or make a text
read in another order than it was sent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.styles import Style
from pydantic import ValidationError

from typed_elicit._core.results import Accepted, Cancelled, Declined
from typed_elicit._core.text import clean
from typed_elicit._views.i18n import Words, words_for
from typed_elicit._views.locales import environment_locale
from typed_elicit._wire.describe import describe
from typed_elicit._wire.spec import ContentValue, field_adapter
from typed_elicit.client._handler import (
    FieldSpec,
    FormRequest,
    UrlAnswer,
    UrlRequest,
    elicitation_handler,
)

if TYPE_CHECKING:
    from mcp.client.session import ElicitationFnT
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output
    from pydantic import BaseModel


STYLE = Style.from_dict({"asks": "bold", "label": "bold", "hint": "ansibrightblack", "error": "ansired"})
_YES: Final = ("y", "yes", "true")
_NO: Final = ("n", "no", "false")
_NONE = "-"
"""Typed for a multi-select, picks no option (an empty line takes the default)."""

Choice = Literal["yes", "no", "decline", "cancel"]


class _Stop(Exception):
    def __init__(self, outcome: Declined | Cancelled) -> None:
        self.outcome = outcome


class _Problem(ValueError):
    """What to tell of a typed value that does not fit its field, in the terminal's language."""


_OMIT: Any = object()


class TerminalForms:
    """Shows each question in the terminal and reads the answer, field by field.

    The user sees which server asks and why, then each field's title, description,
    type, default and options. A value that does not fit is explained and asked
    again. At the first prompt the user may answer, decline or cancel; during the
    form, Ctrl-C cancels and Ctrl-D declines.

    Every word of the library's own is in the terminal's language: `locale`, else the
    environment's (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, as gettext reads them), in one
    of the shipped languages (English, German, French, Spanish, Japanese, Arabic) or English.
    The keys of the first prompt are the language's (`[J]a / [a]blehnen / a[b]brechen`).
    """

    def __init__(
        self, *, input: Input | None = None, output: Output | None = None, locale: str | None = None
    ) -> None:
        """Create a renderer on the current terminal, or on the given prompt_toolkit input/output.

        Args:
            input: prompt_toolkit input (the terminal by default).
            output: prompt_toolkit output (the terminal by default).
            locale: The language of the prompts (`de`, `fr-CA`, ...); None reads the environment.
        """
        self._session: PromptSession[str] = PromptSession(input=input, output=output, style=STYLE)
        self._output = output
        self.words: Words = words_for(locale if locale is not None else environment_locale(os.environ))

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
        w = self.words
        self._header(request.server_name, request.message)
        if request.form.title:
            self.say(("class:label", clean(request.form.title, one_line=True)))
        try:
            choice = await self._menu(w["term_answer"], "yes", ("yes", "decline", "cancel"))
            if choice != "yes":
                return Declined() if choice == "decline" else Cancelled()
            if request.form.fields:
                self.say(("class:hint", w["term_keys"]))
            values: dict[str, Any] = {}
            for spec in request.form.fields:
                value = await self._field(spec)
                if value is not _OMIT:
                    values[spec.name] = value
        except _Stop as stop:
            return stop.outcome
        accepted = request.accept(values)
        summary = _summary(w, request.form.content(accepted.data))
        self.say(("class:hint", f"{w['term_sending']} "), ("", summary))
        return accepted

    async def url(self, request: UrlRequest) -> UrlAnswer:
        """Ask for consent to open a URL; the URL is shown in full and never opened here.

        Args:
            request: The question.

        Returns:
            `accept` (consent), `decline` or `cancel`.
        """
        w = self.words
        self._header(request.server_name, request.message)
        self.say(("class:label", f"{w['term_url']} "), ("", clean(request.url, one_line=True)))
        try:
            choice = await self._menu(w["term_open_url"], "no", ("yes", "no", "cancel"))
        except _Stop as stop:
            return "decline" if isinstance(stop.outcome, Declined) else "cancel"
        if choice == "yes":
            self.say(("class:hint", w["term_open_it"]))
            return "accept"
        return "decline" if choice == "no" else "cancel"

    def handler(self) -> ElicitationFnT:
        """This renderer as the SDK's `elicitation_callback`."""
        return elicitation_handler(self.form, url=self.url)

    def _header(self, server: str | None, message: str) -> None:
        self.say()
        w = self.words
        asks = w.say("term_asks", server=clean(server, one_line=True)) if server else w["term_server_asks"]
        self.say(("class:asks", asks))
        self.say(("", clean(message)))

    async def _read(self, prompt: str) -> str:
        try:
            return (await self._session.prompt_async(prompt)).strip()
        except KeyboardInterrupt:
            raise _Stop(Cancelled()) from None
        except EOFError:
            raise _Stop(Declined()) from None

    async def _menu(self, prompt: str, default: Choice, choices: Sequence[Choice]) -> Choice:
        """The answer to a menu, by the language's keys (`key_yes`, ...); an empty line takes `default`."""
        keys: dict[str, Choice] = {self.words[f"key_{choice}"]: choice for choice in choices}
        while True:
            typed = (await self._read(f"{prompt} ")).lower()[:1]
            if not typed:
                return default
            if typed in keys:
                return keys[typed]
            self.say(("class:error", f"  {self.words.say('term_type_one_of', keys=', '.join(keys))}"))

    async def _field(self, spec: FieldSpec) -> Any:
        w = self.words
        self._describe(spec)
        default = _default_text(w, spec)
        shown = f" [{clean(default, one_line=True)}]" if default else ""
        while True:
            # The default is shown in brackets, not typed into the line: what the user
            # types replaces it, and an empty line takes it.
            raw = await self._read(f"{clean(spec.label, one_line=True)}{shown}: ") or default
            try:
                value = _parse(w, spec, raw)
                if value is _OMIT:
                    if spec.required and not spec.has_default:
                        raise _Problem(w["required"])
                    return _OMIT
                return checked(w, spec, value)
            except _Problem as problem:
                self.say(("class:error", f"  {w.say('term_try_again', problem=str(problem))}"))

    def _describe(self, spec: FieldSpec) -> None:
        head = clean(spec.label, one_line=True)
        if spec.title and spec.title != spec.name:
            head += f" ({clean(spec.name, one_line=True)})"
        self.say(("", ""))
        self.say(("class:label", head), ("class:hint", f"  {_type_text(spec, self.words)}"))
        if spec.description:
            self.say(("class:hint", f"  {clean(spec.description)}"))
        for number, option in enumerate(spec.options, 1):
            label = clean(option.title, one_line=True)
            value = "" if option.title == option.value else f" [{clean(option.value, one_line=True)}]"
            self.say(("", f"  {number}) {label}{value}"))


def terminal_handler(
    *, input: Input | None = None, output: Output | None = None, locale: str | None = None
) -> ElicitationFnT:
    """An `elicitation_callback` that asks the person at the terminal.

    Args:
        input: prompt_toolkit input (the terminal by default).
        output: prompt_toolkit output (the terminal by default).
        locale: The language of the prompts (`de`, `fr-CA`, ...); None reads the environment
            (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).

    Returns:
        A callback for `mcp.Client(..., elicitation_callback=...)`.
    """
    return TerminalForms(input=input, output=output, locale=locale).handler()


_BOUNDS: Final = (
    ("minimum", "limit_at_least"),
    ("exclusive_minimum", "limit_more_than"),
    ("maximum", "limit_at_most"),
    ("exclusive_maximum", "limit_less_than"),
)
_COUNTS: Final = (
    ("min_length", "limit_min_chars"),
    ("max_length", "limit_max_chars"),
    ("min_items", "limit_min_items"),
    ("max_items", "limit_max_items"),
)


def _type_text(spec: FieldSpec, w: Words | None = None) -> str:
    """The hint after a field's label: how to answer, then its limits, default and need (`describe`'s).

    In `w`'s language (English by default); in English, the limits read as `describe`'s.
    """
    w = w or words_for("en")
    about = describe(spec)
    if spec.kind == "choice":
        parts = [w["term_pick_one"]]
    elif spec.kind == "multi_choice":
        parts = [w["term_pick_any"]]
        if spec.default:
            parts.append(w.say("term_none_key", key=_NONE))
    else:
        kind = spec.format.replace("-", "_") if spec.format else {"string": "text"}.get(spec.kind, spec.kind)
        parts = [w[f"kind_{kind}"]]
    parts.extend(
        w.say(key, number=value) for name, key in _BOUNDS if (value := getattr(spec, name)) is not None
    )
    parts.extend(w.count(key, value) for name, key in _COUNTS if (value := getattr(spec, name)) is not None)
    if about.has_default:
        parts.append(w.say("term_default", value=_show(w, about.default)))
    parts.append(w["term_required"] if about.required else w["term_optional"])
    return ", ".join(parts)


def _show(w: Words, value: object) -> str:
    if isinstance(value, bool):
        return w["yes"] if value else w["no"]
    if isinstance(value, list):
        listed = ", ".join(clean(str(v), one_line=True) for v in cast("list[object]", value))
        return listed or w["term_none"]
    return clean(str(value), one_line=True)


def _summary(w: Words, content: dict[str, Any]) -> str:
    shown = ", ".join(f"{clean(k, one_line=True)}={_show(w, v)}" for k, v in content.items())
    return shown or w["term_no_fields"]


def _default_text(w: Words, spec: FieldSpec) -> str:
    if not spec.has_default:
        return ""
    if spec.kind == "boolean":
        return w["key_yes"] if spec.default else w["key_no"]
    if isinstance(spec.default, list):
        return ", ".join(spec.default)
    return str(spec.default)


def _pick(w: Words, spec: FieldSpec, token: str) -> str:
    if token.isdigit() and 1 <= int(token) <= len(spec.options):
        return spec.options[int(token) - 1].value
    for option in spec.options:
        if token in (option.value, option.title):
            return option.value
    raise _Problem(w.say("term_not_an_option", value=repr(clean(token, one_line=True))))


def answers(w: Words) -> tuple[frozenset[str], frozenset[str]]:
    """What a yes/no field takes for yes and for no: the language's key and word, and the English ones.

    An English answer that means the opposite in the language (its key or word) is left out.
    """
    yes = {w["key_yes"], w["yes"].lower()}
    no = {w["key_no"], w["no"].lower()}
    return frozenset(yes | (set(_YES) - no)), frozenset(no | (set(_NO) - yes))


def _parse(w: Words, spec: FieldSpec, raw: str) -> Any:
    if spec.kind == "multi_choice":
        if raw == _NONE:
            return []
        return [_pick(w, spec, token.strip()) for token in raw.split(",") if token.strip()]
    if raw == "" and not (spec.kind == "string" and spec.required):
        return _OMIT
    if spec.kind == "boolean":
        yes, no = answers(w)
        if raw.lower() in yes:
            return True
        if raw.lower() in no:
            return False
        raise _Problem(w.say("term_yes_or_no", yes=w["key_yes"], no=w["key_no"]))
    if spec.kind == "choice":
        return _pick(w, spec, raw)
    if spec.kind in ("integer", "number"):
        try:
            number = int(raw) if spec.kind == "integer" else float(raw)
        except ValueError:
            raise _Problem(w[spec.kind]) from None
        return int(number) if isinstance(number, float) and number.is_integer() and "." not in raw else number
    return raw


_ERROR_WORDS: Final[Mapping[str, tuple[str, str]]] = {
    "string_too_short": ("min_length", "min_length"),
    "string_too_long": ("max_length", "max_length"),
    "too_short": ("min_items", "min_length"),
    "too_long": ("max_items", "max_length"),
    "greater_than_equal": ("ge", "ge"),
    "greater_than": ("gt", "gt"),
    "less_than_equal": ("le", "le"),
    "less_than": ("lt", "lt"),
}
"""The wire's constraint errors (pydantic's types), by the words and the error context's limit."""
_KIND_WORDS: Final = {"integer": "integer", "number": "number", "choice": "choice", "multi_choice": "choices"}


def checked(w: Words, spec: FieldSpec, value: object) -> ContentValue:
    """`value` as it travels, checked by the field's wire rules (`check_value`'s), told in `w`'s words.

    Raises:
        _Problem: Saying what to enter instead (never the value itself).
    """
    adapter = field_adapter(spec)
    try:
        return cast("ContentValue", adapter.dump_python(adapter.validate_python(value), mode="json"))
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
    words_key, limit_key = _ERROR_WORDS.get(error["type"], ("", ""))
    if words_key:
        raise _Problem(w.said(words_key, (error.get("ctx") or {}).get(limit_key))) from None
    if spec.format is not None:
        raise _Problem(w[spec.format.replace("-", "_")]) from None
    raise _Problem(w[_KIND_WORDS.get(spec.kind, "invalid")]) from None
