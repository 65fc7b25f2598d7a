import CKBShims
public import Glibc

/// Why kbhost refused a path inside a container. A keyboard can write its own
/// container and, with open access, its App Groups' containers: whatever it
/// planted there — a symbolic link out, a FIFO, a `..` — must not make the host
/// create, read or write anything outside them on its behalf.
public enum PathRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case folder, file }

    /// A symbolic link where kbhost expects a folder or a file (never followed).
    case symbolicLink(path: String, expected: Kind)
    /// Something else that is not what kbhost expects there ("a FIFO", "a folder"…).
    case wrongType(path: String, expected: Kind, found: String)
    /// A name that is not one plain component beneath the folder (`..`, `.`, empty, absolute).
    case outside(path: String, name: String)

    public var errno: Int32 {
        switch self {
        case .symbolicLink: ELOOP
        case .wrongType(_, let expected, _): expected == .folder ? ENOTDIR : EINVAL
        case .outside: EXDEV
        }
    }

    public var description: String {
        switch self {
        case .symbolicLink(let path, let expected):
            "\(path): a symbolic link was found where kbhost expects a \(expected.rawValue); "
                + "kbhost never follows links inside a container, so it stopped there and touched nothing through it"
        case .wrongType(let path, let expected, let found):
            "\(path): \(found) was found where kbhost expects a \(expected.rawValue); kbhost stopped there"
        case .outside(let path, let name):
            "\(path): '\(name)' is not a plain name inside that folder; kbhost does not leave a container"
        }
    }
}

/// An open folder, and file operations relative to it that never follow a
/// symbolic link and never leave it: names are resolved by openat2(2) with
/// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or — where the kernel answers ENOSYS
/// — one component at a time with openat(O_NOFOLLOW | O_DIRECTORY). The folder
/// itself is opened by path (it is kbhost's own); everything beneath it may be
/// a keyboard's doing.
public final class Directory {
    public let descriptor: Int32
    /// For messages only: every operation goes through `descriptor`.
    public let path: String
    /// Resolve by walking even where openat2 exists (tests of the fallback).
    public let walkOnly: Bool

    private init(descriptor: Int32, path: String, walkOnly: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.walkOnly = walkOnly
    }

    deinit { Sys.close(descriptor) }

