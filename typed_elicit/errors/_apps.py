"""The errors of app views (`typed_elicit.apps`, and the client's app renderer)."""

from __future__ import annotations

from typed_elicit.errors._base import DeclarationError, NoAnswerError


class AppViewError(DeclarationError, ValueError):
    """An app view cannot be used as set up or asked for (fix the code).

    Raised by `serve_apps`, `AppView`, `Preview` when the setting is made, and by `ctx.elicit`
    when it asks for an app view the server does not serve.

    Attributes:
        setting: What was refused: `server` (served twice), `template`, `html`, `logo_url`,
            `css`, `search_over`, `preview`, or `app` (a question asked for a view the server does not serve).
    """

    def __init__(self, setting: str, message: str) -> None:
        """Build the error from a finished message; the builders below word it from their data.

        Args:
            setting: What was refused.
            message: What failed, why, and the fix.
        """
        self.setting = setting
        super().__init__(message)

    @classmethod
    def not_served(cls, model_name: str, server_name: str) -> AppViewError:
        """A question asked for an app view of `model_name`, which the server does not serve.

        Args:
            model_name: The model's class name.
            server_name: The server's name.

        Returns:
            The error.
        """
        return cls(
            "app",
            f"ctx.elicit(..., app=...) asked for an app view of {model_name}, and the server "
            f"{server_name!r} serves none: declare it with @form(app=True) before calling "
            "typed_elicit.apps.serve_apps(server), or name it among its models "
            f"(serve_apps(server, models=[..., {model_name}]))",
        )

    @classmethod
    def served_twice(cls, server_name: str) -> AppViewError:
        """`serve_apps` was called twice for one server.

        Args:
            server_name: The server's name.

        Returns:
            The error.
        """
        return cls(
            "server",
            f"serve_apps was already called for the server {server_name!r}: call it once, after "
            "every model with an app view is declared (its views are fixed resources)",
        )


class AppCannotRender(NoAnswerError):
    """(A client) the host's app renderer cannot show this question: the form handler answers instead.

    Raise it from an `AppRenderer` (`typed_elicit.client.elicitation_handler(app=...)`); the
    handler then answers the same question with its form handler, as SEP-3118 asks of a host
    whose app cannot be used. Also raised by the handler itself when the app's resource cannot
    be read or is not an app.

    Attributes:
        resource_uri: The `ui://` resource the question named.
        reason: Why it cannot be shown, worded for logs.
    """

    def __init__(self, resource_uri: str, reason: str) -> None:
        """Build the error.

        Args:
            resource_uri: The `ui://` resource the question named.
            reason: Why it cannot be shown.
        """
        self.resource_uri = resource_uri
        self.reason = reason
        super().__init__(
            f"the app {resource_uri} cannot show this question ({reason}); the question is answered "
            "with the plain form instead"
        )
