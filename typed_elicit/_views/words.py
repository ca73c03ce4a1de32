"""Every word the library shows a person, once: the messages the catalogs translate.

`MESSAGES` is the one set of words, in English (the catalogs' source language), by where a person
reads them: a page field's problems and hints (the `PAGE_WORDS` keys a server may override), the
form page, the plain pages, the app view, the automatic hints, the terminal client, the number
format and sizes. Each has a stable key (the catalogs' `msgctxt`), its English text (the `msgid`),
an English plural where it counts something (`ngettext`), and named placeholders (`{limit}`,
`{count}`, `{label}`, ...). `typed_elicit._views.i18n` reads the translations; `typed-elicit
catalogs` writes and checks the catalogs from this table.

`PAGE_WORDS` is the table of a field's problems and hints as pages show them today (English);
`serve_pages(words=...)` overrides any of them. No text ever holds the user's value.
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Final, TypeGuard, cast

from typed_elicit._core.text import quoted
from typed_elicit._forms.hints import HINTS, Phrase, listed, with_hint
from typed_elicit.errors import PageSetupError


@dataclass(frozen=True)
class Message:
    """One message of the catalogs: its key, English text, plural and placeholders."""

    key: str
    """Stable, snake_case: the catalogs' `msgctxt`, what code and overrides name it by."""
    text: str
    """The English text (the catalogs' `msgid`); for a plural message, its form for one."""
    plural: str | None = None
    """The English form for other counts (`msgid_plural`), or None."""
    counts: str | None = None
    """The placeholder whose number chooses a plural form (`count`, `limit`, ...)."""
    note: str = ""
    """What a translator should know beyond where it is shown (the section gives that)."""
    section: str = ""
    """Where a person reads it (set by `_section`)."""

    @property
    def names(self) -> frozenset[str]:
        """The placeholders the English text holds."""
        return placeholders(self.plural or self.text)

    @property
    def english(self) -> str:
        """The English text for most counts (the plural when there is one)."""
        return self.plural or self.text


def placeholders(text: str) -> frozenset[str]:
    """The names of the `{name}` placeholders of `text` (`{{` and `}}` are braces, not placeholders).

    Raises:
        ValueError: If `text` is no valid format string (an unpaired brace).
    """
    return frozenset(name for name, _ in _fields(text))


def _fields(text: str) -> list[tuple[str, bool]]:
    """Each `{name}` placeholder of `text` and whether it carries a format or conversion (`!r`, `:>5`).

    Raises:
        ValueError: If `text` is no valid format string (an unpaired brace).
    """
    return [
        (name, bool(spec or conv))
        for _, name, spec, conv in string.Formatter().parse(text)
        if name is not None
    ]


def form_problem(message: Message, forms: tuple[str, ...]) -> str | None:
    """What is wrong with a translation's placeholders (each of its plural forms), or None.

    Each form holds only its message's placeholders, plainly (`{limit}`, no `!r` or `:>5`); the
    last (or only) form holds all of them; another plural form may leave out the number that
    chooses it (Arabic's form for two says "two", not "2").
    """
    counted = {message.counts} if message.counts else set[str]()
    for i, form in enumerate(forms):
        try:
            parsed = _fields(form)
        except ValueError:
            return "it is no valid text (an unpaired brace: write a brace as {{ or }})"
        names = {name for name, _ in parsed}
        odd = sorted(f"{{{name}}}" for name in names - message.names)
        if odd:
            return f"it holds {', '.join(odd)}, which the English text does not"
        if any(formatted for _, formatted in parsed):
            return "a placeholder carries a format (write it plainly, like {limit})"
        lacking = message.names - names - (counted if i < len(forms) - 1 else set())
        if lacking:
            return f"it lacks {', '.join(sorted(f'{{{name}}}' for name in lacking))}"
    return None


def _section(where: str, *messages: Message) -> tuple[Message, ...]:
    return tuple(Message(m.key, m.text, m.plural, m.counts, m.note, where) for m in messages)


M = Message

