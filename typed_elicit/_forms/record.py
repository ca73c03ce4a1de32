"""`Reduced`: everything the server needs to ask about one model on one revision, computed once.

The record a question carries: its `requestedSchema`, the digest a 2026-07-28 answer is
pinned to, and for a question shaped at call time, the defaults filled in and the options
offered. Built by `typed_elicit._forms.reduce.reduced` (cached per model and revision in
the registry) and `typed_elicit._forms.shaping.shaped` (per question, never cached).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mcp_types import ElicitRequestFormParams

from typed_elicit._core.digests import schema_digest
from typed_elicit._core.eras import has_primitive_defaults
from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._forms.fieldinfo import ordered
from typed_elicit._wire.parse import parse_requested_schema
from typed_elicit._wire.spec import FormSpec

if TYPE_CHECKING:
    from typed_elicit._forms.page.tree import PageTree

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


_NOTHING: Mapping[str, Any] = types.MappingProxyType({})


@dataclass(frozen=True, eq=False)
class Reduced:
    """Everything the server needs to ask about one model on one revision, computed once.

    Holds no reference to the model class (the registry keeps it in the class's blueprint, weakly).
    """

    protocol_version: ProtocolVersion
    schema: dict[str, Any]
    """The `requestedSchema`, as `reduce_schema` returns it (read-only)."""
    digest: str
    """`schema_digest(schema)`: what a recorded 2026-07-28 answer is pinned to."""
    fill: Mapping[str, Any] = dataclasses.field(default_factory=lambda: _NOTHING)
    """Wire name -> wire value filled in for a field the answer leaves out (per-question defaults)."""
    offered: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=lambda: _NOTHING)
    """Wire name of each `Choices()` field -> the option values this question offered."""
    kinds: FormSpec | None = None
    """A form with this one's fields, kinds and formats, shared by every question about the model
    (a shaped record's own `form` costs a pydantic model per question); None: use `form`."""
    tree: PageTree | None = None
    """A page form with groups (`typed_elicit._forms.page.tree`): its tree, which answers are checked
    against; `schema` and `form` then hold the page's own leaves only. None for a flat form."""

    @cached_property
    def form(self) -> FormSpec:
        """The schema parsed as both ends read it (built on first use: it costs a pydantic model)."""
        return parse_requested_schema(self.schema, cached=False)

    @cached_property
    def field_count(self) -> int:
        """How many fields the form has: more keys than this in an answer is refused uncounted."""
        return len(self.schema["properties"])

    @cached_property
    def with_dialect(self) -> dict[str, Any]:
        """The schema with `"$schema"` first (`reduce_schema(..., include_dialect=True)`)."""
        return {"$schema": JSON_SCHEMA_DIALECT, **self.schema}

    def prefilled(self, values: Mapping[str, Any]) -> Reduced:
        """This record's form with `values` (wire name -> wire value) as the fields' defaults.

        What a re-ask shows: the valid part of the last answer filled in. Only fields the
        revision lets carry a default are filled (booleans alone on 2025-06-18); which
        fields are required does not change, nor does anything get filled in on arrival.

        Args:
            values: Checked wire values of fields of this form.

        Returns:
            A record for showing only (its digest is its schema's, not the question's).
        """
        properties = dict(self.schema["properties"])
        for key, value in values.items():
            prop = properties[key]
            if has_primitive_defaults(self.protocol_version) or prop.get("type") == "boolean":
                properties[key] = ordered({**prop, "default": value})
        schema = {**self.schema, "properties": properties}
        return Reduced(
            self.protocol_version, schema, schema_digest(schema), self.fill, self.offered, self.kinds
        )

    def params(self, message: str) -> ElicitRequestFormParams:
        """The form request's params.

        Validated, not `model_construct`ed: pydantic-core validates these two fields in
        Rust faster than `model_construct` assembles the object in Python.
        """
        return ElicitRequestFormParams(message=message, requested_schema=self.schema)
