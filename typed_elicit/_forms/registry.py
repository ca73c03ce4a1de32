"""The registry: one `Blueprint` per model class, everything the reducer knows about it, held weakly.

One weak mapping, model class -> `Blueprint`, replaces every per-class cache: what `@form`
declared (the default message, whether it is a page form), the model's `Layout` (reduced
once), its `Reduced` record per revision, its page record, and the form its shaped questions'
answers are checked with. A class that goes away takes its blueprint along: nothing in a
blueprint refers to the class (a value of a weak-keyed mapping that did would keep its key
alive), so neither the schemas, the forms built from them, nor anything compiled from the
class (its field validators are built per use, never kept) is stored here.

Also here, because it reads the declaration: the message rule (`form_message`).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from pydantic import BaseModel

from typed_elicit._core.versions import ProtocolVersion
from typed_elicit._forms.layout import Layout, lay_out, require_model
from typed_elicit._forms.record import Reduced
from typed_elicit._wire.spec import FormSpec

if TYPE_CHECKING:
    from typed_elicit._forms.page.tree import PageTree


class Blueprint:
    """The registry's record of one model class: its declaration and what was made from it, once.

    Filled in as it is first needed; holds no reference to the class. A plain class: a
    dataclass here costs `import typed_elicit` more.
    """

    __slots__ = (
        "app",
        "declared",
        "kinds",
        "layout",
        "message",
        "page",
        "page_record",
        "page_tree",
        "records",
    )

    def __init__(self) -> None:
        self.declared = False
        """Declared with `@form` (or `@form(...)`)."""
        self.message: str | None = None
        """`@form(message=...)`, the default message of a question about the model."""
        self.page = False
        """Declared with `@form(page=True)` (secret fields allowed, asked on a page only)."""
        self.layout: Layout | None = None
        """The model reduced for form mode (`reduced`, `shaped`); None until first reduced."""
        self.records: dict[ProtocolVersion, Reduced] = {}
        """The record of a question about the model, per revision (`reduced`)."""
        self.page_record: Reduced | None = None
        """The record of a page question about the model (`page_reduced`)."""
        self.page_tree: PageTree | None = None
        """A page form's tree (`tree_of`; its `layout` is what `shaped(page=True)` starts from)."""
        self.kinds: dict[ProtocolVersion, FormSpec] = {}
        """Per revision (None: a page's), the form a shaped question's answer is checked with."""
        self.app: object = None
        """`@form(app=...)`: None, or what `typed_elicit.apps` shows the model with (opaque here)."""


_REGISTRY: weakref.WeakKeyDictionary[type[BaseModel], Blueprint] = weakref.WeakKeyDictionary()
"""Model class (weakly) -> its blueprint: the reducer's only per-class state."""


def blueprint(model: type[BaseModel]) -> Blueprint:
    """The blueprint of `model`, made (empty) on first use.

    Raises:
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    record = known(model)
    if record is None:
        require_model(model)
        record = _REGISTRY[model] = Blueprint()
    return record


def known(model: type[BaseModel]) -> Blueprint | None:
    """The blueprint of `model` if it has one (None for anything else, a non-class included)."""
    try:
        return _REGISTRY.get(model)
    except TypeError:
        return None


def cached_record(model: type[BaseModel], version: ProtocolVersion) -> Reduced | None:
    """The record `reduced(model, version)` made already, if any (the hot path: two lookups)."""
    try:
        return _REGISTRY[model].records.get(version)
    except (KeyError, TypeError):
        return None


def layout(model: type[BaseModel]) -> Layout:
    """The form-mode layout of `model`, reduced on first use and kept in its blueprint.

    Raises:
        SchemaError: If the model cannot be elicited (not kept: asked again, it raises again).
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    record = blueprint(model)
    if record.layout is None:
        record.layout = lay_out(model, page_form=record.page)
    return record.layout


def tree_of(model: type[BaseModel]) -> PageTree:
    """The `PageTree` of a page form with groups, reduced on first use and kept in its blueprint.

    Raises:
        SchemaError: Listing every field a web form cannot carry (not kept: asked again, it raises again).
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    record = blueprint(model)
    if record.page_tree is None:
        from typed_elicit._forms.page.tree import page_tree  # page-form rules load with the first page form

        record.page_tree = page_tree(model)
    return record.page_tree


def declare(model: type[BaseModel], *, message: str | None, page: bool, app: object = None) -> None:
    """Record `@form(message=..., page=..., app=...)` for `model` (declared again: the last wins).

    Raises:
        TypeError: If `model` is not a `pydantic.BaseModel` subclass.
    """
    record = blueprint(model)
    record.declared = True
    record.message = message
    record.page = record.page or page
    record.app = None if app is False else app


def app_view(model: type[BaseModel]) -> object:
    """What `@form(app=...)` declared for `model` (None when it has no app view)."""
    record = known(model)
    return None if record is None else record.app


def is_form(model: type[BaseModel]) -> bool:
    """Whether `model` was declared with `@form`."""
    record = known(model)
    return record is not None and record.declared


def is_page_form(model: type[BaseModel]) -> bool:
    """Whether `model` was declared with `@form(page=True)` (secret fields allowed)."""
    try:  # `known`, inlined: this runs for every question
        record = _REGISTRY.get(model)
    except TypeError:
        return False
    return record is not None and record.page


def declared_forms() -> tuple[type[BaseModel], ...]:
    """Every model declared with `@form` (and still alive) in this process."""
    return tuple(model for model, record in list(_REGISTRY.items()) if record.declared)


def page_forms() -> tuple[type[BaseModel], ...]:
    """Every model declared `@form(page=True)` (and still alive) in this process."""
    return tuple(model for model, record in list(_REGISTRY.items()) if record.page)


def form_message(model: type[BaseModel]) -> str:
    """The message for a question about `model` when the caller gives none.

    The rule: `@form(message=...)` if given, else the first paragraph of the
    model's docstring, else `"Please provide <model title>."`.

    Args:
        model: The response model.

    Returns:
        The message to show the user.
    """
    record = known(model)
    if record is not None and record.message:
        return record.message
    doc = model.__doc__
    if doc and doc.strip():
        return " ".join(doc.strip().split("\n\n", 1)[0].split())
    title = model.model_config.get("title") or model.__name__
    return f"Please provide {title}."
