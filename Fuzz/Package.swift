// swift-tools-version: 6.0
//
// Coverage-guided fuzzing of kbhost's manifest reader with libFuzzer (issue 14). A package of
// its own, so that kbhost's own build never links libFuzzer; scripts/fuzz-manifests builds it
// with -sanitize=fuzzer,address and runs it for a fixed number of inputs.
import PackageDescription

let package = Package(
    name: "kbhost-fuzz",
    dependencies: [.package(name: "kbhost", path: "..")],
    targets: [
        // The prototype of libFuzzer's LLVMFuzzerRunDriver.
        .target(name: "CFuzzDriver", path: "Sources/CFuzzDriver"),
        // KeyboardManifest.decode over every input: each is accepted or a short ManifestError.
        .executableTarget(name: "FuzzManifest", dependencies: ["CFuzzDriver", .product(name: "KBHost", package: "kbhost")],
                          path: "Sources/FuzzManifest", swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
