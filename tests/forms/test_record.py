"""The reducer's record: one per model and revision, computed once, gone with its model."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from tests.wire.test_spec import SingleKinds
from typed_elicit import reduce_schema
from typed_elicit._core.versions import PROTOCOL_VERSIONS


def test_the_reducer_keeps_one_record_per_model_and_revision():
    from typed_elicit._core.digests import schema_digest
    from typed_elicit._forms.reduce import reduced

    for version in PROTOCOL_VERSIONS:
        record = reduced(SingleKinds, version)
        assert reduced(SingleKinds, version) is record
        assert record.schema is reduce_schema(SingleKinds, protocol_version=version)
        assert record.digest == schema_digest(dict(record.schema))  # a copy: the digest is of the content
        assert record.form is record.form
        assert [spec.name for spec in record.form.fields] == list(SingleKinds.model_fields)
        params = record.params("Tell me")
        assert params.message == "Tell me"
        assert params.requested_schema == record.schema
        assert reduce_schema(SingleKinds, protocol_version=version, include_dialect=True) == {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            **record.schema,
        }


def test_a_model_class_that_goes_away_takes_its_records_along():
    import gc
    import weakref

    from typed_elicit._forms.reduce import reduced
    from typed_elicit._forms.registry import known

    def make() -> weakref.ref[type[BaseModel]]:
        class Passing(BaseModel):
            name: str

        for version in PROTOCOL_VERSIONS:
            reduced(Passing, version).form  # noqa: B018  (the form too)
        assert known(Passing) is not None
        return weakref.ref(Passing)

    gone = make()
    gc.collect()
    assert gone() is None


def test_the_record_refuses_an_unknown_revision_with_a_value_error():
    from typed_elicit._forms.reduce import reduced

    with pytest.raises(ValueError, match=r"'2024-11-05' has no elicitation; pass one of"):
        reduced(SingleKinds, "2024-11-05")  # type: ignore[arg-type]
