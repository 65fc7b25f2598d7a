#!/usr/bin/env python3
"""Writes the corpus of hostile wire frames that WireFrameCorpusTests runs (issue 14).

    python3 scripts/make-wire-corpus.py [OUT]     # default Tests/KBWireTests/Fixtures/frames

Deterministic: the same files every run (a seeded generator), so a change to the corpus is a
change to this script. The encoder below is written from the wire's description (KBWire's
MessageCoding.swift), not taken from it: a valid frame here that kbhost refuses, or a hostile
one it accepts, is a disagreement the tests show.

Each file is a byte stream as it arrives on the socket: one or more frames, each a 4-byte
little-endian length and the payload. Two folders, one per decoder:

    from-worker/   what a keyboard's process writes; the host reads it (WorkerMessage.decode),
                   the hostile direction
    from-host/     what the host writes; the worker reads it (HostMessage.decode)

A file's name says what the reader must do with it:

    valid-*            every frame decodes to a message
    refused-KIND-*     the stream is refused with WireError.KIND (frameTooLarge from the
                       frame reader; the others from the decoder), at its last frame
    incomplete-*       a header announces more than follows: no frame yet, the bytes held
    any-*              a mutant: each frame decodes or is refused with a WireError

Cases too big to commit (a 1 MiB frame of a million effects, 130,000 keys over the memory
budget, a 2 MiB insertion) are made by the tests themselves. Files in regressions/ (inputs
scripts/fuzz-wire once failed on, in libFuzzer's form) are kept as they are.
"""
import os
import random
import shutil
import struct
import sys
import wire_corpus_inputs  # beside this script: the input models' messages (extras, haptics, alternates, drags)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Tests/KBWireTests/Fixtures/frames")
MAX_FRAME = (8 << 20) + (1 << 20)   # Framing.maximumFrameSize
MAX_EFFECTS = 65_536                 # WireLimits.maximumEffects


# --- The primitive encoding (ByteWriter) ---

def u8(v): return struct.pack("<B", v)
def boolean(v): return b"\x01" if v else b"\x00"
def u32(v): return struct.pack("<I", v)
def i32(v): return struct.pack("<i", v)
def u64(v): return struct.pack("<Q", v)
def i64(v): return struct.pack("<q", v)
def double(v): return struct.pack("<d", v)


def raw_string(data):
    return u32(len(data)) + data


def string(text):
    return raw_string(text.encode("utf-8"))


def optional(text):
    return b"\x00" if text is None else b"\x01" + string(text)


def frame(payload, length=None):
    return u32(len(payload) if length is None else length) + payload


# --- Host → worker messages (HostMessage) ---

def traits(kb=0, ret=0, caps=2, corr=0, spell=0, look=0, secure=False, auto=False):
    return u8(kb) + u8(ret) + u8(caps) + u8(corr) + u8(spell) + u8(look) + boolean(secure) + boolean(auto)


def facts(language="en-US", document="", modes=(), lexicon=(), pasteboard=None, trait_bytes=None):
    out = boolean(True) + boolean(False) + string(language) + string(document)
    out += trait_bytes if trait_bytes is not None else traits()
    out += u32(len(modes)) + b"".join(string(m) for m in modes)
    out += u32(len(lexicon)) + b"".join(string(a) + string(b) for a, b in lexicon)
    return out + optional(pasteboard)


def window(text="", selection=(0, 0), marked=None, before=False, after=False):
    out = string(text) + i64(selection[0]) + i64(selection[1])
    out += b"\x00" if marked is None else b"\x01" + i64(marked[0]) + i64(marked[1])
    return out + boolean(before) + boolean(after)


def sandbox(paths=(), container="", groups=(), missing=(), identities=()):
    out = boolean(True) + boolean(False) + u32(len(paths)) + b"".join(string(p) for p in paths)
    out += u32(len(identities)) + b"".join(u64(d) + u64(i) for d, i in identities) + string(container)
    out += u32(len(groups)) + b"".join(string(n) + string(p) for n, p in groups)
    return out + u32(len(missing)) + b"".join(string(m) for m in missing)


def host_hello(protocol=5, abi=1): return u8(1) + u32(protocol) + u32(abi)


def load(path="/k/libK.so", cls="K", f=None, w=None, s=None):
    return u8(2) + string(path) + string(cls) + (f or facts()) + (w or window()) + (s or sandbox())


