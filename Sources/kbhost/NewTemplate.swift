import Foundation

/// The files `kbhost new` writes.
struct Template {
    let name: String
    let identifier: String
    /// The SDK package (SDK/ in the kbhost checkout), which a Swift keyboard depends on by path.
    let sdk: String
    /// The kbhost checkout, for the links to its docs.
    let repository: String

    /// SwiftPM names a package depended on by path after its folder, lowercased: always "sdk".
    var sdkPackage: String { (sdk as NSString).lastPathComponent.lowercased() }

    func infoPlist(executable: String, principalClass: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>\(identifier)</string>
        \t<key>CFBundleDisplayName</key>
        \t<string>\(name)</string>
        \t<key>CFBundleExecutable</key>
        \t<string>\(executable)</string>
        \t<key>NSExtension</key>
        \t<dict>
        \t\t<key>NSExtensionAttributes</key>
        \t\t<dict>
        \t\t\t<key>IsASCIICapable</key>
        \t\t\t<true/>
        \t\t\t<key>PrefersRightToLeft</key>
        \t\t\t<false/>
        \t\t\t<key>PrimaryLanguage</key>
        \t\t\t<string>en-US</string>
        \t\t\t<key>RequestsOpenAccess</key>
        \t\t\t<false/>
        \t\t</dict>
        \t\t<key>NSExtensionPointIdentifier</key>
        \t\t<string>com.apple.keyboard-service</string>
        \t\t<key>NSExtensionPrincipalClass</key>
        \t\t<string>\(principalClass)</string>
        \t</dict>
        </dict>
        </plist>

        """
    }

    var swiftFiles: [(String, String)] {
        [
            ("Package.swift", """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "\(name)",
                products: [
                    // The plugin kbhost loads: a shared library exporting kbhost_keyboard_plugin_v1.
                    .library(name: "\(name)Keyboard", type: .dynamic, targets: ["\(name)Keyboard"]),
                ],
                dependencies: [
                    // kbhost's SDK, SDK/ in your kbhost checkout (`kbhost sdk --path`): KeyboardSDK and
                    // KeyboardTesting. SwiftPM names a package depended on by path after its folder: "\(sdkPackage)".
                    .package(path: "\(sdk)"),
                ],
                targets: [
                    // The keyboard's code (the test links it too).
                    .target(name: "\(name)", dependencies: [.product(name: "KeyboardSDK", package: "\(sdkPackage)")]),
                    // The one line that makes it a plugin, apart so tests can link the code without the export.
                    .target(name: "\(name)Keyboard", dependencies: ["\(name)", .product(name: "KeyboardSDK", package: "\(sdkPackage)")]),
                    .testTarget(name: "\(name)Tests", dependencies: ["\(name)", .product(name: "KeyboardTesting", package: "\(sdkPackage)")]),
                ]
            )

            """),
            ("Sources/\(name)/\(name)ViewController.swift", """
            import KeyboardSDK

            /// The principal class: kbhost creates it and calls viewDidLoad, viewWillAppear… as UIKit does.
            public final class \(name)ViewController: InputViewController {
                /// One capital after shift, like the system keyboard.
                var shifted = false

                /// Each key action once: its selector and its method. Keys pass these
                /// constants, so a misspelt action does not compile.
                static let letter = KeyAction("letter:", \(name)ViewController.letter)
                static let shift = KeyAction("shift", \(name)ViewController.shift)
                public override class var keyActions: [KeyAction] { [letter, shift] }

                public override func viewDidLoad() { showKeys() }

                /// The globe key only when the device does not draw one.
                public override func viewWillAppear(_ animated: Bool) { showKeys() }

                func showKeys() {
                    let letters = ["h", "e", "l", "o", "i", "w", "r", "d"].map {
                        KeySpec(shifted ? $0.uppercased() : $0, action: \(name)ViewController.letter)
                    }
                    var bottom = [KeySpec("⇧", role: .shift, action: \(name)ViewController.shift), .space(), .delete(), .return()]
                    if needsInputModeSwitchKey { bottom.insert(.globe(), at: 0) }
                    keyboardLayout = KeyboardLayout(rows: [letters, bottom])
                }

                func letter(_ key: Key) {
                    textDocumentProxy.insertText(key.label)
                    if shifted {
                        shifted = false
                        showKeys()
                    }
                }

                func shift() {
                    shifted.toggle()
                    showKeys()
                }
            }

