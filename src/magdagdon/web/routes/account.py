"""Accounts: save a player's games with a passkey or a transfer code, sign in on another
device (the device's anonymous games merged in), the sessions, signing out.

A client that is not a browser (the terminal, a script) signs in with a transfer code made on
a signed-in device: ``POST /api/account/sign-in/transfer`` with ``{"code": "…"}`` answers with
a session cookie; send it with every later request (any HTTP client's cookie jar does).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypeVar
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError

from ...settings import Settings, is_loopback_host
from ...store import Store
from ...store.accounts import Merge, PasskeyRow, SignIn
from ...store.errors import ClonedPasskey, InvalidCode, LastPasskey, SessionEnded
from ...store.models import utcnow
from ...store.players import SessionRef
from ..deps import (
    CurrentPlayer,
    SettingsDep,
    StoreDep,
    client_address,
    client_network,
    device_label,
    enforce,
    known_session,
    link_origin,
    qr_modules,
    run_store,
    set_session_cookie,
)
from ..errors import ApiError, error_response
from ..schemas import (
    DailyClashView,
    ErrorResponse,
    MergeView,
    PasskeyCredential,
    PasskeyView,
    SessionView,
    SignInView,
    SignOut,
    TransferCodeCreated,
    TransferSignIn,
)

if TYPE_CHECKING:  # webauthn (and the cryptography it loads) is imported when first used
    from webauthn.helpers.structs import AuthenticationCredential, RegistrationCredential

router = APIRouter(prefix="/api/account", tags=["account"])

KnownSession = Annotated[SessionRef | None, Depends(known_session)]

RP_NAME = "MAGDAGDON"
MAX_CREDENTIAL_ID = 1023
"""The longest credential id WebAuthn allows (bytes)."""
MAX_PUBLIC_KEY = 2048
"""The longest public key kept (base64url characters; an ES256 or RS256 key is far shorter)."""
_TOO_MANY: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorResponse, "description": "Too many attempts: see Retry-After."}
}
_UNKNOWN: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorResponse,
        "description": "unknown_host: the request's Host is no name the operator gave "
        "(MAGDAGDON_PUBLIC_ORIGIN; without it, localhost and loopback addresses only).",
    }
}
_SIGNED_OUT: dict[int | str, dict[str, Any]] = {
    401: {
        "model": ErrorResponse,
        "description": "signed_out: this device was signed out while the request was answered.",
    }
}


_UNKNOWN_HOST = (
    "This server does not know itself by the name {host!r}: passkeys and transfer codes work "
    "at the addresses its operator names in MAGDAGDON_PUBLIC_ORIGIN (without it, at "
    "localhost and loopback addresses only)."
)


def relying_party(request: Request, settings: Settings) -> tuple[str, str]:
    """The passkeys' relying party: its id (the host name) and the origin the browser must
    report, which a transfer code's link names too.

    Only a name the operator gave: with ``MAGDAGDON_PUBLIC_ORIGIN`` (one origin, or several
    separated by commas) the one the request's Host names, else the first; without it the
    request's own scheme and Host, but only for localhost or a loopback address. Any other
    Host (``Host: evil.example``) is refused, 400 ``unknown_host``: a passkey is never made
    for a name the operator did not give, nor a code's link sent there."""
    origin = link_origin(request, settings)
    host = urlsplit(origin).hostname or ""
    if not settings.public_origins and not is_loopback_host(host):
        raise ApiError(400, "unknown_host", _UNKNOWN_HOST.format(host=host))
    return host, origin


async def _count_sign_in(request: Request, *, guessable: bool = False) -> None:
    """Count a sign-in attempt against its address, and a transfer code tried (``guessable``)
    against its network too (an IPv4 /24, an IPv6 /48: one customer's addresses). Nothing is
    counted server-wide: a count that wrong guesses from anywhere could spend would let
    anybody shut code sign-in for everybody; a code's length keeps guessing hopeless instead
    (docs/design.md, "Transfer codes"). A passkey's answer cannot be guessed at all."""
    hits: list[tuple[str, str]] = [("sign_ins_per_address", client_address(request))]
    if guessable:
        hits.append(("sign_ins_per_network", client_network(request)))
    await enforce(request, *hits)


