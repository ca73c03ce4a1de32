"""The field markup every view of a form shares: what a template shows of each field.

`field_views` turns a `FormSpec` (and a submit's values and errors) into `FieldView`s; the
`field` macro of `templates/fields.html` renders one. Pages (`typed_elicit.pages`) and app views
use the same two, so a field looks and reads the same wherever it is asked. The server's texts are
shown without bidi controls; a secret field's value is never put back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from markupsafe import Markup, escape

from typed_elicit._core.text import strip_bidi
from typed_elicit._forms.autofill import SECRET_TOKENS
from typed_elicit._views.words import MESSAGES, described, own_text, said, shown
from typed_elicit._wire.spec import FieldSpec, FormSpec

TEMPLATES: Final = Path(__file__).with_name("templates")
"""The shared templates (`fields.html`), for a Jinja2 loader."""


@dataclass
class FieldView:
    """What a template needs to show one field (the `field` macro of `fields.html`)."""

    id: str
    name: str
    label: str
    kind: str
    input: str
    """`text`, `email`, `url`, `date`, `password`, `number`, `checkbox`, `select`, `checkboxes`."""
    required: bool
    description: str | None
    hint: str | None
    value: str
    checked: bool
    options: list[dict[str, Any]]
    attrs: dict[str, str]
    error: str | None = None
    empty: str = ""
    """A list's empty first option ("Choose..." when required, "(none)" when not), in the page's words."""
    template: str | None = field(default=None, repr=False, compare=False)
    label_html: str = field(default="", repr=False, compare=False)
    """A blank view's label, escaped (what its template's `{2}` takes)."""
    """The markup of a field without a value or an error: `{0}` its id, `{1}` its name, `{2}` its label."""

    def html(self, first_error: str | None = None) -> Markup:
        """The field's markup (what the `field` macro shows); `first_error` gets `autofocus`."""
        return Markup(field_html(self, first_error))

    @property
    def describedby(self) -> str:
        """The ids of the field's description, hint and error, for `aria-describedby`."""
        ids = [f"{self.id}-desc"] if self.description else []
        if self.hint:
            ids.append(f"{self.id}-hint")
        if self.error:
            ids.append(f"{self.id}-error")
        return " ".join(ids)


_ENDINGS: Final = {
    tuple(ending.split()): token
    for token, endings in {
        "username": ("username", "user name"),
        "email": ("email", "email address", "e mail"),
        "current-password": ("password", "passwd", "passphrase"),
        "new-password": ("new password", "confirm password"),
        "one-time-code": (
            "otp",
            "totp",
            "otp code",
            "mfa code",
            "2fa code",
            "one time code",
            "verification code",
        ),
        "postal-code": ("postcode", "zipcode", "zip", "zip code", "postal code", "post code"),
        "country-name": ("country",),
        "country": ("country code",),
        "organization": ("organization", "organisation", "company", "employer", "company name"),
        "street-address": ("street", "street address"),
        "name": ("full name", "fullname"),
        "given-name": ("first name", "given name", "firstname", "forename"),
        "family-name": ("last name", "family name", "lastname", "surname"),
        "tel": ("phone", "telephone", "mobile", "phone number", "mobile number", "telephone number"),
    }.items()
    for ending in endings
}
"""The `autocomplete` token a field gets when its name ends with these words (`billing_postcode`)."""
_WHOLE: Final = {("name",): "name", ("code",): "one-time-code", ("login",): "username", ("tel",): "tel"}
"""Names that say what they hold only alone (`product_name` is no person's name, `promo_code` no
one-time code)."""
_INFERRED_ON: Final = {"text": None, "select": None, "email": frozenset({"email", "username"})}
"""The inputs a token is inferred for, each with the tokens it may get (None: any). A number, date or
URL input gets none: every inferred token names text (a wrong token is worse than none)."""


