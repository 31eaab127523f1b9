#!/usr/bin/env python3
# A card terminal and transfer peer on a real (virtual) Bluetooth LE stack, for Vigil's BLE
# integration tests: a Bumble device that advertises as one of the two terminal families and
# serves, in one GATT table, both families' services (the 0xAA55 frames and TLV + CRC-16 command
# protocols), the reliable-transfer service (receiver side, stop-and-wait and window, final
# size + SHA-256 check), and a small control service for notification floods.
#
# With --with-controllers it first starts two Bumble virtual controllers joined by Bumble's
# local link, each an HCI H4 transport on a loopback TCP port chosen by the kernel: the peer
# attaches to the second over TCP like any host would, the first is for the host under test.
#
# It reports on standard output, one JSON object per line, flushed: {"event": "ready",
# "host_port": …} once the peer advertises, then connections, disconnections, terminal
# commands, transfer progress and completions (with the SHA-256 of the bytes it stored).
#
# Authenticated mode (--authenticate, docs/ble-protocol.md section 4): the 0xAA55 terminal puts
# every request frame through vigil_auth's CommandGuard before acting on it. Before the key update
# only open, device info, serial number, trace number and the key update pass, plain; the key
# update carries the phone's nonce, and the answer adds the terminal's nonce and the confirmation
# tag; from then on every command must carry a counter and a tag and every answer is sealed with
# the counter it answers. A refused frame gets the status answer 0xA0…0xA3 (sealed once a key
# exists), is reported as {"event": "refused", …} and is never acted on. The work keys arrive
# "encrypted" under --master-key with the simulator's stand-in wrap (XOR with HMAC-SHA256(master
# key, "VigilBLE simulated key wrap")), as AuthenticatingTerminalPeripheral.wrapKey does.
#
# Man in the middle (--attack flip|replay|reorder, vigil_relay.py): the 0xAA55 frames as they
# arrive over the link go through a hostile relay before the terminal (and its guard) sees them;
# the relay reports each frame it forged as {"event": "forged", …}. "command" events list what
# the terminals acted on, so a test can check that a forged command was not.
#
# Fault knobs (see --help): drop the link once a transfer has delivered N bytes; answer writes
# to a characteristic with an ATT error; never answer Write Requests to a characteristic (the
# client's ATT transaction times out); never answer a terminal command; the flood itself is
# asked for over the control characteristic (write 01 | count u32 LE | frame payload u16 LE).
#
# Loopback only: every socket binds or connects to 127.0.0.1.

import argparse
import asyncio
import hashlib
import hmac
import json
import logging
import os
import signal
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import att  # noqa: E402
from bumble.controller import Controller  # noqa: E402
from bumble.core import PhysicalTransport  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import Characteristic, CharacteristicValue, Service  # noqa: E402
from bumble import hci  # noqa: E402
from bumble.hci import Address  # noqa: E402
from bumble.link import LocalLink  # noqa: E402
from bumble.transport import open_transport  # noqa: E402
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket  # noqa: E402

import vigil_auth as auth  # noqa: E402
import vigil_relay as relay  # noqa: E402
import vigil_wire as wire  # noqa: E402

PEER_MTU = 247
KEY_UPDATE = wire.AA55_CODES["updateWorkKeys"]
NONCE_LENGTH = 16


def unwrap_key(key, master_key):
    """The simulator's stand-in key encryption, its own inverse (keys of at most 32 bytes)."""
    pad = hmac.new(master_key, b"VigilBLE simulated key wrap", hashlib.sha256).digest()
    return bytes(a ^ b for a, b in zip(key, pad))


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}, sort_keys=True), flush=True)


def uuid_le(uuid):
    return bytes.fromhex(uuid.replace("-", ""))[::-1]


def ad_structure(kind, data):
    return bytes([len(data) + 1, kind]) + data


