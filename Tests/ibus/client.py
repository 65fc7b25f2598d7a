#!/usr/bin/python3
"""A real IBus client for kbhost's tests: one input context on the ibus-daemon at
IBUS_ADDRESS, with a text field of its own (text, cursor, preedit) that it edits
as an application does: commits insert, deletions of surrounding text delete,
forwarded keys and keys the engine did not take are typed by the "app" itself.

Commands, one per line on stdin; after each, one JSON line with the field's state:
  engine NAME            choose the engine (the user picks an input source)
  caps surrounding|plain  capabilities: with or without surrounding text
  purpose N [HINTS]      the field's input purpose and hints (GTK's values)
  focus_in | focus_out | reset
  type TEXT              press and release a key for each character
  key NAME [ctrl]        press and release a named key (BackSpace, Return, Left, 1, Shift_L ...)
  hold NAME N            a key held down: one press, N auto-repeat presses, one release
  click N                click candidate N of the page shown
  page_down | page_up
  settext TEXT           the app changes its own text (cursor at the end)
  brief N                reports carry the text's last N characters and "length" (for megabytes of text)
  keyfocus KEY MS N      press and release KEY (not waiting for the answers), then MS ms later a second input
                         context of this app with purpose N (a password field: 8) takes the focus (a user
                         moving on at once; a dialog); signals arrive for a second. Its commits and forwarded
                         keys are reported as "second_commits" and "second_forwarded"
  keyreset KEY           press and release KEY (not waiting), then 2 ms later the app resets the field
  chord KEY MOD X        press and release KEY, then at once MOD down, X down and up (with MOD's mask), MOD up,
                         none waiting for an answer; for two seconds the key events the app sees (those the engine
                         did not take, and those it forwarded) are logged in order as "keylog": "+Name"/"-Name"
  quit
Each state also counts the signals the engine sent the app during that command, by name ("signals").
"""
import json
import sys
import time

import gi
gi.require_version("IBus", "1.0")
from gi.repository import GLib, IBus  # noqa: E402

IBus.init()
bus = IBus.Bus()
if not bus.is_connected():
    print(json.dumps({"error": "no ibus-daemon at IBUS_ADDRESS"}), flush=True)
    sys.exit(2)

ctx = GLib.MainContext.default()
state = {"text": "", "cursor": 0, "preedit": "", "preedit_cursor": 0, "candidates": [], "auxiliary": "",
         "forwarded": [], "handled": None, "deleted": 0, "commits": [], "signals": {},
         "second_commits": [], "second_forwarded": [], "keylog": []}
second = None
caps_surrounding = True


def pump(ms=30):
    end = time.monotonic() + ms / 1000.0
    while time.monotonic() < end:
        while ctx.iteration(False):
            pass
        time.sleep(0.002)


def insert(s):
    t, c = state["text"], state["cursor"]
    state["text"] = t[:c] + s + t[c:]
    state["cursor"] = c + len(s)
    send_surrounding()


def send_surrounding():
    if caps_surrounding and ic is not None:
        ic.set_surrounding_text(IBus.Text.new_from_string(state["text"]), state["cursor"], state["cursor"])


def app_key(keyval, state_mask):
    """The app types a key itself (the engine did not take it, or forwarded it)."""
    if state_mask & IBus.ModifierType.RELEASE_MASK:
        return
    if state_mask & (IBus.ModifierType.CONTROL_MASK | IBus.ModifierType.MOD1_MASK):
        state["forwarded"].append("shortcut")
        return
    t, c = state["text"], state["cursor"]
    if keyval == IBus.KEY_BackSpace:
        if c > 0:
            state["text"], state["cursor"] = t[:c - 1] + t[c:], c - 1
        send_surrounding()
    elif keyval == IBus.KEY_Left:
        state["cursor"] = max(0, c - 1)
        send_surrounding()
    elif keyval == IBus.KEY_Right:
        state["cursor"] = min(len(t), c + 1)
        send_surrounding()
    elif keyval == IBus.KEY_Return:
        insert("\n")
    else:
        ch = IBus.keyval_to_unicode(keyval)
        if ch and ch >= " ":
            insert(ch)


def on_commit(_ic, text):
    state["commits"].append(text.get_text())
    insert(text.get_text())


def on_preedit(_ic, text, cursor, visible):
    state["preedit"] = text.get_text() if visible else ""
    state["preedit_cursor"] = cursor


def on_hide_preedit(_ic):
    state["preedit"] = ""


def on_forward(_ic, keyval, keycode, mask):
    state["keylog"].append(("-" if mask & IBus.ModifierType.RELEASE_MASK else "+") + IBus.keyval_name(keyval))
    if not mask & IBus.ModifierType.RELEASE_MASK:
        state["forwarded"].append(IBus.keyval_name(keyval))
    app_key(keyval, mask)


