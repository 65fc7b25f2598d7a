import Glibc

/// A descriptor with one owner, closed when the last reference goes. A thread that took it
/// under a lock keeps its number valid while it works, however soon the holder it came from
/// lets go: a bare number closed meanwhile could name another keyboard's process by then.
public final class OwnedDescriptor: Sendable {
    public let fd: Int32

    /// Takes ownership of `fd`.
    public init(_ fd: Int32) { self.fd = fd }

    deinit { Sys.close(fd) }
}
