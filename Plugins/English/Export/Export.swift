import English
import KeyboardSDK

// The one line that makes the keyboard loadable. It lives in its own target so
// that unit tests can link the keyboard's code without this symbol (every
// plugin exports the same one).
@_cdecl("kbhost_keyboard_plugin_v1")
public func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(EnglishViewController.self) }
