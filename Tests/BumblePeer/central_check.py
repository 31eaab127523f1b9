#!/usr/bin/env python3
# Checks terminal_peer.py from the other side of a real (virtual) link, with a Bumble central:
# starts the peer with its controllers, connects over HCI/TCP to the host-side controller, and
# runs each scenario TerminalPeerStackTests runs — discovery and MTU 247, both families'
# connected sequence (open, info, serial, trace, keys), a stop-and-wait and a window-mode
# transfer checked byte for byte by SHA-256 on both ends, a link dropped mid-transfer and
# resumed, an ATT error, an unanswered Write Request, and a notification flood. Exits non-zero
# on the first failure. Independent of the Swift code: it validates the peer itself.
#
#   .build/bumble-venv/bin/python Tests/BumblePeer/central_check.py [--transfer-bytes N]

import argparse
import asyncio
import hashlib
import json
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import att  # noqa: E402
from bumble.core import UUID  # noqa: E402
from bumble.device import Device, Peer  # noqa: E402
from bumble.hci import Address  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

import vigil_wire as wire  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_ADDRESS = "F0:F1:F2:F3:F4:F5"


class PeerProcess:
    """terminal_peer.py --with-controllers as a child; its JSON events collected."""

    def __init__(self, arguments):
        self.arguments = arguments
        self.events = []
        self.waiters = []

    async def start(self):
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, os.path.join(HERE, "terminal_peer.py"), "--with-controllers", *self.arguments,
            stdout=asyncio.subprocess.PIPE)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        ready = await self.wait_for("ready", timeout=20)
        return ready["host_port"]

    async def _read(self):
        while True:
            line = await self.process.stdout.readline()
            if not line:
                return
            event = json.loads(line)
            self.events.append(event)

    async def wait_for(self, name, timeout=10, **match):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event["event"] == name and all(event.get(k) == v for k, v in match.items()):
                    return event
            await asyncio.sleep(0.01)
        raise AssertionError(f"peer never reported {name} {match}; events: {self.events[-10:]}")

    async def stop(self):
        self.process.terminate()
        await self.process.wait()
        self.reader.cancel()


class Central:
    def __init__(self, port):
        self.port = port

    async def open(self):
        self.transport = await open_transport(f"tcp-client:127.0.0.1:{self.port}")
        self.device = Device.with_hci("central", Address("C0:C1:C2:C3:C4:C5"), self.transport.source, self.transport.sink)
        await self.device.power_on()

    async def connect(self):
        connection = await self.device.connect(Address(PEER_ADDRESS), timeout=10)
        self.connected = True

        def on_disconnection(_reason):
            self.connected = False

        connection.on("disconnection", on_disconnection)
        self.peer = Peer(connection)
        mtu = await self.peer.request_mtu(247)
        await self.peer.discover_services()
        for service in self.peer.services:
            await service.discover_characteristics()
        return connection, mtu

    def characteristic(self, uuid):
        found = self.peer.get_characteristics_by_uuid(UUID(uuid))
        assert found, f"characteristic {uuid} not discovered"
        return found[0]

    async def close(self):
        await self.transport.close()


