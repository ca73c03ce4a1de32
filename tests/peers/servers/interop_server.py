"""Interop server: every field kind and a branching three-step wizard, for foreign clients.

The TypeScript-SDK client in `tests/peers/ts_client/` holds scripted conversations with this
server over stdio and streamable HTTP (`tests/peers/run_ts_interop.sh`); the replica test
(`tests/peers/replicas.sh`) runs the wizard on 2026-07-28 across two copies of it behind nginx.

Run it yourself: `python tests/peers/servers/interop_server.py` (stdio), or over HTTP with
`python tests/peers/serve_http.py tests/peers/servers/interop_server.py`.

Tools:
    deploy_wizard: Target -> (Approval | StagingOptions) -> Notify, returns a summary.
    all_kinds(multi): EveryKind (every scalar, format and single-select kind), then, if
        `multi`, EveryChoice (untitled and titled multi-select; needs 2025-11-25 or later).
    shaped_pick(multi): ShapedPick (options, titles and defaults given per call, a multi-select,
        a hinted constraint; 2025-11-25 or later), or, without `multi`, ShapedOne (titled
        options given per call and a bool default, on every revision).
    negotiated_protocol: the protocol revision of this request.
"""

import os
from datetime import date, datetime
from enum import Enum
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from pydantic import AnyUrl, BaseModel, EmailStr, Field, SecretStr

from typed_elicit import (
    Accepted,
    Cancelled,
    Choices,
    Declined,
    ElicitContext,
    ElicitResult,
    Titles,
    elicits,
    form,
    install_fallback,
)

APPLIED: list[str] = []
"""The transfers this process applied (the side effect the replica checks count)."""


class Transfer(BaseModel):
    """Confirm the transfer."""

    confirm: bool


@form(message="Sign in to the bank", page=True)
class BankLogin(BaseModel):
    """A page question (`ctx.elicit_page`): the replicas check serves it when PEERS_PAGES_URL is set."""

    username: str
    password: SecretStr


# ------------------------------------------------------------------ the wizard's forms


@form(message="Where should the service be deployed?")
class Target(BaseModel):
    """Deployment target."""

    service: str = Field(min_length=1, max_length=40, description="Service name")
    environment: Annotated[
        Literal["staging", "production"], Titles(staging="Staging", production="Production")
    ]


@form(message="Production deploys need a change ticket.")
class Approval(BaseModel):
    """Production approval."""

    ticket: str = Field(min_length=3, max_length=20)
    replicas: int = Field(default=2, ge=1, le=10)


@form(message="Staging options.")
class StagingOptions(BaseModel):
    """Staging-only options."""

    seed_data: bool = True


@form(message="Who should be told when it is done?")
class Notify(BaseModel):
    """Notification."""

    email: EmailStr
    note: str | None = None


# ------------------------------------------------------------------ every field kind


