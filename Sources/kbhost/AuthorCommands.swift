import ArgumentParser
import Foundation
import KBHost
import KBSystem
import KBWire

/// Where a keyboard author's build finds kbhost: the package, the C header, the products.
struct SDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Where the keyboard SDK is: the package to depend on, the C header's flags, a pkg-config file.",
        discussion: """
              kbhost sdk --path          the kbhost package, for .package(path: …) in a Swift keyboard's Package.swift
              kbhost sdk --cflags        -I… for kbhost_keyboard.h, for a C keyboard:  cc $(kbhost sdk --cflags) -fPIC -shared …
              kbhost sdk --pkg-config    a kbhost-keyboard.pc; save it in a folder on PKG_CONFIG_PATH
              kbhost sdk --products      the build products (kbhost-worker), for KBHOST_PRODUCTS
            """)

    @Flag(help: "Print the kbhost package's folder.") var path = false
    @Flag(help: "Print the C compiler flags for kbhost_keyboard.h.") var cflags = false
    @Flag(name: .customLong("pkg-config"), help: "Print a pkg-config file (kbhost-keyboard.pc).") var pkgConfig = false
    @Flag(help: "Print the build products folder.") var products = false

    static var root: String { Installation.packageRoot() }
    static var includeDirectory: String { root + "/Sources/CKeyboardABI/include" }

    func validate() throws {
        guard [path, cflags, pkgConfig, products].filter({ $0 }).count == 1 else {
            throw ValidationError("say one of --path, --cflags, --pkg-config or --products")
        }
    }

    func run() throws {
        guard FileManager.default.fileExists(atPath: SDK.includeDirectory + "/kbhost_keyboard.h") else {
            throw exitWithError("the kbhost sources this binary was built from are gone (\(SDK.root)); rebuild kbhost from a checkout",
                                status: Kbhost.Exit.refused)
        }
        if path { Console.out(SDK.root) }
        if cflags { Console.out("-I\(SDK.includeDirectory)") }
        if products { Console.out(Installation.current().productsDirectory) }
        if pkgConfig {
            Console.out("""
                prefix=\(SDK.root)
                includedir=${prefix}/Sources/CKeyboardABI/include

                Name: kbhost-keyboard
                Description: The kbhost keyboard plugin ABI (kbhost_keyboard.h), version 1
                Version: 1.0
                Cflags: -I${includedir}
                """)
        }
    }
}

/// `kbhost new`: a keyboard package that builds, installs, types and tests.
struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scaffold a keyboard: a Swift package (or a C folder with a Makefile), its manifest, a test and a README.",
        discussion: """
            kbhost new Acme                     ./Acme, a Swift keyboard depending on this kbhost's SDK by path
            kbhost new Acme --language c        ./Acme, a C keyboard built with make against kbhost_keyboard.h
            Then, in the folder: swift build (or make), kbhost install ., kbhost type --keyboard ID … — see its README.
            """)

    enum Language: String, ExpressibleByArgument, CaseIterable { case swift, c }

    @Argument(help: "The keyboard's name: letters and digits, starting with a capital letter (Acme, MyKeys2).") var name: String
    @Option(help: "swift or c.") var language: Language = .swift
    @Option(help: "The folder to create (default: ./NAME). It must not exist or be empty.") var path: String?
    @Option(help: "The bundle identifier (default: com.example.NAME, lowercased).") var identifier: String?

    func validate() throws {
        guard let first = name.first, first.isUppercase, first.isASCII,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), name.count <= 64 else {
            throw ValidationError("'\(name)' is not a keyboard name: letters and digits, starting with a capital letter")
        }
        if let identifier, let problem = KeyboardManifest.bundleIdentifierProblem(identifier) {
            throw ValidationError("\(TerminalText.quoted(identifier)) is not a reverse-DNS bundle identifier (like com.example.keyboard): it \(problem)")
        }
    }

    func run() throws {
        let folder = ((path ?? name) as NSString).standardizingPath
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        let fm = FileManager.default
        if fm.fileExists(atPath: absolute), let contents = try? fm.contentsOfDirectory(atPath: absolute), !contents.isEmpty {
            throw exitWithError("\(absolute) already exists and is not empty; nothing was written", status: Kbhost.Exit.refused)
        }
        let template = Template(name: name, identifier: identifier ?? "com.example.\(name.lowercased())", sdk: SDK.root)
        let files = language == .swift ? template.swiftFiles : template.cFiles
        do {
            for (relative, text) in files {
                let file = absolute + "/" + relative
                try fm.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
                if relative.hasSuffix(".sh") { try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file) }
            }
        } catch {
            throw exitWithError("writing \(absolute): \(error.localizedDescription)", status: Kbhost.Exit.refused)
        }
        Console.out("created \(language == .swift ? "a Swift" : "a C") keyboard \(template.identifier) in \(absolute)")
        Console.out(language == .swift
            ? "next: cd \(folder) && swift build && kbhost install . && kbhost type --keyboard \(template.identifier) h i"
            : "next: cd \(folder) && make && kbhost install . && kbhost type --keyboard \(template.identifier) h i")
    }
}

/// The files `kbhost new` writes.
struct Template {
    let name: String
    let identifier: String
    let sdk: String

    /// SwiftPM names a package depended on by path after its folder.
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
                    // kbhost's SDK, from your kbhost checkout (`kbhost sdk --path`).
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