def _session_of(request: Request) -> SessionRef:
    """The request's session (``CurrentPlayer`` made or found it first)."""
    session: SessionRef = request.state.session
    return session


def _signed_out() -> ApiError:
    return ApiError(
        401,
        "signed_out",
        "This device was signed out meanwhile (on another device, or everywhere): nothing "
        "was made.",
    )


async def _count_account(request: Request, store: StoreDep, player: int) -> None:
    """Count a new account against its address (nothing for a player already one)."""
    if not await run_store(store, lambda: store.is_account(player)):
        await enforce(request, ("accounts_per_address", client_address(request)))


def _merge_view(merge: Merge) -> MergeView:
    return MergeView(
        games=merge.games,
        dailies=[
            DailyClashView(
                date=datetime.fromisoformat(d.day).date(),
                difficulty=d.difficulty,  # type: ignore[arg-type]
                kept_game_id=d.kept_game_id,
                kept_score=d.kept_score,
                dropped_game_id=d.dropped_game_id,
                dropped_score=d.dropped_score,
            )
            for d in merge.dailies
        ],
        abandoned_game_id=merge.abandoned_game_id,
    )


async def _signed_in(
    request: Request, store: StoreDep, settings: Settings, done: SignIn
) -> SignInView:
    set_session_cookie(request, settings, done.token)
    request.state.session = SessionRef(
        done.player_id, done.session_id, done.method, done.created_at
    )
    name = (await run_store(store, lambda: store.player(done.player_id))).name
    return SignInView(name=name, account=True, merged=_merge_view(done.merge))


# --- transfer codes ---------------------------------------------------------------------


