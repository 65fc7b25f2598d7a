import Foundation
import Synchronization
public import KBSystem
import KBWire

/// The folders keyboards keep data in, under KBHOST_HOME:
///
///     Containers/Keyboards/ID/        each keyboard's own (read/write), its HOME
///     Containers/Groups/GROUP/        an App Group's, shared with the containing app
///
/// The worker's sandbox (Landlock) gives a keyboard its own container, read
/// access to its groups, and write access to them only with open access.
public struct Containers: Sendable {
    public let root: String

    public init(home: String) { root = home + "/Containers" }

    /// A keyboard's container. `id` is a valid bundle identifier (a manifest's, which
    /// KeyboardManifest checked): one that is not could name another folder (`..`).
    public func keyboard(_ id: String) -> String {
        precondition(KeyboardManifest.isValidBundleIdentifier(id), "not a bundle identifier: \(TerminalText.quoted(id))")
        return root + "/Keyboards/" + id
    }

    /// An App Group's container; `name` is a valid App Group name.
    public func group(_ name: String) -> String {
        precondition(KeyboardManifest.isValidGroupName(name), "not an App Group name: \(TerminalText.quoted(name))")
        return root + "/Groups/" + name
    }

    /// The defaults of an App Group, reached from `root` without following a link.
    public func groupDefaults(_ name: String) -> GroupDefaultsStore {
        GroupDefaultsStore(group: name, root: root, container: "Groups/" + name)
    }

    /// Creates a keyboard's folders (its own with `tmp`, its groups' with
    /// Library/Preferences) where missing. Only `root` is kbhost's own: below
    /// it a keyboard may have planted links, which are refused, never followed.
    /// A manifest made in code rather than read (KeyboardManifest.load checks these) is refused
    /// here if its identifier or a group would name a folder outside the containers.
    public func prepare(for manifest: KeyboardManifest) throws {
        if let problem = KeyboardManifest.bundleIdentifierProblem(manifest.bundleIdentifier) {
            throw ManifestError(file: manifest.path, keyPath: "CFBundleIdentifier",
                                problem: "\(TerminalText.quoted(manifest.bundleIdentifier)) \(problem); no container was made")
        }
        for name in manifest.applicationGroups {
            if let problem = KeyboardManifest.groupNameProblem(name) {
                throw ManifestError(file: manifest.path, keyPath: KeyboardManifest.applicationGroupsKey,
                                    problem: "\(TerminalText.quoted(name)) \(problem); no container was made")
            }
        }
        _ = try makeRoot().makeFolder("Keyboards/" + manifest.bundleIdentifier + "/tmp")
        for name in manifest.applicationGroups { try groupDefaults(name).makeDirectory() }
    }

    /// Creates `root` (kbhost's own folder; links in its path are the user's) and opens it.
    @discardableResult
    public func makeRoot() throws -> Directory {
        try AtomicFile.makeDirectory(root)
        guard let opened = try Directory.open(trusted: root) else { throw SystemError("open \(root)", errno: ENOENT) }
        return opened
    }
}

/// The general pasteboard, owned by the host: a file under KBHOST_HOME that
/// `kbhost pasteboard` reads and writes. Keyboards reach it only with open
/// access, through the host (they cannot open the file: the sandbox).
public struct Pasteboard: Sendable {
    public let path: String
    /// Longer text is refused: it travels to keyboards inside one message.
    public static let limit = 256 * 1024

    public init(home: String) { path = home + "/pasteboard" }

    public func read() throws -> String? {
        guard let bytes = try AtomicFile.read(path), !bytes.isEmpty else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func write(_ text: String?) throws {
        let bytes = Array((text ?? "").utf8)
        guard bytes.count <= Pasteboard.limit else {
            throw SystemError("pasteboard: \(bytes.count) bytes is more than the \(Pasteboard.limit)-byte limit", errno: EFBIG)
        }
        try AtomicFile.makeDirectory((path as NSString).deletingLastPathComponent)
        try AtomicFile.write(path, bytes)
    }

    /// Identifies the file's current contents cheaply (inode, size, change time).
    func stamp() -> [Int] {
        guard let st = try? Sys.status(path) else { return [] }
        return [Int(st.st_ino), Int(st.st_size), st.st_ctim.tv_sec, st.st_ctim.tv_nsec]
    }
}

/// One of the user's text replacements: typing `userInput` offers `documentText`.
public struct TextReplacement: Hashable, Sendable {
    /// What the user types.
    public var userInput: String
    /// What the keyboard offers in its place.
    public var documentText: String

    public init(userInput: String, documentText: String) {
        self.userInput = userInput
        self.documentText = documentText
    }

