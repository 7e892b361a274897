"""A software passkey authenticator for API tests: what a browser and its authenticator answer
to the server's WebAuthn options (``none`` attestation, ES256), made with the same libraries
the ``webauthn`` package reads them with (cryptography, cbor2).

The browser tests use Chromium's own virtual authenticator instead (the DevTools WebAuthn
domain); this one lets the API tests and the PostgreSQL races sign in without a browser.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url


@dataclass
class Passkey:
    """One credential: its id, private key, user handle and use counter."""

    credential_id: bytes
    key: ec.EllipticCurvePrivateKey
    user_handle: bytes
    sign_count: int = 0


@dataclass
class Authenticator:
    """Makes and uses passkeys for one origin (``http://localhost``-like)."""

    origin: str
    passkeys: list[Passkey] = field(default_factory=list)

    @property
    def rp_id(self) -> str:
        return self.origin.split("://", 1)[1].split(":", 1)[0]

    def _client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}
        ).encode()

    def create(
        self, options: dict[str, Any], *, credential_id: bytes | None = None
    ) -> dict[str, Any]:
        """Answer ``navigator.credentials.create()`` options: a new passkey (kept here), with
        a random credential id unless one is given (a crafted answer)."""
        assert options["rp"]["id"] == self.rp_id
        passkey = Passkey(
            credential_id=credential_id or secrets.token_bytes(32),
            key=ec.generate_private_key(ec.SECP256R1()),
            user_handle=base64url_to_bytes(options["user"]["id"]),
        )
        self.passkeys.append(passkey)
        numbers = passkey.key.public_key().public_numbers()
        cose = cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([0x45])  # user present, user verified, attested credential data
            + struct.pack(">I", 0)
            + bytes(16)  # AAGUID
            + struct.pack(">H", len(passkey.credential_id))
            + passkey.credential_id
            + cose
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        raw_id = bytes_to_base64url(passkey.credential_id)
        return {
            "id": raw_id,
            "rawId": raw_id,
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(
                    self._client_data("webauthn.create", options["challenge"])
                ),
                "attestationObject": bytes_to_base64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(self, options: dict[str, Any], passkey: Passkey | None = None) -> dict[str, Any]:
        """Answer ``navigator.credentials.get()`` options with a passkey (the last made)."""
        passkey = passkey or self.passkeys[-1]
        passkey.sign_count += 1
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([0x05])  # user present, user verified
            + struct.pack(">I", passkey.sign_count)
        )
        client_data = self._client_data("webauthn.get", options["challenge"])
        signature = passkey.key.sign(
            auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        raw_id = bytes_to_base64url(passkey.credential_id)
        return {
            "id": raw_id,
            "rawId": raw_id,
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(client_data),
                "authenticatorData": bytes_to_base64url(auth_data),
                "signature": bytes_to_base64url(signature),
                "userHandle": bytes_to_base64url(passkey.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
