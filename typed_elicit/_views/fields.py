"""The field markup every view of a form shares: what a template shows of each field.

`field_views` turns a `FormSpec` (and a submit's values and errors) into `FieldView`s; the
`field` macro of `templates/fields.html` renders one. Pages (`typed_elicit.pages`) and app views
use the same two, so a field looks and reads the same wherever it is asked. The server's texts are
shown without bidi controls; a secret field's value is never put back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from typed_elicit._core.text import strip_bidi
from typed_elicit._views.words import said, shown
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

    @property
    def describedby(self) -> str:
        """The ids of the field's description, hint and error, for `aria-describedby`."""
        ids = [f"{self.id}-desc"] if self.description else []
        if self.hint:
            ids.append(f"{self.id}-hint")
        if self.error:
            ids.append(f"{self.id}-error")
        return " ".join(ids)


_AUTOCOMPLETE: Final = (
    (("username", "user", "login"), "username"),
    (("email", "mail"), "email"),
    (("otp", "totp", "code", "mfa"), "one-time-code"),
    (("password", "passwd", "pwd", "passphrase"), "current-password"),
    (("name", "fullname"), "name"),
    (("phone", "tel", "mobile"), "tel"),
)


def _autocomplete(spec: FieldSpec, is_secret: bool) -> str | None:
    words = set(re.findall(r"[a-z0-9]+", spec.name.lower().replace("_", " ")))
    for names, token in _AUTOCOMPLETE:
        if words.intersection(names):
            return token
    return "off" if is_secret else None


def field_view(
    spec: FieldSpec,
    index: int,
    is_secret: bool,
    values: Mapping[str, list[str]],
    error: str | None,
    words: Mapping[str, str],
) -> FieldView:
    """What the template shows of one field (the server's texts without bidi controls)."""
    given = values.get(spec.name)
    attrs: dict[str, str] = {}
    hint_parts: list[str] = []
    value = ""
    checked = False
    options: list[dict[str, Any]] = []
    if spec.kind == "boolean":
        kind = "checkbox"
        checked = bool(given and given[-1].lower() in CHECKED) if given is not None else spec.default is True
    elif spec.kind in ("choice", "multi_choice"):
        kind = "select" if spec.kind == "choice" else "checkboxes"
        if given is not None:
            chosen = set(given)
        elif isinstance(spec.default, list):
            chosen = set(spec.default)
        else:
            chosen = {str(spec.default)} if spec.has_default else set[str]()
        options = [
            {
                "value": o.value,
                "title": strip_bidi(o.title),
                "selected": o.value in chosen,
                "id": f"f{index}-{n}",
            }
            for n, o in enumerate(spec.options)
        ]
    elif spec.kind in ("integer", "number"):
        kind = "number"
        attrs["inputmode"] = "numeric" if spec.kind == "integer" else "decimal"
        attrs["step"] = "1" if spec.kind == "integer" else "any"
        low = spec.minimum
        high = spec.maximum
        if low is not None:
            attrs["min"] = shown(low)
        if high is not None:
            attrs["max"] = shown(high)
        if spec.exclusive_minimum is not None:
            hint_parts.append(said(words, "gt", spec.exclusive_minimum))
        if spec.exclusive_maximum is not None:
            hint_parts.append(said(words, "lt", spec.exclusive_maximum))
    elif is_secret:
        kind = "password"
        if given is not None and given[-1]:  # re-shown after an error: never sent back, so typed again
            hint_parts.append(said(words, "secret_again"))
    else:
        kind = {"email": "email", "uri": "url", "date": "date"}.get(spec.format or "", "text")
        if spec.format == "date-time":
            hint_parts.append(said(words, "date_time"))
    if spec.kind in ("string",):
        if spec.min_length is not None:
            attrs["minlength"] = str(spec.min_length)
        if spec.max_length is not None:
            attrs["maxlength"] = str(spec.max_length)
    if kind not in ("checkbox", "select", "checkboxes", "password"):
        if given is not None:
            value = given[-1]
        elif spec.has_default and spec.default is not None:
            value = shown(spec.default) if isinstance(spec.default, float) else str(spec.default)
    if spec.kind == "multi_choice":
        if spec.min_items:
            hint_parts.append(said(words, "min_items", spec.min_items))
        if spec.max_items is not None:
            hint_parts.append(said(words, "max_items", spec.max_items))
    autocomplete = _autocomplete(spec, is_secret)
    if autocomplete is not None and kind not in ("checkbox", "checkboxes"):
        attrs["autocomplete"] = autocomplete
    return FieldView(
        id=f"f{index}",
        name=spec.name,
        label=strip_bidi(spec.label),
        kind=spec.kind,
        input=kind,
        required=spec.required and not spec.has_default,
        description=None if spec.description is None else strip_bidi(spec.description),
        hint=sentences(hint_parts),
        value=value,
        checked=checked,
        options=options,
        attrs=attrs,
        error=error,
    )


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
) -> list[FieldView]:
    """What a template shows of each field of `form`, in order.

    Args:
        form: The form.
        secret: The names of its secret fields (shown as password inputs, never re-filled).
        values: What a submit held, by field name (empty on a first show).
        errors: What to tell of each invalid field, by name.
        words: The texts of hints (`PAGE_WORDS` with a server's overrides).

    Returns:
        One `FieldView` per field, ids `f0`, `f1`, ... in the form's order.
    """
    return [
        field_view(spec, i, spec.name in secret, values, errors.get(spec.name), words)
        for i, spec in enumerate(form.fields)
    ]


CHECKED: Final = frozenset({"true", "on", "yes", "1"})
"""What a submitted checkbox may say when it is ticked."""
UNCHECKED: Final = frozenset({"", "false", "off", "no", "0"})
"""What it may say when it is not (a browser sends nothing for an unticked box)."""
