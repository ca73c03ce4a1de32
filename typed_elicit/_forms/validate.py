r"""Re-validation of an accepted answer against the model that asked for it.

The rules, applied in this order:

1. Missing content (`accept` without `content`) counts as `{}`: every field the
   user left out takes its model default, and a missing required field is an error.
2. A key the form did not ask for is an error: clients must answer the form they
   were shown, and a stray key is more likely a confused client than data to keep.
   An answer with more keys than the form has fields is refused whole, with one
   problem counting them (none is read: the work stays bounded by the form).
3. A `null` value counts as left out (the wire schema has no null).
4. Each value must have the wire type of its field's kind in the `FormSpec` parsed
   from the schema, the form model the client half builds too (`typed_elicit._wire.spec`),
   checked by the rules both ends share (`typed_elicit._wire.rules`), so both ends agree:

   - A `boolean` field takes only `true`/`false` (never `1`, `"true"` or `"yes"`).
   - A number field (`number` or `integer`) takes a number, never a boolean (`True`
     never becomes `1`), and that number must be finite (no NaN, no infinity) with a
     magnitude a 64-bit float can hold (below about 1.8e308: `1e400` and an integer
     of 310 digits are refused), so every accepted number survives `repr`, JSON and
     float conversion. Because some clients send numbers as strings, a number field
     also takes a string holding exactly one JSON number, matching
     `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` with nothing around it: `"42"`
     and `"-1.5e3"` count, `" 7 "`, `"1_000"`, `"+1"`, `"01"`, `"NaN"` and
     `"Infinity"` do not; a string is read as a JSON parser reads it (`"1e-400"` is
     0.0). An `integer` field also needs an integral value (`2.0`, `"1e3"` and
     `"0e99999999999999999999"` count, `2.5` does not).
   - A string field takes only strings, and only valid Unicode text (no lone
     surrogates). A `date` field takes only an RFC 3339 `full-date` (`2026-07-28`),
     a `date-time` field only an RFC 3339 `date-time` with seconds and an offset
     (`2026-07-28T09:30:00Z`); these are checked before the model because pydantic
     reads much more (`"0"` and `"1700000000"` as Unix timestamps, a date as a
     date-time). An `email` field takes what pydantic's `EmailStr` takes, a `uri`
     field an absolute URI (a scheme, `:`, no whitespace); the model's own type
     (`EmailStr`, `AnyUrl`, `HttpUrl`, ...) then judges it too, so the server never
     takes a value the client half would refuse, and may refuse more (`HttpUrl`
     refuses `mailto:`): such an answer is asked again like any other invalid one.
   - A multi-select (`array`) field takes a list of strings, each valid Unicode text,
     and no more of them than it has options (checked first; `maxItems` is the model's).
5. A question shaped at call time (`ctx.elicit(..., options=..., defaults=...)`, see
   `validate_answer`): a field left out (or null) that has a per-question default gets
   it, and a `Choices()` field's value (each item, for a multi-select) must be one of
   the options that question offered, as the model's plain `str` would take any text.
6. The model then validates the result, including every constraint that does not
   travel on the wire (patterns, validators, `multiple_of`, cross-field checks).

Any failure raises `InvalidResponse`, and nothing else: one `(field path, message)`
pair per problem and the raw content as received (`content`). The messages name
fields and problems, never the answer's values (a wrong value is described by its
kind: "expected a number, got a string"); pydantic's messages are used without its
`input`, and every text is bounded (see `InvalidResponse`), so the re-ask message
built from them stays small whatever the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from typed_elicit._forms.reduce import Reduced, form_of
from typed_elicit._wire.spec import FormSpec, check_content, field_path, not_offered
from typed_elicit.errors import InvalidResponse

M = TypeVar("M", bound=BaseModel)


def validate_content(model: type[M], schema: Mapping[str, Any], content: Mapping[str, Any] | None) -> M:
    """Validate accepted `content` against the form `schema` describes, then against `model`.

    The form is the `FormSpec` both ends share (`typed_elicit._wire.spec`), the reducer's
    record for `model` and `schema` (`typed_elicit._forms.reduce.form_of`): rules 1 to 4 of
    this module's docstring are its `check_content`, rule 6 is the model.

    Args:
        model: The model the question was asked with.
        schema: The `requestedSchema` the client was shown.
        content: The content of the client's `accept`, possibly None.

    Returns:
        The validated model instance.

    Raises:
        InvalidResponse: If the content breaks any rule in this module's docstring.
        RequestedSchemaError: If `schema` is no valid elicitation schema (a programmer
            mistake; never for a schema `reduce_schema` returned).
    """
    return validate_form(model, form_of(model, schema), content, content)


def validate_answer(
    model: type[M], record: Reduced, content: Mapping[str, Any] | None, *, keep: bool = True
) -> M:
    """Validate accepted `content` against the question `record` describes, then against `model`.

    As `validate_content`, for a record from `reduced` or `shaped`: a field the answer
    leaves out (or sends as null) that has a per-question default gets it
    (`Reduced.fill`), and each `Choices()` field's value must be one of the options
    that question offered (`Reduced.offered`), whatever the model's `str` would take.

    Args:
        model: The model the question was asked with.
        record: The record of the question the client was shown.
        content: The content of the client's `accept`, possibly None.
        keep: Keep `content` in the `InvalidResponse` (False for a page's answer, which may
            hold secrets: the error then keeps nothing).

    Returns:
        The validated model instance.

    Raises:
        InvalidResponse: If the content breaks any rule in this module's docstring, or
            a `Choices()` field holds an option the question did not offer.
    """
    raw = content if keep else None
    if record.tree is not None:  # a page form: checked with its tree (its rules loaded with it)
        from typed_elicit._forms.page.check import check_tree, dotted

        cleaned, problems = check_tree(record.tree, content)
        return _validated(model, cleaned, problems, raw, lambda loc: dotted(loc) or "(form)")
    form = record.kinds or record.form
    filled = content
    if record.fill and (content is None or len(content) <= len(form.by_name)):  # else refused whole
        given = {k: v for k, v in (content or {}).items() if v is not None}
        filled = {**record.fill, **given}
    return validate_form(model, form, filled, raw, record.offered)


def validate_form(
    model: type[M],
    form: FormSpec,
    content: Mapping[str, Any] | None,
    raw: Mapping[str, Any] | None = None,
    offered: Mapping[str, frozenset[str]] | None = None,
) -> M:
    """Check `content` against `form` (and the `offered` options), then validate it with `model`.

    The path every flat form's answer takes (`validate_content`, `validate_answer`).

    Args:
        model: The model asked for.
        form: The form the answer must fit.
        content: The answer's fields.
        raw: What `InvalidResponse.content` keeps (None: nothing, as a page keeps no secret).
        offered: Per `Choices()` field, the options the question offered.

    Returns:
        The validated model instance.

    Raises:
        InvalidResponse: Naming each field's problem (paths and rules, no values).
    """
    cleaned, problems = check_content(form, content, offered)
    problems.extend(not_offered(cleaned, offered or {}))
    return _validated(model, cleaned, problems, raw, field_path)


def _validated(
    model: type[M],
    cleaned: dict[str, Any],
    problems: list[tuple[str, str]],
    raw: Mapping[str, Any] | None,
    path: Callable[[Sequence[int | str]], str],
) -> M:
    """`cleaned` validated with `model` if there are no `problems` yet; its errors placed by `path`.

    Raises:
        InvalidResponse: Naming each problem (paths and rules, no values).
    """
    if not problems:
        try:
            return model.model_validate(cleaned)
        except ValidationError as exc:
            problems = [
                (path(error["loc"]), error["msg"])
                for error in exc.errors(include_url=False, include_context=False, include_input=False)
            ]
    raise InvalidResponse(model.__name__, problems, raw)
