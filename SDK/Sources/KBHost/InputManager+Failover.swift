import Foundation
import KBCore
import KBSystem

// What happens when a keyboard fails, and what the manager keeps of every keyboard it ran:
// the processes it started and their peak footprints.
extension InputManager {
    /// A keyboard's failure as the manager handled it (`lastFailover`): `Event.keyboardFailed`
    /// carries its first line, this the rest, for a front end that counts failures (`kbhost stress`).
    public struct Failover: Sendable {
        /// The keyboard that failed.
        public var keyboardID: String
        /// Why, in full.
        public var reason: String
        /// The keyboard's own failure (its `kind`; a `MemoryKill` for a memory kill); nil when
        /// it failed for a reason that is not a keyboard's (the settings could not be read).
        public var failure: KeyboardFailure?
        /// The failed session's document, what it committed kept (its marked text became plain
        /// text): the document the field goes on with. Nil when the keyboard failed before its
        /// session started: it committed nothing, and the document is as it was.
        public var committed: TextDocument?
        /// The keyboard the field is on now.
        public var landedOn: String
    }

    /// A keyboard failed: what it committed stays; the failure is recorded (a
    /// keyboard that keeps failing is set aside); the user lands on the
    /// previous keyboard if it may still start and serve this field, else the system one.
    /// A pinned field records nothing; keyboards apart record nothing and land on the system
    /// keyboard, where the caller chooses the next one.
    func fellBack(from id: String, because reason: String, failure thrown: KeyboardFailure? = nil) {
        let failed = sessions.remove(id)
        if let failed {
            document = failed.document  // its marked text became plain text
            failed.close()
        }
        let failure = failed?.failure ?? thrown
        if case .memoryExceeded(let kill)? = failure?.reason { notePeak(kill.peak, of: id) }
        let firstLine = String(reason.split(separator: "\n").first ?? "")
        let now = Date().timeIntervalSince1970
        // A pinned field writes nothing: its keyboard was the caller's choice, not the user's settings.
        let settings: KeyboardSettings?
        if pin == nil, apart == nil { settings = try? store?.update { $0.recordFailure(of: id, reason: firstLine, at: now) } } else {
            settings = try? store?.load()
        }
        var landing = SystemKeyboard.identifier
        if apart == nil, let previous = previousID, previous != id, let entry = registry.entry(previous),
           InputModes.ineligibility(of: entry, for: field) == nil, settings?.mayStart(previous, at: now) ?? true {
            landing = previous
        }
        lastFailover = Failover(keyboardID: id, reason: reason, failure: failure, committed: failed?.document, landedOn: landing)
        currentID = id  // so that activate() records the failed one as previous
        actionDeadline.renew()  // what the failed one spent of a front end's action is not the landing's
        activate(landing)
        failedUntilSwitch = (id, currentID)
        if lastFailover?.keyboardID == id { lastFailover?.landedOn = currentID }  // else the landing failed too: that one is the last
        onEvent(.keyboardFailed(id: id, reason: firstLine, setAside: settings?.failures[id]?.setAside == true,
                                landedOn: currentID))
    }

    /// Notes the peak footprint of every running keyboard: before a new one may end the least
    /// recently used (`SessionPool.insert`), and before `close`.
    func notePeaks() {
        for session in sessions.all {
            if let peak = session.peakFootprint { notePeak(peak, of: session.keyboard.identifier) }
        }
    }

    func notePeak(_ bytes: Int, of id: String) { peakFootprints[id] = max(peakFootprints[id] ?? 0, bytes) }

    /// The processes this manager started that are still there (none after `close`, unless one
    /// was left behind).
    public var processesLeft: [Int32] {
        processIDs.sorted().filter { ProcMemory.readSmallFile("/proc/\($0)/stat") != nil }
    }
}
