import ArgumentParser
import CKBIBus
import Foundation
import KBHost
import KBSystem
import KBText

/// Registers the engine where IBus finds it, for this user, without root.
/// IBus reads component files only from IBUS_COMPONENT_PATH (default
/// /usr/share/ibus/component), so the file goes to the user's data folder and
/// IBUS_COMPONENT_PATH is set for the session through environment.d.
struct IBusInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Register kbhost with IBus for this user (no root): a component file and the session's IBUS_COMPONENT_PATH.",
        discussion: """
            Writes kbhost.xml into the component folder and, unless --no-environment, \
            ~/.config/environment.d/60-kbhost-ibus.conf adding that folder to IBUS_COMPONENT_PATH. \
            Log out and in (or restart ibus-daemon with that variable set), then add the input source \
            "kbhost" (Other) or a keyboard's own "… (kbhost)" source in your desktop's settings.
            """)

    @Option(help: "Where the component file goes (default $XDG_DATA_HOME/ibus/component).") var componentDir: String?
    @Option(help: "The environment.d folder (default $XDG_CONFIG_HOME/environment.d).") var environmentDir: String?
    @Flag(help: "Do not write the environment.d file.") var noEnvironment = false
    @Flag(help: "JSON for scripts.") var json = false

    struct Result: Encodable {
        var component: String
        @Nullable var environment: String?
        var exec: String
    }

    static func componentDir(_ option: String?) -> String {
        option ?? (IBusInstall.dataHome() + "/ibus/component")
    }

    static func environmentFile(_ option: String?) -> String {
        let env = ProcessInfo.processInfo.environment
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return (option ?? (config + "/environment.d")) + "/60-kbhost-ibus.conf"
    }

    static func dataHome() -> String {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() + "/.local/share")
    }

    /// This executable with arguments, quoted for IBus (which splits the line as a shell would).
    static func command(for arguments: String) -> String {
        let path = Sys.executablePath() ?? CommandLine.arguments[0]
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "' " + arguments
    }

    static func componentXML() -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <!-- Written by `kbhost ibus install`; `kbhost ibus uninstall` removes it. -->
        <component>
            <name>\(IBusFrontEnd.componentName)</name>
            <description>kbhost keyboards, each in its own sandboxed, memory-limited process</description>
            <exec>\(IBusEngines.escape(command(for: "ibus --ibus")))</exec>
            <version>1</version>
            <author>kbhost</author>
            <license>MIT</license>
            <homepage>https://github.com/kbhost/kbhost</homepage>
            <textdomain>kbhost</textdomain>
            <engines exec="\(IBusEngines.escape(command(for: "ibus engines --xml")))"/>
        </component>

        """
    }

    func run() throws {
        let dir = Self.componentDir(componentDir)
        let file = dir + "/kbhost.xml"
        var result = Result(component: file, environment: nil, exec: Self.command(for: "ibus --ibus"))
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try AtomicFile.write(file, Array(Self.componentXML().utf8), mode: 0o644)
            if !noEnvironment {
                let envFile = Self.environmentFile(environmentDir)
                try FileManager.default.createDirectory(atPath: (envFile as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                let line = "# Written by `kbhost ibus install`: IBus reads kbhost's component from here.\n"
                    + "IBUS_COMPONENT_PATH=/usr/share/ibus/component:\(dir)\n"
                try AtomicFile.write(envFile, Array(line.utf8), mode: 0o644)
                result.environment = envFile
            }
        } catch {
            throw exitWithError("could not install the IBus component: \(error)", status: Kbhost.Exit.refused)
        }
        if json { return try printJSON(result) }
        Console.out("wrote \(file)")
        if let env = result.environment { Console.out("wrote \(env) (IBUS_COMPONENT_PATH for your next session)") }
        Console.out("""
            next: log out and in (or run `IBUS_COMPONENT_PATH=/usr/share/ibus/component:\(dir) ibus-daemon -drx`), \
            then add the input source "kbhost" in your desktop's keyboard settings
            """)
    }
}

struct IBusUninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove what `kbhost ibus install` wrote.")

    @Option(help: "Where the component file is (default $XDG_DATA_HOME/ibus/component).") var componentDir: String?
    @Option(help: "The environment.d folder (default $XDG_CONFIG_HOME/environment.d).") var environmentDir: String?

    func run() throws {
        for file in [IBusInstall.componentDir(componentDir) + "/kbhost.xml", IBusInstall.environmentFile(environmentDir)] {
            if unlink(file) == 0 { Console.out("removed \(file)") } else if errno != ENOENT {
                throw exitWithError("could not remove \(file): \(String(cString: strerror(errno)))", status: Kbhost.Exit.refused)
            }
        }
    }
}

/// The X keysyms and masks the engine reads (IBus uses X11's values).
enum KeySym {
    static let backSpace: UInt32 = 0xFF08, backSpaceCode: UInt32 = 14
    static let returnKey: UInt32 = 0xFF0D, returnCode: UInt32 = 28
    static let left: UInt32 = 0xFF51, leftCode: UInt32 = 105
    static let right: UInt32 = 0xFF53, rightCode: UInt32 = 106
    static let shiftL: UInt32 = 0xFFE1, shiftR: UInt32 = 0xFFE2
    static let releaseMask: UInt32 = 1 << 30
    /// Control, Mod1 (Alt), Mod4, Super, Hyper, Meta: shortcuts, which the app gets.
    static let shortcutMask: UInt32 = (1 << 2) | (1 << 3) | (1 << 6) | (1 << 26) | (1 << 27) | (1 << 28)

    /// The key name `InputManager.tap` takes for a keysym: a role for BackSpace,
    /// Return and space, the character otherwise; nil for keys with no character.
    static func name(_ keyval: UInt32) -> String? {
        switch keyval {
        case backSpace: return "delete"
        case returnKey, 0xFF8D: return "return"
        case 0x20: return "space"
        default:
            let code = kbh_ibus_keyval_to_unicode(keyval)
            guard code >= 0x20, code != 0x7F, let scalar = Unicode.Scalar(code) else { return nil }
            return String(Character(scalar))
        }
    }
}

extension IBusFrontEnd {
    /// The app's surrounding text as a buffer (IBus counts code points; the buffer UTF-16 units).
    static func buffer(_ text: String, cursor: Int, anchor: Int) -> TextBuffer {
        func utf16Offset(_ characters: Int) -> Int {
            var n = 0, count = 0
            for scalar in text.unicodeScalars {
                if count == characters { break }
                n += scalar.utf16.count
                count += 1
            }
            return n
        }
        let a = utf16Offset(cursor), b = utf16Offset(anchor)
        return TextBuffer(text: text, selection: UTF16Range(location: min(a, b), length: abs(a - b)))
    }

    /// The field an app describes with GTK's input purpose and hints (IBusInputPurpose, IBusInputHints).
    static func field(purpose: UInt32, hints: UInt32) -> FieldContext {
        var traits = TextInputTraits()
        switch purpose {
        case 2: traits.keyboardType = .numberPad       // digits
        case 3: traits.keyboardType = .decimalPad      // number
        case 4: traits.keyboardType = .phonePad        // phone
        case 5: traits.keyboardType = .url
        case 6: traits.keyboardType = .emailAddress
        case 8: traits.isSecureTextEntry = true        // password
        case 9: traits.isSecureTextEntry = true; traits.keyboardType = .numberPad  // PIN
        default: break
        }
        if hints & (1 << 3) != 0 { traits.autocapitalization = .none }          // lowercase
        if hints & (1 << 4) != 0 { traits.autocapitalization = .allCharacters } // uppercase chars
        if hints & (1 << 5) != 0 { traits.autocapitalization = .words }
        if hints & (1 << 6) != 0 { traits.autocapitalization = .sentences }
        if hints & (1 << 0) != 0 { traits.spellChecking = .yes; traits.autocorrection = .yes }
        if hints & (1 << 1) != 0 { traits.spellChecking = .no; traits.autocorrection = .no }
        if [5, 6].contains(purpose) { traits.autocapitalization = .none; traits.autocorrection = .no }
        return FieldContext(traits: traits)
    }
}