_PROBLEMS: Final = _section(
    "a field's problem or hint, on pages and app views",
    M("required", "Fill this in"),
    M("min_length", "Enter at least {limit} character", "Enter at least {limit} characters", "limit"),
    M("max_length", "Enter at most {limit} character", "Enter at most {limit} characters", "limit"),
    M("pattern", "Enter it in the expected format"),
    M("integer", "Enter a whole number"),
    M("number", "Enter a number"),
    M("ge", "Enter {limit} or more"),
    M("gt", "Enter a number more than {limit}"),
    M("le", "Enter {limit} or less"),
    M("lt", "Enter a number less than {limit}"),
    M("multiple_of", "Enter a multiple of {limit}"),
    M("email", "Enter an email address, like name@example.com", note="keep the example address"),
    M("uri", "Enter a full web address, like https://example.com", note="keep the example address"),
    M("date", "Enter a date as YYYY-MM-DD, like 2026-07-28", note="keep the example: forms take it"),
    M(
        "date_time",
        "Enter a date and time with its offset, like 2026-07-28T09:30:00Z",
        note="keep the example: forms take it",
    ),
    M("date_ge", "Enter {limit} or a later date"),
    M("date_gt", "Enter a date after {limit}"),
    M("date_le", "Enter {limit} or an earlier date"),
    M("date_lt", "Enter a date before {limit}"),
    M("choice", "Choose one of the options"),
    M("choices", "Choose only from the options shown"),
    M("min_items", "Choose at least {limit}", note="{limit} is a number of options"),
    M("max_items", "Choose at most {limit}", note="{limit} is a number of options"),
    M("boolean", "Tick the box or leave it empty"),
    M("invalid", "Check this value"),
    M("secret_again", "Enter it again: what you typed is never sent back to your browser"),
    M("min_rows", "Add at least {limit}", note="{limit} is a number of rows"),
    M("max_rows", "Add at most {limit}", note="{limit} is a number of rows"),
    M("file_limits", "Files up to {limit}", note="{limit} is a size, like 2 MB"),
    M("file_size", "Choose a smaller file: at most {limit}", note="{limit} is a size, like 2 MB"),
    M("file_type", "Choose a file of one of the types allowed"),
    M("file_mislabelled", "This file's contents do not match its type; choose another file"),
    M("file_again", "Choose the file again: a browser cannot keep a chosen file when a page is shown again"),
    M("duplicate_key", "This key is given twice; give each key once"),
)

_FORM: Final = _section(
    "the form, on pages and app views",
    M("submit", "Submit", note="the main button: sends the answer"),
    M("decline", "Decline", note="a button: says no to the question"),
    M("cancel", "Cancel", note="a button: stops without answering"),
    M("choose", "Choose...", note="the empty first option of a required list"),
    M("none", "(none)", note="the empty first option of an optional list"),
    M("optional", "(optional)", note="after the name of an optional group"),
    M("error_title", "Error: {title}", note="the window title of a form shown with problems"),
    M("title", "{heading} - {title}", note="a window title: the page's heading, then the app's title"),
    M("default_title", "Secure form", note="the app's title when the app gives none"),
    M(
        "default_message",
        "Please provide {title}.",
        note="the question when the app gives none: {title} names the form",
    ),
    M("problems", "Please correct {count} problem", "Please correct {count} problems", "count"),
    M("problem_at", "{label}: {problem}", note="one line of the list of problems at the top"),
    M(
        "page_note",
        "This page belongs to the app that sent you here. What you enter goes to that app only, "
        "not to the chat.",
    ),
    M("fill_in", "Fill in", note="opens an optional group"),
    M("include", "Include this in the answer", note="a box that adds an optional group to the answer"),
    M("kind", "Kind", note="the label of a list that chooses which kind of group to fill in"),
    M("show_fields", "Show its fields", note="a button: shows the fields of the kind chosen"),
    M("add_to", "Add to {label}", note="a button: adds a row to the list named {label}"),
    M("remove_row", "Remove row {number}", note="a button"),
    M("remove_row_of", "Remove row {number} of {label}", note="the same button, for screen readers"),
    M("row_of", "{label}, row {number}", note="where a problem is: a row of the list {label}"),
    M("item", "{label} {number}", note="the label of one entry of a list named {label}"),
    M("key", "Key", note="the key of one entry of a table of keys and values"),
    M("value", "Value", note="the value of one entry of a table of keys and values"),
)

