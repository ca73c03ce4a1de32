"""`serve_apps`: one fixed `ui://` resource per model with an app view, through the SDK's Apps extension.

The views are registered once, when the server is set up; no call ever creates a resource.
A call reaches them through `_calls.plugs` (`show`), as an `AppHost`: it attaches
`_meta.ui.resourceUri` (and one call's data) to a form question only when both sides
negotiated it (`_calls.reach.shows_apps`).
"""

from __future__ import annotations

import re
import sys
import weakref
from collections.abc import Awaitable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from mcp.server.apps import EXTENSION_ID, Apps
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from typed_elicit._calls.plugs import AppPreview, apps_for, show
from typed_elicit._core.foreign import apply_extension, extension_settings, extensions
from typed_elicit._forms.names import secret_fields
from typed_elicit._forms.registry import app_view, declared_forms
from typed_elicit._wire import draft as _draft
from typed_elicit.apps._render import RESOURCE_CSP, render
from typed_elicit.apps._view import AppView
from typed_elicit.errors import AppViewError, SchemaError

if TYPE_CHECKING:
    from typed_elicit._views.i18n import Languages

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


_sent: ContextVar[dict[str, dict[str, Any]] | None] = ContextVar("typed_elicit_app_meta", default=None)
"""Per request (set by `_Restore`): each app question's key -> the `_meta` it was asked with."""


_ASKING: Final = frozenset({"tools/call", "prompts/get", "resources/read"})
"""The requests whose result may be an `InputRequiredResult` (SEP-2322): what the middleware looks at
is the result, never the era."""


class _Restore:
    """A server middleware putting back what mcp 2.3 drops from the wire that SEP-3118 needs.

    mcp 2.3 shapes each result by the revision's schema surface, and two of them lack what
    the draft uses: the 2025-06-18/2025-11-25 `ServerCapabilities` has no `extensions`, so
    `initialize` loses the server's MCP Apps capability; the 2026-07-28 `ElicitRequestFormParams`
    has no `_meta`, so an `InputRequiredResult` loses `_meta.ui.resourceUri`. This middleware
    sees the shaped result and restores exactly those: the server's own MCP Apps settings, and
    the `_meta` each app question of this request was asked with (nothing a client sent).
    """

    def __init__(self, ads: dict[str, Any]) -> None:
        self._ads = ads

    def __call__(self, ctx: Any, call_next: Any) -> Any:
        # Not a coroutine: a request it has nothing to restore on costs one call, no await layer.
        method = ctx.method
        if method == "initialize":
            return self._advertised(call_next(ctx))
        if method not in _ASKING:
            return call_next(ctx)
        return self._restored(ctx, call_next)

    async def _restored(self, ctx: Any, call_next: Any) -> Any:
        sent: dict[str, dict[str, Any]] = {}
        token = _sent.set(sent)
        try:
            result = await call_next(ctx)
        finally:
            _sent.reset(token)
        shaped = _mapping(result) if sent else None
        if shaped is None or shaped.get("resultType") != "input_required":
            return result
        requests = _mapping(shaped.get("inputRequests")) or {}
        for key, meta in sent.items():
            request = _mapping(requests.get(key))
            params = None if request is None else _mapping(request.get("params"))
            if request is not None and request.get("method") == _draft.ELICIT_METHOD and params is not None:
                params.setdefault("_meta", meta)
        return result

    async def _advertised(self, pending: Awaitable[Any]) -> Any:
        """The `initialize` result with the server's MCP Apps settings put back in its capabilities."""
        result = await pending
        shaped = _mapping(result)
        settings = _mapping(self._ads.get(EXTENSION_ID))
        capabilities = None if shaped is None else _mapping(shaped.get("capabilities"))
        if settings is not None and capabilities is not None:
            extensions = _mapping(capabilities.setdefault("extensions", {}))
            if extensions is not None:
                extensions.setdefault(EXTENSION_ID, dict(settings))
        return result


def _mapping(value: object) -> dict[str, Any] | None:
    """`value` if it is a JSON object, else None."""
    return cast("dict[str, Any]", value) if isinstance(value, dict) else None


class _ViewApps(Apps):
    """typed_elicit's own `Apps` instance, for a server that has none: it advertises `elicitation`."""

    def settings(self) -> dict[str, Any]:
        return dict(_draft.SERVER_UI_SETTINGS)


