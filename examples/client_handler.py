"""A typed client: answer a server's questions with a function, validated before sending.

Run it from the repository root: it starts `examples/deployment_wizard.py` over stdio,
calls `deploy`, and answers both questions of the wizard in code.
"""

from __future__ import annotations

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent
from pydantic import BaseModel

from typed_elicit import Cancelled, Declined, ElicitResult
from typed_elicit.client import FormRequest, UrlAnswer, UrlRequest, elicitation_handler
from typed_elicit.errors import InvalidResponse as InvalidResponse

ANSWERS = {
    "environment": "staging",
    "cpu_cores": 2,
    "memory_gb": 4,
}


async def on_url(request: UrlRequest) -> UrlAnswer:
    """Never open a URL without a person's consent: decline in an unattended client."""
    print(f"declining to open {request.url}")
    return "decline"


async def on_form(request: FormRequest) -> ElicitResult[BaseModel]:
    """See the question, pick values by field name, let the schema's defaults fill the rest."""
    print(f"{request.server_name or 'the server'} asks: {request.message}")
    values = {field.name: ANSWERS[field.name] for field in request.form.fields if field.name in ANSWERS}
    if not values:
        return Cancelled()
    try:
        return request.accept(values)  # validated against the requested schema, defaults applied
    except InvalidResponse as problem:
        print(f"not sending an invalid answer: {problem}")
        return Declined()


answer = elicitation_handler(on_form, url=on_url)
"""The SDK's `elicitation_callback`: schemas are checked, answers validated, defaults applied."""


async def main() -> None:
    server = StdioServerParameters(command=sys.executable, args=["examples/deployment_wizard.py"])
    async with Client(server, elicitation_callback=answer) as client:
        result = await client.call_tool("deploy", {"app_name": "shop"})
        print(*(block.text for block in result.content if isinstance(block, TextContent)))


if __name__ == "__main__":
    anyio.run(main)
