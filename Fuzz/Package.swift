// swift-tools-version: 6.0
//
// Coverage-guided fuzzing with libFuzzer (issue 14): kbhost's manifest reader, and the wire's
// frame reader and decoders in both directions. A package of its own, so that kbhost's own
// build never links libFuzzer; scripts/fuzz-manifests and scripts/fuzz-wire build it with
// -sanitize=fuzzer,address and run it for a fixed number of inputs. It depends on SDK/, the
// package that holds KBHost, KBWire and KBText.
import PackageDescription

// The wire's types are `package` in SDK/ (they never leave it); the fuzzers read them as a
// module of that package would, so they compile under its package name (`sdk`, its identity).
// `packageAccess: false` keeps SwiftPM from passing this package's own name after it.
let v6: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-package-name", "sdk"])]

let package = Package(
    name: "kbhost-fuzz",
    dependencies: [.package(name: "SDK", path: "../SDK")],
    targets: [
        // The prototype of libFuzzer's LLVMFuzzerRunDriver.
        .target(name: "CFuzzDriver", path: "Sources/CFuzzDriver"),
        // KeyboardManifest.decode over every input: each is accepted or a short ManifestError.
        .executableTarget(name: "FuzzManifest", dependencies: ["CFuzzDriver", .product(name: "KBHost", package: "SDK")],
                          path: "Sources/FuzzManifest", packageAccess: false, swiftSettings: v6),
        // What the two wire fuzzers share: a byte stream cut into reads, the checks on what decodes.
        .target(name: "WireFuzzing", dependencies: [.product(name: "KBHost", package: "SDK")],
                path: "Sources/WireFuzzing", packageAccess: false, swiftSettings: v6),
        // Worker → host frames, as the host reads them (the hostile direction).
        .executableTarget(name: "FuzzWorkerFrames", dependencies: ["CFuzzDriver", "WireFuzzing"],
                          path: "Sources/FuzzWorkerFrames", packageAccess: false, swiftSettings: v6),
        // The frame reader at sizes up to its bound and past it, which byte inputs of 4 KiB cannot reach.
        .executableTarget(name: "FuzzFrameSizes", dependencies: ["CFuzzDriver", .product(name: "KBHost", package: "SDK")],
                          path: "Sources/FuzzFrameSizes", packageAccess: false, swiftSettings: v6),
        // Host → worker frames, as the worker reads them.
        .executableTarget(name: "FuzzHostFrames", dependencies: ["CFuzzDriver", "WireFuzzing"],
                          path: "Sources/FuzzHostFrames", packageAccess: false, swiftSettings: v6),
    ]
)
