// swift-tools-version: 6.0
//
// kbhost: a plugin-hosted multi-keyboard runtime. See README.md, and ARCHITECTURE.md for the
// module map: kbhost → KBHost → KBWire ← KBWorker → CKeyboardABI ← KeyboardSDK ← plugins.
// ARCHITECTURE.md lists every target below with its dependencies; ArchitectureTests fails
// when the two disagree and names the line to change.
//
// Two manifests. The SDK's modules live in SDK/ (the ABI header, KeyboardSDK, KeyboardTesting,
// and what the testing kit runs a keyboard with: KBHost, KBCore, KBExtensionRuntime, KBWire, KBText,
// KBSystem, CFFI, CKBShims), which is a package of its own, SDK/Package.swift: what a keyboard's
// package (`kbhost new`) depends on by path. Its graph so holds no sample keyboard (an author's
// Science or Calculator would clash with ours: SwiftPM refuses two targets of one name in a
// graph, and of two products of one name it silently builds one library over the other), no
// executable and no remote package, and its identity is its folder's name, `sdk`, whatever the
// checkout is called. (Renaming the samples instead would have left every other target here —
// kbhost, KBWorker, CIBus… — and the remote packages' — Logging, ArgumentParser… — as names
// no keyboard could take.)
// This package builds the same folders as targets of its own (path: "SDK/Sources/…") rather than
// depending on SDK/ by path: SwiftPM plans a build anew only when a root package's folders
// change, so a file added to KBHost would stay unseen by kbhost's own build until Package.swift
// was touched. ArchitectureTests holds the two declarations of each SDK module identical.
import PackageDescription

