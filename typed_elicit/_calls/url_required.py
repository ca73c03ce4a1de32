"""`-32042` (URL elicitation required, 2025-11-25): a tool ends its call by sending the user to URLs.

Where `ctx.elicit_url` asks mid-call and waits, a tool may instead refuse the call at once with
the JSON-RPC error `-32042` listing the URL-mode elicitations the user must complete first; the
client runs them and calls the tool again. `url_required` builds that error, checked, as the
SDK's own `UrlElicitationRequiredError`, which the SDK sends as is; `typed_elicit.client`'s
`call_tool_with_urls` is the client half.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

from typed_elicit._calls.arguments import check_url_question
from typed_elicit.errors import ElicitArgumentError


@dataclass(frozen=True)
class UrlElicitation:
    """One URL the user must open before a call can go on (an entry of a `-32042` error).

    Attributes:
        url: An absolute https (or http) URL with a host and no credentials.
        message: Why, in words the user reads next to the URL.
        elicitation_id: The id the client matches `notifications/elicitation/complete`
            against (`ctx.complete_url`); a fresh uuid4 by default.
    """

    url: str
    message: str
    elicitation_id: str = field(default_factory=lambda: str(uuid.uuid4()))


def url_required(*elicitations: UrlElicitation, message: str | None = None) -> UrlElicitationRequiredError:
    """The `-32042` error that ends a call until the user has completed `elicitations`.

    Usage, in a tool: `raise url_required(UrlElicitation(url, "Sign in to Acme first"))`.
    The SDK sends it as the JSON-RPC error `-32042` with `data.elicitations`; a client
    (`typed_elicit.client.call_tool_with_urls`) opens the URLs and calls the tool again.
    Announce the end of a flow with `ctx.complete_url(elicitation_id)` if the call that
    finishes it is still running, or from your page's callback.

    Args:
        *elicitations: The URLs, at least one.
        message: The error's message; None says how many URLs are needed.

    Returns:
        The SDK's `UrlElicitationRequiredError`, ready to raise.

    Raises:
        ElicitArgumentError: If no elicitation is given, a URL is not an absolute http(s) URL
            with a host, carries credentials, or a message or id is empty.
    """
    if not elicitations:
        raise ElicitArgumentError(
            "url_required", "elicitations", "needs at least one UrlElicitation", "Pass the URL to open."
        )
    for e in elicitations:
        check_url_question(e.url, e.message, e.elicitation_id)
    params = [
        ElicitRequestURLParams(message=e.message, url=e.url, elicitation_id=e.elicitation_id)
        for e in elicitations
    ]
    return UrlElicitationRequiredError(params, message)