@router.post(
    "/transfer-codes",
    status_code=status.HTTP_201_CREATED,
    response_model=TransferCodeCreated,
    responses={**_UNKNOWN, **_SIGNED_OUT, **_TOO_MANY},
)
async def create_transfer_code(
    request: Request, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> TransferCodeCreated:
    """A one-time code (valid 10 minutes) to sign in to this player on another device or
    browser: type it there, or scan its QR code. The player becomes an account if it was not
    one. At most ``MAGDAGDON_ACCOUNT_CODES_PER_HOUR`` a player."""
    _, origin = relying_party(request, settings)
    await _count_account(request, store, player)
    await enforce(request, ("codes_per_account", str(player)))
    session = _session_of(request)
    try:
        code, expires = await run_store(store, lambda: store.create_transfer_code(session))
    except SessionEnded:
        raise _signed_out() from None
    url = f"{origin}/#transfer={code}"
    return TransferCodeCreated(code=code, expires_at=expires, url=url, qr=qr_modules(url))


@router.post(
    "/sign-in/transfer",
    response_model=SignInView,
    responses={
        400: {"model": ErrorResponse, "description": "invalid_code: wrong, used or expired."},
        **_TOO_MANY,
    },
)
async def sign_in_with_code(
    body: TransferSignIn,
    request: Request,
    device: KnownSession,
    store: StoreDep,
    settings: SettingsDep,
) -> SignInView:
    """Sign in with a transfer code made on a signed-in device: a new session cookie here,
    and this device's anonymous games, statistics and streak merged into the account (a daily
    played on both keeps the first finished; ``merged`` says what happened). Attempts are
    limited per address and on the whole server."""
    await _count_sign_in(request, guessable=True)
    label = device_label(request)
    try:
        done = await run_store(store, lambda: store.redeem_transfer_code(body.code, device, label))
    except InvalidCode:
        raise ApiError(
            400, "invalid_code", "That code is wrong, used or expired: make a new one."
        ) from None
    return await _signed_in(request, store, settings, done)


# --- passkeys ---------------------------------------------------------------------------


def _options(options: Any) -> JSONResponse:
    from webauthn import options_to_json

    return JSONResponse(json.loads(options_to_json(options)))


def _challenge_of(client_data: str | bytes) -> str:
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, parse_client_data_json

    data = client_data if isinstance(client_data, bytes) else base64url_to_bytes(client_data)
    return bytes_to_base64url(parse_client_data_json(data).challenge)


def _refused(message: str) -> ApiError:
    return ApiError(400, "passkey_refused", message)


Credential = TypeVar("Credential", "RegistrationCredential", "AuthenticationCredential")


def _parsed(
    parse: Callable[[dict[str, Any]], Credential], body: PasskeyCredential
) -> tuple[Credential, str]:
    """The browser's answer read by the library, and the challenge it answers (base64url);
    400 ``passkey_refused`` for anything malformed."""
    try:
        credential = parse(body.credential)
        return credential, _challenge_of(credential.response.client_data_json)
    except Exception as exc:  # whatever a malformed answer makes the parser raise
        raise _refused(f"That is not a passkey's answer: {exc}") from None


@router.post(
    "/passkeys/registration/options",
    responses={
        **_UNKNOWN,
        **_SIGNED_OUT,
        403: {
            "model": ErrorResponse,
            "description": "passkey_proof_needed: the account has a passkey; sign in with one "
            "on this device first (then a new passkey may be added for 5 minutes).",
        },
        **_TOO_MANY,
    },
)
async def registration_options(
    request: Request, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> JSONResponse:
    """Options for ``navigator.credentials.create()``: a new passkey for this player
    (``PublicKeyCredentialCreationOptionsJSON``; the challenge is good for 5 minutes, once,
    answered from this session only). Counted with the sign-in attempts of the address.

    An account that has a passkey adds another only from a session signed in with a passkey
    in the last 5 minutes (403 ``passkey_proof_needed``: sign in with a passkey here first):
    a stolen cookie cannot add a passkey of its own that would outlive signing it out."""
    from webauthn import generate_registration_options
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        PublicKeyCredentialDescriptor,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    rp_id, _ = relying_party(request, settings)
    await _count_sign_in(request)
    session = _session_of(request)
    if not await run_store(store, lambda: store.passkey_proven(session)):
        raise ApiError(
            403,
            "passkey_proof_needed",
            "This account has a passkey: sign in with it on this device first (SIGN IN WITH A "
            "PASSKEY; a phone's passkey works here through its QR code), then add this one.",
        )
    handle = await run_store(store, lambda: store.account_handle(player))
    row = await run_store(store, lambda: store.player(player))
    existing = await run_store(store, lambda: store.passkeys_of(player))
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=RP_NAME,
        user_id=base64url_to_bytes(handle),
        user_name=row.name or "MAGDAGDON",
        user_display_name=row.name or "MAGDAGDON",
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(p.credential_id)) for p in existing
        ],
    )
    challenge = bytes_to_base64url(options.challenge)
    try:
        await run_store(store, lambda: store.save_challenge(challenge, "register", session))
    except SessionEnded:
        raise _signed_out() from None
    return _options(options)


