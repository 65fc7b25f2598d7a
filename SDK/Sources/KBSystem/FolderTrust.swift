import CKBShims
public import Glibc

/// Whose a folder is, and who else may put things in it: a keyboard reads all of its bundle's folder,
/// for as long as it runs, so that folder must be one only its owner fills, and its owner one the user
/// trusts with code that runs as them.
public enum FolderTrust {
    /// The status of what is at `real` — a path with no link in it, as realpath gives — opened with no
    /// link followed on the way (nil: not there, or a link is on its way now).
    public static func status(ofReal real: String) -> stat? {
        let root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return nil }
        defer { Sys.close(root) }
        let fd = kbs_open_path_beneath(root, String(real.drop { $0 == "/" }))
        guard fd >= 0 else { return nil }
        defer { Sys.close(fd) }
        var st = stat()
        return fstat(fd, &st) == 0 ? st : nil
    }

    /// Who besides its owner may write in the folder at `path` (whose status is `st`), or nil for no
    /// one: everyone (its mode, the sticky bit notwithstanding: /tmp takes anyone's files), or its group
    /// — unless that group is its owner's own (named as the owner, with no other member) and no ACL
    /// names anyone else (with an ACL, the group bits are its mask: a named user's write shows there).
    public static func othersWhoMayWrite(_ st: stat, path: String) -> String? {
        if st.st_mode & 0o002 != 0 { return "anyone" }
        guard st.st_mode & 0o020 != 0 else { return nil }
        let own = userName(st.st_uid).map { owner in
            groupOf(st.st_gid).map { $0.name == owner && $0.members.isEmpty } ?? false
        } ?? false
        guard own, kbs_has_access_acl(path) == 0 else { return "its group (\(st.st_gid))" }
        return nil
    }

    static func userName(_ uid: uid_t) -> String? {
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    static func groupOf(_ gid: gid_t) -> (name: String, members: [String])? {
        var entry = group(), result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 65_536)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else { return nil }
        var members: [String] = []
        if var member = entry.gr_mem {
            while let one = member.pointee {
                members.append(String(cString: one))
                member += 1
            }
        }
        return (String(cString: name), members)
    }
}
