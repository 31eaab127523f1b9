"""Authenticated 0xAA55 commands (docs/ble-protocol.md section 4), written from the document with
Python's own hmac and hashlib only: the session key (HKDF-SHA256), the key confirmation, the tag,
and the terminal's rules (TerminalCommandGuard in Swift). An implementation independent of
VigilBLE's, for the cross-check test (CommandAuthenticationTests) and for a Python terminal peer.

Run as a script with a JSON file of cases (each: allowed commands, MAC key, both nonces, check
values, request frames as command and payload hex), it prints, per case, the session key, the
confirmation and a verdict per frame ("accepted:counter:body hex" or "refused:counter:status").
"""
import hashlib
import hmac
import json
import sys

INFO = b"VigilBLE command key v1"
LABEL = b"VigilBLE key confirmation"
TAG_LENGTH = 16
OVERHEAD = 4 + TAG_LENGTH

NO_SESSION_KEY, BAD_TAG, STALE_COUNTER, TRUNCATED = 0xA0, 0xA1, 0xA2, 0xA3


def hkdf_sha256(ikm, salt, info, length):
    prk = hmac.new(salt if salt else bytes(32), ikm, hashlib.sha256).digest()
    output, block, index = b"", b"", 1
    while len(output) < length:
        block = hmac.new(prk, block + info + bytes([index]), hashlib.sha256).digest()
        output += block
        index += 1
    return output[:length]


def session_key(mac_key, phone_nonce, terminal_nonce):
    return hkdf_sha256(mac_key, phone_nonce + terminal_nonce, INFO, 32)


def confirmation(key, phone_nonce, terminal_nonce, check_values):
    return hmac.new(key, LABEL + phone_nonce + terminal_nonce + check_values, hashlib.sha256).digest()[:16]


def tag(key, command, counter, body):
    message = bytes([command]) + (OVERHEAD + len(body)).to_bytes(2, "big") + counter.to_bytes(4, "big") + body
    return hmac.new(key, message, hashlib.sha256).digest()[:TAG_LENGTH]


def seal(key, command, counter, body):
    """The payload of an authenticated frame: counter, body, tag."""
    return counter.to_bytes(4, "big") + body + tag(key, command, counter, body)


class CommandGuard:
    """The terminal's rules: plain commands from `allowed_before_key` until a key exists; then a
    tag that verifies and a counter above the last accepted one, checked in that order."""

    def __init__(self, allowed_before_key):
        self.allowed_before_key = set(allowed_before_key)
        self.key = None
        self.last = 0

    def establish(self, mac_key, phone_nonce, terminal_nonce, check_values):
        self.key = session_key(mac_key, phone_nonce, terminal_nonce)
        self.last = 0
        return confirmation(self.key, phone_nonce, terminal_nonce, check_values)

    def reset(self):
        """Forgets the session (the link went down)."""
        self.key = None
        self.last = 0

    def check(self, command, payload):
        """("accepted", counter or None, body) or ("refused", counter, status)."""
        if self.key is None:
            if command in self.allowed_before_key:
                return ("accepted", None, payload)
            return ("refused", 0, NO_SESSION_KEY)
        if len(payload) < OVERHEAD:
            return ("refused", 0, TRUNCATED)
        counter = int.from_bytes(payload[:4], "big")
        body, received = payload[4:-TAG_LENGTH], payload[-TAG_LENGTH:]
        if not hmac.compare_digest(received, tag(self.key, command, counter, body)):
            return ("refused", counter, BAD_TAG)
        if counter <= self.last:
            return ("refused", counter, STALE_COUNTER)
        self.last = counter
        return ("accepted", counter, body)


def cross_check(cases):
    results = []
    for case in cases:
        h = bytes.fromhex
        guard = CommandGuard(case["allowed"])
        confirm = guard.establish(h(case["macKey"]), h(case["phoneNonce"]), h(case["terminalNonce"]), h(case["checkValues"]))
        verdicts = []
        for frame in case["frames"]:
            verdict, counter, detail = guard.check(frame["command"], h(frame["payload"]))
            verdicts.append("%s:%d:%s" % (verdict, counter or 0, detail.hex() if verdict == "accepted" else detail))
        results.append({"key": guard.key.hex(), "confirmation": confirm.hex(), "verdicts": verdicts})
    return results


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        print(json.dumps(cross_check(json.load(handle))))
