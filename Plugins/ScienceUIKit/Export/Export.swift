import KeyboardSDK
import ScienceUIKit

// The one line that makes the keyboard loadable, in a target of its own (as every sample's).
@_cdecl("kbhost_keyboard_plugin_v1")
public func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(KeyboardViewController.self) }
