"""A model's view: its HTML (the shared field markup, the view's style and script) and its CSP.

Rendered once per model when the views are served (`serve_apps`), never per call: what one
call shows (its message, options, defaults, preview) reaches the script in the forwarded
request. The page loads nothing: its CSP allows its one inline script and one style by hash.

The view speaks its host's language: the host tells it (`ui/initialize`'s `hostContext.locale`)
only once the view runs, and a resource is fixed, so the view carries the words it shows in
each offered locale (`Languages.available`: the shipped six unless the server says fewer) and
its script chooses one as `Languages.choose` does (the server's fixed locale, else the host's
nearest, else the default). Markup stays one: the script swaps the texts and sets `lang`/`dir`.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from markupsafe import Markup
from mcp.server.apps import ResourceCsp
from pydantic import BaseModel

from typed_elicit._core.versions import LATEST_PROTOCOL_VERSION
from typed_elicit._forms.autofill import declared_tokens
from typed_elicit._forms.reduce import form_message, reduced, shaped
from typed_elicit._forms.registry import known, layout
from typed_elicit._views.fields import TEMPLATES as FIELD_TEMPLATES
from typed_elicit._views.fields import field_views
from typed_elicit._wire import draft as _draft
from typed_elicit._wire.spec import FormSpec
from typed_elicit.apps._view import AppView
from typed_elicit.errors import OptionsError

if TYPE_CHECKING:
    from jinja2 import Environment

    from typed_elicit._views.i18n import Languages, Words

TEMPLATES: Final = Path(__file__).with_name("templates")

RESOURCE_CSP: Final = ResourceCsp(
    connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[]
)
"""The resource's `_meta.ui.csp`: no origin at all (the view loads nothing, connects nowhere)."""

_PLACEHOLDERS: Final = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")


@cache
def _environment() -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    loader = FileSystemLoader([str(TEMPLATES), str(FIELD_TEMPLATES)])
    return Environment(loader=loader, autoescape=True, undefined=StrictUndefined)


@cache
def _static(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def view_form(model: type[BaseModel]) -> FormSpec:
    """The form a view shows: the model's, with placeholder options for its `Choices()` fields.

    The script replaces every choice field's options with the ones the question offers.

    Raises:
        SchemaError: If the model cannot be elicited.
        OptionsError: If a `Choices()` field takes no placeholder options (never for one that
            takes from 1 to 10 options).
    """
    names = layout(model).choices
    if not names:
        return reduced(model, LATEST_PROTOCOL_VERSION).form
    try:
        return shaped(model, LATEST_PROTOCOL_VERSION, options={name: ["1"] for name in names}).form
    except OptionsError:  # a field that takes more options than one
        return shaped(
            model, LATEST_PROTOCOL_VERSION, options={name: list(_PLACEHOLDERS) for name in names}
        ).form


def csp(script: str, style: str, logo: bool) -> str:
    """The view's own policy: its one script and one style by hash, images only from `data:`."""
    img = "data:" if logo else "'none'"
    return (
        f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; img-src {img}; "
        "connect-src 'none'; form-action 'none'; base-uri 'none'; object-src 'none'"
    )


@cache
def _shipped_languages() -> Languages:
    """The languages of a server that set none: the shipped ones, English by default.

    Loaded when the first view is rendered (`serve_apps`), never at `import typed_elicit.apps`.
    """
    from typed_elicit._views.i18n import Languages

    return Languages()


def render(model: type[BaseModel], view: AppView, version: str, languages: Languages | None = None) -> str:
    """The view's whole HTML for `model` (`view.html` itself when the author gave it).

    Args:
        model: The form model.
        view: How it looks.
        version: typed_elicit's version, told to the host as the app's.
        languages: The server's languages (`serve_apps(languages=...)`); None: the shipped ones.

    Raises:
        SchemaError: If the model cannot be elicited.
        jinja2.TemplateError: If the author's template cannot be rendered.
    """
    if view.html is not None:
        return view.html
    from jinja2.utils import htmlsafe_json_dumps

    css = "".join(f"\n:root {{ {name}: {value}; }}" for name, value in view.brand.css.items())
    style = _static("view.css") + css
    script = _static("view.js")
    languages = languages or _shipped_languages()
    first = languages.locale or languages.default
    form = view_form(model)
    declared = model.model_config.get("title")
    title = view.title or (None if declared is None else str(declared))  # None: no header, the message heads
    message = form_message(model)
    offered = {
        tag: _spoken(languages.words(tag), form, title, message, _default_message(model))
        for tag in languages.available
    }
    data = {
        "app": {"name": _draft.APP_NAME, "version": version},
        "protocol": _draft.BRIDGE_PROTOCOL_VERSION,
        "elicit": _draft.ELICIT_METHOD,
        "viewKey": _draft.VIEW_META,
        "message": message,
        "languages": {"fixed": languages.locale, "default": languages.default, "offered": offered},
    }
    words = languages.words(first)
    fields = field_views(form, frozenset(), values={}, errors={}, words=words, tokens=declared_tokens(model))
    shown = offered[first]
    context: dict[str, Any] = {
        "brand": {"title": shown["title"], "logo_url": view.brand.logo_url},
        "message": shown["message"],
        "lang": first,
        "dir": words.direction,
        "words": words,
        "fields": fields,
        "style": Markup(style),  # our own text (CSS variables checked by AppView): hashed as is
        "script": Markup(script),
        "csp": csp(script, style, view.logo_url is not None),
        "data": htmlsafe_json_dumps(data, separators=(",", ":")),  # no `<`, `>`, `&` or `'` in it
    }
    env = _environment()
    template = env.from_string(view.template) if view.template is not None else env.get_template("view.html")
    return template.render(**context)


def _default_message(model: type[BaseModel]) -> str | None:
    """The form's name when its message is the library's `Please provide <name>.`, else None."""
    record = known(model)
    if (record is not None and record.message) or (model.__doc__ or "").strip():
        return None
    return str(model.model_config.get("title") or model.__name__)


def _spoken(
    words: Words, form: FormSpec, title: str | None, message: str, default: str | None
) -> dict[str, Any]:
    """What the view says in one language: the library's words, the fields' texts, title and message.

    A field's texts are `[label, description, hint]`, by its id; the developer's own texts
    (labels, descriptions, title, message) go through the server's translations (`Words.text`).
    """
    views = field_views(form, frozenset(), values={}, errors={}, words=words)
    message = (
        words.text(message) if default is None else words.say("default_message", title=words.text(default))
    )
    return {
        "dir": words.direction,
        "words": words.table(_WORDS),
        "fields": {
            f.id: [f.label, f.description, f.hint]  # in `words`' language already (`field_views`)
            for f in views
        },
        "title": None if title is None else words.text(title),
        "message": message,
    }


_WORDS: Final = (
    "required",
    "min_length",
    "max_length",
    "integer",
    "number",
    "ge",
    "le",
    "email",
    "uri",
    "date",
    "date_time",
    "choice",
    "choices",
    "min_items",
    "max_items",
    "submit",
    "decline",
    "cancel",
    "choose",
    "none",
    "search",
    "sent",
    "declined",
    "cancelled",
    "host_cannot_answer",
    "host_unreachable",
    "decimal_sign",
    "group_sign",
    "problems",
    "problem_at",
)
"""The messages the view's script says: its checks (as the pages word them), its buttons and its status."""