            """),
            ("Sources/\(name)Keyboard/Export.swift", """
            import \(name)
            import KeyboardSDK

            // The plugin's one export. kbhost's worker dlopens the library and calls it.
            @_cdecl("kbhost_keyboard_plugin_v1")
            public func kbhostKeyboardPlugin() -> UnsafeRawPointer { KeyboardPlugin.export(\(name)ViewController.self) }

            """),
            ("Info.plist", infoPlist(executable: "lib\(name)Keyboard.so", principalClass: "\(name)ViewController")),
            ("Tests/\(name)Tests/\(name)Tests.swift", """
            import Foundation
            import KeyboardSDK
            import KeyboardTesting
            import Testing
            @testable import \(name)

            @Suite struct \(name)Tests {
                /// In process: fast, for the keyboard's logic.
                @Test func shiftGivesOneCapital() throws {
                    let keyboard = try KeyboardTestDriver(\(name)ViewController.self)
                    try keyboard.appear()
                    try keyboard.type("shift", "H", "i")
                    #expect(keyboard.text == "Hi")
                }

                /// In its real extension process, sandboxed, under an older phone's memory budget
                /// (needs `swift build` first, for the plugin library).
                @Test func typesInItsOwnProcessWithinTheBudget() throws {
                    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .deletingLastPathComponent().deletingLastPathComponent().path
                    let keyboard = try KeyboardProcess(bundle: package, budget: .profile("older-phone"))
                    try keyboard.run(script: "h e l l o space w o r l d")
                    #expect(keyboard.text == "hello world")
                    #expect(keyboard.events.starts(with: ["viewDidLoad", "viewWillAppear", "viewDidAppear"]))
                    let peak = try #require(keyboard.peakFootprintBytes)
                    #expect(peak < keyboard.budgetBytes, "peak \\(peak) bytes")
                }
            }

            """),
            ("README.md", """
            # \(name)

            A keyboard for [kbhost](\(repository)), made with `kbhost new`. Its code is in
            `Sources/\(name)/\(name)ViewController.swift`, its manifest in `Info.plist`.

            ```sh
            swift build                                            # the plugin: .build/debug/lib\(name)Keyboard.so
            kbhost install .                                       # copies Info.plist and the library into your keyboards
            kbhost type --keyboard \(identifier) shift H i     # or: kbhost enable \(identifier) && kbhost attach
            ```

            After an edit, `kbhost dev shift H i` builds, installs and types in one go; `swift build` alone
            leaves the installed copy as it was (kbhost type warns that it is older than the build).

            `swift test` runs its tests: in process (KeyboardTestDriver) and in its real extension process under
            a phone's memory budget (KeyboardProcess; after `swift build`). Guide: \(repository)/docs/writing-a-keyboard.md.
            API reference: `kbhost sdk --docs` says where it is (or how to make it).

            """),
            (".gitignore", ".build/\nPackage.resolved\n.swiftpm/\n"),
        ]
    }

    var cFiles: [(String, String)] {
        let lower = name.lowercased()
        return [
            ("Makefile", """
            # Builds lib\(name)Keyboard.so next to Info.plist: the folder is the keyboard's bundle.
            KBHOST ?= kbhost
            CFLAGS ?= -O2 -g -Wall -Wextra
            SDK_CFLAGS := $(shell $(KBHOST) sdk --cflags)

            lib\(name)Keyboard.so: \(lower).c
            \t$(CC) $(CFLAGS) $(SDK_CFLAGS) -fPIC -shared -o $@ $<

            test: lib\(name)Keyboard.so
            \t./test.sh

            clean:
            \trm -f lib\(name)Keyboard.so

            .PHONY: test clean

            """),
            ("\(lower).c", """
            /* \(name): a keyboard in C against kbhost_keyboard.h alone. */
            #include <kbhost_keyboard.h>
            #include <stdlib.h>

            typedef struct keyboard {
                const kbh_host_v1 *host;
            } keyboard;

            static void show_keys(keyboard *self) {
                static const kbh_key_spec_v1 letters[] = {
                    {.label = "h", .action = "letter:"}, {.label = "e", .action = "letter:"},
                    {.label = "l", .action = "letter:"}, {.label = "o", .action = "letter:"},
                    {.label = "i", .action = "letter:"},
                };
                kbh_key_spec_v1 bottom[] = {
                    {.label = "🌐", .role = KBH_ROLE_GLOBE, .action = "nextKeyboard"},
                    {.label = "space", .role = KBH_ROLE_SPACE, .action = "space"},
                    {.label = "⌫", .role = KBH_ROLE_DELETE, .action = "deleteBackward", .repeats = true},
                };
                bool globe = self->host->needs_input_mode_switch_key(self->host->ctx);
                kbh_row_spec_v1 rows[] = {{letters, 5}, {globe ? bottom : bottom + 1, globe ? 3 : 2}};
                kbh_layout_v1 layout = {.rows = rows, .row_count = 2};
                self->host->set_layout(self->host->ctx, &layout);
            }