    /// Opens a folder kbhost owns (KBHOST_HOME/Containers; in the worker, the
    /// container the host handed it): links in this path are followed, nothing
    /// beneath it may leave it. nil if it does not exist.
    public static func open(trusted path: String, walkOnly: Bool = false) throws -> Directory? {
        let fd: Int32
        do {
            fd = try Sys.check("open \(path)") { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
        return Directory(descriptor: fd, path: path, walkOnly: walkOnly)
    }

    /// The folder at `relative` ("a/b/c") beneath this one; nil if some part is missing.
    public func folder(_ relative: String) throws -> Directory? {
        try resolve(relative, create: false)
    }

    /// The folder at `relative` beneath this one, creating missing parts (mode 0700).
    public func makeFolder(_ relative: String) throws -> Directory {
        try resolve(relative, create: true)!
    }

    /// A file's bytes; nil if there is none. It must be a regular file, not a link.
    public func read(_ name: String) throws -> [UInt8]? {
        guard let fd = try openFile(name, O_RDONLY, create: false) else { return nil }
        defer { Sys.close(fd) }
        return try FileBytes.readAll(fd, path: child(name))
    }

    /// A file's bytes if it holds at most `limit` of them, for a file someone else may have
    /// written (a group's defaults): nil if there is none, otherwise its bytes, or `.tooLarge`
    /// with its size, measured with fstat before a byte is read (a sparse file of gigabytes
    /// costs nothing) and checked again while reading (a file that grows meanwhile).
    public func read(_ name: String, limit: Int) throws -> BoundedRead? {
        guard let fd = try openFile(name, O_RDONLY, create: false) else { return nil }
        defer { Sys.close(fd) }
        var st = stat()
        _ = try Sys.check("fstat \(child(name))") { fstat(fd, &st) }
        guard st.st_size <= limit else { return .tooLarge(bytes: Int(st.st_size)) }
        let bytes = try FileBytes.readAll(fd, path: child(name), stoppingAfter: limit)
        return bytes.count <= limit ? .bytes(bytes) : .tooLarge(bytes: bytes.count)
    }

    /// What `read(_:limit:)` found.
    public enum BoundedRead: Hashable, Sendable {
        case bytes([UInt8])
        /// Larger than the limit: its size (at least limit + 1 when it grew while read).
        case tooLarge(bytes: Int)
    }

    /// Replaces a file atomically and durably: a new temporary file here,
    /// fsync, renameat over `name`, fsync of the folder. A link at `name` is
    /// replaced, never followed.
    /// `onlyKbhostWrites`: the folder is kbhost's own (the settings'), where no keyboard plants names:
    /// what a killed writer left goes at once, its pid no longer living; elsewhere, only once it is old.
    public func write(_ name: String, _ bytes: [UInt8], mode: Glibc.mode_t = 0o600, onlyKbhostWrites: Bool = false) throws {
        try checkName(name)
        removeAbandonedTemporaries(of: name, byPid: onlyKbhostWrites)
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = try Sys.check("create \(child(temporary))") {
            openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        do {
            defer { Sys.close(fd) }
            try Sys.writeAll(fd, bytes)
            _ = try Sys.check("fsync \(child(temporary))") { fsync(fd) }
            _ = try Sys.check("rename \(child(temporary)) → \(child(name))") {
                renameat(descriptor, temporary, descriptor, name)
            }
        } catch {
            unlinkat(descriptor, temporary, 0)
            throw error
        }
        _ = fsync(descriptor)
    }

    /// Removes the temporary files of writers of `name` that were killed before their rename
    /// (`.NAME.PID.RANDOM.tmp` whose PID no longer lives, or, unless `byPid`, last written over
    /// `abandonedAfter` seconds ago): the next writer tidies up what a kill -9 left. A writer's file
    /// is written and renamed within moments. Only in kbhost's own folders by asking whether PID lives:
    /// in a folder a keyboard may write (an App Group's, with open access), the names it planted for
    /// every PID and found removed told it which of the host's processes were alive (twenty-fifth red team).
    static let abandonedAfter = 600  // seconds

    private func removeAbandonedTemporaries(of name: String, byPid: Bool) {
        let listing = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0, let dir = fdopendir(listing) else {
            if listing >= 0 { Sys.close(listing) }
            return
        }
        defer { closedir(dir) }
        let prefix = "." + name + "."
        while let entry = readdir(dir) {
            let file = Sys.withEntryName(entry) { String(decoding: $0, as: UTF8.self) }
            guard file.hasPrefix(prefix), file.hasSuffix(".tmp") else { continue }
            let middle = file.dropFirst(prefix.count).dropLast(4).split(separator: ".")
            guard middle.count == 2, let pid = Int32(middle[0]), UInt32(middle[1]) != nil, pid > 0 else { continue }
            if byPid {
                if kill(pid, 0) != 0 && errno == ESRCH { unlinkat(descriptor, file, 0) }
                continue
            }
            var st = stat()
            guard fstatat(descriptor, file, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            if Int(now.tv_sec) - Int(st.st_mtim.tv_sec) > Self.abandonedAfter { unlinkat(descriptor, file, 0) }
        }
    }

    /// Runs `body` holding an exclusive flock on the file `name` (created if missing; never a link).
    /// With `seconds`, waits at most that long for it (see FileBytes.locked).
    public func withLock<T>(_ name: String, waitingAtMost seconds: Double? = nil, _ body: () throws -> T) throws -> T {
        let fd = try openFile(name, O_RDWR | O_CREAT, create: true)!
        defer { Sys.close(fd) }
        return try FileBytes.locked(fd, path: child(name), waitingAtMost: seconds, body)
    }

    // MARK: Resolution

    private func child(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    private func checkName(_ name: String) throws(PathRefusal) {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw .outside(path: path, name: name)
        }
    }

    private func resolve(_ relative: String, create: Bool) throws -> Directory? {
        guard !relative.hasPrefix("/") else { throw PathRefusal.outside(path: path, name: relative) }
        let names = relative.split(separator: "/").map(String.init)
        for name in names { try checkName(name) }
        if names.isEmpty {
            return Directory(descriptor: try Sys.duplicate(descriptor, atLeast: 0), path: path, walkOnly: walkOnly)
        }
        if !walkOnly {
            // One call for the usual case, where every folder is there; on any
            // failure the walk below says which part was missing or wrong.
            let joined = names.joined(separator: "/")
            let fd = kbs_open_beneath(descriptor, joined, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd >= 0 { return Directory(descriptor: fd, path: child(joined), walkOnly: walkOnly) }
        }
        var current = self
        for name in names {
            guard let next = try current.subfolder(name, create: create) else { return nil }
            current = next
        }
        return current
    }

    /// One component: openat with O_NOFOLLOW | O_DIRECTORY, after mkdirat when asked.
    private func subfolder(_ name: String, create: Bool) throws -> Directory? {
        let fd: Int32
        do {
            fd = try Sys.check("open \(child(name))") {
                openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
        } catch {
            switch error.errno {
            case ENOENT where create:
                do { _ = try Sys.check("mkdir \(child(name))") { mkdirat(descriptor, name, 0o700) } } catch {
                    if error.errno != EEXIST { throw error }
                }
                return try subfolder(name, create: false)
            case ENOENT: return nil
            case ELOOP, ENOTDIR: throw refusal(name, expected: .folder) ?? error
            default: throw error
            }
        }
        return Directory(descriptor: fd, path: child(name), walkOnly: walkOnly)
    }

    /// A file beneath this folder, opened without following a link and refused
    /// unless it is a regular file (a FIFO would block the host). nil if missing.
    private func openFile(_ name: String, _ flags: Int32, create: Bool) throws -> Int32? {
        try checkName(name)
        let fd: Int32
        do {
            fd = try Sys.check("open \(child(name))") {
                openat(descriptor, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
            }
        } catch {
            switch error.errno {
            case ENOENT where !create: return nil
            case ELOOP, ENXIO, EISDIR: throw refusal(name, expected: .file) ?? error
            default: throw error
            }
        }
        var st = stat()
        if fstat(fd, &st) != 0 || st.st_mode & S_IFMT != S_IFREG {
            Sys.close(fd)
            throw refusal(name, expected: .file) ?? PathRefusal.wrongType(path: child(name), expected: .file, found: "something else")
        }
        return fd
    }

    /// What is at `name` if it is not the kind expected (nil if it is, or is gone).
    private func refusal(_ name: String, expected: PathRefusal.Kind) -> PathRefusal? {
        var st = stat()
        guard fstatat(descriptor, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let found: String
        switch st.st_mode & S_IFMT {
        case S_IFLNK: return .symbolicLink(path: child(name), expected: expected)
        case S_IFDIR: found = "a folder"
        case S_IFREG: found = "a file"
        case S_IFIFO: found = "a FIFO"
        case S_IFSOCK: found = "a socket"
        default: found = "a device"
        }
        return found == "a \(expected.rawValue)" ? nil : .wrongType(path: child(name), expected: expected, found: found)
    }
}

extension Sys {
    /// A directory entry's name (its bytes up to the NUL, which follows them), read in place:
    /// `entry.pointee.d_name` copies the 256 bytes the type declares, past the record's end, and can
    /// fault at the end of readdir's buffer (Foundation's Process.run crashed so, PR #5472).
    public static func withEntryName<T>(_ entry: UnsafeMutablePointer<dirent>, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let name = kbs_dirent_name(entry)!
        return try body(UnsafeRawBufferPointer(start: name, count: strlen(name)))
    }
}