class Color(str, Enum):
    """A plain Enum with string values (untitled single select)."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Weekday(str, Enum):
    """Options of a titled multi-select."""

    MON = "mon"
    TUE = "tue"
    WED = "wed"


@form(message="Fill in every kind of field.")
class EveryKind(BaseModel):
    """Every scalar, format and single-select kind the reducer supports."""

    text: str = Field(min_length=2, max_length=20, title="Text", description="Some text")
    count: int = Field(default=3, ge=1, le=10)
    ratio: float = Field(default=0.5, ge=0.0, le=1.0)
    agree: bool = False
    nickname: str | None = None
    email: EmailStr
    homepage: AnyUrl
    birthday: date
    meeting: datetime
    priority: int = Field(gt=0, lt=6)
    size: Literal["s", "m", "l"] = "m"
    color: Color = Color.BLUE
    plan: Annotated[Literal["free", "pro"], Titles(free="Free plan", pro="Pro plan")] = "free"


@form(message="Pick some options.")
class EveryChoice(BaseModel):
    """Untitled and titled multi-select."""

    toppings: set[Literal["cheese", "ham", "olives"]] = Field(min_length=1, max_length=2)
    days: Annotated[
        list[Weekday], Titles({Weekday.MON: "Monday", Weekday.TUE: "Tuesday", Weekday.WED: "Wednesday"})
    ] = [Weekday.MON]


# ------------------------------------------------------------------ questions shaped per call


class ShapedPick(BaseModel):
    """Options, titles and defaults given per call (issue 13)."""

    account: Annotated[str, Choices()]
    tags: Annotated[list[str], Choices(), Field(min_length=1, max_length=2)]
    amount: int = Field(ge=5, multiple_of=5)


class ShapedOne(BaseModel):
    """Titled options given per call, and a per-call bool default (every revision)."""

    account: Annotated[str, Choices()]
    confirm: bool


ACCOUNTS = {"acc-1": "Checking", "acc-2": "Savings"}


def _stopped(outcome: Declined | Cancelled, step: int) -> dict[str, Any]:
    return {"status": "declined" if isinstance(outcome, Declined) else "cancelled", "step": step}


async def _transfer(ctx: ElicitContext, ref: str) -> dict[str, Any]:
    answer = await ctx.elicit(Transfer)
    if not isinstance(answer, Accepted) or not answer.data.confirm:
        return {"status": "not applied"}
    APPLIED.append(ref)
    return {"status": "applied", "ref": ref}


def build_server(request_state_security: RequestStateSecurity | None = None) -> MCPServer:
    """The interop server; pass shared keys to run several replicas."""
    server = MCPServer("typed-elicit-interop", request_state_security=request_state_security)

    @server.tool()
    async def negotiated_protocol(ctx: Context) -> dict[str, Any]:
        """The protocol revision of this request."""
        return {"protocol": ctx.protocol_version}

    @server.tool()
    @elicits(Target, Approval, StagingOptions, Notify)
    async def deploy_wizard(ctx: ElicitContext) -> dict[str, Any]:
        """Deploy a service: three questions, the second depends on the first."""
        target = await ctx.elicit(Target)
        if not isinstance(target, Accepted):
            return _stopped(target, 1)
        summary: dict[str, Any] = {
            "status": "deployed",
            "service": target.data.service,
            "environment": target.data.environment,
        }
        if target.data.environment == "production":
            approval = await ctx.elicit(Approval)
            if not isinstance(approval, Accepted):
                return _stopped(approval, 2)
            summary |= {"ticket": approval.data.ticket, "replicas": approval.data.replicas}
        else:
            options = await ctx.elicit(StagingOptions)
            if not isinstance(options, Accepted):
                return _stopped(options, 2)
            summary["seed_data"] = options.data.seed_data
        notify = await ctx.elicit(Notify)
        if not isinstance(notify, Accepted):
            return _stopped(notify, 3)
        return summary | {"email": notify.data.email, "note": notify.data.note}

    # EveryChoice is not listed: it is asked only with `multi`, and listing it would refuse a
    # 2025-06-18 client before the body runs (multi-select needs 2025-11-25); `@form` still
    # checks it at import, and `ctx.elicit` checks it against the revision when it is asked.
    @server.tool()
    @elicits(EveryKind)
    async def all_kinds(ctx: ElicitContext, multi: bool = True) -> dict[str, Any]:
        """Ask for every field kind; with `multi`, also the multi-selects (2025-11-25+)."""
        kinds = await ctx.elicit(EveryKind)
        if not isinstance(kinds, Accepted):
            return _stopped(kinds, 1)
        choices: dict[str, list[str]] | None = None
        if multi:
            picked = await ctx.elicit(EveryChoice)
            if not isinstance(picked, Accepted):
                return _stopped(picked, 2)
            choices = {
                "toppings": sorted(picked.data.toppings),
                "days": sorted(day.value for day in picked.data.days),
            }
        return {"status": "accepted", "kinds": kinds.data.model_dump(mode="json"), "choices": choices}

    @server.tool()
    @elicits(ShapedOne)
    async def shaped_pick(ctx: ElicitContext, multi: bool = True) -> dict[str, Any]:
        """Ask with options and defaults computed now; with `multi`, a multi-select too (2025-11-25+)."""
        picked: ElicitResult[ShapedPick] | ElicitResult[ShapedOne]
        if multi:
            picked = await ctx.elicit(
                ShapedPick,
                "Charge which account?",
                options={"account": ACCOUNTS, "tags": ["red", "green", "blue"]},
                defaults={"account": "acc-2", "amount": 40},
            )
        else:
            picked = await ctx.elicit(
                ShapedOne, "Which account?", options={"account": ACCOUNTS}, defaults={"confirm": True}
            )
        if not isinstance(picked, Accepted):
            return _stopped(picked, 1)
        return {"status": "accepted", "answer": picked.data.model_dump(mode="json")}

    install_fallback(server, security=request_state_security)

    @server.tool()
    @elicits(Transfer)
    async def transfer(ctx: ElicitContext, ref: str = "t") -> dict[str, Any]:
        """One question, then a side effect: counted per process (`applied`)."""
        return await _transfer(ctx, ref)

    @server.tool()
    @elicits(Transfer, on_unsupported="fallback")
    async def relayed_transfer(ctx: ElicitContext, ref: str = "f") -> dict[str, Any]:
        """`transfer` through the fallback when the client cannot be asked."""
        return await _transfer(ctx, ref)

    pages_url = os.environ.get("PEERS_PAGES_URL")
    if pages_url:  # tests/peers/replicas.sh: a page submitted on one replica, waited for on another
        from typed_elicit.pages import serve_pages

        serve_pages(server, pages_url, poll_seconds=1.0)

        @server.tool()
        @elicits
        async def link_bank(ctx: ElicitContext) -> dict[str, Any]:
            """Ask for a bank login on a page of this server's."""
            login = await ctx.elicit_page(BankLogin)
            if not isinstance(login, Accepted):
                return {"status": "not linked"}
            return {"status": "linked", "user": login.data.username}

    @server.tool()
    async def applied(ref: str) -> dict[str, Any]:
        """How many times this process applied the transfer `ref`."""
        return {"count": APPLIED.count(ref)}

    return server


# --8<-- [start:replicas]
def replicated_server() -> MCPServer:
    """This server for one of several replicas: every replica gets the same name and keys.

    `MCP_STATE_KEYS` holds comma-separated secrets of at least 32 random bytes each; the
    first seals, all unseal (rotation). `ttl` bounds the time between two rounds.
    """
    keys = os.environ["MCP_STATE_KEYS"].split(",")
    return build_server(RequestStateSecurity(keys=keys, ttl=600))


# --8<-- [end:replicas]

mcp = build_server()

if __name__ == "__main__":
    mcp.run()