class AddressedLocalLink(LocalLink):
    """Bumble's local link, sending LE data from the address the sender's connection really uses.
    Bumble 0.0.236 always sends from the sender's random address, so a central that connects
    with its public address (as VigilBLEHost does) has every ACL packet dropped by the peer's
    controller ("no connection for 00:00:00:00:00:00")."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport != PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        destination = self.find_le_controller(destination_address)
        source = next((connection.self_address for connection in sender_controller.le_connections.values()
                       if connection.peer_address == destination_address), sender_controller.random_address)
        if destination is not None:
            asyncio.get_running_loop().call_soon(destination.on_link_acl_data, source, transport, data)


class TerminalPeer:
    def __init__(self, device, options):
        self.device = device
        self.options = options
        self.connection = None
        self.wires = {"aa55": wire.FramedTerminalWire(), "tlv": wire.TLVTerminalWire()}
        self.behaviors = {"aa55": wire.TerminalBehavior(options.aa55_serial),
                          "tlv": wire.TerminalBehavior(options.tlv_serial)}
        for behavior in self.behaviors.values():
            behavior.silent = set(options.silent_command)
        self.receiver = wire.TransferReceiver()
        self.stored = bytearray()
        self.dropped_once = False
        self.ack_timer = None
        self.att_errors = {}
        for spec in options.att_error:
            uuid, _, code = spec.rpartition(":")
            self.att_errors[uuid.upper()] = int(code, 0)
        self.no_response = {uuid.upper() for uuid in options.no_response}
        self.pending_card = None
        self.guard = None
        if options.authenticate:
            self.master_key = bytes.fromhex(options.master_key)
            self.guard = auth.CommandGuard(wire.AA55_CODES[name] for name in
                                           ("open", "deviceInfo", "serialNumber", "traceNumber", "updateWorkKeys"))
        self.relay = None
        if options.attack:
            target = options.attack_target or ("updateICParameters" if options.attack == "reorder" else "startCardTransaction")
            self.relay = relay.ManInTheMiddle(options.attack, wire.AA55_CODES[target], options.flip_offset)
        self.outbox = asyncio.Queue()
        self.characteristics = {}
        self._build_gatt()

    # -- GATT table --------------------------------------------------------------------------

    def _characteristic(self, uuid, properties, on_write=None):
        value = CharacteristicValue(write=self._writer(uuid, on_write)) if on_write else b""
        permissions = Characteristic.READABLE | Characteristic.WRITEABLE
        characteristic = Characteristic(uuid, properties, permissions, value)
        self.characteristics[uuid] = characteristic
        return characteristic

    def _writer(self, uuid, on_write):
        def write(connection, value):
            if uuid in self.att_errors:
                emit("att-error", characteristic=uuid, code=self.att_errors[uuid])
                raise att.ATT_Error(self.att_errors[uuid])
            if uuid in self.no_response:
                emit("write-unanswered", characteristic=uuid)
                # Never resolves: Bumble sends the Write Response only when the write returns.
                return asyncio.get_running_loop().create_future()
            on_write(bytes(value))
            return None
        return write

    def _build_gatt(self):
        props = Characteristic.Properties
        write_both = props.WRITE | props.WRITE_WITHOUT_RESPONSE
        services = []
        for key in ("aa55", "tlv"):
            w = self.wires[key]
            services.append(Service(w.service, [
                self._characteristic(w.write, write_both, lambda data, key=key: self._terminal_write(key, data)),
                self._characteristic(w.notify, props.NOTIFY),
            ]))
        services.append(Service(wire.TRANSFER_SERVICE, [
            self._characteristic(wire.TRANSFER_CHARACTERISTIC, write_both | props.NOTIFY, self._transfer_write),
        ]))
        services.append(Service(wire.CONTROL_SERVICE, [
            self._characteristic(wire.CONTROL_CHARACTERISTIC, write_both | props.NOTIFY, self._control_write),
        ]))
        self.device.add_services(services)
        self.device.gatt_server.max_mtu = PEER_MTU

    # -- notifications, in order -------------------------------------------------------------

    def notify(self, uuid, data):
        """Queues `data` as notifications of at most ATT_MTU − 3 bytes each."""
        if self.connection is None:
            return
        limit = max(1, self.connection.att_mtu - 3)
        for offset in range(0, len(data), limit):
            self.outbox.put_nowait((self.connection, self.characteristics[uuid], data[offset:offset + limit]))

    async def send_notifications(self):
        while True:
            connection, characteristic, value = await self.outbox.get()
            if connection is not self.connection:
                continue
            try:
                await self.device.notify_subscriber(connection, characteristic, value)
            except Exception as error:  # the link went away under us
                emit("notify-failed", reason=str(error))

    # -- the terminals -----------------------------------------------------------------------

    def _terminal_write(self, key, data):
        if key == "aa55" and (self.guard is not None or self.relay is not None):
            return self._framed_write(data)
        w = self.wires[key]
        for name, argument, address in w.requests(data):
            self._act(key, name, argument, address, None)

    def _act(self, key, name, argument, address, counter):
        """The terminal acts on a request (the only place it does): reports it, then answers."""
        w = self.wires[key]
        fields = {} if counter is None else {"counter": counter}
        if isinstance(argument, (bytes, bytearray)):
            fields["argument"] = bytes(argument).hex()
        emit("command", vendor=w.vendor, name=name, **fields)
        answer = self.behaviors[key].answer(name, argument)
        if answer is None:
            return
        if answer[0] == "card":
            self._start_card(key, answer, address, counter)
            return
        if name == "cancel" and self.pending_card is not None:
            handle, card_key, card_address, card_counter = self.pending_card
            handle.cancel()
            self.pending_card = None
            self.notify(self.wires[card_key].notify, self._answer_frame(card_key, ("status", 6), card_address, card_counter))
        self.notify(w.notify, self._answer_frame(key, answer, address, counter))

    def _answer_frame(self, key, reply, address, counter):
        """The answer's bytes: sealed with the request's counter once a session key exists."""
        w = self.wires[key]
        if key != "aa55" or self.guard is None or self.guard.key is None or counter is None:
            return w.encode(reply, address)
        command = address | 0x80
        return wire.encode_frame(command, auth.seal(self.guard.key, command, counter, w.answer_payload(reply)))

    def _framed_write(self, data):
        """0xAA55 writes through the relay (when attacking), then the guard (when authenticating)."""
        w = self.wires["aa55"]
        relayed = self.relay.relay(data) if self.relay is not None else [(data, False)]
        for value, forged in relayed:
            if forged:
                emit("forged", attack=self.relay.attack, command=value[2], frame=value.hex())
            for command, payload in w.reassembler.append(value):
                if self.guard is None:
                    parsed = w.parse(command, payload)
                    if parsed is not None:
                        self._act("aa55", parsed[0], parsed[1], command, None)
                    continue
                verdict, counter, detail = self.guard.check(command, payload)
                if verdict == "refused":
                    self._refuse(command, counter, detail)
                    continue
                if command == KEY_UPDATE:
                    self._key_update(detail, counter)
                    continue
                parsed = w.parse(command, detail)
                if parsed is None:
                    emit("malformed", command=command, counter=counter)
                    continue
                self._act("aa55", parsed[0], parsed[1], command, counter)

    def _refuse(self, command, counter, status):
        """Answers a refused request with its status byte, sealed once a key exists; acts on nothing."""
        w = self.wires["aa55"]
        emit("refused", vendor=w.vendor, command=command, name=w.names.get(command), counter=counter, status=status)
        answer = command | 0x80
        if self.guard.key is None:
            frame = wire.encode_frame(answer, bytes([status]))
        else:
            frame = wire.encode_frame(answer, auth.seal(self.guard.key, answer, counter, bytes([status])))
        self.notify(w.notify, frame)

    def _key_update(self, body, counter):
        """Work keys and the phone's nonce in; check values, the terminal's nonce and the
        confirmation out, sealed under the key the request came under (none at the first key
        update); the new session key applies from the next command."""
        w = self.wires["aa55"]
        if len(body) != 48 + NONCE_LENGTH:
            # A key update without a phone nonce would leave commands unauthenticated.
            return self._refuse(KEY_UPDATE, counter or 0, auth.NO_SESSION_KEY)
        keys = (body[0:16], body[16:32], body[32:48])
        phone_nonce = body[48:]
        emit("command", vendor=w.vendor, name="updateWorkKeys", **({} if counter is None else {"counter": counter}))
        answer = self.behaviors["aa55"].answer("updateWorkKeys", keys)
        if answer is None:
            return
        kind, check_values = answer
        terminal_nonce = os.urandom(NONCE_LENGTH)
        mac_key = unwrap_key(keys[1], self.master_key)
        key = auth.session_key(mac_key, phone_nonce, terminal_nonce)
        confirmation = auth.confirmation(key, phone_nonce, terminal_nonce, check_values)
        frame = self._answer_frame("aa55", (kind, check_values + terminal_nonce + confirmation), KEY_UPDATE, counter)
        self.guard.establish(mac_key, phone_nonce, terminal_nonce, check_values)
        emit("session-key", established=True)
        self.notify(w.notify, frame)

    def _start_card(self, key, answer, address, counter):
        if self.pending_card is not None:
            self.pending_card[0].cancel()

        def present():
            self.pending_card = None
            self.notify(self.wires[key].notify, self._answer_frame(key, answer, address, counter))

        handle = asyncio.get_running_loop().call_later(self.options.card_delay_ms / 1000, present)
        self.pending_card = (handle, key, address, counter)

    # -- the transfer receiver ---------------------------------------------------------------

    def _transfer_write(self, data):
        if self.receiver.active is None and self.connection is not None:
            # The ACK bitmap must fit one notification of this link.
            self.receiver.max_notification = self.connection.att_mtu - 3
        loop = asyncio.get_running_loop()
        self._perform(self.receiver.handle(data, loop.time()))

    def _perform(self, actions):
        for action in actions:
            kind = action[0]
            if kind == "send":
                self.notify(wire.TRANSFER_CHARACTERISTIC, action[1])
            elif kind == "began":
                _, transfer_id, total, resume = action
                del self.stored[min(resume, len(self.stored)):]
                emit("transfer-began", transfer_id=transfer_id, total=total, resume_offset=resume)
            elif kind == "deliver":
                _, offset, data = action
                if len(self.stored) == offset:
                    self.stored += data
            elif kind == "completed":
                _, transfer_id, total, verified = action
                emit("transfer-completed", transfer_id=transfer_id, total=total, verified=verified,
                     stored=len(self.stored), sha256=hashlib.sha256(self.stored).hexdigest())
            elif kind == "abandoned":
                self.stored.clear()
                emit("transfer-abandoned", transfer_id=action[1])
            elif kind == "rejected":
                emit("transfer-rejected", reason=action[1])
        self._arm_ack_timer()
        drop_at = self.options.drop_link_at
        if drop_at is not None and not self.dropped_once and len(self.stored) >= drop_at and self.connection is not None:
            self.dropped_once = True
            emit("dropping-link", stored=len(self.stored))
            connection = self.connection
            asyncio.get_running_loop().create_task(connection.disconnect())

    def _arm_ack_timer(self):
        if self.ack_timer is not None:
            self.ack_timer.cancel()
            self.ack_timer = None
        deadline = self.receiver.deadline
        if deadline is None or self.connection is None:
            return
        loop = asyncio.get_running_loop()
        self.ack_timer = loop.call_at(deadline, lambda: self._perform(self.receiver.timer(loop.time())))

    # -- the flood ---------------------------------------------------------------------------

    def _control_write(self, data):
        if len(data) != 7 or data[0] != 0x01:
            emit("control-rejected", length=len(data))
            return
        count, payload_length = struct.unpack("<IH", data[1:7])
        payload_length = max(4, min(payload_length, wire.AA55_MAX_PAYLOAD))
        emit("flood", count=count, payload_length=payload_length)
        for index in range(count):
            filler = bytes((index + offset) & 0xFF for offset in range(payload_length - 4))
            self.notify(wire.CONTROL_CHARACTERISTIC, wire.encode_frame(wire.FLOOD_COMMAND, struct.pack(">I", index) + filler))

    # -- the link ----------------------------------------------------------------------------

    def on_connection(self, connection):
        self.connection = connection
        for w in self.wires.values():
            w.reset()
        if self.relay is not None:
            self.relay.reset()
        if self.guard is not None:
            self.guard.reset()
        emit("connected", peer=str(connection.peer_address))
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))
        connection.on("connection_att_mtu_update", lambda: emit("mtu", mtu=connection.att_mtu))

    def on_disconnection(self, connection, reason):
        if self.connection is connection:
            self.connection = None
        if self.guard is not None:
            # The session belongs to the link.
            self.guard.reset()
        if self.pending_card is not None:
            self.pending_card[0].cancel()
            self.pending_card = None
        if self.ack_timer is not None:
            self.ack_timer.cancel()
            self.ack_timer = None
        # The receiver keeps its state (as a device's RAM does), so the transfer resumes.
        emit("disconnected", reason=reason, stored=len(self.stored))


def advertisement(options):
    flags = ad_structure(0x01, b"\x06")
    if options.advertise == "aa55":
        return (flags + ad_structure(0x07, uuid_le(wire.AA55_SERVICE)),
                ad_structure(0x09, f"AA55-{options.aa55_serial}".encode()))
    if options.advertise == "tlv":
        return flags + ad_structure(0x09, f"TLV-POS {options.tlv_serial}".encode()), b""
    return (flags + ad_structure(0x07, uuid_le(wire.TRANSFER_SERVICE)),
            ad_structure(0x09, b"Vigil Transfer Peer"))


async def start_controllers(link):
    """Two controllers on `link`, each behind an H4 TCP server on 127.0.0.1 (ports from the
    kernel). Returns their ports and transports."""
    ports, transports = [], []
    for index in range(2):
        # proto must say TCP: asyncio sets TCP_NODELAY on accepted sockets only then, and
        # without it every small HCI packet waits ~40 ms on Nagle and the delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        ports.append(sock.getsockname()[1])
        transport = await open_tcp_server_transport_with_socket(sock)
        transports.append(transport)
        # Distinct public addresses: the local link routes by address.
        controller = Controller(f"C{index}", host_source=transport.source, host_sink=transport.sink, link=link,
                                public_address=f"F0:F1:F2:F3:F4:{0xE0 + index:02X}")
        # Legacy advertising only (a Bluetooth 4.2/5.0 controller without extended advertising):
        # Bumble's controller reports every advertisement as an LE Extended Advertising Report
        # while it claims the feature, which a host scanning with the legacy commands (as
        # VigilBLEHost does) never asked for; and the peer then advertises with legacy commands.
        controller.le_features &= ~hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
    return ports, transports


async def main(options):
    host_port = None
    if options.with_controllers:
        ports, _ = await start_controllers(AddressedLocalLink())
        host_port = ports[0]
        spec = f"tcp-client:127.0.0.1:{ports[1]}"
        if options.no_peer:
            emit("ready", host_port=ports[0], peer_port=ports[1])
            await asyncio.get_running_loop().create_future()
    else:
        spec = options.transport
    transport = await open_transport(spec)
    device = Device.with_hci("Vigil peer", Address(options.address), transport.source, transport.sink)
    peer = TerminalPeer(device, options)
    device.on("connection", peer.on_connection)
    await device.power_on()
    advertising_data, scan_response = advertisement(options)
    await device.start_advertising(advertising_data=advertising_data, scan_response_data=scan_response or None,
                                   auto_restart=True)
    sender = asyncio.get_running_loop().create_task(peer.send_notifications())
    emit("ready", host_port=host_port, advertise=options.advertise, address=options.address, mtu=PEER_MTU)
    try:
        await asyncio.get_running_loop().create_future()
    finally:
        sender.cancel()


def parse(argv):
    parser = argparse.ArgumentParser(description="Vigil's BLE test peer on Bumble (loopback only)")
    parser.add_argument("--with-controllers", action="store_true",
                        help="start two virtual controllers on a local link, H4 over loopback TCP; print the host's port")
    parser.add_argument("--no-peer", action="store_true", help="with --with-controllers: only the controllers")
    parser.add_argument("--transport", default="tcp-client:127.0.0.1:9001",
                        help="the peer's HCI transport when not starting controllers (Bumble syntax)")
    parser.add_argument("--advertise", choices=["aa55", "tlv", "transfer"], default="aa55",
                        help="which advertisement: the 0xAA55 terminal (service + name), the TLV terminal (name only), the transfer peer")
    parser.add_argument("--address", default="F0:F1:F2:F3:F4:F5", help="the peer's random static address")
    parser.add_argument("--aa55-serial", default="A55100042")
    parser.add_argument("--tlv-serial", default="T7700913")
    parser.add_argument("--card-delay-ms", type=float, default=200, help="how long the customer takes to present a card")
    parser.add_argument("--drop-link-at", type=int, default=None, metavar="BYTES",
                        help="disconnect once, when a transfer has stored this many bytes")
    parser.add_argument("--att-error", action="append", default=[], metavar="UUID:CODE",
                        help="answer every write to this characteristic with ATT error CODE (e.g. 0x80)")
    parser.add_argument("--no-response", action="append", default=[], metavar="UUID",
                        help="never answer Write Requests to this characteristic")
    parser.add_argument("--silent-command", action="append", default=[], metavar="NAME",
                        help="the terminals never answer this command (e.g. traceNumber)")
    parser.add_argument("--authenticate", action="store_true",
                        help="the 0xAA55 terminal requires authenticated commands (docs/ble-protocol.md section 4)")
    parser.add_argument("--master-key", default="05" * 16, metavar="HEX",
                        help="with --authenticate: the key the work keys arrive wrapped under (simulator's stand-in wrap)")
    parser.add_argument("--attack", choices=relay.ATTACKS, default=None,
                        help="a man in the middle on the 0xAA55 writes, once, before the terminal sees them")
    parser.add_argument("--attack-target", choices=sorted(wire.AA55_CODES), default=None,
                        help="the command attacked (default: startCardTransaction; updateICParameters for reorder)")
    parser.add_argument("--flip-offset", type=int, default=11,
                        help="the payload byte --attack flip changes (default: the amount's low byte behind the counter)")
    parser.add_argument("--verbose", action="store_true", help="Bumble's debug log on standard error")
    return parser.parse_args(argv)


if __name__ == "__main__":
    # Exit on SIGTERM even when the parent started us with it ignored (dispositions are inherited).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    arguments = parse(sys.argv[1:])
    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.WARNING, stream=sys.stderr)
    try:
        asyncio.run(main(arguments))
    except KeyboardInterrupt:
        pass