@lru_cache(maxsize=1024)
def autocomplete_for(name: str, input_kind: str) -> str | None:
    """The `autocomplete` token inferred from a field's own name (`postcode` -> `postal-code`), or None.

    The name's words (`zipCode` and `zip_code` are "zip code") are matched whole (`_WHOLE`), else by
    their last three, two or one (`_ENDINGS`). A token is kept only where it fits the input
    (`_INFERRED_ON`); a password input keeps a secret's token (`SECRET_TOKENS`), else gets `off`.
    Cached: names are the server's, and the cache is bounded.
    """
    words = tuple(re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()))
    token = _WHOLE.get(words)
    for end in (3, 2, 1):
        if token is None:
            token = _ENDINGS.get(words[-end:])
    if input_kind == "password":
        return token if token in SECRET_TOKENS else "off"
    if input_kind not in _INFERRED_ON:
        return None
    fits = _INFERRED_ON[input_kind]
    return token if fits is None or token in fits else None


def field_view(
    spec: FieldSpec,
    index: int,
    is_secret: bool,
    values: Mapping[str, list[str]],
    error: str | None,
    words: Mapping[str, str],
    *,
    name: str | None = None,
    label: str | None = None,
    autocomplete: str | None = None,
    blank: bool = True,
) -> FieldView:
    """What the template shows of one field (the server's texts without bidi controls).

    `name` is the input's name when it is not the field's own (a dotted path on a page with groups),
    `label` its label when it is not the field's title (a row's); the `autocomplete` token is the
    one the field declares (`autocomplete`), else inferred from the field's own name
    (`autocomplete_for`). A field shown without a value or an error is the copy of one made once
    per field, token and words (`blank_view`), which carries its markup as a template (`blank=False`:
    made anew).
    """
    name = spec.name if name is None else name
    if blank and error is None and name not in values:
        found = blank_view(spec, is_secret, words, autocomplete)
        if found is not None:
            view = object.__new__(FieldView)
            view.__dict__.update(found.__dict__)
            view.id = f"f{index}"
            view.name = name
            if label is not None:
                view.label = label
            return view
    given = values.get(name)
    attrs: dict[str, str] = {}
    hint_parts: list[str] = []
    value = ""
    checked = False
    options: list[dict[str, Any]] = []
    empty = ""
    if spec.kind == "boolean":
        kind = "checkbox"
        checked = bool(given and given[-1].lower() in CHECKED) if given is not None else spec.default is True
    elif spec.kind in ("choice", "multi_choice"):
        kind = "select" if spec.kind == "choice" else "checkboxes"
        first = "choose" if spec.required and not spec.has_default else "none"
        empty = words.get(first) or MESSAGES[first].english  # a plain table (`PAGE_WORDS`) lacks it
        if given is not None:
            chosen = set(given)
        elif isinstance(spec.default, list):
            chosen = set(spec.default)
        else:
            chosen = {str(spec.default)} if spec.has_default else set[str]()
        options = [
            {
                "value": o.value,
                "title": plain(own_text(words, o.title)),
                "selected": o.value in chosen,
                "id": f"f{index}-{n}",
            }
            for n, o in enumerate(spec.options)
        ]
    elif spec.kind in ("integer", "number"):
        kind = "number"
        attrs["inputmode"] = "numeric" if spec.kind == "integer" else "decimal"
        attrs["step"] = "1" if spec.kind == "integer" else "any"
        for attr, bound in (("min", spec.minimum), ("max", spec.maximum)):
            if bound is not None:
                attrs[attr] = shown(bound)
        for key, bound in (("gt", spec.exclusive_minimum), ("lt", spec.exclusive_maximum)):
            if bound is not None:  # no attribute says it: a hint does
                hint_parts.append(said(words, key, bound))
    elif is_secret:
        kind = "password"
        if given is not None and given[-1]:  # re-shown after an error: never sent back, so typed again
            hint_parts.append(said(words, "secret_again"))
    else:
        kind = {"email": "email", "uri": "url", "date": "date"}.get(spec.format or "", "text")
        if spec.format == "date-time":
            hint_parts.append(said(words, "date_time"))
    if spec.kind == "string":
        for attr, length in (("minlength", spec.min_length), ("maxlength", spec.max_length)):
            if length is not None:
                attrs[attr] = str(length)
    if kind not in ("checkbox", "select", "checkboxes", "password"):
        if given is not None:
            value = given[-1]
        elif spec.has_default and spec.default is not None:
            value = shown(spec.default)
    if spec.kind == "multi_choice":
        if spec.min_items:
            hint_parts.append(said(words, "min_items", spec.min_items))
        if spec.max_items is not None:
            hint_parts.append(said(words, "max_items", spec.max_items))
    if autocomplete is None:
        autocomplete = autocomplete_for(spec.name, kind)
    if autocomplete is not None and kind not in ("checkbox", "checkboxes"):
        attrs["autocomplete"] = autocomplete
    return FieldView(
        id=f"f{index}",
        name=name,
        label=plain(own_text(words, spec.label)) if label is None else label,
        kind=spec.kind,
        input=kind,
        required=spec.required and not spec.has_default,
        description=None if spec.description is None else plain(described(words, spec.description)),
        hint=sentences(hint_parts),
        value=value,
        checked=checked,
        options=options,
        attrs=attrs,
        error=error,
        empty=empty,
    )


