"""A program written for 0.2: its imports still work in 0.3, each with a DeprecationWarning.

The old homes go in 0.4. docs/migration.md shows this file beside examples/migration_after.py,
the same program with 0.3's imports. Both print the same three lines.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit import SchemaError, configure, form
from typed_elicit.client import InvalidAnswer, parse_requested_schema
from typed_elicit.stores import InProcessClaimStore

server = MCPServer("shop")
configure(server, store=InProcessClaimStore())
print("one store for the server's single-use rounds")

try:

    @form
    class Limits(BaseModel):
        per_day: dict[str, int]

except SchemaError as problem:
    print(f"refused at definition: {problem.model_name}")

seats = parse_requested_schema(
    {"type": "object", "properties": {"seats": {"type": "integer", "maximum": 8}}, "required": ["seats"]}
)
try:
    seats.instance({"seats": 40})
except InvalidAnswer as problem:
    print(f"refused answer: {[name for name, _ in problem.errors]}")