def on_delete(_ic, offset, nchars):
    t, c = state["text"], state["cursor"]
    start = max(0, c + offset)
    state["text"] = t[:start] + t[start + nchars:]
    state["cursor"] = start
    state["deleted"] += nchars
    send_surrounding()


def on_table(_ic, table, visible):
    n = table.get_number_of_candidates()
    state["candidates"] = [table.get_candidate(i).get_text() for i in range(n)] if visible else []


def on_hide_table(_ic):
    state["candidates"] = []


def on_aux(_ic, text, visible):
    state["auxiliary"] = text.get_text() if visible else ""


def on_hide_aux(_ic):
    state["auxiliary"] = ""


def counted(name, handler):
    def count(*args):
        state["signals"][name] = state["signals"].get(name, 0) + 1
        return handler(*args)
    return count


ic = bus.create_input_context("kbhost-test-client")
for name, handler in [("commit-text", on_commit), ("update-preedit-text", on_preedit), ("hide-preedit-text", on_hide_preedit),
                      ("forward-key-event", on_forward), ("delete-surrounding-text", on_delete),
                      ("update-lookup-table", on_table), ("hide-lookup-table", on_hide_table),
                      ("update-auxiliary-text", on_aux), ("hide-auxiliary-text", on_hide_aux)]:
    ic.connect(name, counted(name, handler))


def set_caps():
    caps = (IBus.Capabilite.PREEDIT_TEXT | IBus.Capabilite.FOCUS | IBus.Capabilite.LOOKUP_TABLE
            | IBus.Capabilite.AUXILIARY_TEXT)
    if caps_surrounding:
        caps |= IBus.Capabilite.SURROUNDING_TEXT
    ic.set_capabilities(caps)


set_caps()

NAMED = {"BackSpace": IBus.KEY_BackSpace, "Return": IBus.KEY_Return, "Left": IBus.KEY_Left,
         "Right": IBus.KEY_Right, "Shift_L": IBus.KEY_Shift_L, "space": IBus.KEY_space, "Tab": IBus.KEY_Tab,
         "Page_Down": IBus.KEY_Page_Down, "Escape": IBus.KEY_Escape}
KEYCODES = {IBus.KEY_BackSpace: 14, IBus.KEY_Return: 28, IBus.KEY_Left: 105, IBus.KEY_Right: 106,
            IBus.KEY_Shift_L: 42, IBus.KEY_space: 57}


def keyval_of(name):
    if name in NAMED:
        return NAMED[name]
    if len(name) == 1:
        return IBus.unicode_to_keyval(name)
    return IBus.keyval_from_name(name)


def process(keyval, code, mask):
    """ProcessKeyEvent as GTK sends it (asynchronously): what the engine sent
    before its answer (a commit, say) is applied before the app types the key."""
    result = {}

    def done(source, res, _data):
        result["handled"] = source.process_key_event_async_finish(res)

    ic.process_key_event_async(keyval, code, mask, -1, None, done, None)
    while "handled" not in result:
        ctx.iteration(True)
    return result["handled"]


def press(keyval, mask=0, release=True, repeat=0):
    code = KEYCODES.get(keyval, 0)
    if keyval < 0x100 and chr(keyval).isupper():
        mask |= IBus.ModifierType.SHIFT_MASK
    handled = process(keyval, code, mask)
    state["handled"] = bool(handled)
    if not handled:
        app_key(keyval, mask)
    pump(5)
    for _ in range(repeat):
        if not process(keyval, code, mask):
            app_key(keyval, mask)
        pump(5)
    if release:
        process(keyval, code, mask | IBus.ModifierType.RELEASE_MASK)
    pump(10)


brief = 0  # "brief N": reports carry the text's last N characters and its length (megabytes of text otherwise)


def report():
    out = dict(state)
    if brief:
        out["length"] = len(state["text"])
        out["text"] = state["text"][-brief:]
        out["commits"] = [c[-brief:] for c in state["commits"][-10:]]
    print(json.dumps(out, ensure_ascii=False), flush=True)


