"""The public surface is exactly what `__all__` lists, and every listed name exists."""

from __future__ import annotations

import importlib
import importlib.resources
import subprocess
import sys
from types import ModuleType

import pytest

import typed_elicit
import typed_elicit.client
import typed_elicit.errors
import typed_elicit.pages
import typed_elicit.stores
import typed_elicit.testing

SERVER_SURFACE = {
    # the framework: decorate a tool, ask, declare a model
    "ElicitContext",
    "elicits",
    "form",
    "reduce_schema",
    "Titles",
    "Choices",  # issue 13: options given per question
    # what a question returns
    "Accepted",
    "Cancelled",
    "Consented",
    "Declined",
    "ElicitResult",
    "UrlResult",
    # a URL question raised from anywhere in a tool (it is not about pages: issue 19)
    "url_required",
    "UrlElicitation",
    # the root of the error tree (the tree is typed_elicit.errors)
    "TypedElicitError",
    # the fallback
    "install_fallback",
    # timeouts
    "get_default_timeout",
    "set_default_timeout",
    # protocol eras (hook events and reduce_schema take one)
    "ProtocolVersion",
    "PROTOCOL_VERSIONS",
}

FACES = {
    "typed_elicit.errors": {
        "TypedElicitError",
        "DeclarationError",
        "NoAnswerError",
        "ServerStateError",
        "SchemaError",
        "OptionsError",
        "ElicitUsageError",
        "ElicitArgumentError",
        "FallbackNotInstalled",
        "PagesNotServed",
        "PageSetupError",
        "StoreUrlError",
        "RequestedSchemaError",
        "ScriptMistake",
        "ElicitationUnsupported",
        "ElicitationTimeout",
        "InvalidResponse",
        "ClientError",
        "HookError",
        "ReplayMismatch",
        "InvalidFallbackToken",
        "StoreUnavailable",
        "AppViewError",
        "AppCannotRender",
    },
    "typed_elicit.hooks": {"AnswerEvent", "ElicitHook", "QuestionEvent", "add_hooks", "remove_hooks"},
    "typed_elicit.stores": {"Store", "InProcessStore", "RedisStore", "configure", "StoreUrlError"},
    "typed_elicit.fallback": {"install_fallback"},
    "typed_elicit.pages": {
        "serve_pages",
        "Brand",  # issue 28: the one look pages and app views share
        "PageBrand",  # its name before app views shared it
        "Identify",
        "PAGE_WORDS",
        "PagesNotServed",
        "PageSetupError",
        "UploadedFile",  # issue 21: a page form's file field
        "FileLimits",
    },
    "typed_elicit.logs": {"HideAnswerValues", "hide_answer_values"},
    "typed_elicit.apps": {"serve_apps", "AppView", "Preview", "AppViewError"},
}
"""Each optional part's face: a package with a small `__all__` of its own (issue 19)."""

CLIENT_SURFACE = {
    "AppCannotRender",
    "AppRenderer",
    "AppRequest",
    "app_capability",
    "elicitation_handler",
    "FormHandler",
    "UrlHandler",
    "FormRequest",
    "UrlRequest",
    "UrlAnswer",
    "Responder",
    "FormSpec",
    "FieldSpec",
    "Option",
    "parse_requested_schema",
    "model_from_schema",
    "PinnedHandshake",
    "RequestedSchemaError",
    "InvalidResponse",
    "call_tool_with_urls",
}


@pytest.mark.parametrize(
    "module",
    ["typed_elicit", "typed_elicit.client", "typed_elicit.testing", "typed_elicit.client.terminal", *FACES],
)
def test_every_name_in_all_is_importable(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in imported.__all__ if not hasattr(imported, name)]
    assert missing == []


def test_the_top_level_is_the_server_framework_in_at_most_25_names() -> None:
    # 39 in 0.2; issue 19 moved the errors, hooks and stores into faces of their own.
    assert set(typed_elicit.__all__) == SERVER_SURFACE
    assert len(typed_elicit.__all__) == len(SERVER_SURFACE) <= 25


@pytest.mark.parametrize("module", sorted(FACES))
def test_each_optional_part_has_a_small_face_of_its_own(module: str) -> None:
    assert set(importlib.import_module(module).__all__) == FACES[module]


