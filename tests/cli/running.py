"""What the command's tests share: running it in process, the checkout, and small modules to point it at."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect

from typed_elicit._cli import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


ROOT = Path(__file__).resolve().parents[2]


CLI = [sys.executable, "-m", "typed_elicit._cli"]


WIZARD = f"{sys.executable} examples/deployment_wizard.py"


INTEROP = f"{sys.executable} tests/peers/servers/interop_server.py"


GOOD_FORMS = """
from pydantic import BaseModel
from typed_elicit import form

@form
class Fine(BaseModel):
    name: str
"""


BAD_ON_OLD_CLIENTS = """
from typing import Literal
from pydantic import BaseModel, Field
from typed_elicit import form

@form
class Topics(BaseModel):
    topics: list[Literal["a", "b"]] = Field(default_factory=list)
"""


BAD_AT_IMPORT = """
from pydantic import BaseModel
from typed_elicit import form

@form
class Nested(BaseModel):
    inner: dict[str, int]
    also: list[dict[str, int]]

@form
class Login(BaseModel):
    password: str
"""


def pty_env() -> dict[str, str]:
    """The terminal's environment, in English whatever the machine's language (the prompts follow it)."""
    quiet = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    return {**quiet, "LANG": "C.UTF-8", "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}


def answer_wizard(
    child: pexpect.spawn, *, environment: str, cpu: str, memory: str, who: str = "deployment-wizard"
) -> None:
    child.expect(rf"{who} asks:")
    child.expect(r"Select deployment environment")
    child.expect(r"Answer\?")
    child.sendline("")
    child.expect(r"1\) staging")
    child.expect(r"2\) production")
    child.expect(r"environment:")
    child.sendline(environment)
    child.expect(r"Configure resources for")
    child.expect(r"Answer\?")
    child.sendline("y")
    child.expect(r"cpu_cores:")
    child.sendline("0")
    child.expect(r"Enter 1 or more; try again")
    child.sendline(cpu)
    child.expect(r"memory_gb:")
    child.sendline(memory)
    child.expect(r"auto_scale \[n\]:")
    child.sendline("")
