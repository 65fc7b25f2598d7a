// swift-tools-version: 6.0
//
// kbhost's SDK: what a keyboard's own package depends on, and nothing else — the ABI header,
// KeyboardSDK, KeyboardTesting, and what the testing kit runs a keyboard with (KBHost, KBCore,
// KBExtensionRuntime, KBWire, KBText, KBSystem, CFFI, CKBShims). See ARCHITECTURE.md, "Two manifests".
//
// A keyboard's package (`kbhost new`) writes `.package(path: "…/SDK")` and names it
// `package: "sdk"`: SwiftPM gives a package depended on by path the identity of its folder's
// name, lowercased, and this folder is always called SDK, whatever the checkout is called.
// Nothing here is a sample keyboard, an executable or a remote package, so a keyboard may be
// called Science or Calculator: the only names it cannot take are these modules' own.
//
// kbhost's package (../Package.swift) builds these folders as targets of its own, declared as
// here; ArchitectureTests fails when the two declarations differ.
//
// The API reference (the .docc catalogs beside the sources) is made by ../scripts/make-docs with
// the toolchain's own symbolgraph-extract and docc, not by swift-docc-plugin: a plugin declared
// here would be resolved into every keyboard's package graph, as a remote package.
import PackageDescription

let package = Package(
    name: "SDK",
    products: [
        // For keyboard authors: the SDK, and the testing kit for their tests.
        .library(name: "KeyboardSDK", targets: ["KeyboardSDK"]),
        .library(name: "KeyboardTesting", targets: ["KeyboardTesting"]),
        // UIKit's spellings over KeyboardSDK, for keyboard code shared with an iOS keyboard.
        .library(name: "KeyboardUIKitCompat", targets: ["KeyboardUIKitCompat"]),
        // The input manager, for a program that embeds it.
        .library(name: "KBHost", targets: ["KBHost"]),
    ],
    targets: [
        // The plugin ABI: one versioned C header, shared by the worker, the SDK and C plugins.
        .target(name: "CKeyboardABI", path: "Sources/CKeyboardABI"),
        // C wrappers (kbs_, in shims.c) for system calls Swift cannot call directly: variadic
        // ones (prctl, syscall, fcntl) and ones Glibc's module does not import (pidfd_*).
        .target(name: "CKBShims", path: "Sources/CKBShims"),
        // libffi, with accessors for its ffi_type_* globals.
        .systemLibrary(name: "CFFI", path: "Sources/CFFI", pkgConfig: "libffi",
                       providers: [.apt(["libffi-dev"])]),

        // Pure, Foundation-free: the text model shared by host, worker mirror and testing kit.
        .target(name: "KBText", path: "Sources/KBText"),
        // Pure, Foundation-free: framing, messages and their binary codec.
        .target(name: "KBWire", dependencies: ["KBText"], path: "Sources/KBWire"),
        // Pure, Foundation-free: the input manager's values and rules — manifests, settings, cycling,
        // tap steps, device profiles, layouts. No files, no clock, no processes: the caller passes them in.
        .target(name: "KBCore", dependencies: ["KBText", "KBWire"], path: "Sources/KBCore"),
        // The system layer: spawn, pidfd, rlimits, poll, sockets, atomic files, /proc, and the raw
        // calls (kill, waitpid, read/write, stat, chmod, dlopen, getrlimit, setenv…) behind Sys, which
        // ArchitectureTests holds to; the sandbox's are in CKBSandbox (C).
        .target(name: "KBSystem", dependencies: ["CKBShims"], path: "Sources/KBSystem"),

        // The SDK keyboard authors write against (no Foundation).
        .target(name: "KeyboardSDK", dependencies: ["CKeyboardABI"], path: "Sources/KeyboardSDK"),
        // UIKit's spellings (UIInputViewController, UITextDocumentProxy, NSRange, CGSize, the
        // trait types) over KeyboardSDK, so that one module of keyboard code compiles for iOS and
        // for kbhost. No Foundation: it loads into the keyboard's process.
        .target(name: "KeyboardUIKitCompat", dependencies: ["KeyboardSDK"], path: "Sources/KeyboardUIKitCompat"),
        // For an author's tests: the in-process driver, and KeyboardProcess (the real worker,
        // under a budget, through KBHost). The one module that sees both the SDK and the host.
        .target(name: "KeyboardTesting", dependencies: ["KeyboardSDK", "KBExtensionRuntime", "KBWire", "KBText", "KBHost", "KBSystem"],
                path: "Sources/KeyboardTesting"),

        // What the extension process does with a plugin: dlopen, class lookup, selector
        // checks, libffi dispatch, the services table. No Foundation.
        .target(name: "KBExtensionRuntime", dependencies: ["KBWire", "KBText", "KBSystem", "CKeyboardABI", "CFFI"],
                path: "Sources/KBExtensionRuntime"),

        // The input manager's library: documents, manifests, registry, settings, extension
        // processes, sessions, the input manager. Never the SDK or the ABI: it speaks KBWire.
        .target(name: "KBHost", dependencies: ["KBCore", "KBWire", "KBText", "KBSystem"], path: "Sources/KBHost"),
    ]
)

// Strictness for every Swift target, in one place (swift-log's habit).
let cTargets: Set<String> = ["CKeyboardABI", "CKBShims", "CFFI"]
for target in package.targets where !cTargets.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        // Imports are internal unless written `public import`, so a public API that shows another
        // module's type — a wire type above all — is a compile error, not a leak.
        // ../Package.swift does the same for these modules and its executables.
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}

// The extension process stays lean: what it links loads into every keyboard's process and
// counts against its budget. These modules import neither Swift concurrency nor string
// processing (regex), so those runtimes are not loaded (a keyboard that uses them pays for
// them). ../Package.swift does the same for them, the worker and the sample keyboards.
let workerModules: Set<String> = ["KBText", "KBWire", "KBSystem", "KBExtensionRuntime", "KeyboardSDK", "KeyboardUIKitCompat"]
for target in package.targets where workerModules.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-Xfrontend", "-disable-implicit-concurrency-module-import",
                      "-Xfrontend", "-disable-implicit-string-processing-module-import"]),
    ]
}