    /// The entry the wire carries to the keyboard.
    var wire: LexiconEntry { LexiconEntry(userInput: userInput, documentText: documentText) }
}

/// What a keyboard's session may reach besides the document: its containers,
/// the pasteboard, the user's text replacements, and how it is sandboxed.
public struct KeyboardAccess: Sendable {
    /// KBHOST_HOME: where containers and the pasteboard live; nil gives the keyboard neither.
    public var home: String?
    /// The user's text replacements.
    public var lexicon: [TextReplacement]
    /// Protections the user allowed the keyboard to run without (where the kernel lacks them).
    public var allowMissing: [String]
    /// Install the sandbox (false only for measurements: `kbhost-bench`).
    public var sandboxed: Bool

    public init(home: String? = nil, lexicon: [TextReplacement] = [], allowMissing: [String] = [], sandboxed: Bool = true) {
        self.home = home
        self.lexicon = lexicon
        self.allowMissing = allowMissing
        self.sandboxed = sandboxed
    }

    /// What the user's settings give a keyboard.
    public init(settings: KeyboardSettings, home: String, keyboard id: String) {
        self.init(home: home,
                  lexicon: settings.textReplacements.sorted { $0.key < $1.key }
                      .map { TextReplacement(userInput: $0.key, documentText: $0.value) },
                  allowMissing: settings.allowedMissingProtections[id] ?? [])
    }

    var pasteboard: Pasteboard? { home.map(Pasteboard.init(home:)) }

