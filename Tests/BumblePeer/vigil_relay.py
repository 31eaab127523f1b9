"""A hostile relay for 0xAA55 command frames, the Python counterpart of VigilBLESimulation's
ManInTheMiddle: it takes the bytes the phone wrote, reassembles whole frames and, once, attacks
the first frame of its target command — fixing every checksum it breaks, which is why integrity
checks alone cannot stop it:

- flip: flips the low bit of one payload byte (offset `flip_offset`, by default the low byte of
  a card transaction's amount behind the 4-byte counter of an authenticated frame) and
  re-encodes the frame, CRC-16 recomputed;
- replay: relays the frame, then a copy of it again after the next frame;
- reorder: holds the frame back and relays it after the next one.

Everything else is relayed unchanged, one whole frame per value (noise between frames is
dropped). Pure logic: the terminal peer (terminal_peer.py) puts it between the link and its
command guard. Never raises.
"""

import vigil_wire as wire

ATTACKS = ("flip", "replay", "reorder")


class ManInTheMiddle:
    def __init__(self, attack, target, flip_offset=11):
        if attack not in ATTACKS:
            raise ValueError(f"unknown attack {attack!r}; one of {', '.join(ATTACKS)}")
        self.attack = attack
        self.target = target
        self.flip_offset = flip_offset
        self.reassembler = wire.FrameReassembler()
        self.attacked = False
        self.pending = None

    def reset(self):
        """Forgets partial input (a new link); an attack already mounted stays mounted."""
        self.reassembler.reset()

    def relay(self, data):
        """[(frame bytes, forged)] the terminal gets now, in order, for the bytes `data`."""
        out = []
        for command, payload in self.reassembler.append(data):
            frame = wire.encode_frame(command, payload)
            if not self.attacked and command == self.target and payload:
                self.attacked = True
                if self.attack == "flip":
                    changed = bytearray(payload)
                    changed[min(self.flip_offset, len(changed) - 1)] ^= 0x01
                    out.append((wire.encode_frame(command, bytes(changed)), True))
                elif self.attack == "replay":
                    out.append((frame, False))
                    self.pending = frame
                else:
                    self.pending = frame
                continue
            out.append((frame, False))
            if self.pending is not None:
                out.append((self.pending, True))
                self.pending = None
        return out
