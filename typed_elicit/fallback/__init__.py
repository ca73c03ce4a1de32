"""The LLM-mediated fallback: ask through the model when the client cannot elicit.

`install_fallback(server)` registers the companion tool that `on_unsupported="fallback"`
needs: a question the client cannot be asked ends the call with a result that asks the model
to put it to the user and to send the answer back through the companion, with a sealed,
single-use token; the companion runs the tool again with the answer. Also importable as
`typed_elicit.install_fallback`.
"""

from typed_elicit._core.faces import publish
from typed_elicit.fallback._companion import install_fallback

__all__ = ["install_fallback"]

publish(__name__, globals(), __all__)
