import ArgumentParser
import Foundation
import KBHost
import KBSystem

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check keyboard manifests; with the plugin built, also load it and its principal class.",
        discussion: "Each PATH is an Info.plist or a bundle folder holding one. Exits non-zero on any error.")

    @Argument(help: "Manifests or bundles.") var paths: [String]

    func run() throws {
        let installation = Installation.current()
        var failures = 0
        for path in paths {
            let plist: String, manifest: KeyboardManifest, found: String?
            do {
                plist = try KeyboardManifest.manifestPath(for: path)
                if plist != path, let problem = Installation.manifestLinkProblem(plist) { throw problem }
                manifest = try KeyboardManifest.load(contentsOf: plist)
                found = try installation.library(for: manifest, allowProducts: true) ?? Installation.packageLibrary(for: manifest)
            } catch {
                Console.out("✗ \(error)")
                failures += 1
                continue
            }
            let shown = TerminalText.line(plist)
            for group in manifest.applicationGroups {
                if let problem = KeyboardManifest.groupOwnershipProblem(group, bundleIdentifier: manifest.bundleIdentifier) {
                    Console.out("! \(shown): App Group \(TerminalText.quoted(group)) \(problem)")
                }
            }
            guard let library = found else {
                Console.out("✓ \(shown): manifest of \(manifest.bundleIdentifier) is valid")
                Console.out("  (plugin \(manifest.executable) is not built, so its class was not checked)")
                continue
            }
            do {
                let session = try KeyboardSession(keyboard: LoadableKeyboard(manifest: manifest, libraryPath: library),
                                                  configuration: installation.processConfiguration)
                session.close()
                Console.out("✓ \(shown): \(manifest.bundleIdentifier) loads; \(manifest.principalClass) passed viewDidLoad")
            } catch {
                Console.out("✗ \(shown): \(error)")
                failures += 1
            }
        }
        if failures > 0 { throw ExitCode(Kbhost.Exit.invalid) }
    }
}

struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a keyboard bundle (a folder with Info.plist and its library, or a package made by kbhost new and built) into your keyboards.",
        discussion: "Installed keyboards live in KBHOST_HOME/Keyboards. Enable one with `kbhost enable ID`.")

    @Argument(help: "The bundle folder.") var bundle: String

    func run() throws {
        let context = try Context.make()
        let (manifest, destination) = try Install.install(bundle, context: context)
        Console.out("installed \(TerminalText.line(manifest.displayName)) (\(manifest.bundleIdentifier)) in \(TerminalText.line(destination))")
    }

    /// The copied manifest (a file, or a link that stays inside the copy) must say what the checked one said.
    static func checkCopiedManifest(_ staging: String, against manifest: KeyboardManifest) throws {
        let plist = staging + "/Info.plist"
        guard Installation.manifestLinkProblem(plist) == nil, let copied = try? KeyboardManifest.load(contentsOf: plist),
              copied.bundleIdentifier == manifest.bundleIdentifier, copied.executable == manifest.executable,
              copied.principalClass == manifest.principalClass, copied.requestsOpenAccess == manifest.requestsOpenAccess else {
            throw TreeCopy.Changed(path: manifest.path)
        }
        let library = staging + "/" + manifest.executable
        guard (try? Sys.linkStatus(library)).map({ $0.st_mode & S_IFMT == S_IFREG || $0.st_mode & S_IFMT == S_IFLNK }) == true else {
            throw TreeCopy.Changed(path: manifest.path)
        }
    }

    /// Copies a bundle (or, from a built package, its Info.plist and library) into KBHOST_HOME/Keyboards,
    /// replacing an installed copy; its manifest and where it went. Errors exit with a message.
    static func install(_ bundle: String, context: Context) throws -> (KeyboardManifest, String) {
        var given = (bundle as NSString).standardizingPath
        if !given.hasPrefix("/") { given = ((FileManager.default.currentDirectoryPath + "/" + given) as NSString).standardizingPath }
        // Its real path, once: everything below is checked and copied there, opened with no link followed on the
        // way. A folder above the bundle swapped for a link as install walked it had the installing user's home
        // copied (twenty-fifth red team, C); the user's own links in what they typed are followed here.
        guard let source = Sys.realPath(given) else {
            throw exitWithError("\(TerminalText.line(given)): does not exist", status: Kbhost.Exit.invalid)
        }
        let manifest: KeyboardManifest, inBundle: String?
        do {
            let plist = try KeyboardManifest.manifestPath(for: source)
            guard plist != source else {
                throw ManifestError(file: source, keyPath: nil,
                                    problem: "is a file, not a folder; install takes a keyboard bundle (a folder holding its Info.plist and its library)")
            }
            if let problem = Installation.manifestLinkProblem(plist) { throw problem }
            manifest = try KeyboardManifest.load(contentsOf: plist)
            inBundle = try context.installation.library(for: manifest, allowProducts: false, runsFromHere: false)  // (copied: it becomes the user's)
        } catch {
            throw exitWithError("\(error)", status: Kbhost.Exit.invalid)
        }
        // A bundle holds its library; a Swift package made by `kbhost new` has it in .build.
        guard let library = inBundle ?? Installation.packageLibrary(for: manifest) else {
            throw exitWithError("\(source): the bundle has no \(manifest.executable) (CFBundleExecutable), nor has its .build/debug or .build/release; build the plugin first (swift build, or make)",
                                status: Kbhost.Exit.invalid)
        }
        let keyboards = context.store.directory + "/Keyboards"
        // A folder name: KeyboardManifest.load accepted only a reverse-DNS identifier (never "..").
        let destination = keyboards + "/" + manifest.bundleIdentifier
        if let existing = context.registry.entry(manifest.bundleIdentifier), existing.source != "installed" {
            throw exitWithError("\(manifest.bundleIdentifier) is already provided by \(TerminalText.line(existing.manifest.path))",
                                status: Kbhost.Exit.refused)
        }
        if inBundle != nil, let special = specialFile(in: source) {
            throw exitWithError("\(TerminalText.line(special.path)): \(special.kind), not a file, a folder or a symbolic link; a keyboard bundle holds only those",
                                status: Kbhost.Exit.invalid)
        }
        let fm = FileManager.default
        let staging = keyboards + "/.staging-\(UUID().uuidString)"
        do {
            try fm.createDirectory(atPath: keyboards, withIntermediateDirectories: true)
            if inBundle == nil {
                // Only what the keyboard needs: its manifest and its library, not the package's sources.
                // (In a folder only the user may enter until it is complete, as `TreeCopy.copyFolder` makes.)
                try fm.createDirectory(atPath: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                // A package's manifest and build (paths with no link, its owner's: `Installation.packageLibrary`),
                // copied without following a link put on their way since.
                let owner = try Sys.status(source).st_uid
                try TreeCopy.copyRealFile(source + "/Info.plist", owner: owner, to: staging + "/Info.plist")
                try TreeCopy.copyRealFile(library, owner: owner, to: staging + "/" + manifest.executable)
                try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: staging)
            } else {
                // (A file swapped for a FIFO since the check is refused, not waited on; the bundle's folder swapped
                // for a link is refused, not copied as a link: twenty-fourth red team, M.)
                try TreeCopy.copyFolder(fromReal: source, to: staging)
            }
            // What was copied is what was checked: the manifest is read again from the copy, which is kbhost's
            // own now. The bundle's owner swapped another manifest in after the check (another keyboard's
            // identifier, taking its container and grant: twenty-fourth red team, N).
            try Install.checkCopiedManifest(staging, against: manifest)
            // Where it came from, so that a later build there is reported as newer than this copy.
            try InstalledCopy.record(source: source, in: staging)
            if fm.fileExists(atPath: destination) {
                // Replace the installed copy: the old one is moved aside first and removed last.
                let old = keyboards + "/.old-\(UUID().uuidString)"
                try fm.moveItem(atPath: destination, toPath: old)
                do { try fm.moveItem(atPath: staging, toPath: destination) } catch {
                    try? fm.moveItem(atPath: old, toPath: destination)  // the installed copy stays installed
                    throw error
                }
                try? fm.removeItem(atPath: old)
            } else {
                try fm.moveItem(atPath: staging, toPath: destination)
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            throw exitWithError("installing \(source): \(fileProblem(error)); nothing was changed", status: Kbhost.Exit.refused)
        }
        return (manifest, destination)
    }

    /// The first entry of a bundle that is neither a file, a folder nor a symbolic link (a
    /// FIFO would hang the copy, which waits to read it; a device or a socket is no part of a
    /// keyboard), found without following links, with what it is.
    static func specialFile(in folder: String) -> (path: String, kind: String)? {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else { return nil }
        for name in names.sorted() {
            let path = folder + "/" + name
            switch (try? fm.attributesOfItem(atPath: path))?[.type] as? FileAttributeType {  // lstat
            case .typeDirectory?: if let found = specialFile(in: path) { return found }
            case .typeRegular?, .typeSymbolicLink?: continue
            case .typeCharacterSpecial?, .typeBlockSpecial?: return (path, "a device")
            case .typeSocket?: return (path, "a socket")
            default: return (path, "a FIFO or another special file")
            }
        }
        return nil
    }
}