def deliver(seq, call, f=None, w=None):
    out = u8(3) + u64(seq)
    out += b"\x00" if f is None else b"\x01" + f
    out += b"\x00" if w is None else b"\x01" + w
    return out + call


SHUTDOWN = u8(4)


def lifecycle(which=1, animated=True): return u8(1) + u8(which) + boolean(animated)
def text_input(which=1): return u8(2) + u8(which)
def key(row=0, col=0, kind=0, taps=1, repeats=0, ts=0): return u8(3) + i32(row) + i32(col) + u8(kind) + i32(taps) + i32(repeats) + i64(ts)
def transition(w=375.0, h=216.0): return u8(4) + double(w) + double(h)


MEMORY_WARNING = u8(5)


# --- Worker → host messages (WorkerMessage) ---

def worker_hello(protocol=5, abi=1, pid=42): return u8(1) + u32(protocol) + u32(abi) + i32(pid)


def effects(items, count=None):
    return u32(len(items) if count is None else count) + b"".join(items)


def loaded(selectors=(("viewDidLoad", "v@:"),), fx=()):
    return u8(2) + u32(len(selectors)) + b"".join(string(n) + string(t) for n, t in selectors) + effects(list(fx))


def done(seq, fx=(), count=None): return u8(3) + u64(seq) + effects(list(fx), count)
def failure(kind=1, message="dlopen failed"): return u8(4) + u8(kind) + string(message)


def insert(text): return u8(1) + u8(1) + string(text)
DELETE = u8(1) + u8(2)
def adjust(n): return u8(1) + u8(3) + i64(n)
def marked_text(text, loc=0, length=0): return u8(1) + u8(4) + string(text) + i64(loc) + i64(length)
UNMARK = u8(1) + u8(5)


def wkey(ident="a", label="a", role=0, width=1.0, action="keyTapped:", down=None, long=None, double_tap=None, repeats=False):
    return (string(ident) + string(label) + u8(role) + double(width) + optional(action) + optional(down)
            + optional(long) + optional(double_tap) + boolean(repeats))


def layout(rows, display=""):
    return u8(2) + string(display) + u32(len(rows)) + b"".join(u32(len(r)) + b"".join(r) for r in rows)


def display(text): return u8(3) + string(text)
ADVANCE, DISMISS, CLICK = u8(4), u8(5), u8(6)
def log(level, text): return u8(7) + u8(level) + string(text)
def pasteboard(text): return u8(8) + string(text)
def sound(name): return u8(9) + string(name)


QWERTY = [[wkey(c, c.upper()) for c in row] for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm")] + [
    [wkey("globe", "🌐", role=5, action=None), wkey("space", "space", role=1, width=5.0),
     wkey("return", "return", role=2, width=2.0), wkey("delete", "⌫", role=3, repeats=True, action="deleteTapped:")]]

files = {}


def put(folder, name, data):
    path = folder + "/" + name + ".frame"
    assert path not in files, path
    files[path] = data


# --- Valid messages: every message type, every effect and call kind ---

