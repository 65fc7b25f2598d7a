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
              kbhost sdk --path          the SDK package, for .package(path: …) in a Swift keyboard's Package.swift
                                         (its identity is "sdk": .product(name: "KeyboardSDK", package: "sdk"))
              kbhost sdk --cflags        -I… for kbhost_keyboard.h, for a C keyboard:  cc $(kbhost sdk --cflags) -fPIC -shared …
              kbhost sdk --pkg-config    a kbhost-keyboard.pc; save it in a folder on PKG_CONFIG_PATH
              kbhost sdk --products      the build products (kbhost-worker), for KBHOST_PRODUCTS
              kbhost sdk --docs          the API reference (a DocC archive that scripts/make-docs writes), to
                                         read with `docc preview` or any web server:
                                         python3 -m http.server -d "$(kbhost sdk --docs)" 8000
            """)

    @Flag(help: "Print the SDK package's folder (SDK/ in the kbhost checkout).") var path = false
    @Flag(help: "Print the C compiler flags for kbhost_keyboard.h.") var cflags = false
    @Flag(name: .customLong("pkg-config"), help: "Print a pkg-config file (kbhost-keyboard.pc).") var pkgConfig = false
    @Flag(help: "Print the build products folder.") var products = false
    @Flag(help: "Print where the API reference (DocC) is; say how to make it when it is not there.") var docs = false

    /// The SDK package: KeyboardSDK, KeyboardTesting and the ABI header, and what they need.
    static var root: String { Installation.sdkRoot() }
    /// The kbhost checkout it is part of (its docs, its build).
    static var repository: String { Installation.packageRoot() }
    static var includeDirectory: String { root + "/Sources/CKeyboardABI/include" }
    /// The API reference scripts/make-docs writes (KBHOST_DOCS, where it wrote elsewhere).
    static var docsArchive: String {
        ProcessInfo.processInfo.environment["KBHOST_DOCS"] ?? repository + "/.build/docs/kbhost-sdk.doccarchive"
    }

    func validate() throws {
        guard [path, cflags, pkgConfig, products, docs].filter({ $0 }).count == 1 else {
            throw ValidationError("say one of --path, --cflags, --pkg-config, --products or --docs")
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
        if docs {
            // An archive docc finished: its pages' data for each module are there.
            guard FileManager.default.fileExists(atPath: SDK.docsArchive + "/data/documentation/keyboardsdk.json") else {
                throw exitWithError("""
                    the API reference is not made yet (\(SDK.docsArchive)): run \(SDK.repository)/scripts/make-docs \
                    (about 15 s after swift build; it needs the toolchain's docc)
                    """, status: Kbhost.Exit.checkFailed)
            }
            Console.out(SDK.docsArchive)
        }
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
