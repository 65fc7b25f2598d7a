/// What is wrong with a manifest: the file, the key path and what was expected.
///
/// The key path is written as plutil writes it: keys joined by dots, array indexes in
/// brackets (`NSExtension.NSExtensionAttributes.PrimaryLanguage`, `KBHostReadOnlyPaths[0]`);
/// nil when the problem is the file as a whole (not a property list, too large…).
public struct ManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The manifest's path, as the caller named it.
    public var file: String
    /// Where in the property list, or nil for the whole file.
    public var keyPath: String?
    /// What is wrong, as the end of a sentence whose subject is the key path (or the file).
    public var problem: String

    /// An error about `file`, at `keyPath` (nil: the file as a whole).
    public init(file: String, keyPath: String?, problem: String) {
        self.file = file
        self.keyPath = keyPath
        self.problem = problem
    }

    /// One line: the values it quotes and the file's name are escaped (TerminalText), whatever the manifest holds.
    public var description: String {
        TerminalText.line(keyPath.map { "\(file): \($0) \(problem)" } ?? "\(file): \(problem)")
    }
}
