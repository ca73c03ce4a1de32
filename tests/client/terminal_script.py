"""Run one terminal form in a real terminal for test_terminal.py; prints `RESULT ...` at the end.

Usage: python tests/client/terminal_script.py form '<requested schema as JSON>' ['<message>']
       python tests/client/terminal_script.py url '<url>' ['<message>']
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams

from typed_elicit import Accepted
from typed_elicit.client import FormRequest, UrlRequest
from typed_elicit.client._handler import read_request
from typed_elicit.client._terminal import TerminalForms

MESSAGE = "Set up \x1b[31mthe\x1b[0m trip"


async def main(mode: str, argument: str, message: str = MESSAGE) -> None:
    forms = TerminalForms()
    if mode == "url":
        request = read_request(None, ElicitRequestURLParams(message=message, url=argument))
        assert isinstance(request, UrlRequest)
        print("RESULT", await forms.url(request))
        return
    request = read_request(
        None, ElicitRequestFormParams(message=message, requested_schema=json.loads(argument))
    )
    assert isinstance(request, FormRequest)
    outcome = await forms.form(request)
    if isinstance(outcome, Accepted):
        print("RESULT", json.dumps(request.form.content(outcome.data)))
    else:
        print("RESULT", type(outcome).__name__)


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4])
