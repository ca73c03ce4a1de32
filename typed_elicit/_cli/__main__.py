"""`python -m typed_elicit._cli`: the `typed-elicit` command."""

from ._parser import run

run()