            /* Selectors: a C function and its type encoding (v@: = void, the instance, the selector). */
            static void view_did_load(keyboard *self, const kbh_selector_v1 *cmd) { (void)cmd; show_keys(self); }
            static void view_will_appear(keyboard *self, const kbh_selector_v1 *cmd, bool animated) {
                (void)cmd; (void)animated; show_keys(self);
            }
            static void letter(keyboard *self, const kbh_selector_v1 *cmd, const kbh_key_v1 *key) {
                (void)cmd; self->host->insert_text(self->host->ctx, key->label);
            }
            static void space(keyboard *self, const kbh_selector_v1 *cmd) { (void)cmd; self->host->insert_text(self->host->ctx, " "); }
            static void delete_backward(keyboard *self, const kbh_selector_v1 *cmd) {
                (void)cmd;
                if (self->host->has_text(self->host->ctx)) self->host->delete_backward(self->host->ctx);
            }
            static void next_keyboard(keyboard *self, const kbh_selector_v1 *cmd) {
                (void)cmd; self->host->advance_to_next_input_mode(self->host->ctx);
            }

            static void *create(const kbh_class_v1 *cls, const kbh_host_v1 *host) {
                (void)cls;
                keyboard *self = calloc(1, sizeof *self);
                if (self) self->host = host;
                return self;
            }

            static const kbh_selector_v1 selectors[] = {
                {"viewDidLoad", "v@:", (void *)view_did_load, NULL},
                {"viewWillAppear:", "v@:B", (void *)view_will_appear, NULL},
                {"letter:", "v@:@", (void *)letter, NULL},
                {"space", "v@:", (void *)space, NULL},
                {"deleteBackward", "v@:", (void *)delete_backward, NULL},
                {"nextKeyboard", "v@:", (void *)next_keyboard, NULL},
            };

            static const kbh_class_v1 the_class = {
                .name = "\(name)ViewController",
                .create = create,
                .selectors = selectors,
                .selector_count = sizeof selectors / sizeof selectors[0],
            };

            static const kbh_class_v1 *const classes[] = {&the_class};
            static const kbh_plugin_v1 plugin = {
                .abi_version = KBH_ABI_VERSION, .struct_size = sizeof(kbh_plugin_v1), .classes = classes, .class_count = 1,
            };

            const kbh_plugin_v1 *kbhost_keyboard_plugin_v1(void) { return &plugin; }

            """),
            ("Info.plist", infoPlist(executable: "lib\(name)Keyboard.so", principalClass: "\(name)ViewController")),
            ("test.sh", """
            #!/bin/sh
            # Types through the keyboard in its real, sandboxed extension process and checks the text.
            set -eu
            cd "$(dirname "$0")"
            KBHOST=${KBHOST:-kbhost}
            home=$(mktemp -d)   # a fresh KBHOST_HOME: an installed copy does not clash with this folder
            trap 'rm -rf "$home"' EXIT
            out=$(KBHOST_HOME="$home" KBHOST_KEYBOARDS="$(pwd)" "$KBHOST" type --keyboard \(identifier) h e l l o space h i delete)
            if [ "$out" = "hello h" ]; then echo "ok: $out"; else echo "FAILED: got '$out', expected 'hello h'" >&2; exit 1; fi

            """),
            ("README.md", """
            # \(name)

            A C keyboard for [kbhost](\(repository)), made with `kbhost new --language c`: `\(lower).c` against
            `kbhost_keyboard.h` alone (`kbhost sdk --cflags` says where it is; `kbhost sdk --pkg-config` writes a .pc).

            ```sh
            make                                                   # lib\(name)Keyboard.so, next to Info.plist
            kbhost install .                                       # copies this bundle into your keyboards
            kbhost type --keyboard \(identifier) h e l l o     # or: kbhost enable \(identifier) && kbhost attach
            ```

            `make test` types through it in its real extension process and checks the result.

            """),
            (".gitignore", "*.so\n"),
        ]
    }
}
