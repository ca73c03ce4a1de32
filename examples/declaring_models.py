"""Declaring response models: what each annotation becomes on the wire.

Run it to print the wire schema of `Registration` for every protocol revision.
"""

from __future__ import annotations

import enum
import json
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, EmailStr, Field, field_validator

from typed_elicit import PROTOCOL_VERSIONS, Titles, form, reduce_schema


class Plan(str, enum.Enum):
    FREE = "free"
    PRO = "pro"


@form(message="Create your account")
class Registration(BaseModel):
    name: str = Field(min_length=1, max_length=60, title="Full name")
    email: EmailStr
    birthday: date | None = None  # optional: left out of `required`
    seats: int = Field(default=1, ge=1, le=50)
    plan: Annotated[Plan, Titles({Plan.FREE: "Free", Plan.PRO: "Professional"})] = Plan.FREE
    topics: list[Literal["news", "releases", "security"]] = Field(default=[], max_length=3)
    terms: bool = Field(description="I accept the terms of service")
    handle: str = Field(pattern=r"^[a-z0-9_]{3,15}$")  # pattern is enforced on arrival, not sent

    @field_validator("terms")
    @classmethod
    def must_accept(cls, value: bool) -> bool:
        if not value:
            raise ValueError("the terms must be accepted")
        return value


def main() -> None:
    """Print the wire schema for each revision (2025-06-18 has no multi-select)."""
    for version in PROTOCOL_VERSIONS[1:]:
        print(version, json.dumps(reduce_schema(Registration, protocol_version=version), indent=2))


if __name__ == "__main__":
    main()