@pytest.mark.parametrize(
    ("old_home", "name", "new_home"),
    [
        *(
            ("typed_elicit", name, "typed_elicit.errors")
            for name in sorted(  # sorted: pytest-xdist workers must collect the same order
                FACES["typed_elicit.errors"]
                - {
                    "TypedElicitError",
                    "DeclarationError",
                    "NoAnswerError",
                    "ServerStateError",
                    "PagesNotServed",
                    "PageSetupError",
                    "StoreUrlError",
                    "RequestedSchemaError",
                    "ScriptMistake",
                    "AppViewError",
                    "AppCannotRender",
                }
            )
        ),
        *(("typed_elicit", name, "typed_elicit.hooks") for name in sorted(FACES["typed_elicit.hooks"])),
        ("typed_elicit", "Store", "typed_elicit.stores"),
        ("typed_elicit", "configure", "typed_elicit.stores"),
        ("typed_elicit", "ClaimStore", "typed_elicit.stores:Store"),
        ("typed_elicit.stores", "ClaimStore", "typed_elicit.stores:Store"),
        ("typed_elicit.stores", "InProcessClaimStore", "typed_elicit.stores:InProcessStore"),
        ("typed_elicit.pages", "url_required", "typed_elicit"),
        ("typed_elicit.pages", "UrlElicitation", "typed_elicit"),
        ("typed_elicit.client", "InvalidAnswer", "typed_elicit.errors:InvalidResponse"),
    ],
)
def test_a_moved_name_still_imports_from_its_old_home_with_a_warning_naming_the_new_one(
    old_home: str, name: str, new_home: str
) -> None:
    module_name, _, new_name = new_home.partition(":")
    with pytest.warns(DeprecationWarning, match=new_home.replace(":", r"\.")):
        found = getattr(importlib.import_module(old_home), name)
    assert found is getattr(importlib.import_module(module_name), new_name or name)
    assert name not in importlib.import_module(old_home).__all__


def test_the_client_half_is_its_own_module_and_not_the_top_level() -> None:
    assert set(typed_elicit.client.__all__) == CLIENT_SURFACE
    assert not CLIENT_SURFACE & set(typed_elicit.__all__)
    assert (
        sorted(name for name in CLIENT_SURFACE - set(typed_elicit.MOVED) if hasattr(typed_elicit, name)) == []
    )


def test_public_modules_list_no_private_name() -> None:
    names = [*typed_elicit.__all__, *typed_elicit.client.__all__]
    assert [n for n in names if n.startswith("_")] == []


@pytest.mark.parametrize("module", [typed_elicit.errors, typed_elicit.client])
def test_every_error_derives_from_the_one_base(module: ModuleType) -> None:
    names: list[str] = module.__all__
    errors = [
        getattr(module, n)
        for n in names
        if isinstance(getattr(module, n), type) and issubclass(getattr(module, n), BaseException)
    ]
    assert len(errors) >= 2
    assert all(issubclass(e, typed_elicit.TypedElicitError) for e in errors)


def test_every_library_error_is_importable_from_a_public_module() -> None:
    importlib.import_module("typed_elicit._cli")  # load every module that defines an error
    modules = (
        typed_elicit.errors,
        typed_elicit.client,
        typed_elicit.testing,
        typed_elicit.pages,
        typed_elicit.stores,
    )
    public = {getattr(m, n) for m in modules for n in m.__all__ if isinstance(getattr(m, n), type)}

    def subclasses(cls: type) -> set[type]:
        found: set[type] = set()
        subs: list[type] = cls.__subclasses__()
        for sub in subs:
            found |= {sub, *subclasses(sub)}
        return found

    hidden = {e.__qualname__ for e in subclasses(typed_elicit.TypedElicitError) if e not in public}
    assert hidden <= {"UsageError"}  # the CLI's own, which issue 10 takes out of the library's errors


def test_the_package_ships_its_type_marker() -> None:
    assert importlib.resources.files("typed_elicit").joinpath("py.typed").is_file()


