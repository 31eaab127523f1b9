# The bytes Vigil's BLE protocols put on the air, terminal side, in Python: the 0xAA55 frame
# family, the TLV + CRC-16 family, the terminal behaviour both share, and the receiving end of
# the reliable-transfer protocol. Each mirrors the Swift reference named in its docstring
# (Sources/VigilBLE and Sources/VigilBLESimulation) byte for byte; docs/ble-protocol.md has the
# layouts. Pure logic, no Bumble: the peer (terminal_peer.py) and the validating central
# (central_check.py) both use it.

import hashlib
import struct
import zlib

# ---------------------------------------------------------------------------------------------
# Checksums


def crc16_ccitt_false(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as VigilBLE's CRC16.ccittFalse."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def crc16_modbus(data, crc=0xFFFF):
    """CRC-16/MODBUS (reflected poly 0xA001, init 0xFFFF), as VigilBLE's CRC16.modbus."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def crc32(data):
    """CRC-32 (IEEE, zlib's), as VigilBLE's CRC32."""
    return zlib.crc32(bytes(data)) & 0xFFFFFFFF


# ---------------------------------------------------------------------------------------------
# Service and characteristic UUIDs (FramedTerminalAdapter, TLVTerminalAdapter, TransferService)

AA55_SERVICE = "AA550000-6B1E-4C3A-8F2D-3C1A7E9B0D11"
AA55_WRITE = "AA550001-6B1E-4C3A-8F2D-3C1A7E9B0D11"
AA55_NOTIFY = "AA550002-6B1E-4C3A-8F2D-3C1A7E9B0D11"
TLV_SERVICE = "7E1F0000-93B2-4D6A-A1C5-5E2B8C4F6A20"
TLV_WRITE = "7E1F0001-93B2-4D6A-A1C5-5E2B8C4F6A20"
TLV_NOTIFY = "7E1F0002-93B2-4D6A-A1C5-5E2B8C4F6A20"
TRANSFER_SERVICE = "5A1B0000-2F5C-4E8B-9C1D-0000B1E7F0A1"
TRANSFER_CHARACTERISTIC = "5A1B0001-2F5C-4E8B-9C1D-0000B1E7F0A1"
# The test peer's own control service (not part of any vendor protocol): a write asks for a
# notification flood, delivered on the same characteristic.
CONTROL_SERVICE = "5A1BFF00-2F5C-4E8B-9C1D-0000B1E7F0A1"
CONTROL_CHARACTERISTIC = "5A1BFF01-2F5C-4E8B-9C1D-0000B1E7F0A1"
FLOOD_COMMAND = 0x7F

# ---------------------------------------------------------------------------------------------
# The 0xAA55 frame: AA 55 | command | length u16 BE | payload | CRC-16/CCITT-FALSE BE over
# command, length and payload (Frame, FrameFormat, FrameReassembler).

AA55_MAX_PAYLOAD = 1024


def encode_frame(command, payload, max_payload=AA55_MAX_PAYLOAD):
    if len(payload) > max_payload:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {max_payload}")
    body = bytes([command]) + struct.pack(">H", len(payload)) + bytes(payload)
    return b"\xAA\x55" + body + struct.pack(">H", crc16_ccitt_false(body))


class FrameReassembler:
    """Frames out of an arbitrarily split byte stream. On a bad header, length or CRC only the
    first sync byte is dropped and the search resumes after it; never raises."""

    def __init__(self, max_payload=AA55_MAX_PAYLOAD):
        self.max_payload = max_payload
        self.buffer = bytearray()
        self.discarded = 0

    def reset(self):
        self.discarded += len(self.buffer)
        self.buffer.clear()

    def append(self, data):
        self.buffer += data
        frames = []
        while True:
            start = self.buffer.find(b"\xAA\x55")
            if start < 0:
                keep = 1 if self.buffer.endswith(b"\xAA") else 0
                self.discarded += len(self.buffer) - keep
                del self.buffer[: len(self.buffer) - keep]
                return frames
            if start:
                self.discarded += start
                del self.buffer[:start]
            if len(self.buffer) < 5:
                return frames
            length = struct.unpack(">H", self.buffer[3:5])[0]
            if length > self.max_payload:
                self.discarded += 1
                del self.buffer[:1]
                continue
            total = 5 + length + 2
            if len(self.buffer) < total:
                return frames
            body = bytes(self.buffer[2 : 5 + length])
            if struct.unpack(">H", self.buffer[5 + length : total])[0] != crc16_ccitt_false(body):
                self.discarded += 1
                del self.buffer[:1]
                continue
            frames.append((body[0], body[3:]))
            del self.buffer[:total]


# ---------------------------------------------------------------------------------------------
# The TLV packet: 02 | body length u16 LE | tag, BER length, value… | CRC-16/MODBUS u16 LE over
# length and body (TLVPacket, TLVPacketReassembler).

TLV_START = 0x02
TLV_MAX_BODY = 2048


class TLVTag:
    COMMAND, STATUS, SEQUENCE = 0x01, 0x02, 0x03
    MODEL, FIRMWARE, SERIAL, TRACE_NUMBER = 0x10, 0x11, 0x12, 0x13
    AMOUNT, CURRENCY, KIND, TIMEOUT = 0x20, 0x21, 0x22, 0x23
    PIN_KEY, MAC_KEY, DATA_KEY, CHECK_VALUES = 0x30, 0x31, 0x32, 0x33
    IC_PARAMETERS = 0x40
    ENTRY_MODE, MASKED_PAN, IC_DATA = 0x50, 0x51, 0x52
    ISSUER_RESPONSE, APPROVED, SCRIPT_RESULTS = 0x60, 0x61, 0x62


def encode_tlv(elements):
    body = bytearray()
    for tag, value in elements:
        length = len(value)
        body.append(tag)
        if length < 0x80:
            body.append(length)
        elif length <= 0xFF:
            body += bytes([0x81, length])
        elif length <= 0xFFFF:
            body += bytes([0x82, length >> 8, length & 0xFF])
        else:
            raise ValueError(f"TLV 0x{tag:02x} value of {length} bytes is too long")
        body += value
    if len(body) > TLV_MAX_BODY:
        raise ValueError(f"TLV body of {len(body)} bytes exceeds {TLV_MAX_BODY}")
    packet = bytes([TLV_START]) + struct.pack("<H", len(body)) + bytes(body)
    return packet + struct.pack("<H", crc16_modbus(packet[1:]))


def decode_tlv_elements(body):
    """The elements of a body, or None when it is inconsistent."""
    elements = []
    index = 0
    while index < len(body):
        tag = body[index]
        index += 1
        if index >= len(body):
            return None
        length = body[index]
        index += 1
        if length >= 0x80:
            extra = length - 0x80
            if extra not in (1, 2) or len(body) - index < extra:
                return None
            length = int.from_bytes(body[index : index + extra], "big")
            index += extra
        if len(body) - index < length:
            return None
        elements.append((tag, bytes(body[index : index + length])))
        index += length
    return elements


def tlv_value(elements, tag):
    for element_tag, value in elements:
        if element_tag == tag:
            return value
    return None


class TLVReassembler:
    """TLV packets out of an arbitrarily split byte stream; on any failure only the start byte
    is dropped. Never raises."""

    def __init__(self, max_body=TLV_MAX_BODY):
        self.max_body = max_body
        self.buffer = bytearray()
        self.discarded = 0

    def reset(self):
        self.discarded += len(self.buffer)
        self.buffer.clear()

    def append(self, data):
        self.buffer += data
        packets = []
        while self.buffer:
            if self.buffer[0] != TLV_START:
                next_start = self.buffer.find(bytes([TLV_START]))
                drop = len(self.buffer) if next_start < 0 else next_start
                self.discarded += drop
                del self.buffer[:drop]
                continue
            if len(self.buffer) < 3:
                return packets
            length = struct.unpack("<H", self.buffer[1:3])[0]
            if length > self.max_body:
                self.discarded += 1
                del self.buffer[:1]
                continue
            total = 3 + length + 2
            if len(self.buffer) < total:
                return packets
            crc = struct.unpack("<H", self.buffer[3 + length : total])[0]
            elements = decode_tlv_elements(bytes(self.buffer[3 : 3 + length]))
            if crc != crc16_modbus(self.buffer[1 : 3 + length]) or elements is None:
                self.discarded += 1
                del self.buffer[:1]
                continue
            packets.append(elements)
            del self.buffer[:total]
        return packets


# ---------------------------------------------------------------------------------------------
# The terminal (SimulatedTerminalBehavior): commands by name, answers as tuples.

AA55_CODES = {"open": 0x01, "deviceInfo": 0x02, "serialNumber": 0x03, "traceNumber": 0x04,
              "updateWorkKeys": 0x10, "updateICParameters": 0x11, "startCardTransaction": 0x20,
              "secondAuthorization": 0x21, "cancel": 0x2F}
TLV_CODES = {"open": 0xA0, "deviceInfo": 0xA1, "serialNumber": 0xA2, "traceNumber": 0xA3,
             "updateWorkKeys": 0xB0, "updateICParameters": 0xB1, "startCardTransaction": 0xC0,
             "secondAuthorization": 0xC1, "cancel": 0xCF}


def check_value(key):
    """The terminal's key check value: the first four bytes of the key's SHA-256 (as the
    simulated terminal computes it)."""
    return hashlib.sha256(bytes(key)).digest()[:4]


class TerminalBehavior:
    """What a terminal does with a decoded request: ("name", arguments) in, ("kind", value)
    answers out. A transaction waits `card_delay` seconds for a card, which a cancel ends."""

    def __init__(self, serial, model="SIM-T100", firmware="4.2.1"):
        self.serial = serial
        self.model = model
        self.firmware = firmware
        self.trace_number = 1000
        self.silent = set()
        self.work_keys = None
        self.ic_parameters = b""
        self.received = []
        self.card = (0x02, "476173******0010", bytes([0x9F, 0x26, 0x08, 0x1A, 0x2B, 0x3C, 0x4D, 0x5E, 0x6F, 0x70, 0x81]))

    def answer(self, name, argument):
        """The immediate answer, ("card", None) for a transaction (answered later by the
        host), or None to stay silent."""
        self.received.append(name)
        if name in self.silent:
            return None
        if name == "open":
            return ("ok", None)
        if name == "deviceInfo":
            return ("info", (self.model, self.firmware))
        if name == "serialNumber":
            return ("serial", self.serial)
        if name == "traceNumber":
            number = self.trace_number
            self.trace_number = (self.trace_number + 1) & 0xFFFFFFFF
            return ("traceNumber", number)
        if name == "updateWorkKeys":
            self.work_keys = argument
            return ("checkValues", b"".join(check_value(key) for key in argument))
        if name == "updateICParameters":
            self.ic_parameters = argument
            return ("ok", None)
        if name == "startCardTransaction":
            return ("card", self.card)
        if name == "secondAuthorization":
            return ("secondAuthorization", (argument[:1] == b"\x30", bytes([0x9F, 0x5B, 0x01, 0x00])))
        if name == "cancel":
            return ("ok", None)
        return None


class FramedTerminalWire:
    """The 0xAA55 family, terminal side (FramedTerminalWire.swift)."""

    vendor = "framed-aa55"
    service, write, notify = AA55_SERVICE, AA55_WRITE, AA55_NOTIFY
    names = {code: name for name, code in AA55_CODES.items()}

    def __init__(self):
        self.reassembler = FrameReassembler()

    def reset(self):
        self.reassembler.reset()

    def requests(self, data):
        """[(name, argument, address)] for each complete, well-formed request."""
        out = []
        for command, payload in self.reassembler.append(data):
            parsed = self.parse(command, payload)
            if parsed is not None:
                out.append((parsed[0], parsed[1], command))
        return out

    def parse(self, command, payload):
        """(name, argument) of a request's command byte and payload (for an authenticated
        frame: its body), or None when unknown or malformed."""
        name = self.names.get(command)
        if name is None:
            return None
        argument = None
        if name == "updateWorkKeys":
            if len(payload) != 48:
                return None
            argument = (payload[0:16], payload[16:32], payload[32:48])
        elif name == "updateICParameters":
            argument = payload
        elif name == "startCardTransaction":
            if len(payload) != 12:
                return None
            argument = payload
        elif name == "secondAuthorization":
            if len(payload) < 2 or len(payload) != 2 + struct.unpack(">H", payload[:2])[0]:
                return None
            argument = payload[2:]
        return (name, argument)

    def encode(self, reply, command):
        return encode_frame(command | 0x80, self.answer_payload(reply))

    def answer_payload(self, reply):
        """The payload of the answer frame to `reply` (for an authenticated answer: its body)."""
        kind, value = reply
        payload = bytearray([0])

        def string(text):
            data = text.encode()[:255]
            payload.append(len(data))
            payload.extend(data)

        if kind == "status":
            payload[0] = value
        elif kind == "info":
            string(value[0])
            string(value[1])
        elif kind == "serial":
            string(value)
        elif kind == "traceNumber":
            payload += struct.pack(">I", value)
        elif kind == "checkValues":
            payload += value
        elif kind == "card":
            mode, pan, ic_data = value
            payload.append(mode)
            string(pan)
            payload += struct.pack(">H", len(ic_data)) + ic_data
        elif kind == "secondAuthorization":
            approved, script = value
            payload.append(1 if approved else 0)
            payload += struct.pack(">H", len(script)) + script
        return bytes(payload)


class TLVTerminalWire:
    """The TLV + CRC-16 family, terminal side (TLVTerminalWire.swift)."""

    vendor = "tlv-crc16"
    service, write, notify = TLV_SERVICE, TLV_WRITE, TLV_NOTIFY
    names = {code: name for name, code in TLV_CODES.items()}

    def __init__(self):
        self.reassembler = TLVReassembler()

    def reset(self):
        self.reassembler.reset()

    def requests(self, data):
        out = []
        for elements in self.reassembler.append(data):
            command = tlv_value(elements, TLVTag.COMMAND)
            sequence = tlv_value(elements, TLVTag.SEQUENCE)
            if command is None or len(command) != 1 or sequence is None or len(sequence) != 1:
                continue
            name = self.names.get(command[0])
            if name is None:
                continue
            argument = None
            if name == "updateWorkKeys":
                keys = [tlv_value(elements, tag) for tag in (TLVTag.PIN_KEY, TLVTag.MAC_KEY, TLVTag.DATA_KEY)]
                if any(key is None for key in keys):
                    continue
                argument = tuple(keys)
            elif name == "updateICParameters":
                argument = tlv_value(elements, TLVTag.IC_PARAMETERS) or b""
            elif name == "startCardTransaction":
                if tlv_value(elements, TLVTag.AMOUNT) is None or tlv_value(elements, TLVTag.CURRENCY) is None:
                    continue
            elif name == "secondAuthorization":
                argument = tlv_value(elements, TLVTag.ISSUER_RESPONSE) or b""
            out.append((name, argument, (command[0], sequence[0])))
        return out

    def encode(self, reply, address):
        kind, value = reply
        command, sequence = address
        elements = [(TLVTag.COMMAND, bytes([command])), (TLVTag.SEQUENCE, bytes([sequence]))]
        status = 0
        if kind == "status":
            status = value
        elif kind == "info":
            elements += [(TLVTag.MODEL, value[0].encode()), (TLVTag.FIRMWARE, value[1].encode())]
        elif kind == "serial":
            elements.append((TLVTag.SERIAL, value.encode()))
        elif kind == "traceNumber":
            elements.append((TLVTag.TRACE_NUMBER, struct.pack("<I", value)))
        elif kind == "checkValues":
            elements.append((TLVTag.CHECK_VALUES, value))
        elif kind == "card":
            mode, pan, ic_data = value
            elements += [(TLVTag.ENTRY_MODE, bytes([mode])), (TLVTag.MASKED_PAN, pan.encode()), (TLVTag.IC_DATA, ic_data)]
        elif kind == "secondAuthorization":
            approved, script = value
            elements += [(TLVTag.APPROVED, bytes([1 if approved else 0])), (TLVTag.SCRIPT_RESULTS, script)]
        elements.insert(2, (TLVTag.STATUS, bytes([status])))
        return encode_tlv(elements)


# ---------------------------------------------------------------------------------------------
# The reliable-transfer protocol (TransferPacket, TransferReceiver). Packets end with the
# CRC-32 (LE) of everything before it; multi-byte fields are little-endian.

T_START, T_DATA, T_ABORT, T_QUERY, T_START_ACK, T_ACK, T_DONE = 0x01, 0x02, 0x03, 0x04, 0x81, 0x82, 0x84
MODE_STOP_AND_WAIT, MODE_WINDOW = 0, 1
DONE_VERIFIED, DONE_HASH_MISMATCH, DONE_NO_ACTIVE = 0, 1, 2
START_ACCEPTED, START_TOO_LARGE, START_BAD_VERSION, START_INVALID = 0, 1, 2, 3
MAX_BITMAP = 32


def seal(body):
    return bytes(body) + struct.pack("<I", crc32(body))


def start_packet(mode, transfer_id, total, chunk_size, window, sha256):
    return seal(struct.pack("<BBBBIQHH", T_START, 1, mode, 0, transfer_id, total, chunk_size, window) + sha256)


def data_packet(sequence, wide, payload):
    return seal(bytes([T_DATA]) + struct.pack("<I" if wide else "<H", sequence) + bytes(payload))


def query_packet(transfer_id):
    return seal(struct.pack("<BI", T_QUERY, transfer_id))


def parse_peer_packet(packet):
    """A packet the peer sent, as a tuple, for a central: ("startAck", status, id, window,
    resumeFrom), ("ack", nack, cumulative, bitmap), ("done", status, id, bytes), ("abort",
    reason, id); None when malformed."""
    if len(packet) < 5 or struct.unpack("<I", packet[-4:])[0] != crc32(packet[:-4]):
        return None
    body = packet[1:-4]
    kind = packet[0]
    if kind == T_START_ACK and len(body) == 11:
        return ("startAck",) + struct.unpack("<BIHI", body)
    if kind == T_ACK and len(body) >= 6 and len(body) == 6 + body[5]:
        return ("ack", bool(body[0] & 1), struct.unpack("<I", body[1:5])[0], bytes(body[6:]))
    if kind == T_DONE and len(body) == 13:
        return ("done",) + struct.unpack("<BIQ", body)
    if kind == T_ABORT and len(body) == 5:
        return ("abort",) + struct.unpack("<BI", body)
    return None


class TransferReceiver:
    """The receiving end as a state machine (TransferReceiver.swift): `handle(packet, now)`
    returns actions — ("send", bytes), ("began", id, total, resumeOffset), ("deliver", offset,
    bytes), ("completed", id, total, verified), ("abandoned", id), ("rejected", reason) — and
    `deadline` says when `timer(now)` wants calling (seconds, the caller's clock)."""

    def __init__(self, max_transfer=64 << 20, max_chunk=512, receive_window=64, max_notification=244,
                 ack_every=8, ack_delay=0.005):
        self.max_transfer = max_transfer
        self.max_chunk = max_chunk
        self.receive_window = max(1, receive_window)
        self.max_notification = max_notification
        self.ack_every = max(1, ack_every)
        self.ack_delay = ack_delay
        self.active = None

    @property
    def max_bitmap_bytes(self):
        return max(0, min(MAX_BITMAP, self.max_notification - 11))

    @property
    def deadline(self):
        return self.active["deadline"] if self.active else None

    @property
    def delivered(self):
        if not self.active:
            return 0
        return min(self.active["total"], self.active["next"] * self.active["chunk_size"])

    def handle(self, packet, now):
        actions = []
        active = self.active
        if len(packet) < 5:
            actions.append(("rejected", "truncated packet"))
            return actions
        kind = packet[0]
        if struct.unpack("<I", packet[-4:])[0] != crc32(packet[:-4]):
            actions.append(("rejected", f"CRC-32 mismatch on packet type 0x{kind:02x}"))
            if kind == T_DATA and active is not None and active["outcome"] is None:
                self._ack(True, actions)
            return actions
        body = packet[1:-4]
        if kind == T_START:
            if len(body) != 51:
                actions.append(("rejected", "START length"))
                return actions
            version, mode, flags, transfer_id, total, chunk_size, window = struct.unpack("<BBBIQHH", body[:19])
            sha = bytes(body[19:51])
            if mode not in (0, 1) or chunk_size == 0 or window == 0:
                actions.append(("rejected", "START field"))
                return actions
            self._start((version, mode, flags, transfer_id, total, chunk_size, window, sha), actions)
        elif kind == T_DATA:
            if active is None:
                actions.append(("rejected", "DATA while no transfer is active"))
                actions.append(("send", seal(struct.pack("<BBIQ", T_DONE, DONE_NO_ACTIVE, 0, 0))))
                return actions
            width = 4 if active["wide"] else 2
            if len(body) < width:
                actions.append(("rejected", "DATA truncated"))
                return actions
            sequence = int.from_bytes(body[:width], "little")
            self._data(sequence, bytes(body[width:]), now, actions)
        elif kind == T_QUERY:
            if len(body) != 4:
                actions.append(("rejected", "QUERY length"))
                return actions
            transfer_id = struct.unpack("<I", body)[0]
            if active is None or active["id"] != transfer_id:
                actions.append(("send", seal(struct.pack("<BBIQ", T_DONE, DONE_NO_ACTIVE, transfer_id, 0))))
            elif active["outcome"] is not None:
                self._done(actions)
            else:
                self._ack(False, actions)
        elif kind == T_ABORT:
            if len(body) == 5:
                transfer_id = struct.unpack("<I", body[1:5])[0]
                if active is not None and active["id"] == transfer_id:
                    self.active = None
                    actions.append(("abandoned", transfer_id))
        else:
            actions.append(("rejected", f"unexpected packet type 0x{kind:02x}"))
        return actions

    def timer(self, now):
        if self.active is None or self.active["deadline"] is None or self.active["deadline"] > now:
            return []
        actions = []
        self._ack(False, actions)
        return actions

    def _start(self, start, actions):
        version, mode, flags, transfer_id, total, chunk_size, window, sha = start

        def refuse(status, reason):
            actions.append(("rejected", reason))
            actions.append(("send", seal(struct.pack("<BBIHI", T_START_ACK, status, transfer_id, 0, 0))))

        if version != 1:
            return refuse(START_BAD_VERSION, f"unsupported version {version}")
        if total > self.max_transfer:
            return refuse(START_TOO_LARGE, f"START announces {total} bytes, limit {self.max_transfer}")
        if chunk_size > self.max_chunk:
            return refuse(START_INVALID, f"chunk size {chunk_size}")
        chunk_count = -(-total // chunk_size)
        if chunk_count > 0xFFFFFFFF:
            return refuse(START_INVALID, f"chunk count {chunk_count}")
        current = self.active
        if current is not None and current["start"] == start:
            # The same transfer again: the central reconnected (or lost the START-ACK). Resume.
            actions.append(("began", transfer_id, total, min(total, current["next"] * chunk_size)))
            actions.append(("send", seal(struct.pack("<BBIHI", T_START_ACK, START_ACCEPTED, transfer_id,
                                                     min(current["window"], 0xFFFF), current["next"]))))
            if current["outcome"] is not None:
                self._done(actions)
            return
        if current is not None:
            actions.append(("abandoned", current["id"]))
        bitmap_limit = self.max_bitmap_bytes * 8 + 1
        granted = 1 if mode == MODE_STOP_AND_WAIT else max(1, min(window, self.receive_window, bitmap_limit))
        self.active = {"start": start, "id": transfer_id, "total": total, "chunk_size": chunk_size, "mode": mode,
                       "sha": sha, "chunks": chunk_count, "wide": chunk_count > 65536, "window": granted,
                       "next": 0, "highest": None, "held": {}, "hasher": hashlib.sha256(), "unacked": 0,
                       "deadline": None, "outcome": None}
        actions.append(("began", transfer_id, total, 0))
        actions.append(("send", seal(struct.pack("<BBIHI", T_START_ACK, START_ACCEPTED, transfer_id, granted, 0))))
        if chunk_count == 0:
            self._finish(actions)

    def _expected_length(self, sequence):
        a = self.active
        return min(a["chunk_size"], a["total"] - sequence * a["chunk_size"])

    def _data(self, sequence, payload, now, actions):
        a = self.active
        if a["outcome"] is not None:
            self._done(actions)
            return
        if sequence >= a["chunks"]:
            actions.append(("rejected", f"chunk {sequence} beyond the last ({a['chunks']} chunks)"))
            self._ack(True, actions)
            return
        expected = self._expected_length(sequence)
        if len(payload) != expected:
            actions.append(("rejected", f"chunk {sequence} has {len(payload)} bytes, expected {expected}"))
            self._ack(True, actions)
            return
        duplicate = sequence < a["next"] or sequence in a["held"]
        if not duplicate and sequence >= a["next"] + a["window"]:
            actions.append(("rejected", f"chunk {sequence} outside window {a['next']}..<{a['next'] + a['window']}"))
            self._ack(True, actions)
            return
        new_gap = False
        if not duplicate:
            highest = a["highest"]
            if sequence == a["next"]:
                self._deliver(sequence, payload, actions)
                while a["next"] in a["held"]:
                    self._deliver(a["next"], a["held"].pop(a["next"]), actions)
            else:
                a["held"][sequence] = payload
                new_gap = sequence > (highest + 1 if highest is not None else a["next"])
            a["highest"] = max(highest if highest is not None else sequence, sequence)
        a["unacked"] += 1
        if a["next"] == a["chunks"]:
            self._finish(actions)
            return
        if new_gap:
            self._ack(True, actions)
        elif a["mode"] == MODE_STOP_AND_WAIT or a["unacked"] >= self.ack_every:
            self._ack(False, actions)
        elif a["deadline"] is None:
            a["deadline"] = now + self.ack_delay

    def _deliver(self, sequence, payload, actions):
        a = self.active
        a["hasher"].update(payload)
        actions.append(("deliver", sequence * a["chunk_size"], payload))
        a["next"] = sequence + 1

    def _finish(self, actions):
        a = self.active
        verified = a["hasher"].digest() == a["sha"]
        a["outcome"] = DONE_VERIFIED if verified else DONE_HASH_MISMATCH
        a["held"].clear()
        self._ack(False, actions)
        if not verified:
            actions.append(("rejected", f"transfer {a['id']}: SHA-256 mismatch"))
        actions.append(("completed", a["id"], a["total"], verified))
        self._done(actions)

    def _ack(self, nack, actions):
        a = self.active
        if a is None:
            return
        bitmap = bytearray()
        if a["highest"] is not None and a["highest"] > a["next"] and a["held"]:
            span = min(a["highest"] - a["next"], self.max_bitmap_bytes * 8)
            bitmap = bytearray((span + 7) // 8)
            for offset in range(span):
                if a["next"] + 1 + offset in a["held"]:
                    bitmap[offset // 8] |= 1 << (offset % 8)
        a["unacked"] = 0
        a["deadline"] = None
        cumulative = min(a["next"], 0xFFFFFFFF)
        actions.append(("send", seal(struct.pack("<BBIB", T_ACK, 1 if nack else 0, cumulative, len(bitmap)) + bytes(bitmap))))

    def _done(self, actions):
        a = self.active
        if a is None or a["outcome"] is None:
            return
        received = a["total"] if a["outcome"] == DONE_VERIFIED else a["next"] * a["chunk_size"]
        actions.append(("send", seal(struct.pack("<BBIQ", T_DONE, a["outcome"], a["id"], min(received, a["total"])))))