inputs = wire_corpus_inputs.Inputs(sys.modules[__name__])
WORKER_VALID = {
    "hello": worker_hello(), "hello-pid-negative": worker_hello(pid=-1), "hello-versions-max": worker_hello(0xFFFFFFFF, 0, 0),
    "loaded-no-selectors": loaded(()), "loaded": loaded((("viewDidLoad", "v@:"), ("keyTapped:", "v@:@"))),
    "loaded-with-layout": loaded(fx=[layout(QWERTY, "Corpus")]),
    "done-empty": done(1), "done-sequence-max": done(0xFFFFFFFFFFFFFFFF),
    "done-insert": done(7, [insert("a")]), "done-insert-emoji-nul": done(7, [insert("a👍🏽\x00🇯🇵")]),
    "done-insert-empty": done(7, [insert("")]), "done-delete": done(7, [DELETE]),
    "done-adjust": done(7, [adjust(-3), adjust(2**31 - 1), adjust(-(2**31 - 1)), adjust(0)]),
    "done-marked": done(7, [marked_text("かな", 1, 1), marked_text("x", 2**31 - 1, 2**31 - 1), UNMARK]),
    "done-marked-empty": done(7, [marked_text("", 0, 0)]),
    "done-layout": done(7, [layout(QWERTY, "display")]), "done-layout-empty": done(7, [layout([])]),
    "done-layout-empty-rows": done(7, [layout([[], [], []])]),
    "done-layout-10000-empty-rows": done(7, [layout([[]] * 10_000)]),
    "loaded-layouts-nested": loaded(fx=[layout(QWERTY), layout([[wkey()] * 100] * 10), insert("x")] * 3),
    "done-layout-widths": done(7, [layout([[wkey(width=100.0), wkey("b", width=5e-324)]])]),
    "done-layout-duplicate-keys": done(7, [layout([[wkey("a", "a"), wkey("a", "a")], [wkey("a", "a")]])]),
    "done-layout-every-role": done(7, [layout([[wkey(str(r), str(r), role=r) for r in range(8)]])]),
    "done-layout-every-action": done(7, [layout([[wkey(action="t:", down="d:", long="l:", double_tap="2:", repeats=True)]])]),
    "done-display": done(7, [display("12+3=15")]), "done-advance": done(7, [ADVANCE]), "done-dismiss": done(7, [DISMISS]),
    "done-click": done(7, [CLICK]), "done-log": done(7, [log(0, "hi"), log(255, "\x1b[2J")]),
    "done-pasteboard": done(7, [pasteboard("copied 📋")]), "done-sound": done(7, [sound("Tock")]),
    "done-every-effect": done(9, [insert("ab"), DELETE, adjust(-1), marked_text("k", 0, 1), UNMARK, layout(QWERTY),
                                  display("d"), ADVANCE, DISMISS, CLICK, log(3, "l"), pasteboard("p"), sound("s"),
                                  inputs.key_extras(0, 0, "x"), inputs.haptic(0)]),
    "done-at-effect-limit": done(7, [CLICK] * MAX_EFFECTS),
    "done-long-string": done(7, [insert("é" * 20_000)]),
    "failure": failure(), "failure-every-kind": None,
    # Replies for the wrong call decode: the decoder cannot know the call; ExtensionProcess
    # refuses them (ExtensionProcess+Replies, tested with Plugins/Faults/Keyboards/wire.c).
    "wrong-call-done-for-call-0": done(0), "wrong-call-done-ahead": done((0x1234 << 32) | 99, [insert("F")]),
    "wrong-call-hello-as-reply": worker_hello(), "wrong-call-loaded-as-reply": loaded(()),
}

HOST_VALID = {
    "hello": host_hello(), "hello-versions": host_hello(0xFFFFFFFF, 0), "shutdown": SHUTDOWN,
    "load": load(), "load-empty": load("", "", facts(), window(), sandbox()),
    "load-rich": load(f=facts("ja-JP", "doc 🗒", ["com.example.k", "ja-JP", ""], [("omw", "On my way!"), ("", "\t\n")], "📋",
                              traits(11, 11, 3, 2, 2, 2, True, True)),
                      w=window("ab👍🏽かな", (7, 0), (6, 2), True, False),
                      s=sandbox(["/k", "/usr/share/dict"], "/home/u/c", [("group.k", "/g/k")], ["seccomp"], [(2049, 131), (2**64 - 1, 0)])),
    "deliver-memory-warning": deliver(1, MEMORY_WARNING), "deliver-transition": deliver(2, transition()),
    "deliver-transition-extremes": deliver(3, transition(1.7976931348623157e308, -5e-324)),
    "deliver-key": deliver(4, key(1, 2, 0)), "deliver-key-extremes": deliver(5, key(2**31 - 1, -2**31, 4, -2**31, 2**31 - 1, -2**63)),
    "deliver-with-facts-and-window": deliver(0xFFFFFFFFFFFFFFFF, text_input(3), facts(), window("hello", (1, 3))),
    "deliver-window-selection-inside-cluster": deliver(6, lifecycle(), None, window("👍🏽e\u0301", (1, 2), (1, 2))),
}
for w in range(5):
    HOST_VALID[f"deliver-lifecycle-{w}"] = deliver(10 + w, lifecycle(w, w % 2 == 0))
for t in range(4):
    HOST_VALID[f"deliver-text-input-{t}"] = deliver(20 + t, text_input(t))
for k in range(5):
    HOST_VALID[f"deliver-key-kind-{k}"] = deliver(30 + k, key(0, k, k))

WORKER_VALID.update(inputs.worker_valid())
HOST_VALID.update(inputs.host_valid())
for name, data in WORKER_VALID.items():
    if data is not None:
        put("from-worker", "valid-" + name, frame(data))
