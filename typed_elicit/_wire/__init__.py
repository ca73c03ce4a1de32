"""The form model both ends share: what a `requestedSchema` is, read and checked, and its rules.

- `spec`: the limits, `FieldSpec` and `FormSpec` (a form as both ends read it) and the check of
  an answer's content against it;
- `parse`: a requested schema, checked, into a `FormSpec` (the client half reads a server's
  schema with it; the server reads its own);
- `describe`: a field shown to a person (the terminal client, the fallback's question text);
- `rules`: the wire rules of each value (numbers, text, formats, sizes).

The server's reducer (`typed_elicit._forms`), the client half and the fallback import it; it
imports nothing of theirs.
"""
