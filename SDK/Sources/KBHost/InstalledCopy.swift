public import Foundation
import KBSystem

/// An installed keyboard (`kbhost install`, KBHOST_HOME/Keyboards/ID) against the folder it was
/// installed from: after an edit and a `swift build` the installed copy is the old keyboard, and
/// kbhost runs it until `kbhost install .` copies the new one.
public enum InstalledCopy {
    /// The file in an installed bundle that names the folder it was installed from.
    public static let recordName = ".kbhost-installed-from"

    /// Notes in an installed bundle where it came from (`source`, an absolute folder). Whatever
    /// the copied bundle had under that name goes first, and the note is created anew without
    /// following a link: a bundle that brought a symbolic link called `.kbhost-installed-from`
    /// had `install` write through it (eighth red team, E: `../../settings.json` corrupted the
    /// settings, and any file the user may write could be overwritten).
    public static func record(source: String, in installedBundle: String) throws {
        try NoFollowFile.replace(installedBundle + "/" + recordName, with: Array((source + "\n").utf8))
    }

    /// The folder an installed bundle was installed from, if it says: a regular file of that
    /// name, never what a link there leads to.
    public static func source(of installedBundle: String) -> String? {
        let path = installedBundle + "/" + recordName
        guard NoFollowFile.isRegularFile(path), let bytes = try? SmallFile.read(path, limit: 4096) else { return nil }
        let folder = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return folder.hasPrefix("/") ? folder : nil
    }

    /// An installed copy that is not what its folder now builds.
    public struct Stale: Sendable, Equatable, CustomStringConvertible {
        public var identifier: String
        /// The folder it was installed from (a package made by `kbhost new`, or a bundle).
        public var source: String
        /// The library there: the bundle's own, or the package's newest build.
        public var built: String
        /// The library (or the manifest, when only that changed) is newer there than the installed copy.
        public var newer: Bool
        /// Only the manifest (Info.plist) differs.
        public var manifestOnly: Bool

        public var description: String {
            let what = manifestOnly ? "Info.plist" : "library"
            let how = newer ? "is older than the \(what) built in" : "differs from the \(what) in"
            return "the installed copy of \(identifier) \(how) \(source) (\(manifestOnly ? source + "/Info.plist" : built)), "
                + "and kbhost runs the installed copy; run `kbhost install .` in \(source) to use the new one "
                + "(or `kbhost dev` there, which builds, installs and types)"
        }
    }

    /// Whether an installed keyboard is stale: its library or manifest differs from what the folder it
    /// was installed from holds now (or, for a copy installed without that note, the folder
    /// `currentDirectory`, when that is the same keyboard's package or bundle). Nil when it is not
    /// installed, when the folder is gone or holds another keyboard, or when nothing is built there.
    public static func staleness(of entry: KeyboardEntry, installation: Installation,
                                 currentDirectory: String = FileManager.default.currentDirectoryPath) -> Stale? {
        guard entry.source == "installed", let installed = entry.libraryPath else { return nil }
        let bundle = entry.manifest.bundleDirectory
        var candidates: [String] = []
        if let recorded = source(of: bundle) { candidates.append(recorded) }
        candidates.append(currentDirectory)
        for folder in candidates {
            let folder = (folder as NSString).standardizingPath
            // Only a folder of the user's own is named: one another user has taken over since (a /tmp folder
            // removed and made again) would have the warning tell the user to install from it (twenty-fourth red team).
            guard folder != (bundle as NSString).standardizingPath, (try? Sys.status(folder))?.st_uid == getuid(),
                  let manifest = try? KeyboardManifest.load(contentsOf: folder + "/Info.plist"),
                  manifest.bundleIdentifier == entry.identifier else { continue }
            guard let built = (try? installation.authorLibrary(for: manifest)) ?? nil else { return nil }
            let libraryDiffers = !sameContents(built, installed)
            let manifestDiffers = !sameContents(folder + "/Info.plist", entry.manifest.path)
            guard libraryDiffers || manifestDiffers else { return nil }
            let newer = libraryDiffers ? modified(built) > modified(installed)
                                       : modified(folder + "/Info.plist") > modified(entry.manifest.path)
            return Stale(identifier: entry.identifier, source: folder, built: built, newer: newer, manifestOnly: !libraryDiffers)
        }
        return nil
    }

    static func modified(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }

    /// Byte for byte, each a regular file opened without waiting (`NoFollowFile.sameContents`).
    static func sameContents(_ a: String, _ b: String) -> Bool { NoFollowFile.sameContents(a, b) }
}
