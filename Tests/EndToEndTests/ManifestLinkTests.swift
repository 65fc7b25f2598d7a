import Foundation
import KBHost
import Testing

/// Red team 5: a bundle's Info.plist must be a file inside it. An installed bundle keeps the
/// links it was installed with, and `KBHOST_HOME/Keyboards/ID/` is two folders below
/// `KBHOST_HOME`, so a manifest linked to `../../Containers/Keyboards/OTHER/m.plist` is read
/// from a folder a keyboard writes. That keyboard (no open access needed) then wrote the
/// manifest kbhost read on every command: it named another vendor's installed keyboard's
/// identifier, took its place (the first found is used; its own folder sorts first), and ran
/// with that keyboard's open-access grant, container and groups.
@Suite("A keyboard's manifest is a file inside its bundle")
struct ManifestLinkTests {
    let fm = FileManager.default

    /// A manifest for one of the fault-free sample plugins, with open access requested.
    static func manifest(id: String, name: String, library: String, principal: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>\(id)</string>
        <key>CFBundleDisplayName</key><string>\(name)</string><key>CFBundleExecutable</key><string>\(library)</string>
        <key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>com.apple.keyboard-service</string>
        <key>NSExtensionPrincipalClass</key><string>\(principal)</string><key>NSExtensionAttributes</key><dict>
        <key>IsASCIICapable</key><true/><key>RequestsOpenAccess</key><true/></dict></dict></dict></plist>

        """
    }

    static let impostor = manifest(id: "com.victim.keys", name: "Impostor", library: "libCalculatorKeyboard.so",
                                   principal: "CalculatorKeyboard.CalculatorViewController")

    /// A bundle of Calculator's plugin in `folder`/`name`, its Info.plist a link to `target`.
    func linkedBundle(in folder: String, name: String, to target: String) throws -> String {
        let bundle = folder + "/" + name
        try fm.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixtures.installation.productsDirectory + "/libCalculatorKeyboard.so",
                        toPath: bundle + "/libCalculatorKeyboard.so")
        try fm.createSymbolicLink(atPath: bundle + "/Info.plist", withDestinationPath: target)
        return bundle
    }

    /// The victim: NumberPad's plugin installed as com.victim.keys ("Victim"), open access granted.
    func installVictim(_ w: World) throws {
        let victim = try w.makeBundle(id: "com.victim.keys", library: "libNumberPadKeyboard.so", principal: "NumberPadViewController",
                                      name: "Victim", extra: ["NSExtension": ["NSExtensionPointIdentifier": "com.apple.keyboard-service",
                                                                              "NSExtensionPrincipalClass": "NumberPadViewController",
                                                                              "NSExtensionAttributes": ["IsASCIICapable": true, "RequestsOpenAccess": true]]])
        for command in [["install", victim], ["enable", "com.victim.keys"], ["access", "com.victim.keys", "on"]] {
            let r = try w.run(command)
            #expect(r.status == 0, "kbhost \(command.joined(separator: " ")): \(r.err)")
        }
    }

    /// A bundle installed before this check (install copied its link as it was), its manifest
    /// written by the keyboard a.evil.one into its own container, as any keyboard may write there.
    @Test func aManifestLinkedIntoAContainerDoesNotTakeAnotherKeyboardsPlace() throws {
        let w = try World()
        try installVictim(w)
        let container = w.home + "/Containers/Keyboards/a.evil.one"
        try fm.createDirectory(atPath: container, withIntermediateDirectories: true)
        try Data(Self.impostor.utf8).write(to: URL(fileURLWithPath: container + "/two.plist"))
        let planted = try linkedBundle(in: w.home + "/Keyboards", name: "a.evil.two", to: "../../Containers/Keyboards/a.evil.one/two.plist")

        // Controls: the link resolves to the keyboard's file, and that manifest with that library loads as the victim.
        #expect(try String(contentsOfFile: planted + "/Info.plist", encoding: .utf8) == Self.impostor)
        let outside = try linkedBundle(in: w.root + "/control", name: "impostor", to: container + "/two.plist")
        try fm.removeItem(atPath: outside + "/Info.plist")
        try fm.copyItem(atPath: container + "/two.plist", toPath: outside + "/Info.plist")
        let control = try w.run(["validate", outside])
        #expect(control.status == 0 && control.out.contains("com.victim.keys loads"), "\(control.out)")
        let typedByImpostor = try w.run(["type", "--keyboard", "com.victim.keys", "1", "2"], extraEnvironment: ["KBHOST_KEYBOARDS": w.root + "/control"])
        #expect(typedByImpostor.out != "12\n", "Calculator's plugin types nothing before '=': \(typedByImpostor.out)")

        let list = try w.run(["list", "--all"])
        #expect(list.out.contains("com.victim.keys   Victim"), "the victim keeps its identifier:\n\(list.out)")
        #expect(!list.out.contains("Impostor"), "\(list.out)")
        #expect(list.err.contains("skipped \(planted)/Info.plist: is a symbolic link that leads outside its bundle (to '\(container)/two.plist')"),
                "\(list.err)")
        let typed = try w.run(["type", "--keyboard", "com.victim.keys", "1", "2"])
        #expect(typed.status == 0 && typed.out == "12\n", "the victim's own NumberPad: \(typed.out) \(typed.err)")
    }

    /// `install` refuses such a bundle (as it refuses a library that leads outside), and keeps links inside it.
    @Test func installRefusesAManifestLinkLeadingOutsideItsBundle() throws {
        let w = try World()
        let download = w.root + "/download"
        try fm.createDirectory(atPath: download + "/Containers/Keyboards/a.evil.one", withIntermediateDirectories: true)
        let two = Self.manifest(id: "a.evil.two", name: "Two", library: "libCalculatorKeyboard.so",
                                principal: "CalculatorKeyboard.CalculatorViewController")
        try Data(two.utf8).write(to: URL(fileURLWithPath: download + "/Containers/Keyboards/a.evil.one/two.plist"))
        let bundle = try linkedBundle(in: download + "/Keyboards", name: "a.evil.two", to: "../../Containers/Keyboards/a.evil.one/two.plist")
        let install = try w.run(["install", bundle])
        #expect(install.status == 10, "\(install.err)")
        #expect(install.err.contains("\(bundle)/Info.plist: is a symbolic link that leads outside its bundle"), "\(install.err)")
        #expect(!fm.fileExists(atPath: w.home + "/Keyboards/a.evil.two"))
        let validate = try w.run(["validate", bundle])
        #expect(validate.status == 10 && validate.out.contains("leads outside its bundle"), "\(validate.out)")

        // Controls: the same manifest as a file installs; a link that stays inside the bundle does too.
        try fm.removeItem(atPath: bundle + "/Info.plist")
        try Data(two.utf8).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
        let plain = try w.run(["install", bundle])
        #expect(plain.status == 0, "\(plain.err)")
        try fm.removeItem(atPath: bundle + "/Info.plist")
        try fm.createDirectory(atPath: bundle + "/Resources", withIntermediateDirectories: true)
        try Data(two.utf8).write(to: URL(fileURLWithPath: bundle + "/Resources/Info.plist"))
        try fm.createSymbolicLink(atPath: bundle + "/Info.plist", withDestinationPath: "Resources/Info.plist")
        let inside = try w.run(["install", bundle])
        #expect(inside.status == 0, "\(inside.err)")
        let listed = try w.run(["list", "--all"])
        #expect(listed.out.contains("a.evil.two") && !listed.err.contains("a.evil.two"), "\(listed.out)\(listed.err)")
    }
}
