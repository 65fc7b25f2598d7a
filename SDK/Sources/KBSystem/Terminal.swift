import CKBShims
import Glibc

/// Raw mode for a terminal, restored on every way out: normal return, exit(),
/// and SIGINT/SIGTERM/SIGHUP (which restore, then die as they would have).
public enum Terminal {
    nonisolated(unsafe) private static var saved: termios?
    nonisolated(unsafe) private static var savedFD: Int32 = 0

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Puts `fd` in raw mode (no echo, no line buffering, no signals from keys).
    public static func enterRawMode(_ fd: Int32 = 0) throws(SystemError) {
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw SystemError("tcgetattr", errno: errno) }
        saved = original
        savedFD = fd
        var raw = original
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)  // keep "\n" → "\r\n" on output
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else { throw SystemError("tcsetattr", errno: errno) }
        atexit { Terminal.restore() }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                Terminal.restore()
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    /// Restores the terminal as it was (safe to call more than once).
    public static func restore() {
        guard var original = saved else { return }
        tcsetattr(savedFD, TCSAFLUSH, &original)
        let show = "\u{1B}[?25h\u{1B}[0m\r\n"
        _ = show.withCString { write(1, $0, strlen($0)) }
        saved = nil
    }

    /// A new pseudo-terminal: its master fd and the path of its slave side.
    public static func openPseudoTerminal() throws(SystemError) -> (master: Int32, slavePath: String) {
        var path = [CChar](repeating: 0, count: 128)
        let master = kbs_open_pty(&path, path.count)
        guard master >= 0 else { throw SystemError("posix_openpt", errno: errno) }
        return (master, String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The terminal's columns (80 if unknown).
    public static func width(_ fd: Int32 = 1) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// The terminal's rows (24 when it cannot be asked).
    public static func height(_ fd: Int32 = 1) -> Int {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }
}