let package = Package(
    name: "kbhost",
    products: [
        .executable(name: "kbhost", targets: ["kbhost"]),
        .executable(name: "kbhost-worker", targets: ["KBWorker"]),
        .executable(name: "kbhost-bench", targets: ["kbhost-bench"]),
        .executable(name: "kbhost-floor", targets: ["kbhost-floor"]),
        .executable(name: "kbhost-floor-ibus", targets: ["kbhost-floor-ibus"]),
        // KeyboardSDK, KeyboardTesting and KBHost are products of SDK/Package.swift: depend on that.
        // The sample keyboards: each a shared library the worker dlopens.
        .library(name: "CalculatorKeyboard", type: .dynamic, targets: ["CalculatorKeyboard"]),
        .library(name: "ScienceKeyboard", type: .dynamic, targets: ["ScienceKeyboard"]),
        .library(name: "ScienceUIKitKeyboard", type: .dynamic, targets: ["ScienceUIKitKeyboard"]),
        .library(name: "KanaKeyboard", type: .dynamic, targets: ["KanaKeyboard"]),
        .library(name: "EnglishKeyboard", type: .dynamic, targets: ["EnglishKeyboard"]),
        .library(name: "NumberPadKeyboard", type: .dynamic, targets: ["NumberPadKeyboard"]),
        // Keyboards that misbehave on purpose, for tests and stress runs.
        .library(name: "FaultKeyboards", type: .dynamic, targets: ["FaultKeyboards"]),
        .library(name: "FaultNoEntry", type: .dynamic, targets: ["FaultNoEntry"]),
        .library(name: "SwiftFaultKeyboards", type: .dynamic, targets: ["SwiftFaultKeyboards"]),
        .library(name: "FaultWrongABI", type: .dynamic, targets: ["FaultWrongABI"]),
        // A keyboard that tries every escape from its sandbox and types what happened.
        .library(name: "HostileKeyboard", type: .dynamic, targets: ["HostileKeyboard"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The SDK's modules (path: "SDK/…"), declared as in SDK/Package.swift.
        // The plugin ABI: one versioned C header, shared by the worker, the SDK and C plugins.
        .target(name: "CKeyboardABI", path: "SDK/Sources/CKeyboardABI"),
        // C wrappers (kbs_, in shims.c) for system calls Swift cannot call directly: variadic
        // ones (prctl, syscall, fcntl) and ones Glibc's module does not import (pidfd_*).
        .target(name: "CKBShims", path: "SDK/Sources/CKBShims"),
        // The extension process's sandbox: namespaces, its own root, Landlock and seccomp (libseccomp).
        // The worker applies it; the CLI links it only to ask what this kernel has (protection, doctor).
        .target(name: "CKBSandbox", path: "Sources/CKBSandbox", linkerSettings: [.linkedLibrary("seccomp")]),
        // libffi, with accessors for its ffi_type_* globals.
        .systemLibrary(name: "CFFI", path: "SDK/Sources/CFFI", pkgConfig: "libffi",
                       providers: [.apt(["libffi-dev"])]),
        // libibus (Debian's libibus-1.0-dev), and the IBus engine's C side over it: a GObject
        // engine class whose methods call the Swift front end (`kbhost ibus`) through a table.
        .systemLibrary(name: "CIBus", path: "Sources/CIBus", pkgConfig: "ibus-1.0",
                       providers: [.apt(["libibus-1.0-dev"])]),
        .target(name: "CKBIBus", dependencies: ["CIBus"], path: "Sources/CKBIBus"),

        // Pure, Foundation-free: the text model shared by host, worker mirror and testing kit.
        .target(name: "KBText", path: "SDK/Sources/KBText"),
        // Pure, Foundation-free: framing, messages and their binary codec.
        .target(name: "KBWire", dependencies: ["KBText"], path: "SDK/Sources/KBWire"),
        // Pure, Foundation-free: the input manager's values and rules — manifests, settings, cycling,
        // tap steps, device profiles, layouts. No files, no clock, no processes: the caller passes them in.
        .target(name: "KBCore", dependencies: ["KBText", "KBWire"], path: "SDK/Sources/KBCore"),
        // The system layer: spawn, pidfd, rlimits, poll, sockets, atomic files, /proc, and the raw
        // calls (kill, waitpid, read/write, stat, chmod, dlopen, getrlimit, setenv…) behind Sys, which
        // ArchitectureTests holds to; the sandbox's are in CKBSandbox (C).
        .target(name: "KBSystem", dependencies: ["CKBShims"], path: "SDK/Sources/KBSystem"),

        // The SDK keyboard authors write against (no Foundation).
        .target(name: "KeyboardSDK", dependencies: ["CKeyboardABI"], path: "SDK/Sources/KeyboardSDK"),
        // UIKit's spellings (UIInputViewController, UITextDocumentProxy, NSRange, CGSize, the
        // trait types) over KeyboardSDK, so that one module of keyboard code compiles for iOS and
        // for kbhost. No Foundation: it loads into the keyboard's process.
        .target(name: "KeyboardUIKitCompat", dependencies: ["KeyboardSDK"], path: "SDK/Sources/KeyboardUIKitCompat"),
        // For an author's tests: the in-process driver, and KeyboardProcess (the real worker,
        // under a budget, through KBHost). The one module that sees both the SDK and the host.
        .target(name: "KeyboardTesting", dependencies: ["KeyboardSDK", "KBExtensionRuntime", "KBWire", "KBText", "KBHost", "KBSystem"],
                path: "SDK/Sources/KeyboardTesting"),

        // What the extension process does with a plugin: dlopen, class lookup, selector
        // checks, libffi dispatch, the services table. No Foundation.
        .target(name: "KBExtensionRuntime", dependencies: ["KBWire", "KBText", "KBSystem", "CKeyboardABI", "CFFI"],
                path: "SDK/Sources/KBExtensionRuntime"),
        // The lean extension process: the runtime behind a socket, inside its limits and its sandbox. No Foundation.
        .executableTarget(name: "KBWorker",
                          dependencies: ["KBExtensionRuntime", "KBWire", "KBSystem", "CKBShims", "CKBSandbox"],
                          path: "Sources/KBWorker"),

        // The input manager's library: documents, manifests, registry, settings, extension
        // processes, sessions, the input manager. Never the SDK or the ABI: it speaks KBWire.
        .target(name: "KBHost", dependencies: ["KBCore", "KBWire", "KBText", "KBSystem"], path: "SDK/Sources/KBHost"),
        .executableTarget(name: "kbhost",
                          dependencies: ["KBHost", "KBText", "KBSystem", "KBWire", "CKBSandbox", "CKBIBus",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Logging", package: "swift-log")],
                          path: "Sources/kbhost"),
        .executableTarget(name: "kbhost-bench", dependencies: ["KBHost", "KBSystem", "KBWire", "KBText"],
                          path: "Sources/kbhost-bench"),
        // The floors the benchmark measures against: bare spawn + dlopen, raw ping-pong. In C on purpose.
        .executableTarget(name: "kbhost-floor", path: "Sources/kbhost-floor",
                          linkerSettings: [.linkedLibrary("dl")]),
        // The IBus floor (an engine that commits every key) and the client that times both engines
        // through one ibus-daemon. Apart from kbhost-floor, so that libibus stays out of that floor's processes.
        .executableTarget(name: "kbhost-floor-ibus", dependencies: ["CIBus"], path: "Sources/kbhost-floor-ibus"),

        // Sample keyboards.
        // A Swift keyboard is two targets: its code, and the export that makes it a plugin.
        .target(name: "Calculator", dependencies: ["KeyboardSDK"], path: "Plugins/Calculator/Keyboard"),
        .target(name: "CalculatorKeyboard", dependencies: ["Calculator", "KeyboardSDK"], path: "Plugins/Calculator/Export"),
        .target(name: "Science", dependencies: ["KeyboardSDK"], path: "Plugins/Science/Keyboard"),
        .target(name: "ScienceKeyboard", dependencies: ["Science", "KeyboardSDK"], path: "Plugins/Science/Export"),
        // The seed's Science keyboard again, its controller written against UIKit's names
        // (KeyboardUIKitCompat) as on iOS: the same code compiles for both.
        .target(name: "ScienceUIKit", dependencies: ["KeyboardUIKitCompat", "KeyboardSDK"], path: "Plugins/ScienceUIKit/Keyboard"),
        .target(name: "ScienceUIKitKeyboard", dependencies: ["ScienceUIKit", "KeyboardSDK"], path: "Plugins/ScienceUIKit/Export"),
        // Japanese with kana–kanji conversion through anthy (Debian's libanthy-dev; no pkg-config file).
        .systemLibrary(name: "CAnthy", path: "Plugins/Kana/CAnthy", providers: [.apt(["libanthy-dev"])]),
        .target(name: "Kana", dependencies: ["KeyboardSDK", "CAnthy"], path: "Plugins/Kana/Keyboard"),
        .target(name: "KanaKeyboard", dependencies: ["Kana", "KeyboardSDK"], path: "Plugins/Kana/Export"),
        // English with the standard keyboard's habits; spelling through hunspell (Debian's libhunspell-dev).
        .systemLibrary(name: "CHunspell", path: "Plugins/English/CHunspell", pkgConfig: "hunspell",
                       providers: [.apt(["libhunspell-dev", "hunspell-en-us"])]),
        .target(name: "English", dependencies: ["KeyboardSDK", "CHunspell"], path: "Plugins/English/Keyboard"),
        .target(name: "EnglishKeyboard", dependencies: ["English", "KeyboardSDK"], path: "Plugins/English/Export"),
        .target(name: "NumberPadKeyboard", dependencies: ["CKeyboardABI"], path: "Plugins/NumberPad"),
        .target(name: "FaultKeyboards", dependencies: ["CKeyboardABI"], path: "Plugins/Faults/Keyboards"),
        .target(name: "FaultNoEntry", dependencies: ["CKeyboardABI"], path: "Plugins/Faults/NoEntry"),
        .target(name: "SwiftFaultKeyboards", dependencies: ["KeyboardSDK"], path: "Plugins/Faults/Swift"),
        .target(name: "FaultWrongABI", dependencies: ["CKeyboardABI"], path: "Plugins/Faults/WrongABI"),
        .target(name: "HostileKeyboard", dependencies: ["CKeyboardABI"], path: "Plugins/Hostile"),

        // Tests: unit tests by module (KBSystem's are in KBHostTests), end-to-end tests through real
        // processes (the worker, its runtime and the CLI are tested there), and the module map.
        .testTarget(name: "KBTextTests", dependencies: ["KBText"]),
        // Fixtures/frames: the hostile wire frames scripts/make-wire-corpus.py writes, read at test time.
        .testTarget(name: "KBWireTests", dependencies: ["KBWire", "KBText"], exclude: ["Fixtures"]),
        // The core's rules (cycling, settings, budgets, tap steps), with no files, clock or processes.
        .testTarget(name: "KBCoreTests", dependencies: ["KBCore", "KBText"]),
        .testTarget(name: "KeyboardSDKTests", dependencies: ["KeyboardSDK", "KeyboardTesting", "CKeyboardABI", "KBExtensionRuntime", "KBWire", "KBText"]),
        // The contract the ABI header and the wire share: the two modules cannot see each other.
        .testTarget(name: "KBExtensionRuntimeTests", dependencies: ["KBExtensionRuntime", "KBWire", "CKeyboardABI"]),
        // One test target per Swift keyboard, on its code target: every export target defines the
        // same entry symbol (kbhost_keyboard_plugin_v1), so no test links one.
        .testTarget(name: "CalculatorKeyboardTests", dependencies: ["Calculator", "KeyboardTesting"]),
        .testTarget(name: "ScienceKeyboardTests", dependencies: ["Science", "KeyboardTesting"]),
        // The UIKit compatibility layer, and the Science port on it in process and in its real
        // process (KBHost finds the built library).
        .testTarget(name: "ScienceUIKitTests", dependencies: ["ScienceUIKit", "KeyboardUIKitCompat", "KeyboardTesting", "KBHost"]),
        .testTarget(name: "KanaKeyboardTests", dependencies: ["Kana", "KeyboardTesting"]),
        .testTarget(name: "EnglishKeyboardTests", dependencies: ["English", "KeyboardTesting"]),
        // The guide's samples (docs/writing-a-keyboard.md), compiled and run.
        .testTarget(name: "GuideTests", dependencies: ["KeyboardSDK", "KeyboardTesting", "KeyboardUIKitCompat"]),
        // Fixtures/manifests: the hostile manifests scripts/make-manifest-corpus.py writes, read at test time.
        .testTarget(name: "KBHostTests", dependencies: ["KBHost", "KBText", "KBWire", "KBSystem"], exclude: ["Fixtures"]),
        // Golden/: every command's output, one transcript a case (GoldenTests), read at test time.
        .testTarget(name: "EndToEndTests", dependencies: ["KBHost", "KBText", "KBSystem"], exclude: ["Golden", "ABIFixtures"]),
        // ARCHITECTURE.md's module map against this file, and the arrows it forbids. Reads text only.
        .testTarget(name: "ArchitectureTests"),
        // The SDK's API reference: every public symbol of its modules documented (symbol graphs
        // of the modules this build made; scripts/make-docs builds the DocC archive).
        .testTarget(name: "DocumentationTests", dependencies: ["KeyboardSDK", "KeyboardTesting", "KeyboardUIKitCompat"]),
    ]
)

// Strictness for every Swift target, in one place (swift-log's habit).
let cTargets: Set<String> = [
    "CKeyboardABI", "CKBShims", "CKBSandbox", "CFFI", "CIBus", "CKBIBus", "kbhost-floor", "kbhost-floor-ibus",
    "NumberPadKeyboard", "FaultKeyboards", "FaultNoEntry", "FaultWrongABI", "HostileKeyboard", "CAnthy", "CHunspell",
]
// Our own modules' imports are internal unless written `public import`, so a public API that
// shows another module's type — a wire type above all — is a compile error, not a leak. The
// keyboards and the tests are authors' code, written as an author writes it: not them.
let internalImportModules: Set<String> = [
    "KBText", "KBWire", "KBCore", "KBSystem", "KeyboardSDK", "KeyboardUIKitCompat", "KeyboardTesting",
    "KBExtensionRuntime", "KBHost", "KBWorker", "kbhost", "kbhost-bench",
]
for target in package.targets where !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + (internalImportModules.contains(target.name) ? [.enableUpcomingFeature("InternalImportsByDefault")] : [])
}

// The extension process stays lean: what it links loads into every keyboard's
// process and counts against its budget. Its modules, the SDK and the sample
// keyboards import neither Swift concurrency nor string processing (regex), so
// those runtimes are not loaded (a keyboard that uses them pays for them).
let workerModules: Set<String> = ["KBText", "KBWire", "KBSystem", "KBExtensionRuntime", "KBWorker",
                                  "KeyboardSDK", "KeyboardUIKitCompat", "Calculator", "CalculatorKeyboard", "Science", "ScienceKeyboard",
                                  "ScienceUIKit", "ScienceUIKitKeyboard",
                                  "Kana", "KanaKeyboard", "English", "EnglishKeyboard"]
for target in package.targets where workerModules.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-implicit-concurrency-module-import",
                      "-Xfrontend", "-disable-implicit-string-processing-module-import"]),
    ]
}
