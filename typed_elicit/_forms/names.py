"""A field's name on the wire, and the names that say it holds a secret.

`wire_name` is the one name an answer is keyed by (the validation alias, else the alias,
else the field name). Form mode MUST NOT collect secrets (MCP spec): `looks_secret` matches
whole words of a name (`api_key`, `cardNumber`, `otp`, ...), and `secret_fields` lists the
fields a page renders as password inputs. `item_noun` is what a page calls one row of a list of a model.
"""

from __future__ import annotations

import re
from typing import Final

from pydantic import BaseModel, SecretBytes, SecretStr
from pydantic.fields import FieldInfo

from typed_elicit._forms.fieldinfo import FieldProblem, field_shape
from typed_elicit._wire.spec import (
    MAX_NAME_LENGTH,
)


def wire_name(field_name: str, info: FieldInfo) -> str:
    """The one name answers to the field are keyed by: the validation alias, else the alias, else the name.

    Raises:
        FieldProblem: For an `AliasPath`/`AliasChoices` alias, or a name clients refuse.
    """
    alias = info.validation_alias
    if alias is not None and not isinstance(alias, str):
        raise FieldProblem(
            "AliasPath/AliasChoices validation aliases have no single wire name; use a plain `alias=`"
        )
    # The name answers are validated under, exactly: an empty alias is still the alias.
    name = alias if alias is not None else info.alias if info.alias is not None else field_name
    if not 0 < len(name) <= MAX_NAME_LENGTH or not name.isprintable():
        raise FieldProblem(
            f"the wire name {name[:40]!r} is not 1-{MAX_NAME_LENGTH} printable characters, which clients "
            "refuse; choose a plain alias"
        )
    return name


# Secret names, matched on whole words of a field's name and alias (split at `_`, `-`, digits'
# neighbours and camelCase humps), so `pinned`, `spin`, `shipping`, `topping` and `secretary`
# stay allowed. `session_id` is not among them: a conference session is no secret.
_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "passcode", "secret", "token", "apikey",
        "pin", "pincode", "otp", "totp", "hotp", "cvv", "cvv2", "cvc", "cvc2", "ssn", "iban",
        "creditcard", "cardnumber", "privatekey",
    }
)  # fmt: skip
_SECRET_RUNS = frozenset(
    {
        ("api", "key"), ("access", "key"), ("private", "key"), ("session", "key"),
        ("card", "number"), ("credit", "card"), ("security", "code"), ("verification", "code"),
        ("auth", "code"), ("mfa", "code"), ("social", "security"), ("one", "time", "code"),
    }
)  # fmt: skip


_RUN_TEXTS: Final = tuple(f"_{'_'.join(run)}_" for run in _SECRET_RUNS)
"""Each run as its words joined by `_` and enclosed in `_`: found in a name's words joined the same way."""
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def looks_secret(name: str) -> bool:
    """Whether a field name (or alias) says it holds a secret, by whole words (`api_key`, `cardNumber`)."""
    words = [w.lower() for w in _WORDS.findall(name)]
    joined = f"_{'_'.join(words)}_"
    return bool(_SECRET_WORDS.intersection(words)) or any(run in joined for run in _RUN_TEXTS)


URL_MODE_FIX = (
    "form mode MUST NOT collect passwords, API keys, tokens or payment data (MCP spec); "
    "send the user to a page of yours with URL mode instead (declare the model "
    "`@form(page=True)` and ask with `ctx.elicit_page`)"
)
"""The fix for a secret field of a form; a page form gets `page_form_fix` (it is declared already)."""


def page_form_fix(name: str) -> str:
    """The fix for a secret field of the page form `name`, met in form mode (`reduce_schema`)."""
    return (
        f"{name} is a page form (@form(page=True)): ask it with ctx.elicit_page, since form mode "
        "MUST NOT collect passwords, API keys, tokens or payment data (MCP spec)"
    )


def secret_fields(model: type[BaseModel]) -> frozenset[str]:
    """The wire names of `model`'s fields that hold secrets: `SecretStr`/`SecretBytes` or a secret name.

    The same test `ctx.elicit` refuses fields by; a page renders these as password
    inputs and never echoes their values back.
    """
    found: set[str] = set()
    for field_name, info in model.model_fields.items():
        key = info.alias if isinstance(info.alias, str) else field_name
        shape = field_shape(info)
        bare = shape.members[0] if shape.members else shape.annotation  # a union's first type
        if bare in (SecretStr, SecretBytes) or looks_secret(field_name) or looks_secret(key):
            found.add(key)
    return frozenset(found)


_HUMPS: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[a-z0-9]+")


def item_noun(model: type[BaseModel]) -> str:
    """What a row of a list of `model` is called (`Contact` in "Contact 2"): its title, else its name.

    GOV.UK's "add another" names a row by the item's noun: `PhoneNumber` -> `Phone number`,
    `HTTPHeader` -> `HTTP header`, `Entry[int]` -> `Entry`.
    """
    title = model.model_config.get("title")
    if title:
        return str(title)  # the developer's own text, as written (a catalog may translate it)
    name = model.__name__.split("[", 1)[0]  # a generic model's parameters (`Entry[int]`) are no noun
    words = _HUMPS.findall(name) or [name]
    first, rest = words[0], (word if word.isupper() else word.lower() for word in words[1:])
    return " ".join([first[:1].upper() + first[1:], *rest])