_PLAIN: Final = _section(
    "a plain page: after a form is sent, or when it cannot be used",
    M("thanks", "Thank you"),
    M("thanks_text", "Your answer was sent. You can close this tab and go back to your app."),
    M("nothing_sent", "Nothing was sent"),
    M("nothing_sent_text", "You can close this tab and go back to your app."),
    M("gone", "This link can no longer be used"),
    M(
        "gone_text",
        "The form was already submitted, or it expired. Go back to your app and start again if needed.",
    ),
    M("closed", "This question is closed"),
    M(
        "closed_text",
        "The app stopped waiting for this answer: it was declined, cancelled or timed out. "
        "Nothing you enter here is sent. Go back to your app and start again if needed.",
    ),
    M("not_found", "Page not found"),
    M("not_found_text", "This link is not valid. Check that you opened the whole link."),
    M("failed", "Something went wrong"),
    M("failed_text", "The form could not be handled. Try again later."),
    M("refused", "Form not accepted"),
    M(
        "refused_unsaid",
        "Your browser sent this form without saying which site it came from (it sent "
        "neither an Origin nor a Referer header), so it cannot be accepted. Browser privacy settings or an "
        "extension can hold these headers back: allow them for this site, or open the link in another "
        "browser, then reload the page and submit again.",
        note="keep Origin and Referer: header names",
    ),
    M("refused_other_site", "The form was sent from another site."),
    M("refused_expired", "This form has expired in your browser. Reload the page."),
    M("refused_unreadable", "The form could not be read."),
    M("too_large", "Form too large"),
    M("too_large_text", "The form holds more than this page accepts."),
)

_VIEW: Final = _section(
    "an app view (a form shown inside the chat app)",
    M("search", "Search the options", note="the search box over a long list of options"),
    M("sent", "Sent."),
    M("declined", "Declined."),
    M("cancelled", "Cancelled."),
    M(
        "host_cannot_answer",
        "This host cannot take an answer from this view; answer in its own form.",
        note="the host is the chat app showing the view",
    ),
    M("host_unreachable", "This view could not connect to its host."),
)

_HINTS: Final = _section(
    "an automatic hint: a rule of a field the form cannot show, told in a sentence",
    M("hint_must_be", "Must be {rules}.", note="{rules} lists hint_* rules, like 'after 2026-01-01'"),
    M("hint_digits", "Must be {count} digit.", "Must be {count} digits.", "count"),
    M("hint_digits_between", "Must be {low} to {count} digit.", "Must be {low} to {count} digits.", "count"),
    M("hint_format", "Must be in the expected format."),
    M("hint_example", "For example: {example}."),
    M("hint_examples", "For example: {example} or {other}."),
    M("hint_on_or_after", "on or after {date}"),
    M("hint_after", "after {date}"),
    M("hint_on_or_before", "on or before {date}"),
    M("hint_before", "before {date}"),
    M("hint_more_than", "more than {number}"),
    M("hint_less_than", "less than {number}"),
    M("hint_multiple_of", "a multiple of {number}"),
    M("list_pair", "{first} and {last}", note="the last two items of a list of rules"),
    M("list_more", "{first}, {rest}", note="one item of a list of rules, then the rest"),
)

_TERMINAL: Final = _section(
    "the terminal client",
    M("term_asks", "{server} asks:", note="{server} is the server's name"),
    M("term_server_asks", "The server asks:"),
    M(
        "term_answer",
        "Answer? [Y]es / [d]ecline / [c]ancel",
        note="each key of key_yes, key_decline and key_cancel in square brackets",
    ),
    M(
        "term_open_url",
        "Open this URL? [y]es / [N]o / [c]ancel",
        note="each key of key_yes, key_no and key_cancel in square brackets",
    ),
    M("key_yes", "y", note="the key that answers yes: one letter, lower case"),
    M("key_no", "n", note="the key that answers no: one letter, lower case"),
    M("key_decline", "d", note="the key that declines: one letter, lower case"),
    M("key_cancel", "c", note="the key that cancels: one letter, lower case"),
    M("term_type_one_of", "Type one of: {keys}"),
    M(
        "term_keys",
        "(Ctrl-C cancels, Ctrl-D declines; Enter takes the [default])",
        note="Ctrl-C, Ctrl-D and Enter are keys",
    ),
    M("term_sending", "Sending:", note="followed by the answer's fields and values"),
    M("term_no_fields", "(no fields)"),
    M("term_url", "URL:"),
    M("term_open_it", "Open it in your browser, then come back here."),
    M("term_try_again", "{problem}; try again"),
    M("term_not_an_option", "{value} is not one of the options", note="{value} is what was typed, quoted"),
    M("term_yes_or_no", "Answer {yes} or {no}", note="{yes} and {no} are key_yes and key_no"),
    M("term_pick_one", "pick one: number or value"),
    M("term_pick_any", "pick any: numbers or values, comma-separated"),
    M("term_none_key", "{key} for none", note="{key} is what to type to pick no option"),
    M("term_default", "default {value}"),
    M("term_required", "required"),
    M("term_optional", "optional"),
    M("yes", "yes"),
    M("no", "no"),
    M("term_none", "none", note="a list of options with none picked"),
    M("kind_text", "text"),
    M("kind_integer", "whole number"),
    M("kind_number", "number"),
    M("kind_boolean", "yes/no"),
    M("kind_email", "email"),
    M("kind_uri", "URL"),
    M("kind_date", "date"),
    M("kind_date_time", "date and time"),
    M("limit_at_least", "at least {number}"),
    M("limit_more_than", "more than {number}"),
    M("limit_at_most", "at most {number}"),
    M("limit_less_than", "less than {number}"),
    M("limit_min_chars", "at least {count} character", "at least {count} characters", "count"),
    M("limit_max_chars", "at most {count} character", "at most {count} characters", "count"),
    M("limit_min_items", "at least {count} item", "at least {count} items", "count"),
    M("limit_max_items", "at most {count} item", "at most {count} items", "count"),
)

