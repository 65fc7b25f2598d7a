import CKBShims
import Glibc

/// Copies a keyboard bundle's tree: folders, regular files and symbolic links (as links), and
/// nothing else. Each file is opened without following a link and without waiting (a FIFO put in a
/// file's place after it was checked left `kbhost install` blocked in the FIFO's open for good:
/// twenty-second red team, F4), then checked for what it is through its descriptor.
public enum TreeCopy {
    public struct NotAFile: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): a FIFO or another special file, not a file, a folder or a symbolic link" }
    }

    /// A call that failed on `path`.
    public struct Failure: Error {
        public let path: String, errno: Int32
    }

    public static func copy(from source: String, to destination: String) throws {
        var st = stat()
        guard lstat(source, &st) == 0 else { throw Failure(path: source, errno: errno) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR:
            guard mkdir(destination, 0o755) == 0 else { throw Failure(path: destination, errno: errno) }
            guard let dir = opendir(source) else { throw Failure(path: source, errno: errno) }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = Sys.withEntryName(entry) { String(decoding: $0, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names { try copy(from: source + "/" + name, to: destination + "/" + name) }
        case S_IFLNK:
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(source, &target, target.count - 1)
            guard n >= 0 else { throw Failure(path: source, errno: errno) }
            target[n] = 0
            guard symlink(target, destination) == 0 else { throw Failure(path: destination, errno: errno) }
        default:
            try copyFile(from: source, to: destination)
        }
    }

    static func copyFile(from source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else { throw errno == ENXIO ? NotAFile(path: source) : Failure(path: source, errno: errno) }
        defer { Sys.close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw Failure(path: source, errno: errno) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw NotAFile(path: source) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 0o755)
        guard output >= 0 else { throw Failure(path: destination, errno: errno) }
        defer { Sys.close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try buffer.withUnsafeMutableBytes { try Sys.read(input, into: $0) } } catch { throw Failure(path: source, errno: (error as? SystemError)?.errno ?? EIO) }
            if n == 0 { break }
            do { try buffer.withUnsafeBytes { try Sys.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<n])) } } catch {
                throw Failure(path: destination, errno: (error as? SystemError)?.errno ?? EIO)
            }
        }
    }
}
