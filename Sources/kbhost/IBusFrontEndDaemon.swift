import CKBIBus
import Foundation
import KBHost
import KBSystem

extension IBusFrontEnd {
    // MARK: The daemon's news

    /// Subscribes to the daemon's news; without a daemon (or once it went away), a
    /// timer looks for one and for changes to the settings every second, so that
    /// `kbhost next` or `kbhost set` elsewhere reach this engine either way.
    func subscribe() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let channel = DaemonClient.subscribe() else {
            lastSeen = try? context.store.load()
            _ = kbh_ibus_timer(1000, { context in
                IBusFrontEnd.from(context).checkWithoutDaemon() ? 1 : 0
            }, me)
            return
        }
        subscription = channel
        _ = kbh_ibus_watch(channel.fd, { context in
            let frontEnd = IBusFrontEnd.from(context)
            if frontEnd.daemonNews() { return 1 }
            frontEnd.subscribe()
            return 0
        }, me)
    }

    /// No daemon: follow the settings' current keyboard; true to keep looking.
    func checkWithoutDaemon() -> Bool {
        if let channel = DaemonClient.subscribe() {
            Sys.close(channel.fd)
            subscribe()
            return false
        }
        // Any change, not only the current keyboard's: a grant revoked or a keyboard disabled with
        // no daemon to say so ends its process here too (fifth red team, R5-5).
        guard let settings = try? context.store.load(), settings != lastSeen else { return true }
        let currentChanged = settings.current != lastSeen?.current
        lastSeen = settings
        if currentChanged { notice = "" }
        manager.settingsChanged()
        if currentChanged, focused != nil { act { manager.follow(current: settings.current) } }  // else the next focus picks it
        return true
    }

    /// Every event the daemon sent; false when it went away.
    func daemonNews() -> Bool {
        repeat {
            guard var channel = subscription, let line = try? channel.receive(),
                  let event = try? JSONDecoder().decode(DaemonReply.self, from: Data(line.utf8)) else {
                if let channel = subscription { Sys.close(channel.fd) }
                subscription = nil
                Console.err("kbhost ibus: the daemon went away; `kbhost next` elsewhere no longer reaches this engine")
                return false
            }
            subscription = channel
            if event.event == "current", let id = event.identifier, focused != nil {  // else the next focus picks it
                notice = ""
                act { manager.follow(current: id) }
            }
            if event.event == "settings" { act { manager.settingsChanged() } }
        } while subscription?.hasBufferedLine == true
        return true
    }
}