_NUMBERS: Final = _section(
    "numbers and sizes",
    M("decimal_sign", ".", note="the decimal separator of the language's numbers (CLDR, latn)"),
    M("group_sign", ",", note="the thousands separator of the language's numbers (CLDR, latn)"),
    M(
        "plural_categories",
        "one other",
        note="not shown: the language's CLDR plural categories, in the order of its plural forms "
        "(of zero one two few many other, those it has)",
    ),
    M("bytes", "{count} byte", "{count} bytes", "count"),
    M("kilobytes", "{size} KB", note="{size} is a number of kilobytes (1000 bytes)"),
    M("megabytes", "{size} MB", note="{size} is a number of megabytes (1,000,000 bytes)"),
    M("gigabytes", "{size} GB", note="{size} is a number of gigabytes"),
)

del M

MESSAGES: Final[Mapping[str, Message]] = MappingProxyType(
    {m.key: m for m in (*_PROBLEMS, *_FORM, *_PLAIN, *_VIEW, *_HINTS, *_TERMINAL, *_NUMBERS)}
)
"""Every message, by key, in the order the catalogs list them."""

SECTIONS: Final = tuple(dict.fromkeys(m.section for m in MESSAGES.values()))
"""Where a person reads the messages, in the table's order."""

PAGE_WORDS: Final[Mapping[str, str]] = MappingProxyType({m.key: m.english for m in _PROBLEMS})

"""Every text a page says about a field's constraints, by kind: its problems and its hints.

`{limit}` is the constraint's number (or date) as a person writes it; no text ever holds the
user's value. A model's own validator message (`ValueError("...")` in a validator) is shown as
the model wrote it instead, cut to `MAX_OWN_MESSAGE` characters. `serve_pages(words=...)`
overrides any of them (docs/pages.md lists the table).
"""

_LIMITED: Final = frozenset(key for key, text in PAGE_WORDS.items() if "{limit}" in text)


def page_words(override: Mapping[str, str] | None) -> Mapping[str, str]:
    """`PAGE_WORDS` with `override` applied, each override checked.

    Raises:
        PageSetupError: If a key is not one of `PAGE_WORDS`, or a text is empty, no text, or
            holds a placeholder other than `{limit}` (where the default has one).
    """
    if not override:
        return PAGE_WORDS
    return MappingProxyType({**PAGE_WORDS, **checked_words(override, PAGE_WORDS, "docs/pages.md")})


def checked_words(override: Mapping[str, str], known: Mapping[str, object], table: str) -> dict[str, str]:
    """`override` checked against the messages of `known` (keys of `MESSAGES`): a copy, as texts.

    Raises:
        PageSetupError: If a key is not one of `known` or counts something (a plural message
            is translated in a catalog), or a text is empty, no text, or holds a placeholder
            its message does not.
    """
    words: dict[str, str] = {}
    for key, text in override.items():
        message = MESSAGES.get(key) if key in known else None
        if message is None:
            keys = list(known)
            near = difflib.get_close_matches(str(key), keys, n=1)
            advice = f"did you mean {near[0]!r}? " if near else ""
            named = keys if len(keys) <= len(PAGE_WORDS) else [*keys[:5], f"... ({len(keys)} in all)"]
            raise PageSetupError.words(
                f"it has no key {quoted(str(key))}: {advice}the keys are {', '.join(named)} "
                f"(see the default table in {table})"
            )
        if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance] - callers may pass anything
            raise PageSetupError.words(f"{key!r} must be a text, got {type(text).__name__}")
        if not text.strip():
            raise PageSetupError.words(f"{key!r} is empty: give the words a person should read")
        _check_words(message, text)
        words[key] = text
    return words


