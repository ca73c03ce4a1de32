"""Declaring forms: a Pydantic model in, the spec's restricted `requestedSchema` out, and back.

The reducer, field by field: `fieldinfo` (reading a field's annotation), `names` (wire names,
secret names), `options` (`Literal`/`Enum` options, `Titles`, multi-selects, `Choices()`),
`defaults` (defaults, and the field's own validation), `fields` (one field to one wire
property); a whole model: `layout` (reduced once, rendered per revision), `record`
(`Reduced`, the record of one question), `registry` (one `Blueprint` per model class, held
weakly), `shaping` (questions shaped per call); its face: `reduce` (`@form`, `reduce_schema`).

The form model both ends share: `spec` (limits, `FieldSpec`, `FormSpec`, the content
check), `parse` (a requested schema, checked, into a `FormSpec`), `describe` (a field shown
to a person, values that fit it), `wire` (the wire rules), `validate` (an answer checked
against the form and the model).
"""
