import ArgumentParser
import CKBSandbox
import Foundation
import KBHost
import KBSystem
import KBWire

/// `kbhost protection`: the sandbox's mechanisms, and a keyboard's permission to run without one.
struct Protection: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the sandbox's protections on this kernel; allow a keyboard to run without one the kernel lacks.",
        discussion: """
            A keyboard does not start where the kernel lacks a protection, unless you allow it here:
              kbhost protection                                   what this kernel has
              kbhost protection ID                                what ID may run without
              kbhost protection ID allow landlock-scope           run ID without it (only where missing)
              kbhost protection ID require [MECHANISM…]           take that back (all when none named)
            Mechanisms: \(SandboxSpec.Mechanism.allCases.map(\.rawValue).joined(separator: ", ")).
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case allow, require }

    @Argument(help: KeyboardName.one, completion: KeyboardName.completion) var keyboard: String?
    @Argument(help: "allow or require.") var action: Action?
    @Argument(help: "Mechanisms.", completion: .list(SandboxSpec.Mechanism.allCases.map(\.rawValue))) var mechanisms: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        for m in mechanisms where SandboxSpec.Mechanism(rawValue: m) == nil {
            throw ValidationError("unknown protection '\(m)'; one of: \(SandboxSpec.Mechanism.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if action == .allow && mechanisms.isEmpty { throw ValidationError("allow names the protections to run without") }
        if action == nil && !mechanisms.isEmpty { throw ValidationError("say allow or require before the protections") }
    }

    struct KernelReport: Encodable {
        var landlockABI: Int
        var available: [String: Bool]
    }

    /// `protection ID --json`: what one keyboard may run without.
    struct KeyboardReport: Encodable {
        var identifier: String
        var allowedMissing: [String]
    }

    static func kernel() -> KernelReport {
        let have = kbh_sandbox_available()
        var available: [String: Bool] = [:]
        for m in SandboxSpec.Mechanism.allCases {
            // The relay is the host's to start, not the kernel's to give (slirp4netns and /dev/net/tun).
            available[m.rawValue] = m == .userNetwork ? UserNetwork.available : have & kbh_mechanism_named(m.rawValue) != 0
        }
        return KernelReport(landlockABI: Int(kbh_landlock_abi()), available: available)
    }

    func run() throws {
        guard let keyboard else {
            let k = Protection.kernel()
            if json { try printJSON(k); return }
            Console.out("Landlock ABI: \(k.landlockABI)")
            for m in SandboxSpec.Mechanism.allCases {
                Console.out("\(m.rawValue): \(k.available[m.rawValue]! ? "available" : "MISSING")")
            }
            return
        }
        let context = try Context.make()
        let identifier = try report { try context.entry(keyboard).identifier }
        switch action {
        case nil:
            let allowed = try context.settings().allowedMissingProtections[identifier] ?? []
            if json { try printJSON(KeyboardReport(identifier: identifier, allowedMissing: allowed)) } else {
                Console.out(allowed.isEmpty ? "\(identifier) requires every protection" : "\(identifier) may run without: \(allowed.joined(separator: ", "))")
            }
        case .allow?:
            try context.update { settings in
                let now = Set(settings.allowedMissingProtections[identifier] ?? []).union(mechanisms)
                settings.allowedMissingProtections[identifier] = now.sorted()
            }
        case .require?:
            try context.update { settings in
                let remaining = mechanisms.isEmpty ? [] : (settings.allowedMissingProtections[identifier] ?? []).filter { !mechanisms.contains($0) }
                settings.allowedMissingProtections[identifier] = remaining.isEmpty ? nil : remaining
            }
        }
    }
}
