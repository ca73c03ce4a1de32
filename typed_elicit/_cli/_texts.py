"""`typed-elicit catalogs texts`: the developer's own texts of their forms, as a catalog template.

Pages, app views and the terminal show a form's message, titles, descriptions and option titles
as the developer wrote them; `Languages(catalogs=..., domain=...)` translates them from the
developer's own catalogs. This writes those texts (`.pot`) from the models of the modules given,
as `typed-elicit check` finds them (`@form` models, models named in `@elicits`), nested models
and all: the developer then starts, translates and compiles each language with Babel
(`pybabel init`, `pybabel compile`).
"""

from __future__ import annotations

import io
import sys
import typing
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel

from typed_elicit._forms.options import find_titles
from typed_elicit._forms.registry import form_message

from ._common import EXIT_OK, EXIT_PROBLEMS
from ._load import elicits_models_in, forms_in, load_module, module_label, walk


def texts_of(models: Sequence[type[BaseModel]]) -> dict[str, list[str]]:
    """Every text a person reads of `models`, with where each is said (`Booking.name title`).

    The form's message (when the model gives one: `@form(message=...)` or its docstring), the
    model's and each field's title and description, the titles of its options (`Titles`), and
    the same of every model a field holds (a page form's groups and rows). Never the automatic
    hints (the library words those) nor option values.
    """
    found: dict[str, list[str]] = {}
    seen: set[type[BaseModel]] = set()

    def add(text: object, where: str) -> None:
        if isinstance(text, str) and text.strip():
            found.setdefault(text, []).append(where)

    def visit(model: type[BaseModel], where: str) -> None:
        if model in seen:
            return
        seen.add(model)
        add(model.model_config.get("title"), f"{where} title")
        for name, info in model.model_fields.items():
            here = f"{where}.{name}"
            add(info.title, f"{here} title")
            add(info.description, f"{here} description")
            titles = find_titles(list(info.metadata))
            for title in titles.titles.values() if titles is not None else ():
                add(title, f"{here} option")
            for inner in _models_in(info.annotation):
                visit(inner, here)

    for model in models:
        message = form_message(model)
        if message != f"Please provide {model.model_config.get('title') or model.__name__}.":
            add(message, f"{model.__qualname__} message")  # the library's default is its own word
        visit(model, model.__qualname__)
    return found


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    """The models an annotation holds: itself, or inside `list[...]`, `X | None`, `Annotated[...]`, ..."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)


def run_texts(targets: Sequence[str], out_path: Path | None, out: TextIO) -> int:
    """Write the template of the developer's texts of `targets` to `out_path` (or `out`).

    Returns:
        The exit code: 1 if the modules hold no model.

    Raises:
        UsageError: A target does not exist or fails to import.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    found: dict[type[BaseModel], None] = {}  # the models, as `typed-elicit check` finds them
    for target in targets:
        for module in walk(load_module(target)):
            found.update(dict.fromkeys(forms_in(module)))
            found.update(dict.fromkeys(elicits_models_in(module)))
    models = list(found)
    if not models:
        sys.stderr.write(f"no @form or @elicits model in {', '.join(targets)}\n")
        return EXIT_PROBLEMS
    pot = Catalog(project=", ".join(targets), fuzzy=False)
    for text, where in texts_of(models).items():
        pot.add(text, auto_comments=[", ".join(where)])
    buffer = io.BytesIO()
    write_po(buffer, pot, width=100, no_location=True, omit_header=out_path is None)
    if out_path is None:
        out.write(buffer.getvalue().decode("utf-8"))
    else:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_bytes(buffer.getvalue())
        labels = sorted({module_label(model) for model in models})
        out.write(f"wrote {out_path}: {len(pot)} texts of {len(models)} models in {', '.join(labels)}\n")
    return EXIT_OK