for line in sys.stdin:
    line = line.rstrip("\n")
    cmd, _, arg = line.partition(" ")
    state["forwarded"] = []
    state["signals"] = {}
    try:
        if cmd == "engine":
            # SetEngine does not wait for the engine: the daemon may still be starting its process
            # (seconds on a loaded machine). Keys sent before it is attached bypass it, so wait.
            ic.set_engine(arg)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                pump(50)
                try:
                    desc = ic.get_engine()
                except GLib.Error:
                    desc = None
                if desc is not None and desc.get_name() == arg:
                    break
            else:
                state["error"] = "engine %s was not attached within 20 s" % arg
            pump(50)
        elif cmd == "caps":
            caps_surrounding = arg == "surrounding"
            set_caps()
        elif cmd == "purpose":
            parts = arg.split()
            ic.set_content_type(int(parts[0]), int(parts[1]) if len(parts) > 1 else 0)
            pump(50)
        elif cmd == "focus_in":
            ic.focus_in()
            pump(100)
            send_surrounding()
            pump(50)
        elif cmd == "focus_out":
            ic.focus_out()
            pump(100)
        elif cmd == "reset":
            ic.reset()
            pump(100)
        elif cmd == "type":
            for ch in arg:
                press(keyval_of(ch))
        elif cmd == "key":
            parts = arg.split()
            mask = IBus.ModifierType.CONTROL_MASK if "ctrl" in parts[1:] else 0
            press(keyval_of(parts[0]), mask)
        elif cmd == "burst":
            # A fast typist: presses and releases sent at once, answers not awaited (reported later).
            for ch in arg:
                kv = keyval_of(ch)
                for mask in (0, IBus.ModifierType.RELEASE_MASK):
                    ic.process_key_event_async(kv, KEYCODES.get(kv, 0), mask, -1, None, None, None)
            pump(20)
        elif cmd == "hold":
            name, n = arg.split()
            press(keyval_of(name), repeat=int(n))
        elif cmd == "panel":
            # Be the desktop's panel (GNOME Shell is one): the daemon forwards its clicks to the engine.
            bus.request_name("org.freedesktop.IBus.Panel", 0)
            pump(200)
        elif cmd in ("click", "page_down", "page_up"):
            signal, args = {"click": ("CandidateClicked", GLib.Variant("(uuu)", (int(arg or 0), 1, 0))),
                            "page_down": ("PageDown", None), "page_up": ("PageUp", None)}[cmd]
            bus.get_connection().emit_signal(None, "/org/freedesktop/IBus/Panel", "org.freedesktop.IBus.Panel",
                                             signal, args)
            pump(150)
        elif cmd == "settext":
            state["text"] = arg
            state["cursor"] = len(arg)
            send_surrounding()
            pump(50)
        elif cmd == "keyreset":
            kv = keyval_of(arg)
            for mask in (0, IBus.ModifierType.RELEASE_MASK):
                ic.process_key_event_async(kv, KEYCODES.get(kv, 0), mask, -1, None, None, None)
            pump(2)
            ic.reset()
            pump(500)
        elif cmd == "chord":
            name, mod, x = arg.split()
            state["keylog"] = []
            kv, mkv, xkv = keyval_of(name), keyval_of(mod), keyval_of(x)
            modmask = {"Control_L": IBus.ModifierType.CONTROL_MASK, "Shift_L": IBus.ModifierType.SHIFT_MASK}[mod]
            rel = IBus.ModifierType.RELEASE_MASK

            def seen(keyval, mask):
                def done(source, res, _data):
                    if not source.process_key_event_async_finish(res):
                        state["keylog"].append(("-" if mask & rel else "+") + IBus.keyval_name(keyval))
                return done
            for keyval, mask in ((kv, 0), (kv, rel), (mkv, 0), (xkv, modmask), (xkv, modmask | rel), (mkv, modmask | rel)):
                ic.process_key_event_async(keyval, KEYCODES.get(keyval, 0), mask, -1, None, seen(keyval, mask), None)
            pump(2000)
        elif cmd == "keyfocus":
            name, ms, purpose = arg.split()
            kv = keyval_of(name)
            for mask in (0, IBus.ModifierType.RELEASE_MASK):
                ic.process_key_event_async(kv, KEYCODES.get(kv, 0), mask, -1, None, None, None)
            pump(int(ms))
            second = bus.create_input_context("kbhost-test-client-2")
            second.connect("commit-text", lambda _ic, text: state["second_commits"].append(text.get_text()))
            second.connect("forward-key-event", lambda _ic, kv, _kc, mask: None if mask & IBus.ModifierType.RELEASE_MASK
                           else state["second_forwarded"].append(IBus.keyval_name(kv)))
            second.set_capabilities(IBus.Capabilite.PREEDIT_TEXT | IBus.Capabilite.FOCUS)
            second.focus_in()
            second.set_engine("kbhost")
            second.set_content_type(int(purpose), 0)
            pump(1000)
        elif cmd == "brief":
            brief = int(arg)
        elif cmd == "wait":
            pump(int(arg))
        elif cmd == "quit":
            break
        else:
            state["error"] = "unknown command " + cmd
    except GLib.Error as e:
        state["error"] = str(e)
    report()
