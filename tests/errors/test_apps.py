"""The errors of app views: each keeps what was refused, its message says the fix."""

from __future__ import annotations

from typed_elicit.errors import AppCannotRender, AppViewError, DeclarationError, NoAnswerError


def test_an_app_view_not_served_names_the_model_the_server_and_how_to_serve_it() -> None:
    error = AppViewError.not_served("Ship", "shop")
    assert error.setting == "app"
    assert isinstance(error, DeclarationError)
    assert str(error) == (
        "ctx.elicit(..., app=...) asked for an app view of Ship, and the server 'shop' serves none: declare "
        "it with @form(app=True) before calling typed_elicit.apps.serve_apps(server), or name it among its "
        "models (serve_apps(server, models=[..., Ship]))"
    )


def test_serving_app_views_twice_names_the_server_and_says_to_call_it_once() -> None:
    error = AppViewError.served_twice("shop")
    assert error.setting == "server"
    assert str(error).startswith("serve_apps was already called for the server 'shop': call it once")


def test_an_app_that_cannot_render_keeps_its_resource_and_reason_and_says_the_form_answers() -> None:
    error = AppCannotRender("ui://typed-elicit/m.Ship", "the resource is not an app")
    assert (error.resource_uri, error.reason) == ("ui://typed-elicit/m.Ship", "the resource is not an app")
    assert isinstance(error, NoAnswerError)
    assert str(error) == (
        "the app ui://typed-elicit/m.Ship cannot show this question (the resource is not an app); the "
        "question is answered with the plain form instead"
    )
