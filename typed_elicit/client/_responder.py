"""A non-interactive responder for CI: answers from given values, then schema defaults."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types
from mcp.client import ClientRequestContext

from typed_elicit._wire.describe import example_value
from typed_elicit._wire.parse import show_value
from typed_elicit._wire.spec import ContentValue, FieldSpec
from typed_elicit.client._handler import FormRequest, read_request, redacted_url, schema_error_reply
from typed_elicit.errors import InvalidResponse, RequestedSchemaError

logger = logging.getLogger("typed_elicit.responder")


@dataclass(frozen=True)
class ResponderEntry:
    """What the responder did with one question."""

    message: str
    """The server's message."""
    action: Literal["accept", "decline", "error"]
    """`error` means the schema was unusable and the server got a JSON-RPC error."""
    content: dict[str, ContentValue] | None = None
    """What was sent, for an accepted form."""
    reason: str | None = None
    """Why the responder declined or refused."""


class Responder:
    """Answers every elicitation without a person, for CI and scripts.

    A form field takes its value from `values` (by wire name), else from the schema's
    `default`; an optional field with neither is left out. When a required field has
    neither, or the values do not fit the schema, the responder declines and records
    why. URL-mode requests are declined: no one is there to open the URL.

    Pass an instance as `mcp.Client(..., elicitation_callback=responder)`; read
    `responder.log` afterwards.

    Example:
        ```python
        responder = Responder({"environment": "staging", "confirm": True})
        async with Client(server, elicitation_callback=responder) as client:
            await client.call_tool("deploy", {})
        assert responder.log[-1].action == "accept"
        ```
    """

    def __init__(self, values: Mapping[str, Any] | None = None, *, invent: bool = False) -> None:
        """Create a responder.

        Args:
            values: Answers by field name, used for any form that has that field.
            invent: Make up a plausible value for a required field that has neither a
                given value nor a default, instead of declining (for demos, not CI).
        """
        self.values: dict[str, Any] = dict(values or {})
        self.invent = invent
        self.log: list[ResponderEntry] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """Answer one request; the SDK's `elicitation_callback` signature."""
        return self.respond(params, context)

    def respond(
        self, params: types.ElicitRequestParams, context: ClientRequestContext | None = None
    ) -> types.ElicitResult | types.ErrorData:
        """Answer one request synchronously and record the decision in `log`.

        Args:
            params: The request's parameters.
            context: The SDK's request context, when there is one.

        Returns:
            The result to send, or a -32602 error for an unusable schema.
        """
        try:
            request = read_request(context, params)
        except RequestedSchemaError as exc:
            self.log.append(ResponderEntry(params.message, "error", reason=str(exc)))
            return schema_error_reply(exc)
        if not isinstance(request, FormRequest):
            where = redacted_url(request.url)
            return self._decline(request.message, f"URL-mode request for {where}: no one is here to open it")
        answer = {
            spec.name: self.values[spec.name] for spec in request.form.fields if spec.name in self.values
        }
        unanswered = [
            spec
            for spec in request.form.fields
            if spec.required and not spec.has_default and spec.name not in self.values
        ]
        if self.invent:
            answer.update((spec.name, plausible_value(spec)) for spec in unanswered)
            unanswered = []
        missing = [f"{spec.name} ({spec.title})" if spec.title else spec.name for spec in unanswered]
        if missing:
            return self._decline(
                request.message,
                f"no value for required field(s) {', '.join(missing)}; {self._how_to_answer(unanswered)}",
            )
        try:
            content = request.form.content(answer)
        except InvalidResponse as exc:
            return self._decline(request.message, str(exc))
        self.log.append(ResponderEntry(request.message, "accept", content=content))
        logger.debug(
            "accepted %s with fields %s", show_value(request.message), ", ".join(content) or "(none)"
        )
        return types.ElicitResult(action="accept", content=dict(content))

    def _how_to_answer(self, fields: Sequence[FieldSpec]) -> str:
        """How whoever runs this responder gives values for `fields` (a subclass names its own knob)."""
        names = ", ".join(f"{spec.name!r}: ..." for spec in fields)
        return f"give them in the Responder's values: Responder({{{names}}})"

    def _decline(self, message: str, reason: str) -> types.ElicitResult:
        self.log.append(ResponderEntry(message, "decline", reason=reason))
        logger.warning("declined %s: %s", show_value(message), reason)
        return types.ElicitResult(action="decline")


plausible_value = example_value
"""A value that fits a field, for demos: one that passes the field's checks, when any value does."""
