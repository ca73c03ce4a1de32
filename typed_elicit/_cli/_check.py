"""`typed-elicit schema` and `typed-elicit check`: what models become on the wire, and what cannot."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from pydantic import BaseModel

from typed_elicit._errors import SchemaError
from typed_elicit._reducer import deferring_schema_errors, reduce_schema, schema_problems
from typed_elicit._versions import ProtocolVersion

from ._common import EXIT_OK, EXIT_PROBLEMS
from ._load import (
    elicits_functions_in,
    forms_in,
    load_model,
    load_module,
    misplaced_fallbacks,
    models_of,
    module_label,
    walk,
)


def run_schema(target: str, protocol: ProtocolVersion, dialect: bool, out: TextIO) -> int:
    """Print the wire schema of one model.

    Raises:
        UsageError: `target` names no model.
        SchemaError: The model cannot be elicited on `protocol`.
    """
    model = load_model(target)
    schema = reduce_schema(model, protocol_version=protocol, include_dialect=dialect)
    out.write(json.dumps(schema, indent=2) + "\n")
    return EXIT_OK


def run_check(targets: Sequence[str], protocols: Sequence[ProtocolVersion], out: TextIO) -> int:
    """Reduce the models of the given modules (and their submodules) on each revision.

    The models are those declared with `@form` and those named in `@elicits(...)`
    (with or without `@form`). Also reports `@elicits(on_unsupported="fallback")` on a
    prompt or resource template registered on a module's `MCPServer`. Inside the check
    (`deferring_schema_errors`, scoped to this context) a bad model does not stop its
    module's import, so every bad model of every module is listed in one run.

    Raises:
        UsageError: A target does not exist or fails to import for another reason.
    """
    problems: list[str] = []
    models: dict[type[BaseModel], None] = {}
    for target in targets:
        with deferring_schema_errors() as deferred:
            try:
                for module in walk(load_module(target)):
                    models.update(dict.fromkeys(forms_in(module)))
                    for function in elicits_functions_in(module):
                        models.update(dict.fromkeys(models_of(function)))
                    problems.extend(misplaced_fallbacks(module))
            except SchemaError as exc:  # raised by the module's own code, not by a declaration
                problems.extend(f"{target}: {line}" for line in exc.problems)
        models.update(dict.fromkeys(deferred))
    for model in models:
        where = f"{module_label(model)}:{model.__qualname__}"
        seen: dict[str, list[str]] = {}
        for protocol in protocols:
            for line in schema_problems(model, protocol_version=protocol):
                seen.setdefault(line, []).append(protocol)
        problems.extend(f"{where} [{', '.join(revs)}]: {line}" for line, revs in seen.items())
    for line in problems:
        out.write(f"{line}\n")
    count = len(problems)
    out.write(
        f"checked {len(models)} form model(s) on {', '.join(protocols)}: "
        f"{count} problem{'s' if count != 1 else ''}\n"
    )
    return EXIT_PROBLEMS if problems else EXIT_OK