_BLANKS: dict[tuple[int, bool, int, str | None], tuple[FieldSpec, Mapping[str, str], FieldView | None]] = {}
"""Per field, secrecy, words table and declared token: the field's view without a value or an error
(bounded)."""

MAX_BLANKS: Final = 4096
"""How many blank views a process keeps (the oldest goes first)."""

_SLOTS: Final = ("\x01", "\x02", "\x03")
"""Where a blank view's markup takes its id, input name and label (`{0}`, `{1}`, `{2}`)."""


def blank_view(
    spec: FieldSpec, is_secret: bool, words: Mapping[str, str], autocomplete: str | None = None
) -> FieldView | None:
    """`spec`'s view without a value or an error, with its markup as a format template; None for checkboxes.

    Made once per field (the server's), secrecy, words table (one per language) and declared
    `autocomplete` token (the model's), so a page's many rows of one field cost a lookup and a
    format each.
    """
    key = (id(spec), is_secret, id(words), autocomplete)
    found = _BLANKS.get(key)
    if found is not None and found[0] is spec and found[1] is words:
        return found[2]
    view = field_view(spec, 0, is_secret, {}, None, words, autocomplete=autocomplete, blank=False)
    if view.input == "checkboxes":  # each option's id follows the field's
        blank = None
    else:
        ident, name, label = _SLOTS
        shown, view.id, view.name, view.label = view.label, ident, name, label
        html = field_html(view, None).replace("{", "{{").replace("}", "}}")
        view.template = html.replace(ident, "{0}").replace(name, "{1}").replace(label, "{2}")
        view.label = shown
        view.label_html = esc(shown)
        blank = view
    if len(_BLANKS) >= MAX_BLANKS:
        del _BLANKS[next(iter(_BLANKS))]
    _BLANKS[key] = (spec, words, blank)
    return blank


_SPECIAL: Final = re.compile("[&<>\"']")


def esc(text: str) -> str:
    """`text` escaped for HTML by markupsafe, as a plain `str` (as it is when nothing needs escaping)."""
    return str(escape(text)) if _SPECIAL.search(text) is not None else text


def plain(text: str) -> str:
    """A server's text without bidi controls (an ASCII text has none: returned as it is)."""
    return text if text.isascii() else strip_bidi(text)