for kind in range(11):
    put("from-worker", f"valid-failure-kind-{kind}", frame(failure(kind, "why")))
for name, data in HOST_VALID.items():
    put("from-host", "valid-" + name, frame(data))
put("from-worker", "valid-stream-of-three", frame(worker_hello()) + frame(loaded(())) + frame(done(1, [insert("a")])))
put("from-host", "valid-stream-of-three", frame(host_hello()) + frame(load()) + frame(deliver(1, MEMORY_WARNING)))
put("from-worker", "valid-many-tiny-frames", b"".join(frame(done(i, [CLICK])) for i in range(2000)))

# --- Refused: one named flaw each ---

W, H = "from-worker", "from-host"
refused = [
    # The frame reader: a header over the bound, before anything is allocated.
    (W, "frameTooLarge", "length-max-plus-one", u32(MAX_FRAME + 1)),
    (W, "frameTooLarge", "length-4-GiB", u32(0xFFFFFFFF) + b"\x03" * 64),
    (W, "frameTooLarge", "length-2-GiB", u32(0x80000000)),
    (W, "frameTooLarge", "after-a-valid-frame", frame(done(1)) + u32(0xFFFFFFF0)),
    (H, "frameTooLarge", "length-4-GiB", u32(0xFFFFFFFF)),
    (H, "frameTooLarge", "after-a-valid-frame", frame(SHUTDOWN) + u32(MAX_FRAME + 1)),
    # Truncated inside a message (the frame is whole, the message is not).
    (W, "truncated", "empty-frame", frame(b"")),
    (W, "truncated", "hello-short", frame(worker_hello()[:-1])),
    (W, "truncated", "done-no-sequence", frame(u8(3) + b"\x01\x02")),
    (W, "truncated", "done-no-count", frame(u8(3) + u64(1))),
    (W, "truncated", "insert-string-cut", frame(done(1, [insert("hello")])[:-2])),
    (W, "truncated", "failure-message-length-max", frame(u8(4) + u8(0) + u32(0xFFFFFFFF))),
    (W, "truncated", "layout-key-cut", frame(done(1, [layout([[wkey()]])])[:-1])),
    (W, "truncated", "selector-types-cut", frame(loaded((("a", "v@:"),))[:-3])),
    (H, "truncated", "empty-frame", frame(b"")),
    (H, "truncated", "load-cut-in-facts", frame(load()[:20])),
    (H, "truncated", "deliver-no-call", frame(u8(3) + u64(1) + b"\x00\x00")),
    (H, "truncated", "key-call-cut", frame(deliver(1, key())[:-4])),
    # Unknown tags: message kinds that do not exist, wrong kinds of nested values.
    (W, "invalidTag", "message-0", frame(u8(0))), (W, "invalidTag", "message-5", frame(u8(5) + b"\x00" * 8)),
    (W, "invalidTag", "message-255", frame(u8(255))),
    (W, "invalidTag", "effect-0", frame(done(1, [u8(0)]))), (W, "invalidTag", "effect-12", frame(done(1, [u8(12)]))),
    (W, "invalidTag", "edit-6", frame(done(1, [u8(1) + u8(6)]))), (W, "invalidTag", "edit-0", frame(done(1, [u8(1) + u8(0)]))),
    (W, "invalidTag", "key-role-8", frame(done(1, [layout([[wkey(role=8)]])]))),
    (W, "invalidTag", "failure-kind-11", frame(failure(11))), (W, "invalidTag", "failure-kind-255", frame(failure(255))),
    (H, "invalidTag", "message-0", frame(u8(0))), (H, "invalidTag", "message-5", frame(u8(5))),
    (H, "invalidTag", "call-0", frame(deliver(1, u8(0)))), (H, "invalidTag", "call-8", frame(deliver(1, u8(8)))),
    (H, "invalidTag", "lifecycle-5", frame(deliver(1, lifecycle(5)))), (H, "invalidTag", "text-input-4", frame(deliver(1, text_input(4)))),
    (H, "invalidTag", "key-kind-5", frame(deliver(1, key(kind=5)))),
    (H, "invalidTag", "keyboard-type-12", frame(load(f=facts(trait_bytes=traits(kb=12))))),
    (H, "invalidTag", "appearance-3", frame(load(f=facts(trait_bytes=traits(look=3))))),
    # Bad UTF-8 anywhere a string travels.
    (W, "invalidUTF8", "insert-lone-continuation", frame(done(1, [u8(1) + u8(1) + raw_string(b"\x80")]))),
    (W, "invalidUTF8", "insert-overlong-nul", frame(done(1, [u8(1) + u8(1) + raw_string(b"a\xc0\x80")]))),
    (W, "invalidUTF8", "insert-surrogate", frame(done(1, [u8(1) + u8(1) + raw_string(b"\xed\xa0\x80")]))),
    (W, "invalidUTF8", "insert-over-max-code-point", frame(done(1, [u8(1) + u8(1) + raw_string(b"\xf4\x90\x80\x80")]))),
    (W, "invalidUTF8", "insert-cut-sequence", frame(done(1, [u8(1) + u8(1) + raw_string(b"\xe6\x97")]))),
    (W, "invalidUTF8", "key-label", frame(done(1, [layout([[string("k") + raw_string(b"\xff") + wkey()[10:]]])]))),
    (W, "invalidUTF8", "selector-name", frame(u8(2) + u32(1) + raw_string(b"\xfe") + string("v@:") + effects([]))),
    (W, "invalidUTF8", "failure-message", frame(u8(4) + u8(1) + raw_string(b"\xc3"))),
    (W, "invalidUTF8", "log-message", frame(done(1, [u8(7) + u8(0) + raw_string(b"\xf8\x88\x80\x80\x80")]))),
    (H, "invalidUTF8", "plugin-path", frame(u8(2) + raw_string(b"/k/\xff.so") + load()[1 + 4 + 10:])),
    (H, "invalidUTF8", "window-text", frame(deliver(1, MEMORY_WARNING, None, raw_string(b"\xed\xbf\xbf") + window()[4:]))),
    # Counts that lie: more elements than bytes left.
    (W, "countTooLarge", "effects-4-billion", frame(u8(3) + u64(1) + u32(0xFFFFFFFF))),
    (W, "countTooLarge", "effects-one-more-than-sent", frame(done(1, [CLICK, CLICK], count=3))),
    (W, "countTooLarge", "selectors-4-billion", frame(u8(2) + u32(0xFFFFFFFF) + b"\x00" * 16)),
    (W, "countTooLarge", "layout-rows", frame(done(1, [u8(2) + string("") + u32(1000) + u32(0) * 10]))),
    (W, "countTooLarge", "layout-keys", frame(done(1, [u8(2) + string("") + u32(1) + u32(1000) + wkey()]))),
    (H, "countTooLarge", "input-modes", frame(load(f=boolean(True) + boolean(False) + string("en") + string("") + traits() + u32(0x7FFFFFFF)))),
    (H, "countTooLarge", "read-paths", frame(u8(2) + string("p") + string("c") + facts() + window() + boolean(True) + boolean(False) + u32(100000))),
    # Values out of range.
    (W, "invalidValue", "key-width-0", frame(done(1, [layout([[wkey(width=0.0)]])]))),
    (W, "invalidValue", "key-width-negative", frame(done(1, [layout([[wkey(width=-1.0)]])]))),
    (W, "invalidValue", "key-width-over-100", frame(done(1, [layout([[wkey(width=100.5)]])]))),
    (W, "invalidValue", "key-width-nan", frame(done(1, [layout([[string("a") + string("a") + u8(0) + u64(0x7FF8000000000001) + b"\x00" * 5]])]))),
    (W, "invalidValue", "key-width-infinity", frame(done(1, [layout([[wkey(width=float("inf"))]])]))),
    (W, "invalidValue", "adjust-int-min", frame(done(1, [adjust(-2**63)]))),
    (W, "invalidValue", "adjust-over-int32", frame(done(1, [adjust(2**31)]))),
    (W, "invalidValue", "marked-range-negative", frame(done(1, [marked_text("k", -1, 0)]))),
    (W, "invalidValue", "marked-range-huge", frame(done(1, [marked_text("k", 0, 2**62)]))),
    (W, "invalidValue", "bool-2-in-key-repeats", frame(done(1, [layout([[wkey()[:-1] + u8(2)]])]))),
    (W, "invalidValue", "optional-flag-2", frame(done(1, [layout([[wkey(action=None)[:19] + u8(2) + b"\x00" * 4]])]))),
    (H, "invalidValue", "selection-outside-text", frame(deliver(1, MEMORY_WARNING, None, window("abc", (2, 2))))),
    (H, "invalidValue", "marked-outside-text", frame(deliver(1, MEMORY_WARNING, None, window("abc", (0, 0), (1, 5))))),
    (H, "invalidValue", "selection-negative", frame(deliver(1, MEMORY_WARNING, None, window("abc", (-1, 0))))),
    (H, "invalidValue", "transition-nan", frame(deliver(1, u8(4) + u64(0x7FF8000000000000) + double(1.0)))),
    (H, "invalidValue", "facts-flag-2", frame(u8(3) + u64(1) + u8(2) + u8(0) + MEMORY_WARNING)),
    # Trailing bytes after a whole message.
    (W, "trailingBytes", "hello-plus-one", frame(worker_hello() + b"\x00")),
    (W, "trailingBytes", "done-count-under", frame(done(1, [CLICK, CLICK], count=1))),
    (W, "trailingBytes", "two-messages-in-one-frame", frame(done(1) + done(2))),
    (H, "trailingBytes", "shutdown-plus-one", frame(SHUTDOWN + b"\x00")),
    (H, "trailingBytes", "hello-plus-three", frame(host_hello() + b"\x01\x02\x03")),
    # More effects than one reply may carry.
    (W, "overLimit", "effects-one-over", frame(done(1, [CLICK] * (MAX_EFFECTS + 1)))),
    (W, "overLimit", "loaded-effects-one-over", frame(u8(2) + u32(0) + effects([DISMISS] * (MAX_EFFECTS + 1)))),
]
refused += inputs.refused()
for folder, kind, name, data in refused:
    put(folder, f"refused-{kind}-{name}", data)

