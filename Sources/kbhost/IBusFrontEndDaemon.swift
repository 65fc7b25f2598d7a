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
        guard let channel = DaemonClient.subscribeWithoutWaiting() else {
            lastSeen = try? context.store.load()
            _ = kbh_ibus_timer(1000, { context in
                IBusFrontEnd.from(context).handling { $0.checkWithoutDaemon() } ? 1 : 0
            }, me)
            return
        }
        subscription = channel
        _ = kbh_ibus_watch(channel.fd, { context in
            let frontEnd = IBusFrontEnd.from(context)
            if frontEnd.handling({ $0.daemonNews() }) { return 1 }
            frontEnd.subscribe()
            return 0
        }, me)
    }

    /// No daemon: follow the settings' current keyboard; true to keep looking.
    func checkWithoutDaemon() -> Bool {
        if DaemonPaths.answers {  // (a stuck daemon's backlog refuses at once: no key waits here)
            subscribe()
            return false
        }
        // Any change, not only the current keyboard's: a grant revoked or a keyboard disabled with
        // no daemon to say so ends its process here too (fifth red team, R5-5).
        guard let settings = try? context.store.load(), settings != lastSeen else { return true }
        let currentChanged = settings.current != lastSeen?.current
        lastSeen = settings
        if currentChanged { notice = "" }
        // As one action, as the daemon's news is: a keyboard ended here may edit as it disappears.
        act { manager.settingsChanged() }
        if currentChanged, focused != nil { act { manager.follow(current: settings.current) } }  // else the next focus picks it
        return true
    }

    /// Every event the daemon sent, read without waiting (a daemon stopped halfway through a
    /// line must not stop the engine); false when it went away, declined or refused.
    func daemonNews() -> Bool {
        guard var channel = subscription, let lines = channel.receiveAvailable() else {
            if let channel = subscription { Sys.close(channel.fd) }
            subscription = nil
            Console.err("kbhost ibus: the daemon went away; `kbhost next` elsewhere reaches this engine through the settings")
            return false
        }
        subscription = channel
        for line in lines {
            guard let event = try? JSONDecoder().decode(DaemonReply.self, from: Data(line.utf8)), event.ok != nil || event.event != nil else {
                Sys.close(channel.fd)  // declined (another KBHOST_HOME) or refused (an older daemon)
                subscription = nil
                return false
            }
            if event.event == "current", let id = event.identifier, focused != nil {  // else the next focus picks it
                notice = ""
                act { manager.follow(current: id) }
            }
            if event.event == "settings" { act { manager.settingsChanged() } }
        }
        return true
    }
}
