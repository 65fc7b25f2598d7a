"""The wire corpus's frames of the input models (a key's extras, haptic feedback, alternates, drags),
for make-wire-corpus.py, which imports this module and passes itself: the encoders are its own,
written from KBWire's MessageCoding.swift and MessageCoding+InputModels.swift."""


class Inputs:
    def __init__(self, c):
        self.c = c  # make-wire-corpus.py: u8, i32, string, optional, frame, done, deliver, layout, QWERTY…

    # --- Encoders ---

    def key_extras(self, row, col, payload=None, alternates=(), drag=None):
        c = self.c
        return (c.u8(10) + c.i32(row) + c.i32(col) + c.optional(payload) + c.u32(len(alternates))
                + b"".join(c.string(a) for a in alternates) + c.optional(drag))

    def haptic(self, kind, intensity=1.0):
        return self.c.u8(11) + self.c.u8(kind) + self.c.double(intensity)

    def alternate(self, row=0, col=0, choice="é", taps=1, ts=600_000_000):
        c = self.c
        return c.u8(6) + c.i32(row) + c.i32(col) + c.string(choice) + c.i32(taps) + c.i64(ts)

    def drag(self, row=3, col=1, phase=1, x=187.5, y=190.0, dx=-40.0, dy=0.0, under="space", ts=16_000_000, raw=None):
        """A drag call; `raw` replaces the four figures and what follows them (for NaN and bad UTF-8)."""
        c = self.c
        head = c.u8(7) + c.i32(row) + c.i32(col) + c.u8(phase)
        return head + (raw if raw is not None else
                       c.double(x) + c.double(y) + c.double(dx) + c.double(dy) + c.optional(under) + c.i64(ts))

    # --- Cases ---

    def worker_valid(self):
        c, x = self.c, self.key_extras
        return {
            "done-key-extras": c.done(7, [c.layout(c.QWERTY), x(0, 2, "mode.greek"), x(3, 0), x(-1, 2**31 - 1, ""),
                                          x(0, 2, None, ["è", "é", "ê", ""]), x(1, 0, "p", ["à"]),
                                          x(3, 1, None, (), "dragCursor:event:")]),
            "done-haptics": c.done(7, [self.haptic(k, k / 8) for k in range(9)]),
        }

    def host_valid(self):
        c, a, d = self.c, self.alternate, self.drag
        return {
            "deliver-alternate": c.deliver(7, a()), "deliver-alternate-extremes": c.deliver(8, a(-2**31, 2**31 - 1, "", -1, -2**63)),
            "deliver-drag": c.deliver(9, d()), "deliver-drag-began-nothing-under": c.deliver(10, d(phase=0, under=None)),
            "deliver-drag-extremes": c.deliver(11, d(-2**31, 2**31 - 1, 2, -1.7976931348623157e308, 5e-324, -0.0, 1e300, "", -2**63)),
        }

    def refused(self):
        c = self.c
        W, H, frame, done, deliver = "from-worker", "from-host", c.frame, c.done, c.deliver
        extras_head = c.u8(10) + c.i32(0) + c.i32(0)
        nan = c.u64(0x7FF8000000000001)
        return [
            (W, "truncated", "key-extras-cut", frame(done(1, [self.key_extras(0, 0, "payload")])[:-2])),
            (W, "truncated", "key-alternates-cut", frame(done(1, [self.key_extras(0, 0, None, ["é", "è"])])[:-1])),
            (H, "truncated", "alternate-call-cut", frame(deliver(1, self.alternate())[:-3])),
            (H, "truncated", "drag-call-cut", frame(deliver(1, self.drag())[:-5])),
            (W, "countTooLarge", "key-alternates", frame(done(1, [extras_head + c.u8(0) + c.u32(1000) + c.string("é")]))),
            (W, "invalidTag", "haptic-kind-9", frame(done(1, [self.haptic(9)]))),
            (H, "invalidTag", "drag-phase-3", frame(deliver(1, self.drag(phase=3)))),
            (W, "invalidUTF8", "key-payload", frame(done(1, [extras_head + c.u8(1) + c.raw_string(b"\xc0\xaf")]))),
            (W, "invalidUTF8", "key-alternate", frame(done(1, [extras_head + c.u8(0) + c.u32(1) + c.raw_string(b"\xe9")]))),
            (W, "invalidUTF8", "drag-action", frame(done(1, [extras_head + c.u8(0) + c.u32(0) + c.u8(1) + c.raw_string(b"\xc3")]))),
            (H, "invalidUTF8", "alternate-choice",
             frame(deliver(1, c.u8(6) + c.i32(0) + c.i32(0) + c.raw_string(b"\xff") + c.i32(1) + c.i64(0)))),
            (H, "invalidUTF8", "drag-key-under", frame(deliver(1, self.drag(
                raw=c.double(1) + c.double(1) + c.double(0) + c.double(0) + c.u8(1) + c.raw_string(b"\x80") + c.i64(0))))),
            (W, "invalidValue", "haptic-intensity-over-1", frame(done(1, [self.haptic(0, 1.5)]))),
            (W, "invalidValue", "haptic-intensity-negative", frame(done(1, [self.haptic(2, -0.25)]))),
            (W, "invalidValue", "haptic-intensity-nan", frame(done(1, [c.u8(11) + c.u8(0) + nan]))),
            (H, "invalidValue", "drag-x-infinite", frame(deliver(1, self.drag(x=float("inf"))))),
            (H, "invalidValue", "drag-dy-nan", frame(deliver(1, self.drag(
                raw=c.double(1) + c.double(1) + c.double(0) + nan + c.u8(0) + c.i64(0))))),
        ]