# --- Incomplete: a header announcing more than follows ---

put(W, "incomplete-header-only", u32(100))
put(W, "incomplete-three-header-bytes", b"\x10\x00\x00")
put(W, "incomplete-payload-cut", frame(done(1, [insert("hello")]))[:-1])
put(W, "incomplete-max-frame-announced", u32(MAX_FRAME) + done(1))
put(W, "incomplete-after-valid-frames", frame(worker_hello()) + frame(done(1)) + u32(5) + b"\x03")
put(H, "incomplete-header-only", u32(9))
put(H, "incomplete-payload-cut", frame(load())[:-5])

# --- Mutants: every message type, mutated ---

rng = random.Random(14)


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not data:
            break
        i = rng.randrange(len(data))
        op = rng.randrange(7)
        if op == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i] = rng.randrange(256)
        elif op == 2:
            del data[i]
        elif op == 3:
            data.insert(i, rng.randrange(256))
        elif op == 4:
            del data[i:]
        elif op == 5 and i + 4 <= len(data):   # a count or length that lies
            data[i:i + 4] = u32(rng.choice([0, 1, 2, 255, 65535, 65536, 65537, 0x7FFFFFFF, 0xFFFFFFFF, rng.randrange(1 << 32)]))
        else:
            data[i] = rng.choice([0, 1, 2, 3, 4, 5, 9, 10, 0x80, 0xC0, 0xFF])
    return bytes(data)