def test_one_store_protocol_and_configure_are_public_with_the_stores() -> None:
    assert {"Store", "configure"} <= set(typed_elicit.stores.__all__)
    assert not {"ClaimStore", "RedeemedTokens"} & {*typed_elicit.stores.__all__, *typed_elicit.__all__}


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}; import sys; print('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return set(out.split())


@pytest.mark.slow
def test_importing_the_server_framework_loads_no_client_half() -> None:
    loaded = _loaded_after("import typed_elicit")
    client_half = {
        "typed_elicit.client._handler",
        "typed_elicit.client._responder",
        "typed_elicit.testing._kit",
        "typed_elicit.client._terminal",
        "typed_elicit._cli",
        "typed_elicit.client",
    }
    assert "typed_elicit._calls.elicits" in loaded
    assert sorted(client_half & loaded) == []


@pytest.mark.slow
def test_importing_the_server_framework_loads_neither_pages_nor_jinja2_nor_the_redis_client() -> None:
    loaded = _loaded_after("import typed_elicit")
    optional = {
        name
        for name in loaded
        if name.split(".")[0] in {"jinja2", "redis"}
        or name.startswith(("typed_elicit.pages", "typed_elicit.stores._redis"))
    }
    assert sorted(optional) == []
    # the test sees them when they do load: pages when imported, Redis when its store is named
    assert "typed_elicit.pages._serve" in _loaded_after("import typed_elicit.pages")
    assert "typed_elicit.stores._redis" in _loaded_after(
        "import typed_elicit.stores; typed_elicit.stores.RedisStore"
    )


@pytest.mark.slow
def test_importing_the_server_framework_loads_no_page_form_rules_nor_app_views() -> None:
    # A server that asks plain forms needs none of them (issue 30); they load when first used.
    loaded = _loaded_after("import typed_elicit")
    later = ("typed_elicit._forms.page", "typed_elicit._views", "typed_elicit.apps")
    assert sorted(name for name in loaded if name.startswith(later)) == []
    assert "typed_elicit._forms.page.tree" in _loaded_after("import typed_elicit.pages")


@pytest.mark.slow
def test_importing_the_package_reads_no_installed_package_metadata() -> None:
    # `importlib.metadata` scans every directory on sys.path: a `__version__` reads it when asked.
    code = (
        "import importlib.metadata as m; import mcp.server.mcpserver; read = []; "
        "m.Distribution.from_name = classmethod(lambda cls, name: read.append(name)); "
        "import typed_elicit; print(read)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_importing_the_server_framework_adds_no_sdk_client_module_to_what_the_sdk_loads() -> None:
    # The SDK's own `mcp/__init__.py` imports `mcp.client` (Client, ClientSession, stdio_client),
    # so any server that imports `mcp.server` has it; typed_elicit adds none of its own.
    sdk = {m for m in _loaded_after("import mcp.server.mcpserver") if m.startswith("mcp.client")}
    ours = {m for m in _loaded_after("import typed_elicit") if m.startswith("mcp.client")}
    assert sorted(ours - sdk) == []


# --- public names report public homes (issue 28) ---------------------------------------------------

FACES_WITH_NAMES = (
    "typed_elicit",
    "typed_elicit.errors",
    "typed_elicit.hooks",
    "typed_elicit.logs",
    "typed_elicit.stores",
    "typed_elicit.pages",
    "typed_elicit.apps",
    "typed_elicit.client",
    "typed_elicit.client.terminal",
    "typed_elicit.testing",
    "typed_elicit.fallback",
)


@pytest.mark.parametrize("face", FACES_WITH_NAMES)
def test_every_exported_class_and_function_reports_a_public_home_that_holds_it(face: str) -> None:
    import importlib
    import inspect as inspect_module
    import typing

    module = importlib.import_module(face)
    private = []
    for name in module.__all__:
        exported = getattr(module, name)
        if not (isinstance(exported, type) or inspect_module.isfunction(exported)):
            continue
        home = exported.__module__
        if home.startswith("typed_elicit") and any(part.startswith("_") for part in home.split(".")):
            private.append(f"{name}: {home}")
            continue
        if home.startswith("typed_elicit"):
            assert getattr(importlib.import_module(home), exported.__name__) is exported
        if isinstance(exported, type):
            typing.get_type_hints(exported)  # still resolves with the public home
    assert private == []


def test_reprs_name_the_public_home() -> None:
    from typed_elicit import ElicitContext
    from typed_elicit.errors import SchemaError

    assert repr(ElicitContext) == "<class 'typed_elicit.ElicitContext'>"
    assert repr(SchemaError) == "<class 'typed_elicit.errors.SchemaError'>"


def test_a_tool_may_still_return_a_result_type_pydantic_validates() -> None:
    from pydantic import BaseModel, TypeAdapter

    from typed_elicit import Accepted

    class Seat(BaseModel):
        row: int

    assert TypeAdapter(Accepted[Seat]).validate_python({"data": {"row": 3}}) == Accepted(Seat(row=3))