            A keyboard for [kbhost](\(sdk)), made with `kbhost new`. Its code is in
            `Sources/\(name)/\(name)ViewController.swift`, its manifest in `Info.plist`.

            ```sh
            swift build                                            # the plugin: .build/debug/lib\(name)Keyboard.so
            kbhost install .                                       # copies Info.plist and the library into your keyboards
            kbhost type --keyboard \(identifier) shift H i     # or: kbhost enable \(identifier) && kbhost attach
            ```

            `swift test` runs its tests: in process (KeyboardTestDriver) and in its real extension process under
            a phone's memory budget (KeyboardProcess; after `swift build`). Guide: \(sdk)/docs/writing-a-keyboard.md.

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

            A C keyboard for [kbhost](\(sdk)), made with `kbhost new --language c`: `\(lower).c` against
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

/// `kbhost doctor`: whether this machine can run keyboards as kbhost promises, and what to do if not.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the machine: libffi, libseccomp, seccomp, Landlock, the memory budget's mechanisms, the worker.",
        discussion: "Each line says what is there, or what is missing and what to do. Exits 1 when something required is missing.")

    @Flag(help: "Print JSON.") var json = false

    struct Check: Encodable {
        var name: String
        var ok: Bool
        var required: Bool
        var detail: String
    }

    func run() throws {
        var checks: [Check] = []
        func check(_ name: String, required: Bool = true, _ ok: Bool, _ detail: String, fix: String) {
            checks.append(Check(name: name, ok: ok, required: required, detail: ok ? detail : "\(detail) — \(fix)"))
        }
        let installation = Installation.current()
        check("worker", FileManager.default.isExecutableFile(atPath: installation.workerPath), installation.workerPath,
              fix: "build kbhost (swift build) or set KBHOST_PRODUCTS to the folder holding kbhost-worker")
        check("libffi", dlopen("libffi.so.8", RTLD_LAZY) != nil, "libffi.so.8 (dispatch into plugin code)",
              fix: "apt-get install libffi-dev (scripts/install-deps)")
        check("libseccomp", dlopen("libseccomp.so.2", RTLD_LAZY) != nil, "libseccomp.so.2 (the system call filter)",
              fix: "apt-get install libseccomp-dev (scripts/install-deps)")
        let kernel = Protection.kernel()
        let needs: [(SandboxSpec.Mechanism, String)] = [
            (.seccomp, "seccomp filters"), (.landlock, "Landlock filesystem rules"),
            (.landlockNetwork, "Landlock TCP rules (ABI 4, Linux 6.7)"),
            (.landlockScope, "Landlock signal and abstract-socket scoping (ABI 6, Linux 6.12)"),
            (.namespaces, "unprivileged user namespaces, with mount, PID, IPC, UTS and network namespaces in them"),
        ]
        for (m, what) in needs {
            let fix = m == .namespaces
                ? "allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0; on Ubuntu, "
                  + "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for kbhost-worker); "
                  + "or, per keyboard: kbhost protection ID allow namespaces"
                : "a newer kernel (with Landlock in lsm=); or, per keyboard: kbhost protection ID allow \(m.rawValue)"
            check("sandbox: \(m.rawValue)", kernel.available[m.rawValue] ?? false,
                  m == .landlock ? "\(what), Landlock ABI \(kernel.landlockABI)" : what, fix: fix)
        }
        var pidfdOK = false
        if let fd = try? Sys.pidfdOpen(getpid()) { pidfdOK = true; Sys.close(fd) }
        check("budget: pidfd", pidfdOK, "pidfd_open (the governor kills through pidfds)", fix: "Linux 5.3 or later")
        let status = ProcMemory.readSmallFile("/proc/self/status") ?? ""
        let fields = ["RssAnon:", "RssShmem:", "VmSwap:"].filter { status.contains($0) }
        check("budget: footprint", fields.count == 3, "/proc/PID/status RssAnon, RssShmem, VmSwap",
              fix: "a kernel with these /proc fields (4.5 or later), /proc mounted")
        var limit = rlimit()
        check("budget: RLIMIT_DATA", getrlimit(Int32(RLIMIT_DATA.rawValue), &limit) == 0 && (limit.rlim_max == rlim_t.max || limit.rlim_max >= 512 << 20),
              "the worker's 512 MiB backstop fits under the hard limit", fix: "raise the hard RLIMIT_DATA (ulimit -Hd)")
        // The whole path: a bundled keyboard in its sandboxed extension process.
        if let keyboard = try? installation.keyboard("dev.kbhost.NumberPad") {
            var detail = "dev.kbhost.NumberPad loaded, sandboxed, and typed"
            var ok = false
            do {
                let session = try KeyboardSession(keyboard: keyboard, configuration: installation.processConfiguration)
                try session.appear()
                try session.tap("1")
                ok = session.document.text == "1"
                session.close()
            } catch { detail = "\(error)" }
            check("end to end", ok, detail, fix: "see the lines above")
        } else {
            check("end to end", required: false, false, "the bundled keyboards are not built", fix: "swift build")
        }
        if json {
            try printJSON(checks)
        } else {
            for c in checks { Console.out("\(c.ok ? "✓" : c.required ? "✗" : "–") \(c.name): \(c.detail)") }
        }
        if checks.contains(where: { !$0.ok && $0.required }) { throw ExitCode(1) }
    }
}