small_worker = {k: v for k, v in WORKER_VALID.items() if v is not None and len(v) < 4096}
for name, payload in sorted(small_worker.items()):
    for i in range(6):
        put(W, f"any-{name}-{i}", frame(mutate(payload)))
for name, payload in sorted(HOST_VALID.items()):
    for i in range(6):
        put(H, f"any-{name}-{i}", frame(mutate(payload)))
# Wrong kinds: each direction's messages sent the other way.
for name, payload in sorted(HOST_VALID.items()):
    put(W, f"any-host-message-{name}", frame(payload))
for name, payload in sorted(small_worker.items()):
    put(H, f"any-worker-message-{name}", frame(payload))
# Mutated headers and streams: the frame reader sees the damage too.
for i in range(40):
    put(W, f"any-stream-{i}", mutate(frame(done(i, [insert("ab")])) + frame(worker_hello())))
    put(H, f"any-stream-{i}", mutate(frame(deliver(i, key())) + frame(SHUTDOWN)))

# --- Write ---

for sub in ("from-worker", "from-host"):
    path = os.path.join(OUT, sub)
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
for path, data in sorted(files.items()):
    with open(os.path.join(OUT, path), "wb") as f:
        f.write(data)
os.makedirs(os.path.join(OUT, "regressions"), exist_ok=True)
total = sum(len(d) for d in files.values())
print(f"wrote {len(files)} frames ({total} bytes) to {OUT}")
