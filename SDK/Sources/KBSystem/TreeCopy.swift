import CKBShims
import Glibc
import Synchronization

/// Copies a keyboard bundle's tree: folders, regular files and symbolic links (as links), and
/// nothing else. Beneath the paths it is given, everything is opened relative to its folder's
/// descriptor without following a link (O_NOFOLLOW, and O_DIRECTORY for folders): a folder swapped
/// for a link to somewhere else between its check and its copy is refused, never followed (the
/// copy went by path, so a keyboard that could write a bundle being installed could have had a
/// folder of the user's copied into it, then read it there; a review). Each file is opened without
/// waiting (a FIFO put in a file's place after it was checked left `kbhost install` blocked in the
/// FIFO's open for good: twenty-second red team, F4), then checked for what it is through its descriptor.
public enum TreeCopy {
    public struct NotAFile: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): a FIFO or another special file, not a file, a folder or a symbolic link" }
    }

    /// A file, folder or link that became another kind of thing between its check and its copy.
    public struct Changed: Error, CustomStringConvertible {
        public let path: String
        public init(path: String) { self.path = path }
        public var description: String { "\(path): changed while it was copied (replaced, or a link put in its place or taken out of it)" }
    }

    /// More than `TreeCopy.limit` bytes in all.
    public struct TooLarge: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "\(path): the bundle holds more than \(TreeCopy.limit >> 20) MiB, more than a keyboard bundle may (a keyboard's library is a few MiB)"
        }
    }

    /// The most bytes one copy writes: a bundle holding a sparse file of 100 GiB (100 KB on disk) had
    /// `install` fill the disk, or the memory of a tmpfs home (twenty-fourth red team).
    public static let limit = 512 << 20

    /// More than `TreeCopy.entryLimit` files, folders and links in all.
    public struct TooManyEntries: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "\(path): the bundle holds more than \(TreeCopy.entryLimit) files, folders and links, more than a keyboard bundle may"
        }
    }

    /// The most files, folders and links one copy makes: 60,000 hard links to one byte (1.4 MB on disk)
    /// became 60,000 files, 234 MiB of a tmpfs home in two seconds (twenty-fifth red team).
    public static let entryLimit = 10_000

    /// A call that failed on `path`.
    public struct Failure: Error {
        public let path: String, errno: Int32
    }

    private static let afterCheck = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// For tests: `hook` is called with each source path after its kind was checked and before it is opened.
    package static func afterCheck(_ hook: (@Sendable (String) -> Void)?) { afterCheck.withLock { $0 = hook } }

    /// Copies the folder at `real` — a path with no link in it, as realpath gives — to `destination`,
    /// which must not exist. It is opened with no link followed anywhere on its path: a folder on the way
    /// swapped for a link since `real` was resolved is refused (a bundle's owner swapped a folder above it
    /// for a link to the installing user's home as install walked it, and the home was copied: twenty-fifth
    /// red team, C). The copy is made in a folder only the user may enter (what it copies is readable by
    /// no one else until it is complete), which then takes the source folder's mode.
    public static func copyFolder(fromReal real: String, to destination: String) throws {
        let root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw Failure(path: "/", errno: errno) }
        defer { Sys.close(root) }
        afterCheck.withLock { $0 }?(real)
        var input = kbs_open_beneath(root, String(real.drop { $0 == "/" }), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if input < 0 && errno == ENOSYS { input = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }  // (no openat2: the last name at least)
        guard input >= 0 else { throw errno == EXDEV ? Changed(path: real) : changedOr(errno, path: real) }
        defer { Sys.close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw Failure(path: real, errno: errno) }
        guard mkdir(destination, 0o700) == 0 else { throw Failure(path: destination, errno: errno) }
        let output = open(destination, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard output >= 0 else { throw Failure(path: destination, errno: errno) }
        defer { Sys.close(output) }
        var budget = Budget()
        for entry in try names(in: input, path: real, atMost: budget.entries) {
            try copy(at: input, entry, into: output, entry, shownAs: (real + "/" + entry, destination + "/" + entry), budget: &budget)
        }
        guard fchmod(output, (st.st_mode & 0o755) | 0o700) == 0 else { throw Failure(path: destination, errno: errno) }
    }

    /// What a copy may still write: bytes and entries.
    struct Budget {
        var bytes = TreeCopy.limit
        var entries = TreeCopy.entryLimit
    }

    /// Copies `source` (a folder, a file or a link, its own path followed) to `destination`, which must not exist.
    public static func copy(from source: String, to destination: String) throws {
        var budget = Budget()
        try copy(at: AT_FDCWD, source, into: AT_FDCWD, destination, shownAs: (source, destination), budget: &budget)
    }

    /// `shownAs`: the source's and the destination's paths, for messages only.
    private static func copy(at folder: Int32, _ name: String, into outFolder: Int32, _ outName: String,
                             shownAs paths: (String, String), budget: inout Budget) throws {
        let (path, outPath) = paths
        budget.entries -= 1
        guard budget.entries >= 0 else { throw TooManyEntries(path: path) }
        var st = stat()
        guard fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw Failure(path: path, errno: errno) }
        afterCheck.withLock { $0 }?(path)
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            let input = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard input >= 0 else { throw changedOr(errno, path: path) }
            defer { Sys.close(input) }
            // Its own mode, no more (a folder only its owner may enter stays so), and always the user's to enter.
            guard mkdirat(outFolder, outName, (st.st_mode & 0o755) | 0o700) == 0 else { throw Failure(path: outPath, errno: errno) }
            let output = openat(outFolder, outName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard output >= 0 else { throw Failure(path: outPath, errno: errno) }
            defer { Sys.close(output) }
            for entry in try names(in: input, path: path, atMost: budget.entries) {
                try copy(at: input, entry, into: output, entry, shownAs: (path + "/" + entry, outPath + "/" + entry), budget: &budget)
            }
        case S_IFLNK:
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlinkat(folder, name, &target, target.count - 1)
            guard n >= 0 else { throw errno == EINVAL ? Changed(path: path) : Failure(path: path, errno: errno) }
            target[n] = 0
            guard symlinkat(target, outFolder, outName) == 0 else { throw Failure(path: outPath, errno: errno) }
        default:
            try copyFile(at: folder, name, into: outFolder, outName, shownAs: paths, budget: &budget)
        }
    }

    /// ELOOP or ENOTDIR from an open that follows no link: what was checked is not what is there now.
    private static func changedOr(_ code: Int32, path: String) -> any Error {
        code == ELOOP || code == ENOTDIR ? Changed(path: path) : Failure(path: path, errno: code)
    }

    private static func names(in folder: Int32, path: String, atMost limit: Int = TreeCopy.entryLimit) throws -> [String] {
        let listed = dup(folder)
        guard listed >= 0 else { throw Failure(path: path, errno: errno) }
        guard let dir = fdopendir(listed) else {
            let code = errno
            Sys.close(listed)
            throw Failure(path: path, errno: code)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = Sys.withEntryName(entry) { String(decoding: $0, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
            guard names.count <= limit else { throw TooManyEntries(path: path) }  // (not all read first: a million names is memory)
        }
        return names
    }

    /// Copies the regular file at `real` — a path with no link in it, as realpath gives — owned by
    /// `owner`, to `destination` (which must not exist). A link found on the way now (a folder
    /// swapped for one since `real` was resolved) is refused, never followed: a package's `.build`
    /// is its owner's to change while `install` copies from it (twenty-fourth red team, G).
    public static func copyRealFile(_ real: String, owner: UInt32, to destination: String) throws {
        let root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw Failure(path: "/", errno: errno) }
        defer { Sys.close(root) }
        var input = kbs_open_beneath(root, String(real.drop { $0 == "/" }), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        if input < 0 && errno == ENOSYS { input = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }  // (no openat2: the last name at least)
        guard input >= 0 else {
            throw errno == ENXIO ? NotAFile(path: real) : errno == EXDEV ? Changed(path: real) : changedOr(errno, path: real)
        }
        defer { Sys.close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw Failure(path: real, errno: errno) }
        guard st.st_uid == owner else { throw Changed(path: real) }
        var budget = Budget()
        try pour(input, st, into: AT_FDCWD, destination, shownAs: (real, destination), budget: &budget)
    }

    private static func copyFile(at folder: Int32, _ name: String, into outFolder: Int32, _ outName: String,
                                 shownAs paths: (String, String), budget: inout Budget) throws {
        let path = paths.0
        let input = openat(folder, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else { throw errno == ENXIO ? NotAFile(path: path) : changedOr(errno, path: path) }
        defer { Sys.close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw Failure(path: path, errno: errno) }
        try pour(input, st, into: outFolder, outName, shownAs: paths, budget: &budget)
    }

    /// Writes what the open file `input` holds to a new file `outName` in `outFolder`.
    private static func pour(_ input: Int32, _ st: stat, into outFolder: Int32, _ outName: String,
                             shownAs paths: (String, String), budget: inout Budget) throws {
        let (path, outPath) = paths
        guard st.st_mode & S_IFMT == S_IFREG else { throw st.st_mode & S_IFMT == S_IFDIR ? Changed(path: path) : NotAFile(path: path) }
        guard Int(st.st_size) <= budget.bytes else { throw TooLarge(path: path) }
        let output = openat(outFolder, outName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0o755)
        guard output >= 0 else { throw Failure(path: outPath, errno: errno) }
        defer { Sys.close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try buffer.withUnsafeMutableBytes { try Sys.read(input, into: $0) } } catch { throw Failure(path: path, errno: (error as? SystemError)?.errno ?? EIO) }
            if n == 0 { break }
            budget.bytes -= n
            guard budget.bytes >= 0 else { throw TooLarge(path: path) }  // (a file that grew while it was copied)
            do { try buffer.withUnsafeBytes { try Sys.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<n])) } } catch {
                throw Failure(path: outPath, errno: (error as? SystemError)?.errno ?? EIO)
            }
        }
    }
}
