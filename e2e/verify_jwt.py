#!/usr/bin/python3
"""An independent verifier of passkeyd's access tokens: PyJWT + cryptography (Debian's python3-jwt and
python3-cryptography), as any backend would verify them, with the JWKS passkeyd serves and no call to passkeyd.

  verify_jwt.py JWKS_FILE TOKEN ISSUER AUDIENCE            prints the verified claims as JSON (exit 1 if refused)
  verify_jwt.py --negatives JWKS_FILE TOKEN ISSUER AUDIENCE
      checks that TOKEN verifies and that a tampered copy, the same token 601 s later (expired), a wrong audience and
      an unknown kid are each refused; prints one line per case (exit 1 if any is accepted)
"""

import base64
import json
import sys

import jwt


def verify(token, jwks, issuer, audience, leeway=0, verify_iat=True):
    header = jwt.get_unverified_header(token)
    keys = {key["kid"]: key for key in jwks["keys"]}
    if header.get("kid") not in keys:
        raise jwt.InvalidTokenError(f"unknown kid {header.get('kid')!r}")
    key = jwt.PyJWK(keys[header["kid"]])
    return jwt.decode(token, key.key, algorithms=["ES256", "EdDSA"], issuer=issuer, audience=audience, leeway=leeway,
                      options={"require": ["exp", "iat", "iss", "aud", "sub", "jti"], "verify_iat": verify_iat})


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def negatives(token, jwks, issuer, audience):
    verify(token, jwks, issuer, audience)
    header, payload, signature = token.split(".")
    claims = json.loads(unb64(payload))
    claims["sub"] = "someone-else"
    tampered = header + "." + b64(json.dumps(claims, separators=(",", ":")).encode()) + "." + signature
    head = json.loads(unb64(header))
    head["kid"] = "not-a-published-kid"
    unknown_kid = b64(json.dumps(head, separators=(",", ":")).encode()) + "." + payload + "." + signature
    cases = [
        ("tampered claims", lambda: verify(tampered, jwks, issuer, audience), jwt.InvalidSignatureError),
        # 601 s later, as a negative leeway (iat then looks 601 s ahead, so only exp is judged).
        ("expired (601 s later)", lambda: verify(token, jwks, issuer, audience, leeway=-601, verify_iat=False), jwt.ExpiredSignatureError),
        ("wrong audience", lambda: verify(token, jwks, issuer, "https://other.example"), jwt.InvalidAudienceError),
        ("unknown kid", lambda: verify(unknown_kid, jwks, issuer, audience), jwt.InvalidTokenError),
    ]
    failed = False
    for name, attempt, expected in cases:
        try:
            attempt()
            print(f"ACCEPTED: {name}")
            failed = True
        except expected as error:
            print(f"refused: {name} ({type(error).__name__})")
    return not failed


def main(argv):
    check_negatives = argv[:1] == ["--negatives"]
    if check_negatives:
        argv = argv[1:]
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    jwks_file, token, issuer, audience = argv
    with open(jwks_file) as file:
        jwks = json.load(file)
    try:
        if check_negatives:
            return 0 if negatives(token, jwks, issuer, audience) else 1
        print(json.dumps(verify(token, jwks, issuer, audience), sort_keys=True))
        return 0
    except jwt.InvalidTokenError as error:
        print(f"refused: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
