"""A field's declared `autocomplete` token: `Field(json_schema_extra={"autocomplete": "postal-code"})`.

The token tells a browser what a page's (or an app view's) input holds, so it can offer what
the person saved: an address, a telephone number, a new password. It cannot travel on the wire
(the wire schema holds only the spec's keys), so the reducer checks it when the model is declared
(`checked_token`, called by `reduce_field`) and the views read it off the model: a page form's
`Leaf.autocomplete` (`typed_elicit._forms.page.tree`), an app view's `declared_tokens(model)`.
A declared token wins over the one inferred from the field's name (`_views.fields.autocomplete_for`).

A token is what the HTML standard's autofill grammar admits: `off` or `on` alone, or an optional
`section-*`, an optional `shipping` or `billing`, an optional `home`/`work`/`mobile`/`fax`/`pager`
before a contact field (`tel`, `email`, `impp`), the field name, and an optional `webauthn`.
"""

from __future__ import annotations

import difflib
from typing import Final, cast

from pydantic import BaseModel

from typed_elicit._forms.fieldinfo import FieldProblem
from typed_elicit._forms.hints import own_extra
from typed_elicit._forms.names import wire_name

FIELD_NAMES: Final = frozenset(
    {
        "name", "honorific-prefix", "given-name", "additional-name", "family-name", "honorific-suffix",
        "nickname", "username", "new-password", "current-password", "one-time-code", "organization-title",
        "organization", "street-address", "address-line1", "address-line2", "address-line3",
        "address-level4", "address-level3", "address-level2", "address-level1", "country", "country-name",
        "postal-code", "cc-name", "cc-given-name", "cc-additional-name", "cc-family-name", "cc-number",
        "cc-exp", "cc-exp-month", "cc-exp-year", "cc-csc", "cc-type", "transaction-currency",
        "transaction-amount", "language", "bday", "bday-day", "bday-month", "bday-year", "sex", "url",
        "photo",
    }
)  # fmt: skip
"""The HTML standard's autofill field names that take no contact kind."""

CONTACT_NAMES: Final = frozenset(
    {
        "tel", "tel-country-code", "tel-national", "tel-area-code", "tel-local", "tel-local-prefix",
        "tel-local-suffix", "tel-extension", "email", "impp",
    }
)  # fmt: skip
"""The autofill field names that may follow a contact kind (`work email`)."""

_CONTACT_KINDS: Final = frozenset({"home", "work", "mobile", "fax", "pager"})
_ADDRESS_KINDS: Final = frozenset({"shipping", "billing"})

SECRET_TOKENS: Final = frozenset(
    {"off", "new-password", "current-password", "one-time-code", "cc-number", "cc-csc"}
)
"""What a secret field (a password input, never re-filled) may declare: a browser then never offers a
saved ordinary value (an e-mail, an address) into it, nor keeps the secret as one."""


def checked_token(extra: object, *, secret: bool, checkbox: bool) -> str | None:
    """The token `json_schema_extra={"autocomplete": ...}` declares, checked; None without one.

    Args:
        extra: The field's `json_schema_extra`.
        secret: Whether the field holds a secret (shown as a password input).
        checkbox: Whether it is shown as checkboxes (a yes/no or a multi-select), which take no token.

    Raises:
        FieldProblem: If `json_schema_extra` is misdeclared, or the token is not an HTML autofill token
            (naming the nearest one), or it does not fit the field.
    """
    own = own_extra(extra)
    if "autocomplete" not in own:
        return None
    token = own["autocomplete"]
    if not isinstance(token, str):
        raise FieldProblem(
            f'json_schema_extra={{"autocomplete": ...}} takes an HTML autofill token such as '
            f'"postal-code" or "off", not a {type(token).__name__}; fix it'
        )
    words = token.split()
    if token != " ".join(words) or not is_token(words):
        shown = token[:60]
        nearest = nearest_token(shown)
        raise FieldProblem(
            f"the autocomplete token {shown!r} is not one of the HTML standard's autofill tokens"
            + (f"; the nearest is {nearest!r}" if nearest else "")
            + ' ("off" turns autofill off); fix it'
        )
    if checkbox:
        raise FieldProblem(
            "a yes/no or several-options field is shown as checkboxes, which take no "
            "autocomplete token; remove it"
        )
    if secret and words[-1 if words[-1] != "webauthn" else -2] not in SECRET_TOKENS:
        raise FieldProblem(
            "a secret field (a password input) takes only the autocomplete tokens "
            f"{', '.join(sorted(SECRET_TOKENS))}, so a browser never offers a saved ordinary value "
            f"into it nor keeps the secret as one, not {token!r}; declare one of those"
        )
    return token


def is_token(words: list[str]) -> bool:
    """Whether `words` (a token split at spaces, lower case) is what the HTML autofill grammar admits."""
    if words in (["off"], ["on"]):
        return True
    rest = list(words)
    if rest and rest[-1] == "webauthn":
        rest.pop()
    if rest and rest[0].startswith("section-") and len(rest[0]) > len("section-"):
        rest.pop(0)
    if rest and rest[0] in _ADDRESS_KINDS:
        rest.pop(0)
    if len(rest) == 2 and rest[0] in _CONTACT_KINDS:
        return rest[1] in CONTACT_NAMES
    return len(rest) == 1 and (rest[0] in FIELD_NAMES or rest[0] in CONTACT_NAMES)


def nearest_token(token: str) -> str | None:
    """The autofill field name nearest to `token`'s last word (`postcode` -> `postal-code`), or None."""
    last = token.lower().split()[-1] if token.split() else token
    known = sorted(FIELD_NAMES | CONTACT_NAMES | {"off", "on"})
    found = difflib.get_close_matches(last, known, n=1, cutoff=0.5)
    return found[0] if found else None


def declared_token(extra: object) -> str | None:
    """The `autocomplete` token `json_schema_extra` declares, or None (checked already by `checked_token`)."""
    token = cast("dict[str, object]", extra).get("autocomplete") if isinstance(extra, dict) else None
    return token if isinstance(token, str) else None


def declared_tokens(model: type[BaseModel]) -> dict[str, str]:
    """Wire name -> declared token of each of a form's fields that declares one (what an app view shows).

    The model was reduced already, so every token is checked.
    """
    tokens: dict[str, str] = {}
    for field_name, info in model.model_fields.items():
        token = declared_token(info.json_schema_extra)
        if token is not None:
            tokens[wire_name(field_name, info)] = token
    return tokens