@router.post(
    "/passkeys/registration/verification",
    status_code=status.HTTP_201_CREATED,
    response_model=PasskeyView,
    responses={
        400: {
            "model": ErrorResponse,
            "description": "passkey_refused: the answer does not "
            "verify (wrong challenge, origin or signature, or an expired challenge); "
            "unknown_host as for the options.",
        },
        **_TOO_MANY,
    },
)
async def registration_verification(
    body: PasskeyCredential,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
) -> PasskeyView:
    """Verify the browser's new passkey and keep its public key: the player becomes an
    account (if it was not one) that signs in with it."""
    from webauthn import verify_registration_response
    from webauthn.helpers import (
        base64url_to_bytes,
        bytes_to_base64url,
        parse_registration_credential_json,
    )
    from webauthn.helpers.exceptions import WebAuthnException
    from webauthn.helpers.structs import AuthenticatorTransport

    rp_id, origin = relying_party(request, settings)
    credential, challenge = _parsed(parse_registration_credential_json, body)
    found, asked_by = await run_store(store, lambda: store.take_challenge(challenge, "register"))
    if not found or asked_by != _session_of(request).session_id:
        raise _refused("That passkey answers no question of this device's: try again.")
    await _count_account(request, store, player)
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except WebAuthnException as exc:
        raise _refused(f"The passkey was not accepted: {exc}") from None
    transports = [
        t.value if isinstance(t, AuthenticatorTransport) else str(t)
        for t in (credential.response.transports or [])
    ][:8]
    credential_id = bytes_to_base64url(verified.credential_id)
    public_key = bytes_to_base64url(verified.credential_public_key)
    if len(verified.credential_id) > MAX_CREDENTIAL_ID or len(public_key) > MAX_PUBLIC_KEY:
        raise _refused("That passkey's id or key is longer than a passkey's can be.")
    if await run_store(store, lambda: store.passkey_by_credential(credential_id)) is not None:
        raise _refused("That passkey is saved already.")
    label = device_label(request)
    try:
        row = await run_store(
            store,
            lambda: store.add_passkey(
                player,
                credential_id,
                public_key,
                verified.sign_count,
                transports,
                label,
                _session_of(request),
            ),
        )
    except IntegrityError:  # the same passkey saved by a request racing this one
        raise _refused("That passkey is saved already.") from None
    return _passkey_view(row, _session_of(request))


@router.get("/passkeys", response_model=list[PasskeyView])
async def list_passkeys(
    request: Request, player: CurrentPlayer, store: StoreDep
) -> list[PasskeyView]:
    """This account's passkeys, oldest first (a first one on probation says until when)."""
    rows = await run_store(store, lambda: store.passkeys_of(player))
    session = _session_of(request)
    return [_passkey_view(r, session) for r in rows]


def _passkey_view(row: PasskeyRow, session: SessionRef) -> PasskeyView:
    now = utcnow()
    return PasskeyView(
        id=row.id,
        label=row.label,
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        probation_until=row.probation_until if row.on_probation(now) else None,
        added_here=row.added_by == session.session_id,
    )


@router.delete(
    "/passkeys/{passkey_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        404: {"model": ErrorResponse, "description": "No such passkey of this account."},
        409: {
            "model": ErrorResponse,
            "description": "last_passkey: it is the account's last; "
            "repeat with ?last=true to remove it anyway.",
        },
    },
)
async def remove_passkey(
    passkey_id: str, request: Request, player: CurrentPlayer, store: StoreDep, last: bool = False
) -> Response:
    """Remove a passkey (the device keeps it, but it signs in nowhere). The last one only with
    ``last=true``: without a passkey the account signs in on a new device only with a transfer
    code made on a device still signed in. A first passkey on probation removed by a device
    signed in before it was added (not you?) takes the devices signed in with it along."""
    session = _session_of(request)
    try:
        await run_store(
            store, lambda: store.remove_passkey(player, passkey_id, last=last, by=session)
        )
    except LookupError:
        raise ApiError(404, "passkey_not_found", "This account has no such passkey.") from None
    except LastPasskey:
        raise ApiError(
            409,
            "last_passkey",
            "This is your last passkey: without it, only a transfer code from a device still "
            "signed in lets you sign in elsewhere.",
        ) from None
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/sign-in/passkey/options", responses={**_UNKNOWN, **_TOO_MANY})
async def authentication_options(
    request: Request, store: StoreDep, settings: SettingsDep
) -> JSONResponse:
    """Options for ``navigator.credentials.get()`` (any of this site's passkeys: the browser
    lists them; ``PublicKeyCredentialRequestOptionsJSON``, good for 5 minutes, once)."""
    from webauthn import generate_authentication_options
    from webauthn.helpers import bytes_to_base64url
    from webauthn.helpers.structs import UserVerificationRequirement

    rp_id, _ = relying_party(request, settings)
    await _count_sign_in(request)
    options = generate_authentication_options(
        rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
    )
    challenge = bytes_to_base64url(options.challenge)
    await run_store(store, lambda: store.save_challenge(challenge, "sign-in", None))
    return _options(options)


