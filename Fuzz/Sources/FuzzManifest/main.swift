import CFuzzDriver
import Glibc
import KBHost

/// One libFuzzer input: a manifest's bytes. Decoding must return or throw a ManifestError
/// (typed throws); a crash, a hang (libFuzzer's -timeout) or an allocation beyond -rss_limit_mb
/// is a finding. An accepted manifest is decoded again, to check the reader is deterministic,
/// and an error must stay short whatever the input.
func fuzzManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : [UInt8](UnsafeBufferPointer(start: start, count: count))
    do {
        let manifest = try KeyboardManifest.decode(bytes, path: "/fuzz/Info.plist")
        precondition((try? KeyboardManifest.decode(bytes, path: "/fuzz/Info.plist")) == manifest, "decoded twice, differently")
    } catch {
        precondition(error.description.count < 1_000, "an error of \(error.description.count) characters")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzzManifest($0, $1) })