def field_html(f: FieldView, first_error: str | None) -> str:
    """One field's markup: its label, description, hint, input and error, every text escaped.

    The one place a field's markup is written: the `field` macro of `templates/fields.html`
    calls it (`f.html(first_error)`), and pages call it directly.
    """
    ident = f.id
    error = f.error
    if f.template is not None and error is None and ident != first_error:
        return f.template.format(ident, esc(f.name), esc(f.label))
    describedby = f.describedby
    aria = (f' aria-describedby="{describedby}"' if describedby else "") + (
        ' aria-invalid="true"' if error else ""
    )
    focus = " autofocus" if ident == first_error else ""
    req = _REQ if f.required else ""
    desc = f'<p class="desc" id="{ident}-desc" dir="auto">{esc(f.description)}</p>' if f.description else ""
    hint = f'<p class="hint" id="{ident}-hint" dir="auto">{esc(f.hint)}</p>' if f.hint else ""
    kind = f.input
    out = ['<div class="field invalid">' if error else '<div class="field">']
    if kind == "checkboxes":
        out.append(
            f'<fieldset id="{ident}"' + (f' aria-describedby="{describedby}">' if describedby else ">")
        )
        out.append(f'<legend dir="auto">{esc(f.label)}{req}</legend>{desc}{hint}')
        name = esc(f.name)
        for n, o in enumerate(f.options):
            checked = " checked" if o["selected"] else ""
            first = " autofocus" if error and n == 0 and focus else ""
            out.append(
                f'<label class="check" for="{o["id"]}"><input type="checkbox" id="{o["id"]}" name="{name}" '
                f'value="{esc(o["value"])}"{checked}{first}> <bdi>{esc(o["title"])}</bdi></label>'
            )
        out.append("</fieldset>")
    elif kind == "checkbox":
        checked = " checked" if f.checked else ""
        out.append(
            f'<label class="check" for="{ident}"><input type="checkbox" id="{ident}" name="{esc(f.name)}" '
            f'value="true"{checked}{aria}{focus}> <bdi>{esc(f.label)}</bdi></label>{desc}'
        )
    else:
        out.append(f'<label for="{ident}" dir="auto">{esc(f.label)}{req}</label>{desc}{hint}')
        required = " required" if f.required else ""
        if kind == "select":
            token = f.attrs.get("autocomplete")
            auto = f' autocomplete="{esc(token)}"' if token else ""
            out.append(f'<select id="{ident}" name="{esc(f.name)}"{required}{auto}{aria}{focus}>')
            if not f.required or not any(o["selected"] for o in f.options):
                out.append(f'<option value="">{esc(f.empty)}</option>')
            out.extend(
                f'<option value="{esc(o["value"])}"{" selected" if o["selected"] else ""} dir="auto">'
                f"{esc(o['title'])}</option>"
                for o in f.options
            )
            out.append("</select>")
        else:
            value = "" if kind == "password" else f' value="{esc(f.value)}"'
            attrs = "".join(f' {k}="{esc(v)}"' for k, v in f.attrs.items()) if f.attrs else ""
            name = esc(f.name)
            out.append(f'<input type="{kind}" id="{ident}" name="{name}"{value}{required}{attrs}{aria}')
            out.append(f"{focus}>")
    if error:
        out.append(f'<p class="error" id="{ident}-error" dir="auto">{esc(error)}</p>')
    out.append("</div>")
    return "".join(out)


_REQ: Final = ' <span class="req" aria-hidden="true">*</span>'


def sentences(parts: list[str]) -> str | None:
    """`parts` as sentences (`A. B.`), or None for none; the texts' own words, without bidi controls."""
    if not parts:
        return None
    return " ".join(p if p.endswith((".", "!", "?")) else f"{p}." for p in (strip_bidi(p) for p in parts))


def field_views(
    form: FormSpec,
    secret: frozenset[str],
    *,
    values: Mapping[str, list[str]],
    errors: Mapping[str, str],
    words: Mapping[str, str],
    tokens: Mapping[str, str] | None = None,
) -> list[FieldView]:
    """What a template shows of each field of `form`, in order.

    Args:
        form: The form.
        secret: The names of its secret fields (shown as password inputs, never re-filled).
        values: What a submit held, by field name (empty on a first show).
        errors: What to tell of each invalid field, by name.
        words: The texts of hints (`PAGE_WORDS` with a server's overrides).
        tokens: The `autocomplete` token each field declares, by name (`_forms.autofill.declared_tokens`);
            a field without one gets the token its name implies.

    Returns:
        One `FieldView` per field, ids `f0`, `f1`, ... in the form's order.
    """
    declared = tokens or {}
    return [
        field_view(
            spec,
            i,
            spec.name in secret,
            values,
            errors.get(spec.name),
            words,
            autocomplete=declared.get(spec.name),
        )
        for i, spec in enumerate(form.fields)
    ]


CHECKED: Final = frozenset({"true", "on", "yes", "1"})
"""What a submitted checkbox may say when it is ticked."""
UNCHECKED: Final = frozenset({"", "false", "off", "no", "0"})
"""What it may say when it is not (a browser sends nothing for an unticked box)."""
