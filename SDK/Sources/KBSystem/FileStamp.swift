import Glibc

extension Sys {
    /// Identifies what is at `path` now, cheaply and without reading it (lstat: inode, size,
    /// modification and change times): two equal stamps mean nothing was written, renamed in or
    /// replaced there since. Empty when there is nothing at `path`.
    public static func fileStamp(_ path: String) -> [Int] {
        guard let st = try? linkStatus(path) else { return [] }
        return [Int(st.st_ino), Int(st.st_size), st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec]
    }
}
