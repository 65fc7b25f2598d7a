import ArgumentParser
import CKBIBus
import Foundation
import Glibc
import KBHost
import KBSystem
import KBText

struct IBus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ibus",
        abstract: "kbhost as an IBus input method: every app types through the current keyboard, in its sandbox.",
        discussion: """
            Without a subcommand, runs the engine against the running ibus-daemon (IBUS_ADDRESS, else the \
            user's bus): it offers the engine `kbhost`, which types through kbhost's current keyboard and \
            follows `kbhost next` and the globe key, and `kbhost:ID` for each enabled keyboard. IBus starts \
            it itself (with --ibus) once `kbhost ibus install` has registered it.
            """,
        subcommands: [IBusRun.self, IBusInstall.self, IBusUninstall.self, IBusEngines.self],
        defaultSubcommand: IBusRun.self)
}

struct IBusRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the engine (what `kbhost ibus` does; IBus adds --ibus).")

    @Flag(help: "Started by ibus-daemon from the component file (it already knows the engines).") var ibus = false
    @OptionGroup var budget: BudgetOption

    func run() throws {
        Sys.ignoreSIGPIPE()
        let context = try Context.make()
        let frontEnd = try IBusFrontEnd(context: context, budget: try budget.bytes(context))
        let descriptions = IBusEngines.descriptions(context, all: true)
        var cStrings: [UnsafeMutablePointer<CChar>] = []
        defer { cStrings.forEach { free($0) } }
        func c(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            cStrings.append(p)
            return UnsafePointer(p)
        }
        let infos = descriptions.map {
            kbh_ibus_engine_info(name: c($0.name), longname: c($0.longname), description: c($0.description),
                                 language: c($0.language), symbol: c($0.symbol))
        }
        var handlers = kbh_ibus_handlers()
        handlers.context = Unmanaged.passUnretained(frontEnd).toOpaque()
        handlers.process_key = { ctx, engine, keyval, keycode, state in
            IBusFrontEnd.from(ctx).handling { $0.key(engine!, keyval: keyval, keycode: keycode, state: state) } ? 1 : 0
        }
        handlers.focus_in = { ctx, engine in IBusFrontEnd.from(ctx).handling { $0.focusIn(engine!) } }
        handlers.focus_out = { ctx, engine in IBusFrontEnd.from(ctx).handling { $0.focusOut(engine!) } }
        handlers.reset = { ctx, engine in IBusFrontEnd.from(ctx).handling { $0.reset(engine!) } }
        handlers.enable = { ctx, engine in IBusFrontEnd.from(ctx).handling { $0.enable(engine!) } }
        handlers.surrounding = { ctx, engine, text, cursor, anchor in
            let text = String(cString: text!)
            IBusFrontEnd.from(ctx).handling { $0.surrounding(engine!, text: text, cursor: Int(cursor), anchor: Int(anchor)) }
        }
        handlers.content_type = { ctx, engine, purpose, hints in
            IBusFrontEnd.from(ctx).handling { $0.contentType(engine!, purpose: purpose, hints: hints) }
        }
        handlers.candidate = { ctx, _, index in IBusFrontEnd.from(ctx).handling { $0.choose(Int(index)) } }
        handlers.destroyed = { ctx, engine in IBusFrontEnd.from(ctx).handling { $0.destroyed(engine!) } }
        var error = [CChar](repeating: 0, count: 512)
        let exec = IBusInstall.command(for: "ibus --ibus")
        Console.err("kbhost ibus: offering \(descriptions.count) engines (\(IBus.summary(descriptions)))")
        let status = kbh_ibus_run(&handlers, infos, infos.count, IBusFrontEnd.componentName, exec, ibus ? 1 : 0,
                                  &error, error.count)
        frontEnd.manager.close()
        if status != 0 {
            throw exitWithError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), status: Kbhost.Exit.refused)
        }
        Console.err("kbhost ibus: ibus-daemon went away; stopping")
    }
}

extension IBus {
    static func summary(_ descriptions: [IBusEngines.Description]) -> String {
        let names = descriptions.prefix(6).map(\.name).joined(separator: ", ")
        return descriptions.count > 6 ? names + ", …" : names
    }
}

/// The engines kbhost offers, as IBus's component file wants them.
struct IBusEngines: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engines",
        abstract: "List the engines kbhost offers IBus: `kbhost`, and `kbhost:ID` for each enabled keyboard.",
        discussion: "With --xml, the <engines> element IBus reads (the component file runs this).")

    @Flag(help: "IBus's <engines> XML.") var xml = false
    @Flag(help: "JSON for scripts.") var json = false

    struct Description: Encodable {
        var name, longname, description, language, symbol: String
    }

    static func descriptions(_ context: Context, all: Bool) -> [Description] {
        var list = [Description(name: IBusFrontEnd.followingEngine, longname: "kbhost",
                                description: "Types through kbhost's current keyboard; the globe key and `kbhost next` switch it",
                                language: "other", symbol: "⌨")]
        let enabled = (try? context.store.load())?.enabled ?? []
        let ids = all ? context.registry.keyboards.map(\.identifier).filter { $0 != SystemKeyboard.identifier } : enabled
        for id in ids {
            guard let entry = context.registry.entry(id), !entry.isSystem else { continue }
            let language = entry.manifest.primaryLanguage.split(separator: "-").first.map(String.init) ?? "other"
            list.append(Description(name: "\(IBusFrontEnd.followingEngine):\(id)",
                                    longname: "\(entry.manifest.displayName) (kbhost)",
                                    description: "kbhost keyboard \(id), in its own sandboxed process",
                                    language: language.isEmpty ? "other" : language,
                                    symbol: String(language.prefix(2))))
        }
        return list
    }

    func run() throws {
        let context = try Context.make()
        let list = Self.descriptions(context, all: false)
        if json { return try printJSON(list) }
        if xml {
            Console.out("<engines>")
            for d in list {
                Console.out("""
                    <engine><name>\(Self.escape(d.name))</name><longname>\(Self.escape(d.longname))</longname>\
                    <description>\(Self.escape(d.description))</description><language>\(Self.escape(d.language))</language>\
                    <license>MIT</license><author>kbhost</author><icon></icon><layout>default</layout>\
                    <symbol>\(Self.escape(d.symbol))</symbol><rank>0</rank></engine>
                    """)
            }
            Console.out("</engines>")
            return
        }
        for d in list { Console.out("\(TerminalText.line(d.name))\t\(TerminalText.line(d.longname))\t\(d.language)") }
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // XML 1.0 has no place for C0 controls, U+FFFE or U+FFFF: one in a display name made the
            // whole <engines> list unreadable to IBus (third red team).
            case _ where scalar.value < 0x20: out += " "
            case "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
