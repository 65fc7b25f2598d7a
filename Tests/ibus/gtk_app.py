#!/usr/bin/python3
"""A real GTK 3 application for kbhost's IBus tests: a window with a GtkEntry
and a GtkTextView, typed into through whatever input method GTK_IM_MODULE names
(ibus in the tests), by keys an X server (Xvfb) delivers.

It tells the test what it holds, one JSON line on stdout per event:
  {"event": "mapped", "window": XID, "frame": [X, Y, W, H]}
                                                  the window is on the screen (XID for xdotool)
  {"event": "focus", ...}                         a widget got the keyboard focus (its name in "focus")
  {"event": "activate", ...}                      the entry was activated (Return, with nothing to compose)
  {"event": "changed", "entry": ..., "preedit": ..., "text": ..., ...}
                                                  the entry's or the text view's text or preedit changed
  {"event": "state", ...}                         answer to "state"
  {"event": "screenshot", "path": ..., "width": W, "height": H}
Every line carries the whole state: entry (its text), entry_cursor, text (the text
view's), preedit (what the input method shows underlined, not yet in the text),
focus ("entry" or "text").

Commands, one per line on stdin:
  state                  print the state
  focus entry|text       give that widget the keyboard focus
  hints N                the entry's GtkInputHints (e.g. 8 = lowercase, 2 = no spellcheck)
  clear                  empty the entry and the text view
  select                 select all of the entry's text (as a triple click or Ctrl-A would)
  screenshot PATH [X Y W H]
                         save a PNG of the screen: the rectangle X Y W H of the root window (so that
                         an input method's candidate window next to this window is in the picture
                         too), or this window and 220 pixels below it
  quit
"""
import json
import os
import sys

import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

state = {"entry": "", "entry_cursor": 0, "text": "", "preedit": "", "focus": "entry"}


def emit(event, **extra):
    line = dict(state)
    line["event"] = event
    line.update(extra)
    sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    sys.stdout.flush()


# A steady caret, so that screenshots do not depend on when they are taken.
Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)
window = Gtk.Window(title="kbhost — IBus")
window.set_default_size(420, 150)
window.move(20, 20)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
box.set_border_width(12)
window.add(box)
label = Gtk.Label(label="A GTK 3 app typing through IBus into kbhost's current keyboard")
label.set_xalign(0)
box.pack_start(label, False, False, 0)
# The text view above the entry: what an input method shows below the entry (its candidate
# window) hangs below the window, as in a screenshot of a desktop.
view = Gtk.TextView()
view.set_size_request(-1, 50)
frame = Gtk.Frame()
frame.add(view)
box.pack_start(frame, True, True, 0)
buffer = view.get_buffer()
entry = Gtk.Entry()
entry.set_placeholder_text("GtkEntry")
box.pack_start(entry, False, False, 0)

# Big enough to read in the README's picture.
css = Gtk.CssProvider()
css.load_from_data(b"entry, textview { font-size: 20px; } label { font-size: 12px; }")
Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)


def entry_changed(*_):
    state["entry"] = entry.get_text()
    state["entry_cursor"] = entry.get_position()
    emit("changed")


def text_changed(*_):
    state["text"] = buffer.get_text(buffer.get_start_iter(), buffer.get_end_iter(), True)
    emit("changed")


def preedit_changed(_widget, preedit):
    state["preedit"] = preedit
    emit("changed")


entry.connect("changed", entry_changed)
entry.connect("notify::cursor-position", entry_changed)
entry.connect("preedit-changed", preedit_changed)
entry.connect("activate", lambda *_: emit("activate"))
buffer.connect("changed", text_changed)
view.connect("preedit-changed", preedit_changed)


def focused(_widget, _event, name):
    state["focus"] = name
    emit("focus")
    return False


def mapped(*_):
    x, y = window.get_window().get_origin()[1:]
    alloc = window.get_allocation()
    emit("mapped", window=window.get_window().get_xid(), frame=[x, y, alloc.width, alloc.height])
    return False


entry.connect("focus-in-event", focused, "entry")
view.connect("focus-in-event", focused, "text")
window.connect("map-event", mapped)


def screenshot(path, rect):
    root = Gdk.get_default_root_window()
    if rect is None:
        x, y = window.get_window().get_origin()[1:]
        alloc = window.get_allocation()
        rect = (x, y, min(root.get_width() - x, alloc.width), min(root.get_height() - y, alloc.height + 220))
    pixbuf = Gdk.pixbuf_get_from_window(root, *rect)
    pixbuf.savev(path, "png", ["compression"], ["9"])
    emit("screenshot", path=path, width=pixbuf.get_width(), height=pixbuf.get_height())


def command(line):
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "state":
        emit("state")
    elif cmd == "focus":
        (view if arg == "text" else entry).grab_focus()
        emit("state")
    elif cmd == "hints":
        entry.set_input_hints(Gtk.InputHints(int(arg)))
        emit("state")
    elif cmd == "select":
        entry.select_region(0, -1)
        emit("state", selection=list(entry.get_selection_bounds()))
    elif cmd == "clear":
        entry.set_text("")
        buffer.set_text("")
        emit("state")
    elif cmd == "screenshot":
        parts = arg.split()
        rect = tuple(int(p) for p in parts[1:5]) if len(parts) >= 5 else None
        # Let GTK (and the candidate window) finish drawing first.
        GLib.timeout_add(150, lambda: screenshot(parts[0], rect) and False)
    elif cmd == "quit":
        Gtk.main_quit()
    elif cmd:
        emit("error", message="unknown command " + cmd)


pending = b""


def stdin_ready(fd, condition):
    global pending
    data = os.read(fd, 65536)
    if not data:  # the test went away
        Gtk.main_quit()
        return False
    pending += data
    while b"\n" in pending:
        line, pending = pending.split(b"\n", 1)
        command(line.decode())
    return True


GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, sys.stdin.fileno(), GLib.IOCondition.IN | GLib.IOCondition.HUP,
                      stdin_ready)
window.connect("destroy", Gtk.main_quit)
window.show_all()
entry.grab_focus()
window.present()
Gtk.main()
