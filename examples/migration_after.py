"""The same program as examples/migration_before.py, with 0.3's imports: no warning.

docs/migration.md shows the two files side by side. Both print the same three lines.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit import form
from typed_elicit.client import parse_requested_schema
from typed_elicit.errors import InvalidResponse, SchemaError
from typed_elicit.stores import InProcessStore, configure

server = MCPServer("shop")
configure(server, store=InProcessStore())
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
except InvalidResponse as problem:
    print(f"refused answer: {[name for name, _ in problem.errors]}")
