"""What every command shares: exit codes, help texts and the command line's own error."""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_PROBLEMS: Final = 1
EXIT_USAGE: Final = 2
EXIT_CONNECTION: Final = 3
EXIT_INTERRUPTED: Final = 130

EXIT_CODES_HELP: Final = """exit codes:
  0    success
  1    problems found: schema errors (check, schema), no model in a module (check),
       or a tool error (call, demo)
  2    usage error: bad arguments, or no such module, model, example, server, factory
       or tool
  3    the server could not be reached or broke the protocol
  130  interrupted"""
ANSWERS_HELP: Final = """answers (--answer FIELD=VALUE, repeatable; FIELD is the field's name on the wire):
  text, one choice   --answer name=Ada  --answer environment=staging  (as typed; a choice
                     takes the option's value, not its title)
  number, yes/no     --answer cpu_cores=4  --answer auto_scale=true  (JSON)
  several choices    --answer extras=wifi,bag  or  --answer 'extras=["wifi","bag"]'
                     (option values, comma-separated or a JSON array; extras= picks none)
A required field without an answer is declined"""

OPTIONS_HELP: Final = """options (--option FIELD=..., repeatable; FIELD is a Choices() field's Python name):
  values             --option account=acc-1,acc-2
  values and titles  --option account=acc-1=Checking,acc-2=Savings  (every option titled or none)
  JSON               --option 'account=["a,1","b"]'  or  --option 'account={"a=1": "A"}'
A Choices() field without --option is printed without options (a note says so)"""


class UsageError(Exception):
    """The command line names something that does not exist or cannot be used.

    Not a `TypedElicitError`: it is the command's own error about its arguments, printed
    with exit code 2, never raised by the library.
    """