@router.post(
    "/sign-in/passkey/verification",
    response_model=SignInView,
    responses={
        400: {
            "model": ErrorResponse,
            "description": "passkey_refused: unknown passkey, an answer that does not verify, "
            "names another account or whose counter did not advance; unknown_host.",
        },
        **_TOO_MANY,
    },
)
async def authentication_verification(
    body: PasskeyCredential,
    request: Request,
    device: KnownSession,
    store: StoreDep,
    settings: SettingsDep,
) -> SignInView:
    """Sign in with a passkey: a new session cookie here, and this device's anonymous games,
    statistics and streak merged into the account (``merged`` says what happened). (The
    attempt was counted when its options were asked for: each challenge answers once.) An
    answer whose user handle names another account than the passkey's is refused, and so is
    one whose signature counter did not advance (a cloned authenticator)."""
    from webauthn import verify_authentication_response
    from webauthn.helpers import (
        base64url_to_bytes,
        bytes_to_base64url,
        parse_authentication_credential_json,
    )
    from webauthn.helpers.exceptions import WebAuthnException

    rp_id, origin = relying_party(request, settings)
    credential, challenge = _parsed(parse_authentication_credential_json, body)
    found, _ = await run_store(store, lambda: store.take_challenge(challenge, "sign-in"))
    if not found:
        raise _refused("That passkey answers no question of this server's: try again.")
    credential_id = bytes_to_base64url(credential.raw_id)
    passkey = await run_store(store, lambda: store.passkey_by_credential(credential_id))
    if passkey is None:
        raise _refused("This passkey belongs to no account here (removed, or its account deleted).")
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=base64url_to_bytes(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=base64url_to_bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except WebAuthnException as exc:
        raise _refused(f"The passkey was not accepted: {exc}") from None
    handle = credential.response.user_handle
    if handle is not None and (
        passkey.handle is None or handle != base64url_to_bytes(passkey.handle)
    ):
        raise _refused("That passkey names another account than its own.")
    label = device_label(request)
    try:
        done = await run_store(
            store,
            lambda: store.sign_in_with_passkey(passkey, verified.new_sign_count, device, label),
        )
    except ClonedPasskey:
        raise _refused(
            "That passkey's counter did not advance: the same answer was used already, or "
            "the passkey was copied."
        ) from None
    return await _signed_in(request, store, settings, done)


# --- sessions ---------------------------------------------------------------------------


@router.get("/sessions", response_model=list[SessionView])
async def list_sessions(
    request: Request, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> list[SessionView]:
    """The devices signed in to this player, the one used last first (``current``: this one).
    A session ends when unused for 60 days (an anonymous player's: 400 days)."""
    mine = await known_session(request, store, settings)
    rows = await run_store(store, lambda: store.sessions_of(player))
    return [
        SessionView(
            id=r.id,
            method=r.method,  # type: ignore[arg-type]
            label=r.label,
            created_at=r.created_at,
            last_used_at=r.last_used_at,
            current=mine is not None and mine.session_id == r.id,
        )
        for r in rows
    ]


_NO_WAY_BACK = (
    "Then nothing could sign in to this account again: add a passkey first, or sign in on "
    "another device with a transfer code first."
)
_ANONYMOUS_SIGN_OUT = (
    "An anonymous player who signs out cannot come back: save your games with a passkey or a "
    "transfer code first (or delete them under My data)."
)


async def _mind_new_passkey(
    store: Store,
    player: int,
    mine: SessionRef | None,
    ending: list[str] | None,
    keep: bool,
) -> Response | None:
    """The refusal (or None) of ending these sessions while the account's first passkey is on
    probation (``store/accounts.py``): a session begun after it was added may not end one begun
    before (403 ``passkey_on_probation``: it may be a thief's), and the passkey is the only way
    back only when the player said it is theirs (409 ``confirm_new_passkey`` naming it)."""
    found = await run_store(store, lambda: store.on_probation(player))
    if not found:
        return None
    key = found[0]
    younger = mine is None or mine.created_at is None or mine.created_at >= key.created_at
    if younger and await run_store(store, lambda: store.older_than(player, key.created_at, ending)):
        return error_response(
            403,
            "passkey_on_probation",
            "This device was signed in after the account's first passkey was added, less than "
            "a day ago: it may not sign out the devices signed in before it until then.",
            passkey={"label": key.label, "created_at": key.created_at.isoformat()},
        )
    way = await run_store(store, lambda: store.way_back(player, ending))
    if way == "probation" and not keep:
        return error_response(
            409,
            "confirm_new_passkey",
            "The passkey added to this account less than a day ago would be the only way back "
            "in: if it is yours, say so (keep_new_passkey); if not, remove it first.",
            passkey={"label": key.label, "created_at": key.created_at.isoformat()},
        )
    return None


@router.delete(
    "/sessions/{session_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        404: {"model": ErrorResponse, "description": "No such session of this player."},
        409: {
            "model": ErrorResponse,
            "description": "not_an_account: " + _ANONYMOUS_SIGN_OUT + " no_way_back: the "
            "account's last session, and it has no passkey.",
        },
    },
)
async def end_session(
    session_id: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    keep_new_passkey: bool = False,
) -> Response:
    """End one session (a lost phone): that device is signed out at once (other server
    processes within 10 s). Ending this device's own is signing out."""
    mine = await known_session(request, store, settings)
    own = mine is not None and mine.session_id == session_id
    if own and not await run_store(store, lambda: store.is_account(player)):
        raise ApiError(409, "not_an_account", _ANONYMOUS_SIGN_OUT)
    if not await run_store(store, lambda: store.a_way_back(player, [session_id])):
        raise ApiError(409, "no_way_back", _NO_WAY_BACK)
    refused = await _mind_new_passkey(store, player, mine, [session_id], keep_new_passkey)
    if refused is not None:
        return refused
    ended = await run_store(store, lambda: store.end_sessions(player, [session_id]))
    if not ended:
        raise ApiError(404, "session_not_found", "This player has no such session.")
    if own:
        set_session_cookie(request, settings, None)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/sign-out",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        409: {
            "model": ErrorResponse,
            "description": "not_an_account: " + _ANONYMOUS_SIGN_OUT + " no_way_back: no "
            "passkey, and no other device would stay signed in.",
        }
    },
)
async def sign_out(
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    body: SignOut | None = None,
) -> Response:
    """Sign this device out (``{"everywhere": true}``: every device). The account keeps
    everything; sign in again with a passkey or a transfer code."""
    if not await run_store(store, lambda: store.is_account(player)):
        raise ApiError(409, "not_an_account", _ANONYMOUS_SIGN_OUT)
    mine = await known_session(request, store, settings)
    everywhere = body is not None and body.everywhere
    chosen = None if everywhere else [mine.session_id] if mine is not None else []
    if not await run_store(store, lambda: store.a_way_back(player, chosen)):
        raise ApiError(409, "no_way_back", _NO_WAY_BACK)
    keep = body is not None and body.keep_new_passkey
    refused = await _mind_new_passkey(store, player, mine, chosen, keep)
    if refused is not None:
        return refused
    await run_store(store, lambda: store.end_sessions(player, chosen))
    set_session_cookie(request, settings, None)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