struct Uninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove a keyboard `kbhost install` put in your keyboards: it is disabled, its grants go, its bundle is deleted.",
        discussion: """
            What goes: the bundle (KBHOST_HOME/Keyboards/ID); the keyboard's place in the enabled list (the next \
            one becomes current if it was); its open-access grant, its failure record and the protections it was \
            allowed to miss. What stays: its container (KBHOST_HOME/Containers/Keyboards/ID) and its App Groups' \
            data, which `kbhost install` of the same identifier finds again; delete them by hand to forget them. \
            Only keyboards in KBHOST_HOME/Keyboards: bundled ones and those from KBHOST_KEYBOARDS are refused (7). \
            Nothing is lost on failure: the bundle is first moved aside, and put back if the settings cannot be written.
            """)

    @Argument(help: KeyboardName.one, completion: KeyboardName.completion) var keyboard: String

    func run() throws {
        let context = try Context.make()
        let entry = try report { try context.entry(keyboard) }
        let id = entry.identifier
        let keyboards = context.store.directory + "/Keyboards"
        let manifest = entry.manifest.path
        let folder = (manifest as NSString).deletingLastPathComponent
        // What goes: the bundle folder install made (a lone manifest put there by hand goes alone).
        let target = folder == keyboards ? manifest : folder
        guard entry.source == "installed", (target as NSString).deletingLastPathComponent == keyboards else {
            let whence = entry.isSystem ? "built into kbhost"
                : entry.source == "bundled" ? "bundled with kbhost (\(TerminalText.line(manifest)))"
                : "from KBHOST_KEYBOARDS (\(TerminalText.line(manifest)))"
            throw exitWithError("\(id) is \(whence), not installed with `kbhost install`; only installed keyboards can be uninstalled",
                                status: Kbhost.Exit.refused)
        }
        let shown = TerminalText.line(target), name = context.name(id)
        // Moved aside in one rename (a dot name, which discovery skips): either the keyboard is
        // still there, whole, or it is gone; then the settings; the copy is deleted last.
        let fm = FileManager.default
        let aside = keyboards + "/.uninstalling-\(UUID().uuidString)"
        do { _ = try Sys.check("rename") { rename(target, aside) } } catch {
            throw exitWithError("cannot remove \(shown): \(Uninstall.reason(error)); nothing was changed", status: Kbhost.Exit.refused)
        }
        do {
            try context.update { settings in settings.forget(id, registry: context.registry) }
        } catch {
            do { _ = try Sys.check("rename") { rename(aside, target) } } catch {
                Console.err("kbhost: error: \(name) could not be put back from \(aside) to \(shown): move it back by hand")
            }
            throw error
        }
        do { try fm.removeItem(atPath: aside) } catch {
            Console.err("kbhost: warning: \(name) is uninstalled, but its copy \(aside) could not be deleted (\(Uninstall.reason(error))); delete it by hand")
        }
        Console.out("uninstalled \(name) (\(id)) from \(shown)")
    }

    /// Why a file operation failed: the system's words for a system call's errno.
    static func reason(_ error: any Error) -> String {
        if let error = error as? SystemError { return Sys.errorString(error.errno) }
        return fileProblem(error)
    }
}

/// A file operation's failure as "PATH: the system's reason" (Foundation's own sentence is "The
/// operation could not be completed. You don’t have permission." and names no file).
func fileProblem(_ error: any Error) -> String {
    if let failure = error as? TreeCopy.Failure { return "\(TerminalText.line(failure.path)): \(Sys.errorString(failure.errno))" }
    if let many = error as? TreeCopy.TooManyEntries { return "\(TerminalText.line(many.path))\(many.description.dropFirst(many.path.count)); nothing was installed" }
    if let large = error as? TreeCopy.TooLarge { return "\(TerminalText.line(large.path))\(large.description.dropFirst(large.path.count)); nothing was installed" }
    if let changed = error as? TreeCopy.Changed {
        return "\(TerminalText.line(changed.path)): changed while it was copied (replaced, or a link put in its place or taken out of it); nothing was installed"
    }
    if let special = error as? TreeCopy.NotAFile {
        return "\(TerminalText.line(special.path)): a FIFO or another special file, not a file, a folder or a symbolic link"
    }
    guard let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError ?? (cocoa.underlying as? NSError).flatMap({
        $0.domain == NSPOSIXErrorDomain ? POSIXError(POSIXErrorCode(rawValue: Int32($0.code)) ?? .EIO) : nil
    }) else { return error.localizedDescription }
    let reason = Sys.errorString(posix.code.rawValue)
    return cocoa.filePath.map { "\(TerminalText.line($0)): \(reason)" } ?? reason
}
