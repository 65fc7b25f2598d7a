import CKBShims
public import Glibc
import Synchronization

/// Whose a keyboard's folders and files are, and who else may change them: a keyboard reads all of its
/// bundle's folder for as long as it runs, so that folder must be one only its owner fills, and its
/// owner one the user trusts with code that runs as them.
public enum FolderTrust {
    /// What is at a real path, as one descriptor saw it.
    public struct Found: Sendable {
        public let status: stat
        /// Whether an access ACL beyond the mode bits is set (read through the same descriptor where it could be
        /// opened for reading; only where the group bits allow writing, since an ACL's mask shows there).
        public let hasACL: Bool
        public var isFolder: Bool { status.st_mode & S_IFMT == S_IFDIR }
        public var owner: UInt32 { status.st_uid }
    }

    /// What is at `real` — a path with no link in it, as realpath gives — opened with no link followed
    /// on the way (nil: not there, or a link is on its way now).
    public static func inspect(real: String) -> Found? {
        guard root >= 0 else { return nil }
        let relative = String(real.drop { $0 == "/" })
        var fd = kbs_open_beneath(root, relative, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        let readable = fd >= 0
        if fd < 0 && errno == EACCES { fd = kbs_open_path_beneath(root, relative) }  // (unreadable: its ACL by its path)
        guard fd >= 0 else { return nil }
        defer { Sys.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        // An ACL that gives anyone else write shows in the group bits (its mask): looked for only then.
        let acl = st.st_mode & 0o020 == 0 ? 0 : readable ? kbs_fd_has_access_acl(fd) : kbs_has_access_acl(real)
        return Found(status: st, hasACL: acl != 0)
    }

    /// "/", opened once for the process (`list` inspects every keyboard's folders and files).
    private static let root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)

    /// Who besides its owner may write in (or to) what was found, or nil for no one: everyone (its mode,
    /// the sticky bit notwithstanding: /tmp takes anyone's files), or its group — unless that group is its
    /// owner's own: the owner's primary group, named as the owner (or, with no names to look up, numbered
    /// as the owner), with no member listed and no other user having it as theirs, and no ACL (with one,
    /// the group bits are its mask: a named user's write shows there).
    public static func othersWhoMayWrite(_ found: Found) -> String? {
        let st = found.status
        if st.st_mode & 0o002 != 0 { return "anyone" }
        guard st.st_mode & 0o020 != 0 else { return nil }
        guard !found.hasACL, isOwnersOwnGroup(st.st_gid, owner: st.st_uid) else { return "its group (\(st.st_gid))" }
        return nil
    }

    /// The first folder on the way to `path` (an absolute path: each folder holding one of its names) in which someone
    /// not `trusted` may put another entry in place of the next one: one of an owner not trusted, one others may
    /// write in that is not sticky, or sticky with the next entry not of a `trusted` owner (who may rename their
    /// own there), and who.
    public static func folderOthersMayChange(onTheWayTo path: String, trusted: Set<UInt32>) -> (folder: String, who: String)? {
        let names = path.split(separator: "/").map(String.init)
        var current = ""
        for name in names {  // (each name's folder: the last checked is the one holding `path`)
            let folder = current.isEmpty ? "/" : current
            current += "/" + name
            var st = stat()
            guard lstat(folder, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return nil }  // (a link on the way: resolved by its own check)
            // Its owner may put anything in place of what it holds, sticky or not: another user's keyboards folder
            // held a link to the user's installed keyboard, re-pointed to ~/.ssh as attach ran (twenty-sixth red team).
            if !trusted.contains(st.st_uid) { return (folder, "its owner (user \(st.st_uid))") }
            guard st.st_mode & 0o022 != 0, let found = inspect(real: folder), let who = othersWhoMayWrite(found) else { continue }
            if st.st_mode & S_ISVTX != 0 {
                var next = stat()
                if lstat(current, &next) == 0, trusted.contains(next.st_uid) { continue }
            }
            return (folder, who)
        }
        return nil
    }

    /// Answers of `isOwnersOwnGroup` for this process: it walks the user database, and a bundle of 9,990
    /// group-writable folders took 4.2 s a launch asking again for each (twenty-sixth red team, S8).
    private static let ownGroups = Mutex<[UInt64: Bool]>([:])

    /// Whether `gid` is `owner`'s user-private group (see `othersWhoMayWrite`).
    static func isOwnersOwnGroup(_ gid: gid_t, owner: uid_t) -> Bool {
        let key = UInt64(gid) << 32 | UInt64(owner)
        if let known = ownGroups.withLock({ $0[key] }) { return known }
        let answer = lookUpOwnersOwnGroup(gid, owner: owner)
        ownGroups.withLock { $0[key] = answer }
        return answer
    }

    private static func lookUpOwnersOwnGroup(_ gid: gid_t, owner: uid_t) -> Bool {
        let user = account(owner)
        guard gid == (user?.primaryGroup ?? owner) else { return false }
        if let group = groupOf(gid) {
            guard group.members.isEmpty || group.members == [user?.name ?? ""], group.name == (user?.name ?? group.name) else { return false }
            if user == nil, group.name != String(owner) { return false }  // (a named group without the user's name: shared)
        }
        return !otherUserHasPrimaryGroup(gid, besides: owner)
    }

    static func account(_ uid: uid_t) -> (name: String, primaryGroup: gid_t)? {
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return (String(cString: name), entry.pw_gid)
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

    /// The user database is walked by one thread at a time (setpwent/getpwent_r share one position).
    private static let walking = Mutex(())

    /// Whether a user other than `owner` has `gid` as primary group (members not listed in the group: bob,
    /// whose group is alice's, wrote in her "private" folder; a review).
    static func otherUserHasPrimaryGroup(_ gid: gid_t, besides owner: uid_t) -> Bool {
        walking.withLock { _ in
            setpwent()
            defer { endpwent() }
            var entry = passwd(), result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: 16_384)
            while getpwent_r(&entry, &buffer, buffer.count, &result) == 0, result != nil {
                if entry.pw_gid == gid && entry.pw_uid != owner { return true }
            }
            return false
        }
    }
}