async def terminal_sequence(central, family):
    w = wire.FramedTerminalWire() if family == "aa55" else wire.TLVTerminalWire()
    notified = asyncio.Queue()
    await central.characteristic(w.notify).subscribe(lambda value: notified.put_nowait(bytes(value)))
    write = central.characteristic(w.write)
    sequence = 0
    decoder = wire.FrameReassembler() if family == "aa55" else wire.TLVReassembler()

    async def exchange(name, payload=b"", elements=()):
        nonlocal sequence
        sequence += 1
        if family == "aa55":
            request = wire.encode_frame(wire.AA55_CODES[name], payload)
        else:
            request = wire.encode_tlv([(wire.TLVTag.COMMAND, bytes([wire.TLV_CODES[name]])),
                                       (wire.TLVTag.SEQUENCE, bytes([sequence]))] + list(elements))
        await write.write_value(request, with_response=True)
        while True:
            messages = decoder.append(await asyncio.wait_for(notified.get(), 5))
            if messages:
                return messages[0]

    keys = (bytes(range(16)), bytes(range(16, 32)), bytes(range(32, 48)))
    if family == "aa55":
        command, payload = await exchange("open")
        assert command == 0x81 and payload == b"\x00", (command, payload)
        _, payload = await exchange("deviceInfo")
        assert payload == b"\x00\x08SIM-T100\x054.2.1", payload
        _, payload = await exchange("serialNumber")
        assert payload == b"\x00\x09A55100042", payload
        _, payload = await exchange("traceNumber")
        assert payload == b"\x00" + struct.pack(">I", 1000), payload
        _, payload = await exchange("updateWorkKeys", b"".join(keys))
        assert payload == b"\x00" + b"".join(wire.check_value(k) for k in keys), payload
    else:
        packet = await exchange("open")
        assert wire.tlv_value(packet, wire.TLVTag.STATUS) == b"\x00" and wire.tlv_value(packet, wire.TLVTag.SEQUENCE) == b"\x01"
        packet = await exchange("deviceInfo")
        assert wire.tlv_value(packet, wire.TLVTag.MODEL) == b"SIM-T100"
        packet = await exchange("serialNumber")
        assert wire.tlv_value(packet, wire.TLVTag.SERIAL) == b"T7700913"
        packet = await exchange("traceNumber")
        assert wire.tlv_value(packet, wire.TLVTag.TRACE_NUMBER) == struct.pack("<I", 1000)
        packet = await exchange("updateWorkKeys", elements=[(wire.TLVTag.PIN_KEY, keys[0]), (wire.TLVTag.MAC_KEY, keys[1]),
                                                            (wire.TLVTag.DATA_KEY, keys[2])])
        assert wire.tlv_value(packet, wire.TLVTag.CHECK_VALUES) == b"".join(wire.check_value(k) for k in keys)
        assert wire.tlv_value(packet, wire.TLVTag.SEQUENCE) == b"\x05"