    /// Where a KBHostReadOnlyPaths entry really is, checked again after its links
    /// are followed (the manifest's check reads only the text): still system
    /// data under /usr, /etc or /opt, none of the system's secrets, and readable
    /// by everyone. nil when it does not exist on this system.
    static func systemData(_ declared: String) throws -> String? {
        guard let resolved = Sys.realPath(declared) else { return nil }
        guard let st = try? Sys.status(resolved) else { return nil }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        let everyone: mode_t = isDirectory ? 0o005 : 0o004
        guard KeyboardManifest.isAllowedReadOnlyPath(resolved), st.st_mode & everyone == everyone else {
            let why = KeyboardManifest.isAllowedReadOnlyPath(resolved)
                ? "which not everyone may read" : "which is not system data under /usr, /etc or /opt"
            throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(declared)) is \(TerminalText.quoted(resolved)), \(why)",
                              errno: EACCES)
        }
        // A folder someone else may write in holds what they put there, for as long as the keyboard runs (a review).
        if isDirectory, let found = FolderTrust.inspect(real: resolved), let who = FolderTrust.othersWhoMayWrite(found) {
            throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(declared)) is \(TerminalText.quoted(resolved)), a folder \(who) may write in",
                              errno: EACCES)
        }
        if isDirectory, let inside = Installation.firstFolderOthersMayWrite(in: resolved) {
            throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(declared)) holds \(TerminalText.quoted(inside.path)), a folder "
                              + "\(inside.who) may write in", errno: EACCES)
        }
        if isDirectory, let hidden = try firstUnreadable(in: resolved) {
            throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(declared)) holds \(TerminalText.quoted(hidden)), "
                              + "which not everyone may read", errno: EACCES)
        }
        return resolved
    }

    /// The most entries a KBHostReadOnlyPaths folder may hold (it is walked at every launch).
    static let systemDataEntries = 10_000

    /// The first thing in `folder` (walked without following links) that not everyone may read:
    /// the keyboard runs as the user, so a folder everyone may read would otherwise hand it the
    /// user's own private files in it (fourth red team: `/etc/default` gave a keyboard of root
    /// `/etc/default/cacerts`, 0600; an ordinary user's 0600 file in a folder under /opt, the same).
    /// A link is not followed: in the keyboard's root it leads only to what is mounted there.
    static func firstUnreadable(in folder: String) throws -> String? {
        var pending = [folder], seen = 0
        while let current = pending.popLast() {
            guard let dir = opendir(current) else { return current }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = Sys.withEntryName(entry) { String(decoding: $0, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                seen += 1
                guard seen <= systemDataEntries else {
                    throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(folder)) holds more than \(systemDataEntries) "
                                      + "files and folders; name the ones the keyboard needs", errno: E2BIG)
                }
                let path = current + "/" + name
                guard let st = try? Sys.linkStatus(path) else { return path }
                switch st.st_mode & S_IFMT {
                case S_IFLNK: continue
                case S_IFDIR:
                    guard st.st_mode & 0o005 == 0o005 else { return path }
                    pending.append(path)
                default:
                    guard st.st_mode & 0o004 == 0o004 else { return path }
                }
            }
        }
        return nil
    }

    /// The sandbox for a keyboard: its bundle, the system data it declares,
    /// its containers (created here), open access as granted.
    /// `products`: the folder of the worker that will run it (kbhost's own build, trusted as the worker is).
    func sandbox(for keyboard: LoadableKeyboard, openAccess: Bool, products: String? = nil) throws -> SandboxSpec {
        // Real paths, checked here, which the extension process opens with no link followed on the way, and
        // mounts only if each is still what it was: a link, or another folder renamed into its place since
        // discovery (a KBHOST_KEYBOARDS folder another user may write in) is refused. (A library that is not
        // there fails its load, which says so.)
        let checked: Installation.CheckedFolders
        do { checked = try Installation.checkedFolders(bundle: keyboard.manifest.bundleDirectory, manifest: keyboard.manifest.path,
                                                        library: keyboard.libraryPath, throughout: true,
                                                        notWalking: products.flatMap { Sys.realPath($0) }) } catch {
            throw SystemError("it may not run from its bundle: \(error.description); it was not started", errno: EPERM)
        }
        var reads = [(checked.libraryFolder, checked.libraryFolderIdentity)]
        if let bundle = checked.bundle { reads.append((bundle.path, bundle.identity)) }
        // Each real folder once: 16 spellings of one were walked 16 times (twenty-sixth red team, S6).
        var seenDeclared = Set<String>()
        let declared = try keyboard.manifest.readOnlyPaths.filter { seenDeclared.insert(Sys.realPath($0) ?? $0).inserted }
            .compactMap(KeyboardAccess.systemData)
        for path in declared {  // (real paths already, checked by `systemData`; checked again here, as the descriptor that gives their identity sees them)
            guard let found = FolderTrust.inspect(real: path) else { continue }
            if let who = FolderTrust.othersWhoMayWrite(found) {
                throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(path)) is one \(who) may write in", errno: EACCES)
            }
            guard Installation.trustedOwners.contains(found.owner) else {
                throw SystemError("KBHostReadOnlyPaths: \(TerminalText.quoted(path)) is user \(found.owner)'s, who could put your files there "
                                  + "while the keyboard runs", errno: EACCES)
            }
            reads.append((path, ReadPathIdentity(device: UInt64(found.status.st_dev), inode: UInt64(found.status.st_ino))))
        }
        var unique: [String: ReadPathIdentity] = [:]
        for (path, identity) in reads { unique[path] = identity }
        let sorted = unique.sorted { $0.key < $1.key }
        var spec = SandboxSpec(enabled: sandboxed, openAccess: openAccess, readPaths: sorted.map { $0.key }, allowMissing: allowMissing)
        spec.readIdentities = sorted.map { $0.value }
        if let home {
            let containers = Containers(home: home)
            try containers.prepare(for: keyboard.manifest)
            // A folder the keyboard may read must not hold the settings and every container.
            let real = { (path: String) -> String in Sys.realPath(path) ?? path }
            let settings = real(home)
            if let wide = spec.readPaths.first(where: { settings == real($0) || settings.hasPrefix(real($0) + "/") }) {
                throw SystemError("the keyboard's folder \(wide) holds kbhost's settings folder \(home), which the keyboard would "
                                  + "then read; keep KBHOST_HOME outside keyboards' bundles and build folders", errno: EPERM)
            }
            // Nor may its bundle lie among the containers (a KBHOST_KEYBOARDS folder leading into them: the data of
            // other keyboards, and a container its own keyboard fills; twenty-fifth red team).
            let containerRoot = real(home + "/Containers")
            let own = [checked.libraryFolder] + (checked.bundle.map { [$0.path] } ?? [])
            if let inside = own.first(where: { real($0) == containerRoot || real($0).hasPrefix(containerRoot + "/") }) {
                throw SystemError("the keyboard's folder \(inside) is inside kbhost's containers (\(containerRoot)), other keyboards' "
                                  + "data; a keyboard's bundle is never there", errno: EPERM)
            }
            // Nor may the system data it names lie inside it (KBHOST_HOME under /opt: another keyboard's container).
            if let inside = declared.first(where: { real($0).hasPrefix(settings == "/" ? "/" : settings + "/") }) {
                throw SystemError("KBHostReadOnlyPaths: \(inside) is inside kbhost's settings folder \(home) (the settings, every "
                                  + "keyboard's container), which the keyboard would then read", errno: EPERM)
            }
            spec.containerPath = containers.keyboard(keyboard.identifier)
            spec.groups = keyboard.manifest.ownedApplicationGroups.map { GroupContainer(name: $0, path: containers.group($0)) }
        }
        Self.afterSandboxCheck.withLock { $0 }?(checked.bundle?.path ?? checked.libraryFolder)
        return spec
    }

    /// Tests only: runs between the checks of a keyboard's folders and its process's start (given the bundle's real path).
    private static let afterSandboxCheck = Mutex<(@Sendable (String) -> Void)?>(nil)
    package static func afterSandboxCheck(_ hook: (@Sendable (String) -> Void)?) { afterSandboxCheck.withLock { $0 = hook } }
}