@dataclass(eq=False)
class _Views:
    """The app views of one server, as a call reaches them (`_calls.plugs.AppHost`)."""

    _uris: weakref.WeakKeyDictionary[type[BaseModel], str]
    _search: weakref.WeakKeyDictionary[type[BaseModel], int]
    _ads: dict[str, Any]
    """The server's advertised extension settings (the SDK's own dict)."""

    @property
    def advertised(self) -> bool:
        settings = _mapping(self._ads.get(EXTENSION_ID))
        return settings is not None and _mapping(settings.get(_draft.ELICITATION_SETTING)) is not None

    def uri(self, model: type[BaseModel]) -> str | None:
        return self._uris.get(model)

    def meta(
        self, model: type[BaseModel], schema: Mapping[str, Any], preview: AppPreview | None, key: str
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {_draft.UI_META: {_draft.RESOURCE_URI: self._uris[model]}}
        data: dict[str, Any] = {}
        if preview is not None:
            data["preview"] = preview.wire()
        over = self._search.get(model, 8)
        search = [name for name, prop in schema["properties"].items() if _option_count(prop) >= over]
        if search:
            data["search"] = search
        if data:
            meta[_draft.VIEW_META] = data
        sent = _sent.get()
        if sent is not None:
            sent[key] = meta
        return meta


def _option_count(prop: Mapping[str, Any]) -> int:
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    listed = source.get("oneOf") or source.get("anyOf") or source.get("enum") or ()
    return len(listed)


def _uri(model: type[BaseModel], taken: set[str]) -> str:
    """The model's fixed `ui://` address: its module's importable name and its qualified name.

    The same on every launch and replica: a model of a script run as `python server.py` (whose
    module is `__main__`) is named by the script's module name (`server`), as when imported.
    """
    name = _UNSAFE.sub("-", f"{_module_name(model)}.{model.__qualname__}").strip("-")
    uri, n = f"ui://typed-elicit/{name}", 2
    while uri in taken:
        uri, n = f"ui://typed-elicit/{name}-{n}", n + 1
    taken.add(uri)
    return uri


def _module_name(model: type[BaseModel]) -> str:
    """The name the model's module is imported under; a script run as `__main__` by its own name."""
    name = model.__module__
    if name != "__main__":
        return name
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:  # python -m package.server
        return str(spec.name)
    path = getattr(main, "__file__", None)
    return Path(path).stem if path else name


def serve_apps(
    server: MCPServer,
    *,
    view: AppView | None = None,
    models: Sequence[type[BaseModel]] | None = None,
    languages: Languages | None = None,
) -> dict[type[BaseModel], str]:
    """Serve an app view for every model declared `@form(app=...)`, and let questions use them.

    Call it once, after the models are declared (at import) and the server is made. Each
    model gets one fixed `ui://typed-elicit/...` resource (`text/html;profile=mcp-app`,
    self-contained, `_meta.ui.csp` with no origin), registered through the server's own
    `mcp.server.apps.Apps` extension when it was built with one, else through one of
    typed_elicit's; either way the server advertises `elicitation: {}` in its MCP Apps
    capability (SEP-3118, draft: see `typed_elicit.apps`). A question carries its view
    only to a client that declared it can show one; every other client gets the plain form.

    Args:
        server: The server.
        view: How a model declared with `app=True` looks (a model's own `AppView` wins).
        models: The models to serve a view for (any `@form` model: one declared without
            `app=` shows its view when a question asks, `ctx.elicit(..., app=True)`); None:
            every model declared `@form(app=...)` in the process so far.
        languages: The languages the views speak (`Languages`): each view carries the library's
            words (and the server's translations of its own texts) in every offered locale and
            shows the one its host asks for (`hostContext.locale`), or the server's fixed
            `locale`; None: the shipped languages, English by default.

    Returns:
        Each served model's resource URI.

    Raises:
        AppViewError: If the server already serves app views.
        SchemaError: If a model cannot be elicited, or holds a secret (secrets stay page-only).
    """
    if apps_for(server) is not None:
        raise AppViewError.served_twice(server.name)
    default = view or AppView()
    chosen = [m for m in declared_forms() if app_view(m) is not None] if models is None else list(models)
    try:
        package = version("typed-elicit")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        package = "0"
    uris: weakref.WeakKeyDictionary[type[BaseModel], str] = weakref.WeakKeyDictionary()
    search: weakref.WeakKeyDictionary[type[BaseModel], int] = weakref.WeakKeyDictionary()
    taken: set[str] = set()
    advertised = extension_settings(server)
    own_apps = next((e for e in extensions(server) if isinstance(e, Apps)), None)  # its own, if any
    apps = own_apps or _ViewApps()
    for model in sorted(chosen, key=lambda m: (m.__module__, m.__qualname__)):
        declared = app_view(model)
        if not (declared is None or declared is True or isinstance(declared, AppView)):
            raise AppViewError("app", f"@form(app=...) of {model.__name__} takes True or an AppView")
        own = declared if isinstance(declared, AppView) else default
        secret = sorted(secret_fields(model))
        if secret:
            raise SchemaError.app_secret(model.__name__, secret)
        uri = uris[model] = _uri(model, taken)
        search[model] = own.search_over
        apps.add_html_resource(
            uri,
            render(model, own, package, languages),
            name=f"{model.__name__} view",
            title=own.title or model.__name__,
            description=f"typed_elicit app view of the {model.__name__} form",
            csp=RESOURCE_CSP,
            prefers_border=True,
        )
    if own_apps is None:
        apply_extension(server, apps)
    else:  # applied when the server was made: its resources are on the server already, ours not yet
        for binding in apps.resources():
            if str(binding.resource.uri) in taken:
                server.add_resource(binding.resource)
        settings = advertised.setdefault(EXTENSION_ID, {})
        settings[_draft.ELICITATION_SETTING] = {}
    server.middleware.append(_Restore(advertised))
    show(server, _Views(uris, search, advertised))
    return dict(uris)