class TransferCentral:
    """A plain sender: stop-and-wait with Write Requests, or a window of Write Commands with
    selective resend from the peer's ACK bitmap; resumes from START-ACK's resumeFrom."""

    def __init__(self, central, payload, mode, chunk_size=240, window=32, transfer_id=0x1234ABCD):
        self.central = central
        self.payload = payload
        self.mode = mode
        self.chunk_size = chunk_size
        self.window = window
        self.transfer_id = transfer_id
        self.chunks = -(-len(payload) // chunk_size)
        self.wide = self.chunks > 65536
        self.inbox = asyncio.Queue()

    async def subscribe(self):
        self.characteristic = self.central.characteristic(wire.TRANSFER_CHARACTERISTIC)
        self.inbox = asyncio.Queue()
        await self.characteristic.subscribe(lambda value: self.inbox.put_nowait(wire.parse_peer_packet(bytes(value))))

    async def next_packet(self, kinds, timeout=5):
        while True:
            packet = await asyncio.wait_for(self.inbox.get(), timeout)
            if packet and packet[0] in kinds:
                return packet

    def chunk(self, sequence):
        return wire.data_packet(sequence, self.wide, self.payload[sequence * self.chunk_size:(sequence + 1) * self.chunk_size])

    async def run(self):
        """Sends until DONE; returns DONE, or raises ConnectionError when the link drops."""
        start = wire.start_packet(self.mode, self.transfer_id, len(self.payload), self.chunk_size, self.window,
                                  hashlib.sha256(self.payload).digest())
        await self.characteristic.write_value(start, with_response=True)
        _, status, _, granted, resume = await self.next_packet({"startAck"})
        assert status == 0, status
        base = resume
        if self.mode == wire.MODE_STOP_AND_WAIT:
            while base < self.chunks:
                await self.characteristic.write_value(self.chunk(base), with_response=True)
                packet = await self.next_packet({"ack", "done"})
                if packet[0] == "done":
                    return packet
                base = packet[2]
            return await self.next_packet({"done"})
        sent_up_to = base
        while True:
            if not self.central.connected:
                raise ConnectionError("link dropped")
            while sent_up_to < min(self.chunks, base + granted):
                await self.characteristic.write_value(self.chunk(sent_up_to), with_response=False)
                sent_up_to += 1
            try:
                packet = await self.next_packet({"ack", "done"}, timeout=1)
            except asyncio.TimeoutError:
                await self.characteristic.write_value(wire.query_packet(self.transfer_id), with_response=False)
                continue
            if packet[0] == "done":
                return packet
            _, nack, cumulative, bitmap = packet
            base = max(base, cumulative)
            if nack:
                held = {cumulative + 1 + 8 * i + j for i, byte in enumerate(bitmap) for j in range(8) if byte >> j & 1}
                highest = max(held) if held else cumulative
                for sequence in range(cumulative, highest):
                    if sequence not in held:
                        await self.characteristic.write_value(self.chunk(sequence), with_response=False)


async def scenario(name, peer_arguments, body):
    started = time.monotonic()
    peer = PeerProcess(peer_arguments)
    port = await peer.start()
    central = Central(port)
    await central.open()
    try:
        await body(central, peer)
    finally:
        await central.close()
        await peer.stop()
    print(f"ok  {name} ({time.monotonic() - started:.1f} s)", flush=True)


async def run(options):
    async def discovery(central, peer):
        _, mtu = await central.connect()
        assert mtu == 247, mtu
        uuids = {str(service.uuid).upper() for service in central.peer.services}
        for uuid in (wire.AA55_SERVICE, wire.TLV_SERVICE, wire.TRANSFER_SERVICE, wire.CONTROL_SERVICE):
            assert uuid in uuids, (uuid, uuids)
        await peer.wait_for("mtu", mtu=247)

    async def terminals(central, peer):
        await central.connect()
        await terminal_sequence(central, "aa55")
        await terminal_sequence(central, "tlv")

    def transfer(mode, size):
        async def body(central, peer):
            await central.connect()
            payload = random.Random(size).randbytes(size)
            sender = TransferCentral(central, payload, mode)
            await sender.subscribe()
            started = time.monotonic()
            done = await sender.run()
            elapsed = time.monotonic() - started
            assert done[1] == wire.DONE_VERIFIED and done[3] == size, done
            event = await peer.wait_for("transfer-completed")
            assert event["verified"] and event["sha256"] == hashlib.sha256(payload).hexdigest(), event
            print(f"    {size} bytes in {elapsed:.2f} s: {size / elapsed / 1024:.0f} KiB/s", flush=True)
        return body

    async def resume(central, peer):
        await central.connect()
        size = 256 * 1024
        payload = random.Random(7).randbytes(size)
        sender = TransferCentral(central, payload, wire.MODE_WINDOW)
        await sender.subscribe()
        try:
            await sender.run()
            raise AssertionError("the link was not dropped")
        except ConnectionError:
            pass
        dropped = await peer.wait_for("disconnected")
        assert 0 < dropped["stored"] < size, dropped
        await central.connect()
        await sender.subscribe()
        done = await sender.run()
        assert done[1] == wire.DONE_VERIFIED, done
        began = [e for e in peer.events if e["event"] == "transfer-began"]
        assert began[-1]["resume_offset"] > 0, began
        event = await peer.wait_for("transfer-completed")
        assert event["sha256"] == hashlib.sha256(payload).hexdigest()

    async def att_error(central, peer):
        await central.connect()
        try:
            await central.characteristic(wire.AA55_WRITE).write_value(wire.encode_frame(1, b""), with_response=True)
            raise AssertionError("the write succeeded")
        except att.ATT_Error as error:
            assert error.error_code == 0x80, error

    async def no_response(central, peer):
        await central.connect()
        write = central.characteristic(wire.TLV_WRITE).write_value(b"\x00", with_response=True)
        try:
            await asyncio.wait_for(write, 3)
            raise AssertionError("the write was answered")
        except asyncio.TimeoutError:
            pass
        await peer.wait_for("write-unanswered")

    async def flood(central, peer):
        await central.connect()
        count = 2000
        frames = []
        reassembler = wire.FrameReassembler()
        control = central.characteristic(wire.CONTROL_CHARACTERISTIC)
        await control.subscribe(lambda value: frames.extend(reassembler.append(bytes(value))))
        await control.write_value(b"\x01" + struct.pack("<IH", count, 200), with_response=True)
        deadline = time.monotonic() + 20
        while len(frames) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        indices = [struct.unpack(">I", payload[:4])[0] for _, payload in frames]
        assert indices == list(range(count)), (len(indices), indices[:5])
        assert reassembler.discarded == 0

    size = options.transfer_bytes
    await scenario("discovery, MTU 247", [], discovery)
    await scenario("terminal sequences, both families", [], terminals)
    await scenario("stop-and-wait transfer", ["--advertise", "transfer"], transfer(wire.MODE_STOP_AND_WAIT, 64 * 1024))
    await scenario("window transfer", ["--advertise", "transfer"], transfer(wire.MODE_WINDOW, size))
    await scenario("link dropped mid-transfer resumes", ["--advertise", "transfer", "--drop-link-at", "100000"], resume)
    await scenario("ATT error", ["--att-error", f"{wire.AA55_WRITE}:0x80"], att_error)
    await scenario("unanswered Write Request", ["--no-response", wire.TLV_WRITE], no_response)
    await scenario("notification flood", [], flood)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--transfer-bytes", type=int, default=1 << 20)
    asyncio.run(run(parser.parse_args()))