def _check_words(message: Message, text: str) -> None:
    """Refuse a text whose placeholders `str.format` could not fill with its message's values.

    Raises:
        PageSetupError: Naming the key and the placeholders it may hold.
    """
    key = message.key
    takes = " and ".join(f"{{{name}}}" for name in sorted(message.names)) or "no placeholder"
    if key in _LIMITED:
        takes = "{limit} (the limit, as a person writes it)"
    escape = "write a brace as {{ or }}"
    try:
        parsed = _fields(text)
    except ValueError:
        raise PageSetupError.words(f"{key!r} is no valid text: it takes {takes}; {escape}") from None
    if any(name not in message.names or formatted for name, formatted in parsed):
        raise PageSetupError.words(f"{key!r} takes {takes}; {escape}")


def speaks(words: object) -> TypeGuard[Said]:
    """Whether `words` is the `Words` of a language (a `Said`), not a plain table of English texts."""
    return getattr(words, "speaks", False) is True


def said(words: Mapping[str, str], key: str, limit: object = None) -> str:
    """The words for `key`, with `limit` in them as a person writes it (in the words' language).

    `words` is `PAGE_WORDS` (or a server's overrides of it), or the `Words` of a language
    (`typed_elicit._views.i18n`), which writes the limit in the language's numbers and
    chooses a plural form by it.
    """
    if speaks(words):
        return words.said(key, limit)
    return words[key].format(limit="" if limit is None else shown(limit))


def shown(value: object) -> str:
    """A number (or date) as a person writes it: `5` for 5.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Said(Mapping[str, str]):
    """A table of words that says a limit in its own language (`typed_elicit._views.i18n.Words`)."""

    speaks: ClassVar[bool] = True
    """Marks a table of a language's words (`speaks`: no ABC check on every word said)."""

    def said(self, key: str, limit: object = None) -> str:
        """The words for `key` with `limit` in them (see `said`)."""
        raise NotImplementedError

    def say(self, key: str, /, **values: object) -> str:
        """The message `key` with its placeholders filled, numbers as the language writes them."""
        raise NotImplementedError

    def count(self, key: str, count: float, /, **values: object) -> str:
        """The plural message `key` in its form for `count`."""
        raise NotImplementedError

    def size(self, size: int) -> str:
        """A byte count as the language writes it (`2 MB`, `1,5 MB`)."""
        raise NotImplementedError

    def text(self, text: str) -> str:
        """A developer's own text in this language (as written without a translation)."""
        raise NotImplementedError


def own_text(words: Mapping[str, str], text: str) -> str:
    """The developer's text (message, title, description, option) in `words`' language, or as written."""
    return words.text(text) if speaks(words) else text


def described(words: Mapping[str, str], text: str) -> str:
    """A field's description in `words`' language.

    The developer's part is their own text (`own_text`); the automatic hint the reducer added
    (`typed_elicit._forms.hints`) is told in the library's words of that language.
    """
    found = HINTS.get(text)
    if found is None or not speaks(words):
        return own_text(words, text)
    own, phrase = found
    return with_hint(None if own is None else words.text(own), phrased(words, phrase)) or text


def phrased(words: Said, phrase: Phrase) -> str:
    """An automatic hint in `words`' language (its numbers written as the language does)."""
    values: dict[str, object] = dict(phrase.values)
    if phrase.rules:
        values["rules"] = listed([phrased(words, rule) for rule in phrase.rules], words.say)
    counts = MESSAGES[phrase.key].counts
    if counts is not None:
        return words.count(phrase.key, cast("float", values[counts]), **values)
    return words.say(phrase.key, **values)


def counted(words: Mapping[str, str], key: str, count: int) -> str:
    """The plural message `key` of `words` for `count` (English's two forms for a plain table)."""
    if speaks(words):
        return words.count(key, count)
    message = MESSAGES[key]
    text = words.get(key) or (message.text if count == 1 else message.english)
    return text.format_map({message.counts or "count": count})


def say(words: Mapping[str, str], key: str, /, **values: object) -> str:
    """The message `key` of `words` with its placeholders filled.

    `words` is the `Words` of a language, or a table of English texts (`PAGE_WORDS`, with a
    server's overrides) that may lack the message: then its English text is used.
    """
    if speaks(words):
        return words.say(key, **values)
    text = words.get(key)
    return (MESSAGES[key].english if text is None else text).format_map(values)
