public import Glibc

// The C calls this file makes, each by one private name; every one through Sys.check.
private let sysStat: @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<stat>) -> CInt = stat
private let sysLstat: @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<stat>) -> CInt = lstat
private let sysChmod: @convention(c) (UnsafePointer<CChar>, mode_t) -> CInt = chmod
private let sysAccess: @convention(c) (UnsafePointer<CChar>, CInt) -> CInt = access
private let sysDlopen: @convention(c) (UnsafePointer<CChar>?, CInt) -> UnsafeMutableRawPointer? = dlopen
private let sysDlsym: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>) -> UnsafeMutableRawPointer? = dlsym
private let sysDlerror: @convention(c) () -> UnsafeMutablePointer<CChar>? = dlerror

/// A library dlopen could not load: dlerror's text (dlopen sets no errno).
public struct LibraryError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
}

extension Sys {
    /// stat(2): what `path` names, symbolic links followed.
    public static func status(_ path: String) throws(SystemError) -> stat {
        var st = stat()
        _ = try check("stat") { sysStat(path, &st) }
        return st
    }

    /// lstat(2): what `path` is itself (a symbolic link is not followed).
    public static func linkStatus(_ path: String) throws(SystemError) -> stat {
        var st = stat()
        _ = try check("lstat") { sysLstat(path, &st) }
        return st
    }

    /// chmod(2).
    public static func changeMode(_ path: String, _ mode: mode_t) throws(SystemError) {
        _ = try check("chmod") { sysChmod(path, mode) }
    }

    /// The canonical path (realpath(3)): absolute, with every symbolic link resolved; nil when
    /// it does not resolve (a part is missing, a link leads nowhere…).
    public static func realPath(_ path: String) -> String? {
        // Called by its own name: an alias of realpath crashes Swift 6.3's SendNonSendable pass.
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether this process may write `path` (access(2), W_OK).
    public static func isWritable(_ path: String) -> Bool { sysAccess(path, W_OK) == 0 }

    /// dlopen(3) with `flags` (RTLD_NOW, RTLD_LOCAL…). Never closed: Swift code cannot be unloaded.
    public static func openLibrary(_ path: String, flags: CInt) throws(LibraryError) -> UnsafeMutableRawPointer {
        guard let handle = sysDlopen(path, flags) else {
            throw LibraryError(description: sysDlerror().map { String(cString: $0) } ?? "unknown error")
        }
        return handle
    }

    /// dlsym(3): the address of `name` in a library `openLibrary` opened, or nil.
    public static func symbol(_ name: String, in library: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        sysDlsym(library, name)
    }
}
