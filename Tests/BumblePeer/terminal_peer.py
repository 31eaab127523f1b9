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
# Fault knobs (see --help): drop the link once a transfer has delivered N bytes; answer writes
# to a characteristic with an ATT error; never answer Write Requests to a characteristic (the
# client's ATT transaction times out); never answer a terminal command; the flood itself is
# asked for over the control characteristic (write 01 | count u32 LE | frame payload u16 LE).
#
# Loopback only: every socket binds or connects to 127.0.0.1.

import argparse
import asyncio
import hashlib
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

import vigil_wire as wire  # noqa: E402

PEER_MTU = 247


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
        w = self.wires[key]
        behavior = self.behaviors[key]
        for name, argument, address in w.requests(data):
            emit("command", vendor=w.vendor, name=name)
            answer = behavior.answer(name, argument)
            if answer is None:
                continue
            if answer[0] == "card":
                self._start_card(key, answer, address)
                continue
            if name == "cancel" and self.pending_card is not None:
                handle, card_key, card_address = self.pending_card
                handle.cancel()
                self.pending_card = None
                self.notify(self.wires[card_key].notify, self.wires[card_key].encode(("status", 6), card_address))
            self.notify(w.notify, w.encode(answer, address))

    def _start_card(self, key, answer, address):
        if self.pending_card is not None:
            self.pending_card[0].cancel()
        w = self.wires[key]

        def present():
            self.pending_card = None
            self.notify(w.notify, w.encode(answer, address))

        handle = asyncio.get_running_loop().call_later(self.options.card_delay_ms / 1000, present)
        self.pending_card = (handle, key, address)

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
        emit("connected", peer=str(connection.peer_address))
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))
        connection.on("connection_att_mtu_update", lambda: emit("mtu", mtu=connection.att_mtu))

    def on_disconnection(self, connection, reason):
        if self.connection is connection:
            self.connection = None
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
